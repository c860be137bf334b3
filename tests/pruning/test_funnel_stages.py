"""The explain funnel names the stage that removes rows: the bitmap index's row selection and the
deletion vectors are separate stages, in the funnel, the per-file fields, the frame and the JSON."""

from __future__ import annotations

import json

import pytest

import paimon_lens as pl
from paimon_lens.pruning.explain import ExplainReport

PREDICATES = {
    "data/orders_dv20": ["order_id > 0", "status = 'PAID'", "qty > 1", "customer = 3"],
    "data/events20": ["country = 'DE' AND score > 50", "id = 1000", "status IN ('active', 'banned')"],
}


def _funnel(report: ExplainReport) -> dict[str, dict[str, int]]:
    return {row["stage"]: row for row in report.funnel()}


def _check(report: ExplainReport) -> None:
    funnel = _funnel(report)
    before = [f for f in report.files if f.stage in ("", "index rows", "deletion vector")]
    assert funnel["after read index"]["rows"] == sum(f.row_count for f in before)
    selected = sum(f.row_count if f.index_selected_rows is None else f.index_selected_rows
                   for f in before if f.stage != "index rows")
    assert funnel["after index row selection"]["rows"] == selected
    removed = sum(f.dv_removed_rows for f in before)
    assert funnel["after deletion vector"]["rows"] == selected - removed == report.summary()["rows_after_dv"]
    for f in report.files:
        assert 0 <= f.dv_removed_rows <= f.deleted_rows, f.file_name
        if f.index_selected_rows is not None:
            assert f.index_positions is not None and f.index_selected_rows == len(f.index_positions)
        if f.deleted_rows == 0:
            assert f.stage != "deletion vector" and f.dv_removed_rows == 0


@pytest.mark.parametrize(("path", "where"), [(p, w) for p, ws in PREDICATES.items() for w in ws])
def test_funnel_separates_index_rows_from_deletion_vectors(path: str, where: str) -> None:
    _check(pl.open_table(path).explain(where))


def test_rows_removed_by_each_stage_on_a_table_with_deletion_vectors() -> None:
    report = pl.open_table("data/orders_dv20").explain("status = 'PAID'")
    funnel = _funnel(report)
    assert funnel["after read index"]["rows"] > funnel["after index row selection"]["rows"]  # the bitmap selects
    assert funnel["after index row selection"]["rows"] > funnel["after deletion vector"]["rows"]  # DVs remove
    with_dv = next(f for f in report.files if f.deleted_rows)
    assert 0 < with_dv.dv_removed_rows < with_dv.deleted_rows  # only deleted rows the index selected count


def test_no_deletion_vector_means_no_rows_removed_at_that_stage() -> None:
    """events20 has no deletion vectors: the bitmap's selection is not reported as theirs."""
    report = pl.open_table("data/events20").explain("country = 'DE' AND score > 50")
    funnel = _funnel(report)
    assert funnel["after read index"]["rows"] > funnel["after index row selection"]["rows"]
    assert funnel["after index row selection"]["rows"] == funnel["after deletion vector"]["rows"]
    assert all(f.dv_removed_rows == 0 and f.deleted_rows == 0 for f in report.files)


def test_new_fields_in_frame_json_and_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from paimon_lens.presentation.cli import main

    report = pl.open_table("data/orders_dv20").explain("status = 'PAID'")
    frame = report.to_frame()
    assert {"index_selected_rows", "dv_removed_rows", "deleted_rows", "rows_after_dv"} <= set(frame.columns)
    record = report.to_dict()["files"][0]
    assert {"index_selected_rows", "dv_removed_rows", "deleted_rows", "rows_after_dv"} <= set(record)
    assert report.summary()["skipped_by"]["index rows"] == 0
    main(["explain", "data/orders_dv20", "--where", "status = 'PAID'", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    stages = [row["stage"] for row in doc["summary"]["funnel"]]
    assert stages[-2:] == ["after index row selection", "after deletion vector"]


def test_level_0_files_leave_the_funnel_at_their_stage() -> None:
    """A primary-key table with deletion vectors whose files are all at level 0: the batch scan reads
    none, and the funnel says so (files removed at the level stage are not still "in play")."""
    table = pl.open_table("tests/fixtures/pypaimon/warehouse/db.db/pk_dv_in_data_dir", progress=False)
    field = table.schema.fields[-1].name
    report = table.explain(f"{field} IS NOT NULL")
    assert {f.stage for f in report.files} == {"level"}
    funnel = _funnel(report)
    assert funnel["after bucket"]["files"] == len(report.files)
    assert funnel["after level-0 rule"]["files"] == 0
    assert funnel["after deletion vector"] == {"stage": "after deletion vector", "files": 0, "bytes": 0, "rows": 0}
    assert report.summary()["skipped_by"]["level"] == len(report.files)
