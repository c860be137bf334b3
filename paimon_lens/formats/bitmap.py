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

import struct
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, ClassVar, cast, overload

from pyroaring import BitMap

from ..errors import CorruptFileError
from ..io.byte_reader import ByteReader
from ..metadata.options import parse_memory_size
from ..types import DataType
from .bitmap_meta import (
    JavaHashMapOrder,
    KeyCodec,
    hashmap_order,
    java_binary_search,
    java_hashes,
    key_codec,
)
from .float_keys import F32_MASK, F64_MASK, bits_array
from .grouping import CodedRows, first_occurrence_codes, write_batch
from .index_reader import FileIndexReader
from .result import BitmapIndexResult, FileIndexResult
from .roaring import portable_cardinalities, serialized_size
from .summary import IndexSummary

if TYPE_CHECKING:  # at run time numpy is imported inside the functions using it (a slow import)
    import numpy as np
    import numpy.typing as npt

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


class BitmapValueCounts(Sequence[BitmapValueCount]):
    """The ``values`` of a :class:`BitmapIndexSummary`: a read-only sequence of :class:`BitmapValueCount`.

    Kept compactly as parallel lists (raw keys, row counts, bitmap byte counts); the records are
    built on first access and then kept, so a summary nobody lists the values of pays nothing for
    them. Compares equal to a tuple or list of the same records; ``row_counts`` and
    ``bitmap_sizes`` read the counts without building any record.
    """

    __slots__ = ("_codec", "_keys", "_records", "_rows", "_sizes")

    def __init__(self, keys: list[Hashable], rows: list[int], sizes: list[int], codec: KeyCodec) -> None:
        if not len(keys) == len(rows) == len(sizes):
            raise ValueError("keys, rows and sizes differ in length")
        self._keys = keys
        self._rows = rows
        self._sizes = sizes
        self._codec = codec
        self._records: tuple[BitmapValueCount, ...] | None = None

    def records(self) -> tuple[BitmapValueCount, ...]:
        """All records as a tuple (built once)."""
        records = self._records
        if records is None:
            records = self._records = tuple(map(BitmapValueCount, self._codec.to_values(self._keys),
                                                self._rows, self._sizes))
        return records

    @property
    def row_counts(self) -> tuple[int, ...]:
        """``row_count`` of every value, in order."""
        return tuple(self._rows)

    @property
    def bitmap_sizes(self) -> tuple[int, ...]:
        """``bitmap_bytes`` of every value, in order."""
        return tuple(self._sizes)

    def __len__(self) -> int:
        return len(self._rows)

    def __bool__(self) -> bool:
        return bool(self._rows)

    @overload
    def __getitem__(self, index: int) -> BitmapValueCount: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[BitmapValueCount, ...]: ...

    def __getitem__(self, index: int | slice) -> BitmapValueCount | tuple[BitmapValueCount, ...]:
        return self.records()[index]

    def __iter__(self) -> Iterator[BitmapValueCount]:
        return iter(self.records())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BitmapValueCounts):
            return len(self) == len(other) and self.records() == other.records()
        if isinstance(other, (tuple, list)):
            return len(self) == len(other) and self.records() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.records())

    def __repr__(self) -> str:
        return f"BitmapValueCounts({list(self.records())!r})"


@dataclass(frozen=True, slots=True)
class BitmapIndexBlockInfo:
    """A V2 index block: its first value, offset in the block area, size and entry count."""

    first_value: Any
    offset: int
    size: int
    entry_count: int


