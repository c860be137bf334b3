"""Casting values of a file written under an older schema to the table's current type.

After a type-changing ``ALTER TABLE`` old files keep their old types. Paimon reads them through
``CastExecutors`` (``CastedRow`` over the old row, for values and for min/max stats); this module
is that cast on paimon-lens's internal values (int, float, Decimal, str, bytes, bool, epoch-day
DATE, :class:`~paimon_lens.types.Timestamp`):

* integer -> integer: Java narrowing (``intValue``/``byteValue``: wraps); integer -> float: widening;
  float -> integer: truncation toward zero, saturating at the int/long range, then narrowing.
* number -> DECIMAL(p, s): rounded HALF_UP to ``s``; null when more than ``p`` digits remain.
  DECIMAL -> integer: rounded DOWN, then narrowing; DECIMAL -> float: nearest.
* BOOLEAN <-> number: 1/0 and ``!= 0``.
* anything -> CHAR/VARCHAR/STRING: its SQL text, cut to the target length (CHAR padded).
* STRING -> number/BOOLEAN/DATE/TIMESTAMP: parsed as Paimon's ``BinaryStringUtils`` parses it
  (``true/t/yes/y/1`` and ``false/f/no/n/0`` for BOOLEAN, case-insensitive); text that does not
  parse raises :class:`CastError` (Paimon's reader fails on it too).
* DATE -> TIMESTAMP: midnight; TIMESTAMP -> DATE: the day; TIMESTAMP(p) -> TIMESTAMP(q): truncated
  to ``q`` digits when narrower. TIMESTAMP <-> TIMESTAMP_LTZ uses the JVM's time zone in Paimon;
  here UTC.

:func:`stats_cast` says whether min/max stats survive the cast as bounds (an order-preserving
widening); for any other change their values are not bounds any more (``'10' < '9'`` as text), so
paimon-lens shows them as unknown, as Paimon's planner does not test them either
(``SimpleStatsEvolutions.filterUnsafeFilter``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from ..errors import PaimonLensError
from ..types import EPOCH, DataType, Timestamp, date_from_days, days_from_date

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_FLOATS = ("FLOAT", "DOUBLE")
_STRINGS = ("CHAR", "VARCHAR")
TRUE_STRINGS = frozenset({"t", "true", "y", "yes", "1"})
"""Text ``BinaryStringUtils.toBoolean`` reads as true (case-insensitive); :data:`FALSE_STRINGS` as false."""
FALSE_STRINGS = frozenset({"f", "false", "n", "no", "0"})

Cast = Callable[[Any], Any]


class CastError(PaimonLensError):
    """A value of an old file cannot be cast to the table's current type."""


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _saturate(v: int, bits: int) -> int:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return lo if v < lo else hi if v > hi else v


def _to_integer(bits: int) -> Cast:
    def cast(v: Any) -> int:
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, float):
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return _wrap(_saturate(-(1 << 63) if v < 0 else (1 << 63), 64 if bits == 64 else 32), bits)
            return _wrap(_saturate(int(v), 64 if bits == 64 else 32), bits)
        if isinstance(v, Decimal):
            return _wrap(int(v.to_integral_value(rounding=ROUND_DOWN)), bits)
        if isinstance(v, str):
            return _wrap(_parse_int(v), bits)
        return _wrap(int(v), bits)
    return cast


def _parse_int(text: str) -> int:
    t = text.strip()
    try:
        if "." in t:  # Paimon truncates the fraction
            t = t.split(".", 1)[0] or "0"
        return int(t)
    except ValueError:
        raise CastError(f"cannot cast {text!r} to an integer") from None


def _to_float(v: Any) -> float:
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            raise CastError(f"cannot cast {v!r} to a floating point number") from None
    return float(v)


def _to_decimal(precision: int, scale: int) -> Cast:
    quantum = Decimal(1).scaleb(-scale)

    def cast(v: Any) -> Decimal | None:
        try:
            d = Decimal(v.strip()) if isinstance(v, str) else Decimal(int(v)) if isinstance(v, bool) else Decimal(v)
            d = d.quantize(quantum, rounding=ROUND_HALF_UP)
        except (InvalidOperation, ValueError):
            raise CastError(f"cannot cast {v!r} to DECIMAL({precision}, {scale})") from None
        return None if len(d.as_tuple().digits) > precision else d  # Java: bd.precision() > precision
    return cast


def _to_boolean(v: Any) -> bool:
    if isinstance(v, str):
        t = v.strip().lower()
        if t in TRUE_STRINGS:
            return True
        if t in FALSE_STRINGS:
            return False
        raise CastError(f"cannot cast {v!r} to BOOLEAN")
    return v != 0


def _timestamp_text(ts: Timestamp, precision: int) -> str:
    text = ts.isoformat(9).replace("T", " ")
    base, frac = text.split(".")
    frac = frac[:precision].rstrip("0")
    return f"{base}.{frac}" if frac else base


def _text(from_type: DataType) -> Cast:
    r = from_type.root
    if r == "BOOLEAN":
        return lambda v: "true" if v else "false"
    if r == "DATE":
        return lambda v: date_from_days(v).isoformat()
    if from_type.is_timestamp:
        p = from_type.precision if from_type.precision is not None else 6
        return lambda v: _timestamp_text(v, p)
    if r == "DECIMAL":
        return lambda v: format(v, "f")
    if from_type.is_binary:
        return lambda v: bytes(v).decode("utf-8", "replace")
    return str


