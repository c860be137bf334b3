"""The bitmap global index file (``paimon-common`` ``globalindex/bitmap/BitmapGlobalIndexFormat``,
Paimon 2.0; Paimon 1.4's ``bitmap`` global index is the file-index bitmap format instead, read by
:mod:`paimon_lens.formats.bitmap`).

Physical layout, offset 0 to the end::

    [bitmap of key 0] [bitmap of key 1] ...     Roaring64 portable, local row ids; no trailer
    [dictionary block][trailer] ...             interleaved with the bitmaps (see :mod:`.blocks`)
    [null-rows bitmap]                          Roaring64 portable (8 zero bytes when empty)
    [non-null-rows bitmap]                      Roaring64 portable
    [dictionary-block index][trailer]
    footer, 48 bytes, BIG-endian:
        i64 null.offset | i32 null.length | i64 non_null.offset | i32 non_null.length
        i64 index.offset | i32 index.length (without trailer)
        i32 value_count | i32 version = 1 | i32 magic = 0x42474958 ("BGIX")

    dictionary block (body)   varint32 n, then n x (varint32 key_length | key | varint64 bitmap_offset
                              | varint32 bitmap_length)          offsets absolute
    dictionary-block index    varint32 n, then n x (varint32 key_length | first key |
                              varint64 block_offset | varint32 block_length)

Keys: :mod:`.keys`, written in value order by Paimon's Java writer (pypaimon 2.1 writes them in
byte order, which differs for little-endian numbers: :attr:`SortedIndex.file_order_sorted`).

Paimon 1.4's ``bitmap`` global index is instead the *file-index* bitmap layout (V1 or V2, first byte
the version, 32-bit Roaring bitmaps of positions; see :mod:`paimon_lens.formats.bitmap`) with no
``_INDEX_META``: :class:`LegacyBitmapGlobalIndex` reads it (positions are the local row ids). It
answers ``=``, ``IN``, ``IS [NOT] NULL``, and ``<>`` / ``NOT IN`` as the flip over all its rows,
null rows included.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from pyroaring import BitMap64

from ...errors import CorruptFileError
from ...types import DataType
from .blocks import BlockHandle, StoredBlock, read_block, varint
from .btree import read_bitmap64
from .keys import KeyCodec
from .sorted_index import SortedIndex

MAGIC = 0x42474958
FOOTER_SIZE = 48
_FOOTER = struct.Struct(">qiqiqiiii")


@dataclass(frozen=True)
class BitmapFooter:
    """The 48-byte footer of a bitmap global index file."""

    null_offset: int
    null_length: int
    non_null_offset: int
    non_null_length: int
    index_offset: int
    index_length: int
    value_count: int
    version: int


@dataclass(frozen=True)
class DictionaryBlock:
    """One dictionary block of a bitmap global index."""

    offset: int
    size: int
    compression: str
    entries: int
    first_key: object


def read_footer(data: bytes, path: str | None) -> BitmapFooter:
    """The footer, checked against the file size."""
    n = len(data)
    if n < FOOTER_SIZE:
        raise CorruptFileError(path, 0, "file size", f">= {FOOTER_SIZE} bytes (the footer)", n)
    no, nl, nno, nnl, io, il, count, version, magic = _FOOTER.unpack_from(data, n - FOOTER_SIZE)
    at = n - FOOTER_SIZE
    if magic != MAGIC:
        raise CorruptFileError(path, n - 4, "footer.magic", f"{MAGIC:#x} (BGIX)", f"{magic & 0xFFFFFFFF:#x}")
    if version != 1:
        raise CorruptFileError(path, n - 8, "footer.version", 1, version)
    for field, off, length, pos in (("null_rows", no, nl, 0), ("non_null_rows", nno, nnl, 12),
                                    ("dictionary_index", io, il, 24)):
        if not (off >= 0 and length >= 0 and off + length <= at):
            raise CorruptFileError(path, at + pos, f"footer.{field}", f"bytes before the footer (at {at})",
                                   f"offset {off}, length {length}")
    if count < 0:
        raise CorruptFileError(path, at + 36, "footer.value_count", ">= 0", count)
    return BitmapFooter(no, nl, nno, nnl, io, il, count, version)


class BitmapGlobalIndex(SortedIndex):
    """A decoded bitmap global index file.

    Attributes:
        footer: the footer.
        dictionary_blocks: the dictionary blocks in file order.
        index_compression: how the dictionary-block index is stored.
        non_null_stored: the non-null-rows bitmap as stored (checked to equal the union of the keys').
    """

    index_type = "bitmap"

    def __init__(self, data: bytes, dtype: DataType, path: str | None = None) -> None:
        footer = read_footer(data, path)
        codec = KeyCodec(dtype)
        index = read_block(data, BlockHandle(footer.index_offset, footer.index_length), path,
                           "dictionary-block index")
        blocks: list[DictionaryBlock] = []
        pairs: list[tuple[object, BitMap64]] = []
        for b, (first_raw, offset, length) in enumerate(_records(index, path, "dictionary-block index")):
            what = f"dictionary block {b}"
            block = read_block(data, BlockHandle(offset, length), path, what)
            first = len(pairs)
            for e, (kraw, boff, blen) in enumerate(_records(block, path, what)):
                if not (boff >= 0 and boff + blen <= len(data) - FOOTER_SIZE):
                    raise CorruptFileError(path, offset, f"{what}.entry[{e}].bitmap",
                                           "bytes inside the file", f"offset {boff}, length {blen}")
                rows = read_bitmap64(data[boff:boff + blen], path, f"{what}.entry[{e}].bitmap", boff)
                pairs.append((codec.decode(kraw, path), rows))
            if len(pairs) == first:
                raise CorruptFileError(path, offset, what, "at least one entry", "an empty block")
            first_key = codec.decode(first_raw, path)
            if codec.sort_key(first_key) != codec.sort_key(pairs[first][0]):
                raise CorruptFileError(path, footer.index_offset, f"dictionary-block index.entry[{b}].key",
                                       f"the first key of {what} ({pairs[first][0]!r})", repr(first_key))
            blocks.append(DictionaryBlock(offset, length, block.compression, len(pairs) - first, first_key))
        if len(pairs) != footer.value_count:
            raise CorruptFileError(path, len(data) - 12, "footer.value_count", f"{len(pairs)} (keys in the dictionary)",
                                   footer.value_count)
        nulls = read_bitmap64(data[footer.null_offset:footer.null_offset + footer.null_length], path,
                              "null_rows", footer.null_offset)
        stored = read_bitmap64(data[footer.non_null_offset:footer.non_null_offset + footer.non_null_length], path,
                               "non_null_rows", footer.non_null_offset)
        super().__init__(dtype, pairs, nulls, path)
        if stored != self.non_null:
            raise CorruptFileError(path, footer.non_null_offset, "non_null_rows",
                                   f"the union of the keys' bitmaps ({len(self.non_null)} rows)",
                                   f"{len(stored)} rows")
        self.footer = footer
        self.dictionary_blocks = tuple(blocks)
        self.index_compression = index.compression
        self.file_size = len(data)


class LegacyBitmapGlobalIndex(SortedIndex):
    """A Paimon 1.4 bitmap global index file (the file-index bitmap layout)."""

    index_type = "bitmap"
    legacy = True

    def __init__(self, data: bytes, dtype: DataType, path: str | None = None) -> None:
        from pyroaring import BitMap

        from ..bitmap import BitmapFileIndexReader

        reader = BitmapFileIndexReader(dtype, data, path)
        pairs = [(value, BitMap64(bm)) for value, bm in reader.iter_bitmaps()]
        super().__init__(dtype, pairs, BitMap64(reader.null_bitmap() or BitMap()), path)
        self.version = data[0]
        self.row_count = reader.row_count
        self.file_size = len(data)


def _records(block: StoredBlock, path: str | None, what: str) -> list[tuple[bytes, int, int]]:
    """The (key, offset, length) records of a dictionary block or the dictionary-block index."""
    body, at = block.body, block.handle.offset
    n, p = varint(body, 0, path, f"{what}.count", at, 5)
    if n > len(body):
        raise CorruptFileError(path, at, f"{what}.count", f"<= {len(body)}", n)
    out = []
    for i in range(n):
        klen, p = varint(body, p, path, f"{what}.entry[{i}].key_length", at, 5)
        if p + klen > len(body):
            raise CorruptFileError(path, at + p, f"{what}.entry[{i}].key", f"{klen} bytes", f"{len(body) - p} left")
        key = body[p:p + klen]
        p += klen
        off, p = varint(body, p, path, f"{what}.entry[{i}].offset", at)
        length, p = varint(body, p, path, f"{what}.entry[{i}].length", at, 5)
        out.append((key, off, length))
    if p != len(body):
        raise CorruptFileError(path, at + p, what, f"{n} entries and nothing after", f"{len(body) - p} more bytes")
    return out
