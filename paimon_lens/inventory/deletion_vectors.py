"""Deletion vectors and HASH index files of a snapshot, located through its index manifest.

Each ``DELETION_VECTORS`` entry of the index manifest names an index file and, per data file, the
offset, length and (2.x) cardinality of that file's blob; :func:`table_deletion_vectors` reads
every index file once, decodes every blob (CRC checked), and keeps going past a corrupt one,
recording the error on its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap, BitMap64

from ..engines.files import task_count
from ..engines.local import LOCAL
from ..errors import CorruptFileError, PaimonLensError, Problem
from ..formats.deletion_vector import read_deletion_vector
from ..formats.hash_index import HashIndex, read_hash_index
from ..io.fileio import read_file
from ..metadata.manifest import IndexFileMeta, ManifestEntry

if TYPE_CHECKING:
    from ..engines.base import Engine
    from ..metadata.snapshot_reader import ReaderHandle, SnapshotReader

DELETION_VECTORS = "DELETION_VECTORS"
HASH = "HASH"


@dataclass(frozen=True, slots=True)
class DeletionVectorInfo:
    """One data file's deletion vector, decoded (``error`` set instead when it could not be)."""

    partition: dict[str, Any]
    bucket: int
    data_file: str
    index_file: str
    offset: int
    length: int
    stored_cardinality: int | None
    kind: str | None
    cardinality: int | None
    positions: BitMap | BitMap64 | None
    crc_ok: bool | None
    row_count: int | None
    error: str | None = None

    @property
    def deleted_ratio(self) -> float | None:
        """Deleted rows / rows of the data file."""
        if self.cardinality is None or not self.row_count:
            return None
        return self.cardinality / self.row_count


def index_file_path(table: SnapshotReader, entry: IndexFileMeta) -> str:
    """Path of an index-manifest file (deletion vectors, HASH): relative to the table directory, or
    the entry's external path.

    ``index/<name>`` by default; with ``index-file-in-data-file-dir = true`` the file sits in its
    partition's bucket directory; an entry with ``_EXTERNAL_PATH`` (external data paths) names it.
    """
    if entry.external_path:
        return entry.external_path
    if table.schema.core_options.index_file_in_data_file_dir:
        part = table.decode_partition(entry.partition, f"{table.manifest_dir}/{entry.manifest} _PARTITION")
        return f"{table.bucket_path(entry.bucket, part)}/{entry.file_name}"
    return f"index/{entry.file_name}"


def read_index_file(table: SnapshotReader, relative: str, size: int) -> bytes:
    """The bytes of an index file, which must have the ``_FILE_SIZE`` its index-manifest entry records."""
    return read_file(table.file_io, table.file_io.join(table.path, relative), size)


def deletion_vector_infos(table: SnapshotReader, engine: Engine | None = None) -> list[DeletionVectorInfo]:
    """Every deletion vector of the snapshot, in index-manifest order, decoded on ``engine`` (default:
    here) once per snapshot: one task per ``DELETION_VECTORS`` index file on an engine running
    several at once, else one task on the reader itself."""
    return table.memo("deletion_vectors", lambda: _decode_all(table, engine or LOCAL))


def _decode_all(table: SnapshotReader, engine: Engine) -> list[DeletionVectorInfo]:
    index_entries = [e for e in table.index_entries() if e.index_type == DELETION_VECTORS]
    if not index_entries:
        return []
    items: list[tuple[IndexFileMeta, list[ManifestEntry]] | None] = [None]  # one task: the whole snapshot
    if task_count(engine) > 1:  # one task per index file, with the data files it covers
        by_name = {e.file.file_name: e for e in table.live_entries()}
        items = []
        for e in index_entries:
            names = dict.fromkeys(dv.data_file for dv in e.deletion_vectors or ())
            items.append((e, [by_name[n] for n in names if n in by_name]))
    results = engine.map(partial(_decode_task, table.handle()), items)
    return [dv for part in results for dv in part]


def _decode_task(handle: ReaderHandle, item: tuple[IndexFileMeta, list[ManifestEntry]] | None
                 ) -> list[DeletionVectorInfo]:
    if item is None:
        return table_deletion_vectors(handle.reader())
    entry, files = item
    return table_deletion_vectors(handle.restricted(files, [entry]))


