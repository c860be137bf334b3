"""Unit tests of Paimon's min/max/null-count test (``Predicate.test``) and its explanations."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from paimon_lens.metadata.stats import ColumnStats
from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate
from paimon_lens.pruning.compare import java_compare, like_regex, row_test
from paimon_lens.pruning.stats import fmt_value, stats_reason, stats_test
from paimon_lens.types import DataField, Timestamp, parse_type

INT = parse_type("INT")
DOUBLE = parse_type("DOUBLE")
STRING = parse_type("STRING")
BYTES = parse_type("BYTES")
TS6 = parse_type("TIMESTAMP(6)")
DEC = parse_type("DECIMAL(10, 2)")


def leaf(fn: str, *lits: Any, field: str = "x", dtype: Any = INT) -> LeafPredicate:
    return LeafPredicate(fn, field, 0, dtype, tuple(lits))


def keep(pred: Predicate, row_count: int, mn: Any, mx: Any, nc: int | None, dtype: Any = INT) -> bool:
    name = pred.field if isinstance(pred, LeafPredicate) else "x"
    return stats_test(pred, row_count, [ColumnStats(mn, mx, nc)], [DataField(0, name, dtype)])


# ---- the LeafPredicate guard: unknown stats keep, all-null files go to the function -------------

@pytest.mark.parametrize("fn", ["Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual"])
def test_binary_unknown_and_all_null(fn: str) -> None:
    p = leaf(fn, 5)
    assert keep(p, 10, None, None, None)          # nothing known
    assert keep(p, 10, None, 9, 3)                # min unknown, not all null
    assert keep(p, 10, 1, None, None)             # max unknown
    assert not keep(p, 10, None, None, 10)        # every row null: no comparison can match
    assert not keep(p, 10, 1, 9, 10)              # all null wins over (inconsistent) min/max
    assert not keep(p, 0, None, None, 0)          # an empty file


def test_equal() -> None:
    assert keep(leaf("Equal", 5), 10, 1, 9, 0)
    assert keep(leaf("Equal", 1), 10, 1, 9, 0)
    assert keep(leaf("Equal", 9), 10, 1, 9, 0)
    assert not keep(leaf("Equal", 0), 10, 1, 9, 0)
    assert not keep(leaf("Equal", 10), 10, 1, 9, None)


def test_not_equal() -> None:
    assert not keep(leaf("NotEqual", 5), 10, 5, 5, 0)
    assert not keep(leaf("NotEqual", 5), 10, 5, 5, 4)   # the nulls do not match <> either
    assert keep(leaf("NotEqual", 5), 10, 5, 6, 0)
    assert keep(leaf("NotEqual", 4), 10, 5, 5, 0)


def test_ranges() -> None:
    assert keep(leaf("LessThan", 2), 10, 1, 9, 0) and not keep(leaf("LessThan", 1), 10, 1, 9, 0)
    assert keep(leaf("LessOrEqual", 1), 10, 1, 9, 0) and not keep(leaf("LessOrEqual", 0), 10, 1, 9, 0)
    assert keep(leaf("GreaterThan", 8), 10, 1, 9, 0) and not keep(leaf("GreaterThan", 9), 10, 1, 9, 0)
    assert keep(leaf("GreaterOrEqual", 9), 10, 1, 9, 0) and not keep(leaf("GreaterOrEqual", 10), 10, 1, 9, 0)


def test_null_literal() -> None:
    # known null count: a null literal matches nothing; unknown null count: Paimon would throw, we keep
    assert not keep(leaf("Equal", None), 10, 1, 9, 0)
    assert keep(leaf("Equal", None), 10, 1, 9, None)
    assert not keep(leaf("Between", None, 5), 10, 1, 9, 2)


def test_is_null_is_not_null() -> None:
    assert not keep(leaf("IsNull"), 10, 1, 9, 0)
    assert keep(leaf("IsNull"), 10, 1, 9, 1)
    assert keep(leaf("IsNull"), 10, None, None, None)
    assert keep(leaf("IsNull"), 10, None, None, 10)
    assert keep(leaf("IsNotNull"), 10, 1, 9, 9)
    assert not keep(leaf("IsNotNull"), 10, None, None, 10)
    assert keep(leaf("IsNotNull"), 10, None, None, None)
    # a file of 0 rows: both are false
    assert not keep(leaf("IsNull"), 0, None, None, 0)
    assert not keep(leaf("IsNotNull"), 0, None, None, 0)


def test_in() -> None:
    assert keep(leaf("In", 0, 5, 20), 10, 1, 9, 0)
    assert not keep(leaf("In", 0, 10, 20), 10, 1, 9, 0)
    assert not keep(leaf("In", None, 0), 10, 1, 9, 0)     # null literals never match
    assert keep(leaf("In", None, 1), 10, 1, 9, 0)
    assert not keep(leaf("In", 5), 10, None, None, 10)
    assert keep(leaf("In", 50), 10, None, None, 3)        # min/max unknown


def test_not_in() -> None:
    assert not keep(leaf("NotIn", 3, 5), 10, 5, 5, 0)
    assert keep(leaf("NotIn", 3, 4), 10, 5, 5, 0)
    assert keep(leaf("NotIn", 5), 10, 5, 6, 0)
    assert not keep(leaf("NotIn", 3, None), 10, 1, 9, 0)  # a null literal makes NOT IN unknown
    assert not keep(leaf("NotIn", 3), 10, None, None, 10)


def test_between() -> None:
    assert keep(leaf("Between", 9, 20), 10, 1, 9, 0)
    assert keep(leaf("Between", -5, 1), 10, 1, 9, 0)
    assert not keep(leaf("Between", 10, 20), 10, 1, 9, 0)
    assert not keep(leaf("Between", -5, 0), 10, 1, 9, 0)


def s(fn: str, *lits: Any) -> LeafPredicate:
    return leaf(fn, *lits, dtype=STRING)


def test_starts_with_and_truncated_bounds() -> None:
    # truncate(16): min is a prefix, max an incremented upper bound
    mn, mx = "a-very-long-stri", "a-very-long-strj"
    assert keep(s("StartsWith", "a-very-long-string-x"), 10, mn, mx, 0, STRING)
    assert keep(s("Equal", "a-very-long-string-exceeding"), 10, mn, mx, 0, STRING)
    assert not keep(s("StartsWith", "b"), 10, mn, mx, 0, STRING)
    assert keep(s("StartsWith", "Z"), 10, "Yak", "Zürich", 0, STRING)
    assert keep(s("StartsWith", "Z"), 10, "Zebra", "Zzz", 0, STRING)
    assert not keep(s("StartsWith", "Q"), 10, "Yak", "Zürich", 0, STRING)
    assert not keep(s("StartsWith", "Z"), 10, "A", "B", 0, STRING)


@pytest.mark.parametrize("fn", ["EndsWith", "Contains", "Like"])
def test_pattern_functions_cannot_prune(fn: str) -> None:
    assert keep(s(fn, "zzz"), 10, "a", "b", 0, STRING)
    assert not keep(s(fn, "zzz"), 10, None, None, 10, STRING)


def test_strings_compare_as_utf8_bytes() -> None:
    # Java String.compareTo would put U+FF5E after U+1D11E (surrogates); BinaryString uses UTF-8
    assert java_compare("\uff5e", "𝄞", STRING) < 0
    assert keep(s("Equal", "東京"), 10, "Zürich-CH", "東京", 0, STRING)
    assert not keep(s("GreaterThan", "東京"), 10, "Zürich-CH", "東京", 0, STRING)


def test_binary_compares_unsigned() -> None:
    p = leaf("GreaterThan", b"\x7f", dtype=BYTES)
    assert keep(p, 3, b"\x00", b"\x80", 0, BYTES)
    assert not keep(leaf("Equal", b"\x80\x00", dtype=BYTES), 3, b"\x00", b"\x80", 0, BYTES)


def d(fn: str, *lits: Any) -> LeafPredicate:
    return leaf(fn, *lits, dtype=DOUBLE)


def test_double_negative_zero_and_nan() -> None:
    nan = math.nan
    # Double.compareTo: -0.0 < 0.0
    assert not keep(d("Equal", 0.0), 5, -0.0, -0.0, 0, DOUBLE)
    assert keep(d("Equal", -0.0), 5, -0.0, -0.0, 0, DOUBLE)
    assert keep(d("LessThan", 0.0), 5, -0.0, 3.0, 0, DOUBLE)
    assert not keep(d("GreaterThan", -0.0), 5, -1.0, -0.0, 0, DOUBLE)
    # NaN is above +Infinity and equal to itself
    assert keep(d("GreaterThan", math.inf), 5, 1.0, nan, 0, DOUBLE)
    assert keep(d("Equal", nan), 5, 1.0, nan, 0, DOUBLE)
    assert not keep(d("Equal", nan), 5, 1.0, math.inf, 0, DOUBLE)
    assert not keep(d("NotEqual", nan), 5, nan, nan, 0, DOUBLE)
    assert keep(d("LessThan", nan), 5, 1.0, 2.0, 0, DOUBLE)


def test_timestamp_and_decimal() -> None:
    t = Timestamp(1_000, 500_000)
    p = leaf("GreaterThan", Timestamp(1_000, 400_000), dtype=TS6)
    assert keep(p, 3, Timestamp(0, 0), t, 0, TS6)
    assert not keep(leaf("GreaterThan", t, dtype=TS6), 3, Timestamp(0, 0), t, 0, TS6)
    assert keep(leaf("Equal", Decimal("1.50"), dtype=DEC), 3, Decimal("1.5"), Decimal("2.00"), 0, DEC)


def test_compounds() -> None:
    fields = [DataField(0, "a", INT), DataField(1, "b", STRING)]
    stats = [ColumnStats(1, 9, 0), ColumnStats(None, None, 4)]
    a_hit, a_miss = LeafPredicate("Equal", "a", 0, INT, (5,)), LeafPredicate("Equal", "a", 0, INT, (50,))
    b_miss = LeafPredicate("Equal", "b", 1, STRING, ("x",))
    assert not stats_test(CompoundPredicate("And", (a_hit, b_miss)), 4, stats, fields)
    assert stats_test(CompoundPredicate("Or", (a_miss, a_hit)), 4, stats, fields)
    assert not stats_test(CompoundPredicate("Or", (a_miss, b_miss)), 4, stats, fields)


def test_leaf_index_mismatch_falls_back_to_name() -> None:
    fields = [DataField(0, "a", INT), DataField(1, "b", INT)]
    stats = [ColumnStats(1, 9, 0), ColumnStats(100, 200, 0)]
    stale = LeafPredicate("Equal", "b", 0, INT, (150,))
    assert stats_test(stale, 4, stats, fields)


# ---- reasons --------------------------------------------------------------------------------------

def reason(pred: Predicate, row_count: int, mn: Any, mx: Any, nc: int | None, dtype: Any = INT) -> str | None:
    name = pred.field if isinstance(pred, LeafPredicate) else "x"
    return stats_reason(pred, row_count, [ColumnStats(mn, mx, nc)], [DataField(0, name, dtype)])


def test_reasons_examples() -> None:
    assert reason(leaf("GreaterOrEqual", 95, field="score"), 40, 3, 87, 0) == "max(score) = 87 < 95"
    assert reason(leaf("Equal", "DE", field="country", dtype=STRING), 12, None, None, 12, STRING) == \
        "country: all 12 rows null"
    assert reason(leaf("Equal", 1004, field="id"), 30, 5030, 6000, 0) == "min(id) = 5030 > 1004"


def test_reasons_per_function() -> None:
    assert reason(leaf("Equal", 10), 5, 1, 9, 0) == "max(x) = 9 < 10"
    assert reason(leaf("LessThan", 1), 5, 1, 9, 0) == "min(x) = 1 >= 1"
    assert reason(leaf("LessOrEqual", 0), 5, 1, 9, 0) == "min(x) = 1 > 0"
    assert reason(leaf("GreaterThan", 9), 5, 1, 9, 0) == "max(x) = 9 <= 9"
    assert reason(leaf("IsNull"), 5, 1, 9, 0) == "null_count(x) = 0"
    assert reason(leaf("IsNotNull"), 5, None, None, 5) == "x: all 5 rows null"
    assert reason(leaf("NotEqual", 4), 5, 4, 4, 0) == "min(x) = max(x) = 4"
    assert reason(leaf("In", 0, 10), 5, 1, 9, 0) == "no value of IN (0, 10) in [min, max](x) = [1, 9]"
    assert reason(leaf("NotIn", 4, 7), 5, 4, 4, 0) == "min(x) = max(x) = 4, which NOT IN excludes"
    assert reason(leaf("Between", 20, 30), 5, 1, 9, 0) == "[min, max](x) = [1, 9] misses [20, 30]"
    assert reason(s("StartsWith", "Q"), 5, "A", "B", 0, STRING) == \
        "no string in [min, max](x) = ['A', 'B'] starts with 'Q'"
    assert reason(leaf("Equal", 5), 5, 1, 9, 0) is None
    assert reason(leaf("Equal", None), 5, 1, 9, 0) == "Equal(x) with a NULL literal matches no row"


def test_reasons_compound() -> None:
    fields = [DataField(0, "a", INT), DataField(1, "b", STRING)]
    stats = [ColumnStats(1, 9, 0), ColumnStats("k", "m", 0)]
    a_miss = LeafPredicate("GreaterThan", "a", 0, INT, (50,))
    b_miss = LeafPredicate("Equal", "b", 1, STRING, ("z",))
    b_hit = LeafPredicate("Equal", "b", 1, STRING, ("l",))
    assert stats_reason(CompoundPredicate("And", (b_hit, a_miss)), 4, stats, fields) == "max(a) = 9 <= 50"
    assert stats_reason(CompoundPredicate("Or", (a_miss, b_miss)), 4, stats, fields) == \
        "(max(a) = 9 <= 50) and (max(b) = 'm' < 'z')"


def test_fmt_value() -> None:
    assert fmt_value("it's", STRING) == "'it''s'"
    assert fmt_value(b"\x01\xff", BYTES) == "X'01ff'"
    assert fmt_value(Decimal("12.50"), DEC) == "12.50"
    assert fmt_value(-0.0, DOUBLE) == "-0.0"
    assert fmt_value(None, INT) == "NULL"
    assert fmt_value(19000, parse_type("DATE")) == "'2022-01-08'"


# ---- row-level test (partition values) -----------------------------------------------------------

def test_row_test() -> None:
    dt = "dt"
    assert row_test(LeafPredicate("Equal", dt, 0, STRING, ("a",)), {dt: "a"})
    assert not row_test(LeafPredicate("Equal", dt, 0, STRING, ("a",)), {dt: None})
    assert row_test(LeafPredicate("IsNull", dt, 0, STRING, ()), {dt: None})
    assert not row_test(LeafPredicate("NotIn", dt, 0, STRING, ("a", None)), {dt: "b"})
    assert row_test(LeafPredicate("NotIn", dt, 0, STRING, ("a",)), {dt: "b"})
    assert row_test(LeafPredicate("In", dt, 0, STRING, (None, "b")), {dt: "b"})
    assert row_test(LeafPredicate("Like", dt, 0, STRING, ("2024-_3%",)), {dt: "2024-03-01"})
    assert not row_test(LeafPredicate("Like", dt, 0, STRING, ("2024\\_%",)), {dt: "2024-03"})
    assert row_test(LeafPredicate("EndsWith", dt, 0, STRING, ("01",)), {dt: "2024-03-01"})
    assert row_test(LeafPredicate("Between", "n", 0, INT, (1, 3)), {"n": 3})
    assert not row_test(LeafPredicate("Equal", "f", 0, DOUBLE, (0.0,)), {"f": -0.0})
    assert like_regex("a%b_").fullmatch("a\nxbc") is not None
