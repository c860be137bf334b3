"""Roaring bitmaps in the portable serialisation (what Java RoaringBitmap and pyroaring write).

Layout (little-endian)::

    cookie:u32
      = 12347 | (size - 1) << 16   "SERIAL_COOKIE": run containers present; then
        run-flag bitset of ceil(size / 8) bytes
      = 12346                      "SERIAL_COOKIE_NO_RUNCONTAINER"; then size:u32
    size x (key:u16, cardinality - 1:u16)           descriptive header
    size x offset:u32      only if no run containers or size >= 4
    containers, in key order:
      run     n_runs:u16, n_runs x (start:u16, length - 1:u16)
      array   cardinality x u16            (cardinality <= 4096)
      bitset  1024 x u64                   (cardinality > 4096)

Paimon stores these bytes without a length prefix in several places (bitmap V1 bodies, BSI
slices), so :func:`serialized_size` finds where one bitmap ends from its own header, and
:func:`deserialize` checks the header against the available bytes before pyroaring allocates.
"""

from __future__ import annotations

import struct
from typing import TypeVar

from pyroaring import BitMap, FrozenBitMap

from ..errors import CorruptFileError
from ..io.reader import ByteReader

SERIAL_COOKIE_NO_RUNCONTAINER = 12346
SERIAL_COOKIE = 12347
NO_OFFSET_THRESHOLD = 4
MAX_CONTAINERS = 1 << 16


_U16LE = struct.Struct("<H")
_U32LE = struct.Struct("<I")


def valid_size(data: bytes, start: int) -> int | None:
    """:func:`serialized_size` of a well-formed bitmap read straight from ``data``; None when any
    of its checks could fail (the field-by-field reader then reports the problem)."""
    n = len(data)
    if start < 0 or start + 4 > n:
        return None
    cookie = _U32LE.unpack_from(data, start)[0]
    pos = start + 4
    run_flags = b""
    if cookie & 0xFFFF == SERIAL_COOKIE:
        size = (cookie >> 16) + 1
        flags_end = pos + (size + 7) // 8
        if flags_end > n:
            return None
        run_flags, pos = data[pos:flags_end], flags_end
    elif cookie == SERIAL_COOKIE_NO_RUNCONTAINER:
        if pos + 4 > n:
            return None
        size = _U32LE.unpack_from(data, pos)[0]
        pos += 4
        if size > MAX_CONTAINERS:
            return None
    else:
        return None
    header = pos
    pos += 4 * size
    if not run_flags or size >= NO_OFFSET_THRESHOLD:
        pos += 4 * size
    if pos > n:
        return None
    last_key = -1
    for i in range(size):
        h = header + 4 * i
        key = data[h] | data[h + 1] << 8
        if key <= last_key:
            return None
        last_key = key
        if run_flags and run_flags[i // 8] >> (i % 8) & 1:
            if pos + 2 > n:
                return None
            pos += 2 + 4 * _U16LE.unpack_from(data, pos)[0]
        else:
            card = (data[h + 2] | data[h + 3] << 8) + 1
            pos += 2 * card if card <= 4096 else 8192
        if pos > n:
            return None
    return pos - start


def serialized_size(reader: ByteReader, start: int, field: str = "roaring bitmap") -> int:
    """Length in bytes of the portable Roaring bitmap that begins at ``start`` in ``reader``.

    Validates the cookie, the container count, and that every container lies inside the buffer.
    Does not move ``reader``.
    """
    size = valid_size(reader.data, start)
    if size is not None:
        return size
    r = reader.sub(start, len(reader) - start, field)
    cookie = r.u32_le(field + ".cookie")
    if cookie & 0xFFFF == SERIAL_COOKIE:
        size = (cookie >> 16) + 1
        run_flags = r.raw((size + 7) // 8, field + ".run_flags")
        has_runs = True
    elif cookie == SERIAL_COOKIE_NO_RUNCONTAINER:
        size = r.u32_le(field + ".container_count")
        if size > MAX_CONTAINERS:
            raise r.error(field + ".container_count", f"<= {MAX_CONTAINERS}", size, at=r.pos - 4)
        run_flags = b""
        has_runs = False
    else:
        raise r.error(field + ".cookie", f"{SERIAL_COOKIE} or {SERIAL_COOKIE_NO_RUNCONTAINER}", cookie, at=0)
    r.check_count(size, 4, field + ".container_count")
    header = r.raw(4 * size, field + ".keys")
    if not has_runs or size >= NO_OFFSET_THRESHOLD:
        r.check_count(size, 4, field + ".offsets")
        r.raw(4 * size, field + ".offsets")
    last_key = -1
    for i in range(size):
        key = header[4 * i] | header[4 * i + 1] << 8
        if key <= last_key:
            raise r.error(f"{field}.keys[{i}]", f"> {last_key} (sorted)", key)
        last_key = key
        card = (header[4 * i + 2] | header[4 * i + 3] << 8) + 1
        if has_runs and run_flags[i // 8] >> (i % 8) & 1:
            n_runs = r.u16_le(f"{field}.container[{i}].run_count")
            r.raw(4 * n_runs, f"{field}.container[{i}].runs")
        elif card <= 4096:
            r.raw(2 * card, f"{field}.container[{i}].values")
        else:
            r.raw(8192, f"{field}.container[{i}].bitset")
    return r.pos


def deserialize(reader: ByteReader, start: int, length: int | None = None,
                field: str = "roaring bitmap") -> tuple[BitMap, int]:
    """Decode the bitmap at ``start``; returns it and its serialized length.

    With ``length`` given, the bitmap must occupy exactly those bytes.
    """
    raw = _checked_bytes(reader, start, length, field)
    return _decode(BitMap, reader, start, raw, field), len(raw)


def deserialize_frozen(reader: ByteReader, start: int, length: int | None = None,
                       field: str = "roaring bitmap") -> tuple[FrozenBitMap, int]:
    """:func:`deserialize` into a ``FrozenBitMap``."""
    raw = _checked_bytes(reader, start, length, field)
    return _decode(FrozenBitMap, reader, start, raw, field), len(raw)


def _checked_bytes(reader: ByteReader, start: int, length: int | None, field: str) -> bytes:
    size = serialized_size(reader, start, field)
    if length is not None and size != length:
        raise reader.error(field + ".length", length, size, at=start,
                           detail="serialized bitmap size differs from the stored length")
    return reader.data[start:start + size]


_B = TypeVar("_B", BitMap, FrozenBitMap)


def _decode(cls: type[_B], reader: ByteReader, start: int, raw: bytes, field: str) -> _B:
    try:
        bm: _B = cls.deserialize(raw)
    except Exception as e:  # pyroaring raises ValueError on invalid input
        raise CorruptFileError(reader.path, reader.base + start, field, "a portable Roaring bitmap",
                               raw[:16].hex(), detail=str(e)) from None
    return bm
