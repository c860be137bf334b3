"""A data file's embedded index container, taken from its manifest when it is used.

A manifest entry's ``_FILE._EMBEDDED_FILE_INDEX`` (``bytes`` or null) holds the file-index
container of a data file whose indexes fit ``file-index.in-manifest-threshold`` (500 bytes by
default, often raised): the container's bytes, laid out as
:mod:`~paimon_lens.formats.file_index_format` describes. Every live file's entry stays in memory
while a snapshot is inspected, and with them, if kept, every embedded container (1-2 KB per file
in tables with a raised threshold: the larger part of an entry).

An :class:`EmbeddedIndex` keeps the bytes of the first :data:`RESIDENT_BYTES` of containers the
process holds (all of a small table's), and beyond them only the container's length and its
128-bit xxh3 digest; :meth:`EmbeddedIndex.read` then takes the bytes from the manifest again. The
manifest is read and decoded once more (of an Avro manifest only ``_FILE_NAME`` and
``_EMBEDDED_FILE_INDEX``) and its containers are kept in a cache shared by the process (least
recently used out first, bounded by :data:`CACHE_BYTES`; a manifest's name is unique and its
content never changes; a cached value that lacks the entry's bytes is read again once). The bytes
returned are the ones whose length and digest the entry recorded: a manifest that no longer holds
them (rewritten in place, truncated) is a :class:`~paimon_lens.errors.CorruptFileError` naming
the manifest, the entry and the field, never another container. A manifest removed by expiry
raises the error its first read would have, which :mod:`paimon_lens.metadata.consistency` recognises: the
answer moves to the newest snapshot, or a pinned table says its snapshot expired.

Two embedded indexes are equal when their lengths and digests are, as Paimon compares the bytes
in a file entry's identifier.
"""

from __future__ import annotations

import threading
from typing import Any

import xxhash

from ..errors import CorruptFileError
from ..io.fileio import FileIO
from .bounded_cache import BoundedCache

RESIDENT_BYTES = 4 << 20
"""Bytes of embedded containers the process keeps in the entries that hold them (the first ones
read): a small table's indexes are read from memory, whether or not its manifests are still there
(an expired snapshot is answered from its entries as long as its data and ``.index`` files are)."""

CACHE_BYTES = 4 << 20
"""Bytes of embedded containers the process keeps from manifests read again (the manifest read
last is kept whatever its size)."""


class ManifestSource:
    """Where the embedded indexes of one manifest's entries are read again: the manifest's path,
    its size as the manifest list records it, and the file system."""

    __slots__ = ("file_io", "path", "size")

    def __init__(self, file_io: FileIO, path: str, size: int | None) -> None:
        self.file_io, self.path, self.size = file_io, path, size



class EmbeddedIndex:
    """A data file's embedded index container: its length and digest, its bytes read on use."""

    __slots__ = ("_data", "digest", "file_name", "length", "source")

    def __init__(self, data: bytes, file_name: str, source: ManifestSource | None) -> None:
        self.length = len(data)
        self.digest = xxhash.xxh3_128_intdigest(data)
        self.file_name = file_name
        self.source = source
        self._data = data if source is None or _RESIDENT.take(len(data)) else None

    def __del__(self) -> None:
        if self._data is not None and self.source is not None:
            _RESIDENT.give(self.length)

    def read(self) -> bytes:
        """The container's bytes (from the manifest, or the cache of manifests read again)."""
        if self._data is not None:
            return self._data
        assert self.source is not None
        for fresh in (False, True):  # a cached read that lacks them: the manifest read again
            for data in _containers(self.source, fresh).get(self.file_name, ()):
                if len(data) == self.length and xxhash.xxh3_128_intdigest(data) == self.digest:
                    return data
        raise CorruptFileError(self.source.path, None, f"manifest entry {self.file_name} _FILE _EMBEDDED_FILE_INDEX",
                               f"{self.length} bytes as first read", "other bytes or none",
                               detail="the manifest changed since it was read")

    def __len__(self) -> int:
        return self.length

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, EmbeddedIndex) and self.length == other.length
                and self.digest == other.digest)

    def __hash__(self) -> int:
        return hash((self.length, self.digest))

    def __repr__(self) -> str:
        return f"EmbeddedIndex({self.length} bytes, xxh3 {self.digest:032x})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.length, self.digest, self.file_name, self.source, self._data))


