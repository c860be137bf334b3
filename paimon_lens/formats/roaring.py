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
:func:`portable_cardinalities` reads the row counts of many bitmaps from this layout with numpy
(the descriptive header, run counts and runs, array values), without deserialising them.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, TypeVar

from pyroaring import BitMap, BitMap64, FrozenBitMap

from ..errors import CorruptFileError
from ..io.byte_reader import ByteReader

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

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


# ---- row counts from the serialized form, many bitmaps at once ------------------------------------

_MAX_RUN_BITMAP_CONTAINERS = 256  # bitmaps with run containers and more containers: left to pyroaring


def portable_cardinalities(data: bytes, starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64],
                           limit: int, max_length: int = 1 << 62,
                           ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Row counts of many portable bitmaps read from their serialized form, without decoding them.

    ``data[starts[i]:starts[i] + lengths[i]]`` is one bitmap (the ranges must lie inside ``data``).
    Returns ``(counts, ok)``: where ``ok[i]`` is True, bitmap ``i`` is exactly ``lengths[i]`` bytes
    long, ``pyroaring.BitMap.deserialize`` accepts it, ``counts[i]`` is its cardinality and every
    row in it is below ``limit``. ``ok[i]`` False says nothing, except that the caller must decode
    that bitmap itself (and report what is wrong with it, if anything): bitset containers, more than
    :data:`_MAX_RUN_BITMAP_CONTAINERS` containers with runs, trailing bytes, anything malformed,
    and every bitmap longer than ``max_length`` bytes (numpy's per-value cost makes large bitmaps
    cheaper to decode than to check).

    The checks are at least as strict as pyroaring's (CRoaring's ``portable_deserialize_safe`` and
    ``internal_validate``) on everything accepted: the cookie; the container count; the size the
    header implies (offset header included) equal to the length; keys strictly increasing; array
    containers of 1 - 4096 strictly increasing values; run containers of >= 1 run, each inside the
    container's 65536 values, sorted, neither overlapping nor touching, and summing to the
    header's cardinality (which CRoaring ignores for runs); the largest row (last key and value)
    below ``limit``.
    """
    import numpy as np  # lazily: importing the module must not import numpy

    m = len(starts)
    counts = np.zeros(m, dtype=np.int64)
    ok = np.zeros(m, dtype=np.bool_)
    u8 = np.frombuffer(data, dtype=np.uint8)
    # Every little-endian u16 of the buffer by its byte position (an overlapping, unaligned view).
    words = np.ndarray((max(len(data) - 1, 0),), dtype="<u2", buffer=data, strides=(1,))

    def u16(at: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return words[at].astype(np.int64)

    # Header: cookie, container count, key / cardinality pairs, offsets.
    g = np.flatnonzero((lengths >= 8) & (lengths <= max_length))  # the empty bitmap takes 8 bytes
    s = starts[g]
    end = s + lengths[g]
    cookie, high = u16(s), u16(s + 2)
    no_run = (cookie == SERIAL_COOKIE_NO_RUNCONTAINER) & (high == 0)
    with_run = cookie == SERIAL_COOKIE
    size = np.where(no_run, u16(s + 4) | (u16(s + 6) << 16), high + 1)
    header = np.where(no_run, s + 8, s + 4 + (size + 7) // 8)
    header_end = header + np.where(no_run | (size >= NO_OFFSET_THRESHOLD), 8, 4) * size
    keep = (no_run | with_run) & (size <= MAX_CONTAINERS) & (header_end <= end)
    if not keep.all():
        g, s, end, with_run, size, header, header_end = (
            a[keep] for a in (g, s, end, with_run, size, header, header_end))
    n = len(g)
    good = np.ones(n, dtype=np.bool_)

    # Containers of every bitmap, flattened: owner bitmap, ordinal, key, cardinality, kind.
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=first[1:])
    total = int(first[-1])
    owner = np.repeat(np.arange(n, dtype=np.int64), size)
    at = np.repeat(header - 4 * first[:-1], size) + 4 * np.arange(total, dtype=np.int64)
    key = words[at]
    card = u16(at + 2) + 1
    is_run = np.zeros(total, dtype=np.bool_)
    if with_run.any():
        ordinal = np.arange(total, dtype=np.int64) - first[owner]
        flags = u8[s[owner] + 4 + (ordinal >> 3)] >> (ordinal & 7).astype(np.uint8) & 1
        is_run = with_run[owner] & (flags == 1)
    rises = key[1:] > key[:-1]
    inner = first[1:-1]
    rises[inner[(inner > 0) & (inner < total)] - 1] = True  # from one bitmap to the next
    if not rises.all():  # keys not strictly increasing
        good[owner[1:][~rises]] = False
    good[owner[~is_run & (card > 4096)]] = False  # a bitset container: left to pyroaring

    # Container sizes: arrays from the header; runs from their run count, read in order.
    csize = 2 * card
    n_runs = np.zeros(total, dtype=np.int64)
    if is_run.any():
        has_run = np.zeros(n, dtype=np.bool_)
        has_run[owner[is_run]] = True
        good[has_run & (size > _MAX_RUN_BITMAP_CONTAINERS)] = False
        rb = np.flatnonzero(has_run & good)
        pos = header_end[rb]
        rb_end, rb_size, rb_first = end[rb], size[rb], first[rb]
        for j in range(int(rb_size.max()) if len(rb) else 0):
            live = np.flatnonzero(rb_size > j)
            c = rb_first[live] + j
            p = pos[live]
            run = is_run[c]
            inside = p + 2 <= rb_end[live]
            good[rb[live[run & ~inside]]] = False
            count = u16(np.where(run & inside, p, 0))
            n_runs[c] = np.where(run, count, 0)
            csize[c] = np.where(run, 2 + 4 * count, csize[c])
            pos[live] = p + csize[c]

    # The size the header implies must be the length exactly (then every container is inside).
    csum = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(csize, out=csum[1:])
    good &= header_end + csum[first[1:]] - csum[first[:-1]] == end
    cstart = np.repeat(header_end - csum[first[:-1]], size) + csum[:-1]
    cgood = good[owner]
    last_value = np.zeros(total, dtype=np.int64)

    # Array containers: values strictly increasing; the last one is the largest.
    arr = np.flatnonzero(cgood & ~is_run)
    if len(arr):
        k = card[arr]
        efirst = np.zeros(len(arr) + 1, dtype=np.int64)
        np.cumsum(k, out=efirst[1:])
        values = words[np.repeat(cstart[arr] - 2 * efirst[:-1], k) + 2 * np.arange(int(efirst[-1]), dtype=np.int64)]
        falls = values[1:] <= values[:-1]
        falls[efirst[1:-1] - 1] = False  # from one container to the next
        if falls.any():
            good[owner[arr[np.searchsorted(efirst, np.flatnonzero(falls), side="right") - 1]]] = False
        last_value[arr] = values[efirst[1:] - 1]

    # Run containers: >= 1 run, each inside 0..65535, sorted, apart; cardinality as in the header.
    runs = np.flatnonzero(cgood & is_run)
    if len(runs):
        k = n_runs[runs]
        good[owner[runs[k == 0]]] = False
        rfirst = np.zeros(len(runs) + 1, dtype=np.int64)
        np.cumsum(k, out=rfirst[1:])
        rowner = np.repeat(np.arange(len(runs), dtype=np.int64), k)
        rat = np.repeat(cstart[runs] + 2, k) + 4 * (np.arange(int(rfirst[-1]), dtype=np.int64) - rfirst[rowner])
        rstart = u16(rat)
        rlast = rstart + u16(rat + 2)
        good[owner[runs[rowner[rlast > 0xFFFF]]]] = False
        same = rowner[1:] == rowner[:-1]
        good[owner[runs[rowner[1:][same & (rstart[1:] <= rlast[:-1] + 1)]]]] = False
        rsum = np.zeros(len(rlast) + 1, dtype=np.int64)
        np.cumsum(rlast - rstart + 1, out=rsum[1:])
        nonempty = k > 0
        run_card = np.zeros(len(runs), dtype=np.int64)
        run_card[nonempty] = rsum[rfirst[1:][nonempty]] - rsum[rfirst[:-1][nonempty]]
        good[owner[runs[run_card != card[runs]]]] = False
        last_value[runs[nonempty]] = rlast[rfirst[1:][nonempty] - 1]

    # The largest row: the last container's key and last value.
    filled = size > 0
    last = first[1:][filled] - 1
    good[np.flatnonzero(filled)[(key[last].astype(np.int64) << 16 | last_value[last]) >= limit]] = False
    cards = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(card, out=cards[1:])
    counts[g] = cards[first[1:]] - cards[first[:-1]]
    ok[g] = good
    counts[~ok] = 0
    return counts, ok


def to_bitmap64(bitmap: BitMap) -> BitMap64:
    """``bitmap`` as a 64-bit bitmap (high key 0), without iterating its positions."""
    if not bitmap:
        return BitMap64()
    return BitMap64.deserialize(struct.pack("<QI", 1, 0) + bitmap.serialize())


def to_bitmap32(bitmap: BitMap64) -> BitMap | None:
    """``bitmap`` as a 32-bit bitmap, without iterating its positions; None when a position does not
    fit 32 bits."""
    if not bitmap:
        return BitMap()
    if bitmap.max() >= 1 << 32:
        return None
    data = bitmap.serialize()  # count:u64 LE = 1, key:u32 LE = 0, then one portable Roaring32 bitmap
    return BitMap.deserialize(data[12:])
