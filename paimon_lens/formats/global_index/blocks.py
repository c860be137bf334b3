"""Blocks of Paimon's SST layout, shared by the btree and bitmap global indexes (``paimon-common``
``sst/BlockWriter``, ``BlockReader``, ``BlockTrailer``, ``BlockHandle``, ``SstFileUtils``).

A stored block is followed by a 5-byte trailer; integers are little-endian, varints unsigned
LEB128 (no zig-zag)::

    stored block   raw body, or (compressed)  varint32 uncompressed_length | codec payload
    trailer        u8 compression (0 none, 1 zstd, 2 lz4, 3 lzo) | i32 LE crc32(stored block ++ that byte)

    body           entry* | tail
    entry          varint32 key_length | key | varint32 value_length | value
    tail, aligned    i32 LE record_size | u8 0x00      every entry record_size bytes long
    tail, unaligned  i32 LE offset[n] | i32 LE n | u8 0x01   offset of each entry in the body

Codec payloads: zstd a zstd frame; lz4 and lzo ``i32 LE compressed_length | i32 LE
original_length`` and a raw block. A block handle (the value of an index-block entry) is
``varint64 offset | varint32 size`` of a stored block, without its trailer. The checksum is zlib's
CRC-32 (Paimon's name for it says CRC32C; the code computes CRC-32).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from ...errors import CorruptFileError

TRAILER_SIZE = 5
COMPRESSIONS = {0: "none", 1: "zstd", 2: "lz4", 3: "lzo"}
_I32 = struct.Struct("<i")


@dataclass(frozen=True)
class BlockHandle:
    """Where a stored block lies in its file (``size`` excludes the trailer)."""

    offset: int
    size: int


@dataclass(frozen=True)
class StoredBlock:
    """One block as read: its body and how it was stored."""

    handle: BlockHandle
    compression: str
    body: bytes


def varint(buf: bytes, pos: int, path: str | None, field: str, at: int, limit: int = 10) -> tuple[int, int]:
    """The unsigned LEB128 varint at ``pos`` (at most ``limit`` bytes) and the position after it;
    ``at`` is the file offset of ``buf[0]`` for errors."""
    value = shift = 0
    end = min(pos + limit, len(buf))
    for i in range(pos, end):
        b = buf[i]
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i + 1
        shift += 7
    raise CorruptFileError(path, at + pos, field, f"a varint of at most {limit} bytes",
                           buf[pos:end].hex() or "end of data")


def read_block(data: bytes, handle: BlockHandle, path: str | None, what: str) -> StoredBlock:
    """The block at ``handle`` in the file ``data``: trailer checked (CRC), body decompressed."""
    start, size = handle.offset, handle.size
    if start < 0 or size < 0 or start + size + TRAILER_SIZE > len(data):
        raise CorruptFileError(path, start, f"{what}.handle", f"a block inside the file ({len(data)} bytes)",
                               f"offset {start}, size {size} + {TRAILER_SIZE}-byte trailer")
    stored = data[start:start + size]
    kind = data[start + size]
    crc = _I32.unpack_from(data, start + size + 1)[0] & 0xFFFFFFFF
    want = zlib.crc32(stored + bytes([kind]))
    if crc != want:
        raise CorruptFileError(path, start + size + 1, f"{what}.crc32", f"{want:#010x}", f"{crc:#010x}")
    if kind not in COMPRESSIONS:
        raise CorruptFileError(path, start + size, f"{what}.compression", "0-3 (none, zstd, lz4, lzo)", kind)
    if kind == 0:
        return StoredBlock(handle, "none", stored)
    length, pos = varint(stored, 0, path, f"{what}.uncompressed_length", start, 5)
    body = _decompress(COMPRESSIONS[kind], stored[pos:], length, path, f"{what} ({COMPRESSIONS[kind]})", start + pos)
    return StoredBlock(handle, COMPRESSIONS[kind], body)


def _decompress(codec: str, payload: bytes, length: int, path: str | None, what: str, at: int) -> bytes:
    if codec == "zstd":
        try:
            from backports import zstd  # type: ignore[import-not-found,unused-ignore]
        except ImportError:  # Python 3.14+
            from compression import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
        try:
            out: bytes = zstd.decompress(payload)
        except Exception as e:  # the codec's own error type
            raise CorruptFileError(path, at, what, "a zstd frame", payload[:16].hex(), detail=str(e)) from None
    else:
        if len(payload) < 8:
            raise CorruptFileError(path, at, f"{what} header", "8 bytes (compressed, original length)",
                                   f"{len(payload)} bytes")
        clen, olen = struct.unpack_from("<ii", payload)
        if clen != len(payload) - 8 or olen != length:
            raise CorruptFileError(path, at, f"{what} header", f"lengths {len(payload) - 8}, {length}",
                                   f"{clen}, {olen}")
        if codec == "lzo":
            raise CorruptFileError(path, at, what, "a codec paimon-lens reads (none, zstd, lz4)", "lzo",
                                   detail="LZO-compressed blocks are not decoded")
        try:
            import lz4.block  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise CorruptFileError(path, at, what, "the lz4 package to decode it", "lz4 not installed",
                                   detail="pip install 'paimon-lens[lz4]'") from None
        try:
            out = lz4.block.decompress(payload[8:], uncompressed_size=olen)
        except Exception as e:
            raise CorruptFileError(path, at, what, "an lz4 block", payload[8:24].hex(), detail=str(e)) from None
    if len(out) != length:
        raise CorruptFileError(path, at, f"{what} length", length, len(out))
    return out


def entries(block: StoredBlock, path: str | None, what: str) -> Iterator[tuple[bytes, bytes]]:
    """The (key, value) entries of a block body, in order."""
    body, at = block.body, block.handle.offset
    n_body = len(body)
    if n_body < 5:
        raise CorruptFileError(path, at, f"{what}.tail", "at least 5 bytes", f"{n_body} bytes")
    aligned = body[-1]
    if aligned == 0:
        size = _I32.unpack_from(body, n_body - 5)[0]
        end = n_body - 5
        if size <= 0 or end % size:
            if end == 0 and size >= 0:
                return
            raise CorruptFileError(path, at + n_body - 5, f"{what}.record_size",
                                   f"a positive divisor of {end}", size)
        starts: list[int] | range = range(0, end, size)
    elif aligned == 1:
        n = _I32.unpack_from(body, n_body - 5)[0]
        end = n_body - 5 - 4 * n
        if n < 0 or end < 0:
            raise CorruptFileError(path, at + n_body - 5, f"{what}.entry_count", f"0..{(n_body - 5) // 4}", n)
        starts = list(struct.unpack_from(f"<{n}i", body, end))
    else:
        raise CorruptFileError(path, at + n_body - 1, f"{what}.aligned", "0 or 1", aligned)
    for i, pos in enumerate(starts):
        if not 0 <= pos < end:
            raise CorruptFileError(path, at + pos, f"{what}.entry[{i}]", f"an offset in 0..{end - 1}", pos)
        klen, p = varint(body, pos, path, f"{what}.entry[{i}].key_length", at, 5)
        if p + klen > end:
            raise CorruptFileError(path, at + pos, f"{what}.entry[{i}].key", f"a key ending by {end}",
                                   f"{klen} bytes from {p}")
        key = body[p:p + klen]
        p += klen
        vlen, p = varint(body, p, path, f"{what}.entry[{i}].value_length", at, 5)
        if p + vlen > end:
            raise CorruptFileError(path, at + pos, f"{what}.entry[{i}]", f"an entry ending by {end}",
                                   f"key {klen} + value {vlen} bytes ending at {p + vlen}")
        yield key, body[p:p + vlen]
