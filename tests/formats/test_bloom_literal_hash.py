"""A literal's bloom-filter hash is computed once per (type, value) and is always ``hash_value``'s."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.formats import bloom
from paimon_lens.types import parse_type


@given(st.one_of(st.integers(-(2**63), 2**63 - 1).map(lambda v: ("BIGINT", v)),
                 st.integers(-(2**31), 2**31 - 1).map(lambda v: ("INT", v)),
                 st.text().map(lambda v: ("STRING", v)),
                 st.binary().map(lambda v: ("BYTES", v)),
                 st.dates().map(lambda v: ("DATE", v))))
def test_literal_hash_is_hash_value(case: tuple[str, object]) -> None:
    t = parse_type(case[0])
    assert bloom.literal_hash(t, case[1]) == bloom.hash_value(t, case[1])
    assert bloom.literal_hash(t, case[1]) == bloom.hash_value(t, case[1])  # from the memo


def test_equal_values_of_other_types_are_not_confused() -> None:
    t = parse_type("BIGINT")
    assert bloom.literal_hash(t, 1) == bloom.hash_value(t, 1)
    assert bloom.literal_hash(t, True) == bloom.hash_value(t, True)
    d = parse_type("DOUBLE")
    assert bloom.literal_hash(d, 0.0) == bloom.hash_value(d, 0.0)
    assert bloom.literal_hash(d, -0.0) == bloom.hash_value(d, -0.0) != bloom.hash_value(d, 0.0)
    assert bloom.literal_hash(d, Decimal("1.0")) == bloom.hash_value(d, Decimal("1.0"))


def test_unhashable_literals_and_bounded_memo() -> None:
    t = parse_type("BYTES")
    assert bloom.literal_hash(t, bytearray(b"ab")) == bloom.hash_value(t, b"ab")
    ts = parse_type("TIMESTAMP(3)")
    assert bloom.literal_hash(ts, dt.datetime(2020, 1, 1)) == bloom.hash_value(ts, dt.datetime(2020, 1, 1))
    big = parse_type("BIGINT")
    for i in range(bloom._LITERAL_HASHES_MAX + 10):
        bloom.literal_hash(big, i)
    assert len(bloom._LITERAL_HASHES) <= bloom._LITERAL_HASHES_MAX