@dataclass(frozen=True)
class BitmapIndexSummary(IndexSummary):
    """What one bitmap index holds, for a ``file_indexes()`` frame.

    Byte counts split the index into ``header_bytes`` (everything before the V2 index blocks, or
    before the V1 body: version, counts, null info, the V1 dictionary, the V2 block directory),
    ``index_block_bytes`` (V2 index blocks) and ``bitmap_bytes`` (the body). ``values`` keeps
    the stored order (V1: dictionary order, V2: sorted); the reader fills it with a
    :class:`BitmapValueCounts`, whose records are built only when read. Do not key a dict by
    float values (Python has ``-0.0 == 0.0``, the index does not).
    """

    index_type: ClassVar[str] = "bitmap"
    derived: ClassVar[tuple[str, ...]] = ("index_block_count", "dictionary_bytes")
    detail: ClassVar[frozenset[str]] = frozenset({"values", "index_blocks"})

    version: int
    row_count: int
    null_count: int
    cardinality: int
    values: Sequence[BitmapValueCount]
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
class _Run:
    """Consecutive index entries (a V2 block, or a slice of the V1 dictionary).

    Keys, offsets and lengths as lists (lookups, one-by-one decoding); the int64 arrays of the
    offsets and lengths for bulk decoding are made on first use when parsing did not give them.
    """

    keys: list[Hashable]
    offsets: list[int]
    lengths: list[int]
    offset_array: npt.NDArray[np.int64] | None = None
    length_array: npt.NDArray[np.int64] | None = None

    def __getitem__(self, s: slice) -> _Run:
        oa, la = self.offset_array, self.length_array
        return _Run(self.keys[s], self.offsets[s], self.lengths[s], None if oa is None else oa[s],
                    None if la is None else la[s])

    def single_rows(self) -> int:
        """How many entries are single rows (a negative offset, no stored bitmap)."""
        if self.offset_array is not None:
            return int((self.offset_array < 0).sum())
        return sum(1 for off in self.offsets if off < 0)

    def arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The offsets and lengths as int64 arrays."""
        import numpy as np

        if self.offset_array is None:
            self.offset_array = np.array(self.offsets, dtype=np.int64)
        if self.length_array is None:
            self.length_array = np.array(self.lengths, dtype=np.int64)
        return self.offset_array, self.length_array


@dataclass(slots=True)
class _Block:
    """A decoded V2 index block: its entries and its size in bytes."""

    entries: _Run
    size: int

    @property
    def keys(self) -> list[Hashable]:
        return self.entries.keys

    @property
    def offsets(self) -> list[int]:
        return self.entries.offsets

    @property
    def lengths(self) -> list[int]:
        return self.entries.lengths


_SMALL = 48  # runs shorter than this are decoded entry by entry (numpy does not pay off)
_V1_BATCH = 4096  # V1 dictionary entries decoded per batch
_BATCH_BYTES = 256 * 1024  # serialized bitmap bytes decoded per batch (at least one bitmap)
_COUNT_BATCH = 4096  # index entries summary() counts from the bitmap headers at once (about)
_COUNT_MAX_BYTES = 256  # larger bitmaps are cheaper to deserialise than to count with numpy
_deserialize = BitMap.deserialize
_bitmap_max = BitMap.max

# Keys, one list per trailing i32 field, and those fields as a (count, fields) int64 array if made.
_Parsed = tuple[list[Hashable], list[list[int]], "npt.NDArray[np.int64] | None"]


def _split(run: _Run, split: bool = True) -> Iterator[tuple[_Run, bool]]:
    """A bulk run cut into pieces of about :data:`_BATCH_BYTES` of bitmaps (at least one entry each)."""
    import numpy as np

    n = len(run.keys)
    if not split:
        yield run, True
        return
    sizes = np.cumsum(np.maximum(run.arrays()[1], 0))
    if n < 2 or sizes[-1] <= _BATCH_BYTES:
        yield run, True
        return
    cuts = np.searchsorted(sizes, np.arange(_BATCH_BYTES, int(sizes[-1]), _BATCH_BYTES), side="right")
    points = sorted({0, n, *cuts.tolist()})
    for a, b in pairwise(points):
        yield run[a:b], True


# ---- reader --------------------------------------------------------------------------------------

class BitmapFileIndexReader(FileIndexReader):
    """Reads one column's bitmap index (V1 or V2) and answers predicates as Paimon 2.0 does.

    The header is decoded on construction (V1: the whole dictionary; V2: the block directory);
    V2 index blocks are decoded on first use, one at a time, and bitmaps are deserialised only
    when a lookup needs them, then cached. All results are
    :class:`~paimon_lens.formats.result.BitmapIndexResult`, never shared with the cache.
    :meth:`summary` is computed once and then kept.

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
        self._cache: dict[Hashable, BitMap] = {}
        self._summary: BitmapIndexSummary | None = None
        self._blocks: list[_Block | None] = []
        self._block_keys: list[Hashable] = []
        self._block_offsets: list[int] = []
        self._v1 = _Run([], [], [])  # the V1 dictionary; lengths: -1 for unknown (measured) or a single row
        self._v1_null_length = -1
        self._v1_lookup: dict[Hashable, int] | None = None  # built on the first V1 lookup
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

    def _read_keys(self, count: int, fields: int, field: str, end: int | None = None) -> _Parsed:
        """``count`` records of (key, ``fields`` trailing i32s) from the current position.

        Read with the byte reader's bulk primitives, bounds checked once: many records as a numpy
        array, a few as tuples (small indexes never import numpy). String keys are located record
        by record (:meth:`~paimon_lens.io.byte_reader.ByteReader.length_prefixed`).
        """
        r, codec = self._r, self._codec
        if not codec.fixed:
            return self._read_string_keys(count, fields, field, end)
        mapper = codec.key_mapper()
        if count < _SMALL:
            rows = r.tuples(struct.Struct(">" + codec.fmt + "i" * fields), count, field, end)
            keys: list[Hashable] = [row[0] for row in rows]
            if mapper is not None:
                keys = list(map(mapper, keys))
            return keys, [[row[f] for row in rows] for f in range(1, fields + 1)], None
        import numpy as np

        records = r.records(np.dtype([("key", codec.numpy_dtype), ("tail", ">i4", (fields,))]), count, field, end)
        keys = records["key"].tolist()
        if mapper is not None:
            keys = list(map(mapper, keys))
        tail = records["tail"].astype(np.int64)
        return keys, [tail[:, f].tolist() for f in range(fields)], tail

    def _read_string_keys(self, count: int, fields: int, field: str, end: int | None) -> _Parsed:
        """String keys: (i32 length, bytes) followed by ``fields`` i32s, located record by record."""
        r = self._r
        data = r.data
        tail = 4 * fields
        if count >= _SMALL and r.pos + 4 <= len(r):
            # Keys of one length (codes, ids, hashes ...) are fixed-size records: one numpy read,
            # valid when every record carries that length.
            import numpy as np

            n = _I32.unpack_from(data, r.pos)[0]
            limit = len(r) if end is None else end
            if n > 0 and count * (4 + n + tail) <= limit - r.pos:
                pos = r.pos
                records = r.records(np.dtype([("n", ">i4"), ("key", f"V{n}"), ("tail", ">i4", (fields,))]),
                                    count, field, end)
                if bool((records["n"] == n).all()):
                    values = records["tail"].astype(np.int64)
                    return records["key"].tolist(), [values[:, f].tolist() for f in range(fields)], values
                r.pos = pos
        starts = r.length_prefixed(count, tail, field, end)
        key_ends = [*starts[1:], r.pos] if starts else []
        keys: list[Hashable] = [data[a + 4:b - tail] for a, b in zip(starts, key_ends)]
        if count < _SMALL:
            st = struct.Struct(">" + "i" * fields)
            rest = [st.unpack_from(data, b - tail) for b in key_ends]
            return keys, [[row[f] for row in rest] for f in range(fields)], None
        import numpy as np

        at = np.array(key_ends, dtype=np.int64) - tail
        values = np.frombuffer(data, np.uint8)[at[:, None] + np.arange(tail)].view(">i4").astype(np.int64)
        return keys, [values[:, f].tolist() for f in range(fields)], values

    def _parse_v1_dictionary(self) -> None:
        import numpy as np

        keys, (offsets,), tail = self._read_keys(self.non_null_bitmap_count, 1, "dictionary")
        self.body_start = self._r.pos
        self.index_block_start = self.body_start
        # Paimon's V1 reader: a bitmap's length is the distance to the next non-negative offset in
        # dictionary order, starting from the null offset (0 without nulls); the last is unknown.
        if tail is None:
            lengths = [-1] * len(offsets)
            last, last_off = -1, self.null_offset
            for i, off in enumerate(offsets):
                if off >= 0:
                    if last >= 0:
                        lengths[last] = off - last_off
                    elif last_off >= 0:
                        self._v1_null_length = off - last_off
                    last, last_off = i, off
            self._v1 = _Run(keys, offsets, lengths)
            return
        offset_array = tail[:, 0]
        length_array = np.full(len(keys), -1, dtype=np.int64)
        stored = np.flatnonzero(offset_array >= 0)
        if len(stored):
            stored_offsets = offset_array[stored]
            length_array[stored[:-1]] = np.diff(stored_offsets)
            if self.null_offset >= 0:
                self._v1_null_length = int(stored_offsets[0]) - self.null_offset
        self._v1 = _Run(keys, offsets, length_array.tolist(), offset_array, length_array)

    def _v1_index(self, key: Hashable) -> int | None:
        """Position of a raw key in the V1 dictionary (the last one, as a map keeps it)."""
        lookup = self._v1_lookup
        if lookup is None:
            keys = self._v1.keys
            lookup = self._v1_lookup = dict(zip(keys, range(len(keys))))
        return lookup.get(key)

    def _parse_v2_directory(self) -> None:
        r = self._r
        count = r.check_count(r.i32("index_block_count"), self._codec.size + 4, "index_block_count")
        keys, (offsets,), _ = self._read_keys(count, 1, "index_block_directory")
        body_offset_at = r.pos
        body_offset = r.i32("bitmap_body_offset")
        self.index_block_start = r.pos
        if body_offset < 0 or body_offset > r.remaining:
            raise r.error("bitmap_body_offset", f"0..{r.remaining}", body_offset, at=body_offset_at)
        self.body_start = self.index_block_start + body_offset
        self._block_keys = keys
        self._block_offsets = offsets
        for i, off in enumerate(offsets):
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
            keys, (offsets, lengths), tail = self._read_keys(n, 2, f"index_block[{i}].entries", end=limit)
            run = _Run(keys, offsets, lengths) if tail is None else _Run(keys, offsets, lengths, tail[:, 0], tail[:, 1])
            block = _Block(run, r.pos - start)
            self._blocks[i] = block
        return block

    # -- entries and bitmaps ----------------------------------------------------------------------
    def _find_entry(self, key: Hashable) -> tuple[int, int] | None:
        """(offset, length) of a raw key as Paimon's ``findEntry`` finds it, or None."""
        if key is None:
            if not self.has_null:
                return None
            if self.version == VERSION_1:
                return self.null_offset, self._v1_null_length
            return self.null_offset, self.null_bitmap_length
        if self.version == VERSION_1:
            i = self._v1_index(key)
            if i is None:
                return None
            return self._v1.offsets[i], self._v1.lengths[i]
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

    def _read_sized(self, offset: int, length: int, key: Hashable) -> tuple[BitMap, int]:
        """The entry decoder: the rows of one entry and its stored size (0 for a single row).

        A negative offset is a single row (checked against the row count); otherwise the stored
        bitmap (a length of -1 is measured) is range checked, deserialised and its rows checked.
        Every lookup goes through here, and so does every entry the bulk decoder does not take.
        """
        if offset < 0:
            return BitMap([self._single_row(offset, key)]), 0
        r = self._r
        start, end = self._bitmap_range(offset, length, key)
        try:
            bm = _deserialize(r.data[start:end])
        except Exception as e:  # pyroaring raises ValueError / IndexError on invalid input
            raise r.error(self._field(key), "a portable Roaring bitmap", r.data[start:start + 16].hex(),
                          detail=str(e), at=start) from None
        if bm and bm.max() >= self.row_count:
            raise r.error(self._field(key), f"row positions below row_count {self.row_count}", bm.max(),
                          at=start, detail="bitmap holds a row past the end of the file")
        return bm, end - start

    def _bitmap(self, key: Hashable) -> BitMap:
        bm = self._cache.get(key)
        if bm is None:
            entry = self._find_entry(key)
            bm = BitMap() if entry is None else self._read_sized(entry[0], entry[1], key)[0]
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

    def _runs(self) -> Iterator[_Run]:
        """The entries in stored order, a V2 block or a slice of the V1 dictionary at a time."""
        if self.version == VERSION_1:
            run = self._v1
            if len(run.keys) <= _V1_BATCH:
                yield run
            else:
                for a in range(0, len(run.keys), _V1_BATCH):
                    yield run[a:a + _V1_BATCH]
            return
        for i in range(len(self._blocks)):
            yield self._block(i).entries

    def _pieces(self, split: bool = True) -> Iterator[tuple[_Run, bool]]:
        """Every entry in stored order, in runs; True marks a run to decode in bulk.

        A bulk run holds only in-range stored bitmaps and valid single rows (bounds checked with
        numpy), about :data:`_BATCH_BYTES` of bitmaps at most if ``split``. The others (short runs,
        and each entry that is neither) are decoded one entry at a time by :meth:`_read_sized`.
        """
        import numpy as np

        body, end, row_count = self.body_start, len(self._r), self.row_count
        for run in self._runs():
            if len(run.keys) < _SMALL:
                yield run, False
                continue
            offsets, lengths = run.arrays()
            stored = offsets >= 0
            bad = np.where(stored, (lengths < 0) | (offsets + lengths + body > end), -1 - offsets >= row_count)
            if not bad.any():
                yield from _split(run, split)
                continue
            a = 0
            for j in np.flatnonzero(bad).tolist():
                if a < j:
                    yield from _split(run[a:j], split)
                yield run[j:j + 1], False
                a = j + 1
            if a < len(run.keys):
                yield from _split(run[a:], split)

    def _entry_error(self, offset: int, length: int, key: Hashable) -> CorruptFileError:
        """The error of an entry the bulk decoder rejected (the entry decoder names it)."""
        try:
            self._read_sized(offset, length, key)
        except CorruptFileError as e:
            return e
        return self._r.error(self._field(key), "a bitmap the bulk decoder accepts", "one it rejects",
                             at=self.body_start + offset)

    def _decode_bulk(self, run: _Run) -> tuple[list[BitMap], CorruptFileError | None]:
        """The rows of each entry of a bulk run, in order, up to the first one rejected, and its error.

        A bulk run's ranges and single rows were checked by :meth:`_pieces`; the stored bitmaps
        are deserialised in one pass and their rows checked against the row count at once. The
        first entry pyroaring or that check rejects ends the list, with the error the entry decoder
        (:meth:`_read_sized`) gives for it.
        """
        data, body = self._r.data, self.body_start
        offsets, lengths = run.arrays()
        bms: list[BitMap] = []
        try:
            if bool((offsets >= 0).all()):
                starts = offsets + body
                bms.extend(map(_deserialize, map(data.__getitem__,
                                                 map(slice, starts.tolist(), (starts + lengths).tolist()))))
            else:
                def entry(off: int, length: int) -> BitMap:
                    return BitMap((-1 - off,)) if off < 0 else _deserialize(data[body + off:body + off + length])

                bms.extend(map(entry, run.offsets, run.lengths))
            rejected = None
        except Exception:  # pyroaring raises ValueError / IndexError on invalid input
            rejected = len(bms)
        row_count = self.row_count
        if max(map(_bitmap_max, filter(None, bms)), default=-1) >= row_count:
            rejected = next(i for i, bm in enumerate(bms) if bm and bm.max() >= row_count)
        if rejected is None:
            return bms, None
        return bms[:rejected], self._entry_error(run.offsets[rejected], run.lengths[rejected], run.keys[rejected])

    def _decoded(self) -> Iterator[tuple[_Run, list[BitMap]]]:
        """Every entry with its rows, in stored order, a run at a time (the run's prefix before an error).

        Bulk runs go through :meth:`_decode_bulk`, the others entry by entry through
        :meth:`_read_sized`; either way a bad entry raises after the entries before it were yielded.
        """
        read = self._read_sized
        for run, bulk in self._pieces():
            if bulk:
                bms, error = self._decode_bulk(run)
            else:
                bms, error = [], None
                try:
                    for key, off, length in zip(run.keys, run.offsets, run.lengths):
                        bms.append(read(off, length, key)[0])
                except CorruptFileError as e:
                    error = e
            yield (run if error is None else run[:len(bms)]), bms
            if error is not None:
                raise error

    def _count_runs(self, runs: list[_Run], keys: list[Hashable], rows: list[int], sizes: list[int]) -> None:
        """Append the raw keys, row counts and bitmap sizes of bulk runs to ``keys``, ``rows``, ``sizes``.

        The row counts of small bitmaps come from their serialized form
        (:func:`~paimon_lens.formats.roaring.portable_cardinalities`, all runs at once); the others,
        and any small one it does not vouch for, are deserialised by :meth:`_bulk_counts`.
        """
        if not runs:
            return
        import numpy as np

        if len(runs) == 1:
            offsets, lengths = runs[0].arrays()
        else:
            parts = [run.arrays() for run in runs]
            offsets = np.concatenate([p[0] for p in parts])
            lengths = np.concatenate([p[1] for p in parts])
        stored = offsets >= 0
        all_stored = bool(stored.all())
        starts = (offsets if all_stored else offsets[stored]) + self.body_start
        stored_lengths = lengths if all_stored else lengths[stored]
        counts, ok = portable_cardinalities(self._r.data, starts, stored_lengths, self.row_count,
                                            _COUNT_MAX_BYTES)
        if not ok.all():
            todo = np.flatnonzero(~ok)
            counts[todo] = self._bulk_counts(starts[todo], stored_lengths[todo], runs, np.flatnonzero(stored)[todo])
        for run in runs:
            keys += run.keys
        if all_stored:
            rows += counts.tolist()
            sizes += lengths.tolist()
        else:
            row_counts = np.ones(len(offsets), dtype=np.int64)
            row_counts[stored] = counts
            rows += row_counts.tolist()
            sizes += np.where(stored, lengths, 0).tolist()

    def _bulk_counts(self, starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], runs: list[_Run],
                     entries: npt.NDArray[np.int64]) -> list[int]:
        """Row counts of stored bitmaps (``entries`` index the entries of ``runs``), deserialised one
        after another and not kept; the first one pyroaring or the row check rejects raises the
        entry decoder's error for it."""
        data, row_count = self._r.data, self.row_count
        counts: list[int] = []
        append = counts.append
        ranges = map(slice, starts.tolist(), (starts + lengths).tolist())
        try:
            for bm in map(_deserialize, map(data.__getitem__, ranges)):
                if bm and bm.max() >= row_count:
                    break
                append(len(bm))
            else:
                return counts
        except Exception:  # pyroaring raises ValueError / IndexError on invalid input
            pass
        k = len(counts)
        run_keys = runs[0].keys if len(runs) == 1 else list(chain.from_iterable(run.keys for run in runs))
        raise self._entry_error(int(starts[k]) - self.body_start, int(lengths[k]), run_keys[int(entries[k])])

    def iter_bitmaps(self) -> Iterator[tuple[Any, BitMap]]:
        """Every distinct non-null value with its rows, in stored order (V2: sorted).

        Lazy, a run of entries at a time; a bad entry raises after the entries before it were
        yielded.
        """
        to_values = None if self._codec.value_mapper() is None else self._codec.to_values
        for run, bms in self._decoded():
            yield from zip(run.keys if to_values is None else to_values(run.keys), bms)

    def values(self) -> Iterator[BitmapValue]:
        """Every distinct non-null value: row count and bitmap bytes (for a ``bitmap_values`` frame)."""
        to_value = self._codec.to_value
        data, body = self._r.data, self.body_start
        for run, bms in self._decoded():
            for key, off, length, bm in zip(run.keys, run.offsets, run.lengths, bms):
                if off < 0:
                    yield BitmapValue(to_value(key), 1, _single_bitmap_bytes(-1 - off), False)
                    continue
                start, stop = (body + off, body + off + length) if length >= 0 else self._bitmap_range(off, length, key)
                yield BitmapValue(to_value(key), len(bm), data[start:stop], True)

    def summary(self) -> BitmapIndexSummary:
        """Decode everything (all blocks, all bitmaps) into a :class:`BitmapIndexSummary` (kept)."""
        if self._summary is not None:
            return self._summary
        r = self._r
        keys: list[Hashable] = []
        rows: list[int] = []
        sizes: list[int] = []
        singletons = 0
        pending: list[_Run] = []  # bulk runs not counted yet, at most about _COUNT_BATCH entries
        waiting = 0
        try:
            for run, bulk in self._pieces(split=False):
                if bulk:
                    pending.append(run)
                    waiting += len(run.keys)
                    if waiting >= _COUNT_BATCH:
                        batch, pending, waiting = pending, [], 0
                        self._count_runs(batch, keys, rows, sizes)
                else:
                    batch, pending, waiting = pending, [], 0
                    self._count_runs(batch, keys, rows, sizes)
                    read = self._read_sized
                    for key, off, length in zip(run.keys, run.offsets, run.lengths):
                        bm, size = read(off, length, key)
                        keys.append(key)
                        rows.append(len(bm))
                        sizes.append(size)
                singletons += run.single_rows()
        except Exception:
            self._count_runs(pending, keys, rows, sizes)  # an error in an earlier bitmap comes first
            raise
        self._count_runs(pending, keys, rows, sizes)
        if len(keys) != self.non_null_bitmap_count:
            raise r.error("non_null_bitmap_count", len(keys), self.non_null_bitmap_count, at=5,
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
            to_value = self._codec.to_value
            for i in range(len(self._blocks)):
                block = self._block(i)
                blocks.append(BitmapIndexBlockInfo(to_value(self._block_keys[i]), self._block_offsets[i],
                                                   block.size, len(block.keys)))
            index_block_bytes = self.body_start - self.index_block_start
        self._summary = BitmapIndexSummary(
            version=self.version,
            row_count=self.row_count,
            null_count=null_count,
            cardinality=len(keys),
            values=BitmapValueCounts(keys, rows, sizes, self._codec),
            singleton_values=singletons,
            total_bytes=len(r),
            header_bytes=self.index_block_start,
            index_block_bytes=index_block_bytes,
            bitmap_bytes=len(r) - self.body_start,
            null_bitmap_bytes=null_bytes,
            index_blocks=tuple(blocks),
        )
        return self._summary


# ---- writer --------------------------------------------------------------------------------------

class BitmapIndexWriter:
    """Builds a bitmap index byte-identical to Paimon's ``BitmapFileIndex`` writer.

    Values are written row by row with :meth:`write`, or many at once with :meth:`write_many`
    (internal values, None is a null); either way the rows are kept as dictionary codes
    (:class:`~paimon_lens.formats.grouping.CodedRows`) and :meth:`serialized_bytes` lays the
    index out from them in one vectorised pass. The dictionary (V1) and the bitmap body (both
    versions) follow ``java.util.HashMap`` iteration order, in closed form
    (:func:`~paimon_lens.formats.bitmap_meta.hashmap_order`), replayed by
    :class:`~paimon_lens.formats.bitmap_meta.JavaHashMapOrder` where a tree bin forms; V2 index
    blocks are sorted.

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
        self._coded = CodedRows()
        self._bulk: _BulkRows | None = None  # the rows' layout state, until more rows are written

    @property
    def _rows(self) -> int:
        return self._coded.rows

    def write(self, value: Any) -> None:
        """Append one row."""
        key = self._codec.literal_key(value)
        if key is not None and key not in self._coded and not self._codec.in_range(key):
            raise ValueError(f"{value!r} is out of range for {self.data_type}")
        self._coded.add(key)
        self._bulk = None

    def write_all(self, values: Iterable[Any]) -> None:
        """Append rows (:meth:`write_many`)."""
        self.write_many(values)

    def write_many(self, values: Iterable[Any]) -> None:
        """Append rows in bulk: the same bytes as :meth:`write` of each value, much faster.

        The values are grouped at once (a dict of the distinct values, numpy for the rows). A
        value :meth:`write` would reject makes this write them one at a time, which raises the
        same error after the same rows.
        """
        def group(vals: list[Any]) -> bool:
            self._coded.add_grouped(*_group_keys(self._codec, vals))
            return True

        write_batch(values, group, self.write, (TypeError, ValueError, OverflowError))
        self._bulk = None

    def _state(self) -> _BulkRows:
        """The rows as one :class:`_BulkRows` (kept, and shared by copies of the writer)."""
        if self._bulk is None:
            self._bulk = _BulkRows(self._coded.keys(), self._coded.codes())
        return self._bulk

    def serialized_bytes(self) -> bytes:
        """The index bytes, as Paimon's ``serializedBytes()`` returns them."""
        import numpy as np

        bulk = self._state()
        codec = self._codec
        lay = bulk.layout(codec)
        n_nulls = lay.null_count
        out = bytearray()
        out.append(self.version)
        out += struct.pack(">ii?", self._rows, len(bulk.keys), n_nulls > 0)
        if n_nulls:
            out += _I32.pack(lay.null_offset)
        if self.version == VERSION_1:
            hm = lay.hashmap_order
            keys = bulk.keys
            if codec.kind == "string":
                records, _ = _string_records([keys[i] for i in hm.tolist()], lay.offsets[hm][:, None])
                out += records.tobytes()
            elif len(hm):
                rec = np.empty(len(hm), dtype=[("k", codec.numpy_dtype), ("o", ">i4")])
                rec["k"] = lay.stored_keys()[hm]
                rec["o"] = lay.offsets[hm]
                out += rec.tobytes()
        else:
            if n_nulls:
                out += _I32.pack(len(lay.null_bytes))
            out += self._v2_index(bulk, lay)
        out += lay.body
        return bytes(out)

    def _v2_index(self, bulk: _BulkRows, lay: _BulkLayout) -> bytes:
        """The V2 block directory and index blocks: entries sorted by key, cut greedily into blocks of
        at most ``index-block-size`` bytes (``4 + sum(8 + key bytes)``)."""
        import numpy as np

        codec = self._codec
        limit = self.index_block_size
        order = lay.sorted_order()
        k = len(order)
        if codec.kind == "string":
            keys = [bulk.keys[i] for i in order.tolist()]
            records, starts = _string_records(keys, np.stack([lay.offsets[order], lay.lengths[order]], axis=1))
            sizes = np.diff(np.append(starts, len(records)))
        else:
            rec = np.empty(k, dtype=[("k", codec.numpy_dtype), ("o", ">i4"), ("l", ">i4")])
            rec["k"] = lay.stored_keys()[order]
            rec["o"] = lay.offsets[order]
            rec["l"] = lay.lengths[order]
            records = np.frombuffer(rec.tobytes(), dtype=np.uint8)
            sizes = np.full(k, rec.dtype.itemsize, dtype=np.int64)
            starts = np.arange(k, dtype=np.int64) * rec.dtype.itemsize
        # ends[i] is the byte end of entry i in ``records``
        ends = starts + sizes
        bounds: list[tuple[int, int]] = []  # entry index ranges
        i = 0
        while i < k:
            j = int(np.searchsorted(ends, starts[i] + limit - 4, side="right"))
            if j <= i:
                raise ValueError(f"index-block-size {limit} is too small for one entry of {int(sizes[i])} bytes "
                                 "(Paimon fails with 'index fail')")
            bounds.append((i, j))
            i = j
        directory = bytearray(_I32.pack(len(bounds)))
        blocks = bytearray()
        first_keys = [bulk.keys[int(order[a])] for a, _ in bounds]
        for (a, b), first in zip(bounds, first_keys):
            directory += codec.encode(first)
            directory += _I32.pack(len(blocks))
            blocks += _I32.pack(b - a)
            blocks += records[int(starts[a]):int(ends[b - 1])].tobytes()
        directory += _I32.pack(len(blocks))
        return bytes(directory + blocks)


@dataclass(slots=True)
class _BulkLayout:
    """Where every entry of a bulk-written bitmap index goes (shared by every block size).

    Arrays are indexed by key code (first-occurrence order): ``offsets``/``lengths`` as stored
    (``-1 - row`` and -1 for a single row); ``hashmap_order`` the codes in ``HashMap`` order;
    ``body`` the serialized bitmaps (the null bitmap first when it has several rows).
    """

    codec: KeyCodec
    keys: list[Hashable]
    offsets: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    hashmap_order: npt.NDArray[np.int64]
    null_count: int
    null_offset: int
    null_bytes: bytes
    body: bytes
    _stored: npt.NDArray[Any] | None = None
    _sorted: npt.NDArray[np.int64] | None = None

    def stored_keys(self) -> npt.NDArray[Any]:
        """Fixed-size keys as stored (big-endian numpy array, by code)."""
        if self._stored is None:
            self._stored = _stored_keys(self.codec, self.keys)
        return self._stored

    def sorted_order(self) -> npt.NDArray[np.int64]:
        """Codes sorted by key (Java's comparator; the V2 entry order)."""
        import numpy as np

        if self._sorted is None:
            if self.codec.kind == "string":
                keys = cast(list[bytes], self.keys)
                self._sorted = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
            else:
                self._sorted = np.argsort(np.array(self.keys, dtype=np.int64), kind="stable")
        return self._sorted


class _BulkRows:
    """The rows of a :class:`BitmapIndexWriter`: distinct keys and each row's key code.

    ``keys`` are the distinct non-null raw keys in first-occurrence order; ``codes[row]`` is the
    index of the row's key, -1 for a null. The layout is computed once and shared by copies of
    the writer (the what-if builder serializes one layout with several block sizes).
    """

    __slots__ = ("_layout", "codes", "keys")

    def __init__(self, keys: list[Hashable], codes: npt.NDArray[np.int64]) -> None:
        self.keys = keys
        self.codes = codes
        self._layout: _BulkLayout | None = None

    def layout(self, codec: KeyCodec) -> _BulkLayout:
        """The entries' offsets, lengths, HashMap order and body (computed on first use)."""
        if self._layout is None:
            self._layout = self._make_layout(codec)
        return self._layout

    def _make_layout(self, codec: KeyCodec) -> _BulkLayout:
        import array

        import numpy as np

        keys, codes = self.keys, self.codes
        k = len(keys)
        non_null = np.flatnonzero(codes >= 0)
        nulls = np.flatnonzero(codes < 0)
        key_codes = codes[non_null]
        by_code = non_null[np.argsort(key_codes, kind="stable")]  # rows grouped by code, ascending
        counts = np.bincount(key_codes, minlength=k).astype(np.int64)
        starts = np.zeros(k, dtype=np.int64)
        if k:
            np.cumsum(counts[:-1], out=starts[1:])
        first_rows = by_code[starts] if k else starts
        trailing = bool(k) and int(non_null[-1]) > int(first_rows[-1])
        hashes = java_hashes(codec, keys)
        hm = hashmap_order(hashes, trailing)
        if hm is None:  # a tree bin at some point: replay java.util.HashMap
            order = JavaHashMapOrder()
            for key, h in zip(keys, hashes.tolist()):
                order.insert(key, h)
            if trailing:
                order.access()
            index = {key: i for i, key in enumerate(keys)}
            hm = np.array([index[key] for key in order.order()], dtype=np.int64)

        null_bm = BitMap(array.array("I", nulls.astype(np.uint32).tobytes()))
        null_bm.run_optimize()
        null_bytes = null_bm.serialize()
        n_nulls = len(nulls)
        body: list[bytes] = [null_bytes] if n_nulls > 1 else []
        offsets = -1 - first_rows
        lengths = np.full(k, -1, dtype=np.int64)
        multi = hm[counts[hm] > 1]  # codes with a stored bitmap, in HashMap (body) order
        if len(multi):
            rows = array.array("I", by_code.astype(np.uint32).tobytes())
            ser = _serialize_rows
            raws = [ser(BitMap(rows[a:a + c])) for a, c in zip(starts[multi].tolist(), counts[multi].tolist())]
            sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
            base = len(null_bytes) if n_nulls > 1 else 0
            offsets[multi] = base + np.cumsum(sizes) - sizes
            lengths[multi] = sizes
            body += raws
        return _BulkLayout(codec, keys, offsets, lengths, hm, n_nulls,
                           int(-1 - nulls[0]) if n_nulls == 1 else 0, null_bytes, b"".join(body))


def _serialize_rows(bm: BitMap) -> bytes:
    bm.run_optimize()
    raw: bytes = bm.serialize()
    return raw


_INT_KINDS = frozenset({"byte", "short", "int", "long"})
_INT_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}


