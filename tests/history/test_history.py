"""The timeline equals brute force: every snapshot read whole (live files, index containers decoded,
deletion vectors decoded) on tables Paimon wrote (Java 0.9 and 2.0, pypaimon 2.1)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.metadata.options import SMALL_FILE_DIVISOR, configured_indexes, target_file_size
from paimon_lens.presentation.cli import main
from paimon_lens.presentation.frame_columns import DIFF_COLUMNS, HISTORY_COLUMNS
from tests.presentation.test_frame_columns import check_frame

ROOT = Path(__file__).parent.parent.parent
FIX = ROOT / "tests" / "fixtures"
TABLES = [
    FIX / "tables20/b20_pk_dv/warehouse/db.db/orders_dv20",  # compactions, DVs with cardinality
    FIX / "tables/c_pk_deletion_vectors/warehouse/db.db/orders_dv",  # 0.9: DVs without cardinality
    FIX / "tables/c_pk_deletion_vectors/warehouse/db.db/orders_dyn",  # dynamic buckets
    FIX / "tables20/a20_append_indexed/warehouse/db.db/events20",  # an index added by a schema change
    FIX / "tables/a_append_indexed/warehouse/db.db/events_external",  # external index files
    FIX / "pypaimon/warehouse/db.db/append_dv_in_data_dir",  # OVERWRITE, DVs in the data directories
    FIX / "pypaimon/warehouse/db.db/type_evolution",
    FIX / "tables/b_partitioned_append/warehouse/db.db/sales",
    ROOT / "data" / "orders_dv20",
    ROOT / "data" / "history_events",  # index added then reset, compactions, DV deletes, tags
]


def brute_force(table: Any, snapshot_id: int) -> dict[str, Any]:
    """One snapshot's facts from scratch: all its manifests, every index decoded, every DV decoded."""
    s = table.at(snapshot_id)
    live = s.live_files()
    sizes = [lf.entry.file.file_size for lf in live]
    small = target_file_size(s.schema.options, bool(s.schema.primary_keys)) // SMALL_FILE_DIVISOR
    idx = s.file_indexes()
    labels: dict[str, set[str]] = {}
    for name, column, kind in zip(idx["file_name"], idx["column"], idx["index_type"]):
        labels.setdefault(name, set()).add(f"{kind}({column})")
    coverage = Counter(label for names in labels.values() for label in names)
    configured = configured_indexes(s.schema.options)
    dvs = {dv.data_file: dv.cardinality for dv in s.deletion_vector_infos() if dv.cardinality}
    live_names = {lf.entry.file.file_name for lf in live}
    dvs = {k: v for k, v in dvs.items() if k in live_names}
    bucket_rows: Counter[Any] = Counter()
    bucket_deleted: Counter[Any] = Counter()
    for lf in live:
        key = (lf.entry.partition, lf.entry.bucket)
        bucket_rows[key] += lf.entry.file.row_count
        bucket_deleted[key] += dvs.get(lf.entry.file.file_name, 0)
    ratios = [bucket_deleted[k] / bucket_rows[k] for k in bucket_rows if bucket_deleted[k] and bucket_rows[k]]
    rows = sum(lf.entry.file.row_count for lf in live)
    return {
        "files": len(live), "bytes": sum(sizes), "rows": rows,
        "level_files": dict(sorted(Counter(lf.entry.file.level for lf in live).items())),
        "small_files": sum(1 for x in sizes if x < small),
        "indexed_files": len(labels),
        "index_bytes": sum(s.reader.index_size(lf) or 0 for lf in live if lf.entry.file.file_name in labels),
        "index_coverage": {**{c: coverage.get(c, 0) for c in configured},
                           **{k: v for k, v in sorted(coverage.items()) if k not in configured}},
        "unindexed_files": {c: len(live) - coverage.get(c, 0) for c in configured},
        "dv_files": len(dvs), "dv_deleted_rows": sum(dvs.values()),
        "dv_max_bucket_ratio": max(ratios) if ratios else None,
        "schema_id": s.schema.id,
    }