def _restore(length: int, digest: int, file_name: str, source: ManifestSource | None,
             data: bytes | None) -> EmbeddedIndex:
    e = EmbeddedIndex.__new__(EmbeddedIndex)
    e.length, e.digest, e.file_name, e.source, e._data = length, digest, file_name, source, None
    if data is not None and (source is None or _RESIDENT.take(length)):
        e._data = data
    return e


class _Resident:
    """Bytes of embedded containers kept in their entries, process-wide, up to a budget."""

    def __init__(self, budget: int) -> None:
        self.budget, self.held = budget, 0
        self.lock = threading.Lock()

    def take(self, n: int) -> bool:
        with self.lock:
            if self.held + n > self.budget:
                return False
            self.held += n
            return True

    def give(self, n: int) -> None:
        with self.lock:
            self.held -= n


_RESIDENT = _Resident(RESIDENT_BYTES)


def embedded_index(value: Any, file_name: Any, source: ManifestSource | None) -> Any:
    """``value`` (a decoded ``_EMBEDDED_FILE_INDEX``) as an :class:`EmbeddedIndex` when it is bytes;
    anything else as it is (null, or a wrong type the manifest checks refuse)."""
    if type(value) is bytes and type(file_name) is str:
        return EmbeddedIndex(value, file_name, source)
    return value


_CACHE = BoundedCache(CACHE_BYTES)
"""Manifests' embedded containers by data file name, under (manifest path, size)."""


def _containers(source: ManifestSource, fresh: bool) -> dict[str, list[bytes]]:
    """Every embedded container of the manifest, by data file name (in entry order); ``fresh``:
    read again even if cached."""
    key = (source.path, source.size)
    if fresh:
        _CACHE.discard(key)
    return _CACHE.get(key, lambda c: sum(len(d) for ds in c.values() for d in ds), lambda: _read_containers(source))


def clear_cache() -> None:
    """Forget every manifest's containers read again."""
    _CACHE.clear()


def _read_containers(source: ManifestSource) -> dict[str, list[bytes]]:
    from .avro import AVRO_MAGIC
    from .meta_file import decode_meta_file, read_meta_bytes

    data = read_meta_bytes(source.file_io, source.path, "manifest", source.size)
    if data.startswith(AVRO_MAGIC):
        try:
            return _avro_containers(data)
        except Exception:  # decoded whole below, which says what is wrong
            pass
    records, _ = decode_meta_file(data, source.path, "manifest")
    out: dict[str, list[bytes]] = {}
    for rec in records:
        _add(out, rec)
    return out


def _avro_containers(data: bytes) -> dict[str, list[bytes]]:
    """The containers of an Avro manifest, decoding of each entry only ``_FILE_NAME`` and
    ``_EMBEDDED_FILE_INDEX`` (the others are skipped by a projecting reader schema)."""
    import io

    import fastavro

    head = fastavro.reader(io.BytesIO(data))
    schema = head.writer_schema
    if not isinstance(schema, dict):
        raise ValueError("no record schema")
    file_field = next(f for f in schema["fields"] if f["name"] == "_FILE")
    file_type = dict(file_field["type"])
    file_type["fields"] = [f for f in file_type["fields"] if f["name"] in ("_FILE_NAME", "_EMBEDDED_FILE_INDEX")]
    projected = {**schema, "fields": [{**file_field, "type": file_type}]}
    out: dict[str, list[bytes]] = {}
    for rec in fastavro.reader(io.BytesIO(data), reader_schema=projected):
        _add(out, rec)
    return out


def _add(out: dict[str, list[bytes]], rec: Any) -> None:
    f = rec.get("_FILE") if isinstance(rec, dict) else None
    data = f.get("_EMBEDDED_FILE_INDEX") if isinstance(f, dict) else None
    if type(data) is bytes and type(f["_FILE_NAME"]) is str:  # type: ignore[index]
        out.setdefault(f["_FILE_NAME"], []).append(data)  # type: ignore[index]
