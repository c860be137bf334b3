"""Deletion vectors: the blobs of a ``DELETION_VECTORS`` index file.

A deletion-vector index file (``index/index-<uuid>-<n>``) is::

    version:u8 = 1
    blob*                       one per data file, at the offset the index manifest records

Each blob is one of two kinds, told apart by the 4 bytes after the size prefix.

32-bit (``BitmapDeletionVector``, the default)::

    size:i32 BE                 = 4 + bitmap bytes (magic + bitmap)
    magic:i32 BE = 1581511376   bytes 5e 43 f2 d0
    portable Roaring32 bitmap   run-optimised before writing
    crc:i32 BE                  CRC-32 of magic + bitmap (the ``size`` bytes after the prefix)

    index-manifest length = size                      (prefix and CRC not counted)

    Paimon only writes positions 0..2^31-1; a bitmap holding larger values (which Java would
    see as negative ints) is returned here with its unsigned values.

64-bit (``Bitmap64DeletionVector``, ``deletion-vectors.bitmap64 = true``, Iceberg layout)::

    size:i32 BE                 = 4 + bitmap bytes (magic + bitmap)
    magic:i32 LE = 1681511377   bytes d1 d3 39 64
    count:i64 LE                number of 32-bit bitmaps, 0 .. 2^31-1
    count x (key:i32 LE, portable Roaring32 bitmap)
                                keys ascending, 0 <= key <= 2^31-2; position = key << 32 | low.
                                Paimon writes keys densely 0..max key (gaps as empty 8-byte
                                bitmaps) but reads sparse keys too.
    crc:i32 BE                  CRC-32 of magic + count + keyed bitmaps (same coverage as above)

    index-manifest length = 4 + size + 4              (the whole blob)

The CRC therefore always covers exactly the ``size`` bytes that follow the size prefix. Paimon
2.0 never checks it (0.9 did, for the 32-bit kind): this module computes it and reports
``crc_ok``; a mismatch raises only with ``strict_crc=True``.

Everything else that does not match the layout (truncation, bad magic, a size prefix that
disagrees with the recorded length, an offset outside the file, bytes that are not a valid
Roaring bitmap, bytes left over inside a blob) raises
:class:`~paimon_lens.errors.CorruptFileError` naming the file, the byte offset and the field.
Counts are checked against the bytes left before anything is allocated; bitmaps stay
compressed (pyroaring ``BitMap`` / ``BitMap64``), so a small file never expands into a huge
Python list.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from pyroaring import BitMap, BitMap64

from ..errors import CorruptFileError
from ..io.byte_reader import ByteReader
from ..io.fileio import FileIO
from . import roaring

VERSION_V1 = 1
MAGIC_32 = 1581511376
MAGIC_64 = 1681511377
#: ``MAGIC_64`` as a big-endian read of its little-endian bytes (what a BE reader sees).
MAGIC_64_AS_BE = struct.unpack(">i", struct.pack("<i", MAGIC_64))[0]

#: Largest position a 32-bit deletion vector accepts (``RoaringBitmap32.MAX_VALUE``).
MAX_POSITION_32 = (1 << 31) - 1
#: Largest position a 64-bit deletion vector accepts (``OptimizedRoaringBitmap64.MAX_VALUE``).
MAX_KEY_64 = (1 << 31) - 2
MAX_POSITION_64 = (MAX_KEY_64 << 32) | 0x80000000

SIZE_PREFIX_BYTES = 4
MAGIC_BYTES = 4
CRC_BYTES = 4
#: Smallest portable Roaring bitmap (empty: cookie + container count).
_MIN_ROARING_BYTES = 8
_EMPTY_ROARING = BitMap().serialize()

Kind = Literal["32", "64"]


@dataclass(frozen=True)
class DeletionVector:
    """One decoded deletion-vector blob.

    Attributes:
        kind: ``"32"`` (``BitmapDeletionVector``) or ``"64"`` (``Bitmap64DeletionVector``).
        cardinality: number of deleted positions.
        positions: the deleted row positions (``BitMap`` for 32-bit, ``BitMap64`` for 64-bit).
            Treat as read-only.
        stored_size: the blob's size prefix (magic + bitmap bytes).
        crc_stored: the CRC-32 stored after the bitmap (unsigned).
        crc_computed: CRC-32 of the ``stored_size`` bytes after the size prefix (unsigned).
        crc_ok: ``crc_stored == crc_computed``.
        offset: byte offset of the blob (its size prefix) in the file it was read from.
        length: the length Paimon records for this blob in the index manifest:
            ``stored_size`` for 32-bit, ``stored_size + 8`` (whole blob) for 64-bit.
    """

    kind: Kind
    cardinality: int
    positions: BitMap | BitMap64
    stored_size: int
    crc_stored: int
    crc_computed: int
    crc_ok: bool
    offset: int
    length: int

    @property
    def blob_size(self) -> int:
        """Bytes the blob occupies in the file (size prefix + magic + bitmap + CRC)."""
        return SIZE_PREFIX_BYTES + self.stored_size + CRC_BYTES

    @property
    def end(self) -> int:
        """Offset of the first byte after this blob."""
        return self.offset + self.blob_size

    def is_deleted(self, position: int) -> bool:
        """Whether row ``position`` is marked deleted."""
        if position < 0 or position > (0xFFFFFFFF if self.kind == "32" else 0xFFFFFFFFFFFFFFFF):
            return False
        return position in self.positions

    def to_list(self) -> list[int]:
        """The deleted positions, ascending (materialises them: mind the cardinality)."""
        return list(self.positions)


@dataclass(frozen=True)
class DeletionVectorMeta:
    """What the index manifest records per data file (``DeletionVectorMeta``)."""

    data_file: str
    offset: int
    length: int
    cardinality: int


def manifest_length(kind: Kind, stored_size: int) -> int:
    """The index-manifest ``length`` of a blob whose size prefix is ``stored_size``."""
    return stored_size if kind == "32" else SIZE_PREFIX_BYTES + stored_size + CRC_BYTES


# -- reading -----------------------------------------------------------------------------------


_new = object.__new__


def _kind_name(bitmap64: bool) -> str:
    return "64-bit (magic 1681511377, little-endian)" if bitmap64 else "32-bit (magic 1581511376)"


def _read_blob(r: ByteReader, start: int, length: int | None, bitmap64: bool | None,
               strict_crc: bool, field: str) -> DeletionVector:
    """Decode the blob at ``start`` of ``r`` (buffer-relative); leaves ``r.pos`` after its CRC."""
    data = r.data
    n = len(data)
    if start < 0 or start >= n:
        raise r.error(field + ".offset", f"0..{n - 1}", start, at=min(max(start, 0), n),
                      detail="offset outside the file")
    if start + 8 > n:
        r.seek(start, field + ".offset")
        r.i32(field + ".size")
        r.i32(field + ".magic")  # one of them raises: fewer than 8 bytes are left
    size, magic_be = _SIZE_MAGIC.unpack_from(data, start)
    magic_at = start + SIZE_PREFIX_BYTES
    if magic_be == MAGIC_32:
        kind: Kind = "32"
    elif magic_be == MAGIC_64_AS_BE:
        kind = "64"
    else:
        expected = (_kind_name(bitmap64) if bitmap64 is not None
                    else f"{MAGIC_32} (32-bit) or {MAGIC_64} little-endian (64-bit)")
        raise r.error(field + ".magic", expected, f"{magic_be} (bytes {r.data[magic_at:magic_at + 4].hex()})",
                      at=magic_at)
    if bitmap64 is not None and (kind == "64") != bitmap64:
        raise r.error(field + ".magic", _kind_name(bitmap64), _kind_name(kind == "64"), at=magic_at,
                      detail="deletion-vector kind differs from the one requested")
    # smallest body: an empty Roaring32 bitmap (8 bytes) or a 64-bit count of 0 (8 bytes)
    if size < MAGIC_BYTES + _MIN_ROARING_BYTES:
        raise r.error(field + ".size", f">= {MAGIC_BYTES + _MIN_ROARING_BYTES}", size, at=start,
                      detail="smaller than magic + an empty bitmap")
    if length is not None:
        expected_len = manifest_length(kind, size)
        if length != expected_len:
            what = ("size prefix (magic + bitmap)" if kind == "32"
                    else "4 + size prefix + 4 (whole blob)")
            raise r.error(field + ".size", f"recorded length {length}",
                          f"{expected_len} = {what}", at=start,
                          detail="size prefix disagrees with the length in the index manifest")
    # magic + bitmap must lie inside the buffer (the CRC is checked when read)
    if size > n - magic_at:
        raise r.error(field + ".bitmap", f"{size} more bytes", f"{n - magic_at} left", detail="truncated", at=magic_at)
    body_start = magic_at + MAGIC_BYTES
    body_len = size - MAGIC_BYTES
    if kind == "32":
        positions: BitMap | BitMap64 = roaring.deserialize(r, body_start, body_len, field + ".bitmap")[0]
        cardinality = len(positions)
    else:
        positions, cardinality = _read_bitmap64(r.sub(body_start, body_len, field + ".bitmap"), field + ".bitmap")
    crc_at = magic_at + size
    if crc_at + CRC_BYTES > n:
        raise r.error(field + ".crc", f"{CRC_BYTES} more bytes", f"{n - crc_at} left", detail="truncated", at=crc_at)
    crc_stored: int = _CRC.unpack_from(data, crc_at)[0]
    r.pos = crc_at + CRC_BYTES
    crc_computed = zlib.crc32(memoryview(data)[magic_at:crc_at]) & 0xFFFFFFFF
    if strict_crc and crc_stored != crc_computed:
        raise r.error(field + ".crc", f"{crc_computed:#010x} (CRC-32 of magic + bitmap)",
                      f"{crc_stored:#010x}", at=magic_at + size)
    dv = _new(DeletionVector)  # a frozen instance filled at once (its __init__ costs a third of a small DV)
    dv.__dict__.update(kind=kind, cardinality=cardinality, positions=positions, stored_size=size,
                       crc_stored=crc_stored, crc_computed=crc_computed, crc_ok=crc_stored == crc_computed,
                       offset=r.base + start, length=manifest_length(kind, size))
    return dv


def _read_bitmap64(body: ByteReader, field: str) -> tuple[BitMap64, int]:
    """Decode count + keyed Roaring32 bitmaps filling all of ``body``."""
    count_at = body.pos
    count = body.i64_le(field + ".count")
    if count < 0 or count > 0x7FFFFFFF:
        raise body.error(field + ".count", "0..2147483647", count, at=count_at)
    # every bitmap needs a 4-byte key and at least an 8-byte empty Roaring bitmap
    if count * (4 + _MIN_ROARING_BYTES) > body.remaining:
        raise body.error(field + ".count", f"at most {body.remaining // (4 + _MIN_ROARING_BYTES)} bitmaps",
                         count, at=count_at, detail="count larger than the remaining bytes allow")
    last_key = -1
    cardinality = 0
    for i in range(count):
        key_at = body.pos
        key = body.i32_le(f"{field}.key[{i}]")
        if key < 0 or key > MAX_KEY_64:
            raise body.error(f"{field}.key[{i}]", f"0..{MAX_KEY_64}", key, at=key_at)
        if key <= last_key:
            raise body.error(f"{field}.key[{i}]", f"> {last_key} (ascending)", key, at=key_at)
        last_key = key
        bm, n = roaring.deserialize(body, body.pos, None, f"{field}[{i}]")
        cardinality += len(bm)
        body.pos += n
    if body.remaining:
        raise body.error(field, f"bitmaps ending at byte {body.base + body.pos}",
                         f"{body.remaining} more bytes inside the blob",
                         detail="size prefix larger than the serialized bitmaps")
    try:
        bm64 = BitMap64.deserialize(body.data)
    except Exception as e:  # pyroaring raises ValueError on input it rejects
        raise CorruptFileError(body.path, body.base, field, "a 64-bit portable Roaring bitmap",
                               body.data[:16].hex(), detail=str(e)) from None
    if len(bm64) != cardinality:
        raise CorruptFileError(body.path, body.base, field, f"cardinality {cardinality}", len(bm64),
                               detail="64-bit bitmap disagrees with its 32-bit parts")
    return bm64, cardinality


def _check_version(r: ByteReader) -> None:
    version = r.u8("version")
    if version != VERSION_V1:
        raise r.error("version", VERSION_V1, version, at=0)


def read_deletion_vector(data: bytes, offset: int, length: int | None = None, bitmap64: bool | None = None,
                         path: str | None = None, *, strict_crc: bool = False,
                         check_version: bool = True) -> DeletionVector:
    """Read one deletion vector from the bytes of a DV index file.

    Args:
        data: the whole index file.
        offset: the blob's offset, as recorded in the index manifest.
        length: the recorded length (``None`` to skip the check). 32-bit: magic + bitmap bytes;
            64-bit: the whole blob including size prefix and CRC. Must agree with the blob's size
            prefix, as Paimon's ``DeletionVector.read`` requires.
        bitmap64: expected kind (``deletion-vectors.bitmap64``); ``None`` detects it from the magic.
        path: file name for error messages.
        strict_crc: raise :class:`CorruptFileError` on a CRC mismatch instead of reporting it.
        check_version: require the file's first byte to be version 1 (and ``offset >= 1``).
    """
    r = ByteReader(data, path)
    if check_version:
        _check_version(r)
        if offset < 1:
            raise r.error("offset", ">= 1 (after the version byte)", offset, at=0)
    return _read_blob(r, offset, length, bitmap64, strict_crc, "deletion_vector")


def read_deletion_vector_at(file_io: FileIO, path: str, offset: int, length: int, bitmap64: bool | None = None,
                            *, strict_crc: bool = False) -> DeletionVector:
    """Read one deletion vector of the DV index file ``path``, reading only its version byte and the
    blob at ``offset`` (at most ``length + 8`` bytes: a 32-bit blob's size prefix and CRC are not
    counted in its recorded length), never the whole file.

    ``length`` is the recorded length, checked as in :func:`read_deletion_vector`.
    """
    size = file_io.size(path)
    head = ByteReader(file_io.read_range(path, 0, 1), path)
    _check_version(head)
    if offset < 1 or offset >= size:
        raise CorruptFileError(path, min(max(offset, 0), size), "deletion_vector.offset", f"1..{size - 1}", offset,
                               detail="offset outside the file")
    if length < 0:
        raise CorruptFileError(path, offset, "deletion_vector.length", "a non-negative length", length)
    blob = file_io.read_range(path, offset, min(length + SIZE_PREFIX_BYTES + CRC_BYTES, size - offset))
    return _read_blob(ByteReader(blob, path, base=offset), 0, length, bitmap64, strict_crc, "deletion_vector")


_SIZE_MAGIC = struct.Struct(">ii")
_CRC = struct.Struct(">I")


def read_serialized_deletion_vector(blob: bytes, path: str | None = None, *, bitmap64: bool | None = None,
                                    strict_crc: bool = False) -> DeletionVector:
    """Read one stand-alone serialized deletion vector (``DeletionVector.serializeToBytes``).

    The bytes must be exactly one blob: size prefix, magic, bitmap, CRC, nothing after.
    """
    r = ByteReader(blob, path)
    dv = _read_blob(r, 0, None, bitmap64, strict_crc, "deletion_vector")
    if r.remaining:
        raise r.error("deletion_vector.end", f"end of data at byte {r.pos}", f"{r.remaining} more bytes",
                      detail="trailing bytes after the CRC")
    return dv


def read_dv_index_file(data: bytes, path: str | None = None, *, bitmap64: bool | None = None,
                       strict_crc: bool = False) -> list[DeletionVector]:
    """Walk every blob of a DV index file in file order.

    The version byte must be 1; a 1-byte file holds no vectors. Blobs follow each other without
    gaps (the way ``DeletionFileWriter`` writes them); each is located from its own size prefix.
    """
    r = ByteReader(data, path)
    _check_version(r)
    out: list[DeletionVector] = []
    pos = r.pos
    while pos < len(r):
        dv = _read_blob(r, pos, None, bitmap64, strict_crc, f"deletion_vector[{len(out)}]")
        out.append(dv)
        pos = r.pos
    return out


# -- writing -----------------------------------------------------------------------------------

Positions = Iterable[int] | BitMap | BitMap64


def _to_bitmap(positions: Positions, bitmap64: bool) -> BitMap | BitMap64:
    """A copy of the positions as the bitmap of a 64-bit or 32-bit vector; ValueError out of range."""
    cls, limit, width = (BitMap64, MAX_POSITION_64, 64) if bitmap64 else (BitMap, MAX_POSITION_32, 32)
    if isinstance(positions, (BitMap64, BitMap)):
        if len(positions) and positions.max() > limit:
            raise ValueError(f"position {positions.max()} exceeds the {width}-bit deletion-vector limit {limit}")
        if bitmap64 and isinstance(positions, BitMap):
            return roaring.to_bitmap64(positions)  # not position by position: a run can hold billions
        return cls(positions)
    values = list(positions)
    for p in values:
        if p < 0 or p > limit:
            raise ValueError(f"position {p} outside 0..{limit} ({width}-bit deletion vector)")
    return cls(values)


def _serialize_bitmap64_body(bm: BitMap64) -> bytes:
    """count + dense keyed Roaring32 bitmaps (each run-optimised), as Paimon writes them."""
    # pyroaring writes the same layout with sparse keys; split it, then fill the gaps.
    sparse = ByteReader(bm.serialize(), "<pyroaring BitMap64>")
    n = sparse.i64_le("count")
    parts: dict[int, bytes] = {}
    for _ in range(n):
        key = sparse.u32_le("key")
        size = roaring.serialized_size(sparse, sparse.pos)
        part = BitMap.deserialize(sparse.raw(size, "bitmap"))
        part.run_optimize()
        parts[key] = part.serialize()
    count = max(parts) + 1 if parts else 0
    total = (SIZE_PREFIX_BYTES + MAGIC_BYTES + 8 + sum(len(p) for p in parts.values())
             + 4 * count + len(_EMPTY_ROARING) * (count - len(parts)) + CRC_BYTES)
    if total > 0x7FFFFFFF:
        # Paimon refuses the same ("Can't serialize index > 2GB"): keys are written densely.
        raise ValueError(f"a 64-bit deletion vector with highest key {count - 1} would take {total} bytes "
                         "(> 2 GiB): every key from 0 is written")
    out = [struct.pack("<q", count)]
    for key in range(count):
        out.append(struct.pack("<i", key))
        out.append(parts.get(key, _EMPTY_ROARING))
    return b"".join(out)


def _serialize(bm: BitMap | BitMap64, bitmap64: bool) -> bytes:
    if bitmap64:
        data = struct.pack("<i", MAGIC_64) + _serialize_bitmap64_body(
            bm if isinstance(bm, BitMap64) else roaring.to_bitmap64(bm))
    else:
        bm.run_optimize()
        data = struct.pack(">i", MAGIC_32) + bm.serialize()
    return struct.pack(">i", len(data)) + data + struct.pack(">I", zlib.crc32(data) & 0xFFFFFFFF)


def serialize_deletion_vector(positions: Positions, bitmap64: bool = False) -> bytes:
    """Serialize positions into one blob, byte-identical to Paimon's ``serializeTo``.

    32-bit positions must lie in ``0..2^31-1``; 64-bit ones in ``0..MAX_POSITION_64``.
    Raises ``ValueError`` for positions out of range.
    """
    bm = _to_bitmap(positions, bitmap64)
    return _serialize(bm, bitmap64)


def write_dv_index_file(vectors: Mapping[str, Positions] | Iterable[tuple[str, Positions]],
                        bitmap64: bool = False) -> tuple[bytes, list[DeletionVectorMeta]]:
    """Write a DV index file (version byte, then one blob per data file, in the given order).

    Returns the file bytes and, per data file, the offset/length/cardinality Paimon would record
    in the index manifest (``DeletionFileWriter``).
    """
    items = vectors.items() if isinstance(vectors, Mapping) else vectors
    kind: Kind = "64" if bitmap64 else "32"
    out = bytearray([VERSION_V1])
    metas: list[DeletionVectorMeta] = []
    for data_file, positions in items:
        bm = _to_bitmap(positions, bitmap64)
        blob = _serialize(bm, bitmap64)
        size = struct.unpack_from(">i", blob)[0]
        metas.append(DeletionVectorMeta(data_file, len(out), manifest_length(kind, size), len(bm)))
        out += blob
    return bytes(out), metas
