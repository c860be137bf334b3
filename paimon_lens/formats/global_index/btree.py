"""The btree global index file (``paimon-common`` ``globalindex/btree/BTreeIndexWriter``,
``BTreeFileFooter``, ``BTreeIndexReader``; identical in Paimon 1.4 and 2.0).

An SST file (see :mod:`.blocks`) mapping each distinct non-null key to its local row ids, in key
order. Physical layout, offset 0 to the end (no header)::

    [data block][trailer] ...          entries: key -> varint32 count, varint64 row_id x count
    [null bitmap][i32 LE crc32]        Roaring64 portable (local row ids whose key is null); optional
    [bloom filter]                     optional; no Paimon release writes one
    [index block][trailer]             entries: last key of a data block -> block handle
    footer, 52 bytes, little-endian:
        i64 bloom.offset | i32 bloom.size | i64 bloom.expected_entries
        i64 index.offset | i32 index.size          (size without the trailer)
        i64 null.offset  | i32 null.size           (size without the crc)
        i32 version = 1  | i32 magic = 0x50425449 ("PBTI"; bytes 49 54 42 50)

Row ids are not delta-encoded and need not be ascending within a key. All-zero bloom or null
triples mean "absent". Keys: :mod:`.keys`. A Roaring64 portable bitmap is ``u64 LE count`` then
per 32-bit high key ``u32 LE high`` and a 32-bit Roaring portable bitmap (pyroaring's
``BitMap64`` reads it).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from pyroaring import BitMap64

from ...errors import CorruptFileError
from ...types import DataType
from .blocks import TRAILER_SIZE, BlockHandle, entries, read_block, varint
from .keys import KeyCodec
from .sorted_index import SortedIndex

MAGIC = 0x50425449
FOOTER_SIZE = 52
_FOOTER = struct.Struct("<qiqqiqiii")


@dataclass(frozen=True)
class BTreeFooter:
    """The 52-byte footer of a btree global index file."""

    bloom_offset: int
    bloom_size: int
    bloom_expected_entries: int
    index_offset: int
    index_size: int
    null_offset: int
    null_size: int
    version: int


@dataclass(frozen=True)
class BTreeBlock:
    """One data block: where it is, how it is stored, its keys."""

    offset: int
    size: int
    compression: str
    entries: int
    first_key: object
    last_key: object
    rows: int


def read_footer(data: bytes, path: str | None) -> BTreeFooter:
    """The footer, checked against the file size."""
    n = len(data)
    if n < FOOTER_SIZE:
        raise CorruptFileError(path, 0, "file size", f">= {FOOTER_SIZE} bytes (the footer)", n)
    (bo, bs, be, io, isz, no, ns, version, magic) = _FOOTER.unpack_from(data, n - FOOTER_SIZE)
    if magic != MAGIC:
        raise CorruptFileError(path, n - 4, "footer.magic", f"{MAGIC:#x} (PBTI)", f"{magic & 0xFFFFFFFF:#x}")
    if version != 1:
        raise CorruptFileError(path, n - 8, "footer.version", 1, version)
    body = n - FOOTER_SIZE
    if not (io >= 0 and isz >= 0 and io + isz + TRAILER_SIZE <= body):
        raise CorruptFileError(path, n - FOOTER_SIZE + 20, "footer.index", f"a block before the footer (at {body})",
                               f"offset {io}, size {isz}")
    if (no or ns) and not (no >= 0 and ns >= 0 and no + ns + 4 <= body):
        raise CorruptFileError(path, n - FOOTER_SIZE + 32, "footer.null_bitmap",
                               f"a bitmap before the footer (at {body})", f"offset {no}, size {ns}")
    if (bo or bs or be) and not (bo >= 0 and bs >= 0 and bo + bs <= body):
        raise CorruptFileError(path, n - FOOTER_SIZE, "footer.bloom_filter", f"bytes before the footer (at {body})",
                               f"offset {bo}, size {bs}")
    return BTreeFooter(bo, bs, be, io, isz, no, ns, version)


class BTreeIndex(SortedIndex):
    """A decoded btree global index file.

    Attributes:
        footer: the footer.
        blocks: the data blocks in file order.
        index_compression: how the index block is stored.
    """

    index_type = "btree"

    def __init__(self, data: bytes, dtype: DataType, path: str | None = None) -> None:
        footer = read_footer(data, path)
        codec = KeyCodec(dtype)
        index = read_block(data, BlockHandle(footer.index_offset, footer.index_size), path, "index block")
        pairs: list[tuple[object, BitMap64]] = []
        blocks: list[BTreeBlock] = []
        for b, (last_raw, handle_raw) in enumerate(entries(index, path, "index block")):
            offset, p = varint(handle_raw, 0, path, f"index block.entry[{b}].offset", footer.index_offset)
            size, p = varint(handle_raw, p, path, f"index block.entry[{b}].size", footer.index_offset, 5)
            if p != len(handle_raw):
                raise CorruptFileError(path, footer.index_offset, f"index block.entry[{b}].handle",
                                       "varint64 offset, varint32 size", handle_raw.hex())
            what = f"data block {b}"
            block = read_block(data, BlockHandle(offset, size), path, what)
            first = len(pairs)
            rows = 0
            for e, (kraw, vraw) in enumerate(entries(block, path, what)):
                key = codec.decode(kraw, path)
                ids = _row_ids(vraw, path, f"{what}.entry[{e}].row_ids", offset)
                rows += len(ids)
                pairs.append((key, ids))
            last = codec.decode(last_raw, path)
            if len(pairs) == first:
                raise CorruptFileError(path, offset, what, "at least one entry", "an empty block")
            if codec.sort_key(pairs[-1][0]) != codec.sort_key(last):
                raise CorruptFileError(path, footer.index_offset, f"index block.entry[{b}].key",
                                       f"the last key of {what} ({pairs[-1][0]!r})", repr(last))
            blocks.append(BTreeBlock(offset, size, block.compression, len(pairs) - first, pairs[first][0], last, rows))
        nulls = BitMap64()
        if footer.null_offset or footer.null_size:
            nulls = _null_bitmap(data, footer, path)
        super().__init__(dtype, pairs, nulls, path)
        self.footer = footer
        self.blocks = tuple(blocks)
        self.index_compression = index.compression
        self.file_size = len(data)


def _row_ids(raw: bytes, path: str | None, field: str, at: int) -> BitMap64:
    count, p = varint(raw, 0, path, f"{field}.count", at, 5)
    if count <= 0:
        raise CorruptFileError(path, at, f"{field}.count", "> 0", count)
    if count > len(raw) - p:
        raise CorruptFileError(path, at, f"{field}.count", f"<= {len(raw) - p} (one byte per id at least)", count)
    ids = []
    for i in range(count):
        v, p = varint(raw, p, path, f"{field}[{i}]", at)
        ids.append(v)
    if p != len(raw):
        raise CorruptFileError(path, at, field, f"{count} row ids and nothing after", f"{len(raw) - p} more bytes")
    return BitMap64(ids)


def _null_bitmap(data: bytes, footer: BTreeFooter, path: str | None) -> BitMap64:
    start, size = footer.null_offset, footer.null_size
    raw = data[start:start + size]
    crc = struct.unpack_from("<i", data, start + size)[0] & 0xFFFFFFFF
    if crc != zlib.crc32(raw):
        raise CorruptFileError(path, start + size, "null_bitmap.crc32", f"{zlib.crc32(raw):#010x}", f"{crc:#010x}")
    return read_bitmap64(raw, path, "null_bitmap", start)


def read_bitmap64(raw: bytes, path: str | None, field: str, at: int) -> BitMap64:
    """A Roaring64 portable bitmap occupying exactly ``raw``."""
    if len(raw) < 8:
        raise CorruptFileError(path, at, field, "a Roaring64 bitmap (>= 8 bytes)", f"{len(raw)} bytes")
    try:
        bm = BitMap64.deserialize(raw)
    except Exception as e:  # pyroaring raises ValueError (or OverflowError) on bad bytes
        raise CorruptFileError(path, at, field, "a Roaring64 portable bitmap", raw[:16].hex(), detail=str(e)) from None
    return bm
