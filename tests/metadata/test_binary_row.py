"""BinaryRow decoding: every Paimon type, against Paimon-written bytes and by round trip."""

from __future__ import annotations

import contextlib
import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.metadata.binary_row import decode_binary_row, encode_binary_row, null_bits_size
from paimon_lens.types import Timestamp, parse_type
from paimon_lens.values import float32

# A partition/key row written by Paimon 0.9 (orders_dyn manifest): arity 1, BIGINT-sized slot.
PAIMON_KEY_ROW = bytes.fromhex("00000001" "0000000000000000" "0400000000000000")
# Value stats of orders_dyn (INT, STRING, STRING, DECIMAL(10,2), TIMESTAMP(3)) as Paimon wrote them.
PAIMON_VALUE_ROW = (b"\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00cust12\x00"
                    b"\x86\t\x00\x00\x000\x00\x00\x00\xee\x04\x00\x00\x00\x00\x00\x00\x80\x18\x862\x8f\x01\x00\x00"
                    b"CANCELLED\x00\x00\x00\x00\x00\x00\x00")


def test_null_bits_size() -> None:
    assert null_bits_size(1) == 8
    assert null_bits_size(56) == 8
    assert null_bits_size(57) == 16


def test_paimon_written_rows() -> None:
    assert decode_binary_row(PAIMON_KEY_ROW, [parse_type("INT")]) == [4]
    types = [parse_type(t) for t in ("INT", "STRING", "STRING", "DECIMAL(10, 2)", "TIMESTAMP(3)")]
    got = decode_binary_row(PAIMON_VALUE_ROW, types)
    assert got[0] == 4
    assert got[1] == "cust12"  # inline string (<= 7 bytes)
    assert got[2] == "CANCELLED"  # string in the variable part
    assert got[3] == Decimal("12.62")
    assert isinstance(got[4], Timestamp)


def test_empty_bytes_mean_no_stats() -> None:
    assert decode_binary_row(b"", [parse_type("INT"), parse_type("STRING")]) == [None, None]


@pytest.mark.parametrize("data,field", [
    (b"\x00\x00", "BinaryRow.arity"),
    (b"\x00\x00\x00\x02" + b"\x00" * 24, "BinaryRow.arity"),
    (b"\x00\x00\x00\x01" + b"\x00" * 8, "BinaryRow.fixed_part"),
])
def test_bad_rows(data: bytes, field: str) -> None:
    with pytest.raises(CorruptFileError) as e:
        decode_binary_row(data, [parse_type("INT")], path="m-0 entry x")
    assert e.value.field == field and "m-0 entry x" in str(e.value)


def test_out_of_range_variable_offset() -> None:
    row = bytearray(encode_binary_row(["a-long-string-value"], [parse_type("STRING")]))
    struct.pack_into("<Q", row, 4 + 8, (4096 << 32) | 19)
    with pytest.raises(CorruptFileError) as e:
        decode_binary_row(bytes(row), [parse_type("STRING")], path="m")
    assert e.value.field == "BinaryRow.0.offset"


TYPES = {
    "BOOLEAN": st.booleans(),
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-(2**15), 2**15 - 1),
    "INT": st.integers(-(2**31), 2**31 - 1),
    "BIGINT": st.integers(-(2**63), 2**63 - 1),
    "FLOAT": st.floats(width=32, allow_nan=False).map(float32),
    "DOUBLE": st.floats(allow_nan=False),
    "DECIMAL(10, 2)": st.integers(-(10**10) + 1, 10**10 - 1).map(lambda u: Decimal(u).scaleb(-2)),
    "DECIMAL(38, 10)": st.integers(-(10**38) + 1, 10**38 - 1).map(lambda u: Decimal(u).scaleb(-10)),
    "STRING": st.text(max_size=40),
    "CHAR(5)": st.text(max_size=5),
    "BYTES": st.binary(max_size=30),
    "DATE": st.integers(-100000, 100000),
    "TIME": st.integers(0, 86_399_999),
    "TIMESTAMP(3)": st.integers(-(2**50), 2**50).map(Timestamp.from_millis),
    "TIMESTAMP(6)": st.builds(Timestamp, st.integers(-(2**50), 2**50), st.integers(0, 999) .map(lambda u: u * 1000)),
    "TIMESTAMP(9)": st.builds(Timestamp, st.integers(-(2**50), 2**50), st.integers(0, 999_999)),
    "TIMESTAMP(6) WITH LOCAL TIME ZONE": st.builds(Timestamp, st.integers(-(2**50), 2**50),
                                                   st.integers(0, 999).map(lambda u: u * 1000)),
}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(TYPES)), min_size=1, max_size=70).flatmap(
    lambda names: st.tuples(st.just(names), st.tuples(*[st.one_of(st.none(), TYPES[n]) for n in names]))))
def test_round_trip(case: tuple[list[str], tuple[object, ...]]) -> None:
    names, values = case
    types = [parse_type(n) for n in names]
    assert decode_binary_row(encode_binary_row(list(values), types), types) == list(values)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80))
def test_random_bytes_never_crash(data: bytes) -> None:
    types = [parse_type(t) for t in ("INT", "STRING", "DECIMAL(38, 10)", "TIMESTAMP(6)")]
    with contextlib.suppress(CorruptFileError):
        decode_binary_row(b"\x00\x00\x00\x04" + data, types)
