"""``TableWriter``: create a new Paimon table and commit snapshots to it.

Each commit adds one snapshot, laid out as Paimon 2.0 lays it out::

    <table>/schema/schema-0                                  written by create()
    <table>/schema/schema-<n>                                written by alter(): options set or
                                                             reset, columns added
    <table>/<k1>=<v1>/.../bucket-<n>/data-<uuid>-<i>.parquet one writer (uuid) per partition and
    <table>/<k1>=<v1>/.../bucket-<n>/data-<uuid>-<i>.parquet.index   bucket, files rolled by rows
    <table>/manifest/manifest-<uuid>-0                       the commit's entries: ADD (APPEND), or
                                                             DELETE of the inputs, then ADD of the
                                                             outputs (COMPACT); metadata files in
                                                             ``manifest.format``: avro, the default,
                                                             orc or parquet
    <table>/manifest/manifest-list-<uuid>-0                  base: every manifest of the previous
                                                             snapshot (base then delta)
    <table>/manifest/manifest-list-<uuid>-1                  delta: this commit's manifest (empty
                                                             for a delete by deletion vectors)
    <table>/index/index-<uuid>-0                             delete(): the deletion vectors of one
                                                             partition and bucket (in the bucket
                                                             directory with
                                                             ``index-file-in-data-file-dir``)
    <table>/manifest/index-manifest-<uuid>-0                 the live index files (ADD entries only),
                                                             written when they change; every other
                                                             snapshot carries the previous one over
    <table>/snapshot/snapshot-<id>                           commitKind APPEND, COMPACT or OVERWRITE,
                                                             schemaId, record counts
    <table>/snapshot/LATEST                                  hint (Paimon writes EARLIEST only
                                                             when it expires snapshots)
    <table>/tag/tag-<name>                                   tag(): the snapshot's JSON and its
                                                             ``tagCreateTime``

The commit kinds (:meth:`TableWriter.commit`, and :meth:`~TableWriter.compact`,
:meth:`~TableWriter.delete` from :mod:`.history_commits`):

* APPEND: new data files. ``deltaRecordCount`` is their rows.
* COMPACT (append tables): the live files of every partition and bucket holding at least
  ``min_files`` are rewritten, without the rows their deletion vectors delete, into new level-0
  files (file source COMPACT, sequence numbers from the first input's) with the current schema
  and options (so their file indexes follow the current ``file-index.*`` options); their
  deletion vectors leave the index manifest. ``deltaRecordCount`` = rows added - rows of the
  files deleted.
* OVERWRITE with an empty delta (append tables with ``deletion-vectors.enabled``): rows deleted
  by deletion vectors, as pypaimon 2.1 commits them; ``deltaRecordCount`` 0.

``totalRecordCount`` is the previous one plus ``deltaRecordCount``: the rows of the live files,
deletion vectors not subtracted. Data files and snapshots carry the id of the schema they were
written with (``_SCHEMA_ID``, ``schemaId``); manifest list records the writer's schema id and
how many ADD and DELETE entries the manifest holds.

Once the previous snapshot lists ``manifest.merge-min-count`` manifests (default 30), the base
list holds one merged manifest instead (ADD and DELETE entries of the same file cancelled).
:meth:`TableWriter.expire_snapshots` expires old snapshots as Paimon does (unused manifests and
lists, then snapshot files, then ``EARLIEST``), keeping what tags use.

Rows go to partitions by the partition columns and to buckets with Paimon's bucket function:
``bucket = -1`` (bucket-unaware append table) puts everything in ``bucket-0`` with
``_TOTAL_BUCKETS = -1``; ``bucket = N`` hashes the bucket key (``bucket-key``, else the trimmed
primary key) as ``abs(BinaryRow(key).hashCode() % N)`` (or ``floorMod`` with
``bucket-function.type = mod``). Sequence numbers count rows per writer: from 0 in every commit
for bucket-unaware tables (Paimon does not restore their previous files), else continuing after
the largest one already in the partition's bucket.

Primary-key tables (fixed buckets, ``deduplicate`` merge engine) get level-0 files as Paimon's
writer flushes them: rows with the same key within one commit keep the last one, files are
sorted by key, keys do not overlap between the files of one commit and bucket, and carry the
``_KEY_*``/``_SEQUENCE_NUMBER``/``_VALUE_KIND`` columns. They are neither compacted nor given
deletion vectors; dynamic buckets and other merge engines are not written.

The writer never touches an existing table it did not create: :meth:`TableWriter.create`
refuses a non-empty directory and :meth:`TableWriter.open` accepts only tables whose every
snapshot was committed by this writer (its commit user starts with ``paimon-lens-writer``).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..formats.data_file import arrow_type
from ..metadata.binary_row import encode_binary_row
from ..metadata.bucket import bucket_of
from ..metadata.paths import bucket_dir, partition_path
from ..metadata.schema import TableSchema
from ..metadata.snapshot_reader import open_reader
from ..types import DataField
from ..values import to_internal
from .avro import MANIFEST_LIST_SCHEMA, MANIFEST_SCHEMA, MANIFEST_VERSION
from .data_file import FileSpec, write_data_file
from .file_index import in_manifest_threshold, parse_index_options, validate_index_specs
from .history_commits import alter_schema, compact, delete, entry_identifier, write_tag
from .meta_file import meta_file_bytes
from .schema import fields_from_arrow, paimon_json, schema_json
from .stats import column_modes

if TYPE_CHECKING:
    import pyarrow as pa

COMMIT_USER_PREFIX = "paimon-lens-writer"
COMMIT_IDENTIFIER = 9223372036854775807  # Long.MAX_VALUE: a batch commit
SNAPSHOT_VERSION = 3


def _now_millis() -> int:
    return int(time.time() * 1000)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class TableWriter:
    """Writes a new Paimon table: :meth:`create` it, then :meth:`commit` Arrow tables to it."""

    def __init__(self, path: Path, schema: TableSchema) -> None:
        """Use :meth:`create` or :meth:`open`."""
        self.path = path
        self.commit_user = f"{COMMIT_USER_PREFIX}-{uuid.uuid4()}"
        self._use_schema(schema)

    def _use_schema(self, schema: TableSchema) -> None:
        """Write with ``schema`` from now on (validates its index and stats options)."""
        self.schema = schema
        opts = schema.options
        self.bucket = int(opts.get("bucket", "-1"))
        self.fields: tuple[DataField, ...] = schema.fields
        self.partition_fields = schema.partition_fields
        self.key_fields = tuple(schema.field(k) for k in schema.trimmed_primary_keys) if schema.primary_keys else ()
        self.bucket_fields = [schema.field(k) for k in schema.bucket_keys]
        self.bucket_function = opts.get("bucket-function.type", "default").lower()
        specs = parse_index_options(opts)
        validate_index_specs(specs, self.fields)
        column_modes(schema.field_names, opts)  # validates stats modes
        self.file_spec = FileSpec(self.fields, self.key_fields, dict(opts), tuple(specs), in_manifest_threshold(opts),
                                  schema.id)
        self.manifest_format = opts.get("manifest.format", "avro").lower()

    # ---- creating and opening ---------------------------------------------------------------
    @classmethod
    def create(cls, path: str | os.PathLike[str], schema: pa.Schema, *, partition_keys: Sequence[str] = (),
               primary_keys: Sequence[str] = (), bucket: int = -1, bucket_key: str | Sequence[str] | None = None,
               options: Mapping[str, str] | None = None, file_format: str = "parquet") -> TableWriter:
        """Create a new, empty table (``schema/schema-0``) in ``path``, which must not hold anything.

        Args:
            path: the table directory (created if missing; must be empty if present).
            schema: column names and Arrow types (see :mod:`paimon_lens.writer.schema`).
            partition_keys: partition columns, in path order.
            primary_keys: primary-key columns (must include the partition keys; needs ``bucket > 0``).
            bucket: ``-1`` (append, bucket-unaware) or the fixed number of buckets.
            bucket_key: bucket-key columns (required for fixed-bucket append tables; default for
                primary-key tables: the primary key without the partition keys).
            options: further table options (``file-index.*``, ``metadata.stats-mode`` ...).
            file_format: only ``parquet`` is written.

        Raises:
            FileExistsError: ``path`` exists and is not empty.
            ValueError: an inconsistent definition (unknown columns, bad options, ...).
            NotImplementedError: a table kind this writer cannot write.
        """
        root = Path(path)
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise FileExistsError(f"{root} is not an empty directory: the writer only creates new tables "
                                  "(use TableWriter.open to add snapshots to a table it created)")
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        if file_format.lower() != "parquet" or opts.get("file.format", "parquet").lower() != "parquet":
            raise NotImplementedError("only parquet data files are written")
        if "bucket" in opts and int(opts["bucket"]) != bucket:
            raise ValueError(f"option bucket={opts['bucket']} contradicts bucket={bucket}")
        keys = bucket_key.split(",") if isinstance(bucket_key, str) else list(bucket_key or ())
        keys = [k.strip() for k in keys if k.strip()]
        if keys and opts.get("bucket-key") and opts["bucket-key"].replace(" ", "") != ",".join(keys):
            raise ValueError(f"option bucket-key={opts['bucket-key']} contradicts bucket_key={keys}")
        opts = {"bucket": str(bucket), **{k: v for k, v in opts.items() if k != "bucket"}}
        if keys:
            opts["bucket-key"] = ",".join(keys)
        opts.setdefault("file.format", "parquet")
        if opts.get("manifest.format", "avro").lower() not in ("avro", "orc", "parquet"):
            raise ValueError(f"manifest.format={opts['manifest.format']}: use avro, orc or parquet")
        pks, parts = tuple(primary_keys), tuple(partition_keys)
        fields = fields_from_arrow(schema, pks)
        names = [f.name for f in fields]
        for what, cols in (("partition key", parts), ("primary key", pks), ("bucket key", tuple(keys))):
            for c in cols:
                if c not in names:
                    raise ValueError(f"{what} {c!r} is not a column: {names}")
            if len(set(cols)) != len(cols):
                raise ValueError(f"duplicate {what}s: {list(cols)}")
        _check_layout(parts, pks, bucket, keys, opts)
        table_schema = TableSchema.from_json(schema_json(fields, parts, pks, opts, _now_millis()))
        writer = cls(root, table_schema)  # validates index and stats options before anything is written
        (root / "schema").mkdir(parents=True, exist_ok=True)
        (root / "schema" / "schema-0").write_text(
            paimon_json(schema_json(fields, parts, pks, opts, table_schema.time_millis or _now_millis())),
            encoding="utf-8")
        return writer

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> TableWriter:
        """Open a table created by :meth:`create`, to commit more snapshots to it, with its latest
        schema (``schema-0`` ... ``schema-<n>``, as :meth:`alter` writes them).

        Raises:
            ValueError: the directory is not a table this writer created.
        """
        root = Path(path)
        schema_dir = root / "schema"
        if not (schema_dir / "schema-0").is_file():
            raise ValueError(f"{root} is not a table written by paimon-lens' writer: no schema/schema-0")
        names = sorted(p.name for p in schema_dir.iterdir())
        ids = sorted(int(n[7:]) for n in names if n.startswith("schema-") and n[7:].isdigit())
        if len(ids) != len(names) or ids != list(range(len(ids))):
            raise ValueError(f"{root}/schema holds {names}: not the schema-0 ... schema-<n> of paimon-lens' writer")
        for snap in sorted((root / "snapshot").glob("snapshot-*")):
            user = json.loads(snap.read_text(encoding="utf-8")).get("commitUser", "")
            if not str(user).startswith(COMMIT_USER_PREFIX):
                raise ValueError(f"{snap} was committed by {user!r}, not by paimon-lens' writer: refusing to write")
        latest = schema_dir / f"schema-{ids[-1]}"
        schema = TableSchema.from_json(json.loads(latest.read_text(encoding="utf-8")), str(latest))
        if schema.id != ids[-1]:
            raise ValueError(f"{latest} holds schema id {schema.id}")
        return cls(root, schema)

    # ---- committing -------------------------------------------------------------------------
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the table's columns (what :meth:`commit` casts its input to)."""
        import pyarrow as pa

        return pa.schema([pa.field(f.name, arrow_type(f.type), f.type.nullable) for f in self.fields])

    def commit(self, data: pa.Table, *, rows_per_file: int | None = None) -> int:
        """Write ``data`` as new data files and commit one APPEND snapshot; return its id.

        Rows are split by partition and bucket, then into files of at most ``rows_per_file`` rows.
        Columns are matched by name and cast to the table's types.
        """
        if rows_per_file is not None and rows_per_file < 1:
            raise ValueError("rows_per_file must be positive")
        data = self._conform(data)
        if data.num_rows == 0:
            raise ValueError("nothing to commit: the table is empty (Paimon ignores empty commits)")
        values = self._internal_values(data)

        previous = self._latest_snapshot()
        groups = self._group(values, data.num_rows)
        next_seq = self._restored_sequence_numbers() if self.bucket > 0 else {}
        entries: list[dict[str, Any]] = []
        for (part_values, bucket), rows in groups.items():
            entries.extend(self._write_group(data, values, part_values, bucket, rows, next_seq, rows_per_file))
        return self._commit_snapshot(previous, "APPEND", entries)

    # ---- schema changes, compaction, deletes, tags (see .history_commits) -------------------
    def alter(self, set_options: Mapping[str, str] | None = None, reset_options: Sequence[str] = (),
              add_columns: pa.Schema | None = None) -> int:
        """Write ``schema/schema-<n+1>`` (options set and reset, nullable columns added), which later
        commits use; return its id. ValueError when invalid (:func:`.history_commits.alter_schema`)."""
        def validate(schema: TableSchema) -> None:
            opts = schema.options
            keys = [k for k in opts.get("bucket-key", "").split(",") if k]
            _check_layout(schema.partition_keys, schema.primary_keys, int(opts.get("bucket", "-1")), keys, opts)
            TableWriter(self.path, schema)  # index and stats options

        self._use_schema(alter_schema(self, set_options, reset_options, add_columns, validate))
        return self.schema.id

    def compact(self, partition: Mapping[str, Any] | None = None, *, min_files: int = 2,
                rows_per_file: int | None = None) -> int | None:
        """Rewrite the files of every partition and bucket (of ``partition`` only, if given) with at
        least ``min_files`` live files in one COMPACT snapshot; its id, or None when nothing
        qualifies. Append tables only (:func:`.history_commits.compact`)."""
        return compact(self, partition, min_files, rows_per_file)

    def delete(self, predicate: Callable[[pa.Table], Any] | Mapping[str, Iterable[int]]) -> int | None:
        """Delete rows by deletion vectors in one OVERWRITE snapshot; its id, or None when no row is
        deleted. ``predicate``: a boolean mask of a data file's rows (given as a table of the current
        columns, in file order), or row positions per data file name (:func:`.history_commits.delete`)."""
        return delete(self, predicate)

    def tag(self, name: str, snapshot_id: int | None = None) -> Path:
        """Write ``tag/tag-<name>`` for snapshot ``snapshot_id`` (default: the latest); its path.
        ValueError for an existing tag (:func:`.history_commits.write_tag`)."""
        return write_tag(self, name, snapshot_id)

    # ---- committing a snapshot --------------------------------------------------------------
    def _commit_snapshot(self, previous: dict[str, Any] | None, kind: str, entries: list[dict[str, Any]],
                         index_manifest: str | None = None) -> int:
        """Write the delta manifest of ``entries`` (none when empty), the base and delta manifest
        lists and snapshot ``kind``; ``index_manifest``: a new index manifest, else the previous
        snapshot's is carried over. Returns the snapshot id."""
        fmt = self.manifest_format
        manifest_dir = self.path / "manifest"
        manifest_dir.mkdir(parents=True, exist_ok=True)
        delta: list[dict[str, Any]] = []
        if entries:
            manifest_name = f"manifest-{uuid.uuid4()}-0"
            raw = meta_file_bytes(MANIFEST_SCHEMA, entries, fmt)
            (manifest_dir / manifest_name).write_bytes(raw)
            delta.append(self._manifest_meta(manifest_name, len(raw), entries))

        base = self._merged(self._previous_manifests(previous), fmt)
        list_uuid = uuid.uuid4()
        base_name, delta_name = f"manifest-list-{list_uuid}-0", f"manifest-list-{list_uuid}-1"
        base_raw = meta_file_bytes(MANIFEST_LIST_SCHEMA, base, fmt)
        delta_raw = meta_file_bytes(MANIFEST_LIST_SCHEMA, delta, fmt)
        (manifest_dir / base_name).write_bytes(base_raw)
        (manifest_dir / delta_name).write_bytes(delta_raw)

        added = sum(e["_FILE"]["_ROW_COUNT"] * (1 if e["_KIND"] == 0 else -1) for e in entries)
        snapshot_id = 1 if previous is None else int(previous["id"]) + 1
        snapshot: dict[str, Any] = {
            "version": SNAPSHOT_VERSION, "uuid": str(uuid.uuid4()), "id": snapshot_id, "schemaId": self.schema.id,
            "baseManifestList": base_name, "baseManifestListSize": len(base_raw),
            "deltaManifestList": delta_name, "deltaManifestListSize": len(delta_raw),
        }
        index = index_manifest or (previous or {}).get("indexManifest")
        if index:
            snapshot["indexManifest"] = index
        snapshot.update({
            "commitUser": self.commit_user, "commitIdentifier": COMMIT_IDENTIFIER, "commitKind": kind,
            "timeMillis": _now_millis(),
            "totalRecordCount": (0 if previous is None else int(previous.get("totalRecordCount") or 0)) + added,
            "deltaRecordCount": added, "nextRowId": 0,
        })
        snapshot_dir = self.path / "snapshot"
        snapshot_dir.mkdir(parents=True, exist_ok=True)
        target = snapshot_dir / f"snapshot-{snapshot_id}"
        if target.exists():
            raise FileExistsError(f"{target} exists: another writer committed concurrently")
        _write_atomic(target, paimon_json(snapshot).encode("utf-8"))
        _write_atomic(snapshot_dir / "LATEST", str(snapshot_id).encode())
        return snapshot_id

    # ---- internals --------------------------------------------------------------------------
    def _internal_values(self, data: pa.Table) -> dict[str, list[Any]]:
        """The internal values of every column of ``data`` (conformed); refuses nulls in NOT NULL
        columns."""
        values = {f.name: [to_internal(v, f.type) for v in data.column(f.name).to_pylist()] for f in self.fields}
        for f in self.fields:
            if not f.type.nullable and any(v is None for v in values[f.name]):
                raise ValueError(f"column {f.name!r} is NOT NULL but holds nulls")
        return values

    def _conform(self, data: pa.Table) -> pa.Table:
        import pyarrow as pa

        target = self.arrow_schema()
        missing = [n for n in target.names if n not in data.column_names]
        extra = [n for n in data.column_names if n not in target.names]
        if missing or extra:
            raise ValueError(f"columns do not match the table: missing {missing}, unknown {extra}")
        columns = [data.column(f.name).cast(f.type) for f in target]
        return pa.Table.from_arrays(columns, schema=target.remove_metadata()).combine_chunks()

    def _group(self, values: dict[str, list[Any]], n: int) -> dict[tuple[tuple[Any, ...], int], list[int]]:
        """Row positions per (partition values, bucket), in first-seen order."""
        part_cols = [values[f.name] for f in self.partition_fields]
        bucket_cols = [values[f.name] for f in self.bucket_fields]
        groups: dict[tuple[tuple[Any, ...], int], list[int]] = {}
        for i in range(n):
            part = tuple(c[i] for c in part_cols)
            bucket = 0 if self.bucket <= 0 else bucket_of([c[i] for c in bucket_cols], self.bucket_fields,
                                                          self.bucket, self.bucket_function)
            groups.setdefault((part, bucket), []).append(i)
        return groups

    def _write_group(self, data: pa.Table, values: dict[str, list[Any]], part_values: tuple[Any, ...], bucket: int,
                     rows: list[int], next_seq: dict[tuple[bytes, int], int],
                     rows_per_file: int | None, file_source: int | None = None) -> list[dict[str, Any]]:
        import pyarrow as pa

        partition = encode_binary_row(list(part_values), [f.type for f in self.partition_fields])
        first = next_seq.get((partition, bucket), 0)
        seqs = list(range(first, first + len(rows)))
        if self.key_fields:  # merge (deduplicate: the last row of a key wins), then sort by key
            last: dict[tuple[Any, ...], int] = {}
            for j, i in enumerate(rows):
                last[tuple(values[f.name][i] for f in self.key_fields)] = j
            order = sorted(last.items(), key=lambda kv: _sort_key(kv[0]))
            seqs = [first + j for _, j in order]
            rows = [rows[j] for _, j in order]
        next_seq[(partition, bucket)] = first + len(seqs)
        size = rows_per_file or len(rows)
        directory = self._bucket_directory(part_values, bucket)
        prefix = self.schema.options.get("data-file.prefix", "data-")
        writer_uuid = uuid.uuid4()
        total_buckets = self.bucket if self.bucket > 0 else -1
        entries = []
        for k, start in enumerate(range(0, len(rows), size)):
            chunk = rows[start:start + size]
            taken = data.take(pa.array(chunk, pa.int64()))
            chunk_values = {name: [col[i] for i in chunk] for name, col in values.items()}
            entries.append(write_data_file(self.file_spec, directory, f"{prefix}{writer_uuid}-{k}.parquet", taken,
                                           chunk_values, seqs[start:start + size], partition, bucket,
                                           total_buckets, file_source=file_source))
        return entries

    def _bucket_directory(self, part_values: Sequence[Any], bucket: int) -> Path:
        """The directory of a partition's bucket (partition values as internal values)."""
        return self.path / "/".join(p for p in (
            self.schema.options.get("data-file.path-directory"),
            partition_path(list(part_values), self.partition_fields, self.schema.core_options),
            bucket_dir(bucket)) if p)

    def _manifest_meta(self, name: str, size: int, entries: list[dict[str, Any]]) -> dict[str, Any]:
        """The manifest list record of a manifest (partition stats over its entries)."""
        return manifest_meta(name, size, entries, self.partition_fields, self.schema.id)

    def _latest_snapshot(self) -> dict[str, Any] | None:
        latest = self.path / "snapshot" / "LATEST"
        if not latest.exists():
            return None
        snap = self.path / "snapshot" / f"snapshot-{latest.read_text().strip()}"
        result: dict[str, Any] = json.loads(snap.read_text(encoding="utf-8"))
        return result

    def _previous_manifests(self, previous: dict[str, Any] | None) -> list[dict[str, Any]]:
        """Manifest list records of the previous snapshot: base then delta."""
        from ..io.fileio import LocalFileIO
        from ..metadata.meta_file import read_meta_file

        if previous is None:
            return []
        out: list[dict[str, Any]] = []
        for key in ("baseManifestList", "deltaManifestList"):
            records, _ = read_meta_file(LocalFileIO(), str(self.path / "manifest" / previous[key]), "manifest list")
            out.extend(records)
        return out

    def _merged(self, base: list[dict[str, Any]], fmt: str) -> list[dict[str, Any]]:
        """``base`` itself, or, once it lists ``manifest.merge-min-count`` manifests (default 30, as
        Paimon), one manifest holding all their entries (the old ones are then used only by older
        snapshots: an expiration deletes them)."""
        from ..io.fileio import LocalFileIO
        from ..metadata.meta_file import read_meta_file

        if len(base) < max(2, int(self.schema.options.get("manifest.merge-min-count", "30"))):
            return base
        merged: dict[tuple[Any, ...], dict[str, Any]] = {}
        for m in base:
            records, _ = read_meta_file(LocalFileIO(), str(self.path / "manifest" / m["_FILE_NAME"]), "manifest")
            for rec in records:  # an ADD and a later DELETE of the same file cancel out
                key = entry_identifier(rec)
                if rec["_KIND"] != 0 and key in merged and merged[key]["_KIND"] == 0:
                    del merged[key]
                else:
                    merged[key] = rec
        entries = list(merged.values())
        if not entries:
            return []
        name = f"manifest-{uuid.uuid4()}-0"
        raw = meta_file_bytes(MANIFEST_SCHEMA, entries, fmt)
        (self.path / "manifest" / name).write_bytes(raw)
        return [self._manifest_meta(name, len(raw), entries)]

    def expire_snapshots(self, retain_last: int = 1, *, delete_files: bool = False) -> list[int]:
        """Expire every snapshot but the newest ``retain_last``, as Paimon's expiration does: the
        manifests and manifest lists neither a retained snapshot nor a tag uses are deleted, then
        the snapshot files (oldest first), then the ``EARLIEST`` hint is written. Returns the
        expired ids.

        ``delete_files``: first delete, as Paimon does, the data files (with their ``.index`` files),
        the index files (deletion vectors, global indexes) and the index manifests that only expired
        snapshots use. Without it they stay on disk (the files a compaction replaced remain).
        """
        from ..io.fileio import LocalFileIO
        from ..metadata.meta_file import read_meta_file

        if retain_last < 1:
            raise ValueError("retain_last must be at least 1: Paimon never expires the latest snapshot")
        snap_dir, manifest_dir = self.path / "snapshot", self.path / "manifest"
        ids = sorted(int(p.name[9:]) for p in snap_dir.glob("snapshot-*") if p.name[9:].isdigit())
        expired, kept = ids[:-retain_last], ids[-retain_last:]
        if not expired:
            return []

        def files_of(snap_file: Path) -> set[str]:
            snap = json.loads(snap_file.read_text(encoding="utf-8"))
            names = {snap["baseManifestList"], snap["deltaManifestList"]}
            for key in ("baseManifestList", "deltaManifestList"):
                records, _ = read_meta_file(LocalFileIO(), str(manifest_dir / snap[key]), "manifest list")
                names.update(r["_FILE_NAME"] for r in records)
            return names

        tags = sorted((self.path / "tag").glob("tag-*"))
        if delete_files:
            self._delete_unused_files([snap_dir / f"snapshot-{sid}" for sid in expired],
                                      [snap_dir / f"snapshot-{sid}" for sid in kept] + tags)
        used = set().union(*(files_of(snap_dir / f"snapshot-{sid}") for sid in kept), *(files_of(t) for t in tags))
        unused = set().union(*(files_of(snap_dir / f"snapshot-{sid}") for sid in expired)) - used
        lists = {n for n in unused if n.startswith("manifest-list-")}
        for name in sorted(unused - lists) + sorted(lists):  # manifests, then manifest lists
            (manifest_dir / name).unlink(missing_ok=True)
        for sid in expired:
            (snap_dir / f"snapshot-{sid}").unlink(missing_ok=True)
        _write_atomic(snap_dir / "EARLIEST", str(kept[0]).encode())
        return expired

    def _delete_unused_files(self, expired: Sequence[Path], kept: Sequence[Path]) -> None:
        """Delete the data, ``.index``, index and index-manifest files the ``expired`` snapshot files
        use and none of the ``kept`` ones (retained snapshots and tags) does: data files first, as
        Paimon's expiration."""

        def used(snap_file: Path) -> tuple[set[str], set[str]]:
            snap = json.loads(snap_file.read_text(encoding="utf-8"))
            reader = open_reader(str(self.path), snapshot=int(snap["id"])) if snap_file.parent.name == "snapshot" \
                else open_reader(str(self.path), tag=snap_file.name.removeprefix("tag-"))
            files = {lf.path for lf in reader.live_files()}
            files |= {lf.index_file_path for lf in reader.live_files() if lf.index_file_path}
            index = {f"index/{e.file_name}" for e in reader.index_entries()}
            if snap.get("indexManifest"):
                index.add(f"manifest/{snap['indexManifest']}")
            return files, index

        def union(snaps: Sequence[Path]) -> tuple[set[str], set[str]]:
            out: tuple[set[str], set[str]] = (set(), set())
            for f in snaps:
                a, b = used(f)
                out[0].update(a)
                out[1].update(b)
            return out

        keep_files, keep_index = union(kept)
        old_files, old_index = union(expired)
        for rel in sorted(old_files - keep_files) + sorted(old_index - keep_index):
            (self.path / rel).unlink(missing_ok=True)

    def _restored_sequence_numbers(self) -> dict[tuple[bytes, int], int]:
        """Next sequence number per (partition, bucket): one after the largest already committed."""
        from ..metadata.snapshot_reader import open_reader

        if self._latest_snapshot() is None:
            return {}
        out: dict[tuple[bytes, int], int] = {}
        for e in open_reader(str(self.path)).live_entries():
            key = (e.partition, e.bucket)
            out[key] = max(out.get(key, 0), e.file.max_sequence_number + 1)
        return out


