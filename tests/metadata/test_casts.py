"""Casting old files' values and stats to the current type (type-changing ALTER TABLE).

Expected values are what Paimon's Java reader returns for the same casts (paimon-cpp's
``append_table_alter_table_with_cast`` read through Java Paimon, and Paimon's ``CastExecutors``
rules): STRING -> BOOLEAN accepts ``true/yes/1`` and ``false/no/0`` in any case, DATE ->
TIMESTAMP is midnight, TIMESTAMP(9) -> STRING keeps every digit, DECIMAL scales round HALF_UP.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.metadata.casts import CastError, cast_function, stats_cast
from paimon_lens.types import Timestamp, parse_type


def cast(value: object, a: str, b: str) -> object:
    fn = cast_function(parse_type(a), parse_type(b))
    return value if fn is None else fn(value)


def ts(text: str) -> Timestamp:
    from paimon_lens.metadata.casts import _parse_timestamp

    return _parse_timestamp(text)


@pytest.mark.parametrize(("value", "a", "b", "want"), [
    ("True", "STRING", "BOOLEAN", True), ("1", "STRING", "BOOLEAN", True), ("nO", "STRING", "BOOLEAN", False),
    ("0", "STRING", "BOOLEAN", False), ("Yes", "STRING", "BOOLEAN", True),
    (4, "DATE", "TIMESTAMP(9)", ts("1970-01-05 00:00:00")), (-44, "DATE", "TIMESTAMP(9)", ts("1969-11-18 00:00:00")),
    (444, "DATE", "TIMESTAMP(9)", ts("1971-03-21 00:00:00")),
    (ts("2024-11-26 06:38:56.001000001"), "TIMESTAMP(9)", "STRING", "2024-11-26 06:38:56.001000001"),
    (Decimal("0.02"), "DECIMAL(5, 2)", "DECIMAL(6, 3)", Decimal("0.020")),
    (Decimal("333.32"), "DECIMAL(5, 2)", "DECIMAL(6, 3)", Decimal("333.320")),
    (Decimal("1.235"), "DECIMAL(6, 3)", "DECIMAL(5, 2)", Decimal("1.24")),  # HALF_UP
    (Decimal("12345.6"), "DECIMAL(6, 1)", "DECIMAL(5, 2)", None),  # too many digits: null
    (Decimal("-7.9"), "DECIMAL(5, 1)", "INT", -7),  # DOWN
    (100, "INT", "STRING", "100"), ("120", "STRING", "INT", 120), (" 7 ", "STRING", "BIGINT", 7),
    (300, "INT", "TINYINT", 44), (-129, "INT", "TINYINT", 127),  # Java narrowing wraps
    (3.9, "DOUBLE", "INT", 3), (-3.9, "DOUBLE", "INT", -3), (1e20, "DOUBLE", "INT", 2**31 - 1),
    (5, "INT", "BIGINT", 5), (1.5, "FLOAT", "DOUBLE", 1.5), (7, "INT", "DOUBLE", 7.0),
    (True, "BOOLEAN", "INT", 1), (0, "INT", "BOOLEAN", False),
    ("abcdef", "STRING", "VARCHAR(3)", "abc"), ("ab", "STRING", "CHAR(4)", "ab  "),
    (ts("2024-01-02 03:04:05.123456789"), "TIMESTAMP(9)", "TIMESTAMP(3)", ts("2024-01-02 03:04:05.123")),
    (ts("2024-01-02 03:04:05.123"), "TIMESTAMP(3)", "TIMESTAMP(9)", ts("2024-01-02 03:04:05.123")),
    (ts("2024-01-02 23:59:59.999"), "TIMESTAMP(3)", "DATE", 19724),
    ("2024-11-26 15:28:31", "STRING", "TIMESTAMP(6)", ts("2024-11-26 15:28:31")),
])
def test_casts(value: object, a: str, b: str, want: object) -> None:
    assert cast(value, a, b) == want


@pytest.mark.parametrize(("value", "a", "b"), [("maybe", "STRING", "BOOLEAN"), ("x1", "STRING", "INT"),
                                               ("2024-13-01", "STRING", "DATE")])
def test_values_that_do_not_cast(value: object, a: str, b: str) -> None:
    with pytest.raises(CastError):
        cast(value, a, b)


@pytest.mark.parametrize(("a", "b", "bounds"), [
    ("INT", "BIGINT", True), ("TINYINT", "INT", True), ("FLOAT", "DOUBLE", True), ("INT", "DOUBLE", True),
    ("DECIMAL(5, 2)", "DECIMAL(6, 3)", True), ("DECIMAL(5, 2)", "DECIMAL(6, 1)", False),
    ("TIMESTAMP(3)", "TIMESTAMP(6)", True), ("TIMESTAMP(6)", "TIMESTAMP(3)", False), ("DATE", "TIMESTAMP(3)", True),
    ("VARCHAR(5)", "STRING", True), ("INT", "STRING", False), ("STRING", "INT", False), ("BIGINT", "INT", False),
    ("STRING", "BOOLEAN", False), ("DOUBLE", "FLOAT", False),
])
def test_stats_bounds_survive_only_order_preserving_widenings(a: str, b: str, bounds: bool) -> None:
    assert stats_cast(parse_type(a), parse_type(b))[0] is bounds


@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=20))
def test_widening_keeps_order(values: list[int]) -> None:
    """min/max of a widened column are still its min/max after the cast."""
    fn = cast_function(parse_type("INT"), parse_type("DOUBLE"))
    assert fn is not None
    assert fn(min(values)) == min(fn(v) for v in values) and fn(max(values)) == max(fn(v) for v in values)