def assert_equals_brute_force(table: Any, timeline: Any) -> None:
    """Every row of ``timeline`` equals :func:`brute_force` at its snapshot."""
    for facts in timeline:
        expected = brute_force(table, facts.snapshot_id)
        got = {k: getattr(facts, k) for k in expected}
        if got["dv_max_bucket_ratio"] is not None:
            got["dv_max_bucket_ratio"] = pytest.approx(got["dv_max_bucket_ratio"])
        assert got == expected, facts.snapshot_id


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_timeline_equals_brute_force(path: Path) -> None:
    table = pl.open_table(str(path), progress=False)
    timeline = table.history()
    ids = table.snapshot_manager.list_ids()
    assert [s.snapshot_id for s in timeline] == ids and not timeline.problems
    assert_equals_brute_force(table, timeline)
    previous: set[str] = set()
    for facts in timeline:
        names = {lf.entry.file.file_name for lf in table.at(facts.snapshot_id).live_files()}
        assert facts.added_files == len(names - previous) and facts.removed_files == len(previous - names)
        previous = names
    assert timeline.snapshots[0].read_whole and not any(s.read_whole for s in timeline.snapshots[1:])


def test_a_range_sampled_and_the_frame() -> None:
    table = pl.open_table(str(TABLES[0]), progress=False)
    full = table.history()
    part = table.history(start=3, end=9, every=3)
    assert [s.snapshot_id for s in part] == [3, 6, 9]
    for s in part:  # the deltas between samples are applied: the same facts as the full timeline
        same = next(f for f in full if f.snapshot_id == s.snapshot_id)
        assert (s.files, s.bytes, s.index_coverage, s.dv_deleted_rows) == (
            same.files, same.bytes, same.index_coverage, same.dv_deleted_rows)
    check_frame(full.frame(), HISTORY_COLUMNS, "history")
    with pytest.raises(pl.PaimonLensError, match="every"):
        table.history(every=0)


def test_a_broken_snapshot_is_a_row_with_its_problem_and_the_next_is_read_whole(tmp_path: Path) -> None:
    copy = tmp_path / "t"
    shutil.copytree(TABLES[0], copy)
    snap = json.loads((copy / "snapshot" / "snapshot-5").read_text(encoding="utf-8"))
    (copy / "manifest" / snap["deltaManifestList"]).write_bytes(b"not avro")
    (copy / "manifest" / snap["baseManifestList"]).write_bytes(b"not avro")
    table = pl.open_table(str(copy), progress=False)
    timeline = {s.snapshot_id: s for s in table.history()}
    assert timeline[5].problems and "manifest" in timeline[5].problems[0]
    assert timeline[6].read_whole and not timeline[6].problems
    assert timeline[6].files == brute_force(table, 6)["files"]
    assert [p for p in table.history().problems if p.startswith("snapshot 5:")]


def test_cli_history_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", str(TABLES[3]), "--format", "json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["snapshot_id"] for s in doc["snapshots"]] == [1, 2, 3, 4, 5, 6]
    last = doc["snapshots"][-1]
    assert last["unindexed_files"]["bitmap(tag)"] == 12 and last["index_coverage"]["bitmap(tag)"] == 6
    assert main(["history", str(TABLES[3])]) == 0
    text = capsys.readouterr().out
    assert "APPEND" in text and "snapshot" in text


def _live(table: Any, sid: int) -> dict[str, Any]:
    return {lf.entry.file.file_name: lf for lf in table.at(sid).live_files()}


