"""The driver's side of a synthetic table: schema first, then one snapshot over the tasks' files.

Written as Paimon 2.0 writes them (Avro schemas and JSON layout from :mod:`paimon_lens.writer`)::

    <table>/schema/schema-0                          before any task runs
    <table>/manifest/manifest-<uuid>-<n>             ADD entries, at most MANIFEST_ENTRIES each,
                                                     sorted by partition, bucket, file
    <table>/manifest/manifest-list-<uuid>-0          base: empty (the table's first snapshot)
    <table>/manifest/manifest-list-<uuid>-1          delta: every manifest, with partition stats
    <table>/index/index-<uuid>-<n>                   deletion vectors: one DELETION_VECTORS index
                                                     file per (partition, bucket) with deletions
    <table>/manifest/index-manifest-<uuid>-0         their entries (``_DELETIONS_VECTORS_RANGES``)
    <table>/snapshot/snapshot-1                      APPEND (append tables) or COMPACT (primary-key
                                                     tables, whose files sit at the top level)
    <table>/snapshot/LATEST                          hint
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..formats.deletion_vector import write_dv_index_file
from ..metadata.schema import TableSchema
from ..writer.avro import INDEX_MANIFEST_SCHEMA, MANIFEST_LIST_SCHEMA, MANIFEST_SCHEMA, avro_bytes
from ..writer.data_file import FileSpec
from ..writer.file_index import in_manifest_threshold, parse_index_options, validate_index_specs
from ..writer.schema import fields_from_arrow, paimon_json, schema_json
from ..writer.stats import column_modes
from ..writer.table_writer import COMMIT_IDENTIFIER, SNAPSHOT_VERSION, manifest_meta
from .spec import SynthSpec
from .task import FileResult

COMMIT_USER_PREFIX = "paimon-lens-synth"
MANIFEST_ENTRIES = 1000
INDEX_MANIFEST_VERSION = 1
DELETION_VECTORS = "DELETION_VECTORS"


def _now_millis() -> int:
    return int(time.time() * 1000)


def write_schema(root: Path, spec: SynthSpec) -> tuple[TableSchema, FileSpec]:
    """Write ``schema/schema-0``; return the schema and the :class:`FileSpec` tasks write files with.

    Raises:
        FileExistsError: ``root`` exists and is not an empty directory.
        ValueError: index or stats options Paimon would refuse.
    """
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise FileExistsError(f"{root} is not an empty directory: synth only creates new tables")
    opts = spec.table_options()
    fields = fields_from_arrow(spec.arrow_schema(), spec.primary_key)
    doc = schema_json(fields, spec.partition_keys, spec.primary_key, opts, _now_millis())
    schema = TableSchema.from_json(doc)
    specs = parse_index_options(opts)
    validate_index_specs(specs, fields)  # before anything is written
    column_modes([f.name for f in fields], opts)
    key_fields = tuple(schema.field(k) for k in schema.trimmed_primary_keys) if spec.primary_key else ()
    file_spec = FileSpec(fields, key_fields, opts, tuple(specs), in_manifest_threshold(opts))
    (root / "schema").mkdir(parents=True, exist_ok=True)
    (root / "schema" / "schema-0").write_text(paimon_json(doc), encoding="utf-8")
    return schema, file_spec


def _uuid(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def write_deletion_vectors(root: Path, results: Sequence[FileResult], names: random.Random) -> str | None:
    """One DV index file per (partition, bucket) with deletions and the index manifest; its name."""
    groups: dict[tuple[bytes, int], list[tuple[str, tuple[int, ...]]]] = {}
    for r in results:
        if r.deleted:
            key = (r.entry["_PARTITION"], r.entry["_BUCKET"])
            groups.setdefault(key, []).append((r.plan.file_name, r.deleted))
    if not groups:
        return None
    (root / "index").mkdir(exist_ok=True)
    writer_uuid = _uuid(names)
    records: list[dict[str, Any]] = []
    for n, ((partition, bucket), vectors) in enumerate(groups.items()):
        data, metas = write_dv_index_file(vectors)
        name = f"index-{writer_uuid}-{n}"
        (root / "index" / name).write_bytes(data)
        records.append({
            "_VERSION": INDEX_MANIFEST_VERSION, "_KIND": 0, "_PARTITION": partition, "_BUCKET": bucket,
            "_INDEX_TYPE": DELETION_VECTORS, "_FILE_NAME": name, "_FILE_SIZE": len(data),
            "_ROW_COUNT": len(metas),
            "_DELETIONS_VECTORS_RANGES": [{"f0": m.data_file, "f1": m.offset, "f2": m.length,
                                           "_CARDINALITY": m.cardinality} for m in metas],
            "_EXTERNAL_PATH": None, "_GLOBAL_INDEX": None,
        })
    name = f"index-manifest-{_uuid(names)}-0"
    (root / "manifest" / name).write_bytes(avro_bytes(INDEX_MANIFEST_SCHEMA, records))
    return name


def commit(root: Path, spec: SynthSpec, schema: TableSchema, results: Sequence[FileResult]) -> int:
    """Write manifests, manifest lists, deletion vectors and ``snapshot-1``; return the snapshot id."""
    names = random.Random(spec.seed ^ 0xC0FFEE)
    ordered = sorted(results, key=lambda r: (r.plan.partition, r.plan.bucket, r.plan.index))
    entries = [r.entry for r in ordered]
    manifest_dir = root / "manifest"
    manifest_dir.mkdir(parents=True, exist_ok=True)
    writer_uuid = _uuid(names)
    metas = []
    for n, start in enumerate(range(0, len(entries), MANIFEST_ENTRIES)):
        chunk = entries[start:start + MANIFEST_ENTRIES]
        name = f"manifest-{writer_uuid}-{n}"
        raw = avro_bytes(MANIFEST_SCHEMA, chunk)
        (manifest_dir / name).write_bytes(raw)
        metas.append(manifest_meta(name, len(raw), chunk, schema.partition_fields))
    list_uuid = _uuid(names)
    base_name, delta_name = f"manifest-list-{list_uuid}-0", f"manifest-list-{list_uuid}-1"
    base_raw, delta_raw = avro_bytes(MANIFEST_LIST_SCHEMA, []), avro_bytes(MANIFEST_LIST_SCHEMA, metas)
    (manifest_dir / base_name).write_bytes(base_raw)
    (manifest_dir / delta_name).write_bytes(delta_raw)
    index_manifest = write_deletion_vectors(root, ordered, names) if spec.deletion_vectors else None

    added = sum(e["_FILE"]["_ROW_COUNT"] for e in entries)
    snapshot: dict[str, Any] = {
        "version": SNAPSHOT_VERSION, "uuid": _uuid(names), "id": 1, "schemaId": 0,
        "baseManifestList": base_name, "baseManifestListSize": len(base_raw),
        "deltaManifestList": delta_name, "deltaManifestListSize": len(delta_raw),
    }
    if index_manifest is not None:
        snapshot["indexManifest"] = index_manifest
    snapshot.update({
        "commitUser": f"{COMMIT_USER_PREFIX}-{_uuid(names)}", "commitIdentifier": COMMIT_IDENTIFIER,
        "commitKind": "COMPACT" if spec.primary_key else "APPEND", "timeMillis": _now_millis(),
        "totalRecordCount": added, "deltaRecordCount": added, "nextRowId": 0,
    })
    snapshot_dir = root / "snapshot"
    snapshot_dir.mkdir(parents=True, exist_ok=True)
    (snapshot_dir / "snapshot-1").write_text(paimon_json(snapshot), encoding="utf-8")
    (snapshot_dir / "LATEST").write_text("1", encoding="utf-8")
    return 1
