"""The per-file metadata of global and primary-key indexes, as the index manifest stores it.

``_GLOBAL_INDEX`` (``GlobalIndexMeta``) of an index manifest entry::

    _ROW_RANGE_START long, _ROW_RANGE_END long   the rows the file indexes, both ends inclusive
    _INDEX_FIELD_ID int                          the indexed column's field id
    _EXTRA_FIELD_IDS [int] | null                more indexed columns (multi-column indexes)
    _INDEX_META bytes | null                     per index type (below)
    _SOURCE_META bytes | null                    (2.0) set: a primary-key index (below)

``_INDEX_META`` of ``btree`` and ``bitmap`` (2.0, ``SortedIndexFileMeta``; little-endian)::

    i32 first_key_length | first key | i32 last_key_length | last key | u8 has_nulls
    | u8 format_version = 1 | u8 null_key_flags (bit 0: first key null, bit 1: last key null)

Paimon 1.4's btree meta (``BTreeIndexMeta``) ends after ``has_nulls``; there a zero length means a
null key. Keys: :mod:`.keys`. Vector indexes store ``{}`` or a JSON object of options, full-text a
JSON object of options.

``_SOURCE_META`` of a primary-key index (``PrimaryKeyIndexSourceMeta``, big-endian)::

    i32 version = 1 | i32 data_level (> 0) | i32 file_count (> 0)
    file_count x (u16 length | modified UTF-8 file name | i64 row_count)

The index's ids are ordinals over those files concatenated in that order (the writer sorts them by
name). Master adds a 16-byte data-evolution source meta: ``i32 0x44454958 ("DEIX") | i32 version
| i64 scan snapshot id``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...errors import CorruptFileError
from ...io.byte_reader import ByteReader
from ...metadata.manifest import GlobalIndexMeta
from ...types import DataType
from .keys import KEYABLE, KeyCodec

#: index types whose ``_INDEX_META`` is a sorted-index (first / last key) meta
SORTED_TYPES = frozenset({"btree", "bitmap", "multivalue"})
VECTOR_TYPES = frozenset({"ivf-flat", "ivf-pq", "ivf-sq", "ivf-rq", "diskann", "lumina", "lumina-vector-ann"})

__all__ = ["GlobalIndexMeta", "PrimaryKeyIndexSourceMeta", "SortedIndexFileMeta", "SourceFile", "read_json_meta",
           "read_sorted_meta", "read_source_meta"]


@dataclass(frozen=True)
class SortedIndexFileMeta:
    """``_INDEX_META`` of a btree or bitmap index: the smallest and largest key, and nulls."""

    first_key: Any
    last_key: Any
    has_nulls: bool
    format_version: int | None
    """1 (Paimon 2.0), or None for Paimon 1.4's shorter btree meta."""

    @property
    def only_nulls(self) -> bool:
        """Every indexed row is null."""
        return self.first_key is None and self.last_key is None and self.has_nulls


def read_sorted_meta(raw: bytes, dtype: DataType, path: str | None) -> SortedIndexFileMeta:
    """Decode a sorted index's ``_INDEX_META`` with the indexed column's type."""
    r = ByteReader(raw, path)
    keys: list[bytes] = []
    for name in ("first_key", "last_key"):
        n = r.i32_le(f"_INDEX_META.{name}_length")
        if n < 0 or n > r.remaining:
            raise r.error(f"_INDEX_META.{name}_length", f"0..{r.remaining}", n)
        keys.append(r.raw(n, f"_INDEX_META.{name}"))
    has_nulls = r.u8("_INDEX_META.has_nulls") == 1
    version: int | None = None
    flags = 0
    if r.remaining >= 2:
        version = r.u8("_INDEX_META.format_version")
        if version != 1:
            raise r.error("_INDEX_META.format_version", 1, version, at=r.pos - 1)
        flags = r.u8("_INDEX_META.null_key_flags")
    if r.remaining:
        raise r.error("_INDEX_META", "nothing after the meta", f"{r.remaining} more bytes")
    codec = KeyCodec(dtype) if dtype.root in KEYABLE else None
    decoded: list[Any] = []
    for i, raw_key in enumerate(keys):
        if (version == 1 and flags & (1 << i)) or (version is None and not raw_key):
            decoded.append(None)
        elif codec is None:
            decoded.append(raw_key)
        else:
            decoded.append(codec.decode(raw_key, path))
    return SortedIndexFileMeta(decoded[0], decoded[1], has_nulls, version)


@dataclass(frozen=True)
class SourceFile:
    """One data file a primary-key index covers, with its row count."""

    file_name: str
    row_count: int


@dataclass(frozen=True)
class PrimaryKeyIndexSourceMeta:
    """``_SOURCE_META`` of a primary-key index: the level and the data files it indexes."""

    version: int
    data_level: int
    files: tuple[SourceFile, ...]

    @property
    def row_count(self) -> int:
        """Rows of all source files."""
        return sum(f.row_count for f in self.files)

    def locate(self, ordinal: int) -> tuple[str, int] | None:
        """The (file, row position) of an index ordinal, or None past the last file."""
        for f in self.files:
            if ordinal < f.row_count:
                return f.file_name, ordinal
            ordinal -= f.row_count
        return None

    def offsets(self) -> dict[str, int]:
        """The first ordinal of each source file."""
        out, at = {}, 0
        for f in self.files:
            out[f.file_name] = at
            at += f.row_count
        return out


def read_source_meta(raw: bytes, path: str | None) -> PrimaryKeyIndexSourceMeta:
    """Decode a primary-key index's ``_SOURCE_META``."""
    r = ByteReader(raw, path)
    version = r.i32("_SOURCE_META.version")
    if version != 1:
        raise r.error("_SOURCE_META.version", 1, version, at=0)
    level = r.i32("_SOURCE_META.data_level")
    if level <= 0:
        raise r.error("_SOURCE_META.data_level", "> 0", level, at=4)
    count = r.i32("_SOURCE_META.file_count")
    r.check_count(count, 10, "_SOURCE_META.file_count")
    if count <= 0:
        raise r.error("_SOURCE_META.file_count", "> 0", count, at=8)
    files = []
    for i in range(count):
        name = r.utf(f"_SOURCE_META.files[{i}].name")
        rows = r.i64(f"_SOURCE_META.files[{i}].row_count")
        if rows < 0:
            raise r.error(f"_SOURCE_META.files[{i}].row_count", ">= 0", rows, at=r.pos - 8)
        files.append(SourceFile(name, rows))
    if r.remaining:
        raise r.error("_SOURCE_META", "nothing after the last file", f"{r.remaining} more bytes")
    return PrimaryKeyIndexSourceMeta(version, level, tuple(files))


def read_json_meta(raw: bytes, path: str | None) -> dict[str, Any]:
    """A vector or full-text index's JSON ``_INDEX_META`` (``{}`` when empty)."""
    if not raw:
        return {}
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CorruptFileError(path, 0, "_INDEX_META", "a JSON object", raw[:32].hex(), detail=str(e)) from None
    if not isinstance(value, dict):
        raise CorruptFileError(path, 0, "_INDEX_META", "a JSON object", type(value).__name__)
    return value
