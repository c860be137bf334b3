"""Scan planning against the plans Paimon itself computed (0.9.0 and 2.0.0 oracles), plus unit tests
of the planner's pieces (projection, schema evolution, bucket hash and selection, primary-key rules)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from paimon_lens.metadata.binary_row import encode_binary_row
from paimon_lens.metadata.manifest import DataFileMeta, ManifestEntry, SimpleStatsBytes
from paimon_lens.metadata.schema import TableSchema
from paimon_lens.metadata.snapshot_reader import SnapshotReader
from paimon_lens.metadata.stats import ColumnStats
from paimon_lens.predicate import parse_where
from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate
from paimon_lens.pruning.bucket import (
    BucketSelector,
    binary_row_hash,
    bucket_of,
    bucket_values,
    java_mod,
    murmur_words,
    substitute_partition,
)
from paimon_lens.pruning.evolution import devolve_filter, filter_unsafe_filter, pick, project, split_and
from paimon_lens.pruning.scan import PlanDecision, data_filter, partition_filter, partition_keep, plan
from paimon_lens.table.facade import LiveFile, open_table
from paimon_lens.types import DataField, parse_type
from tests.conftest import load_json, oracle_paths

# ---- golden: every oracle predicate, every file ----------------------------------------------------

#: Paimon 0.9.0 ORs a bitmap result with a non-bitmap result wrongly (``BitmapIndexResultLazy.or``
#: applies ``and``), fixed in 2.0. paimon-lens models 2.0, so on these files of tables planned by
#: 0.9 the index answer (and, for embedded indexes, the plan) differs from the recorded one. Every
#: file listed is one the oracle flags ``index_false_negative``: a matching row that 0.9 lost.
OR_BUG_09: dict[tuple[str, str, str], set[str]] = {
    ("oracle_events_external.json", "p28", "data-92403174-dc4c-4cb8-aa59-2705a22fddfa-0.parquet"): {"index"},
    ("oracle_events_mixed.json", "p28", "data-09f7a04f-621f-4dc8-a9b3-885c9e5d287f-0.parquet"):
        {"index", "planned"},
    ("oracle_sales.json", "p20", "data-7c095a20-a9c2-4a73-914b-7fafd712aa4e-0.parquet"): {"index", "planned"},
}


@cache
def _oracle(path: str) -> tuple[dict[str, Any], SnapshotReader]:
    o = load_json(Path(path))
    return o, open_table(str(Path(path).parent / o["table"]["path"])).reader


def _cases() -> list[Any]:
    out = []
    for path in oracle_paths():
        for p in load_json(path)["predicates"]:
            out.append(pytest.param(str(path), p["id"], id=f"{path.parent.name}/{path.name}:{p['id']}"))
    return out


def _sql(text: str) -> str:
    return re.sub(r"--.*$", "", text).strip()


def _diffs(o: dict[str, Any], pred: dict[str, Any], decisions: list[PlanDecision],
           decisions_no_index: list[PlanDecision]) -> dict[str, set[str]]:
    by_name = {d.file_name: d for d in decisions}
    no_index = {d.file_name: d for d in decisions_no_index}
    assert set(by_name) == {f["file_name"] for f in o["files"]}
    out: dict[str, set[str]] = {}
    for fr in pred["files"]:
        d = by_name[fr["file_name"]]
        bad = set()
        if d.stats_keep != fr["stats_keep"]:
            bad.add("stats_keep")
        if d.index_result != fr["index_result"]:
            bad.add("index")
        if d.planned != (fr["file_name"] in pred["plan_files"]):
            bad.add("planned")
        if no_index[fr["file_name"]].planned != (fr["file_name"] in pred["plan_files_index_disabled"]):
            bad.add("planned_index_disabled")
        if bad:
            out[fr["file_name"]] = bad
    return out


@pytest.mark.parametrize(("path", "pid"), _cases())
def test_plan_matches_paimon(path: str, pid: str) -> None:
    o, table = _oracle(path)
    pred = next(p for p in o["predicates"] if p["id"] == pid)
    predicate = parse_where(_sql(pred["sql"]), table.schema.fields)
    diffs = _diffs(o, pred, plan(table, predicate), plan(table, predicate, index_enabled=False))
    expected = {f: kinds for (oracle, p, f), kinds in OR_BUG_09.items() if oracle == Path(path).name and p == pid}
    assert diffs == expected
    for f in expected:  # only ever on files where 0.9 lost a matching row
        assert next(x for x in pred["files"] if x["file_name"] == f).get("index_false_negative")


@pytest.mark.parametrize("path", [str(p) for p in oracle_paths() if p.parent.parent.name == "tables"])
def test_plan_with_09_bitmap_or_matches_paimon_09_exactly(path: str) -> None:
    o, table = _oracle(path)
    for pred in o["predicates"]:
        predicate = parse_where(_sql(pred["sql"]), table.schema.fields)
        decisions = plan(table, predicate, paimon_09_bitmap_or=True)
        no_index = plan(table, predicate, index_enabled=False, paimon_09_bitmap_or=True)
        assert _diffs(o, pred, decisions, no_index) == {}, pred["id"]


def test_decisions_explain_themselves() -> None:
    _, table = _oracle(str(next(p for p in oracle_paths() if p.name == "oracle_events20.json")))
    predicate = parse_where("dt = '2025-01-03' AND score >= 95", table.schema.fields)
    decisions = plan(table, predicate)
    stages = {d.stage for d in decisions}
    assert {"partition", "stats"} <= stages
    for d in decisions:
        assert d.planned == (d.stage == "")
        if d.stage == "partition":
            assert not d.partition_keep and d.reason.startswith("partition {dt=")
            assert not d.index_used_at_planning
        if d.stage == "stats":
            assert d.reason.startswith("stats: ") and "score" in d.reason
        assert d.stats_used
    lf = table.live_files()[0]
    assert partition_keep(table, predicate, lf) == (lf.partition["dt"] == "2025-01-03")


def test_bucket_stage_on_fixed_bucket_table() -> None:
    _, table = _oracle(str(next(p for p in oracle_paths() if p.name == "oracle_sales.json")))
    decisions = plan(table, parse_where("user_id = 7", table.schema.fields))
    assert {d.bucket_keep for d in decisions} == {True, False}
    for d in decisions:
        assert d.planned == (d.bucket == 1)
        assert d.stage in ("", "bucket")
    no_bucket = plan(table, parse_where("user_id > 7", table.schema.fields))
    assert all(d.bucket_keep is None for d in no_bucket)


def test_embedded_index_stage() -> None:
    _, table = _oracle(str(next(p for p in oracle_paths() if p.name == "oracle_stats_none_some_full.json")))
    decisions = plan(table, parse_where("city = 'Zürich'", table.schema.fields))
    assert all(d.stage == "index" and d.index_used_at_planning and not d.planned for d in decisions)
    assert all("embedded index answers SKIP" in d.reason for d in decisions)
    assert all(d.index is not None and not d.index.remain() for d in decisions)
    disabled = plan(table, parse_where("city = 'Zürich'", table.schema.fields), index_enabled=False)
    assert all(d.planned and not d.index_used_at_planning and d.index_result == "SKIP" for d in disabled)


# ---- projection and schema evolution ---------------------------------------------------------------

INT, BIGINT, STRING = parse_type("INT"), parse_type("BIGINT"), parse_type("STRING")


def L(fn: str, field: str, *lits: Any, index: int = 0, dtype: Any = INT) -> LeafPredicate:
    return LeafPredicate(fn, field, index, dtype, tuple(lits))


def And(*kids: Any) -> CompoundPredicate:
    return CompoundPredicate("And", tuple(kids))


def Or(*kids: Any) -> CompoundPredicate:
    return CompoundPredicate("Or", tuple(kids))


def test_project_and_pick() -> None:
    a, b = L("Equal", "a", 1), L("Equal", "b", 2, index=1)
    assert project(a, ["b", "a"]) == L("Equal", "a", 1, index=1)
    assert project(b, ["a"]) is None
    assert project(And(a, b), ["a"]) == a                  # AND keeps what it can (inclusive)
    assert project(Or(a, b), ["a"]) is None                # OR needs every child
    assert project(Or(And(a, b), L("Equal", "a", 3)), ["a"]) == Or(a, L("Equal", "a", 3))
    assert pick(split_and(And(a, Or(a, b), b)), ["a"]) == [a]


F0 = (DataField(0, "id", INT), DataField(1, "v", INT), DataField(2, "s", INT))
F1 = (DataField(0, "id", INT), DataField(1, "w", BIGINT), DataField(2, "s", STRING), DataField(3, "n", INT))


def test_filter_unsafe_filter() -> None:
    id5, n5 = L("Equal", "id", 5), L("Equal", "n", 5, index=3)
    w_small, w_big = L("GreaterThan", "w", 7, index=1, dtype=BIGINT), L("GreaterThan", "w", 1 << 40, index=1,
                                                                          dtype=BIGINT)
    s_x = L("Equal", "s", "x", index=2, dtype=STRING)
    pred = And(id5, w_small, w_big, s_x, n5)
    assert filter_unsafe_filter(pred, F1, F1, same_schema=True) is pred
    # INT -> BIGINT: literals that fit an INT stay; a type change to STRING is unsafe; new columns stay
    assert filter_unsafe_filter(pred, F1, F0, same_schema=False) == And(id5, w_small, n5)
    assert filter_unsafe_filter(pred, F1, F0, False, keep_new_field_filter=False) == And(id5, w_small)
    assert filter_unsafe_filter(Or(s_x, id5), F1, F0, False) is None


def test_devolve_filter() -> None:
    id5, n5 = L("Equal", "id", 5), L("Equal", "n", 5, index=3)
    w7 = L("GreaterThan", "w", 7, index=1, dtype=BIGINT)
    assert devolve_filter(And(id5, w7, n5), F1, F0, False) == And(id5, L("GreaterThan", "v", 7, index=1))
    assert devolve_filter(Or(n5, id5), F1, F0, False) is None            # a new column: no filter
    assert devolve_filter(n5, F1, F0, False) is None
    assert devolve_filter(None, F1, F0, False) is None


# ---- bucket hash and selection -----------------------------------------------------------------------

def test_murmur_and_bucket_vectors() -> None:
    # values from Paimon's own ScanBucketSelectorTest (three INT bucket keys, 20 buckets)
    f3 = [DataField(i, f"k{i}", INT) for i in range(3)]
    assert binary_row_hash([0, 1, 2], f3) == 1141287431
    assert bucket_of([0, 1, 2], f3, 20) == 11
    assert [binary_row_hash([v, 1, 2], f3) for v in (5, 6, 7)] == [-1272936927, 582056914, -1234868890]
    assert [bucket_of([v, 1, 2], f3, 20) for v in (5, 6, 7)] == [7, 14, 10]
    assert [binary_row_hash([v, 8, 2], f3) for v in (5, 6, 7)] == [-1567268077, 2124429589, 1063796399]
    assert java_mod(-7, 3) == -1 and java_mod(7, -3) == 1
    assert murmur_words(b"") == murmur_words(b"", 42)
    with pytest.raises(ValueError):
        murmur_words(b"abc")
    assert bucket_of([-7], [DataField(0, "k", BIGINT)], 4, "mod") == 1     # floorMod


def test_bucket_of_long_strings_uses_the_variable_part() -> None:
    f = [DataField(0, "k", STRING)]
    row = encode_binary_row(["a-string-longer-than-7"], [STRING])[4:]
    assert len(row) % 8 == 0
    assert binary_row_hash(["a-string-longer-than-7"], f) == murmur_words(row)


def test_bucket_values() -> None:
    k = [DataField(0, "k", INT), DataField(1, "j", INT)]
    kk = L("Equal", "k", 1)
    assert bucket_values(And(Or(kk, L("Equal", "k", 2)), L("In", "j", 3, None, 4, index=1)), k) == [[1, 2], [3, 4]]
    assert bucket_values(kk, k) is None                                      # j has no values
    assert bucket_values(And(L("In", "k", 1, 2, 3), L("In", "k", 2, 3, 9), L("Equal", "j", 0, index=1)), k) == \
        [[2, 3], [0]]                                                        # 2.0 intersects
    assert bucket_values(And(kk, L("Equal", "k", 2), L("Equal", "j", 0, index=1)), k) is None  # contradiction
    assert bucket_values(And(Or(kk, L("Equal", "j", 1, index=1)), L("Equal", "j", 0, index=1)), k) is None
    assert bucket_values(And(L("In", "k", *range(40)), L("In", "j", *range(30), index=1)), k) is None  # > 1000
    assert bucket_values(And(L("Equal", "k", None), L("Equal", "j", 0, index=1)), k) == [[], [0]]


def test_bucket_selector_substitutes_partition_values() -> None:
    dt = L("Equal", "dt", "a", dtype=STRING)
    k7 = L("Equal", "k", 7, index=1)
    assert substitute_partition(Or(dt, k7), {"dt": "a"}) is True
    assert substitute_partition(Or(dt, k7), {"dt": "b"}) == k7
    assert substitute_partition(And(dt, k7), {"dt": "b"}) is False
    fields = [DataField(1, "k", INT)]
    sel = BucketSelector.create(Or(dt, k7), fields, fixed_bucket=True)
    assert sel is not None
    assert sel.buckets({"dt": "a"}, 4) is None
    assert sel.buckets({"dt": "b"}, 4) == frozenset({bucket_of([7], fields, 4)})
    assert sel.buckets({"dt": "b"}, 0) is None
    assert BucketSelector.create(dt, fields, fixed_bucket=True) is None      # k never mentioned
    assert BucketSelector.create(k7, fields, fixed_bucket=False) is None     # dynamic / unaware buckets


# ---- synthetic tables: primary-key rules, evolution, mod buckets -----------------------------------

def _schema(sid: int, fields: tuple[DataField, ...], pk: tuple[str, ...] = (), part: tuple[str, ...] = (),
            **options: str) -> TableSchema:
    return TableSchema(sid, fields, part, pk, dict(options))


def _file(name: str, stats: list[ColumnStats], *, level: int = 0, bucket: int = 0, total: int = 2,
          schema_id: int = 0, rows: int = 10, key_stats: SimpleStatsBytes | None = None,
          partition: dict[str, Any] | None = None) -> LiveFile:
    meta = DataFileMeta(
        file_name=name, file_size=1, row_count=rows, min_key=b"", max_key=b"",
        key_stats=key_stats or SimpleStatsBytes(b"", b"", None), value_stats=SimpleStatsBytes(b"", b"", None),
        min_sequence_number=0, max_sequence_number=0, schema_id=schema_id, level=level, extra_files=(),
        creation_time=None, delete_row_count=0, embedded_index=None, file_source=0, value_stats_cols=None,
        external_path=None, first_row_id=None, write_cols=None)
    part = partition or {}
    entry = ManifestEntry(0, repr(sorted(part.items())).encode(), bucket, total, meta, "manifest-0")
    return LiveFile(entry, part, f"bucket-{bucket}/{name}", tuple(stats))


def _table(schemas: list[TableSchema], files: list[LiveFile]) -> Any:
    by_id = {s.id: s for s in schemas}
    fake = SimpleNamespace(schema=schemas[-1], schema_manager=SimpleNamespace(schema=by_id.__getitem__),
                           live_files=lambda: files, path="/nowhere", manifest_dir="/nowhere/manifest",
                           snapshot=None,  # no snapshot: no manifest list to prune with
                           memo=lambda key, compute: compute())
    return fake


PK_FIELDS = (DataField(0, "k", BIGINT), DataField(1, "v", INT))


def _v(lo: int, hi: int) -> list[ColumnStats]:
    return [ColumnStats(0, 100, 0), ColumnStats(lo, hi, 0)]


def _by_name(decisions: list[PlanDecision]) -> dict[str, PlanDecision]:
    return {d.file_name: d for d in decisions}


def test_pk_deletion_vectors_skip_level_0_and_use_value_stats() -> None:
    s = _schema(0, PK_FIELDS, ("k",), **{"bucket": "2", "deletion-vectors.enabled": "true"})
    files = [_file("l0", _v(0, 100), level=0), _file("hit", _v(40, 60), level=5), _file("miss", _v(1, 9), level=5)]
    t = _table([s], files)
    d = _by_name(plan(t, parse_where("v = 50", s.fields)))
    assert (d["l0"].stage, d["l0"].level_keep) == ("level", False)
    assert d["hit"].planned and d["hit"].stats_used
    assert d["miss"].stage == "stats" and d["miss"].reason == "stats: max(v) = 9 < 50"
    # merge-on-read makes level-0 files visible again and turns the value filter off
    s2 = _schema(0, PK_FIELDS, ("k",), **{"bucket": "2", "deletion-vectors.enabled": "true",
                                          "deletion-vectors.merge-on-read": "true"})
    d2 = _by_name(plan(_table([s2], files), parse_where("v = 50", s2.fields)))
    assert d2["l0"].level_keep and not d2["l0"].stats_used


def test_pk_without_deletion_vectors_filters_whole_buckets() -> None:
    s = _schema(0, PK_FIELDS, ("k",), bucket="2")
    files = [
        # bucket 0: overlapping (levels 0 and 3), one file passes -> whole bucket kept
        _file("b0-l0", _v(1, 9), level=0, bucket=0), _file("b0-l3", _v(40, 60), level=3, bucket=0),
        # bucket 1: overlapping, no file passes -> whole bucket dropped
        _file("b1-l0", _v(1, 9), level=0, bucket=1), _file("b1-l3", _v(70, 80), level=3, bucket=1),
    ]
    d = _by_name(plan(_table([s], files), parse_where("v = 50", s.fields)))
    assert d["b0-l0"].planned and d["b0-l3"].planned and d["b0-l0"].whole_bucket_keep
    assert d["b1-l0"].stage == d["b1-l3"].stage == "whole_bucket"
    assert not d["b0-l0"].stats_used and d["b0-l0"].stats_keep is False
    assert "whole bucket is read" in d["b0-l0"].reason
    # one level above 0 only: no overlap, files are filtered one by one
    flat = [_file("a", _v(1, 9), level=4, bucket=0), _file("b", _v(45, 55), level=4, bucket=0)]
    d = _by_name(plan(_table([s], flat), parse_where("v = 50", s.fields)))
    assert (d["a"].planned, d["a"].stage, d["a"].stats_used) == (False, "stats", True)
    assert d["b"].planned
    # partial-update without deletion vectors keeps overlapping buckets whole
    pu = _schema(0, PK_FIELDS, ("k",), bucket="2", **{"merge-engine": "partial-update"})
    d = _by_name(plan(_table([pu], files), parse_where("v = 50", pu.fields)))
    assert all(x.planned for x in d.values())


def _key_stats(lo: int, hi: int) -> SimpleStatsBytes:
    return SimpleStatsBytes(encode_binary_row([lo], [BIGINT]), encode_binary_row([hi], [BIGINT]), (0,))


def test_pk_key_stats_and_bucket_pruning() -> None:
    s = _schema(0, PK_FIELDS, ("k",), bucket="2")
    b7 = bucket_of([7], [PK_FIELDS[0]], 2)
    files = [_file("keys-1-5", _v(0, 9), level=1, bucket=b7, key_stats=_key_stats(1, 5)),
             _file("keys-5-9", _v(0, 9), level=1, bucket=b7, key_stats=_key_stats(5, 9)),
             _file("other-bucket", _v(0, 9), level=1, bucket=1 - b7, key_stats=_key_stats(5, 9))]
    d = _by_name(plan(_table([s], files), parse_where("k = 7", s.fields)))
    assert (d["keys-1-5"].stage, d["keys-1-5"].key_keep) == ("stats", False)
    assert d["keys-1-5"].reason == "key stats: max(k) = 5 < 7"
    assert d["keys-5-9"].planned and d["keys-5-9"].key_keep
    assert (d["other-bucket"].stage, d["other-bucket"].bucket_keep) == ("bucket", False)


def test_schema_evolution_on_append_table() -> None:
    s0 = _schema(0, F0)
    s1 = _schema(1, F1)
    # stats mapped to the latest schema by field id (as Table.live_files gives them)
    old = _file("old", [ColumnStats(1, 9, 0), ColumnStats(1, 3, 0), ColumnStats(1, 2, 0), ColumnStats(None, None, 10)])
    new = _file("new", [ColumnStats(1, 9, 0), ColumnStats(1, 3, 0), ColumnStats("a", "b", 0), ColumnStats(1, 1, 0)],
                schema_id=1)
    t = _table([s0, s1], [old, new])
    d = _by_name(plan(t, parse_where("w > 5", s1.fields)))
    assert not d["old"].planned and not d["new"].planned                    # INT -> BIGINT is safe
    d = _by_name(plan(t, parse_where("w > 10000000000", s1.fields)))
    assert d["old"].planned and not d["new"].planned                        # literal overflows INT
    d = _by_name(plan(t, parse_where("s = 'zz'", s1.fields)))
    assert d["old"].planned and d["old"].stats_keep and not d["new"].planned  # INT -> STRING unsafe
    d = _by_name(plan(t, parse_where("n = 1", s1.fields)))
    assert d["old"].stage == "stats" and d["old"].reason == "stats: n: all 10 rows null"
    d = _by_name(plan(t, parse_where("n IS NULL", s1.fields)))
    assert d["old"].planned and not d["new"].planned


def test_partition_split_and_mod_buckets() -> None:
    fields = (DataField(0, "dt", STRING), DataField(1, "k", BIGINT), DataField(2, "v", INT))
    s = _schema(0, fields, part=("dt",), bucket="4", **{"bucket-key": "k", "bucket-function.type": "mod"})
    files = [_file(f"{dt}-{b}", [ColumnStats(dt, dt, 0), ColumnStats(0, 99, 0), ColumnStats(0, 9, 0)],
                   bucket=b, total=4, partition={"dt": dt}) for dt in ("a", "b") for b in range(4)]
    t = _table([s], files)
    pred = parse_where("(dt = 'a' AND v = 1) OR dt = 'b'", fields)
    assert partition_filter(t, pred) == Or(L("Equal", "dt", "a", dtype=STRING), L("Equal", "dt", "b", dtype=STRING))
    assert data_filter(t, pred) == pred
    d = _by_name(plan(t, parse_where("k = 6 OR dt = 'a'", fields)))
    assert [n for n, x in d.items() if x.planned] == ["a-0", "a-1", "a-2", "a-3", "b-2"]
    assert d["b-1"].reason == "bucket 1 is not among the buckets [2] of the k values"
    d = _by_name(plan(t, parse_where("dt = 'b'", fields)))
    assert [n for n, x in d.items() if x.planned] == ["b-0", "b-1", "b-2", "b-3"]
    assert not d["a-0"].stats_used and d["a-0"].stats_keep is False        # partition-only: no data filter
    everything = plan(t, None)
    assert all(x.planned and x.reason == "planned" for x in everything)

