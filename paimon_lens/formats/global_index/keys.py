"""Keys of the btree and bitmap global indexes (Paimon's ``globalindex.KeySerializer``).

A key is the column value in a type-specific form; the SST entry or dictionary entry around it
carries its length, so nothing here has a length prefix. Integers are little-endian (the writing
JVM's native order, little-endian on every platform Paimon supports)::

    TINYINT                 i8
    SMALLINT                i16 LE
    INT, DATE, TIME         i32 LE        (DATE: days since 1970-01-01; TIME: millis of the day)
    BIGINT                  i64 LE
    BOOLEAN                 u8            (1 = true, anything else false)
    FLOAT                   i32 LE        Float.floatToIntBits (canonical NaN)
    DOUBLE                  i64 LE        Double.doubleToLongBits (canonical NaN)
    DECIMAL(p <= 18)        i64 LE        unscaled value
    DECIMAL(p > 18)         BigInteger.toByteArray(): big-endian two's complement, minimal length
    CHAR/VARCHAR/STRING     UTF-8 bytes
    TIMESTAMP(_LTZ)(p <= 3) i64 LE        epoch millis
    TIMESTAMP(_LTZ)(p > 3)  i64 LE millis, then an unsigned LEB128 varint nano-of-millisecond

Other types (BINARY, nested) cannot be indexed. Keys are ordered by their decoded values
(``KeySerializer.createComparator``), not by their bytes: integers numerically, floats as Java's
``Float.compare``/``Double.compare`` (``-0.0 < 0.0``, NaN last), strings by UTF-8 bytes (Python's
code-point order), timestamps by (millis, nanos). :func:`sort_key` gives a value that orders so.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ...errors import CorruptFileError
from ...types import DataType, Timestamp
from ..float_keys import f32_key, f64_key

_I16 = struct.Struct("<h")
_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")

#: type roots a btree or bitmap global index can key on
KEYABLE = frozenset({"TINYINT", "SMALLINT", "INT", "DATE", "TIME", "BIGINT", "BOOLEAN", "FLOAT", "DOUBLE",
                     "DECIMAL", "CHAR", "VARCHAR", "TIMESTAMP", "TIMESTAMP_LTZ"})

Decode = Callable[[bytes], Any]


def _fixed(st: struct.Struct, what: str) -> Callable[[bytes, str | None], Any]:
    def decode(raw: bytes, path: str | None) -> Any:
        if len(raw) != st.size:
            raise CorruptFileError(path, None, "key", f"{st.size} bytes ({what})", f"{len(raw)} bytes")
        return st.unpack(raw)[0]
    return decode


def _varint(raw: bytes, pos: int, path: str | None, field: str) -> tuple[int, int]:
    """An unsigned LEB128 varint of at most 10 bytes at ``pos``, and the position after it."""
    value = shift = 0
    for i in range(pos, min(pos + 10, len(raw))):
        b = raw[i]
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i + 1
        shift += 7
    raise CorruptFileError(path, None, field, "a complete varint", raw[pos:pos + 10].hex() or "end of bytes")


class KeyCodec:
    """Decoding and ordering of one column type's keys."""

    def __init__(self, dtype: DataType) -> None:
        root = dtype.root
        if root not in KEYABLE:
            raise ValueError(f"a global index cannot key on {dtype}")
        self.dtype = dtype
        self._decode = self._decoder(dtype)
        if root == "FLOAT":
            self.sort_key: Callable[[Any], Any] = lambda v: f32_key(struct.unpack("<i", struct.pack("<f", v))[0])
        elif root == "DOUBLE":
            self.sort_key = lambda v: f64_key(struct.unpack("<q", struct.pack("<d", v))[0])
        elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            self.sort_key = lambda v: (v.millisecond, v.nano_of_millisecond)
        else:
            self.sort_key = _identity

    def decode(self, raw: bytes, path: str | None = None) -> Any:
        """The internal value of a key (see :mod:`paimon_lens.types`)."""
        return self._decode(raw, path)

    @staticmethod
    def _decoder(dtype: DataType) -> Callable[[bytes, str | None], Any]:
        root = dtype.root
        if root == "TINYINT":
            return _fixed(struct.Struct("<b"), "TINYINT")
        if root == "SMALLINT":
            return _fixed(_I16, "SMALLINT")
        if root in ("INT", "DATE", "TIME"):
            return _fixed(_I32, root)
        if root == "BIGINT":
            return _fixed(_I64, root)
        if root == "BOOLEAN":
            one = _fixed(struct.Struct("<B"), "BOOLEAN")
            return lambda raw, path: one(raw, path) == 1
        if root == "FLOAT":
            return _fixed(_F32, "FLOAT")
        if root == "DOUBLE":
            return _fixed(_F64, "DOUBLE")
        if root == "DECIMAL":
            scale = dtype.scale or 0
            if (dtype.precision or 10) <= 18:
                compact = _fixed(_I64, "compact DECIMAL")
                return lambda raw, path: Decimal(compact(raw, path)).scaleb(-scale)
            return lambda raw, path: _big_decimal(raw, scale, path)
        if root in ("CHAR", "VARCHAR"):
            return _utf8
        if (dtype.precision if dtype.precision is not None else 6) <= 3:
            millis = _fixed(_I64, f"{dtype} millis")
            return lambda raw, path: Timestamp(millis(raw, path), 0)
        return _timestamp


def _identity(v: Any) -> Any:
    return v


def _utf8(raw: bytes, path: str | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptFileError(path, None, "key", "UTF-8 text", raw[:32].hex(), detail=str(e)) from None


def _big_decimal(raw: bytes, scale: int, path: str | None) -> Decimal:
    if not raw:
        raise CorruptFileError(path, None, "key", "BigInteger bytes", "0 bytes")
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale)


def _timestamp(raw: bytes, path: str | None) -> Timestamp:
    if len(raw) < 9:
        raise CorruptFileError(path, None, "key", "9-11 bytes (millis, nano-of-milli varint)", f"{len(raw)} bytes")
    millis = _I64.unpack_from(raw)[0]
    nanos, end = _varint(raw, 8, path, "key.nano_of_millisecond")
    if end != len(raw) or nanos > 999_999:
        raise CorruptFileError(path, None, "key.nano_of_millisecond", "0..999999 ending the key",
                               f"{nanos} ({len(raw) - end} bytes after)")
    return Timestamp(millis, nanos)
