"""The bit-slice index inside a range-bitmap index (Paimon's ``BitSliceIndexBitmap``).

It stores, for every non-null row, the dictionary code of the row's value: an existence bitmap
(EBM, the non-null rows) and one bitmap per bit of the code ("slice" ``i`` holds the rows whose
code has bit ``i`` set).

Layout (big-endian; bitmaps are portable Roaring serialisations)::

    headerLength:i32
    header:  version:u8 (= 1) | sliceCount:u8 | ebmLength:i32 | indexesLength:i32 (= 8 * sliceCount)
             | sliceCount x (offset:i32, length:i32)     offsets relative to the end of the EBM
    body:    ebm (ebmLength bytes) | slice 0 | slice 1 | ...   (slices back to back)

The slice count is **one byte** (the spec text says four). Paimon writes
``max(bitLength(cardinality - 1), 1)`` slices; with cardinality 0 that expression sees ``-1`` and
gives 64 empty slices. Java reads the count as a signed byte, so at most 127 could be read back;
paimon-lens accepts 0..64.

Comparisons follow Java exactly, including the use of ``int`` shifts on codes (``code >> i``
uses ``i mod 32``), so ``eq``/``gt`` on a 64-slice index behave as Java's would.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from pyroaring import BitMap, FrozenBitMap

from ..io.byte_reader import ByteReader
from . import roaring

VERSION = 1
MAX_SLICES = 64

_I32 = struct.Struct(">i")
_PAIR = struct.Struct(">ii")  # a slice's (offset, length)


def serialize_bitmap(bitmap: BitMap) -> bytes:
    """Portable Roaring bytes after run-optimisation, as Paimon's ``RoaringBitmap32.serialize``."""
    bm = BitMap(bitmap)
    bm.run_optimize()
    data: bytes = bm.serialize()
    return data


def trailing_ones(code: int) -> int:
    """Number of trailing 1 bits of ``code`` (the first bit slice a ``>`` lookup reads)."""
    n = 0
    while code & 1:
        code >>= 1
        n += 1
    return n


@dataclass(frozen=True, eq=False)
class BitSliceIndexBitmap:
    """A decoded bit-slice index. Offsets are absolute file offsets (``base`` included).

    ``slice_lengths`` are the stored lengths; ``length`` is the number of bytes the index occupies.
    """

    offset: int
    header_length: int
    version: int
    ebm_length: int
    slice_lengths: tuple[int, ...]
    ebm: FrozenBitMap
    slices: tuple[FrozenBitMap, ...]
    length: int

    @property
    def slice_count(self) -> int:
        """Number of bit slices."""
        return len(self.slices)

    # -- queries (RoaringBitmap32 results as new BitMaps) ----------------------------------------
    def is_not_null(self, found: BitMap | None = None) -> BitMap:
        """Rows with a value (the EBM), intersected with ``found`` when given."""
        return BitMap(self.ebm) if found is None else BitMap(self.ebm & found)

    def get(self, position: int) -> int | None:
        """The code stored for a row, or None for a null row."""
        if position not in self.ebm:
            return None
        value = 0
        for i, s in enumerate(self.slices):
            if position in s:
                value |= 1 << (i & 31)
        return value - (1 << 32) if value >= 1 << 31 else value

    def eq(self, code: int) -> BitMap:
        """Rows whose code equals ``code``."""
        state = BitMap(self.ebm)
        if not state:
            return BitMap()
        for i, s in enumerate(self.slices):
            if (code >> (i & 31)) & 1:
                state &= s
            else:
                state -= s
        return state

    def gt(self, code: int) -> BitMap:
        """Rows whose code is greater than ``code`` (negative ``code``: every non-null row)."""
        if code < 0:
            return BitMap(self.ebm)
        if not self.ebm:
            return BitMap()
        state: BitMap | None = None
        for i in range(trailing_ones(code), len(self.slices)):
            s = self.slices[i]
            if state is None:
                state = BitMap(s)
            elif (code >> (i & 31)) & 1:
                state &= s
            else:
                state |= s
        if state is None:
            return BitMap()
        state &= self.ebm
        return state

    def gte(self, code: int) -> BitMap:
        """Rows whose code is at least ``code``."""
        return self.gt(code - 1)

    def top_k(self, k: int, found: BitMap | None, strict: bool) -> BitMap:
        """The ``k`` rows with the largest codes (O'Neil's algorithm 4.1, as Java).

        With ``strict`` the ties are trimmed to exactly ``k`` rows by dropping the lowest positions.
        """
        return self._extreme_k(k, found, strict, largest=True)

    def bottom_k(self, k: int, found: BitMap | None, strict: bool) -> BitMap:
        """The ``k`` rows with the smallest codes."""
        return self._extreme_k(k, found, strict, largest=False)

    def _extreme_k(self, k: int, found: BitMap | None, strict: bool, largest: bool) -> BitMap:
        if k == 0 or (found is not None and not found):
            return BitMap()
        if k < 0:
            raise ValueError(f"the k param can not be negative, k={k}")
        g = BitMap()
        e = self.is_not_null(found)
        if len(e) <= k:
            return e
        for i in range(len(self.slices) - 1, -1, -1):
            s = self.slices[i]
            take = e & s if largest else e - s
            x = g | take
            n = len(x)
            if n > k:
                e = take
            elif n < k:
                g = x
                e = e - s if largest else e & s
            else:
                e = take
                break
        f = g | e
        if not strict:
            return f
        extra = len(f) - k
        if extra > 0:
            for pos in e:
                if extra <= 0:
                    break
                f.discard(pos)
                extra -= 1
        return f