@pytest.mark.parametrize("path", [TABLES[0], TABLES[1], TABLES[3], TABLES[5], TABLES[-1]], ids=lambda p: p.name)
def test_diff_equals_brute_force(path: Path) -> None:
    table = pl.open_table(str(path), progress=False)
    ids = table.snapshot_manager.list_ids()
    a, b = ids[0], ids[-1]
    d = table.diff(a, b)
    la, lb = _live(table, a), _live(table, b)
    assert {f.file_name for f in d.added} == lb.keys() - la.keys()
    assert {f.file_name for f in d.removed} == la.keys() - lb.keys()
    assert d.files == (len(la), len(lb)) and not d.problems
    assert [c.snapshot_id for c in d.commits] == ids[1:]
    for c in d.commits:  # each commit: what its snapshot has that the one before has not, and back
        before, after = _live(table, c.snapshot_id - 1), _live(table, c.snapshot_id)
        assert {f.file_name for f in c.added} == after.keys() - before.keys()
        assert {f.file_name for f in c.removed} == before.keys() - after.keys()
        moved = {n for n in before.keys() & after.keys()
                 if before[n].entry.file.level != after[n].entry.file.level}
        assert {f.file_name for f, _ in c.upgraded} == moved
        assert c.commit_kind == table.snapshot_manager.snapshot(c.snapshot_id).commit_kind
    for label, (x, y) in d.index_coverage.items():
        assert (x, y) == (brute_force(table, a)["index_coverage"].get(label, 0),
                          brute_force(table, b)["index_coverage"].get(label, 0)), label
    assert d.deleted_rows == (brute_force(table, a)["dv_deleted_rows"],
                              brute_force(table, b)["dv_deleted_rows"])
    assert d.frame().shape[0] == len(d.added) + len(d.removed)
    check_frame(d.frame(), DIFF_COLUMNS, "diff")
    json.dumps(d.to_dict(), default=str)


def test_diff_of_a_schema_change() -> None:
    table = pl.open_table(str(TABLES[3]), progress=False)
    d = table.diff(1, 6)
    assert d.schema["added"] == ["tag"] and d.schema["schema_ids"] == [0, 1]
    assert d.options["file-index.bitmap.columns"] == ("country,status,score", "country,status,score,tag")
    assert d.index_coverage["bitmap(tag)"] == (0, 6)
    assert any("bitmap(tag): 0 of 3 files at snapshot 1, 6 of 18 at snapshot 6" in line for line in d.summary())
    with pytest.raises(pl.PaimonLensError, match="older"):
        table.diff(6, 1)


@pytest.mark.parametrize("where", ["status = 'PAID'", "qty > 5", "customer = 7", "amount < 100"])
def test_explain_diff_causes_add_up_and_equal_brute_force(where: str) -> None:
    """At every pair of snapshots: each side is the explain at that snapshot, and the causes add up
    to the difference in bytes (and files) read exactly."""
    table = pl.open_table(str(TABLES[0]), progress=False)
    ids = table.snapshot_manager.list_ids()
    for a in ids:
        for b in ids:
            if a >= b:
                continue
            result = table.explain_diff(where, a, b)
            brute_a, brute_b = table.at(a).explain(where).summary(), table.at(b).explain(where).summary()
            assert result.read_bytes_delta == brute_b["read_bytes"] - brute_a["read_bytes"]
            assert sum(c.read_bytes_delta for c in result.causes) == result.read_bytes_delta, (a, b)
            assert sum(c.read_files_delta for c in result.causes) == brute_b["read_files"] - brute_a["read_files"]
            for c in result.causes:
                if c.snapshot_id is not None:
                    assert a < c.snapshot_id <= b and f"at snapshot {c.snapshot_id}" in c.text


def test_explain_diff_names_the_snapshot_where_the_predicate_does_not_apply() -> None:
    table = pl.open_table(str(TABLES[3]), progress=False)
    with pytest.raises(pl.PaimonLensError, match=r"at snapshot 2 \(schema 0\): unknown column 'tag'"):
        table.explain_diff("tag = 'x'", 2, 6)


