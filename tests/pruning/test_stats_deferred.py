"""Files the value stats remove, and planned files read whole (no index on the predicate's columns, no
deletion vector), are decided for the whole batch at once and get their verdicts on first use: every
answer (files, summary, funnel, JSON record, repr) equals the one of planning each file in turn, before
and after the verdicts are built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import paimon_lens as pl
from paimon_lens.predicate.parser import parse_where
from paimon_lens.pruning.explain import ExplainReport, _explained_all, _version_notes
from paimon_lens.pruning.scan import plan, plan_deferring
from paimon_lens.writer import TableWriter

SCHEMA = pa.schema([("id", pa.int64()), ("status", pa.string()), ("score", pa.int32()),
                    ("ratio", pa.float64()), ("dt", pa.string())])


def _rows(start: int, n: int, dt: str) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "status": [None if i % 11 == 0 else ("pending", "done", "ok")[(i // 10) % 3] for i in ids],
                     "score": pa.array([(i * 7) % 100 for i in ids], pa.int32()),
                     "ratio": pa.array([float("nan") if i % 13 == 0 else i / 3 for i in ids], pa.float64()),
                     "dt": [dt] * n})


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three partitions of ten-row files (an embedded bloom filter on ``id``, a bitmap on ``status``),
    with deletion vectors in one partition."""
    path = tmp_path_factory.mktemp("deferred") / "t"
    w = TableWriter.create(path, SCHEMA, partition_keys=["dt"], options={
        "deletion-vectors.enabled": "true", "file-index.bloom-filter.columns": "id",
        "file-index.bitmap.columns": "status"})
    start = 0
    for dt in ("a", "b", "c"):
        w.commit(_rows(start, 60, dt), rows_per_file=10)
        start += 60
    assert w.delete(lambda t: pa.compute.equal(t.column("id"), 65)) is not None
    return path


def _eager(t: Any, where: str) -> ExplainReport:
    table, rules = t.reader, t.rules
    predicate = parse_where(where, table.schema.fields)
    files = table.live_files()
    verdicts, notes = _explained_all(table, predicate, files, False, True, rules)
    return ExplainReport(table, where, predicate, verdicts, False,
                         _version_notes(table, predicate, rules, files) + notes, rules=rules)


WHERES = ["id = 65", "id = 300", "id < 10 OR id > 170", "score BETWEEN 20 AND 25", "status = 'pending'",
          "status IS NULL", "id IN (5, 95, 1000)", "ratio > 50", "ratio < 1", "dt = 'b' AND id = 70",
          "dt = 'b' AND id > 1000", "dt > 'a' AND score < 0", "id NOT IN (1, 2)", "status <> 'ok'",
          "id = 65 OR status = 'done'", "NOT (id BETWEEN 0 AND 100)", "dt = 'b'", "dt <> 'a'", "score >= 0",
          "dt <> 'c' AND ratio >= 0", "status = 'ok' OR score > 90"]


