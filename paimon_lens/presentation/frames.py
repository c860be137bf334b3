"""pandas DataFrames of paimon-lens: one builder per frame, each frame's columns defined once.

Every ``*_COLUMNS`` mapping lists a frame's columns in order with their meaning; builders produce
exactly those columns (``files`` adds ``min(col)``, ``max(col)``, ``null_count(col)`` per column
of the table schema after them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import CorruptFileError, PaimonLensError, as_text
from ..inventory.deletion_vectors import DeletionVectorInfo, HashIndexInfo, index_file_path
from ..metadata.binary_row import decode_binary_row
from ..metadata.manifest import FILE_SOURCES, IndexFileMeta, ManifestFileMeta
from ..metadata.schema import TableSchema
from ..metadata.snapshot import Snapshot
from ..metadata.snapshot_reader import IndexLocation
from ..metadata.stats import decode_stats, read_once
from ..values import to_json, to_python
from .frame_columns import (
    DELETION_VECTOR_COLUMNS,
    FILE_COLUMNS,
    HASH_INDEX_COLUMNS,
    INDEX_MANIFEST_COLUMNS,
    MANIFEST_COLUMNS,
    SCHEMA_COLUMNS,
    SNAPSHOT_COLUMNS,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.snapshot_reader import LiveFile, SnapshotReader


def _frame(rows: list[dict[str, Any]], columns: Iterable[str]) -> pd.DataFrame:
    from .lens_frame import LensFrame

    return LensFrame(rows, columns=list(columns))


def _millis_time(millis: int | None) -> Any:
    """Epoch milliseconds as a pandas Timestamp; NaT when pandas cannot hold it (a long such as
    2^63-1 is valid in Paimon's JSON, beyond pandas' years 1677-2262)."""
    import pandas as pd

    if millis is None:
        return pd.NaT
    try:
        return pd.Timestamp(millis, unit="ms")
    except (OverflowError, ValueError):  # OutOfBoundsDatetime is a ValueError
        return pd.NaT


def snapshots_frame(snapshots: Sequence[Snapshot]) -> pd.DataFrame:
    """Frame of :data:`SNAPSHOT_COLUMNS`."""

    rows = [{
        "snapshot_id": s.id, "schema_id": s.schema_id, "commit_kind": s.commit_kind,
        "commit_time": _millis_time(s.time_millis),
        "total_record_count": s.total_record_count, "delta_record_count": s.delta_record_count,
        "changelog_record_count": s.changelog_record_count, "commit_user": s.commit_user,
        "commit_identifier": s.commit_identifier, "watermark": s.watermark,
        "base_manifest_list": s.base_manifest_list, "delta_manifest_list": s.delta_manifest_list,
        "changelog_manifest_list": s.changelog_manifest_list, "index_manifest": s.index_manifest,
        "version": s.version, "next_row_id": s.next_row_id,
    } for s in snapshots]
    return _frame(rows, SNAPSHOT_COLUMNS)


def schemas_frame(schemas: Sequence[TableSchema]) -> pd.DataFrame:
    """Frame of :data:`SCHEMA_COLUMNS`."""

    rows = []
    for s in schemas:
        for f in s.fields:
            rows.append({
                "schema_id": s.id, "field_id": f.id, "field_name": f.name, "field_type": str(f.type.copy(True)),
                "nullable": f.type.nullable, "is_partition_key": f.name in s.partition_keys,
                "is_primary_key": f.name in s.primary_keys, "description": f.description,
                "time": _millis_time(s.time_millis) if s.time_millis else None,
            })
    return _frame(rows, SCHEMA_COLUMNS)


def manifests_frame(table: SnapshotReader, manifests: Sequence[ManifestFileMeta]) -> pd.DataFrame:
    """Frame of :data:`MANIFEST_COLUMNS`."""
    pfields = table.schema.partition_fields
    rows = []
    for m in manifests:
        where = f"{table.manifest_dir}/{m.manifest_list} entry {m.file_name} _PARTITION_STATS"
        if pfields:
            stats = decode_stats(m.partition_stats, pfields, where)
            pmin = {f.name: to_python(s.min, f.type) for f, s in zip(pfields, stats)}
            pmax = {f.name: to_python(s.max, f.type) for f, s in zip(pfields, stats)}
            pnull = {f.name: s.null_count for f, s in zip(pfields, stats)}
        else:
            pmin, pmax, pnull = {}, {}, {}
        rows.append({
            "list_kind": m.list_kind, "manifest_list": m.manifest_list, "file_name": m.file_name,
            "file_size": m.file_size, "num_added_files": m.num_added_files,
            "num_deleted_files": m.num_deleted_files, "schema_id": m.schema_id,
            "partition_min": pmin, "partition_max": pmax, "partition_null_counts": pnull,
            "min_bucket": m.min_bucket, "max_bucket": m.max_bucket,
            "min_level": m.min_level, "max_level": m.max_level,
        })
    return _frame(rows, MANIFEST_COLUMNS)


def file_format(name: str) -> str | None:
    """The data file's format, from its name's extension (None without one)."""
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return ext or None


def file_record(table: SnapshotReader, lf: LiveFile, as_json: bool) -> dict[str, Any]:
    """The facts of one live file, values either JSON-encoded or as Python objects."""
    conv = to_json if as_json else to_python
    f = lf.entry.file
    pfields = {p.name: p.type for p in table.schema.partition_fields}
    fields = table.schema.fields
    stats = read_once(lf.stats)  # not kept on the file: a listing may hold every file of the table
    index_size = table.index_size(lf) if lf.index_location != IndexLocation.NONE else 0
    error = _location_error(table, lf)
    if index_size is None:  # never shown as 0: null, and the file's error says why
        error = "; ".join(e for e in (error, f"the size of index file {lf.index_file_path} could not be read") if e)
    return {
        "file_name": f.file_name,
        "path": lf.path,
        "partition": {k: conv(v, pfields[k]) for k, v in lf.partition.items()},
        "bucket": lf.entry.bucket,
        "level": f.level,
        "row_count": f.row_count,
        "file_size": f.file_size,
        "schema_id": f.schema_id,
        "min_sequence_number": f.min_sequence_number,
        "max_sequence_number": f.max_sequence_number,
        "file_source": FILE_SOURCES.get(f.file_source, None) if f.file_source is not None else None,
        "file_format": file_format(f.file_name),
        "creation_time": (f.creation_time.isoformat(timespec="milliseconds") if as_json and f.creation_time
                          else f.creation_time),
        "delete_row_count": f.delete_row_count,
        "extra_files": list(f.extra_files),
        "external_path": f.external_path,
        "first_row_id": f.first_row_id,
        "last_row_id": None if f.first_row_id is None else f.first_row_id + f.row_count - 1,
        "write_cols": None if f.write_cols is None else list(f.write_cols),
        "error": error,
        "value_stats_cols": None if f.value_stats_cols is None else list(f.value_stats_cols),
        "value_stats": {
            "min": {c.name: conv(s.min, c.type) for c, s in zip(fields, stats)},
            "max": {c.name: conv(s.max, c.type) for c, s in zip(fields, stats)},
            "null_counts": {c.name: s.null_count for c, s in zip(fields, stats)},
        },
        "stats_error": lf.stats_error,
        **_key_record(table, lf, conv),
        "file_index": {
            "location": lf.index_location,
            "size": index_size,
            "file": lf.index_file_path,
        },
        "manifest": lf.entry.manifest,
    }


def _key_record(table: SnapshotReader, lf: LiveFile, conv: Any) -> dict[str, Any]:
    """``min_key``, ``max_key`` and ``key_stats`` of a primary-key table's file (None otherwise)."""
    keys = table.schema.trimmed_primary_keys
    if not keys:
        return {"min_key": None, "max_key": None, "key_stats": None}
    f = lf.entry.file
    fields = [table.schema.field(k) for k in keys]
    where = f"{table.manifest_dir}/{lf.entry.manifest} entry {f.file_name}"
    try:
        lo = decode_binary_row(f.min_key, [x.type for x in fields], where + " _MIN_KEY")
        hi = decode_binary_row(f.max_key, [x.type for x in fields], where + " _MAX_KEY")
        ks = decode_stats(f.key_stats, fields, where + " _KEY_STATS")
    except CorruptFileError as e:
        return {"min_key": None, "max_key": None, "key_stats": None, "key_error": str(e)}
    return {
        "min_key": {x.name: conv(v, x.type) for x, v in zip(fields, lo)},
        "max_key": {x.name: conv(v, x.type) for x, v in zip(fields, hi)},
        "key_stats": {
            "min": {x.name: conv(s.min, x.type) for x, s in zip(fields, ks)},
            "max": {x.name: conv(s.max, x.type) for x, s in zip(fields, ks)},
            "null_counts": {x.name: s.null_count for x, s in zip(fields, ks)},
        },
    }


