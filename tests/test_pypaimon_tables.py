"""Golden tests over tables written by pypaimon 2.1 (``tests/fixtures/pypaimon``, see its README).

Each table uses one feature Paimon users switch on: branches and ``scan.fallback-branch``, external
data paths, deletion vectors in the bucket directory, row tracking, data evolution (partial-column
files merged by row id), type-changing ALTER TABLE, TIMESTAMP(9), BLOB, VECTOR and VARIANT columns.
Expected answers are the oracle's brute force over the rows pypaimon reads (``rows_truth``,
``files_truth``), never pypaimon's own planning (which is wrong for some of them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from tests.conftest import FIXTURES, load_json

PYPAIMON = FIXTURES / "pypaimon"
ORACLES = sorted(PYPAIMON.glob("oracle_*.json"))


def open_fixture(oracle: dict[str, Any], **kwargs: Any) -> pl.Table:
    path_map = {}
    if "external_root_at_generation" in oracle:  # absolute at generation: remapped to the repository copy
        path_map[oracle["external_root_at_generation"]] = str(PYPAIMON / "external")
    return pl.open_table(str(PYPAIMON / "warehouse" / "db.db" / oracle["table"]), path_map=path_map, **kwargs)


def _id(p: Path) -> str:
    return p.stem[len("oracle_"):]


def test_fixtures_present() -> None:
    assert len(ORACLES) >= 10


@pytest.mark.parametrize("oracle_path", ORACLES, ids=_id)
def test_opens_and_decodes_without_errors(oracle_path: Path) -> None:
    o = load_json(oracle_path)
    t = open_fixture(o)
    assert t.snapshot_id == o["snapshot_id"] and t.schema.id == o["schema_id"]
    assert sorted(t.branches()) == sorted(o["branches"])
    files = t.files()
    assert files["stats_error"].isna().all()
    idx, dvs = t.file_indexes(), t.deletion_vectors()
    assert len(idx) == 0 or idx["error"].isna().all()
    assert len(dvs) == 0 or (dvs["error"].isna().all() and dvs["crc_ok"].all())
    if o["table"] == "pk_dv_in_data_dir":
        return  # pypaimon's plan of this table is empty (level-0 files only, see test_primary_key_level0)
    live = {lf.entry.file.file_name: lf.entry.file for lf in t.live_files()}
    assert set(live) == {f["file_name"] for f in o["files"]}
    for want in o["files"]:
        got = live[want["file_name"]]
        assert got.row_count == want["row_count"]
        assert got.first_row_id == want["first_row_id"]
        assert (None if got.write_cols is None else list(got.write_cols)) == want["write_cols"]
        assert got.external_path == want["external_path"]
        assert got.level == want["level"]


@pytest.mark.parametrize("oracle_path", [p for p in ORACLES if _id(p) != "pk_dv_in_data_dir"], ids=_id)
def test_truth_equals_brute_force(oracle_path: Path) -> None:
    """explain(truth=True) counts exactly the rows the oracle counts, merged rows included."""
    o = load_json(oracle_path)
    t = open_fixture(o)
    # the main table of branch_fallback reads its fallback branch: Paimon Java's answer, not pypaimon's
    predicates = o["fallback"]["predicates_java_semantics"] if "fallback" in o else o["predicates"]
    for p in predicates:
        r = t.explain(p["sql"], truth=True)
        assert not [n for n in r.notes if not n.startswith("scan.fallback-branch")], (p["sql"], r.notes)
        assert r.summary()["matching_rows"] == p["rows_truth"], p["sql"]


@pytest.mark.parametrize("oracle_path", [p for p in ORACLES if _id(p) not in ("pk_dv_in_data_dir",
                                                                               "timestamp_nanos")], ids=_id)
def test_files_with_matches_are_read(oracle_path: Path) -> None:
    """Paimon's pruning (as modelled) never skips a file holding a matching row of these tables."""
    o = load_json(oracle_path)
    t = open_fixture(o)
    for p in o["predicates"]:
        r = t.explain(p["sql"])
        read = {f.file_name for f in r.files if f.read}
        assert set(p.get("files_truth", [])) <= read, p["sql"]