def read_bit_slice(r: ByteReader, start: int, field: str = "bsi") -> BitSliceIndexBitmap:
    """Decode and validate the bit-slice index starting at ``start`` of ``r``."""
    b = r.sub(start, len(r) - start, field)
    header_length = b.i32(field + ".header_length")
    if header_length < 10:
        raise b.error(field + ".header_length", "at least 10", header_length, at=0)
    b.need(header_length, field + ".header")
    version = b.u8(field + ".version")
    if version != VERSION:
        raise b.error(field + ".version", VERSION, version, at=b.pos - 1)
    count = b.u8(field + ".slice_count")
    if count > MAX_SLICES:
        raise b.error(field + ".slice_count", f"0..{MAX_SLICES}", count, at=b.pos - 1)
    at = b.pos
    ebm_length = b.i32(field + ".ebm_length")
    if ebm_length < 0:
        raise b.error(field + ".ebm_length", "a non-negative length", ebm_length, at=at)
    at = b.pos
    indexes_length = b.i32(field + ".indexes_length")
    if indexes_length != 8 * count:
        raise b.error(field + ".indexes_length", 8 * count, indexes_length, at=at)
    if header_length != 10 + indexes_length:
        raise b.error(field + ".header_length", 10 + indexes_length, header_length, at=0)
    first = b.pos
    entries = [(off, length, first + 8 * i)
               for i, (off, length) in enumerate(b.tuples(_PAIR, count, field + ".indexes"))]
    body = 4 + header_length
    ebm, _ = roaring.deserialize_frozen(b, body, ebm_length, field + ".ebm")
    slices_start = body + ebm_length
    slices: list[FrozenBitMap] = []
    expected = 0
    for i, (off, length, at) in enumerate(entries):
        if off != expected:
            raise b.error(f"{field}.slice[{i}].offset", expected, off, at=at,
                          detail="slices must follow each other")
        if length < 0 or slices_start + off + length > len(b):
            raise b.error(f"{field}.slice[{i}].length", f"0..{len(b) - slices_start - off}", length, at=at + 4,
                          detail="slice outside the index bytes")
        bm, _ = roaring.deserialize_frozen(b, slices_start + off, length, f"{field}.slice[{i}]")
        if not bm.issubset(ebm):
            raise b.error(f"{field}.slice[{i}]", "a subset of the existence bitmap", "rows without a value",
                          at=slices_start + off)
        slices.append(bm)
        expected = off + length
    return BitSliceIndexBitmap(r.base + start, header_length, version, ebm_length,
                               tuple(e[1] for e in entries), ebm, tuple(slices),
                               slices_start + expected)


def max_code(bsi: BitSliceIndexBitmap) -> int | None:
    """The largest code stored (None when there are no rows), found by slice descent."""
    e = BitMap(bsi.ebm)
    if not e:
        return None
    code = 0
    for i in range(len(bsi.slices) - 1, -1, -1):
        x = e & bsi.slices[i]
        if x:
            e = x
            code |= 1 << i
    return code


def _slice_count(cardinality: int) -> int:
    """How many slices ``Appender(0, cardinality - 1)`` writes (``MAX_SLICES`` when there are no codes)."""
    max_value = cardinality - 1
    return MAX_SLICES if max_value < 0 else max(max_value.bit_length(), 1)


def _assemble(ebm_bytes: bytes, slice_bytes: list[bytes]) -> bytes:
    """The index bytes from its serialized ebm and slices: header length, header, then the bitmaps."""
    indexes = bytearray()
    offset = 0
    for sb in slice_bytes:
        indexes += _I32.pack(offset) + _I32.pack(len(sb))
        offset += len(sb)
    header = (bytes([VERSION, len(slice_bytes)]) + _I32.pack(len(ebm_bytes)) + _I32.pack(len(indexes))
              + bytes(indexes))
    return _I32.pack(len(header)) + header + ebm_bytes + b"".join(slice_bytes)


def write_bit_slice(code_rows: list[BitMap]) -> bytes:
    """Serialize a bit-slice index; ``code_rows[c]`` holds the rows with code ``c``.

    Byte-identical to ``BitSliceIndexBitmap.Appender(0, len(code_rows) - 1).serialize()``.
    """
    count = _slice_count(len(code_rows))
    ebm = BitMap()
    slices = [BitMap() for _ in range(count)]
    for code, rows in enumerate(code_rows):
        ebm |= rows
        bits, i = code, 0
        while bits:
            if bits & 1:
                slices[i] |= rows
            bits >>= 1
            i += 1
    ebm_bytes = serialize_bitmap(ebm)
    slice_bytes = [serialize_bitmap(s) for s in slices]
    return _assemble(ebm_bytes, slice_bytes)


def rows_bitmap(rows: Any) -> BitMap:
    """A BitMap of sorted row positions given as a numpy integer array (pyroaring's fast path)."""
    import array

    import numpy as np

    return BitMap(array.array("I", np.asarray(rows).astype(np.uint32).tobytes()))


def write_bit_slice_codes(codes: Any, cardinality: int) -> bytes:
    """:func:`write_bit_slice` from each row's code (a numpy int array, -1 for a null row).

    The same bytes, built with one vectorised pass per slice instead of one union per code:
    ``cardinality`` is ``len(code_rows)`` there (the codes are ``0..cardinality-1``).
    """
    import numpy as np

    codes = np.asarray(codes, dtype=np.int64)
    count = _slice_count(cardinality)
    present = np.flatnonzero(codes >= 0)
    values = codes[present]
    ebm_bytes = serialize_bitmap(rows_bitmap(present))
    slice_bytes = [serialize_bitmap(rows_bitmap(present[(values >> i) & 1 == 1])) for i in range(count)]
    return _assemble(ebm_bytes, slice_bytes)
