"""Manifest-level partition pruning: an explain with a partition filter reads only the manifests whose
partition stats may hold a kept partition, plans those partitions' files, and lists the other files
when asked; every answer equals the one planned over every live file."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

import paimon_lens as pl
from paimon_lens.pruning.explain import _explained_all, _version_notes
from paimon_lens.writer import TableWriter

SCHEMA = pa.schema([("id", pa.int64()), ("status", pa.string()), ("score", pa.int32()), ("dt", pa.string())])


def _rows(start: int, n: int, dt: str) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array(ids, pa.int64()), "status": [("x", "y", "z")[i % 3] for i in ids],
                     "score": pa.array([i % 7 for i in ids], pa.int32()), "dt": [dt] * n})


@pytest.fixture(scope="module")
def history_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four partitions, one commit each (one manifest each), a compaction of ``b`` (its DELETE
    entries in a later manifest) and deletion vectors in ``c``."""
    path = tmp_path_factory.mktemp("manifests") / "t"
    w = TableWriter.create(path, SCHEMA, partition_keys=["dt"], options={
        "deletion-vectors.enabled": "true", "file-index.bloom-filter.columns": "id",
        "file-index.bitmap.columns": "status"})
    start = 0
    for dt in ("a", "b", "c", "d"):
        for _ in range(2):
            w.commit(_rows(start, 30, dt), rows_per_file=10)
            start += 30
    assert w.compact({"dt": "b"}) is not None
    assert w.delete(lambda t: pa.compute.equal(t.column("score"), 3)) is not None
    return path


def _eager(table: Any, where: str) -> dict[str, Any]:
    """The report planned over every live file at once (no manifest skipped), as a dict."""
    from paimon_lens.predicate.parser import parse_where
    from paimon_lens.pruning.explain import ExplainReport

    rules = table.rules
    predicate = parse_where(where, table.schema.fields)
    files = table.live_files()
    verdicts, notes = _explained_all(table.reader, predicate, files, False, True, rules)
    report = ExplainReport(table.reader, where, predicate, verdicts, False,
                           _version_notes(table.reader, predicate, rules, files) + notes, rules=rules)
    return report.to_dict()


WHERES = ["dt = 'b'", "dt IN ('a', 'c')", "dt > 'b'", "dt = 'c' AND score = 3", "dt = 'b' AND id = 70",
          "dt = 'zz'", "dt IS NULL", "dt = 'b' OR id = 3", "id = 3"]


@pytest.mark.parametrize("where", WHERES)
def test_lazy_listing_equals_planning_every_file(history_table: Path, where: str) -> None:
    fresh = pl.open_table(str(history_table), progress=False)
    report = fresh.explain(where)
    assert report.to_dict() == _eager(pl.open_table(str(history_table), progress=False), where)
    reused = pl.open_table(str(history_table), progress=False)
    reused.live_files()  # listed first: the kept partitions are found by the partition index
    assert reused.explain(where).to_dict() == report.to_dict()


def test_manifests_of_other_partitions_are_not_read(history_table: Path) -> None:
    table = pl.open_table(str(history_table), progress=False)
    manifests = {m.file_name for m in table.manifest_files()}
    report = table.explain("dt = 'c' AND score = 3")
    skipped = {m.file_name for m in report.skipped_manifests}
    assert skipped and skipped < manifests
    assert not skipped & set(table.reader._cache.manifests)  # never opened
    assert not report.complete
    kept = report.candidate_files
    assert kept and {f.partition["dt"] for f in kept} == {"c"}
    assert any(f.deleted_rows for f in kept) and any(f.read for f in kept)
    # everything else comes on first use, removed at the partition stage
    files = report.files
    assert report.complete and len(files) == len(table.live_files()) > len(kept)
    assert {f.stage for f in files if f.partition["dt"] != "c"} == {"partition"}
    assert report.summary()["skipped_by"]["partition"] == len(files) - len(kept)


def test_a_filter_keeping_every_partition_lists_every_file(history_table: Path) -> None:
    table = pl.open_table(str(history_table), progress=False)
    report = table.explain("dt >= 'a'")
    assert report.complete and not report.skipped_manifests
    assert len(report.files) == len(table.live_files())


def test_wrong_partition_stats_remove_the_files_paimon_does_not_read(history_table: Path, tmp_path: Path) -> None:
    """A manifest list whose partition stats exclude a manifest's own partition: Paimon never reads
    that manifest; the files say so, on a fresh table and on one that listed every file first."""
    path = tmp_path / "t"
    shutil.copytree(history_table, path)
    table = pl.open_table(str(path), progress=False)
    snapshot = table.snapshot
    assert snapshot is not None
    base = path / "manifest" / snapshot.base_manifest_list
    with base.open("rb") as f:
        reader = fastavro.reader(f)
        schema, records = reader.writer_schema, list(reader)
    live = {lf.entry.manifest: lf.partition["dt"] for lf in table.live_files()}
    victim_row = next(r for r in records if r["_FILE_NAME"] in live)
    victim = victim_row["_FILE_NAME"]
    other = next(r for r in records if r["_FILE_NAME"] in live and live[r["_FILE_NAME"]] != live[victim])
    victim_row["_PARTITION_STATS"] = dict(other["_PARTITION_STATS"])  # claims the other's partition only
    with base.open("wb") as f:
        fastavro.writer(f, schema, records)
    fresh = pl.open_table(str(path), progress=False)
    victims = [lf for lf in fresh.live_files() if lf.entry.manifest == victim]
    assert victims
    where = f"dt = '{victims[0].partition['dt']}'"
    for table in (pl.open_table(str(path), progress=False), fresh):
        report = table.explain(where)
        by_name = {f.file_name: f for f in report.files}
        for lf in victims:
            v = by_name[lf.entry.file.file_name]
            assert (v.planned, v.stage) == (False, "partition")
            assert "the stats are wrong" in v.reason and victim in v.reason
        assert report.to_dict() == _eager(pl.open_table(str(path), progress=False), where)


def test_the_notebook_view_does_not_list_the_removed_partitions(history_table: Path) -> None:
    table = pl.open_table(str(history_table), progress=False)
    report = table.explain("dt = 'c' AND score = 3")
    html = report._repr_html_()
    assert html is not None and not report.complete
    assert "manifests" in html and "files of the kept partitions" in html and "report.files" in html
    assert "files of the kept partitions" in repr(report) and not report.complete
    full = report.summary()  # lists them
    assert report.complete and full["files"] == len(table.live_files())
    assert "all files" in report._repr_html_()


def test_manifest_partition_stats_are_tested_once_per_filter(history_table: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from paimon_lens.pruning import manifests

    calls: list[str] = []
    real = manifests.decode_stats

    def counting(stats: Any, fields: Any, where: str | None) -> Any:
        calls.append(str(where))
        return real(stats, fields, where)

    monkeypatch.setattr(manifests, "decode_stats", counting)
    table = pl.open_table(str(history_table), progress=False)
    first = table.explain("dt = 'c' AND score = 3").to_dict()
    decoded = len(calls)
    assert decoded == len(set(calls)) == len(table.manifest_files())  # the candidates and the planner share them
    assert table.explain("dt = 'c' AND score = 3").to_dict() == first
    assert len(calls) == decoded
    table.explain("dt = 'b'")  # another filter: its own answers
    assert len(calls) == 2 * decoded
