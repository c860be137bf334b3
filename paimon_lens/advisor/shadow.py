"""A shadow copy: a new Paimon table holding a snapshot's data with a plan's file indexes.

``shadow(reader, out, plan)`` writes, at ``out`` (never inside the source table, which is only
read):

* ``schema/``: every schema file of the source, then one more schema (the next id) with the
  plan's options set and unset;
* the live data files at their relative paths, hard-linked where the file system allows it and
  copied otherwise (never referenced into the source: a maintenance job on the copy could
  delete them);
* each data file's file-index container, built from its own column values by the byte-identical
  writers with the planned options (embedded in the manifest up to ``in-manifest-threshold``,
  else ``<data file>.index`` beside it), replacing the source's;
* ``index/``: the source's index manifest and the files it names (deletion vectors, HASH and
  global indexes), copied;
* one manifest of every live file, its manifest lists and snapshot 1.

Users point their engine at ``out`` and measure; ``explain`` on ``out`` answers what the plan
predicts. Local tables only.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError
from ..writer.file_index import IndexSpec, build_container, in_manifest_threshold, parse_index_options

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .plan import Plan


@dataclass
class ShadowCopy:
    """What :func:`shadow` wrote."""

    path: str
    snapshot_id: int
    schema_id: int
    files: int
    linked: int
    copied: int
    index_files: int
    embedded: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``shadow --format json`` document."""
        return dict(self.__dict__)


def _refuse_inside(source: Path, out: Path) -> None:
    src, dst = source.resolve(), out.resolve()
    if dst == src or src in dst.parents:
        raise PaimonLensError(f"{out} is inside the source table {source}: a shadow copy goes elsewhere")
    if dst in src.parents:
        raise PaimonLensError(f"{out} holds the source table {source}: a shadow copy goes elsewhere")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise PaimonLensError(f"{out} is not an empty directory")


def _place(src: Path, dst: Path, counts: dict[str, int]) -> None:
    """``dst`` as a hard link of ``src``, or a copy where links are not possible."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
        counts["linked"] += 1
    except OSError:
        shutil.copy2(src, dst)
        counts["copied"] += 1


def target_options(reader: SnapshotReader, plan: Plan | dict[str, Any]) -> dict[str, str]:
    """The source's options with the plan's set and unset (a :class:`~.plan.Plan` or its JSON)."""
    doc = plan.to_dict() if not isinstance(plan, dict) else plan
    if doc.get("table") is not None and doc.get("snapshot_id") not in (None, reader.snapshot_id):
        raise PaimonLensError(f"the plan is of snapshot {doc.get('snapshot_id')}, the table is at "
                              f"{reader.snapshot_id}: make the plan again")
    opts = dict(reader.schema.options)
    opts.update(doc["options"]["set"])
    for key in doc["options"]["unset"]:
        opts.pop(key, None)
    return opts


def _raw_live_entries(reader: SnapshotReader) -> list[dict[str, Any]]:
    """The snapshot's live manifest entries as their raw records (ADD entries not deleted later)."""
    from ..metadata.meta_file import read_meta_file
    from ..writer.history_commits import merge_live

    return merge_live(rec for m in reader.manifest_files() for rec in read_meta_file(
        reader.file_io, reader.file_io.join(reader.manifest_dir, m.file_name), "manifest")[0])


def _container(reader: SnapshotReader, lf: LiveFile, specs: list[IndexSpec]) -> bytes | None:
    """The file's container with ``specs`` (table column names), built from its own values."""
    from ..pruning.truth import read_columns

    if not specs:
        return None
    schema = reader.schema_manager.schema(lf.entry.file.schema_id)
    by_id = {f.id: f for f in schema.fields}
    ids = {s.column: reader.schema.field(s.column).id for s in specs}
    values = read_columns(reader, lf, sorted(set(ids.values())), cast=False)
    built = [replace(s, column=by_id[ids[s.column]].name) for s in specs
             if ids[s.column] in by_id and ids[s.column] in values]
    columns = {by_id[i].name: values[i] for i in ids.values() if i in by_id and i in values}
    return build_container(built, schema.fields, columns) if built else None


