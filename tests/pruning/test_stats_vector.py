"""compile_stats_mask answers, file by file, what compile_stats_test answers (random and edge cases)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paimon_lens.pruning.stats_vector as sv
from paimon_lens.metadata.stats import ColumnStats
from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate, and_, or_
from paimon_lens.predicate.parser import parse_where
from paimon_lens.pruning.compare import signed_binary_order
from paimon_lens.pruning.stats import compile_stats_test
from paimon_lens.pruning.stats_vector import StatsColumns, compile_stats_mask
from paimon_lens.types import DataField, parse_type

FIELDS = [DataField(i, name, parse_type(t)) for i, (name, t) in enumerate([
    ("i", "INT"), ("b", "BIGINT"), ("s", "STRING"), ("f", "DOUBLE"), ("dt", "DATE"), ("dec", "DECIMAL(20, 2)")])]
FUNCTIONS = ["Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "IsNull", "IsNotNull",
             "In", "NotIn", "StartsWith", "EndsWith", "Contains", "Like", "Between", "NotBetween"]
ARITY = {"IsNull": 0, "IsNotNull": 0, "Between": 2, "NotBetween": 2}

File = tuple[int, Sequence[ColumnStats]]


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the scalar leaf tests the mask runs."""
    calls: list[int] = []
    real = sv.stats_tester

    def tester(leaf: LeafPredicate) -> Callable[[int, ColumnStats], bool]:
        test = real(leaf)

        def counted(rc: int, col: ColumnStats) -> bool:
            calls.append(1)
            return test(rc, col)
        return counted
    monkeypatch.setattr(sv, "stats_tester", tester)
    return calls


# ---- strategies -------------------------------------------------------------------------------

HUGE = st.sampled_from([2**31, 2**63 - 1, 2**63, 2**64 + 3, -(2**63) - 1, -(2**100), 2**100])
INTS = st.one_of(st.integers(-4, 4), st.integers(-4, 4), st.integers(), HUGE)
# values of another Python type than the column's: the scalar test compares them through java_key
ODD_INTS = st.sampled_from([True, False, 1.0, -0.0, Decimal(2), Decimal("-1.5")])
STRS = st.one_of(st.sampled_from(["", "a", "ab", "abc", "b", "é", "éa", "\U0001f600", "\ud800", "\uffff", "z"]),
                 st.text(max_size=3))
FLOATS = st.one_of(st.sampled_from([-0.0, 0.0, math.nan, math.inf, -math.inf, 1.5, -1.5]),
                   st.floats(allow_nan=True), st.integers(-2, 2))
DECIMALS = st.one_of(st.integers(-300, 300).map(lambda i: Decimal(i).scaleb(-2)),
                     st.integers(-(10**18), 10**18).map(lambda i: Decimal(i).scaleb(-2)),
                     st.sampled_from([Decimal("0.00"), Decimal(0), Decimal("1.5"), Decimal("1.50"), Decimal("NaN")]),
                     st.integers(-3, 3))


def values(root: str) -> st.SearchStrategy[Any]:
    if root in ("INT", "BIGINT", "DATE"):
        return st.one_of(INTS, INTS, INTS, ODD_INTS)
    if root == "VARCHAR":  # STRING
        return STRS
    if root == "DOUBLE":
        return FLOATS
    return DECIMALS


def maybe_none(strategy: st.SearchStrategy[Any], one_in: int = 6) -> st.SearchStrategy[Any]:
    return st.integers(1, one_in).flatmap(lambda k: st.none() if k == 1 else strategy)


