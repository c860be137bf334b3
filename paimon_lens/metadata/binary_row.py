"""Decoding of Paimon's serialized ``BinaryRow`` (partitions, min/max stats, keys).

Layout as stored in manifests (``SerializationUtils.serializeBinaryRow``)::

    arity:i32 BE
    row (little-endian inside):
      fixed part   header       ((arity + 63 + 8) // 64) * 8 bytes
                                byte 0 = row kind; null bit of field i = bit (i + 8)
                   field slots  arity x 8 bytes, slot i at header + 8 * i
      variable part             bytes referenced from slots, offsets from the row start

    slot contents per type
      BOOLEAN/TINYINT  1 byte         SMALLINT  2 bytes        INT/DATE/TIME  4 bytes
      BIGINT           8 bytes        FLOAT     4 bytes IEEE   DOUBLE         8 bytes IEEE
      STRING/BYTES     <= 7 bytes: inline; top bit of byte 7 set, length in bits 56..62
                       longer: offset << 32 | length
      DECIMAL p <= 18  unscaled long  p > 18: offset << 32 | length, big-endian two's complement
      TIMESTAMP p <= 3 epoch millis   p > 3: offset << 32 | nano-of-milli; 8-byte millis at offset
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from ..errors import CorruptFileError
from ..types import DataType, Timestamp

_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")
_I16 = struct.Struct("<h")
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")
_ARITY = struct.Struct(">i")


def null_bits_size(arity: int) -> int:
    """Bytes of the header (row kind + null bits), rounded up to 8-byte words."""
    return ((arity + 63 + 8) // 64) * 8


def _fail(path: str | None, offset: int, field: str, expected: object, found: object,
          detail: str | None = None) -> CorruptFileError:
    return CorruptFileError(path, offset, field, expected, found, detail)


class BinaryRowReader:
    """Random access to the fields of one serialized BinaryRow (validated once, decoded per field).

    An empty ``data`` (Paimon writes it for "no stats") reads as all null.
    """

    __slots__ = ("_header", "_row", "arity", "path")

    def __init__(self, data: bytes, arity: int, path: str | None = None) -> None:
        self.path = path
        self.arity = arity
        self._header = null_bits_size(arity)
        if not data:
            self._row: memoryview | None = None
            return
        if len(data) < 4:
            raise _fail(path, 0, "BinaryRow.arity", "4 bytes", len(data), "truncated")
        found = _ARITY.unpack_from(data, 0)[0]
        if found != arity:
            raise _fail(path, 0, "BinaryRow.arity", arity, found)
        row = memoryview(data)[4:]
        if len(row) < self._header + 8 * arity:
            raise _fail(path, 4, "BinaryRow.fixed_part", self._header + 8 * arity, len(row), "truncated")
        self._row = row

    def is_null(self, i: int) -> bool:
        """Whether field ``i`` is null."""
        row = self._row
        if row is None:
            return True
        bit = i + 8
        return bool(row[bit >> 3] & (1 << (bit & 7)))

    def get(self, i: int, dtype: DataType, name: str | None = None) -> Any:
        """Field ``i`` decoded as ``dtype`` (None when null)."""
        if self.is_null(i):
            return None
        assert self._row is not None
        return _read_field(self._row, self._header + 8 * i, dtype, self.path, f"BinaryRow.{name or i}")

    def get_with(self, i: int, decode: FieldDecoder, field: str) -> Any:
        """Field ``i`` decoded by ``decode`` (from :func:`field_decoder`); ``field`` names it in errors.

        The same value and errors as :meth:`get` with the decoder's type and
        ``field = f"BinaryRow.{name or i}"``.
        """
        row = self._row
        if row is None:
            return None
        bit = i + 8
        if row[bit >> 3] & (1 << (bit & 7)):
            return None
        return decode(row, self._header + 8 * i, self.path, field)


FieldDecoder = Callable[[memoryview, int, "str | None", str], Any]
"""``(row, slot, path, field) -> value``: decodes one non-null field of a BinaryRow."""


def _decode_i32(row: memoryview, slot: int, path: str | None, field: str) -> Any:
    return _I32.unpack_from(row, slot)[0]


def _decode_i64(row: memoryview, slot: int, path: str | None, field: str) -> Any:
    return _I64.unpack_from(row, slot)[0]


def _decode_f64(row: memoryview, slot: int, path: str | None, field: str) -> Any:
    return _F64.unpack_from(row, slot)[0]


def _decode_string(row: memoryview, slot: int, path: str | None, field: str) -> Any:
    raw = _var_bytes(row, slot, path, field)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def field_decoder(dtype: DataType) -> FieldDecoder:
    """A decoder of non-null fields of type ``dtype``, equivalent to :meth:`BinaryRowReader.get`."""
    r = dtype.root
    if r in ("INT", "DATE", "TIME"):
        return _decode_i32
    if r == "BIGINT":
        return _decode_i64
    if r == "DOUBLE":
        return _decode_f64
    if dtype.is_string:
        return _decode_string

    def decode(row: memoryview, slot: int, path: str | None, field: str) -> Any:
        return _read_field(row, slot, dtype, path, field)

    return decode


def decode_binary_row(
    data: bytes,
    types: Sequence[DataType],
    path: str | None = None,
    field_names: Sequence[str] | None = None,
) -> list[Any]:
    """Decode serialized BinaryRow bytes into internal values, one per type.

    An empty ``data`` (Paimon writes it for "no stats") decodes to all None. ``path`` names the
    manifest (and entry) in errors; offsets in errors are offsets inside ``data``.
    """
    reader = BinaryRowReader(data, len(types), path)
    return [reader.get(i, t, field_names[i] if field_names else None) for i, t in enumerate(types)]


def _var_bytes(row: memoryview, slot: int, path: str | None, field: str) -> bytes:
    """Bytes of a variable-length field (inline or in the variable part)."""
    word = _U64.unpack_from(row, slot)[0]
    if word & (1 << 63):
        length = (word >> 56) & 0x7F
        if length > 7:
            raise _fail(path, 4 + slot, field + ".inline_length", "<= 7", length)
        return bytes(row[slot:slot + length])
    offset = word >> 32
    length = word & 0xFFFFFFFF
    if offset + length > len(row):
        raise _fail(path, 4 + slot, field + ".offset", f"a range inside {len(row)} bytes",
                    f"[{offset}, {offset + length})")
    return bytes(row[offset:offset + length])


def _read_field(row: memoryview, slot: int, t: DataType, path: str | None, field: str) -> Any:
    r = t.root
    if r == "BOOLEAN":
        return row[slot] != 0
    if r == "TINYINT":
        b = row[slot]
        return b - 256 if b > 127 else b
    if r == "SMALLINT":
        return _I16.unpack_from(row, slot)[0]
    if r in ("INT", "DATE", "TIME"):
        return _I32.unpack_from(row, slot)[0]
    if r == "BIGINT":
        return _I64.unpack_from(row, slot)[0]
    if r == "FLOAT":
        return _F32.unpack_from(row, slot)[0]
    if r == "DOUBLE":
        return _F64.unpack_from(row, slot)[0]
    if t.is_string:
        raw = _var_bytes(row, slot, path, field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            # Paimon stores truncated bounds as bytes; keep what decodes rather than failing.
            return raw.decode("utf-8", "replace")
    if t.is_binary:
        return _var_bytes(row, slot, path, field)
    if r == "DECIMAL":
        precision = t.precision or 10
        scale = t.scale or 0
        if precision <= 18:
            unscaled = _I64.unpack_from(row, slot)[0]
        else:
            word = _U64.unpack_from(row, slot)[0]
            offset, length = word >> 32, word & 0xFFFFFFFF
            if length > 16 or offset + length > len(row):
                raise _fail(path, 4 + slot, field + ".decimal", "<= 16 bytes inside the row",
                            f"[{offset}, {offset + length})")
            unscaled = int.from_bytes(row[offset:offset + length], "big", signed=True)
        return Decimal(unscaled).scaleb(-scale)
    if t.is_timestamp:
        precision = t.precision if t.precision is not None else 6
        if precision <= 3:
            return Timestamp(_I64.unpack_from(row, slot)[0], 0)
        word = _U64.unpack_from(row, slot)[0]
        offset, nanos = word >> 32, word & 0xFFFFFFFF
        if offset + 8 > len(row):
            raise _fail(path, 4 + slot, field + ".timestamp", "8 bytes inside the row", offset)
        return Timestamp(_I64.unpack_from(row, offset)[0], nanos)
    # Nested types (ARRAY, MAP, ROW, ...) carry no stats and cannot be partition keys.
    return None


def encode_binary_row(values: Sequence[Any], types: Sequence[DataType]) -> bytes:
    """Serialize values into BinaryRow bytes (the inverse of :func:`decode_binary_row`).

    Used by tests and by what-if experiments; supports every type the decoder reads.
    """
    arity = len(types)
    header = null_bits_size(arity)
    fixed = bytearray(header + 8 * arity)
    var = bytearray()
    for i, (v, t) in enumerate(zip(values, types)):
        slot = header + 8 * i
        if v is None:
            bit = i + 8
            fixed[bit >> 3] |= 1 << (bit & 7)
            continue
        r = t.root
        if r == "BOOLEAN":
            fixed[slot] = 1 if v else 0
        elif r == "TINYINT":
            fixed[slot] = v & 0xFF
        elif r == "SMALLINT":
            _I16.pack_into(fixed, slot, v)
        elif r in ("INT", "DATE", "TIME"):
            _I32.pack_into(fixed, slot, v)
        elif r == "BIGINT":
            _I64.pack_into(fixed, slot, v)
        elif r == "FLOAT":
            _F32.pack_into(fixed, slot, v)
        elif r == "DOUBLE":
            _F64.pack_into(fixed, slot, v)
        elif t.is_string or t.is_binary:
            raw = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            if len(raw) <= 7:
                fixed[slot:slot + len(raw)] = raw
                fixed[slot + 7] = 0x80 | len(raw)
            else:
                off = len(fixed) + len(var)
                _U64.pack_into(fixed, slot, off << 32 | len(raw))
                var += raw + b"\0" * (-len(raw) % 8)
        elif r == "DECIMAL":
            unscaled = int(Decimal(v).scaleb(t.scale or 0).to_integral_value())
            if (t.precision or 10) <= 18:
                _I64.pack_into(fixed, slot, unscaled)
            else:
                raw = unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True)
                off = len(fixed) + len(var)
                _U64.pack_into(fixed, slot, off << 32 | len(raw))
                var += raw + b"\0" * (16 - len(raw))
        elif t.is_timestamp:
            if (t.precision if t.precision is not None else 6) <= 3:
                _I64.pack_into(fixed, slot, v.millisecond)
            else:
                off = len(fixed) + len(var)
                _U64.pack_into(fixed, slot, off << 32 | v.nano_of_millisecond)
                var += _I64.pack(v.millisecond)
        else:
            raise ValueError(f"cannot encode {t} in a BinaryRow")
    return struct.pack(">i", arity) + bytes(fixed) + bytes(var)