def _sort_value(v: Any) -> Any:
    return bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else v


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(_sort_value(v) for v in key)


def _decode_partition(raw: bytes, fields: Sequence[DataField]) -> list[Any]:
    from ..metadata.binary_row import decode_binary_row

    return decode_binary_row(raw, [f.type for f in fields])


def _check_layout(parts: tuple[str, ...], pks: tuple[str, ...], bucket: int, bucket_keys: list[str],
                  opts: dict[str, str]) -> None:
    """Refuse table definitions Paimon refuses, and kinds this writer does not write."""
    if bucket == 0 or bucket < -1:
        raise NotImplementedError(f"bucket={bucket}: only -1 (bucket-unaware append) and N > 0 are written")
    if pks:
        if bucket < 0:
            raise NotImplementedError("primary-key tables need a fixed bucket count (dynamic buckets need a "
                                      "HASH index this writer does not write)")
        if not set(parts) <= set(pks):
            raise ValueError(f"the primary key {list(pks)} must include every partition key {list(parts)}")
        if set(pks) == set(parts):
            raise ValueError("the primary key must not be the same as the partition keys")
        trimmed = [k for k in pks if k not in parts]
        if bucket_keys and not set(bucket_keys) <= set(trimmed):
            raise ValueError(f"bucket keys {bucket_keys} must be part of the primary key {trimmed}")
        if opts.get("merge-engine", "deduplicate").lower() != "deduplicate" or "sequence.field" in opts:
            raise NotImplementedError("only the deduplicate merge engine without sequence.field is written")
        if opts.get("deletion-vectors.enabled", "false").lower() == "true":
            raise NotImplementedError("deletion-vectors.enabled: Paimon's batch scan of such a table ignores "
                                      "level-0 files, and this writer does not compact")
    else:
        if bucket > 0 and not bucket_keys:
            raise ValueError("a fixed-bucket append table needs a bucket key (bucket_key=...)")
        if bucket < 0 and bucket_keys:
            raise ValueError("bucket_key needs a fixed bucket count (bucket > 0)")
    if set(bucket_keys) & set(parts):
        raise ValueError("bucket keys must not be partition keys")


