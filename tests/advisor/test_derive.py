"""Derived workloads: they parse, and explained with truth=True they match what they claim."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_lens import open_table
from paimon_lens.advisor import DerivedWorkload, derive_queries, derive_workload, profile_table, to_workload
from paimon_lens.advisor.derive import KINDS, SOURCE
from paimon_lens.predicate.parser import parse_where
from paimon_lens.table.facade import Table
from paimon_lens.workload.model import Workload, as_workload
from paimon_lens.writer import TableWriter

from .test_profile import ROOT, mixed_table

WEIRD = "we`ird \"col\" <script>"


def check_truth(table: Table, workload: DerivedWorkload) -> None:
    """Point-present/IN/range queries match rows, point-absent ones match none."""
    for q in workload.derived:
        matched = table.explain(q.where, truth=True).summary()["matching_rows"]
        if q.kind == "point-absent":
            assert matched == 0, q
        else:
            assert matched >= 1, q


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Table:
    return open_table(str(mixed_table(tmp_path_factory.mktemp("mixed") / "t")))


def test_derived_workload_parses_and_matches(mixed: Table) -> None:
    profile = profile_table(mixed.reader)
    w = derive_workload(mixed.reader, profile)
    assert isinstance(w, Workload) and w.source == SOURCE == "derived from column profiles"
    assert len(w) == len(w.derived) and [q.where for q in w] == [q.where for q in w.derived]
    assert {q.kind for q in w.derived} == set(KINDS) - {"partition-point"}
    assert "part" not in {q.column for q in w.derived}  # partition keys are left out
    assert any("partition key" in n for n in w.notes)
    for q in w.derived:
        parse_where(q.where, mixed.schema.fields)
        assert q.weight == 1.0 and q.description
    check_truth(mixed, w)
    ranges = {q.column for q in w.derived if q.kind.startswith("range")}
    assert ranges == {"id", "val", "amount", "ratio", "price", "d", "ts"}
    assert not any(q.column == "flag" and q.kind == "in" for q in w.derived)
    assert as_workload(w) is w


def test_frame_weights_limits_and_partition_queries(mixed: Table) -> None:
    profile = profile_table(mixed.reader)
    w = derive_workload(mixed.reader, profile, queries_per_column=2, weights={"point-present": 5},
                        with_partition=True, seed=1)
    per_column: dict[str, int] = {}
    for q in w.derived:
        per_column[q.column] = per_column.get(q.column, 0) + 1
        assert q.weight == (5.0 if q.kind == "point-present" else 1.0)
    assert max(per_column.values()) == 2
    frame = w.queries_frame()
    assert list(frame.columns) == ["where", "weight", "column", "kind", "description", "expected_ratio"]
    full = derive_workload(mixed.reader, profile, queries_per_column=10, with_partition=True)
    parts = [q for q in full.derived if q.kind == "partition-point"]
    assert parts and all(q.where.startswith("part = ") for q in parts)
    check_truth(mixed, full)
    with pytest.raises(ValueError, match="unknown query kinds"):
        derive_queries(mixed, profile, weights={"nope": 1})
    again = derive_workload(mixed.reader, profile, queries_per_column=2, weights={"point-present": 5},
                            with_partition=True, seed=1)
    assert again == w
    assert to_workload(w.derived, w.notes) == w


def test_weird_names_and_values_round_trip(tmp_path: Path) -> None:
    schema = pa.schema([(WEIRD, pa.string()), ("n", pa.int64())])
    values = ["O'Brien", "<script>alert(1)</script>", "Zürich", "東京", "a''b", "`x`", "O'Brien", "\\"]
    TableWriter.create(tmp_path / "t", schema).commit(
        pa.table({WEIRD: values * 3, "n": list(range(24))}, schema=schema), rows_per_file=8)
    table = open_table(str(tmp_path / "t"))
    w = derive_workload(table.reader, profile_table(table.reader))
    weird = [q for q in w.derived if q.column == WEIRD]
    assert {q.kind for q in weird} >= {"point-present", "point-absent", "in"}
    check_truth(table, w)


def test_sampled_profile_says_absent_is_unverified(mixed: Table) -> None:
    profile = profile_table(mixed.reader, max_files=2)
    w = derive_workload(mixed.reader, profile)
    absent = [q for q in w.derived if q.kind == "point-absent"]
    assert absent and all("not verified" in q.description for q in absent)
    assert "2 of 6" in w.notes[0]


@pytest.mark.parametrize("name", ["events20", "orders_dv20"])
def test_sample_tables(name: str) -> None:
    table = open_table(str(ROOT / "data" / name))
    w = derive_workload(table.reader, profile_table(table.reader), with_partition=True)
    assert len(w) > 20
    check_truth(table, w)  # on orders_dv20 present values come from rows no deletion vector deletes
    if name == "events20":
        assert "dt" not in {q.column for q in w.derived}
        assert "attrs" not in {q.column for q in w.derived}
        assert any(q.kind == "partition-point" for q in w.derived)
