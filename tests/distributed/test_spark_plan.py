"""Planning on Spark without the driver holding the files (distributed/spark_plan.py): the distributed
explain and file indexes answer exactly as the local engine."""

from __future__ import annotations

import io
import json
import random
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.distributed.spark_plan import (
    add_summaries,
    batches,
    groups_of,
    row_record,
)
from paimon_lens.errors import PaimonLensError, TaskError
from paimon_lens.metadata.manifest import ManifestEntry, merge_entries
from tests.conftest import FIXTURES, load_json, oracle_paths
from tests.pruning.test_truth import strip

ORACLES = {p.stem: p for p in oracle_paths()}


def _oracle(stem: str) -> tuple[str, list[str]]:
    o = load_json(ORACLES[stem])
    return str(ORACLES[stem].parent / o["table"]["path"]), [strip(p["sql"]) for p in o["predicates"]]


def _by_name(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (r["file_name"], r.get("branch") or ""))


def _assert_same(report: Any, want: Any, **record_args: Any) -> None:
    d = want.to_dict(**record_args)
    assert _by_name(report.records()) == _by_name(d["files"]), report.where
    assert report.summary() == d["summary"], report.where
    assert report.funnel() == want.funnel()
    assert report.notes == d["notes"] and report.notes_omitted == 0, report.where
    assert {k: v for k, v in report.to_dict().items() if k not in ("notes_omitted", "files_parquet")} == {
        k: v for k, v in d.items() if k != "files"}


# ---- without Spark ------------------------------------------------------------------------------

def _entry(kind: int, partition: bytes, bucket: int, name: str) -> ManifestEntry:
    from paimon_lens.metadata.manifest import DataFileMeta, SimpleStatsBytes

    stats = SimpleStatsBytes(b"", b"", None)
    f = DataFileMeta(name, 1, 1, b"", b"", stats, stats, 0, 0, 0, 0, (), None, None, None, None, None, None,
                     None, None)
    return ManifestEntry(kind, partition, bucket, 1, f, "m")


def test_groups_merged_by_position_are_the_snapshot_merge() -> None:
    """ADD/DELETE sequences in random order: the groups' live entries, sorted by position, are
    merge_entries of the whole sequence (entries and order)."""
    rng = random.Random(7)
    for _ in range(300):
        seq = [_entry(rng.choice((0, 0, 1)), rng.choice((b"p1", b"p2")), rng.choice((0, 1)), f"f{rng.randrange(6)}")
               for _ in range(rng.randrange(1, 25))]
        records = sorted(((e.partition, e.bucket, 0, i), e) for i, e in enumerate(seq))
        got = [pe for g in groups_of(records) for pe in g.entries]
        assert [e for _, e in sorted(got, key=lambda pe: pe[0])] == merge_entries(seq)
        assert all(len(g.entries) for g in groups_of(records))
    groups = list(groups_of(sorted(((b"p", b, 0, i), _entry(0, b"p", b, f"f{i}")) for i, b in enumerate([0, 1, 1, 2]))))
    assert [len(b) for b in batches(groups, 2)] == [2, 1]


def test_summaries_add_up_or_are_refused() -> None:
    a = {"files": 2, "skipped_by": {"partition": 1}, "funnel": [{"stage": "all files", "files": 2}]}
    b = {"files": 3, "skipped_by": {"partition": 0}, "funnel": [{"stage": "all files", "files": 3}]}
    assert add_summaries(a, b) == {"files": 5, "skipped_by": {"partition": 1},
                                   "funnel": [{"stage": "all files", "files": 5}]}
    with pytest.raises(PaimonLensError, match="ratio"):
        add_summaries({"ratio": 0.5}, {"ratio": 0.25})
    with pytest.raises(PaimonLensError, match="differ"):
        add_summaries({"stage": "a"}, {"stage": "b"})


def test_fallback_branch_is_refused() -> None:
    table = pl.open_table(str(FIXTURES / "pypaimon/warehouse/db.db/branch_fallback"))
    with pytest.raises(PaimonLensError, match="fallback"):
        table.explain_distributed("true")


# ---- on Spark -----------------------------------------------------------------------------------

@pytest.mark.parametrize("stem", ["oracle_orders_dv20", "oracle_sales", "oracle_orders_dv"])
def test_explain_equals_local(stem: str, spark: Any) -> None:
    """A primary-key table with deletion vectors (2.0), a partitioned append table with external
    indexes, and a 0.9 primary-key table whose manifests DELETE what compactions replaced: every
    oracle predicate in one run (one group per batch, a reduce task per few entries), with truth
    and index positions."""
    path, wheres = _oracle(stem)
    wheres = wheres[:3]
    table = pl.open_table(path)
    reports = table.explain_many_distributed(wheres, spark=spark, truth=True, positions=True, batch_files=1,
                                             entries_per_task=3)
    for where, report in zip(wheres, reports, strict=True):
        _assert_same(report, table.explain(where, truth=True), positions=True)
    for report in reports:
        report.unpersist()


