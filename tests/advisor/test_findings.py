"""Findings: each check on a table that has the problem and on one that does not."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

import paimon_lens as pl
from paimon_lens.advisor.findings import Findings
from paimon_lens.presentation.cli import main
from paimon_lens.writer import TableWriter

EVENTS = "data/events20"
WORKLOAD = "data/events20.workload.sql"


def kinds(found: Findings, kind: str) -> list[str]:
    return [f.subject for f in found if f.kind == kind]


def test_index_as_big_as_the_data() -> None:
    found = pl.open_table("data/demo_orders").find()
    big = next(f for f in found if f.kind == "index-size")
    assert big.subject == "amount" and big.details["ratio"] > 0.6  # 1.3 MiB of range-bitmap for 2.0 MiB of data
    assert big.statements == ("ALTER TABLE demo_orders UNSET TBLPROPERTIES ('file-index.range-bitmap.columns')",)
    assert found.items[0] is big  # the most costly first
    assert kinds(pl.open_table(EVENTS).find(), "index-size") == []


def _bloom_table(root: Path, items: str | None) -> pl.Table:
    options = {"file-index.bloom-filter.columns": "k"}
    if items is not None:
        options["file-index.bloom-filter.k.items"] = items
    w = TableWriter.create(root, pa.schema([("k", pa.int64()), ("v", pa.string())]), options=options)
    w.commit(pa.table({"k": list(range(400)), "v": ["x"] * 400}), rows_per_file=200)
    return pl.open_table(str(root))


def test_bloom_filter_sized_for_the_default_million_items(tmp_path: Path) -> None:
    found = _bloom_table(tmp_path / "default", None).find()
    bloom = next(f for f in found if f.kind == "bloom-oversized")
    assert bloom.subject == "k" and bloom.details["items"] == 1_000_000 and bloom.details["rows_p95"] == 200
    assert bloom.details["right_bytes"] < bloom.details["index_bytes"] / 100
    assert "'file-index.bloom-filter.k.items' = '200'" in bloom.statements[0]
    assert kinds(_bloom_table(tmp_path / "sized", "200").find(), "bloom-oversized") == []


def test_deletion_vector_bloat() -> None:
    dv = [f for f in pl.open_table("data/orders_dv20").find() if f.kind == "dv-bloat"]
    assert [f.subject for f in dv] == ["bucket 1"] and dv[0].details["deleted_rows"] == 203
    assert dv[0].statements == ("CALL sys.compact(table => 'orders_dv20')",)
    assert kinds(pl.open_table("data/demo_orders").find(), "dv-bloat") == []  # 2 % deleted: no bloat
    assert kinds(pl.open_table(EVENTS).find(), "dv-bloat") == []  # no deletion vectors


def test_small_files_are_one_finding_naming_every_bucket() -> None:
    small = [f for f in pl.open_table(EVENTS).find() if f.kind == "small-files"]
    assert len(small) == 1  # one finding per problem per table
    (f,) = small
    assert f.details["files"] == 18 and [b["files"] for b in f.details["buckets"]] == [6, 6, 6]
    assert f.title == "3 buckets hold 18 small files"
    order = [b["subject"].split(",")[0].removeprefix("partition ") for b in f.details["buckets"]]  # costliest first
    assert sorted(order) == ["dt=2025-01-01", "dt=2025-01-02", "dt=2025-01-03"]
    assert f.statements == (f"CALL sys.compact(table => 'events20', partitions => '{';'.join(order)}')",)
    assert [f"dt={dict(p)['dt']}" for p in f.action.compact] == order
    assert f.score == sum(min(lf.entry.file.file_size, 64 << 10) for lf in pl.open_table(EVENTS).live_files())
    assert kinds(pl.open_table("data/orders_dv20").find(), "small-files") == []  # at most 2 files a bucket


def test_an_index_stats_already_make_useless_says_so() -> None:
    (never,) = [f for f in pl.open_table(EVENTS).find(WORKLOAD) if f.kind == "index-never-skips"]
    assert never.subject == "id" and never.details["files_reaching_index"] == 0
    assert "min/max stats already rule out every file" in never.evidence
    assert never.evidence.startswith("1 workload query filters on id")


def test_index_the_workload_never_names() -> None:
    found = pl.open_table(EVENTS).find(WORKLOAD)
    unused = {(f.subject, f.details["index_bytes"]) for f in found if f.kind == "index-unused"}
    assert {s for s, _ in unused} == {"price", "user_id", "attrs[color]"}
    price = next(f for f in found if f.kind == "index-unused" and f.subject == "price")
    assert price.statements == ("ALTER TABLE events20 SET TBLPROPERTIES ('file-index.bsi.columns' = 'user_id')",)
    named = pl.open_table(EVENTS).find(["price > 10", "user_id = 3"])
    assert not {"price", "user_id"} & set(kinds(named, "index-unused"))


def test_index_that_never_skips() -> None:
    never = [f for f in pl.open_table(EVENTS).find(WORKLOAD) if f.kind == "index-never-skips"]
    assert [f.subject for f in never] == ["id"]  # id = 3000: stats already prune every file it rules out
    skipping = pl.open_table(EVENTS).find(["country = 'XX'"])  # the bitmap skips every file
    assert "country" not in kinds(skipping, "index-never-skips")


def _spread_table(root: Path, index: bool) -> pl.Table:
    """4 files whose column v spans 0..999 in every file: stats cannot rule a file out."""
    options = {"file-index.bloom-filter.columns": "v"} if index else {}
    w = TableWriter.create(root, pa.schema([("v", pa.int64()), ("dt", pa.string())]), partition_keys=["dt"],
                           options=options)
    w.commit(pa.table({"v": [(i * 397) % 1000 for i in range(800)], "dt": ["d1"] * 800}), rows_per_file=200)
    return pl.open_table(str(root))


def test_filter_column_without_an_index(tmp_path: Path) -> None:
    found = _spread_table(tmp_path / "plain", False).find(["v = 500", "dt = 'd1'"])
    unindexed = [f for f in found if f.kind == "unindexed-filter"]
    assert [f.subject for f in unindexed] == ["v"]  # dt is a partition key: partition pruning serves it
    assert unindexed[0].details["read_files"] == unindexed[0].details["files"] == 4
    assert "'file-index.bloom-filter.columns' = 'v'" in unindexed[0].statements[0]
    ranged = _spread_table(tmp_path / "ranged", False).find(["v > 500"])
    ranged_fix = next(f for f in ranged if f.kind == "unindexed-filter").statements[0]
    assert "'file-index.range-bitmap.columns' = 'v'" in ranged_fix
    assert kinds(_spread_table(tmp_path / "indexed", True).find(["v = 500"]), "unindexed-filter") == []
    assert kinds(pl.open_table(EVENTS).find(["amount = 12.5"]), "unindexed-filter") == []  # stats prune it


def test_bad_workload_lines_are_problems_and_the_rest_still_runs(tmp_path: Path) -> None:
    found = _spread_table(tmp_path, False).find(["nope = 1", "v = 3"])
    assert any("nope" in p for p in found.problems)
    assert kinds(found, "unindexed-filter") == ["v"]


def test_findings_frame_cli_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    frame = pl.open_table("data/demo_orders").findings()
    assert list(frame["rank"]) == list(range(1, len(frame) + 1)) and frame["kind"].iloc[0] == "index-size"
    assert main(["findings", EVENTS, "--workload", WORKLOAD, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["snapshot_id"] == 6 and doc["workload"] == WORKLOAD and doc["problems"] == []
    first = doc["findings"][0]
    assert {"kind", "title", "subject", "evidence", "impact", "score", "fix", "statements"} <= set(first)
    assert [f["score"] for f in doc["findings"]] == sorted((f["score"] for f in doc["findings"]), reverse=True)
    assert main(["findings", "data/demo_orders"]) == 0
    text = capsys.readouterr().out
    assert "1. [index-size] range-bitmap index on amount" in text and "ALTER TABLE demo_orders" in text


def test_dropping_an_index_no_query_names_shows_the_bytes_it_frees() -> None:
    advice = pl.recommend(EVENTS, WORKLOAD, progress=False)
    stored = pl.open_table(EVENTS).file_indexes()
    for rec in advice.recommendations:
        if rec.action == "drop" and "never used" in rec.reason:
            want = stored.loc[(stored["column"] == rec.column) & (stored["index_type"] == rec.index_type), "bytes"]
            assert rec.index_bytes == want.sum() > 0, rec


def test_manifests_carrying_big_embedded_indexes() -> None:
    found = pl.open_table("data/demo_orders").find()  # file-index.in-manifest-threshold = 100kb
    embedded = next(f for f in found if f.kind == "embedded-indexes")
    assert embedded.details["containers"] == 6 and embedded.details["embedded_bytes"] > 500_000
    assert embedded.statements == ("ALTER TABLE demo_orders SET TBLPROPERTIES "
                                   "('file-index.in-manifest-threshold' = '500 b')",)
    assert kinds(pl.open_table(EVENTS).find(), "embedded-indexes") == []  # 12 KiB embedded


def test_files_read_for_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _spread_table(tmp_path / "plain", False).find(["v = 500"])
    wasted = next(f for f in found if f.kind == "read-for-nothing")
    assert wasted.details["files_read"] == 4 and wasted.details["files_without_match"] == 3  # ground truth
    assert "'file-index.bloom-filter.columns' = 'v'" in wasted.statements[0]
    indexed = _spread_table(tmp_path / "indexed", True).find(["v = 500"])
    assert kinds(indexed, "read-for-nothing") == []  # the bloom filter rules the three files out
    import paimon_lens.advisor.findings as findings_module

    monkeypatch.setattr(findings_module, "TRUTH_MAX_FILES", 1)
    capped = _spread_table(tmp_path / "capped", False).find(["v = 500"])
    assert kinds(capped, "read-for-nothing") == [] and any("read-for-nothing not checked" in n for n in capped.notes)
    assert capped.problems == []  # a check left out for its cost is a note, not a failure


def test_primary_key_bucket_with_many_level_0_runs(tmp_path: Path) -> None:
    root = tmp_path / "pk"
    w = TableWriter.create(root, pa.schema([("k", pa.int64()), ("v", pa.string())]), primary_keys=["k"], bucket=1)
    for i in range(6):
        (w if i == 0 else TableWriter.open(root)).commit(pa.table({"k": list(range(i * 10, i * 10 + 10)),
                                                                  "v": ["x"] * 10}))
    runs = next(f for f in pl.open_table(str(root)).find() if f.kind == "uncompacted-bucket")
    assert runs.details == {"level0_files": 6, "files": 6, "trigger": 5}
    assert kinds(pl.open_table("data/orders_dv20").find(), "uncompacted-bucket") == []  # compacted levels
    assert kinds(pl.open_table(EVENTS).find(), "uncompacted-bucket") == []  # an append table


def test_buckets_with_many_level_0_runs_are_one_finding(tmp_path: Path) -> None:
    root = tmp_path / "pk2"
    w = TableWriter.create(root, pa.schema([("k", pa.int64()), ("v", pa.string())]), primary_keys=["k"], bucket=2)
    for i in range(6):
        (w if i == 0 else TableWriter.open(root)).commit(pa.table({"k": list(range(i * 40, i * 40 + 40)),
                                                                  "v": ["x"] * 40}))
    (runs,) = [f for f in pl.open_table(str(root)).find() if f.kind == "uncompacted-bucket"]
    assert [b["subject"] for b in runs.details["buckets"]] == ["bucket 0", "bucket 1"] or \
        [b["subject"] for b in runs.details["buckets"]] == ["bucket 1", "bucket 0"]
    assert runs.details["level0_files"] == 12 and runs.title == "2 buckets hold 12 level-0 sorted runs"
    assert runs.statements == ("CALL sys.compact(table => 'pk2')",)  # unpartitioned: the whole table


def test_filtered_column_without_stats(tmp_path: Path) -> None:
    def table(options: dict[str, str], name: str) -> pl.Table:
        root = tmp_path / name
        w = TableWriter.create(root, pa.schema([("k", pa.int64()), ("v", pa.string())]), options=options)
        w.commit(pa.table({"k": list(range(100)), "v": ["x"] * 100}), rows_per_file=50)
        return pl.open_table(str(root))

    found = table({"fields.k.stats-mode": "none"}, "none").find(["k = 7"])
    nostats = next(f for f in found if f.kind == "no-stats")
    assert nostats.subject == "k" and "'fields.k.stats-mode' = 'full'" in nostats.statements[0]
    assert kinds(table({}, "full").find(["k = 7"]), "no-stats") == []


def test_one_deleted_ratio_per_bucket_everywhere() -> None:
    """The finding, the report's deletion-vector table and its plot divide by the same rows."""
    from paimon_lens.advisor.findings import bucket_deletions

    t = pl.open_table("data/orders_dv20")
    (bloat,) = [f for f in t.find() if f.kind == "dv-bloat"]
    per_bucket = {b["bucket"]: b for b in bucket_deletions(t.reader)}
    b = per_bucket[1]
    assert (b["deleted_rows"], b["rows"]) == (bloat.details["deleted_rows"], bloat.details["rows"])
    report = pl.report("data/orders_dv20")
    dv = next(s for s in report.sections if s.key == "dv")
    frame = next(block.frame for block in dv.blocks if hasattr(block, "frame"))
    row = frame[frame["bucket"] == 1].iloc[0]
    assert row["deleted_ratio"] == b["deleted_ratio"] == bloat.details["deleted_rows"] / bloat.details["rows"]