def table_deletion_vectors(table: SnapshotReader) -> list[DeletionVectorInfo]:
    """Every deletion vector of the snapshot, in index-manifest order, decoded here."""
    rows_by_file = {e.file.file_name: e.file.row_count for e in table.live_entries()}
    bitmap64 = table.schema.core_options.deletion_vectors_bitmap64
    out: list[DeletionVectorInfo] = []
    for e in table.index_entries():
        if e.index_type != DELETION_VECTORS:
            continue
        rel = index_file_path(table, e)
        part = table.decode_partition(e.partition, f"{table.manifest_dir}/{e.manifest} _PARTITION")
        data: bytes | None = None
        read_error: str | None = None
        try:
            data = read_index_file(table, rel, e.file_size)
        except (OSError, PaimonLensError) as ex:
            read_error = Problem.of(ex, rel, f"{rel}: {ex}")
        path = table.file_io.join(table.path, rel)
        for dv in e.deletion_vectors or ():
            rows = rows_by_file.get(dv.data_file)
            if data is None:
                out.append(DeletionVectorInfo(part, e.bucket, dv.data_file, rel, dv.offset, dv.length,
                                              dv.cardinality, None, None, None, None, rows, read_error))
                continue
            try:
                # The blob's magic says its kind; the option is only the writer's default.
                v = read_deletion_vector(data, dv.offset, dv.length, None, path)
            except PaimonLensError as ex:
                out.append(DeletionVectorInfo(part, e.bucket, dv.data_file, rel, dv.offset, dv.length,
                                              dv.cardinality, "64" if bitmap64 else "32", None, None, None, rows,
                                              Problem.of(ex, rel, str(ex))))
                continue
            out.append(DeletionVectorInfo(part, e.bucket, dv.data_file, rel, dv.offset, dv.length, dv.cardinality,
                                          v.kind, v.cardinality, v.positions, v.crc_ok, rows,
                                          _disagreement(path, dv.offset, dv.cardinality, v.cardinality, v.positions,
                                                        rows)))
    return out


def _disagreement(path: str, offset: int, stored: int | None, cardinality: int, positions: BitMap | BitMap64,
                  rows: int | None) -> str | None:
    """Why a decoded deletion vector cannot be believed: its cardinality differs from the one the
    index manifest records, or it deletes rows the data file does not have (None when it agrees)."""
    if stored is not None and stored != cardinality:
        return Problem.of(CorruptFileError(path, offset, "deletion_vector cardinality",
                                           f"{stored} (index manifest)", cardinality,
                                           detail="the vector deletes another number of rows than recorded"))
    if rows is not None and cardinality and positions.max() >= rows:
        return Problem.of(CorruptFileError(path, offset, "deletion_vector positions",
                                           f"0..{rows - 1} (the data file's rows)", positions.max(),
                                           detail="the vector deletes rows the data file does not have"))
    return None


@dataclass(frozen=True)
class HashIndexInfo:
    """One bucket's HASH index file, decoded (``error`` set instead when it could not be)."""

    partition: dict[str, Any]
    bucket: int
    index_file: str
    row_count: int
    file_size: int
    index: HashIndex | None
    error: str | None = None


def table_hash_index(table: SnapshotReader) -> list[HashIndexInfo]:
    """Every HASH (dynamic bucket) index file of the snapshot."""
    out = []
    for e in table.index_entries():
        if e.index_type != HASH:
            continue
        rel = index_file_path(table, e)
        part = table.decode_partition(e.partition, f"{table.manifest_dir}/{e.manifest} _PARTITION")
        try:
            idx = read_hash_index(read_index_file(table, rel, e.file_size), table.file_io.join(table.path, rel),
                                  e.row_count)
            out.append(HashIndexInfo(part, e.bucket, rel, e.row_count, e.file_size, idx))
        except (OSError, PaimonLensError) as ex:
            out.append(HashIndexInfo(part, e.bucket, rel, e.row_count, e.file_size, None, Problem.of(ex, rel, str(ex))))
    return out