def _location_error(table: SnapshotReader, lf: LiveFile) -> str | None:
    """For a file at an external path: why it cannot be reached (None when it exists)."""
    if not lf.entry.file.external_path:
        return None
    where = table.file_io.join(table.path, lf.path)
    try:
        if table.file_io.exists(where):
            return None
    except PaimonLensError as e:  # refused: outside the table and its declared external paths
        return str(e)
    except (OSError, ValueError) as e:
        return f"external path {lf.path} cannot be checked: {type(e).__name__}: {e}"
    located = getattr(table.file_io, "locate", lambda p: p)(where)
    shown = lf.path if located == where or located == lf.path else f"{lf.path} (mapped to {located})"
    return f"external path {shown} does not exist (data-file.external-paths moved? see path_map)"


def files_frame(table: SnapshotReader, files: Sequence[LiveFile]) -> pd.DataFrame:
    """Frame of :data:`FILE_COLUMNS` plus ``min(c)``, ``max(c)``, ``null_count(c)`` per column."""
    names = [c.name for c in table.schema.fields]
    stat_cols = [f"{k}({n})" for n in names for k in ("min", "max", "null_count")]
    rows = []
    for lf in files:
        r = file_record(table, lf, as_json=False)
        row = {
            "partition": r["partition"], "bucket": r["bucket"], "level": r["level"],
            "file_name": r["file_name"], "file_path": r["path"], "file_format": r["file_format"],
            "file_size": r["file_size"], "row_count": r["row_count"], "schema_id": r["schema_id"],
            "min_sequence_number": r["min_sequence_number"], "max_sequence_number": r["max_sequence_number"],
            "file_source": r["file_source"], "creation_time": r["creation_time"],
            "delete_row_count": r["delete_row_count"], "index_location": r["file_index"]["location"],
            "index_size": r["file_index"]["size"], "index_file": r["file_index"]["file"],
            "extra_files": r["extra_files"], "external_path": r["external_path"],
            "first_row_id": r["first_row_id"], "last_row_id": r["last_row_id"], "write_cols": r["write_cols"],
            "value_stats_cols": r["value_stats_cols"], "stats_error": r["stats_error"], "error": r["error"],
            "manifest": r["manifest"],
        }
        vs = r["value_stats"]
        for n in names:
            row[f"min({n})"] = vs["min"][n]
            row[f"max({n})"] = vs["max"][n]
            row[f"null_count({n})"] = vs["null_counts"][n]
        rows.append(row)
    return _frame(rows, [*FILE_COLUMNS, *stat_cols])