def _group_keys(codec: KeyCodec, values: list[Any]) -> tuple[list[Hashable], npt.NDArray[np.int64]]:
    """The distinct raw keys of ``values`` in first-occurrence order, and each row's key code (-1: null).

    Raises TypeError/ValueError/OverflowError for a value :meth:`BitmapIndexWriter.write` rejects.
    Plain ``str`` and ``int`` columns are grouped by value before the keys are made (str hashes
    are cached, and only the distinct values are encoded); anything else key by key.
    """
    import numpy as np

    kinds = set(map(type, values))
    kinds.discard(type(None))
    kind = codec.kind
    by_value = (kind == "string" and kinds <= {str}) or (kind in _INT_KINDS and codec.ts_micros is None
                                                         and kinds <= {int})
    distinct, codes = first_occurrence_codes(values if by_value else map(codec.literal_key, values))
    if kind == "string":
        keys: list[Hashable] = [v.encode("utf-8", "replace") if isinstance(v, str) else v for v in distinct]
        if by_value and len(set(keys)) != len(keys):  # lone surrogates: distinct strings, equal keys
            merged: dict[Hashable, int] = {}
            remap = np.array([merged.setdefault(key, len(merged)) for key in keys], dtype=np.int64)
            keys = list(merged)
            codes = np.where(codes >= 0, remap[codes], -1)
        return keys, codes
    keys = distinct
    if kind in _INT_KINDS and keys:
        bits = _INT_BITS[kind]
        lo, hi = min(keys), max(keys)  # type: ignore[type-var]  # int keys
        if lo < -(1 << (bits - 1)) or hi >= 1 << (bits - 1):  # type: ignore[operator]
            raise ValueError(f"a value is out of range for {codec.data_type}")
    return keys, codes


