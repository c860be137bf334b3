"""Schema changes, compactions, deletes by deletion vectors and tags of :class:`.TableWriter`.

What each writes (the layout is in :mod:`.table_writer`):

* :func:`alter_schema`: ``schema/schema-<n+1>`` as Paimon's ``SchemaManager`` commits a change:
  ``id`` n+1, the fields of schema n then the added (nullable) columns with the field ids after
  ``highestFieldId``, the options set and reset. The new options are validated as
  :meth:`.TableWriter.create` validates them; options the location or layout of the existing
  files depends on (bucket, bucket key and function, primary key, partition, partition names,
  data and index file directories, merge engine) cannot change.
* :func:`compact`: Paimon's append compaction (``compactRewrite``) per partition and bucket: the
  inputs, oldest sequence number first, are read (columns by field id, columns added since a
  file was written are null), the rows their deletion vectors delete dropped, and written as
  level-0 files with file source COMPACT, sequence numbers counting from the first input's and
  the writer's current schema and options. One COMPACT snapshot: DELETE entries of the inputs
  (their ADD records with ``_KIND`` 1) then ADD entries of the outputs; the inputs' deletion
  vectors leave the index manifest.
* :func:`delete`: rows marked deleted in deletion vectors (append tables with
  ``deletion-vectors.enabled``): a file's vector becomes the union of its previous one and the
  new positions; each touched partition and bucket gets one new DV index file
  (``index-<uuid>-0``, 64-bit vectors with ``deletion-vectors.bitmap64``) holding the vectors of
  all its files that have one; a new index manifest lists the live index files (ADD entries only);
  one OVERWRITE snapshot with an empty delta, as pypaimon 2.1 commits its deletes.
* :func:`write_tag`: ``tag/tag-<name>``: the snapshot's JSON plus ``tagCreateTime`` (the local
  time as Jackson writes a ``LocalDateTime``: ``[year, month, day, hour, minute, second, nanos]``).
"""

from __future__ import annotations

import datetime as _dt
import json
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..formats.data_file import arrow_type
from ..formats.deletion_vector import read_deletion_vector, write_dv_index_file
from ..io.fileio import LocalFileIO
from ..metadata.meta_file import read_meta_file
from ..metadata.schema import TableSchema
from ..types import DataField
from ..values import to_internal
from .avro import INDEX_MANIFEST_SCHEMA, INDEX_MANIFEST_VERSION
from .data_file import FILE_SOURCE_COMPACT
from .meta_file import meta_file_bytes
from .schema import KEY_FIELD_PREFIX, SEQUENCE_NUMBER, VALUE_KIND, paimon_json, paimon_type, schema_json

if TYPE_CHECKING:
    import pyarrow as pa
    from pyroaring import BitMap, BitMap64

DELETION_VECTORS = "DELETION_VECTORS"
#: options the location or layout of already written files depends on
FIXED_OPTIONS = ("bucket", "bucket-key", "bucket-function.type", "primary-key", "partition", "merge-engine",
                 "sequence.field", "data-file.path-directory", "partition.default-name", "partition.legacy-name",
                 "index-file-in-data-file-dir")

BucketKey = tuple[bytes, int]


class Writer(Protocol):
    """What these commits use of :class:`paimon_lens.writer.table_writer.TableWriter`."""

    path: Path
    schema: TableSchema
    fields: tuple[DataField, ...]
    partition_fields: list[DataField]
    key_fields: tuple[DataField, ...]
    manifest_format: str

    def _latest_snapshot(self) -> dict[str, Any] | None: ...

    def _bucket_directory(self, part_values: Sequence[Any], bucket: int) -> Path: ...

    def _internal_values(self, data: pa.Table) -> dict[str, list[Any]]: ...

    def _write_group(self, data: pa.Table, values: dict[str, list[Any]], part_values: tuple[Any, ...], bucket: int,
                     rows: list[int], next_seq: dict[tuple[bytes, int], int], rows_per_file: int | None,
                     file_source: int | None = None) -> list[dict[str, Any]]: ...

    def _commit_snapshot(self, previous: dict[str, Any] | None, kind: str, entries: list[dict[str, Any]],
                         index_manifest: str | None = None) -> int: ...