def index_manifest_frame(table: SnapshotReader, entries: Sequence[IndexFileMeta]) -> pd.DataFrame:
    """Frame of :data:`INDEX_MANIFEST_COLUMNS`."""
    pfields = {p.name: p.type for p in table.schema.partition_fields}
    rows = []
    for e in entries:
        part = table.decode_partition(e.partition, f"{table.manifest_dir}/{e.manifest} _PARTITION")
        rows.append({
            "partition": {k: to_python(v, pfields[k]) for k, v in part.items()},
            "bucket": e.bucket, "index_type": e.index_type, "file_name": e.file_name,
            "file_path": index_file_path(table, e), "file_size": e.file_size, "row_count": e.row_count,
            "deletion_vector_count": None if e.deletion_vectors is None else len(e.deletion_vectors),
            "external_path": e.external_path, "manifest": e.manifest,
        })
    return _frame(rows, INDEX_MANIFEST_COLUMNS)



def deletion_vectors_frame(table: SnapshotReader, dvs: Sequence[DeletionVectorInfo]) -> pd.DataFrame:
    """Frame of :data:`DELETION_VECTOR_COLUMNS`."""
    pfields = {p.name: p.type for p in table.schema.partition_fields}
    rows = [{
        "partition": {k: to_python(v, pfields[k]) for k, v in d.partition.items()},
        "bucket": d.bucket, "data_file": d.data_file, "index_file": d.index_file, "offset": d.offset,
        "length": d.length, "kind": d.kind, "cardinality": d.cardinality,
        "stored_cardinality": d.stored_cardinality, "row_count": d.row_count, "deleted_ratio": d.deleted_ratio,
        "crc_ok": d.crc_ok, "error": as_text(d.error),
    } for d in dvs]
    return _frame(rows, DELETION_VECTOR_COLUMNS)


def hash_index_frame(table: SnapshotReader, infos: Sequence[HashIndexInfo]) -> pd.DataFrame:
    """Frame of :data:`HASH_INDEX_COLUMNS`."""
    pfields = {p.name: p.type for p in table.schema.partition_fields}
    rows = [{
        "partition": {k: to_python(v, pfields[k]) for k, v in h.partition.items()},
        "bucket": h.bucket, "index_file": h.index_file, "file_size": h.file_size, "row_count": h.row_count,
        "hash_count": None if h.index is None else h.index.count,
        "distinct_hashes": None if h.index is None else h.index.distinct_count, "error": as_text(h.error),
    } for h in infos]
    return _frame(rows, HASH_INDEX_COLUMNS)