def _stored_keys(codec: KeyCodec, keys: Sequence[Hashable]) -> npt.NDArray[Any]:
    """Fixed-size raw keys as their stored big-endian values (a numpy array)."""
    import numpy as np

    kind = codec.kind
    arr = np.array(keys, dtype=np.int64)
    if kind == "float":  # the signed bits, wrapped to the stored unsigned form by astype
        arr = bits_array(arr, F32_MASK)
    elif kind == "double":
        arr = bits_array(arr, F64_MASK)
    return arr.astype(codec.numpy_dtype)


def _string_records(keys: Sequence[bytes], tail: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.uint8],
                                                                                   npt.NDArray[np.int64]]:
    """``len:i32 + key + tail[i] as i32s`` for every key, back to back, and each record's start."""
    import numpy as np

    n = len(keys)
    width = 4 * tail.shape[1] if tail.ndim == 2 else 0
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=n)
    sizes = 4 + lengths + width
    starts = np.zeros(n, dtype=np.int64)
    if n:
        np.cumsum(sizes[:-1], out=starts[1:])
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    if n == 0:
        return out, starts
    four = np.arange(4)
    out[(starts[:, None] + four).ravel()] = lengths.astype(">i4").view(np.uint8)
    data = np.frombuffer(b"".join(keys), dtype=np.uint8)
    if len(data):
        key_starts = np.cumsum(lengths) - lengths
        out[np.repeat(starts + 4 - key_starts, lengths) + np.arange(len(data))] = data
    if width:
        out[((starts + 4 + lengths)[:, None] + np.arange(width)).ravel()] = tail.astype(">i4").view(np.uint8).ravel()
    return out, starts


def write_bitmap_index(data_type: DataType, values: Iterable[Any], version: int = VERSION_2,
                       index_block_size: int | str = DEFAULT_INDEX_BLOCK_SIZE) -> bytes:
    """Build the bitmap index Paimon writes for these row values (see :class:`BitmapIndexWriter`)."""
    w = BitmapIndexWriter(data_type, version, index_block_size)
    w.write_many(values)
    return w.serialized_bytes()