def test_synthetic_table_to_parquet(spark: Any, tmp_path: Path) -> None:
    """A small synthetic primary-key table (deletion vectors, embedded and external indexes), the
    records written to Parquet by the tasks; notes capped."""
    from benchmarks.synthetic_table import make_table

    root = make_table(tmp_path / "t", files=60, partitions=3, buckets=2, primary_key=True, data_files=False)
    where = "dt >= '2025-01-02' AND country = 'DE' AND status = 'pending' AND score BETWEEN 300 AND 700"
    table = pl.open_table(str(root))
    out = tmp_path / "records"
    report = table.explain_distributed(where, spark=spark, output=f"parquet:{out}", batch_files=10,
                                       entries_per_task=30)
    assert report.parquet_path == str(out) and (out / "_SUCCESS").exists()
    _assert_same(report, table.explain(where))
    assert report.summary()["files"] == 60 and report.summary()["skipped_by"]["deletion vector"] >= 0


def test_file_indexes_equal_local(spark: Any) -> None:
    """Rows, column order and Spark types of the local frame through ``to_spark``."""
    from paimon_lens.engines.spark import to_spark

    path, _ = _oracle("oracle_events20")
    table = pl.open_table(path)
    got = table.file_indexes_distributed(spark=spark, batch_files=2)
    want = to_spark(table.file_indexes(), spark)
    assert got.frame.schema == want.schema
    key = ["file_name", "column", "index_type"]
    assert got.frame.orderBy(*key).collect() == want.orderBy(*key).collect()
    assert got.rows == want.count() and got.files_with_errors == 0
    got.unpersist()


def test_unreadable_index_is_an_error_record(spark: Any, tmp_path: Path) -> None:
    """A corrupt external index: its file's record says so (error), the summary counts it, the rest
    is answered; in file_indexes an error row. A corrupt manifest fails the run with its message."""
    dst = tmp_path / "events_external"
    shutil.copytree(FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_external", dst)
    victim = sorted(dst.glob("bucket-0/*.index"))[0]
    victim.write_bytes(b"\x00" * 40)
    table = pl.open_table(str(dst))
    where = "country = 'US'"
    report = table.explain_distributed(where, spark=spark, max_notes=0)
    want = table.explain(where)
    assert _by_name(report.records()) == _by_name(want.to_dict()["files"])
    assert report.summary() == want.summary() and report.summary()["files_with_errors"] == 1
    bad = [r for r in report.records() if r["error"]]
    assert len(bad) == 1 and victim.name.startswith(bad[0]["file_name"])
    assert report.notes == [] and report.notes_omitted == len(want.notes) >= 1
    indexes = table.file_indexes_distributed(spark=spark, output=f"parquet:{tmp_path / 'idx'}")
    rows = [r.asDict() for r in indexes.frame.collect()]
    assert indexes.files_with_errors == 1 and sum(1 for r in rows if r["error"]) == 1
    assert "bad magic" in next(r["error"] for r in rows if r["error"])

    manifest = next(m for m in sorted((dst / "manifest").glob("manifest-*")) if "-list-" not in m.name)
    manifest.write_bytes(b"Obj\x01garbage")
    with pytest.raises(TaskError, match=manifest.name):
        pl.open_table(str(dst)).explain_distributed(where, spark=spark)


def test_table_notes_of_schema_versions(spark: Any) -> None:
    """Paimon 1.2's rules on a table whose column types changed: the note about the stats of old
    files is the local one (computed from one file per schema version)."""
    table = pl.open_table(str(FIXTURES / "pypaimon/warehouse/db.db/type_evolution"), paimon_version="1.2")
    columns = [f.name for f in table.schema.fields]
    where = " AND ".join(f"{c} IS NOT NULL" for c in columns[:3])
    want = table.explain(where)
    report = table.explain_distributed(where, spark=spark)
    assert report.notes == want.notes and report.summary() == want.summary()


def test_cli_output_parquet(spark: Any, tmp_path: Path) -> None:
    """``explain --engine spark --output-parquet``: the JSON without files; the Parquet rows are the
    local records."""
    from paimon_lens.presentation.cli import main

    path, wheres = _oracle("oracle_orders_dv20")
    out = tmp_path / "rec"
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["explain", path, "--where", wheres[0], "--engine", "spark", "--output-parquet", str(out),
                     "--format", "json"])
    doc = json.loads(buf.getvalue())
    want = pl.open_table(path).explain(wheres[0]).to_dict()
    assert code == 0 and doc["files_parquet"] == str(out) and "files" not in doc
    assert doc["summary"] == want["summary"]
    rows = [row_record(r.asDict(), False) for r in spark.read.parquet(str(out)).collect()]
    assert _by_name(rows) == _by_name(want["files"])
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["explain", path, "--where", wheres[0], "--output-parquet", str(tmp_path / "x")]) == 2
    assert "--engine spark" in err.getvalue()


def test_one_explain_plans_on_spark_when_asked(spark: Any) -> None:
    """``explain(..., distributed=True)`` is the distributed explain, for one predicate or several."""
    path, wheres = _oracle("oracle_orders_dv20")
    table = pl.open_table(path)
    one = table.explain(wheres[0], distributed=True, spark=spark, truth=True)
    _assert_same(one, table.explain(wheres[0], truth=True))
    several = table.explain(wheres[:2], distributed=True, spark=spark)
    assert [r.summary() for r in several] == [r.summary() for r in table.explain(wheres[:2])]
    for report in (one, *several):
        report.unpersist()
    with pytest.raises(PaimonLensError, match="WHERE conditions only"):
        table.explain(wheres[0], distributed=True, order_by="id", limit=3)
