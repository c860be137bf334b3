"""The global and primary-key indexes of a snapshot: what each index file is, and what it covers.

Paimon 1.4 added **global indexes** to data-evolution tables (``CALL sys.create_global_index``,
pypaimon's ``create_global_index``): index files under ``index/`` listed in the index manifest with
a ``_GLOBAL_INDEX`` record (row range, field id, key range). Paimon 2.0 added **primary-key
indexes** (``pk-btree.index.columns`` ...): one file per bucket, index column and LSM level, whose
``_SOURCE_META`` lists the data files of that level it was built from. Both kinds are found here:

* :func:`global_index_files` lists them (one :class:`GlobalIndexFile` per index file) with their
  metadata decoded, field ids resolved by the schema, and the snapshot that added each;
* :func:`open_global_index` decodes a btree or bitmap file into keys -> local row ids (cached per
  table directory: index files never change);
* :func:`global_index_coverage` says, per live data file and indexed column, which rows an index
  covers and why the rest is not (rows appended after the build, level-0 files, files only moved up
  a level, a level whose files changed since the build).

Every file that cannot be read or decoded keeps its row with the error; nothing is left out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError
from ..formats.global_index.bitmap import BitmapGlobalIndex, LegacyBitmapGlobalIndex
from ..formats.global_index.btree import BTreeIndex
from ..formats.global_index.es_meta import INDEX_TYPE as ES_INDEX
from ..formats.global_index.es_meta import ESIndexMeta, read_es_index_meta
from ..formats.global_index.keys import KEYABLE
from ..formats.global_index.meta import (
    SORTED_TYPES,
    VECTOR_TYPES,
    PrimaryKeyIndexSourceMeta,
    read_json_meta,
    read_sorted_meta,
    read_source_meta,
)
from ..formats.global_index.native import NativeIndexHeader, read_native_header
from ..formats.global_index.sorted_index import SortedIndex
from ..metadata.bounded_cache import BoundedCache
from ..metadata.manifest import IndexFileMeta
from ..metadata.row_ranges import covered_count, merge_ranges
from .deletion_vectors import index_file_path, read_index_file

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..types import DataField

GLOBAL = "global"
PRIMARY_KEY = "primary-key"
COMPACT = 1


@dataclass(frozen=True)
class GlobalIndexFile:
    """One global or primary-key index file of a snapshot, its metadata decoded."""

    entry: IndexFileMeta = field(repr=False)
    kind: str
    """``global`` (a data-evolution table's index over a row range) or ``primary-key``."""
    partition: dict[str, Any]
    bucket: int
    index_type: str
    file_name: str
    path: str
    """Relative to the table directory (``index/<name>``), or the entry's external path."""
    file_size: int
    row_count: int
    field_id: int
    column: str | None
    """The indexed column's name in the snapshot's schema (None: no such field there)."""
    extra_field_ids: tuple[int, ...]
    extra_columns: tuple[str | None, ...]
    row_range_start: int
    row_range_end: int
    first_key: Any = None
    last_key: Any = None
    has_nulls: bool | None = None
    index_options: dict[str, Any] | None = None
    """The JSON ``_INDEX_META`` of a vector or full-text index."""
    source: PrimaryKeyIndexSourceMeta | None = None
    added_snapshot: int | None = None
    """The oldest snapshot still present from which on the index manifest lists this file."""
    added_before_retained: bool = False
    """The file is in the oldest retained snapshot too: it was added then or earlier."""
    error: str | None = None


def es_index_options(meta: ESIndexMeta) -> dict[str, Any]:
    """What an ``es-index`` file's ``_INDEX_META`` says, JSON-ready: the indexed columns and their
    types, each field's index configuration, and the Lucene files of the archive."""
    return {
        "meta_version": meta.version,
        "indexed_fields": [{"name": n, "type": t} for n, t in meta.indexed_fields],
        "field_configs": {name: {"index_type": c.index_type, "algorithm": c.algorithm, "dimension": c.dimension,
                                 "metric": c.metric, "analyzer": c.analyzer, "scalar_type": c.scalar_type,
                                 "algorithm_params": dict(c.algorithm_params)}
                          for name, c in meta.field_configs.items()},
        "lucene_files": len(meta.files),
        "lucene_bytes": sum(entry.length for entry in meta.files.values()),
    }


def _field(table: SnapshotReader, field_id: int) -> DataField | None:
    f = table.schema.field_by_id(field_id)
    if f is not None:
        return f
    for schema in reversed(table.schema_manager.all()):
        f = schema.field_by_id(field_id)
        if f is not None:
            return f
    return None


def index_path(table: SnapshotReader, entry: IndexFileMeta) -> str:
    """Where an index file lies: a primary-key index where the bucket's other index files lie
    (:func:`~paimon_lens.inventory.deletion_vectors.index_file_path`), a global index in its external
    path or ``index/<name>`` (``index-file-in-data-file-dir`` does not apply to it)."""
    gi = entry.global_index
    if gi is not None and not gi.is_primary_key_index and not entry.external_path:
        return f"index/{entry.file_name}"
    return index_file_path(table, entry)


def global_index_entries(table: SnapshotReader) -> list[IndexFileMeta]:
    """The index manifest entries with a ``_GLOBAL_INDEX`` record."""
    return [e for e in table.index_entries() if e.global_index is not None]


def global_index_files(table: SnapshotReader) -> list[GlobalIndexFile]:
    """Every global and primary-key index file of the snapshot (kept per snapshot)."""
    return table.memo("global_index_files", lambda: _files(table))


def _files(table: SnapshotReader) -> list[GlobalIndexFile]:
    entries = global_index_entries(table)
    if not entries:
        return []
    added = _added_snapshots(table, {e.file_name for e in entries})
    out = []
    for e in entries:
        out.append(_describe(table, e, added.get(e.file_name, (None, False))))
    return out


def _describe(table: SnapshotReader, e: IndexFileMeta, added: tuple[int | None, bool]) -> GlobalIndexFile:
    gi = e.global_index
    assert gi is not None
    where = f"{table.manifest_dir}/{e.manifest} entry {e.file_name}"
    part = table.decode_partition(e.partition, f"{table.manifest_dir}/{e.manifest} _PARTITION")
    f = _field(table, gi.index_field_id)
    extra = gi.extra_field_ids or ()
    facts: dict[str, Any] = {}
    errors: list[str] = []
    if gi.index_meta is not None and e.index_type in SORTED_TYPES:
        if f is None or f.type.root not in KEYABLE:
            errors.append(f"{where}: _INDEX_META keys of field id {gi.index_field_id} cannot be decoded "
                          "(no such keyable field in any schema)")
        else:
            try:
                m = read_sorted_meta(gi.index_meta, f.type, where)
                facts.update(first_key=m.first_key, last_key=m.last_key, has_nulls=m.has_nulls)
            except PaimonLensError as ex:
                errors.append(str(ex))
    elif gi.index_meta is not None and (e.index_type in VECTOR_TYPES or e.index_type == "full-text"):
        try:
            facts["index_options"] = read_json_meta(gi.index_meta, where)
        except PaimonLensError as ex:
            errors.append(str(ex))
    elif gi.index_meta is not None and e.index_type == ES_INDEX:
        try:
            facts["index_options"] = es_index_options(read_es_index_meta(gi.index_meta, where))
        except PaimonLensError as ex:
            errors.append(str(ex))
    if gi.is_primary_key_index:
        try:
            facts["source"] = read_source_meta(gi.source_meta or b"", f"{where} _SOURCE_META")
        except PaimonLensError as ex:
            errors.append(str(ex))
    return GlobalIndexFile(
        entry=e, kind=PRIMARY_KEY if gi.is_primary_key_index else GLOBAL, partition=part, bucket=e.bucket,
        index_type=e.index_type, file_name=e.file_name, path=index_path(table, e), file_size=e.file_size,
        row_count=e.row_count, field_id=gi.index_field_id, column=None if f is None else f.name,
        extra_field_ids=tuple(extra),
        extra_columns=tuple(None if (x := _field(table, i)) is None else x.name for i in extra),
        row_range_start=gi.row_range_start, row_range_end=gi.row_range_end, added_snapshot=added[0],
        added_before_retained=added[1], error="; ".join(errors) or None, **facts)


def _added_snapshots(table: SnapshotReader, names: set[str]) -> dict[str, tuple[int | None, bool]]:
    """For each index file, the oldest snapshot from which on (to this one) every index manifest lists
    it, and whether that is the oldest retained snapshot (then it may be older still)."""
    from ..metadata.manifest import read_index_manifest

    current = table.snapshot
    if current is None:
        return {}
    out: dict[str, tuple[int | None, bool]] = {n: (current.id, False) for n in names}
    alive = set(names)
    earliest = table.snapshot_manager.earliest_id()
    sid = current.id - 1
    seen: dict[str, set[str]] = {}
    while alive and earliest is not None and sid >= earliest:
        try:
            snap = table.snapshot_manager.snapshot(sid)
            manifest = snap.index_manifest
            if manifest and manifest not in seen:
                seen[manifest] = {e.file_name for e in read_index_manifest(table.file_io, table.manifest_dir, manifest)
                                  if e.kind == 0}
            listed = seen.get(manifest, set()) if manifest else set()
        except (OSError, PaimonLensError):  # expired or unreadable: added then or earlier
            for n in alive:
                out[n] = (out[n][0], True)
            alive = set()
            break
        for n in list(alive):
            if n in listed:
                out[n] = (sid, False)
            else:
                alive.discard(n)
        sid -= 1
    for n in alive:
        if earliest is not None and out[n][0] == earliest:
            out[n] = (earliest, True)
    return out


def global_index_columns(table: SnapshotReader) -> dict[str, list[str]]:
    """Columns a global or primary-key index serves in this snapshot, with their index types."""
    out: dict[str, list[str]] = defaultdict(list)
    for g in global_index_files(table):
        if g.column is not None and g.index_type not in out[g.column]:
            out[g.column].append(g.index_type)
    return dict(out)


# ---- decoding an index file -------------------------------------------------------------------------
#: bytes of global and primary-key index files whose decoded forms a table directory keeps
GLOBAL_INDEX_CACHE_BYTES = 64 * 1024 * 1024


def open_global_index(table: SnapshotReader, gf: GlobalIndexFile) -> SortedIndex | NativeIndexHeader | None:
    """Decode a btree or bitmap file (keys -> local row ids) or read a vector / full-text header
    (None: a type with nothing readable). Raises :class:`PaimonLensError` / ``OSError``."""
    cache = table.shared("global_index_cache", lambda: BoundedCache(GLOBAL_INDEX_CACHE_BYTES))
    key = (gf.path, gf.file_size, gf.field_id, gf.index_type)
    return cache.get(key, gf.file_size, lambda: _open(table, gf))


def _open(table: SnapshotReader, gf: GlobalIndexFile) -> SortedIndex | NativeIndexHeader | None:
    full = table.file_io.join(table.path, gf.path)  # an external path stays as it is
    data = read_index_file(table, gf.path, gf.file_size)
    if gf.index_type in ("btree", "bitmap"):
        f = _field(table, gf.field_id)
        if f is None or f.type.root not in KEYABLE:
            raise PaimonLensError(f"{full}: the keys of field id {gf.field_id} cannot be decoded "
                                  "(no keyable field with that id in any schema)")
        if gf.index_type == "btree":
            return BTreeIndex(data, f.type, full)
        if data[-4:] == b"BGIX":
            return BitmapGlobalIndex(data, f.type, full)
        return LegacyBitmapGlobalIndex(data, f.type, full)  # Paimon 1.4: the file-index bitmap layout
    return read_native_header(data, gf.index_type, full)


# ---- coverage -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Coverage:
    """Which rows of one live data file one index (column x index type) covers."""

    partition: dict[str, Any]
    bucket: int
    data_file: str
    level: int
    row_count: int
    first_row_id: int | None
    column: str | None
    field_id: int
    index_type: str
    kind: str
    covered_rows: int
    status: str
    """``covered``, ``partial``, ``stale`` (the column was rewritten after the build) or ``uncovered``."""
    reason: str
    index_files: tuple[str, ...]

    @property
    def uncovered_rows(self) -> int:
        """Rows no index file of this column and type covers."""
        return self.row_count - self.covered_rows


def global_index_coverage(table: SnapshotReader) -> list[Coverage]:
    """Per live data file and indexed (column, index type): the rows covered and why the rest is not."""
    return table.memo("global_index_coverage", lambda: _coverage(table))


def _coverage(table: SnapshotReader) -> list[Coverage]:
    files = global_index_files(table)
    if not files:
        return []
    live = table.live_files()
    out: list[Coverage] = []
    out.extend(_global_coverage(table, [g for g in files if g.kind == GLOBAL], live))
    out.extend(_pk_coverage([g for g in files if g.kind == PRIMARY_KEY], live))
    return out


def _global_coverage(table: SnapshotReader, files: list[GlobalIndexFile], live: list[LiveFile]) -> list[Coverage]:
    groups: dict[tuple[int, str], list[GlobalIndexFile]] = defaultdict(list)
    for g in files:
        groups[(g.field_id, g.index_type)].append(g)
    out = []
    for (field_id, index_type), gs in groups.items():
        column = gs[0].column
        ranges = merge_ranges([(g.row_range_start, g.row_range_end) for g in gs])
        for lf in live:
            f = lf.file
            if f.write_cols is not None and column not in f.write_cols:
                continue  # the file does not hold this column
            names = tuple(g.file_name for g in gs if f.first_row_id is not None and g.row_range_start
                          <= f.first_row_id + f.row_count - 1 and g.row_range_end >= f.first_row_id)
            if f.first_row_id is None:
                cov, status, reason = 0, "uncovered", "no row ids (_FIRST_ROW_ID is null): no global index applies"
            else:
                end = f.first_row_id + f.row_count - 1
                cov = covered_count(ranges, f.first_row_id, end)
                if cov == f.row_count:
                    status, reason = "covered", f"rows {f.first_row_id}-{end} inside the index's row ranges"
                else:
                    status = "uncovered" if cov == 0 else "partial"
                    reason = (f"{f.row_count - cov} of rows {f.first_row_id}-{end} outside every index row range "
                              f"(covered: {_ranges_text(ranges)}): written after the index was built")
            built = [g for g in gs if g.file_name in names]
            if cov and built and f.write_cols is not None:  # a partial-column write: an update of the column
                known = [_files_at(table, g.added_snapshot) for g in built]
                if any(k is None for k in known):
                    reason += "; whether the column was rewritten since the build is unknown (the build's " \
                              "snapshot could not be read)"
                elif not all(f.file_name in k for k in known if k is not None):
                    first = min(g.added_snapshot or 0 for g in built)
                    status, reason = "stale", (f"rewrote `{column}` after the index was built (snapshot {first}) "
                                               f"over rows it covers: the index answers from the values before")
            out.append(Coverage(lf.partition, lf.entry.bucket, f.file_name, f.level,
                                f.row_count, f.first_row_id, column, field_id, index_type, GLOBAL, cov, status,
                                reason, names))
    return out


def _files_at(table: SnapshotReader, snapshot_id: int | None) -> frozenset[str] | None:
    """Names of the live data files of another snapshot of the table (None: it could not be read)."""
    if snapshot_id is None:
        return None

    def names() -> frozenset[str] | None:
        if table.snapshot is not None and snapshot_id == table.snapshot.id:
            return frozenset(e.file.file_name for e in table.live_entries())
        try:
            return frozenset(e.file.file_name for e in table.at(snapshot_id).live_entries())
        except (OSError, PaimonLensError):
            return None
    return table.memo(f"global_index_files_at:{snapshot_id}", names)


def _ranges_text(ranges: list[tuple[int, int]]) -> str:
    text = ", ".join(f"{a}-{b}" for a, b in ranges[:4])
    return text + (f" and {len(ranges) - 4} more" if len(ranges) > 4 else "") if ranges else "none"


def _pk_coverage(files: list[GlobalIndexFile], live: list[LiveFile]) -> list[Coverage]:
    if not files:
        return []
    by_bucket: dict[tuple[bytes, int], list[LiveFile]] = defaultdict(list)
    for lf in live:
        by_bucket[(lf.entry.partition, lf.entry.bucket)].append(lf)
    indexed: dict[tuple[int, str], list[GlobalIndexFile]] = defaultdict(list)
    for g in files:
        indexed[(g.field_id, g.index_type)].append(g)
    out = []
    for (field_id, index_type), gs in indexed.items():
        column = gs[0].column
        payloads: dict[tuple[bytes, int], list[GlobalIndexFile]] = defaultdict(list)
        for g in gs:
            payloads[(g.entry.partition, g.bucket)].append(g)
        for key, lfs in by_bucket.items():
            groups = _covered_levels(lfs, payloads.get(key, []))
            for lf in lfs:
                f = lf.file
                cov_by, reason = groups.get(f.level, (None, ""))
                if f.level == 0:
                    reason = "level 0: a batch scan with deletion vectors does not read it; no index covers it"
                elif f.file_source != COMPACT:
                    reason = "only moved up a level (APPEND source): no primary-key index covers it"
                elif cov_by is None and not reason:
                    reason = f"no index of level {f.level} in this bucket"
                covered = cov_by is not None and f.level > 0 and f.file_source == COMPACT
                out.append(Coverage(lf.partition, lf.entry.bucket, f.file_name, f.level, f.row_count, None, column,
                                    field_id, index_type, PRIMARY_KEY, f.row_count if covered else 0,
                                    "covered" if covered else "uncovered",
                                    f"indexed by {cov_by.file_name} (level {f.level})" if covered and cov_by
                                    else reason, (cov_by.file_name,) if covered and cov_by else ()))
    return out


def _covered_levels(lfs: list[LiveFile], payloads: list[GlobalIndexFile]
                    ) -> dict[int, tuple[GlobalIndexFile | None, str]]:
    """Per level of one bucket: the payload that covers it (its source files equal the level's
    compacted files, sorted by name, with their row counts), or None and why not."""
    eligible: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for lf in lfs:
        f = lf.file
        if f.level > 0 and f.file_source == COMPACT:
            eligible[f.level].append((f.file_name, f.row_count))
    for names in eligible.values():
        names.sort()
    out: dict[int, tuple[GlobalIndexFile | None, str]] = {}
    by_level: dict[int, list[GlobalIndexFile]] = defaultdict(list)
    for g in payloads:
        if g.source is not None:
            by_level[g.source.data_level].append(g)
    for level, want in eligible.items():
        cands = by_level.get(level, [])
        ok = [g for g in cands if g.source is not None and [(s.file_name, s.row_count) for s in g.source.files] == want]
        if len(ok) == 1:
            out[level] = (ok[0], "")
        elif len(ok) > 1:
            out[level] = (None, f"{len(ok)} index files claim level {level}: Paimon uses none of them")
        elif cands:
            out[level] = (None, f"the level-{level} index was built from other files than the level holds now "
                                f"({', '.join(g.file_name for g in cands)}): Paimon does not use it")
    return out
