"""Conversions of internal values (see :mod:`paimon_lens.types`) to and from JSON and Python.

JSON encoding (the one the CLI prints and Paimon-written oracles use):

=======================  =====================================================
type                     JSON
=======================  =====================================================
integers                 number
FLOAT, DOUBLE            shortest decimal that round-trips the float32/float64;
                         ``"-0.0"``, ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` as strings
DECIMAL                  string in plain notation (``"-12345.67"``)
CHAR/VARCHAR/STRING      string
BINARY/VARBINARY         lowercase hex string
BOOLEAN                  true / false
DATE                     ``"YYYY-MM-DD"``
TIME                     ``"HH:MM:SS.fff"``
TIMESTAMP(p)             ``"YYYY-MM-DDTHH:MM:SS.fff"`` (p <= 3), ``.ffffff`` (p <= 6),
                         9 digits above; no zone
TIMESTAMP(p) WITH LTZ    the same in UTC with a trailing ``Z``
=======================  =====================================================
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from decimal import Decimal
from typing import Any

from .types import EPOCH_DATE, DataType, Timestamp, date_from_days

_F32 = struct.Struct("<f")


_FLT_MAX = 3.4028234663852886e38
_FLT_OVERFLOW = 3.4028235677973366e38  # FLT_MAX + half an ulp: rounds to infinity from here


def float32(value: float) -> float:
    """Round a Python float to the nearest float32 (what a Java ``(float)`` cast gives)."""
    if not math.isfinite(value) or abs(value) <= _FLT_MAX:
        return float(_F32.unpack(_F32.pack(value))[0])
    if abs(value) >= _FLT_OVERFLOW:
        return math.copysign(math.inf, value)
    return math.copysign(_FLT_MAX, value)


def shortest_float32(value: float) -> float:
    """The float64 whose ``repr`` is the shortest decimal that reads back as this float32."""
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if float32(candidate) == value:
            return candidate
    return value


def _special_float(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0 and math.copysign(1.0, value) < 0:
        return "-0.0"
    return None


_MILLIS_PER_DAY = 86_400_000


def to_json(value: Any, dtype: DataType) -> Any:
    """Encode one internal value of type ``dtype`` for JSON output."""
    if value is None:
        return None
    r = dtype.root
    if r in ("FLOAT", "DOUBLE"):
        special = _special_float(value)
        if special is not None:
            return special
        return shortest_float32(value) if r == "FLOAT" else float(value)
    if r == "DECIMAL":
        return format(value, "f")
    if dtype.is_binary:
        return bytes(value).hex()
    if r == "DATE":
        try:
            return date_from_days(int(value)).isoformat()
        except OverflowError:
            return int(value)
    if r == "TIME":
        ms = int(value)
        if not 0 <= ms < _MILLIS_PER_DAY:
            return ms  # not a time of day (stats of a column whose type changed): the raw value
        return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"
    if dtype.is_timestamp:
        try:
            text = value.isoformat(dtype.precision if dtype.precision is not None else 6)
        except (OverflowError, ValueError, AttributeError):
            millis = getattr(value, "millisecond", None)  # beyond the calendar: epoch millis
            return millis if millis is not None else repr(value)
        return text + "Z" if r == "TIMESTAMP_LTZ" else text
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


_TS = re.compile(r"(\d{4,})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?Z?$")


def parse_timestamp(text: str) -> Timestamp:
    """Parse ``YYYY-MM-DD[T ]HH:MM[:SS[.fffffffff]][Z]`` into a :class:`Timestamp`."""
    m = _TS.match(text.strip())
    if not m:
        raise ValueError(f"not a timestamp: {text!r}")
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    s = int(m.group(6) or 0)
    frac = (m.group(7) or "").ljust(9, "0")
    days = (_dt.date(y, mo, d) - EPOCH_DATE).days
    millis = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + int(frac[:3])
    return Timestamp(millis, int(frac[3:]))


def parse_date(text: str) -> int:
    """``YYYY-MM-DD`` -> epoch day."""
    return (_dt.date.fromisoformat(text.strip()) - EPOCH_DATE).days


def parse_time(text: str) -> int:
    """``HH:MM[:SS[.fff]]`` -> milliseconds of the day."""
    parts = text.strip().split(":")
    h, m = int(parts[0]), int(parts[1])
    sec = Decimal(parts[2]) if len(parts) > 2 else Decimal(0)
    return (h * 3600 + m * 60) * 1000 + int(sec * 1000)


def from_json(value: Any, dtype: DataType) -> Any:
    """Decode a JSON value (encoding above) into the internal value of ``dtype``."""
    if value is None:
        return None
    r = dtype.root
    if r in ("FLOAT", "DOUBLE"):
        if isinstance(value, str):
            v = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value)
            value = float(value) if v is None else v
        return float32(float(value)) if r == "FLOAT" else float(value)
    if r == "DECIMAL":
        return Decimal(str(value))
    if dtype.is_binary:
        return bytes.fromhex(value) if isinstance(value, str) else bytes(value)
    if r == "DATE":
        return parse_date(value) if isinstance(value, str) else int(value)
    if r == "TIME":
        return parse_time(value) if isinstance(value, str) else int(value)
    if dtype.is_timestamp:
        return parse_timestamp(value) if isinstance(value, str) else Timestamp.from_millis(int(value))
    if r == "BOOLEAN":
        return bool(value)
    if dtype.is_integral:
        return int(value)
    return value


def to_python(value: Any, dtype: DataType) -> Any:
    """Internal value -> the natural Python value for a DataFrame cell.

    DATE becomes ``datetime.date``, TIMESTAMP a naive ``datetime.datetime`` (LTZ: UTC-aware),
    TIME a ``datetime.time``; everything else is unchanged.
    """
    if value is None:
        return None
    r = dtype.root
    if r == "DATE":
        try:
            return date_from_days(int(value))
        except OverflowError:
            return int(value)
    if r == "TIME":
        ms = int(value)
        if not 0 <= ms < _MILLIS_PER_DAY:
            return ms  # not a time of day: the raw value
        return _dt.time(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, (ms % 1000) * 1000)
    if dtype.is_timestamp:
        try:
            d = value.to_datetime()
        except (OverflowError, ValueError, AttributeError):
            return value
        return d.replace(tzinfo=_dt.UTC) if r == "TIMESTAMP_LTZ" else d
    return value


def to_internal(value: Any, dtype: DataType) -> Any:
    """A value as pyarrow/fastavro return it -> the internal value of ``dtype``."""
    if value is None:
        return None
    r = dtype.root
    if r == "DATE":
        return (value - EPOCH_DATE).days if isinstance(value, _dt.date) else int(value)
    if dtype.is_timestamp:
        if hasattr(value, "nanosecond") and hasattr(value, "value"):  # pandas Timestamp: keeps nanoseconds
            ns = int(value.value)  # epoch nanoseconds (UTC for an aware one)
            return Timestamp(ns // 1_000_000, ns % 1_000_000)
        if isinstance(value, _dt.datetime):
            return Timestamp.from_datetime(value)
        return Timestamp.from_millis(int(value))
    if r == "TIME":
        if isinstance(value, _dt.time):
            return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
        return int(value)
    if r == "FLOAT":
        return float32(float(value))
    if r == "DECIMAL":
        return value if isinstance(value, Decimal) else Decimal(str(value))
    if dtype.is_binary:
        return bytes(value)
    return value