def test_timestamp_nanos_stats_written_by_pypaimon_are_truncated() -> None:
    """pypaimon 2.1 truncates TIMESTAMP(9) min/max to microseconds; Paimon's planner trusts them, so
    files with matching rows are pruned. explain says so with a flag on each such file."""
    o = load_json(PYPAIMON / "oracle_timestamp_nanos.json")
    t = open_fixture(o)
    flagged = 0
    for p in o["predicates"]:
        r = t.explain(p["sql"], truth=True)
        for f in r.files:
            if f.matching_rows and not f.read:
                assert any(fl.startswith("PAIMON SKIPPED A FILE WITH") for fl in f.flags), (p["sql"], f.file_name)
                flagged += 1
        missed = {f.file_name for f in r.files if f.matching_rows and not f.read}
        assert missed == set(p["files_truth"]) - {f.file_name for f in r.files if f.read}, p["sql"]
    assert flagged > 0


def test_nanosecond_literals_compare_exactly() -> None:
    o = load_json(PYPAIMON / "oracle_timestamp_nanos.json")
    t = open_fixture(o)
    one = t.explain("ts9 = TIMESTAMP '2024-01-01 00:00:00.000000001'", truth=True).summary()["matching_rows"]
    two = t.explain("ts9 = TIMESTAMP '2024-01-01 00:00:00.000000002'", truth=True).summary()["matching_rows"]
    both = t.explain("ts9 <= TIMESTAMP '2024-01-01 00:00:00.000000002' AND "
                     "ts9 >= TIMESTAMP '2024-01-01 00:00:00.000000001'", truth=True).summary()["matching_rows"]
    assert (one, two, both) == (1, 1, 2)


def test_primary_key_level0_with_deletion_vectors() -> None:
    """A primary-key table with deletion vectors whose files are all at level 0: a batch scan reads
    none of them (``batchScanSkipLevel0``), as pypaimon's empty plan shows."""
    o = load_json(PYPAIMON / "oracle_pk_dv_in_data_dir.json")
    t = open_fixture(o)
    assert len(t.live_files()) > 0 and all(lf.entry.file.level == 0 for lf in t.live_files())
    for p in o["predicates"]:
        r = t.explain(p["sql"])
        assert p["plan_files"] == [] and r.summary()["planned_files"] == 0
        assert {f.stage for f in r.files} <= {"bucket", "level"} and any(f.stage == "level" for f in r.files)


def test_data_evolution_groups() -> None:
    """Partial-column files are planned and counted with the files whose rows they update."""
    o = load_json(PYPAIMON / "oracle_data_evolution.json")
    t = open_fixture(o)
    r = t.explain("b >= 400", truth=True)
    groups = {f.decision.row_group for f in r.files}
    assert groups == {(0, 2, 2), (3, 4, 3)}
    files = t.files().set_index("file_name")
    for want in o["files"]:
        row = files.loc[want["file_name"]]
        assert row["first_row_id"] == want["first_row_id"]
        assert row["last_row_id"] == want["first_row_id"] + want["row_count"] - 1
        assert row["write_cols"] == want["write_cols"]
    merged_flags = [f for f in r.files if any("are merged from" in fl for fl in f.flags)]
    assert len(merged_flags) == 3  # every file but the two group anchors
    assert r.summary()["matching_rows"] == 1


def test_deletion_vectors_in_bucket_dir_written_by_pypaimon() -> None:
    o = load_json(PYPAIMON / "oracle_append_dv_in_data_dir.json")
    t = open_fixture(o)
    dvs = t.deletion_vectors()
    want = {f["file_name"]: f["deletion_file"] for f in o["files"] if f["deletion_file"]}
    assert set(dvs["data_file"]) == set(want)
    for _, row in dvs.iterrows():
        w = want[row["data_file"]]
        assert row["index_file"] == w["path_in_table"] and row["offset"] == w["offset"]
        assert row["length"] == w["length"] and row["cardinality"] == w["cardinality"]


