"""JSON encoding of internal values and Java float rounding."""

from __future__ import annotations

import math
import struct
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.types import Timestamp, parse_type
from paimon_lens.values import float32, from_json, shortest_float32, to_json

FLT_MAX = struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0]


def test_float32_rounding_at_the_edges() -> None:
    assert float32(3.4028235e38) == FLT_MAX and float32(3.403e38) == math.inf
    assert float32(3.41e38) == math.inf and float32(-1e39) == -math.inf
    assert float32(1e-50) == 0.0
    assert shortest_float32(FLT_MAX) == 3.4028235e38


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_shortest_float32_round_trips(x: float) -> None:
    assert float32(shortest_float32(x)) == x


def test_json_encodings() -> None:
    assert to_json(float32(0.1), parse_type("FLOAT")) == 0.1
    assert to_json(-0.0, parse_type("DOUBLE")) == "-0.0"
    assert to_json(math.nan, parse_type("DOUBLE")) == "NaN"
    assert to_json(Decimal("-12345.67"), parse_type("DECIMAL(10, 2)")) == "-12345.67"
    assert to_json(-1716, parse_type("DATE")) == "1965-04-21"
    assert to_json(b"\x00\xff", parse_type("BYTES")) == "00ff"
    ts = Timestamp.from_micros(1_650_871_200_866_208)
    assert to_json(ts, parse_type("TIMESTAMP(6) WITH LOCAL TIME ZONE")) == "2022-04-25T07:20:00.866208Z"
    assert to_json(ts, parse_type("TIMESTAMP(3)")) == "2022-04-25T07:20:00.866"


@given(st.integers(-62_135_596_800_000, 253_402_300_799_999), st.integers(0, 999_999))
def test_timestamp_json_round_trip(millis: int, nanos: int) -> None:
    t = parse_type("TIMESTAMP(9)")
    ts = Timestamp(millis, nanos)
    assert from_json(to_json(ts, t), t) == ts
