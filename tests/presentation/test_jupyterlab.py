"""The explorer in a real JupyterLab, driven in headless Chromium: run the cell, switch tabs, explain.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``jupyterlab`` package (dev extra; CI
installs all three). Without them the test is skipped, except in CI (``CI`` set), where a missing
browser is a failure.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from .chromium import chromium

T = TypeVar("T")

EVENTS = Path(__file__).parent.parent.parent / "data" / "events20"

pytest.importorskip("jupyterlab", reason="the JupyterLab test needs jupyterlab (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A JupyterLab server (no token, app exposed to the page) over a folder with one notebook."""
    root = tmp_path_factory.mktemp("lab")
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "explore", "metadata": {}, "outputs": [],
                     "source": ["import paimon_lens\n", f"ex = paimon_lens.explore({str(EVENTS)!r})\n", "ex"]}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    (root / "explore.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / ".config"), JUPYTER_RUNTIME_DIR=str(root / ".runtime"))
    log = open(root / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=", "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.time() + 90
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(root / 'server.log').read_text(encoding='utf-8')[-2000:]}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(1400, 1000, page_load_timeout=90) as driver:
        yield driver


def _wait(driver: Any, what: str, condition: Callable[[], T], timeout: float = 120) -> T:
    end = time.time() + timeout
    while time.time() < end:
        try:
            got = condition()
        except Exception:  # the page is still building: try again
            got = None
        if got:
            return got
        time.sleep(0.5)
    text = driver.find_element("tag name", "body").text[:800]
    raise AssertionError(f"timed out waiting for {what}; page text: {text}")


def _tab(driver: Any, name: str) -> Any:
    return next(t for t in driver.find_elements("css selector", ".lm-TabBar-tab") if t.text.strip() == name)


def test_explorer_in_jupyterlab(lab: str, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{lab}/lab/tree/explore.ipynb")
    _wait(browser, "JupyterLab's app", lambda: browser.execute_script(
        "return !!(window.jupyterapp && window.jupyterapp.commands.hasCommand('notebook:run-all-cells'))"))
    _wait(browser, "an idle kernel", lambda: browser.execute_script(
        "const w = window.jupyterapp.shell.currentWidget;"
        "return !!(w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.status === 'idle')"))
    browser.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # the explorer renders: its tabs, the Files tab with the files table
    _wait(browser, "the explorer's tabs", lambda: _tab(browser, "Indexes"))
    _wait(browser, "the files tab", lambda: "file_name" in browser.page_source)
    _tab(browser, "Indexes").click()
    _wait(browser, "the indexes tab", lambda: "File indexes of" in browser.page_source)
    _tab(browser, "Explain").click()
    box = _wait(browser, "the WHERE box", lambda: next(
        (i for i in browser.find_elements("css selector", ".widget-text input") if i.is_displayed()), None))
    box.click()
    box.send_keys("country = 'DE' AND score > 50")
    box.send_keys(Keys.ENTER)
    _wait(browser, "the funnel", lambda: "after index row selection" in browser.page_source)
    body = browser.find_element("tag name", "body").text
    assert "after deletion vector" in body and "WHERE country = 'DE' AND score > 50" in body
    shot = tmp_path / "jupyterlab.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
