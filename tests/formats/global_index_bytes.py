"""Encoders of the btree and bitmap global index layouts, for round-trip and corruption tests.

Written from the layouts in the decoders' module docstrings (``paimon_lens.formats.global_index``),
independently of the decoders; the golden tests check the decoders against files pypaimon wrote.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

from pyroaring import BitMap64


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def block(entries: Sequence[tuple[bytes, bytes]]) -> bytes:
    """An unaligned SST block body."""
    body = bytearray()
    offsets = []
    for k, v in entries:
        offsets.append(len(body))
        body += varint(len(k)) + k + varint(len(v)) + v
    body += struct.pack(f"<{len(offsets)}i", *offsets) + struct.pack("<i", len(offsets)) + b"\x01"
    return bytes(body)


def stored(body: bytes) -> bytes:
    """A block with its trailer (uncompressed)."""
    return body + b"\x00" + struct.pack("<I", zlib.crc32(body + b"\x00"))


def btree(keys: Sequence[tuple[bytes, Sequence[int]]], nulls: Sequence[int] = (), per_block: int = 3) -> bytes:
    """A btree global index file: ``keys`` (serialized, ascending) -> row ids."""
    out = bytearray()
    index = []
    for i in range(0, len(keys), per_block):
        chunk = keys[i:i + per_block]
        body = block([(k, varint(len(ids)) + b"".join(varint(r) for r in ids)) for k, ids in chunk])
        index.append((chunk[-1][0], varint(len(out)) + varint(len(body))))
        out += stored(body)
    null_off = null_size = 0
    if nulls:
        raw = BitMap64(nulls).serialize()
        null_off, null_size = len(out), len(raw)
        out += raw + struct.pack("<I", zlib.crc32(raw))
    ib = block(index)
    index_off = len(out)
    out += stored(ib)
    out += struct.pack("<qiqqiqiii", 0, 0, 0, index_off, len(ib), null_off, null_size, 1, 0x50425449)
    return bytes(out)


def bitmap(keys: Sequence[tuple[bytes, Sequence[int]]], nulls: Sequence[int] = (), per_block: int = 3) -> bytes:
    """A bitmap (BGIX) global index file."""
    out = bytearray()
    blocks = []
    entries: list[tuple[bytes, int, int]] = []
    for k, ids in keys:
        raw = BitMap64(ids).serialize()
        entries.append((k, len(out), len(raw)))
        out += raw
    for i in range(0, len(entries), per_block):
        chunk = entries[i:i + per_block]
        body = varint(len(chunk)) + b"".join(varint(len(k)) + k + varint(o) + varint(n) for k, o, n in chunk)
        blocks.append((chunk[0][0], len(out), len(body)))
        out += stored(body)
    null_raw = BitMap64(nulls).serialize()
    null_off = len(out)
    out += null_raw
    non_null = BitMap64()
    for _, ids in keys:
        non_null |= BitMap64(ids)
    nn_raw = non_null.serialize()
    nn_off = len(out)
    out += nn_raw
    ib = varint(len(blocks)) + b"".join(varint(len(k)) + k + varint(o) + varint(n) for k, o, n in blocks)
    index_off = len(out)
    out += stored(ib)
    out += struct.pack(">qiqiqiiii", null_off, len(null_raw), nn_off, len(nn_raw), index_off, len(ib), len(keys), 1,
                       0x42474958)
    return bytes(out)