def manifest_meta(name: str, size: int, entries: Sequence[dict[str, Any]],
                  partition_fields: Sequence[DataField], schema_id: int = 0) -> dict[str, Any]:
    """The manifest list record of a manifest (partition stats over its entries, ADD and DELETE
    entries counted; ``schema_id``: the writer's schema)."""
    types = [f.type for f in partition_fields]
    decoded = [_decode_partition(e["_PARTITION"], partition_fields) for e in entries]
    mins: list[Any] = []
    maxs: list[Any] = []
    nulls: list[int] = []
    for i in range(len(types)):
        present = [p[i] for p in decoded if p[i] is not None]
        mins.append(min(present, key=_sort_value) if present else None)
        maxs.append(max(present, key=_sort_value) if present else None)
        nulls.append(len(decoded) - len(present))
    buckets = [e["_BUCKET"] for e in entries]
    levels = [e["_FILE"]["_LEVEL"] for e in entries]
    added = sum(1 for e in entries if e["_KIND"] == 0)
    return {
        "_VERSION": MANIFEST_VERSION, "_FILE_NAME": name, "_FILE_SIZE": size,
        "_NUM_ADDED_FILES": added, "_NUM_DELETED_FILES": len(entries) - added,
        "_PARTITION_STATS": {"_MIN_VALUES": encode_binary_row(mins, types),
                             "_MAX_VALUES": encode_binary_row(maxs, types), "_NULL_COUNTS": nulls},
        "_SCHEMA_ID": schema_id, "_MIN_BUCKET": min(buckets), "_MAX_BUCKET": max(buckets),
        "_MIN_LEVEL": min(levels), "_MAX_LEVEL": max(levels), "_MIN_ROW_ID": None, "_MAX_ROW_ID": None,
    }
