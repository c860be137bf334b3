"""The ipywidgets explorer, driven through its widgets as a user would."""

from __future__ import annotations

import ipywidgets as widgets
import pytest

import paimon_lens
from paimon_lens.presentation.widgets import Explorer


@pytest.fixture()
def explorer() -> Explorer:
    return paimon_lens.explore("data/events20")


def test_layout_and_snapshots(explorer: Explorer) -> None:
    assert isinstance(explorer, widgets.VBox)
    assert [v for _, v in explorer.snapshot.options] == [1, 2, 3, 4, 5, 6]
    assert explorer.snapshot.value == 6
    assert "events20" in explorer.header.value
    assert "file_name" in explorer.files_view.value and "<img" in explorer.files_view.value
    assert explorer.indexes_view.value == ""  # other tabs render when first shown


def test_tabs_render_on_selection(explorer: Explorer) -> None:
    explorer.tabs.selected_index = 1
    assert explorer.column.value == explorer.column.options[0]
    explorer.column.value = "country"
    assert "bitmap" in explorer.indexes_view.value
    assert explorer.indexes_view.value.count("<img") == 2  # index bytes + bitmap distribution
    explorer.tabs.selected_index = 2
    assert "No deletion vectors" in explorer.dv_view.value


def test_explain_updates_funnel_plot_and_verdicts(explorer: Explorer) -> None:
    explorer.where.value = "country = 'DE' AND score > 50"  # Enter (value change) runs it
    report = explorer.report
    assert report is not None and report.where == "country = 'DE' AND score > 50"
    assert "after stats" in explorer.funnel_view.value
    assert explorer.funnel_plot.value.startswith("<img")
    assert explorer.verdicts_view.value.count("<tr>") >= len(report.files)
    assert explorer.explain_error.value == ""
    explorer.truth.value = True
    explorer.explain_button.click()
    assert explorer.report is not report and explorer.report.truth
    assert "matching_rows" in explorer.verdicts_view.value


def test_errors_inline_and_recovery(explorer: Explorer) -> None:
    explorer.where.value = "nope = 1"
    assert "unknown column" in explorer.explain_error.value
    assert "paimon-lens-error" in explorer.explain_error.value
    explorer.where.value = "id = 'not a number'"
    assert explorer.explain_error.value != ""
    explorer.where.value = "id = 1000"
    assert explorer.explain_error.value == ""
    explorer.where.value = "   "
    assert "type a WHERE clause" in explorer.explain_error.value


def test_snapshot_change_reloads(explorer: Explorer) -> None:
    explorer.where.value = "id = 1000"
    files_latest = len(explorer.report.files)
    explorer.snapshot.value = 2
    assert explorer.table.snapshot_id == 2
    assert "snapshot <b>2</b>" in explorer.header.value
    assert explorer.report.table.snapshot_id == 2  # the explain follows the snapshot
    assert len(explorer.report.files) < files_latest


def test_deletion_vector_tab_on_pk_table() -> None:
    ex = paimon_lens.explore(paimon_lens.open_table("data/orders_dv20"))
    ex.tabs.selected_index = 2
    assert "deleted_ratio" in ex.dv_view.value and "<img" in ex.dv_view.value


def test_history_tab_compares_the_typed_clause_with_the_earliest_snapshot() -> None:
    ex = paimon_lens.explore(paimon_lens.open_table("data/orders_dv20"))
    ex.tabs.selected_index = 4
    assert "History" in ex.history_view.value and "<img" in ex.history_view.value  # the timeline plot
    assert "Workload queries then and now" not in ex.history_view.value
    ex.where.value = "qty > 5"  # the visible History tab follows the clause
    assert "Workload queries then and now" in ex.history_view.value
    assert "compaction at snapshot 11" in ex.history_view.value