@st.composite
def leaf_predicates(draw: st.DrawFn) -> LeafPredicate:
    index = draw(st.integers(0, len(FIELDS) - 1))
    f = FIELDS[index]
    fn = draw(st.sampled_from(FUNCTIONS))
    if fn == "StartsWith" and not f.type.is_string:
        fn = "Equal"  # the scalar test encodes min/max as bytes: bytes(int) would allocate
    n = draw(st.integers(0, 4)) if fn in ("In", "NotIn") else ARITY.get(fn, 1)
    if n and fn not in ("In", "NotIn") and draw(st.integers(0, 19)) == 0:
        n -= 1  # a literal missing: the leaf keeps every file
    lits = tuple(draw(maybe_none(values(f.type.root), 8)) for _ in range(n))
    if draw(st.integers(0, 9)) == 0:  # a stale index: looked up by name
        index = draw(st.integers(-1, len(FIELDS)))
    return LeafPredicate(fn, f.name, index, f.type, lits)


predicates: st.SearchStrategy[Predicate] = st.recursive(
    leaf_predicates(),
    lambda kids: st.builds(lambda fn, cs: CompoundPredicate(fn, tuple(cs)),
                           st.sampled_from(["And", "Or"]), st.lists(kids, min_size=1, max_size=3)),
    max_leaves=6)


@st.composite
def files(draw: st.DrawFn) -> File:
    rc = draw(st.sampled_from([0, 0, 1, 3, 5, 2**40]))
    stats = [ColumnStats(draw(maybe_none(values(f.type.root))), draw(maybe_none(values(f.type.root))),
                         draw(st.sampled_from([None, 0, 1, rc, rc, max(rc - 1, 0)])))
             for f in FIELDS]
    cut = draw(st.sampled_from([len(FIELDS)] * 6 + list(range(len(FIELDS)))))
    return rc, stats[:cut]


batches = st.lists(files(), max_size=12)

# ---- the check --------------------------------------------------------------------------------


def columns(batch: Sequence[File]) -> StatsColumns:
    return StatsColumns([s for _, s in batch], [rc for rc, _ in batch])


def check(pred: Predicate, batch: Sequence[File], fields: Sequence[DataField] = FIELDS,
          cols: StatsColumns | None = None) -> list[bool]:
    """Assert the mask equals compile_stats_test file by file (or both raise); return the mask."""
    scalar = compile_stats_test(pred, fields)
    cols = columns(batch) if cols is None else cols
    try:
        want = [scalar(rc, stats, {}) for rc, stats in batch]
    except Exception as e:  # e.g. a NaN Decimal compared: the mask raises the same way
        with pytest.raises(type(e)):
            compile_stats_mask(pred, fields)(cols)
        return []
    got = compile_stats_mask(pred, fields)(cols)
    assert got.dtype == np.bool_ and got.shape == (len(batch),)
    assert got.tolist() == want, (str(pred), batch)
    return want


RANDOM = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@RANDOM
@given(predicates, batches)
def test_random_predicates_match_scalar(pred: Predicate, batch: list[File]) -> None:
    check(pred, batch)


@RANDOM
@given(predicates, predicates, batches)
def test_shared_leaves_and_columns_match_scalar(p: Predicate, q: Predicate, batch: list[File]) -> None:
    """The planner asks the predicate and its data filter (sharing leaves) of the same StatsColumns."""
    cols = columns(batch)
    for pred in (and_(p, q), p, or_(q, and_(p, q)), q, and_(or_(p, q), p)):
        if not check(pred, batch, cols=cols) and batch:
            return  # it raised: leave the rest


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(maybe_none(INTS), maybe_none(INTS), st.sampled_from([None, 0, 2, 4]),
                          st.sampled_from([0, 4])), max_size=20),
       st.lists(INTS, min_size=1, max_size=6),
       st.sampled_from([*FUNCTIONS[:6], "In", "NotIn", "Between", "NotBetween"]))