def _to_string(from_type: DataType, to_type: DataType) -> Cast:
    text = _text(from_type)
    n = to_type.length if to_type.root in _STRINGS else None
    pad = to_type.root == "CHAR"

    def cast(v: Any) -> str:
        s = text(v)
        if n is not None and n < 2**31 - 1:
            s = s[:n].ljust(n) if pad else s[:n]
        return s
    return cast


def _parse_timestamp(text: str) -> Timestamp:
    t = text.strip().replace("T", " ")
    date_part, _, time_part = t.partition(" ")
    try:
        d = _dt.date.fromisoformat(date_part)
        hms, _, frac = (time_part or "00:00:00").partition(".")
        parts = [int(x) for x in hms.split(":")] + [0, 0]
        nanos = int((frac + "000000000")[:9]) if frac else 0
    except ValueError:
        raise CastError(f"cannot cast {text!r} to TIMESTAMP") from None
    base = _dt.datetime(d.year, d.month, d.day, parts[0], parts[1], parts[2])
    millis = int((base - EPOCH).total_seconds()) * 1000 + nanos // 1_000_000
    return Timestamp(millis, nanos % 1_000_000)


def _truncate_timestamp(precision: int) -> Cast:
    unit = 10 ** (9 - precision)

    def cast(v: Timestamp) -> Timestamp:
        nanos = (v.millisecond % 1000) * 1_000_000 + v.nano_of_millisecond
        cut = nanos - nanos % unit
        return Timestamp(v.millisecond - v.millisecond % 1000 + cut // 1_000_000, cut % 1_000_000)
    return cast


def cast_function(from_type: DataType, to_type: DataType) -> Cast | None:
    """The cast of values of ``from_type`` to ``to_type`` (None: the same type, nothing to do).

    Raises :class:`CastError` for a pair of types Paimon cannot cast.
    """
    if from_type.copy(True) == to_type.copy(True):
        return None
    a, b = from_type.root, to_type.root
    numeric_source = a in _INT_BITS or a in _FLOATS or a in ("DECIMAL", "BOOLEAN") or from_type.is_string
    if b in _INT_BITS:
        if numeric_source:
            return _to_integer(_INT_BITS[b])
        if from_type.is_timestamp:
            return lambda v: _wrap(v.millisecond // 1000, _INT_BITS[b])
    if b in _FLOATS and numeric_source:
        return _to_float if b == "DOUBLE" else lambda v: float(_struct_float(_to_float(v)))
    if b == "DECIMAL" and numeric_source:
        return _to_decimal(to_type.precision or 10, to_type.scale or 0)
    if b == "BOOLEAN" and (a in _INT_BITS or from_type.is_string):
        return _to_boolean
    if to_type.is_string:
        return _to_string(from_type, to_type)
    if b == "DATE":
        if from_type.is_timestamp:
            return lambda v: v.millisecond // 86_400_000
        if from_type.is_string:
            return lambda v: days_from_date(_parse_date(v))
    if to_type.is_timestamp:
        p = to_type.precision if to_type.precision is not None else 6
        if from_type.is_timestamp:
            q = from_type.precision if from_type.precision is not None else 6
            return None if q <= p else _truncate_timestamp(p)
        if a == "DATE":
            return lambda v: Timestamp(v * 86_400_000, 0)
        if from_type.is_string:
            trunc = _truncate_timestamp(p)
            return lambda v: trunc(_parse_timestamp(v))
    if to_type.is_binary and (from_type.is_string or from_type.is_binary):
        n = to_type.length if to_type.length is not None and to_type.length < 2**31 - 1 else None
        return lambda v: (v.encode("utf-8") if isinstance(v, str) else bytes(v))[:n]
    raise CastError(f"paimon-lens cannot cast {from_type} to {to_type}")


def _parse_date(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        raise CastError(f"cannot cast {text!r} to DATE") from None


def _struct_float(v: float) -> float:
    import struct

    try:
        return float(struct.unpack(">f", struct.pack(">f", v))[0])
    except OverflowError:
        return math.copysign(math.inf, v)


_WIDENING_INT = {("TINYINT", "SMALLINT"), ("TINYINT", "INT"), ("TINYINT", "BIGINT"), ("SMALLINT", "INT"),
                 ("SMALLINT", "BIGINT"), ("INT", "BIGINT")}


def stats_cast(from_type: DataType, to_type: DataType) -> tuple[bool, Cast | None]:
    """``(bounds_kept, cast)``: whether min/max of ``from_type`` stay bounds in ``to_type``, and the cast.

    Bounds are kept by widenings that preserve order: larger integers, integer/FLOAT -> DOUBLE,
    DECIMAL with more integer and fraction digits, a longer VARCHAR/STRING, TIMESTAMP of a higher
    precision, DATE -> TIMESTAMP.
    """
    if from_type.copy(True) == to_type.copy(True):
        return True, None
    a, b = from_type.root, to_type.root
    try:
        cast = cast_function(from_type, to_type)
    except CastError:
        return False, None
    keep = ((a, b) in _WIDENING_INT or (b == "DOUBLE" and (a in _INT_BITS or a == "FLOAT"))
            or (a == b == "DECIMAL" and (to_type.scale or 0) >= (from_type.scale or 0)
                and (to_type.precision or 10) - (to_type.scale or 0)
                >= (from_type.precision or 10) - (from_type.scale or 0))
            or (a in _STRINGS and b == "VARCHAR" and (to_type.length or 0) >= (from_type.length or 0))
            or (from_type.is_timestamp and a == b
                and (to_type.precision or 6) >= (from_type.precision or 6))
            or (a == "DATE" and b == "TIMESTAMP"))
    return keep, cast