@pytest.fixture(scope="module")
def mixed_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Partition ``a``: external index files; ``b`` and ``c``: containers embedded in the manifest (a
    bitmap on ``status`` only); a deletion vector in ``b``; one external index file of ``a`` missing."""
    path = tmp_path_factory.mktemp("mixed") / "t"
    w = TableWriter.create(path, SCHEMA, partition_keys=["dt"], options={
        "deletion-vectors.enabled": "true", "file-index.bloom-filter.columns": "id",
        "file-index.bitmap.columns": "status"})
    w.commit(_rows(0, 60, "a"), rows_per_file=10)
    w.alter(set_options={"file-index.in-manifest-threshold": "1 mb"}, reset_options=["file-index.bloom-filter.columns"])
    w.commit(_rows(60, 60, "b"), rows_per_file=10)
    w.commit(_rows(120, 60, "c"), rows_per_file=10)
    assert w.delete(lambda t: pa.compute.equal(t.column("id"), 65)) is not None
    table = pl.open_table(str(path), progress=False)
    locations = {(lf.partition["dt"], lf.index_location) for lf in table.live_files()}
    assert locations == {("a", "external"), ("b", "embedded"), ("c", "embedded")}
    first = next(lf for lf in table.live_files() if lf.index_location == "external")
    (path / first.index_file_path).unlink()  # type: ignore[operator]
    return path


@pytest.mark.parametrize("where", WHERES)
@pytest.mark.parametrize("which", ["table_path", "mixed_path"])
def test_deferred_verdicts_equal_planning_each_file(which: str, where: str, request: pytest.FixtureRequest) -> None:
    table_path = request.getfixturevalue(which)
    expected = _eager(pl.open_table(str(table_path), progress=False), where)
    for listed_first in (False, True):
        table = pl.open_table(str(table_path), progress=False)
        if listed_first:
            table.live_files()
        report = table.explain(where)
        shown = repr(report)  # before any deferred verdict is built
        if report.complete:  # no partition left unlisted: the totals are those of every file
            assert shown == repr(expected)
            assert report.summary(complete=False) == expected.summary(complete=False)
            assert report.funnel(complete=False) == expected.funnel(complete=False)
        report._built()
        assert repr(report) == shown
        assert report.to_dict() == expected.to_dict()
        assert report.summary() == expected.summary()


def test_stats_removed_files_are_left_undecided(table_path: Path) -> None:
    table = pl.open_table(str(table_path), progress=False)
    predicate = parse_where("id = 65", table.schema.fields)
    decided, removed = plan_deferring(table.reader, predicate)
    assert removed is not None and len(removed.positions) > 10
    assert all(decided[k] is None for k in removed.positions)
    full = plan(table.reader, predicate)
    for k in removed.positions:
        d = removed.decision(k)
        assert d == full[k] and d.stage == "stats" and d.reason == full[k].reason
    assert [d for d in decided if d is not None] == [d for k, d in enumerate(full) if k not in removed.positions]


def test_summary_before_listing_counts_without_building(table_path: Path) -> None:
    table = pl.open_table(str(table_path), progress=False)
    report = table.explain("id = 65")
    assert report._later is not None  # the stats-removed verdicts are not built yet
    s = report.summary(complete=False)
    assert report._later is not None
    assert s["files"] == table.reader.live_file_count
    assert s["skipped_by"]["stats"] == len(report._later[0].removed.positions)
    assert len(report.candidate_files) == s["files"] and report._later is None


def test_truth_plans_every_file(table_path: Path) -> None:
    table = pl.open_table(str(table_path), progress=False)
    report = table.explain("id = 65", truth=True)
    assert report._later is None
    assert report.summary()["matching_rows"] == 0  # id 65 is deleted


@pytest.mark.parametrize("where, whole", [("score >= 0", True), ("dt = 'c'", True), ("ratio >= 0", True),
                                          ("status = 'ok'", False), ("id = 3", False)])
def test_planned_files_read_whole_are_left_undecided(mixed_path: Path, where: str, whole: bool) -> None:
    """A planned file is left undecided when its index container (if any) opens and indexes none of the
    predicate's columns and it has no deletion vector: never the file with the deleted row, nor the one
    whose index file is missing, nor any file of a predicate on an indexed column."""
    table = pl.open_table(str(mixed_path), progress=False)
    predicate = parse_where(where, table.schema.fields)
    decided, later = plan_deferring(table.reader, predicate)
    full = plan(table.reader, predicate)
    files = table.live_files()
    read_whole = [] if later is None else later.read_whole
    assert bool(read_whole) is whole
    with_dv = {dv.data_file for e in table.index_entries() for dv in e.deletion_vectors or ()}
    assert len(with_dv) == 1
    for k in read_whole:
        lf = files[k]
        assert decided[k] is None and lf.entry.file.file_name not in with_dv
        assert lf.index_location != "external" or (mixed_path / str(lf.index_file_path)).exists()
        d = later.decision(k)  # type: ignore[union-attr]
        assert d == full[k] and d.planned and d.reason == full[k].reason
    assert [d for d in decided if d is not None] == [
        d for k, d in enumerate(full) if later is None or k not in later.read_whole + later.positions]
    missing = [lf.entry.file.file_name for lf in files
               if lf.index_location == "external" and not (mixed_path / str(lf.index_file_path)).exists()]
    assert len(missing) == 1 and all(lf.entry.file.file_name != missing[0] for lf in (files[k] for k in read_whole))
    got = {v.file_name: v.error for v in table.explain(where).files if v.error}
    assert got == {v.file_name: v.error for v in _eager(table, where).files if v.error}


def test_summary_counts_files_read_whole_without_building(mixed_path: Path) -> None:
    table = pl.open_table(str(mixed_path), progress=False)
    report = table.explain("score >= 0")
    assert report._later is not None and report._later[0].read_totals[0] > 0
    s = report.summary(complete=False)
    assert report._later is not None
    assert s["files"] == table.reader.live_file_count and s["planned_files"] == table.reader.live_file_count
    assert s["read_files"] == table.reader.live_file_count  # the deleted row leaves the others of its file
    report._built()
    assert report.summary(complete=False) == s