def test_int_fast_path(rows: list[tuple[Any, Any, Any, int]], lits: list[int], fn: str) -> None:
    """Pure int stats (huge ones too) are computed without the scalar test and agree with it."""
    f = DataField(0, "b", parse_type("BIGINT"))
    n = len(lits) if fn in ("In", "NotIn") else ARITY.get(fn, 1)
    leaf = LeafPredicate(fn, "b", 0, f.type, tuple((lits * 2)[:n]))
    with pytest.MonkeyPatch.context() as mp:
        calls = counting(mp)
        check(leaf, [(rc, [ColumnStats(mn, mx, nc)]) for mn, mx, nc, rc in rows], [f])
    assert calls == []


# ---- signed binary order ----------------------------------------------------------------------

BYTES = st.one_of(st.binary(max_size=3), st.sampled_from([b"", b"\x00", b"\x7f", b"\x80", b"\xff", b"\x80\x00"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(maybe_none(BYTES), maybe_none(BYTES), st.sampled_from([None, 0, 1])), max_size=10),
       st.sampled_from(["Equal", "LessThan", "GreaterOrEqual", "NotEqual", "In", "NotIn", "Between"]),
       st.lists(BYTES, min_size=2, max_size=3), st.booleans())
def test_binary_under_signed_order(rows: list[tuple[Any, Any, Any]], fn: str, lits: list[bytes],
                                   signed: bool) -> None:
    f = DataField(0, "v", parse_type("VARBINARY(8)"))
    n = len(lits) if fn in ("In", "NotIn") else ARITY.get(fn, 1)
    leaf = LeafPredicate(fn, "v", 0, f.type, tuple(lits[:n]))
    with signed_binary_order(signed):
        check(leaf, [(2, [ColumnStats(mn, mx, nc)]) for mn, mx, nc in rows], [f])


def test_signed_order_changes_the_answer() -> None:
    f = DataField(0, "v", parse_type("BYTES"))
    batch: list[File] = [(1, [ColumnStats(b"\x10", b"\x20", 0)]), (1, [ColumnStats(b"\x90", b"\xa0", 0)])]
    leaf = LeafPredicate("LessThan", "v", 0, f.type, (b"\x30",))
    assert check(leaf, batch, [f]) == [True, False]
    with signed_binary_order(True):  # 0x90 is negative: below 0x30
        assert check(leaf, batch, [f]) == [True, True]


# ---- edge cases -------------------------------------------------------------------------------

INT = DataField(0, "i", parse_type("INT"))
STR = DataField(1, "s", parse_type("STRING"))
TWO = [INT, STR]


def where(sql: str, fields: Sequence[DataField] = TWO) -> Predicate:
    return parse_where(sql, fields)


def ints(*rows: tuple[int, Any, Any, Any]) -> list[File]:
    return [(rc, [ColumnStats(mn, mx, nc)]) for rc, mn, mx, nc in rows]


EDGES = ints(
    (10, 1, 5, 0),        # known
    (10, None, 5, 0),     # unknown min
    (10, 1, None, None),  # unknown max and null count
    (10, 1, 5, None),     # unknown null count
    (10, None, None, 10),  # all null, no bounds
    (10, 3, 3, 10),       # all null with bounds
    (0, None, None, 0),   # 0 rows
    (0, 3, 3, 0),
    (10, 3, 3, 4),        # min = max
)


@pytest.mark.parametrize("sql", [
    "i = 3", "i <> 3", "i < 3", "i <= 3", "i > 3", "i >= 3", "i BETWEEN 2 AND 4", "i BETWEEN 4 AND 2",
    "i IN (3)", "i IN (0, 9)", "i IN (1, 5, 9)", "i IN (3, NULL)", "i IN (NULL)", "i NOT IN (3)", "i NOT IN (3, 3)",
    "i NOT IN (3, 4)", "i NOT IN (3, NULL)", "i NOT IN (NULL)", "i IS NULL", "i IS NOT NULL", "i = NULL",
    "i <> NULL", "i < NULL", "i = 3 AND i IS NOT NULL", "i = 9 OR i IS NULL", "(i = 3 OR i = 9) AND i <> 3",
])
def test_edge_stats(sql: str) -> None:
    check(where(sql), EDGES, TWO)


@pytest.mark.parametrize("leaf", [
    LeafPredicate("NotBetween", "i", 0, INT.type, (2, 4)), LeafPredicate("NotBetween", "i", 0, INT.type, (0, 9)),
    LeafPredicate("NotBetween", "i", 0, INT.type, (3, None)), LeafPredicate("Between", "i", 0, INT.type, (None, 3)),
    LeafPredicate("Between", "i", 0, INT.type, (3,)), LeafPredicate("Equal", "i", 0, INT.type, ()),
    LeafPredicate("Equal", "i", 0, INT.type, (3, None)), LeafPredicate("NotIn", "i", 0, INT.type, ()),
    LeafPredicate("In", "i", 0, INT.type, ()), LeafPredicate("Equal", "i", 0, INT.type, (Decimal(3),)),
    LeafPredicate("Equal", "i", 0, INT.type, (True,)), LeafPredicate("LessThan", "i", 0, INT.type, (3.5,)),
])
def test_edge_leaves(leaf: LeafPredicate) -> None:
    check(leaf, EDGES, TWO)


def test_known_answers() -> None:
    # a 0-row file with null count 0 counts as all null
    assert check(where("i = 3"), EDGES) == [True, True, True, True, False, False, False, False, True]
    assert check(where("i IS NULL"), EDGES) == [False, True, True, True, True, True, False, False, True]
    assert check(where("i IS NOT NULL"), EDGES) == [True, True, True, True, False, False, False, False, True]
    assert check(where("i NOT IN (3)"), EDGES) == [True, True, True, True, False, False, False, False, False]
    assert check(where("i = NULL"), EDGES) == [False, True, True, True, False, False, False, False, False]


@pytest.mark.parametrize("sql", ["s LIKE 'ab%'", "s LIKE '%b'", "s LIKE '%b%'", "s LIKE 'a_c'", "s = 'é'",
                                 "s > 'ab'", "s IN ('a', 'é', '\U0001f600')", "s NOT IN ('b')", None])
def test_string_functions(sql: str | None) -> None:
    rows = [("", "a"), ("a", "abz"), ("ab", "ab"), ("ac", "b"), ("é", "\U0001f600"), (None, "b"), ("b", "b"),
            ("x", "y")]
    batch: list[File] = [(4, [ColumnStats(0, 1, 0), ColumnStats(mn, mx, nc)]) for mn, mx in rows for nc in (None, 0, 4)]
    check(where(sql) if sql else LeafPredicate("Like", "s", 1, STR.type, (None,)), batch)


def test_short_stats_and_slots() -> None:
    """A column past a file's stats is unknown; a stale index or a repeated name follows _column_slots."""
    fields = [DataField(0, "a", INT.type), DataField(1, "b", INT.type), DataField(2, "a", INT.type)]
    full = [ColumnStats(1, 1, 0), ColumnStats(5, 5, 0), ColumnStats(9, 9, 0)]
    batch: list[File] = [(3, full), (3, full[:2]), (3, full[:1]), (3, []), (3, full[:2])]
    for index in (0, 2, 1, -1, 7):
        for lit in (1, 5, 9):
            for fn in ("Equal", "IsNull"):
                check(LeafPredicate(fn, "a", index, INT.type, (lit,)), batch, fields)
    assert check(LeafPredicate("Equal", "a", 2, INT.type, (9,)), batch, fields) == [True, False, False, True, False]
    assert check(LeafPredicate("Equal", "c", 0, INT.type, (9,)), batch, fields) == [True] * 5
    assert check(where("i = 3"), []) == []


def test_float_nan_and_negative_zero() -> None:
    f = DataField(0, "f", parse_type("DOUBLE"))
    bounds = [-0.0, 0.0, math.nan, math.inf, -1.0, 2]
    batch: list[File] = [(2, [ColumnStats(a, b, 0)]) for a in bounds for b in bounds]
    for lit in (0.0, -0.0, math.nan, math.inf, 1):
        for fn in ("Equal", "NotEqual", "LessThan", "GreaterOrEqual", "In", "NotIn"):
            check(LeafPredicate(fn, "f", 0, f.type, (lit,)), batch, [f])


def test_huge_ints_and_decimals() -> None:
    dec = DataField(0, "d", parse_type("DECIMAL(20, 2)"))
    batch: list[File] = [(5, [ColumnStats(Decimal(a), Decimal(b), 0)]) for a, b in [
        ("-1.50", "2.00"), ("1E+17", "99999999999999999.99"), ("0", "0.00"), ("3.00", "3")]]
    for lit in (Decimal(0), Decimal("3.0"), Decimal("1E+17"), 3, Decimal("NaN")):
        for fn in ("Equal", "NotEqual", "NotIn", "GreaterThan"):
            check(LeafPredicate(fn, "d", 0, dec.type, (lit,)), batch, [dec])
    big = DataField(0, "b", parse_type("BIGINT"))
    batch = ints((1, 2**63, 2**64, 0), (1, -(2**70), -(2**63), 0), (1, 2**63 - 1, 2**63 - 1, 0))
    assert check(LeafPredicate("Equal", "b", 0, big.type, (2**63,)), batch, [big]) == [True, False, False]
    assert check(LeafPredicate("In", "b", 0, big.type, (-(2**64), 2**63 - 1)), batch, [big]) == [False, True, True]


# ---- the fast path and the short-circuit ------------------------------------------------------


def test_common_leaves_never_run_the_scalar_test(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    fields = [DataField(0, "i", parse_type("BIGINT")), STR, DataField(2, "d", parse_type("DECIMAL(20, 2)"))]
    batch: list[File] = [(5, [ColumnStats(k, k + 2**64, k % 3), ColumnStats(f"k{k}", None if k % 4 else "z", 1),
                              ColumnStats(Decimal(k).scaleb(-2), Decimal(k), None)]) for k in range(50)]
    for sql in ["i = 7", "i <> 7", "i BETWEEN 3 AND 9", "i IN (1, 2, 9223372036854775807)", "i NOT IN (4, 5)",
                "s < 'k3'", "s IN ('k1', 'k7')", "s IS NULL", "s LIKE '%a'", "d >= 0.25", "d IN (0.01, 1)",
                "i = 3 AND (s > 'k2' OR d < 0.1) OR i IS NOT NULL"]:
        check(where(sql, fields), batch, fields)
    assert calls == []


def test_fallback_runs_only_where_and_or_need_it(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    fields = [INT, DataField(1, "f", parse_type("DOUBLE"))]
    batch: list[File] = [(5, [ColumnStats(k, k, 0), ColumnStats(float(k), float(k), 0)]) for k in range(10)]
    assert sum(check(where("i >= 7 AND f > 1", fields), batch, fields)) == 3
    assert len(calls) == 3  # f > 1 only on the 3 files i >= 7 keeps
    calls.clear()
    check(where("i < 2 OR f > 8", fields), batch, fields)
    assert len(calls) == 8


def test_leaf_masks_are_kept_and_answers_are_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    fields = [INT, DataField(1, "f", parse_type("DOUBLE"))]
    batch: list[File] = [(5, [ColumnStats(k, k, 0), ColumnStats(float(k), float(k), 0)]) for k in range(10)]
    f_leaf = where("f > 1", fields)
    full, data = and_(where("i >= 7", fields), f_leaf), f_leaf
    cols = columns(batch)
    first = compile_stats_mask(full, fields)(cols)
    assert len(calls) == 3
    check(data, batch, fields, cols)  # the rest of f > 1: 7 more files
    assert len(calls) == 10
    first[:] = False
    assert compile_stats_mask(full, fields)(cols).sum() == 3 and len(calls) == 10