def shadow(reader: SnapshotReader, out: str | os.PathLike[str], plan: Plan | dict[str, Any]) -> ShadowCopy:
    """Write the shadow copy of ``reader``'s snapshot with ``plan``'s options at ``out`` (see the module docs)."""
    import json

    from ..metadata.schema import TableSchema
    from ..writer.schema import paimon_json
    from ..writer.table_writer import TableWriter

    if "://" in reader.path and not reader.path.startswith("file://"):
        raise PaimonLensError(f"{reader.path}: a shadow copy is written from a local table only")
    source, dest = Path(reader.path), Path(out)
    _refuse_inside(source, dest)
    options = target_options(reader, plan)
    # the schema the copy is written with: the source's newest, the next id, the planned options
    raw = json.loads((source / "schema" / f"schema-{reader.schema.id}").read_text(encoding="utf-8"))
    newest = max(s.id for s in reader.schema_manager.all())
    raw.update({"id": newest + 1, "options": options})
    schema = TableSchema.from_json(raw)
    specs = parse_index_options(options)
    names = {f.name for f in schema.fields}
    unknown = sorted({s.column for s in specs} - names)
    if unknown:
        raise PaimonLensError(f"the plan's indexes on {', '.join(unknown)} are not columns of the table "
                              "(map-key indexes are not built by the shadow copy)")
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "schema").mkdir()
    for s in reader.schema_manager.all():
        shutil.copy2(source / "schema" / f"schema-{s.id}", dest / "schema" / f"schema-{s.id}")
    (dest / "schema" / f"schema-{schema.id}").write_text(paimon_json(raw), encoding="utf-8")
    writer = TableWriter(dest, schema)  # validates the planned index options

    threshold = in_manifest_threshold(options)
    by_name = {lf.entry.file.file_name: lf for lf in reader.live_files()}
    counts = {"linked": 0, "copied": 0, "index_files": 0, "embedded": 0}
    entries = []
    for rec in _raw_live_entries(reader):
        f = dict(rec["_FILE"])
        if f.get("_EXTERNAL_PATH"):
            raise PaimonLensError(f"{f['_FILE_NAME']} lives at the external path {f['_EXTERNAL_PATH']}: the "
                                  "shadow copy does not copy external data files yet")
        lf = by_name[f["_FILE_NAME"]]
        src_path, dst_path = source / lf.path, dest / lf.path
        _place(src_path, dst_path, counts)
        extra = [e for e in (f.get("_EXTRA_FILES") or []) if not e.endswith(".index")]
        for e in extra:  # other extra files travel with their data file
            _place(src_path.parent / e, dst_path.parent / e, counts)
        container = _container(reader, lf, specs)
        embedded = None
        if container is not None and len(container) > threshold:
            name = f"{f['_FILE_NAME']}.index"
            (dst_path.parent / name).write_bytes(container)
            extra.append(name)
            counts["index_files"] += 1
        elif container is not None:
            embedded = container
            counts["embedded"] += 1
        f.update({"_EXTRA_FILES": extra, "_EMBEDDED_FILE_INDEX": embedded, "_EXTERNAL_PATH": None})
        entries.append({**rec, "_KIND": 0, "_FILE": f})
    index_manifest = _copy_index_files(reader, source, dest)
    snapshot_id = writer._commit_snapshot(None, "APPEND", entries, index_manifest=index_manifest)
    return ShadowCopy(str(dest), snapshot_id, schema.id, len(entries), counts["linked"], counts["copied"],
                      counts["index_files"], counts["embedded"])


def _copy_index_files(reader: SnapshotReader, source: Path, dest: Path) -> str | None:
    """The source's index manifest and every index file it names, copied; its name."""
    from ..inventory.deletion_vectors import index_file_path
    from ..metadata.manifest import read_index_manifest

    name = reader.snapshot.index_manifest if reader.snapshot is not None else None
    if not name:
        return None
    (dest / "manifest").mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "manifest" / name, dest / "manifest" / name)
    for entry in read_index_manifest(reader.file_io, reader.manifest_dir, name):
        if entry.external_path:
            raise PaimonLensError(f"the index file {entry.file_name} lives at the external path "
                                  f"{entry.external_path}: the shadow copy does not copy external files yet")
        rel = index_file_path(reader, entry)  # index/, or the bucket directory (index-file-in-data-file-dir)
        if not (source / rel).is_file():  # a copy without it would answer as if nothing were deleted
            raise PaimonLensError(f"{source / rel}: the index file the index manifest {name} names is missing: "
                                  "the shadow copy cannot be made")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, dest / rel)
    return name
