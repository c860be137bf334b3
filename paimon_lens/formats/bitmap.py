"""Paimon's bitmap file index (``BitmapFileIndex``): reader, summary, value listing and writer.

One index covers one column of one data file: for every distinct value, the set of row
positions holding it, as a portable Roaring bitmap. Integers are big-endian; keys are encoded
as described in :mod:`paimon_lens.formats.bitmap_meta`.

V1 (``BitmapFileIndexMeta``)::

    version:u8 = 1
    row_count:i32
    non_null_bitmap_count:i32               number of distinct non-null values
    has_null:bool
    [null_offset:i32]                       if has_null
    non_null_bitmap_count x (key, offset:i32)   in Java HashMap order
    body: serialized bitmaps                offsets are relative to the body start

V2 (``BitmapFileIndexMetaV2``, the 2.0 default)::

    version:u8 = 2
    row_count:i32
    non_null_bitmap_count:i32
    has_null:bool
    [null_offset:i32, null_bitmap_length:i32]   if has_null
    index_block_count:i32
    index_block_count x (first_key, block_offset:i32)   block offsets relative to the block area
    bitmap_body_offset:i32                  the body starts this far after the block area start
    index blocks, each:
        entry_count:i32
        entry_count x (key, offset:i32, length:i32)    keys sorted by Java's comparator
    body: serialized bitmaps                offsets are relative to the body start

In both versions an offset ``< 0`` marks a value that occurs in exactly one row, at position
``-1 - offset``: no bitmap is stored for it (V2 stores length ``-1``). The null bitmap, when it
holds more than one row, is first in the body (``null_offset = 0``); a single null row is a
negative ``null_offset``. V1 stores no lengths: Paimon takes a bitmap's length as the distance
to the next non-negative offset in dictionary order and reads the last one by deserialising.
V2 cuts a new index block when ``4 + sum(8 + key bytes)`` would exceed ``index-block-size``.

Query semantics (Paimon 2.0 ``BitmapFileIndex.Reader``): ``=`` and ``IN`` return the union of
the literals' bitmaps, where a null literal selects the null rows; ``<>`` and ``NOT IN`` flip that
union over ``[0, row_count)``, so null rows are *included*; ``IS NULL`` is ``IN (NULL)`` and
``IS NOT NULL`` is ``NOT IN (NULL)``. Values match by Java ``equals`` (floats by their bits:
``-0.0 != 0.0``, ``NaN == NaN``). Every answer is a bitmap result, empty when nothing matches;
range and pattern predicates REMAIN.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyroaring import BitMap

from ..io.reader import ByteReader
from ..types import DataType
from .bitmap_meta import JavaHashMapOrder, KeyCodec, java_binary_search, key_codec
from .reader import FileIndexReader
from .result import BitmapIndexResult, FileIndexResult
from .roaring import serialized_size

VERSION_1 = 1
VERSION_2 = 2
DEFAULT_INDEX_BLOCK_SIZE = 16 * 1024

_I32 = struct.Struct(">i")
_SINGLE = struct.Struct("<IIHHIH")  # portable Roaring of a one-element bitmap


def _single_bitmap_bytes(position: int) -> bytes:
    """The portable serialization of ``{position}`` (what Java writes for a one-row bitmap)."""
    return _SINGLE.pack(12346, 1, position >> 16, 0, 16, position & 0xFFFF)


# ---- decoded models ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BitmapValueCount:
    """One distinct non-null value: how many rows hold it and how many body bytes its bitmap takes.

    ``bitmap_bytes`` is 0 for a value that occurs once (stored as a negative offset).
    """

    value: Any
    row_count: int
    bitmap_bytes: int


@dataclass(frozen=True, slots=True)
class BitmapIndexBlockInfo:
    """A V2 index block: its first value, offset in the block area, size and entry count."""

    first_value: Any
    offset: int
    size: int
    entry_count: int


@dataclass(frozen=True)
class BitmapIndexSummary:
    """What one bitmap index holds, for a ``file_indexes()`` frame.

    Byte counts split the index into ``header_bytes`` (everything before the V2 index blocks, or
    before the V1 body: version, counts, null info, the V1 dictionary, the V2 block directory),
    ``index_block_bytes`` (V2 index blocks) and ``bitmap_bytes`` (the body). ``values`` keeps
    the stored order (V1: dictionary order, V2: sorted); do not key a dict by float values
    (Python has ``-0.0 == 0.0``, the index does not).
    """

    version: int
    row_count: int
    null_count: int
    cardinality: int
    values: tuple[BitmapValueCount, ...]
    singleton_values: int
    total_bytes: int
    header_bytes: int
    index_block_bytes: int
    bitmap_bytes: int
    null_bitmap_bytes: int
    index_blocks: tuple[BitmapIndexBlockInfo, ...]

    @property
    def dictionary_bytes(self) -> int:
        """Bytes before the body (header and dictionary / index blocks)."""
        return self.header_bytes + self.index_block_bytes

    @property
    def index_block_count(self) -> int:
        """Number of V2 index blocks (0 for V1)."""
        return len(self.index_blocks)

    @property
    def index_block_sizes(self) -> tuple[int, ...]:
        """Size in bytes of each V2 index block."""
        return tuple(b.size for b in self.index_blocks)


@dataclass(frozen=True, slots=True)
class BitmapValue:
    """One distinct non-null value with its row count and its bitmap's portable serialization.

    ``stored`` is False for a single-row value kept as a negative offset; its ``bitmap`` is then
    the serialization Paimon would write for that one row (no such bytes are in the file).
    """

    value: Any
    row_count: int
    bitmap: bytes
    stored: bool


@dataclass(slots=True)
class _Block:
    keys: list[Hashable]
    offsets: list[int]
    lengths: list[int]
    size: int


# ---- reader --------------------------------------------------------------------------------------

class BitmapFileIndexReader(FileIndexReader):
    """Reads one column's bitmap index (V1 or V2) and answers predicates as Paimon 2.0 does.

    The header is decoded on construction (V1: the whole dictionary; V2: the block directory);
    V2 index blocks are decoded on first use, one at a time, and bitmaps are deserialised only
    when a lookup needs them, then cached. All results are
    :class:`~paimon_lens.formats.result.BitmapIndexResult`, never shared with the cache.

    Args:
        data_type: the column type (decides the key encoding).
        data: the index bytes (one column's ``bitmap`` entry of an index container).
        path: the file the bytes come from, for error messages.
        base: offset of ``data[0]`` inside that file, for error offsets.

    Raises:
        UnsupportedError: the type cannot carry a bitmap index (DECIMAL, BINARY, nested ...).
        CorruptFileError: the bytes are not a bitmap index (here or on a later lookup).
    """

    def __init__(self, data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> None:
        self.data_type = data_type
        self._codec: KeyCodec = key_codec(data_type)
        self._r = ByteReader(data, path, base)
        self._mv = memoryview(self._r.data)
        self._cache: dict[Hashable, BitMap] = {}
        self._blocks: list[_Block | None] = []
        self._block_keys: list[Hashable] = []
        self._block_offsets: list[int] = []
        self._v1_keys: list[Hashable] = []
        self._v1_offsets: list[int] = []
        self._v1_lookup: dict[Hashable, int] = {}
        self._v1_lengths: dict[Hashable, int] = {}
        self.null_offset = 0
        self.null_bitmap_length = -1
        self.index_block_start = 0
        self._parse_head()

    # -- header ----------------------------------------------------------------------------------
    def _parse_head(self) -> None:
        r, codec = self._r, self._codec
        version = r.u8("version")
        if version not in (VERSION_1, VERSION_2):
            raise r.error("version", "1 or 2", version, at=0)
        self.version = version
        self.row_count = r.i32("row_count")
        if self.row_count < 0:
            raise r.error("row_count", "a non-negative count", self.row_count, at=r.pos - 4)
        self.non_null_bitmap_count = r.check_count(
            r.i32("non_null_bitmap_count"), codec.size + (4 if version == VERSION_1 else 8),
            "non_null_bitmap_count")
        self.has_null = r.boolean("has_null")
        if self.has_null:
            self.null_offset = r.i32("null_offset")
            if version == VERSION_2:
                self.null_bitmap_length = r.i32("null_bitmap_length")
        if version == VERSION_1:
            self._parse_v1_dictionary()
        else:
            self._parse_v2_directory()

    def _read_keys(self, count: int, trailing: str, field: str, end: int | None = None) -> list[tuple[Any, ...]]:
        """``count`` records of (key, trailing i32 fields...) from the current position."""
        r, codec = self._r, self._codec
        limit = len(r) if end is None else end
        if codec.fixed:
            st = struct.Struct(">" + codec.fmt + trailing)
            if count * st.size > limit - r.pos:
                raise r.error(field, f"{count} entries of {st.size} bytes", f"{limit - r.pos} bytes left",
                              detail="truncated")
            rows = list(st.iter_unpack(r.view(count * st.size, field)))
            mapper = codec.key_mapper()
            if mapper is not None:
                rows = [(mapper(row[0]), *row[1:]) for row in rows]
            return rows
        tail = struct.Struct(">" + trailing)
        data = r.data
        rows = []
        pos = r.pos
        for i in range(count):
            if pos + 4 > limit:
                raise r.error(f"{field}[{i}].key.length", "4 more bytes", f"{limit - pos} left",
                              detail="truncated", at=pos)
            n = _I32.unpack_from(data, pos)[0]
            if n < 0 or pos + 4 + n + tail.size > limit:
                raise r.error(f"{field}[{i}].key", f"a length within the {limit - pos - 4} bytes left", n,
                              at=pos)
            key = data[pos + 4:pos + 4 + n]
            rows.append((key, *tail.unpack_from(data, pos + 4 + n)))
            pos += 4 + n + tail.size
        r.pos = pos
        return rows

    def _parse_v1_dictionary(self) -> None:
        rows = self._read_keys(self.non_null_bitmap_count, "i", "dictionary")
        self.body_start = self._r.pos
        self.index_block_start = self.body_start
        self._v1_keys = [row[0] for row in rows]
        self._v1_offsets = [row[1] for row in rows]
        self._v1_lookup = {k: i for i, k in enumerate(self._v1_keys)}
        # Paimon's V1 reader: a bitmap's length is the distance to the next non-negative offset in
        # dictionary order, starting from the null offset (0 without nulls); the last is unknown.
        lengths: dict[Hashable, int] = {}
        last_key: Hashable = None
        last_off = self.null_offset
        for key, off in rows:
            if off >= 0:
                if last_off >= 0:
                    lengths[last_key] = off - last_off
                last_key, last_off = key, off
        self._v1_lengths = lengths

    def _parse_v2_directory(self) -> None:
        r, codec = self._r, self._codec
        count = r.check_count(r.i32("index_block_count"), codec.size + 4, "index_block_count")
        rows = self._read_keys(count, "i", "index_block_directory")
        body_offset_at = r.pos
        body_offset = r.i32("bitmap_body_offset")
        self.index_block_start = r.pos
        if body_offset < 0 or body_offset > r.remaining:
            raise r.error("bitmap_body_offset", f"0..{r.remaining}", body_offset, at=body_offset_at)
        self.body_start = self.index_block_start + body_offset
        self._block_keys = [row[0] for row in rows]
        self._block_offsets = [row[1] for row in rows]
        for i, off in enumerate(self._block_offsets):
            if off < 0 or off + 4 > body_offset:
                raise r.error(f"index_block_directory[{i}].offset", f"0..{body_offset - 4}", off,
                              at=self.index_block_start)
        self._blocks = [None] * count

    def _block(self, i: int) -> _Block:
        block = self._blocks[i]
        if block is None:
            r = self._r
            start = self.index_block_start + self._block_offsets[i]
            r.seek(start, f"index_block[{i}]")
            n = r.i32(f"index_block[{i}].entry_count")
            limit = self.body_start
            if n < 0 or n * (self._codec.size + 8) > limit - r.pos:
                raise r.error(f"index_block[{i}].entry_count", f"at most {(limit - r.pos) // (self._codec.size + 8)}",
                              n, at=start, detail="count larger than the index block area")
            rows = self._read_keys(n, "ii", f"index_block[{i}].entries", end=limit)
            block = _Block([row[0] for row in rows], [row[1] for row in rows], [row[2] for row in rows],
                           r.pos - start)
            self._blocks[i] = block
        return block

    # -- entries and bitmaps ----------------------------------------------------------------------
    def _find_entry(self, key: Hashable) -> tuple[int, int] | None:
        """(offset, length) of a raw key as Paimon's ``findEntry`` finds it, or None."""
        if key is None:
            if not self.has_null:
                return None
            if self.version == VERSION_1:
                return self.null_offset, self._v1_lengths.get(None, -1)
            return self.null_offset, self.null_bitmap_length
        if self.version == VERSION_1:
            i = self._v1_lookup.get(key)
            if i is None:
                return None
            return self._v1_offsets[i], self._v1_lengths.get(key, -1)
        b = java_binary_search(self._block_keys, key)
        b = b if b >= 0 else -2 - b
        if b < 0:
            return None
        block = self._block(b)
        j = java_binary_search(block.keys, key)
        if j < 0:
            return None
        return block.offsets[j], block.lengths[j]

    def _field(self, key: Hashable) -> str:
        """The field name of a key's bitmap in error messages."""
        return "null_bitmap" if key is None else f"bitmap[{self._codec.to_value(key)!r}]"

    def _single_row(self, offset: int, key: Hashable) -> int:
        """The row of a negative (single-row) offset, checked against the row count."""
        position = -1 - offset
        if position >= self.row_count:
            raise self._r.error(self._field(key) + ".offset", f"a row position below row_count {self.row_count}",
                                position, at=0, detail="single-row offset out of range")
        return position

    def _bitmap_range(self, offset: int, length: int, key: Hashable) -> tuple[int, int]:
        """(start, end) in the buffer of a stored bitmap; a length of -1 is measured."""
        r = self._r
        start = self.body_start + offset
        if start >= len(r):
            raise r.error(self._field(key) + ".offset", f"0..{len(r) - self.body_start - 1}", offset,
                          at=self.body_start, detail="bitmap offset beyond the end of the index")
        if length == -1:
            length = serialized_size(r, start, self._field(key))
        elif length < 0 or length > len(r) - start:
            raise r.error(self._field(key) + ".length", f"0..{len(r) - start}", length, at=start)
        return start, start + length

    def _read_bitmap(self, offset: int, length: int, key: Hashable) -> BitMap:
        """The rows of one entry: a single row for a negative offset, else the stored bitmap."""
        if offset < 0:
            return BitMap([self._single_row(offset, key)])
        start, end = self._bitmap_range(offset, length, key)
        try:
            bm = BitMap.deserialize(self._mv[start:end])  # type: ignore[arg-type]  # any buffer works
        except Exception as e:  # pyroaring raises ValueError / IndexError on invalid input
            raise self._r.error(self._field(key), "a portable Roaring bitmap", self._r.data[start:start + 16].hex(),
                                detail=str(e), at=start) from None
        if bm and bm.max() >= self.row_count:
            raise self._r.error(self._field(key), f"row positions below row_count {self.row_count}", bm.max(),
                                at=start, detail="bitmap holds a row past the end of the file")
        return bm

    def _bitmap(self, key: Hashable) -> BitMap:
        bm = self._cache.get(key)
        if bm is None:
            entry = self._find_entry(key)
            bm = BitMap() if entry is None else self._read_bitmap(entry[0], entry[1], key)
            self._cache[key] = bm
        return bm

    def _union(self, literals: Sequence[Any]) -> BitMap:
        bms = [self._bitmap(self._codec.literal_key(lit)) for lit in literals]
        if not bms:
            return BitMap()
        if len(bms) == 1:
            return bms[0].copy()
        return BitMap.union(*bms)

    # -- FileIndexReader --------------------------------------------------------------------------
    def visit_equal(self, literal: Any) -> FileIndexResult:
        """Rows whose value equals the literal (a None literal selects the null rows)."""
        return self.visit_in((literal,))

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        """All rows of ``[0, row_count)`` except those ``=`` selects (null rows included)."""
        return self.visit_not_in((literal,))

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """Union of the literals' rows; an empty list gives an empty bitmap."""
        return BitmapIndexResult(self._union(literals))

    def visit_not_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``IN`` flipped over ``[0, row_count)``."""
        bm = self._union(literals)
        bm.flip_inplace(0, self.row_count)
        return BitmapIndexResult(bm)

    def visit_is_null(self) -> FileIndexResult:
        """The null rows."""
        return self.visit_in((None,))

    def visit_is_not_null(self) -> FileIndexResult:
        """The non-null rows."""
        return self.visit_not_in((None,))

    # -- whole-index views ------------------------------------------------------------------------
    def lookup(self, value: Any) -> BitMap:
        """The rows holding ``value`` (None: the null rows), as a new bitmap."""
        return self._union((value,))

    def null_bitmap(self) -> BitMap:
        """The null rows, as a new bitmap."""
        return self._union((None,))

    def _entries(self) -> Iterator[tuple[Hashable, int, int]]:
        """Every (raw key, offset, length) in stored order; lengths as Paimon's reader has them."""
        if self.version == VERSION_1:
            lengths = self._v1_lengths
            for key, off in zip(self._v1_keys, self._v1_offsets):
                yield key, off, (lengths.get(key, -1) if off >= 0 else -1)
        else:
            for i in range(len(self._blocks)):
                block = self._block(i)
                yield from zip(block.keys, block.offsets, block.lengths)

    def _all_bitmaps(self) -> Iterator[tuple[Hashable, int, int, BitMap]]:
        """(raw key, offset, length, rows) of every entry in stored order.

        The common case (a stored bitmap whose range lies inside the buffer) is decoded inline;
        anything unusual goes through :meth:`_read_bitmap`, which raises the precise error.
        """
        mv, body, end, row_count = self._mv, self.body_start, len(self._mv), self.row_count
        deserialize, read = BitMap.deserialize, self._read_bitmap
        for key, off, length in self._entries():
            if off >= 0 and length >= 0 and body + off + length <= end:
                try:
                    bm = deserialize(mv[body + off:body + off + length])  # type: ignore[arg-type]  # any buffer works
                except Exception:
                    bm = read(off, length, key)  # raises with path, offset and field
                if bm and bm.max() >= row_count:
                    read(off, length, key)  # raises
            else:
                bm = read(off, length, key)
            yield key, off, length, bm

    def iter_bitmaps(self) -> Iterator[tuple[Any, BitMap]]:
        """Every distinct non-null value with its rows, in stored order (V2: sorted)."""
        to_value = self._codec.value_mapper()
        if to_value is None:
            for key, _, _, bm in self._all_bitmaps():
                yield key, bm
        else:
            for key, _, _, bm in self._all_bitmaps():
                yield to_value(key), bm

    def values(self) -> Iterator[BitmapValue]:
        """Every distinct non-null value: row count and bitmap bytes (for a ``bitmap_values`` frame)."""
        to_value = self._codec.to_value
        data, body, end, row_count = self._r.data, self.body_start, len(self._r), self.row_count
        deserialize, read = BitMap.deserialize, self._read_bitmap
        for key, off, length in self._entries():
            if off < 0:
                position = self._single_row(off, key)
                yield BitmapValue(to_value(key), 1, _single_bitmap_bytes(position), False)
                continue
            if length >= 0 and body + off + length <= end:
                raw = data[body + off:body + off + length]
                try:
                    bm = deserialize(raw)
                except Exception:
                    bm = read(off, length, key)  # raises with path, offset and field
                if bm and bm.max() >= row_count:
                    read(off, length, key)  # raises
            else:
                bm = read(off, length, key)
                start, stop = self._bitmap_range(off, length, key)
                raw = data[start:stop]
            yield BitmapValue(to_value(key), len(bm), raw, True)

    def summary(self) -> BitmapIndexSummary:
        """Decode everything (all blocks, all bitmaps) into a :class:`BitmapIndexSummary`."""
        r = self._r
        counts: list[BitmapValueCount] = []
        singletons = 0
        to_value = self._codec.to_value
        for key, off, length, bm in self._all_bitmaps():
            if off < 0:
                counts.append(BitmapValueCount(to_value(key), 1, 0))
                singletons += 1
            else:
                if length == -1:
                    length = self._bitmap_range(off, length, key)[1] - self.body_start - off
                counts.append(BitmapValueCount(to_value(key), len(bm), length))
        if len(counts) != self.non_null_bitmap_count:
            raise r.error("non_null_bitmap_count", len(counts), self.non_null_bitmap_count, at=5,
                          detail="the header count differs from the entries stored")
        null_bytes = 0
        null_entry = self._find_entry(None)
        if null_entry is not None and null_entry[0] >= 0:
            start, end = self._bitmap_range(null_entry[0], null_entry[1], None)
            null_bytes = end - start
        null_count = len(self.null_bitmap())
        blocks: list[BitmapIndexBlockInfo] = []
        index_block_bytes = 0
        if self.version == VERSION_2:
            for i in range(len(self._blocks)):
                block = self._block(i)
                blocks.append(BitmapIndexBlockInfo(to_value(self._block_keys[i]), self._block_offsets[i],
                                                   block.size, len(block.keys)))
            index_block_bytes = self.body_start - self.index_block_start
        return BitmapIndexSummary(
            version=self.version,
            row_count=self.row_count,
            null_count=null_count,
            cardinality=len(counts),
            values=tuple(counts),
            singleton_values=singletons,
            total_bytes=len(r),
            header_bytes=self.index_block_start,
            index_block_bytes=index_block_bytes,
            bitmap_bytes=len(r) - self.body_start,
            null_bitmap_bytes=null_bytes,
            index_blocks=tuple(blocks),
        )


# ---- writer --------------------------------------------------------------------------------------

_MEMORY_UNITS = {
    "": 1, "b": 1, "bytes": 1,
    "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}


def parse_memory_size(text: str | int) -> int:
    """Paimon's ``MemorySize.parse``: ``"64b"``, ``"16kb"``, ``"1 mb"`` ... -> bytes (units of 1024)."""
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in _MEMORY_UNITS:
        raise ValueError(f"not a memory size: {text!r}")
    return int(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]


class BitmapIndexWriter:
    """Builds a bitmap index byte-identical to Paimon's ``BitmapFileIndex`` writer.

    Values are written row by row (internal values; None is a null). The dictionary (V1) and the
    bitmap body (both versions) follow ``java.util.HashMap`` iteration order, reproduced by
    :class:`~paimon_lens.formats.bitmap_meta.JavaHashMapOrder`; V2 index blocks are sorted.

    Args:
        data_type: the column type.
        version: 1 or 2 (Paimon's ``version`` option; 2 is the default).
        index_block_size: V2 ``index-block-size`` as bytes or a memory size string.
    """

    def __init__(self, data_type: DataType, version: int = VERSION_2,
                 index_block_size: int | str = DEFAULT_INDEX_BLOCK_SIZE) -> None:
        if version not in (VERSION_1, VERSION_2):
            raise ValueError(f"invalid bitmap index version: {version}")
        self.data_type = data_type
        self.version = version
        self.index_block_size = parse_memory_size(index_block_size)
        self._codec = key_codec(data_type)
        self._positions: dict[Hashable, list[int]] = {}
        self._nulls: list[int] = []
        self._order = JavaHashMapOrder()
        self._rows = 0

    def write(self, value: Any) -> None:
        """Append one row."""
        codec = self._codec
        key = codec.literal_key(value)
        row = self._rows
        if key is None:
            self._nulls.append(row)
        else:
            rows = self._positions.get(key)
            if rows is None:
                if not codec.in_range(key):
                    raise ValueError(f"{value!r} is out of range for {self.data_type}")
                self._positions[key] = [row]
                self._order.insert(key, codec.java_hash(key))
            else:
                rows.append(row)
                self._order.access()
        self._rows = row + 1

    def write_all(self, values: Iterable[Any]) -> None:
        """Append rows."""
        for v in values:
            self.write(v)

    def serialized_bytes(self) -> bytes:
        """The index bytes, as Paimon's ``serializedBytes()`` returns them."""
        codec = self._codec
        null_bm = BitMap(self._nulls)
        null_bm.run_optimize()
        null_bytes = null_bm.serialize()
        n_nulls = len(self._nulls)
        null_offset = -1 - self._nulls[0] if n_nulls == 1 else 0
        offset = len(null_bytes) if n_nulls > 1 else 0
        entries: list[tuple[Hashable, int, int]] = []  # key, offset, length (-1: single row)
        body: list[bytes] = [null_bytes] if n_nulls > 1 else []
        for key in self._order.order():
            rows = self._positions[key]
            if len(rows) == 1:
                entries.append((key, -1 - rows[0], -1))
            else:
                bm = BitMap(rows)
                bm.run_optimize()
                raw = bm.serialize()
                entries.append((key, offset, len(raw)))
                body.append(raw)
                offset += len(raw)
        out = bytearray()
        out.append(self.version)
        out += struct.pack(">ii?", self._rows, len(entries), n_nulls > 0)
        if n_nulls:
            out += _I32.pack(null_offset)
        if self.version == VERSION_1:
            for key, off, _ in entries:
                out += codec.encode(key)
                out += _I32.pack(off)
        else:
            if n_nulls:
                out += _I32.pack(len(null_bytes))
            out += self._v2_index(sorted(entries, key=lambda e: e[0]))  # type: ignore[arg-type,return-value]
        for raw in body:
            out += raw
        return bytes(out)

    def _v2_index(self, entries: list[tuple[Hashable, int, int]]) -> bytes:
        codec = self._codec
        limit = self.index_block_size
        blocks: list[list[tuple[Hashable, int, int]]] = []
        sizes: list[int] = []
        for e in entries:
            entry_bytes = 8 + codec.key_size(e[0])
            if blocks and sizes[-1] + entry_bytes <= limit:
                blocks[-1].append(e)
                sizes[-1] += entry_bytes
            elif 4 + entry_bytes <= limit:
                blocks.append([e])
                sizes.append(4 + entry_bytes)
            else:
                raise ValueError(f"index-block-size {limit} is too small for one entry of {entry_bytes} bytes "
                                 "(Paimon fails with 'index fail')")
        out = bytearray(_I32.pack(len(blocks)))
        block_offset = 0
        for block, size in zip(blocks, sizes):
            out += codec.encode(block[0][0])
            out += _I32.pack(block_offset)
            block_offset += size
        out += _I32.pack(block_offset)
        for block in blocks:
            out += _I32.pack(len(block))
            for key, off, length in block:
                out += codec.encode(key)
                out += struct.pack(">ii", off, length)
        return bytes(out)


def write_bitmap_index(data_type: DataType, values: Iterable[Any], version: int = VERSION_2,
                       index_block_size: int | str = DEFAULT_INDEX_BLOCK_SIZE) -> bytes:
    """Build the bitmap index Paimon writes for these row values (see :class:`BitmapIndexWriter`)."""
    w = BitmapIndexWriter(data_type, version, index_block_size)
    w.write_all(values)
    return w.serialized_bytes()
