"""Headless Chromium for the browser tests (Debian's ``chromium`` and ``chromium-driver``).

Importing this module skips the importing test module when they are missing, except in CI
(``CI`` set), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI must install Debian's chromium and chromium-driver for the browser tests")
    pytest.skip("Debian packages chromium and chromium-driver are not installed", allow_module_level=True)


@contextmanager
def chromium(width: int, height: int, page_load_timeout: float = 60) -> Iterator[Any]:
    """A headless Chromium window of ``width`` x ``height`` pixels, driven by selenium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(page_load_timeout)
    try:
        yield driver
    finally:
        driver.quit()
