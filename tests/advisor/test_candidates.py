"""Candidate grids: Paimon's defaults, the types each index supports, sizing from distinct counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.advisor.candidates import (
    CURRENT,
    DEFAULT_BLOOM_ITEMS,
    bloom_items_choices,
    candidate_grid,
    no_index,
    predicate_kinds,
    round_up,
    supports,
    threshold_choices,
)
from paimon_lens.predicate.parser import parse_where
from paimon_lens.types import DataField, DataType
from paimon_lens.writer.file_index import make_index_writer, parse_index_options

TYPES = [DataType("VARCHAR"), DataType("INT"), DataType("BIGINT"), DataType("BOOLEAN"), DataType("TINYINT"),
         DataType("DOUBLE"), DataType("DATE"), DataType("DECIMAL", precision=10, scale=2),
         DataType("DECIMAL", precision=30, scale=2), DataType("TIMESTAMP", precision=3),
         DataType("TIMESTAMP", precision=9), DataType("BINARY", length=8), DataType("VARBINARY")]


def test_grid_defaults_and_sizes() -> None:
    grid = candidate_grid("c", DataType("VARCHAR"), [100, 200, 300, 19_873])
    assert grid[0] == no_index("c") and grid[0].specs == ()
    blooms = [c for c in grid if c.index_type == "bloom-filter"]
    items = sorted({int(c.options["items"]) for c in blooms})
    assert items == [250, 20_000, DEFAULT_BLOOM_ITEMS]  # median 250; p95 (nearest rank) = max -> 20,000
    assert {float(c.options["fpp"]) for c in blooms} == {0.1, 0.05, 0.01, 0.001}
    assert len(blooms) == 4 * len(items)
    assert [c.label for c in grid if c.label.endswith("(default)")] == [
        "bloom-filter fpp=0.1 items=1000000 (default)", "bitmap v2 index-block-size=16kb (default)",
        "range-bitmap chunk-size=16kb (default)"]
    assert {c.options["index-block-size"] for c in grid if c.index_type == "bitmap"} == {"1kb", "4kb", "16kb", "64kb"}
    assert {c.options["chunk-size"] for c in grid if c.index_type == "range-bitmap"} == {"4kb", "16kb", "64kb"}
    assert not any(c.index_type == "bsi" for c in grid)  # bsi is numeric only
    assert len({c.label for c in grid}) == len(grid)
    combo = [c for c in grid if c.also]
    assert len(combo) == 1 and [s.index_type for s in combo[0].specs] == ["bloom-filter", "range-bitmap"]
    assert combo[0].options["items"] == "20000"


def test_bloom_items_choices() -> None:
    assert bloom_items_choices([]) == [DEFAULT_BLOOM_ITEMS]
    assert bloom_items_choices([0, 0]) == [1, DEFAULT_BLOOM_ITEMS]
    # median 50.5 -> 51, p95 (nearest rank) 95, max 100
    assert bloom_items_choices(list(range(1, 101))) == [51, 95, 100, DEFAULT_BLOOM_ITEMS]


@given(st.floats(min_value=0, max_value=1e12, allow_nan=False))
def test_round_up(n: float) -> None:
    r = round_up(n)
    assert r >= n and r >= 1
    assert r <= max(1, n) * 1.1 + 1
    assert len(str(r).rstrip("0")) <= 2 or r < 100


@pytest.mark.parametrize("dtype", TYPES, ids=str)
def test_grid_only_offers_what_paimon_builds(dtype: DataType) -> None:
    grid = candidate_grid("c", dtype, [10, 20])
    offered = {c.index_type for c in grid}
    for t in ("bloom-filter", "bitmap", "range-bitmap", "bsi"):
        assert (t in offered) == supports(t, dtype), t
    for cand in grid:
        for spec in cand.specs:
            make_index_writer(spec, dtype)  # no error: the writers accept every offered spec
    if dtype.root in ("BOOLEAN", "TINYINT", "SMALLINT"):
        assert [c.options for c in grid if c.index_type == "range-bitmap"] == [{}]  # Paimon's 0b default only


def test_supported_types_match_paimon() -> None:
    assert not supports("bitmap", DataType("DECIMAL", precision=10, scale=2))
    assert not supports("range-bitmap", DataType("DECIMAL", precision=30, scale=2))
    assert not supports("range-bitmap", DataType("TIMESTAMP", precision=9))
    assert not supports("bsi", DataType("VARCHAR")) and supports("bsi", DataType("DATE"))
    assert not supports("bitmap", DataType("BINARY", length=8)) and supports("bloom-filter", DataType("VARBINARY"))


def test_workload_kinds_filter() -> None:
    ranged = candidate_grid("c", DataType("INT"), [5], workload_kinds={"range"})
    assert {c.index_type for c in ranged} == {None, "range-bitmap", "bsi"}
    eq = candidate_grid("c", DataType("INT"), [5], workload_kinds={"eq"}, combinations=False)
    assert {c.index_type for c in eq} == {None, "bloom-filter", "bitmap", "range-bitmap", "bsi"}
    null = candidate_grid("c", DataType("VARCHAR"), [5], workload_kinds={"null"}, include_none=False)
    assert {c.index_type for c in null} == {"bitmap", "range-bitmap"}
    assert candidate_grid("c", DataType("VARCHAR"), [5], workload_kinds={"pattern"}) == [no_index("c")]


def test_predicate_kinds() -> None:
    fields = [DataField(0, "a", DataType("INT")), DataField(1, "b", DataType("VARCHAR"))]
    preds = [parse_where("a = 1 OR a BETWEEN 3 AND 5", fields), parse_where("b IS NULL AND b <> 'x'", fields), None]
    assert predicate_kinds(preds) == {"a": frozenset({"eq", "range"}), "b": frozenset({"null", "neq"})}


def test_table_options_round_trip() -> None:
    for cand in candidate_grid("c", DataType("BIGINT"), [1000]):
        opts = cand.table_options()
        assert list(parse_index_options(opts)) == list(cand.specs)
    assert CURRENT.specs == () and CURRENT.table_options() == {}


def test_threshold_choices() -> None:
    assert threshold_choices() == [0, 500, 1024, 4096, 16384, 65536]
    got = threshold_choices([300, 800, 90_000, 0])
    assert 500 in got and 800 in got and 90_000 in got and got == sorted(got)