def test_fallback_branch() -> None:
    """Partitions main lacks come from branch b; main's own partitions never do (Paimon 2.0 rule:
    main's partitions are listed with the partition filter only)."""
    o = load_json(PYPAIMON / "oracle_branch_fallback.json")
    t = open_fixture(o)
    main_parts = set(o["fallback"]["main_partitions"])
    r = t.explain("v > 0", truth=True)
    from_b = [f for f in r.files if f.branch == "b"]
    assert from_b and all(f.branch is None for f in r.files if f not in from_b)
    for f in from_b:
        if f.partition["dt"] in main_parts:
            assert not f.read and f.stage == "partition" and "fallback branch b" in f.reason
            assert f.matching_rows is None
        else:
            assert f.read
    assert any(n.startswith("scan.fallback-branch = b") for n in r.notes)
    doc = r.to_dict()
    assert {rec["branch"] for rec in doc["files"]} == {None, "b"}
    # a predicate on main's partition only: nothing comes from b
    assert not [f for f in t.explain("dt = '2024-01-03'").files if f.branch == "b" and f.read]


def test_branch_of_a_pypaimon_table() -> None:
    o = load_json(PYPAIMON / "oracle_branch_fallback.json")
    b = open_fixture(o, branch="b")
    assert b.branch == "b" and b.snapshot_id == o["branch_b"]["snapshot_id"]
    assert {lf.entry.file.file_name for lf in b.live_files()} == {f["file_name"] for f in o["branch_b"]["files"]}
    for p in o["branch_b"]["predicates"]:
        assert b.explain(p["sql"], truth=True).summary()["matching_rows"] == p["rows_truth"], p["sql"]


@pytest.mark.parametrize("oracle_path", ORACLES, ids=_id)
def test_recommend_and_report(oracle_path: Path) -> None:
    """The advisor and the report run on every feature (blob files, partial-column files, old types,
    fallback branches) without an error, and a bound predicate explains like its text."""
    o = load_json(oracle_path)
    t = open_fixture(o)
    wheres = [p["sql"] for p in o["predicates"][:3]]
    advice = pl.recommend(t, wheres)
    assert not [e for m in advice.whatif.measures for e in m.errors]
    report = pl.report(t, workload=wheres)
    assert not [e for s in report.sections for e in s.errors]
    from paimon_lens.predicate.parser import parse_where

    for w in wheres:
        bound = parse_where(w, t.schema.fields)
        assert t.explain(bound, truth=True).summary() == t.explain(w, truth=True).summary(), w


def test_fallback_branch_is_read_without_its_own_fallback(tmp_path: Path) -> None:
    """Paimon reads the fallback branch as a plain table: a fallback option of its own is not followed."""
    import json
    import shutil

    o = load_json(PYPAIMON / "oracle_branch_fallback.json")
    copy = tmp_path / "branch_fallback"
    shutil.copytree(PYPAIMON / "warehouse" / "db.db" / "branch_fallback", copy)
    for schema_file in (copy / "branch" / "branch-b" / "schema").iterdir():
        doc = json.loads(schema_file.read_text())
        doc["options"]["scan.fallback-branch"] = "zzz"
        schema_file.write_text(json.dumps(doc))
    r = pl.open_table(str(copy)).explain("v > 0", truth=True)
    assert not [n for n in r.notes if "zzz" in n]
    want = next(p for p in o["fallback"]["predicates_java_semantics"] if p["sql"] == "dt > '2024-01-31'")
    assert pl.open_table(str(copy)).explain(want["sql"], truth=True).summary()["matching_rows"] == want["rows_truth"]
