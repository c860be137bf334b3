"""Every plot returns a matplotlib Figure, for tables with and without the thing it plots."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from matplotlib.figure import Figure

import paimon_lens
from paimon_lens.presentation import plots

EVENTS = "data/events20"
ORDERS = "data/orders_dv20"


@pytest.fixture(scope="module")
def events() -> paimon_lens.table.Table:  # type: ignore[name-defined]
    return paimon_lens.open_table(EVENTS)


@pytest.fixture(scope="module")
def orders() -> paimon_lens.table.Table:  # type: ignore[name-defined]
    return paimon_lens.open_table(ORDERS)


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text"))]  # type: ignore[attr-defined]


def test_funnel(events) -> None:  # type: ignore[no-untyped-def]
    report = events.explain("country = 'DE' AND score > 50")
    fig = plots.funnel(report)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 3
    bars = [len(ax.patches) for ax in fig.axes]
    assert bars == [len(report.funnel())] * 3
    # the bar lengths are the funnel numbers, first stage at the top
    files_axis = fig.axes[0]
    widths = sorted((p.get_width() for p in files_axis.patches), reverse=True)
    assert widths[0] == report.summary()["files"]


def test_file_sizes(events) -> None:  # type: ignore[no-untyped-def]
    fig = plots.file_sizes(events)
    ax1, ax2 = fig.axes
    assert sum(p.get_height() for p in ax1.patches) == len(events.live_files())
    assert sum(p.get_height() for p in ax2.patches) == len(events.live_files())


def test_index_bytes_sums_match_frame(events) -> None:  # type: ignore[no-untyped-def]
    fig = plots.index_bytes(events)
    total = sum(p.get_width() for p in fig.axes[0].patches)
    assert total == pytest.approx(float(events.file_indexes()["bytes"].sum()))


def test_bloom_fill(events, orders) -> None:  # type: ignore[no-untyped-def]
    fig = plots.bloom_fill(events)
    points = sum(len(c.get_offsets()) for c in fig.axes[0].collections)
    assert points == len(events.bloom_filters())
    assert isinstance(plots.bloom_fill(orders), Figure)


def test_bloom_fill_draws_a_fixed_sample_of_many_filters(events, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    blooms = events.bloom_filters()
    per_column = blooms.groupby("column").size()
    assert per_column.max() > 2
    monkeypatch.setattr(plots, "BLOOM_POINTS", 2)
    fig = plots.bloom_fill(events)
    assert [len(c.get_offsets()) for c in fig.axes[0].collections] == [min(2, n) for n in per_column]
    assert "2 sampled filters per column" in fig.axes[0].get_title()
    again = plots.bloom_fill(events)  # the same sample every time
    assert [c.get_offsets().tolist() for c in fig.axes[0].collections] == \
        [c.get_offsets().tolist() for c in again.axes[0].collections]


def test_many_bloom_points_are_an_image_in_the_svg(events, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    drawn = plots.figure_svg(plots.bloom_fill(events)).decode()
    assert "<image" not in drawn  # few points: each one an SVG element
    monkeypatch.setattr(plots, "RASTER_POINTS", 1)
    fig = plots.bloom_fill(events)
    assert all(c.get_rasterized() for c in fig.axes[0].collections if len(c.get_offsets()) > 1)
    svg = plots.figure_svg(fig).decode()
    assert 'xlink:href="data:image/png;base64,' in svg and len(svg) < len(drawn) + 60_000


def test_bitmap_distribution(events) -> None:  # type: ignore[no-untyped-def]
    fig = plots.bitmap_distribution(events, "country")
    total = sum(p.get_width() for p in fig.axes[0].patches)
    assert total == events.bitmap_values("country")["rows"].sum()
    fig = plots.bitmap_distribution(events, "id")  # no bitmap on id
    assert any("no bitmap index" in t for t in _texts(fig))


def test_dv_deleted_ratio(events, orders) -> None:  # type: ignore[no-untyped-def]
    fig = plots.dv_deleted_ratio(orders)
    dv = orders.deletion_vectors()
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert sum(heights) > 0
    assert max(heights) <= 1.0
    first = int(dv.sort_values("bucket")["bucket"].iloc[0])  # the bucket of the first bar
    files = orders.files()
    rows = files[files["bucket"] == first]["row_count"].sum()  # every row of the bucket, DV or not
    assert heights[0] == pytest.approx(dv[dv["bucket"] == first]["cardinality"].sum() / rows)
    assert any("no deletion vectors" in t for t in _texts(plots.dv_deleted_ratio(events)))


def test_labels_are_safe_for_mathtext() -> None:
    assert plots.label("$x$ costs $5") == r"\$x\$ costs \$5"
    assert plots.label("a" * 100).endswith("…")
    assert plots.label(None) == "null"
    assert plots.label({}) == "(unpartitioned)"


def test_svg_export_is_xml_without_script(events) -> None:  # type: ignore[no-untyped-def]
    fig = plots.bitmap_distribution(events, "country")
    svg = plots.figure_svg(fig)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert b"<script" not in svg
    assert plots.figure_data_uri(fig).startswith("data:image/svg+xml;base64,")
    assert plots.figure_png(fig).startswith(b"\x89PNG")


def test_plots_module_reachable_lazily() -> None:
    assert paimon_lens.plots is plots


def test_byte_axis_labels_name_their_tick_exactly(events) -> None:  # type: ignore[no-untyped-def]
    for fig, ax_index in ((plots.index_bytes(events), 0), (plots.file_sizes(events), 0)):
        plots.figure_png(fig)  # draw, so the tick labels exist
        ax = fig.axes[ax_index]
        units = {"B": 1, "KiB": 1024, "MiB": 1024**2}
        labels = [(t.get_position()[0], t.get_text()) for t in ax.get_xticklabels() if t.get_text()]
        assert len(labels) >= 3
        assert len({text.split()[1] for _, text in labels}) == 1  # one unit per axis
        for pos, text in labels:
            number, unit = text.split()
            assert float(number) * units[unit] == pytest.approx(pos, abs=1e-6)


def test_non_latin_text_in_png_plots_is_drawn_or_spelled() -> None:
    """No empty boxes: CJK text uses an installed fallback font, or shows its code points."""
    from paimon_lens.presentation.plots import _figure_class, _fonts, figure_png, figure_svg, png_text

    fallbacks, chars = _fonts()
    assert png_text("abc é") == "abc é"
    assert png_text("中") == ("中" if ord("中") in chars else "<U+4E2D>")
    assert ord("中") in chars or not fallbacks
    fig = _figure_class()(figsize=(3, 2))
    ax = fig.subplots()
    ax.barh(["中文", "abc"], [1, 2])
    ax.set_title("标题")
    assert figure_png(fig)[:4] == b"\x89PNG"
    assert ax.get_title() == "标题"  # the figure keeps its text: the SVG (browser fonts) shows it
    assert "标题" in figure_svg(fig).decode("utf-8")