def test_cli_diff_and_explain_compare(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(TABLES[0])
    assert main(["diff", path, "5", "8"]) == 0
    text = capsys.readouterr().out
    assert "compaction at snapshot 6: merged 4 files" in text and "bucket 0:" in text
    assert main(["diff", path, "5", "8", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["a"] == 5 and doc["b"] == 8 and len(doc["commits"]) == 3
    assert main(["explain", path, "--where", "qty > 5", "--compare", "3", "--snapshot", "9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["a"]["snapshot_id"] == 3 and doc["b"]["snapshot_id"] == 9
    assert doc["read_bytes_delta"] == sum(c["read_bytes_delta"] for c in doc["causes"]) > 0
    assert main(["explain", path, "--where", "qty > 5", "--compare", "3", "--snapshot", "9"]) == 0
    assert "compaction at snapshot 8" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["process", "spark"])
def test_commits_read_in_tasks_give_the_same_timeline(engine: str, request: pytest.FixtureRequest) -> None:
    from paimon_lens.engines import get_engine
    from paimon_lens.history.timeline import history

    runner = get_engine(engine, spark=request.getfixturevalue("spark") if engine == "spark" else None, workers=2)
    for path in (TABLES[0], TABLES[1], TABLES[3]):
        table = pl.open_table(str(path), progress=False)
        local = [s.to_dict() for s in history(table.reader)]
        assert [s.to_dict() for s in history(table.reader, engine=runner, min_distributed=2)] == local


# ---- random histories (paimon-lens' writer) against brute force -----------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ops = st.lists(st.one_of(
    st.tuples(st.just("append"), st.lists(st.sampled_from(["p", "q", "r"]), min_size=1, max_size=6)),
    st.tuples(st.just("compact"), st.sampled_from([None, "p", "q"])),
    st.tuples(st.just("delete"), st.integers(2, 5), st.integers(0, 4)),
    st.tuples(st.just("index"), st.booleans()),
), min_size=2, max_size=10)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(ops=_ops, bucket=st.sampled_from([-1, 2]))
def test_random_histories_timeline_and_causes_equal_brute_force(tmp_path_factory: pytest.TempPathFactory,
                                                                 ops: list[tuple[Any, ...]], bucket: int) -> None:
    import pyarrow as pa

    from paimon_lens.writer.table_writer import TableWriter

    root = tmp_path_factory.mktemp("hist") / "t"
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("part", pa.string())])
    w = TableWriter.create(root, schema, partition_keys=["part"], bucket=bucket,
                           bucket_key="id" if bucket > 0 else None,
                           options={"deletion-vectors.enabled": "true", "file-index.in-manifest-threshold": "0"})
    next_id = 0
    for op in [("append", ["p", "q"]), *ops]:
        if op[0] == "append":
            rows = [{"id": next_id + i, "s": f"v{(next_id + i) % 5}", "part": p} for i, p in enumerate(op[1])]
            next_id += len(rows)
            w.commit(pa.Table.from_pylist(rows, schema=w.arrow_schema()))
        elif op[0] == "compact":
            w.compact(None if op[1] is None else {"part": op[1]})
        elif op[0] == "delete":
            w.delete(lambda t, m=op[1], r=op[2]: [v % m == r for v in t["id"].to_pylist()])
        elif op[1] and "file-index.bitmap.columns" not in w.schema.options:
            w.alter(set_options={"file-index.bitmap.columns": "s"})
        elif not op[1] and "file-index.bitmap.columns" in w.schema.options:
            w.alter(reset_options=["file-index.bitmap.columns"])
    table = pl.open_table(str(root), progress=False)
    timeline = table.history()
    assert not timeline.problems
    assert_equals_brute_force(table, timeline)
    ids = [s.snapshot_id for s in timeline]
    result = table.explain_diff("s = 'v1'", ids[0], ids[-1])
    brute_a = table.at(ids[0]).explain("s = 'v1'").summary()
    brute_b = table.explain("s = 'v1'").summary()
    assert sum(c.read_bytes_delta for c in result.causes) == brute_b["read_bytes"] - brute_a["read_bytes"]
    assert sum(c.read_files_delta for c in result.causes) == brute_b["read_files"] - brute_a["read_files"]


def test_diff_says_a_deletion_vector_that_does_not_decode(tmp_path: Path) -> None:
    copy = tmp_path / "t"
    shutil.copytree(TABLES[0], copy)
    table = pl.open_table(str(copy), progress=False)
    (dv,) = [d for d in table.deletion_vector_infos() if d.cardinality]
    path = copy / dv.index_file
    raw = bytearray(path.read_bytes())
    raw[dv.offset + 8] ^= 0xFF  # inside the blob: its CRC no longer matches
    path.write_bytes(bytes(raw))
    d = pl.open_table(str(copy), progress=False).diff(1, table.snapshot_id)
    assert any("deletion vector of" in p and dv.data_file in p for p in d.problems)