def entry_identifier(rec: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two manifest entry records refer to the same file (Paimon's
    ``FileEntry.Identifier``: partition, bucket, level, file name, extra files, embedded index,
    external path)."""
    f = rec["_FILE"]
    return (rec["_PARTITION"], rec["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"], tuple(f.get("_EXTRA_FILES") or ()),
            f.get("_EMBEDDED_FILE_INDEX"), f.get("_EXTERNAL_PATH"))


# ---- schema changes ---------------------------------------------------------------------------
def alter_schema(writer: Writer, set_options: Mapping[str, str] | None, reset_options: Sequence[str],
                 add_columns: pa.Schema | None, validate: Callable[[TableSchema], object]) -> TableSchema:
    """Write ``schema-<n+1>`` (see the module docstring) and return it; nothing is written when
    it is invalid (``validate`` raises for a schema the writer cannot write)."""
    old = writer.schema
    setting = {str(k): str(v) for k, v in (set_options or {}).items()}
    resetting = [str(k) for k in reset_options]
    if not setting and not resetting and (add_columns is None or len(add_columns) == 0):
        raise ValueError("nothing to alter: give set_options, reset_options or add_columns")
    fixed = sorted({k for k in [*setting, *resetting] if k in FIXED_OPTIONS and old.options.get(k) != setting.get(k)})
    if fixed:
        raise ValueError(f"cannot change option(s) {fixed}: the files already written depend on them")
    options = {k: v for k, v in old.options.items() if k not in resetting}
    options.update(setting)
    if options.get("file.format", "parquet").lower() != "parquet":
        raise NotImplementedError("only parquet data files are written")
    if options.get("manifest.format", "avro").lower() not in ("avro", "orc", "parquet"):
        raise ValueError(f"manifest.format={options['manifest.format']}: use avro, orc or parquet")

    fields = list(old.fields)
    highest = max([-1 if old.highest_field_id is None else old.highest_field_id, *(f.id for f in fields)])
    names = {f.name for f in fields}
    for col in add_columns or ():
        if col.name in names:
            raise ValueError(f"column {col.name!r} exists")
        if col.name.startswith(KEY_FIELD_PREFIX) or col.name in (SEQUENCE_NUMBER, VALUE_KIND):
            raise ValueError(f"column name {col.name!r} is reserved by Paimon")
        if not col.nullable:
            raise ValueError(f"column {col.name!r} cannot be NOT NULL: Paimon adds nullable columns only")
        highest += 1
        fields.append(DataField(highest, col.name, paimon_type(col.type)))
        names.add(col.name)

    schema_id = old.id + 1
    now = int(time.time() * 1000)
    doc = schema_json(tuple(fields), old.partition_keys, old.primary_keys, options, now, schema_id, highest)
    schema = TableSchema.from_json(doc)
    validate(schema)  # index and stats options, table layout: before anything is written
    target = writer.path / "schema" / f"schema-{schema_id}"
    if not _write_new(target, paimon_json(doc)):
        raise FileExistsError(f"{target} exists: the schema was changed concurrently")
    return schema


def _write_new(path: Path, text: str) -> bool:
    """Create ``path`` with ``text``; False (nothing written) when it exists already."""
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        return False
    return True


# ---- reading the latest snapshot --------------------------------------------------------------
def _records(path: Path, what: str) -> list[dict[str, Any]]:
    records, _ = read_meta_file(LocalFileIO(), str(path), what)
    return records


def live_records(writer: Writer, snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The raw ADD records of the live data files of ``snapshot`` (ADD/DELETE merged), in
    first-added order."""
    manifest_dir = writer.path / "manifest"
    return merge_live(rec for key in ("baseManifestList", "deltaManifestList")
                      for meta in _records(manifest_dir / snapshot[key], "manifest list")
                      for rec in _records(manifest_dir / meta["_FILE_NAME"], "manifest"))


def merge_live(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ADD records no later DELETE record of the same file cancels, in first-added order."""
    live: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rec in records:
        ident = entry_identifier(rec)
        if rec["_KIND"] == 0:
            live[ident] = rec
        else:
            live.pop(ident, None)
    return list(live.values())


def live_index_records(writer: Writer, snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The raw ADD records of the snapshot's index manifest (index files), DELETEs applied."""
    name = snapshot.get("indexManifest")
    if not name:
        return []
    live: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rec in _records(writer.path / "manifest" / name, "index manifest"):
        key = (rec["_PARTITION"], rec["_BUCKET"], rec["_INDEX_TYPE"], rec["_FILE_NAME"])
        if rec["_KIND"] == 0:
            live[key] = rec
        else:
            live.pop(key, None)
    return list(live.values())


def _bitmap64(writer: Writer) -> bool:
    return writer.schema.options.get("deletion-vectors.bitmap64", "false").strip().lower() == "true"


def _in_data_dir(writer: Writer) -> bool:
    return writer.schema.options.get("index-file-in-data-file-dir", "false").strip().lower() == "true"


def _partition_values(writer: Writer, partition: bytes) -> list[Any]:
    from ..metadata.binary_row import decode_binary_row

    return decode_binary_row(partition, [f.type for f in writer.partition_fields])


def deletion_vectors(writer: Writer, index_records: Sequence[dict[str, Any]]) -> dict[str, BitMap | BitMap64]:
    """The deleted positions per data file name, from the DV index files of ``index_records``."""
    from pyroaring import BitMap, BitMap64

    out: dict[str, BitMap | BitMap64] = {}
    for rec in index_records:
        if rec["_INDEX_TYPE"] != DELETION_VECTORS:
            continue
        if rec.get("_EXTERNAL_PATH"):
            path = Path(rec["_EXTERNAL_PATH"])
        elif _in_data_dir(writer):
            directory = writer._bucket_directory(_partition_values(writer, rec["_PARTITION"]), rec["_BUCKET"])
            path = directory / rec["_FILE_NAME"]
        else:
            path = writer.path / "index" / rec["_FILE_NAME"]
        data = path.read_bytes()
        for r in rec.get("_DELETIONS_VECTORS_RANGES") or ():
            if r is not None:
                dv = read_deletion_vector(data, r["f1"], r["f2"], None, str(path))
                out[r["f0"]] = BitMap64(dv.positions) if _bitmap64(writer) else BitMap(dv.positions)
    return out


def read_rows(writer: Writer, rec: dict[str, Any], fields: Sequence[DataField] | None = None) -> pa.Table:
    """The rows of the data file of manifest record ``rec`` in file order, as the columns of
    ``fields`` (default: the writer's schema), matched by field id; a column the file lacks (added
    after it was written) is null."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = rec["_FILE"]
    if f.get("_EXTERNAL_PATH"):
        path = Path(f["_EXTERNAL_PATH"])
    else:
        path = writer._bucket_directory(_partition_values(writer, rec["_PARTITION"]), rec["_BUCKET"]) / f["_FILE_NAME"]
    table = pq.ParquetFile(path).read()
    by_id: dict[int, int] = {}
    for i, field in enumerate(table.schema):
        raw = (field.metadata or {}).get(b"PARQUET:field_id")
        if raw is not None:
            by_id[int(raw)] = i
    columns, out = [], []
    for field in fields or writer.fields:
        t = arrow_type(field.type)
        at = by_id.get(field.id)
        columns.append(pa.nulls(table.num_rows, t) if at is None else table.column(at).cast(t))
        out.append(pa.field(field.name, t, field.type.nullable))
    return pa.Table.from_arrays(columns, schema=pa.schema(out))


def _groups(records: Iterable[dict[str, Any]]) -> dict[BucketKey, list[dict[str, Any]]]:
    out: dict[BucketKey, list[dict[str, Any]]] = {}
    for rec in records:
        out.setdefault((rec["_PARTITION"], rec["_BUCKET"]), []).append(rec)
    return out


# ---- deletion-vector index files and the index manifest ---------------------------------------
def _write_bucket_vectors(writer: Writer, key: BucketKey,
                          vectors: list[tuple[str, BitMap | BitMap64]]) -> dict[str, Any]:
    """One DV index file of a partition's bucket holding ``vectors``; its index manifest record."""
    partition, bucket = key
    data, metas = write_dv_index_file(vectors, _bitmap64(writer))
    name = f"index-{uuid.uuid4()}-0"
    directory = (writer._bucket_directory(_partition_values(writer, partition), bucket) if _in_data_dir(writer)
                 else writer.path / "index")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)
    return {
        "_VERSION": INDEX_MANIFEST_VERSION, "_KIND": 0, "_PARTITION": partition, "_BUCKET": bucket,
        "_INDEX_TYPE": DELETION_VECTORS, "_FILE_NAME": name, "_FILE_SIZE": len(data), "_ROW_COUNT": len(metas),
        "_DELETIONS_VECTORS_RANGES": [{"f0": m.data_file, "f1": m.offset, "f2": m.length,
                                       "_CARDINALITY": m.cardinality} for m in metas],
        "_EXTERNAL_PATH": None, "_GLOBAL_INDEX": None,
    }


def _rewrite_index(writer: Writer, index_records: list[dict[str, Any]], buckets: Iterable[BucketKey],
                   live: Sequence[dict[str, Any]], vectors: Mapping[str, BitMap | BitMap64]) -> str:
    """A new index manifest: the DV index files of ``buckets`` replaced by one file each holding the
    ``vectors`` of their ``live`` files (none if no file has one), every other entry kept."""
    replaced = set(buckets)
    records = [r for r in index_records
               if r["_INDEX_TYPE"] != DELETION_VECTORS or (r["_PARTITION"], r["_BUCKET"]) not in replaced]
    by_bucket = _groups(live)
    for key in sorted(replaced, key=lambda k: (k[0], k[1])):
        names = [r["_FILE"]["_FILE_NAME"] for r in by_bucket.get(key, ())]
        kept = [(n, vectors[n]) for n in names if n in vectors and len(vectors[n])]
        if kept:
            records.append(_write_bucket_vectors(writer, key, kept))
    name = f"index-manifest-{uuid.uuid4()}-0"
    manifest_dir = writer.path / "manifest"
    manifest_dir.mkdir(parents=True, exist_ok=True)
    (manifest_dir / name).write_bytes(meta_file_bytes(INDEX_MANIFEST_SCHEMA, records, writer.manifest_format))
    return name


# ---- compaction -------------------------------------------------------------------------------
def _partition_filter(writer: Writer, partition: Mapping[str, Any] | None) -> dict[int, Any] | None:
    """``{position in the partition key: internal value}`` of a partition spec."""
    if partition is None:
        return None
    positions = {f.name: i for i, f in enumerate(writer.partition_fields)}
    unknown = [k for k in partition if k not in positions]
    if unknown:
        raise ValueError(f"{unknown} are not partition keys: {list(positions)}")
    return {positions[k]: to_internal(v, writer.partition_fields[positions[k]].type) for k, v in partition.items()}


def compact(writer: Writer, partition: Mapping[str, Any] | None, min_files: int,
            rows_per_file: int | None) -> int | None:
    """Compact the partitions and buckets with at least ``min_files`` live files (only those of
    ``partition`` if given) and commit one COMPACT snapshot; its id, or None when nothing qualifies."""
    import pyarrow as pa

    if writer.key_fields:
        raise NotImplementedError("only append tables are compacted (primary-key tables need a merge)")
    if min_files < 1:
        raise ValueError("min_files must be positive")
    if rows_per_file is not None and rows_per_file < 1:
        raise ValueError("rows_per_file must be positive")
    wanted = _partition_filter(writer, partition)
    previous = writer._latest_snapshot()
    if previous is None:
        return None
    live = live_records(writer, previous)
    index_records = live_index_records(writer, previous)
    vectors = deletion_vectors(writer, index_records)
    deleted: list[dict[str, Any]] = []
    added: list[dict[str, Any]] = []
    compacted: list[BucketKey] = []
    for key, recs in _groups(live).items():
        values = _partition_values(writer, key[0])
        if wanted is not None and any(values[i] != v for i, v in wanted.items()):
            continue
        if len(recs) < min_files:
            continue
        recs = sorted(recs, key=lambda r: r["_FILE"]["_MIN_SEQUENCE_NUMBER"])
        parts = []
        for rec in recs:
            rows = read_rows(writer, rec)
            dv = vectors.get(rec["_FILE"]["_FILE_NAME"])
            if dv is not None and len(dv):
                keep = [i for i in range(rows.num_rows) if i not in dv]
                rows = rows.take(pa.array(keep, pa.int64()))
            parts.append(rows)
        data = pa.concat_tables(parts).combine_chunks()
        deleted.extend({**rec, "_KIND": 1} for rec in recs)
        compacted.append(key)
        if data.num_rows:
            next_seq = {key: recs[0]["_FILE"]["_MIN_SEQUENCE_NUMBER"]}
            added.extend(writer._write_group(data, writer._internal_values(data), tuple(values), key[1],
                                             list(range(data.num_rows)), next_seq, rows_per_file,
                                             file_source=FILE_SOURCE_COMPACT))
    if not deleted:
        return None
    index_manifest = None
    with_vectors = {(r["_PARTITION"], r["_BUCKET"]) for r in index_records if r["_INDEX_TYPE"] == DELETION_VECTORS}
    if with_vectors & set(compacted):
        gone = {r["_FILE"]["_FILE_NAME"] for r in deleted}
        remaining = [r for r in live if r["_FILE"]["_FILE_NAME"] not in gone]
        index_manifest = _rewrite_index(writer, index_records, with_vectors & set(compacted), remaining, vectors)
    return writer._commit_snapshot(previous, "COMPACT", deleted + added, index_manifest)


# ---- deletes ----------------------------------------------------------------------------------
def _requested(writer: Writer, live: Sequence[dict[str, Any]],
               predicate: Callable[[pa.Table], Any] | Mapping[str, Iterable[int]]) -> dict[str, list[int]]:
    """The positions to delete per live data file name."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    by_name = {r["_FILE"]["_FILE_NAME"]: r for r in live}
    out: dict[str, list[int]] = {}
    if isinstance(predicate, Mapping):
        for name, positions in predicate.items():
            if name not in by_name:
                raise ValueError(f"{name!r} is not a live data file of the latest snapshot")
            rows = by_name[name]["_FILE"]["_ROW_COUNT"]
            wanted = sorted({int(p) for p in positions})
            if wanted and (wanted[0] < 0 or wanted[-1] >= rows):
                raise ValueError(f"positions of {name!r} must lie in 0..{rows - 1}: got {wanted[0]}..{wanted[-1]}")
            out[name] = wanted
        return out
    for name, rec in by_name.items():
        rows = read_rows(writer, rec)
        mask = predicate(rows)
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        mask = pc.fill_null(pa.array(mask, pa.bool_()) if not isinstance(mask, pa.Array) else mask, False)
        if len(mask) != rows.num_rows:
            raise ValueError(f"the predicate returned {len(mask)} values for the {rows.num_rows} rows of {name!r}")
        out[name] = np.flatnonzero(mask.to_numpy(zero_copy_only=False)).tolist()
    return out


def delete(writer: Writer, predicate: Callable[[pa.Table], Any] | Mapping[str, Iterable[int]]) -> int | None:
    """Mark rows deleted in deletion vectors and commit one OVERWRITE snapshot with an empty delta;
    its id, or None when no row is newly deleted."""
    from pyroaring import BitMap, BitMap64

    if writer.key_fields or writer.schema.options.get("deletion-vectors.enabled", "false").strip().lower() != "true":
        raise ValueError("delete() needs an append table with deletion-vectors.enabled = true")
    previous = writer._latest_snapshot()
    if previous is None:
        if isinstance(predicate, Mapping) and any(True for _ in predicate):
            raise ValueError("the table has no snapshot: there is no data file to delete from")
        return None
    live = live_records(writer, previous)
    index_records = live_index_records(writer, previous)
    vectors = deletion_vectors(writer, index_records)
    bucket_of = {r["_FILE"]["_FILE_NAME"]: (r["_PARTITION"], r["_BUCKET"]) for r in live}
    touched: set[BucketKey] = set()
    for name, positions in _requested(writer, live, predicate).items():
        old = vectors.get(name)
        union = (BitMap64 if _bitmap64(writer) else BitMap)([*positions, *(old or ())])
        if len(union) > (0 if old is None else len(old)):
            vectors[name] = union
            touched.add(bucket_of[name])
    if not touched:
        return None
    index_manifest = _rewrite_index(writer, index_records, touched, live, vectors)
    return writer._commit_snapshot(previous, "OVERWRITE", [], index_manifest)


# ---- tags -------------------------------------------------------------------------------------
def _local_date_time(now: _dt.datetime) -> list[int]:
    """A ``LocalDateTime`` as Jackson writes it: seconds left out when they and the nanos are 0,
    nanos when they are 0."""
    nanos = now.microsecond * 1000
    out = [now.year, now.month, now.day, now.hour, now.minute]
    if now.second or nanos:
        out.append(now.second)
    if nanos:
        out.append(nanos)
    return out


def write_tag(writer: Writer, name: str, snapshot_id: int | None) -> Path:
    """Write ``tag/tag-<name>``: snapshot ``snapshot_id``'s JSON (default: the latest) plus
    ``tagCreateTime``; refuses an existing tag."""
    if not name or name != name.strip() or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"tag name {name!r}: use a non-blank file name")
    if snapshot_id is None:
        latest = writer._latest_snapshot()
        if latest is None:
            raise ValueError(f"{writer.path} has no snapshot to tag")
        snapshot_id = int(latest["id"])
    source = writer.path / "snapshot" / f"snapshot-{snapshot_id}"
    if not source.is_file():
        raise ValueError(f"snapshot {snapshot_id} does not exist: {source} is missing")
    snapshot = json.loads(source.read_text(encoding="utf-8"))
    snapshot["tagCreateTime"] = _local_date_time(_dt.datetime.now())
    tag_dir = writer.path / "tag"
    tag_dir.mkdir(exist_ok=True)
    target = tag_dir / f"tag-{name}"
    if not _write_new(target, paimon_json(snapshot)):
        raise ValueError(f"tag {name!r} already exists ({target})")
    return target
