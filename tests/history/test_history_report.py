"""The History section of the tuning report, the timeline plot, and the timeline's findings."""

from __future__ import annotations

from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.history.findings import history_findings
from paimon_lens.history.timeline import History, SnapshotFacts
from paimon_lens.presentation.blocks import block_dict
from paimon_lens.presentation.history_section import history_section, regressions
from paimon_lens.presentation.report import build_report
from paimon_lens.workload.model import as_workload

ROOT = Path(__file__).parent.parent.parent


def test_report_leads_with_history_when_a_workload_query_reads_more() -> None:
    table = pl.open_table(str(ROOT / "data" / "orders_dv20"), progress=False)
    report = build_report(table, ["qty > 5", "customer = 7"])
    keys = [s.key for s in report.sections]
    assert keys.index("history") == keys.index("findings") + 1
    history = next(s for s in report.sections if s.key == "history")
    assert not history.errors and history.urgent
    html = report.html
    assert "Workload queries then and now" in html and "compaction at snapshot 11 merged 3 files" in html


def test_regressions_equal_explain_at_both_snapshots() -> None:
    table = pl.open_table(str(ROOT / "data" / "orders_dv20"), progress=False)
    found = regressions(table.reader, table.history(), as_workload(["qty > 5"]))
    (row,) = found
    assert row["from_snapshot"] == 1
    assert row["read_bytes_then"] == table.at(1).explain("qty > 5").summary()["read_bytes"]
    assert row["read_bytes_now"] == table.explain("qty > 5").summary()["read_bytes"]
    assert row["read_bytes_delta"] == sum(c.read_bytes_delta for c in row["diff"].causes)


def test_a_query_on_a_column_added_later_is_compared_from_its_schema() -> None:
    """events20's column tag exists from schema 1 (snapshot 5): the comparison starts there."""
    table = pl.open_table(str(ROOT / "data" / "events20"), progress=False)
    (row,) = regressions(table.reader, table.history(), as_workload(["tag = 'x'"]))
    assert row["from_snapshot"] == 5 and "error" not in row


def test_section_of_a_table_with_one_snapshot() -> None:
    table = pl.open_table(str(ROOT / "data" / "demo_orders"), progress=False)
    section = history_section(table)
    texts = [block_dict(b).get("text", "") for b in section.blocks]
    assert any("One snapshot kept" in t for t in texts) and not section.urgent


def _facts(sid: int, kind: str = "APPEND", **kw: object) -> SnapshotFacts:
    base = {"files": 10, "bytes": 10_000, "rows": 1000, "schema_id": 0}
    base.update(kw)
    return SnapshotFacts(sid, kind, **base)  # type: ignore[arg-type]


def test_timeline_findings() -> None:
    table = pl.open_table(str(ROOT / "data" / "events20"), progress=False)
    dropped = History("t", [
        _facts(1, index_coverage={"bitmap(status)": 10}, unindexed_files={"bitmap(status)": 0}),
        _facts(2, schema_id=1, index_coverage={"bitmap(status)": 10}),
        _facts(3, "COMPACT", schema_id=1, index_coverage={"bitmap(status)": 4}),
    ])
    (f,) = history_findings(table.reader, dropped)
    assert f.kind == "index-dropped" and "6 files lost it" in f.title
    assert any("rewrite_file_index" in st for st in f.statements)
    assert any("file-index.bitmap.columns" in st for st in f.statements)
    recent = History("t", [
        _facts(1, index_coverage={"bloom-filter(id)": 0}, unindexed_files={"bloom-filter(id)": 10}),
        _facts(2, files=14, index_coverage={"bloom-filter(id)": 1}, unindexed_files={"bloom-filter(id)": 13}),
    ])
    assert [f.kind for f in history_findings(table.reader, recent)] == ["index-missing-recent"]
    growing = History("t", [
        _facts(1, "COMPACT", dv_max_bucket_ratio=0.0, small_files=0),
        _facts(2, dv_max_bucket_ratio=0.05, dv_deleted_rows=50, small_files=10),
        _facts(3, dv_max_bucket_ratio=0.2, dv_deleted_rows=200, dv_files=3, small_files=30, files=40),
    ])
    kinds = {f.kind for f in history_findings(table.reader, growing)}
    assert kinds == {"dv-growing", "small-files-growing"}
    assert history_findings(table.reader, History("t", [_facts(1)])) == []


@pytest.mark.parametrize("name", ["orders_dv20", "events20"])
def test_timeline_plot_and_png_tick_labels(name: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.ticker import ScalarFormatter

    from paimon_lens.presentation.plots import figure_png, png_formatter, timeline

    table = pl.open_table(str(ROOT / "data" / name), progress=False)
    fig = timeline(table.history())
    assert len(fig.axes) == 4 and figure_png(fig).startswith(b"\x89PNG")
    FigureCanvasAgg(fig).draw()
    inner = ScalarFormatter()
    inner.set_axis(fig.axes[0].yaxis)
    wrapped = png_formatter(inner)
    assert wrapped.format_ticks([0.0, 1.0, 2.0]) == ["0", "1", "2"]  # a ScalarFormatter labels through it


def test_the_timeline_plot_accounts_for_every_index() -> None:
    """No index is left out of the coverage plot: incomplete ones each, complete ones as one line."""
    from paimon_lens.presentation.plots import timeline

    history = pl.open_table(str(ROOT / "data" / "events20"), progress=False).history()
    names = {k for s in history.snapshots for k in s.index_coverage}
    legend = [t.get_text() for t in timeline(history).axes[2].get_legend().get_texts()]
    partial = [n for n in names if any(s.files and s.index_coverage.get(n, 0) < s.files for s in history.snapshots)]
    shown = sum(1 for t in legend if not t.endswith(("on every file", "(every file)")) and "more (their" not in t)
    complete = next((int(t.split()[0]) for t in legend if t.endswith("on every file")), 0)
    complete += sum(1 for t in legend if t.endswith("(every file)"))
    more = next((int(t.split()[0]) for t in legend if "more (their lowest)" in t), 0)
    assert shown + complete + more == len(names) and len(partial) == shown + more
