"""The tuning report in headless Chromium: plots render, hostile table values stay inert text.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them) and selenium (dev
extra). On a machine without them the tests are skipped, except in CI (``CI`` set), where a
missing browser is a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import paimon_lens

from .chromium import chromium
from .hostile_table import MARK, PAYLOADS, SCRIPT_COL, hostile_workload, write_hostile_table


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(1280, 2200) as driver:
        yield driver


def _load(driver: Any, path: Path) -> None:
    driver.get(path.resolve().as_uri())
    driver.execute_script("return document.readyState")  # waits for the load event under the hood


def _no_alert(driver: Any) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert  # noqa: B018 - raises when there is none
    except NoAlertPresentException:
        return True
    return False


def _images_rendered(driver: Any) -> list[dict[str, Any]]:
    return list(driver.execute_script(
        "return Array.from(document.images).map(i => ({alt: i.alt, ok: i.complete && i.naturalWidth > 0,"
        " w: i.naturalWidth, h: i.naturalHeight}))"))


def _screenshot_has_plot_colours(png: Path) -> bool:
    """The screenshot is not blank: it holds the bar colours of the plots (#4c78a8, #f58518)."""
    import numpy as np
    from matplotlib.image import imread

    pixels = (imread(str(png))[..., :3] * 255).round().astype(int)
    colours = {tuple(c) for c in pixels.reshape(-1, 3)[::7]}
    return ((76, 120, 168) in colours or (245, 133, 24) in colours) and len(np.unique(pixels)) > 10


def test_report_renders_with_plots(browser: Any, tmp_path: Path) -> None:
    out = paimon_lens.report("data/events20", "data/events20.workload.sql").save(tmp_path / "report.html")
    _load(browser, out)
    assert browser.title == "paimon-lens tuning report: events20"
    images = _images_rendered(browser)
    assert len(images) >= 8
    assert all(i["ok"] for i in images), [i for i in images if not i["ok"]]
    body = browser.find_element("tag name", "body").text
    assert "Workload: explain per predicate" in body and "country = 'DE'" in body
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000
    assert _screenshot_has_plot_colours(shot)
    # no network: every resource of the page is the file itself or a data: URI
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(r.startswith("data:") for r in resources), resources


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = write_hostile_table(tmp_path_factory.mktemp("hostile") / "evil")
    return paimon_lens.report(str(root), hostile_workload())


def _assert_inert(browser: Any, expected_title: str) -> str:
    assert _no_alert(browser)
    assert browser.title == expected_title
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('iframe')")
    # no element was created from table text: no script/svg/iframe outside the plots' <img> tags
    assert browser.execute_script("return document.querySelectorAll('script, iframe, svg, object, embed').length") == 0
    assert browser.execute_script(
        "return Array.from(document.images).every(i => i.src.startsWith('data:image/svg+xml;base64,'))")
    body = browser.find_element("tag name", "body").text
    assert MARK not in browser.title
    return str(body)


def test_hostile_table_report_is_inert(browser: Any, hostile: Any, tmp_path: Path) -> None:
    out = hostile.save(tmp_path / "hostile.html")
    _load(browser, out)
    body = _assert_inert(browser, "paimon-lens tuning report: evil")
    # the payloads are shown as text, exactly
    assert SCRIPT_COL in body
    assert PAYLOADS[1] in body
    assert "'{{7*7}} ${7*7}'" in body  # template syntax in table text is not evaluated
    assert "= '49" not in body
    images = _images_rendered(browser)
    assert images and all(i["ok"] for i in images)
    assert browser.save_screenshot(str(tmp_path / "hostile.png"))


def test_notebook_fragment_is_inert_without_csp(browser: Any, hostile: Any, tmp_path: Path) -> None:
    """What a notebook shows (no CSP meta there): escaping alone must keep it inert."""
    table = paimon_lens.open_table(hostile.table.path)
    parts = [hostile._repr_html_(), table._repr_html_(), table.files()._repr_html_(),
             table.bitmap_values(SCRIPT_COL)._repr_html_(), hostile.explains[0]._repr_html_()]
    page = tmp_path / "fragment.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>fragment</title></head><body>"
                    + "".join(parts) + "</body></html>", encoding="utf-8")
    _load(browser, page)
    body = _assert_inert(browser, "fragment")
    assert SCRIPT_COL in body and PAYLOADS[2] in body


@pytest.mark.parametrize("width", [1000, 1400, 1920])
def test_report_fits_the_window_at_any_common_width(browser: Any, tmp_path: Path, width: int) -> None:
    """No horizontal page overflow at 1,000 - 1,920 px: wide tables scroll inside their own box."""
    out = paimon_lens.report("data/events20", "data/events20.workload.sql").save(tmp_path / "report.html")
    browser.set_window_size(width, 1400)
    try:
        _load(browser, out)
        browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        page = browser.execute_script(
            "return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth}")
        assert page["scroll"] <= page["inner"], page
        boxes = browser.execute_script(
            "return Array.from(document.querySelectorAll('.paimon-lens-frame')).map(d => ({"
            "box: d.getBoundingClientRect().right, style: getComputedStyle(d).overflowX,"
            "wide: d.scrollWidth > d.clientWidth}))")
        assert boxes and all(b["box"] <= page["inner"] and b["style"] == "auto" for b in boxes), boxes
        # statements wrap inside their box: nothing of a statement is cut or scrolled away
        pres = browser.execute_script(
            "return Array.from(document.querySelectorAll('pre')).map(p => p.scrollWidth <= p.clientWidth + 1)")
        assert pres and all(pres)
        # the first screen decides: the overview, then the plan, starting within the window
        plan = browser.execute_script("return document.getElementById('plan').getBoundingClientRect().top")
        assert 0 < plan < 1400
        shot = tmp_path / f"report-{width}.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
    finally:
        browser.set_window_size(1280, 2200)


def test_warehouse_health_page(browser: Any, tmp_path: Path) -> None:
    import shutil

    for name in ("events20", "orders_dv20"):
        shutil.copytree(Path("data") / name, tmp_path / "wh" / "demo.db" / name)
    page = paimon_lens.open_catalog(str(tmp_path / "wh")).health().save(str(tmp_path / "health.html"))
    browser.set_window_size(1000, 1400)
    try:
        _load(browser, page)
        assert browser.title.startswith("paimon-lens warehouse health")
        body = browser.find_element("tag name", "body").text
        assert "demo.events20" in body and "demo.orders_dv20" in body and "Top findings per table" in body
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        assert browser.execute_script("return document.querySelectorAll('script, iframe').length") == 0
        # the ranking column is on the first screen, in human units
        rank = browser.execute_script(
            "const th = Array.from(document.querySelectorAll('#tables th')).find(h => h.textContent === "
            "'savings_score'); const i = Array.from(th.parentNode.children).indexOf(th); "
            "return {right: th.getBoundingClientRect().right, inner: window.innerWidth, "
            "cell: th.closest('table').querySelector('tbody tr').children[i].textContent}")
        assert rank["right"] <= rank["inner"], rank
        assert rank["cell"].endswith(("B", "KiB", "MiB", "GiB")), rank
    finally:
        browser.set_window_size(1280, 2200)
