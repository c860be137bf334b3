"""A Paimon table at one snapshot: the entry point of paimon-lens.

``open_table(path, snapshot=None)`` selects a snapshot (latest by default; an id, ``"earliest"``,
``"latest"``, ``"tag:NAME"`` / ``tag=NAME``, a ``datetime`` or ``timestamp_ms=...``) and gives a
:class:`Table` whose methods read metadata lazily: nothing is read until asked, each manifest
is read once per table object and shared with tables derived by :meth:`Table.at`.
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .consistency import consistent
from .errors import PaimonLensError, SnapshotNotFoundError, TableNotFoundError
from .io.fileio import FileIO, TableFileIO, get_file_io, local_path, strip_file_scheme
from .metadata.binary_row import decode_binary_row
from .metadata.gc_pause import gc_paused
from .metadata.manifest import (
    FILE_SOURCES,
    IndexFileMeta,
    ManifestEntry,
    ManifestFileMeta,
    merge_entries,
    merge_index_entries,
    read_index_manifest,
    read_manifest,
    read_manifest_list,
)
from .metadata.paths import BRANCH_PREFIX, branch_names, bucket_dir, is_main_branch, partition_path
from .metadata.schema import SchemaManager, TableSchema
from .metadata.snapshot import Snapshot, SnapshotManager
from .metadata.stats import ColumnStats, FileStats, StatsLayout

if TYPE_CHECKING:
    import pandas as pd

    from .engines.base import Engine
    from .pruning.versions import PaimonRules

T = TypeVar("T")
K = TypeVar("K")

PROGRESS_THRESHOLD = 64
"""Show a progress bar (tqdm.auto) when more manifests than this are read at once."""


@dataclass(frozen=True)
class LiveFile:
    """A live data file of a snapshot, with its partition decoded and its stats decoded on access."""

    entry: ManifestEntry
    partition: dict[str, Any]
    path: str
    stats: Sequence[ColumnStats]

    @property
    def stats_error(self) -> str | None:
        """Why (some of) the file's stats could not be decoded, or None."""
        return getattr(self.stats, "error", None)

    @property
    def file(self):  # type: ignore[no-untyped-def]  # -> DataFileMeta
        """The manifest's ``DataFileMeta``."""
        return self.entry.file

    @property
    def index_location(self) -> str:
        """``embedded`` (in the manifest), ``external`` (an ``.index`` file) or ``none``."""
        f = self.entry.file
        if f.embedded_index is not None:
            return "embedded"
        return "external" if f.index_file is not None else "none"

    @property
    def index_file_path(self) -> str | None:
        """Path of the external index file relative to the table directory."""
        name = self.entry.file.index_file
        if name is None or self.entry.file.embedded_index is not None:
            return None
        return _dirname(self.path) + name


def _dirname(path: str) -> str:
    i = path.rfind("/")
    return path[: i + 1] if i >= 0 else ""


class _UnknownStats(tuple[ColumnStats, ...]):
    """Stats of a file whose schema file is missing: every column unknown, with the reason."""

    error: str

    def __new__(cls, items: tuple[ColumnStats, ...], error: str) -> _UnknownStats:
        obj = super().__new__(cls, items)
        obj.error = error
        return obj


class _Cache:
    """Caches shared by every :class:`Table` object of one table directory."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.manifest_lists: dict[str, list[ManifestFileMeta]] = {}
        self.manifests: dict[str, list[ManifestEntry]] = {}
        self.index_manifests: dict[str, list[IndexFileMeta]] = {}
        self.sizes: dict[str, int] = {}


class Table:
    """One snapshot of a Paimon table. Create with :func:`open_table`."""

    def __init__(self, path: str, file_io: FileIO, snapshot: Snapshot | None, schema: TableSchema,
                 schemas: SchemaManager, snapshots: SnapshotManager, cache: _Cache | None = None,
                 progress: bool | None = None, engine: Engine | None = None,
                 paimon_version: str | None = None, follows_latest: bool = False) -> None:
        self.path = path
        self.file_io = file_io
        self.snapshot = snapshot
        self.schema = schema
        self.schema_manager = schemas
        self.snapshot_manager = snapshots
        self.progress = progress
        self._cache = cache or _Cache()
        if engine is None:
            from .engines.local import LOCAL

            engine = LOCAL
        self.engine: Engine = engine
        """Where per-file work runs (see :mod:`paimon_lens.engines`)."""
        from .pruning.versions import normalize_version

        self.paimon_version: str = normalize_version(paimon_version)
        """The Paimon release whose rules ``explain`` applies (see :mod:`paimon_lens.pruning.versions`)."""
        self.follows_latest = follows_latest
        """Opened at the latest snapshot: when that snapshot expires while it is read, the table
        moves to the newest one (see :mod:`paimon_lens.consistency`)."""
        self._consistency_depth = 0
        self._forget()

    def _forget(self) -> None:
        """Drop what was read of the snapshot (not the manifest caches: files never change)."""
        self._live: list[ManifestEntry] | None = None
        self._files: list[LiveFile] | None = None
        self._indexes: list[Any] | None = None
        self._dv_infos: list[Any] | None = None

    @property
    def file_io_missing(self) -> list[str]:
        """Paths the table's reads found missing so far (see :mod:`paimon_lens.consistency`)."""
        missing: list[str] = getattr(self.file_io, "missing", [])
        return missing

    def move_to_latest(self) -> None:
        """Read the newest snapshot (and schema) from now on, listing them afresh."""
        self.schema_manager = SchemaManager(self.file_io, self.path, self.branch)
        self.snapshot_manager = SnapshotManager(self.file_io, self.path, self.branch)
        self.snapshot, self.schema = _select(self.snapshot_manager, self.schema_manager, None)
        self._forget()

    # ---- identity ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The table directory's name."""
        return self.path.rstrip("/").rsplit("/", 1)[-1]

    @property
    def branch(self) -> str:
        """The branch whose snapshots and schemas this table reads (``main`` unless opened with ``branch=``)."""
        return self.snapshot_manager.branch

    def branches(self) -> list[str]:
        """Names of the table's branches besides ``main`` (``<table>/branch/branch-<name>``)."""
        return branch_names(self.file_io.list_names(self.file_io.join(self.path, "branch")))

    @property
    def rules(self) -> PaimonRules:
        """The :class:`~paimon_lens.pruning.versions.PaimonRules` of :attr:`paimon_version`."""
        from .pruning.versions import rules_for

        return rules_for(self.paimon_version)

    @property
    def snapshot_id(self) -> int | None:
        """Id of the selected snapshot (None for a table with no commits)."""
        return None if self.snapshot is None else self.snapshot.id

    @property
    def manifest_dir(self) -> str:
        """The table's ``manifest`` directory."""
        return self.file_io.join(self.path, "manifest")

    @property
    def is_primary_key_table(self) -> bool:
        """Whether the table has a primary key."""
        return bool(self.schema.primary_keys)

    def __repr__(self) -> str:
        branch = "" if is_main_branch(self.branch) else f" branch={self.branch!r}"
        return (f"<paimon_lens.Table {self.path!r}{branch} snapshot={self.snapshot_id} schema={self.schema.id} "
                f"paimon_version={self.paimon_version}>")

    def _repr_html_(self) -> str:
        from .presentation.html import render_table

        return render_table(self)

    def on_branch(self, branch: str, snapshot: int | str | _dt.datetime | None = None) -> Table:
        """The same table read on another branch (its latest snapshot by default); shares this object's
        caches of manifests, which every branch keeps in the table directory."""
        schemas = SchemaManager(self.file_io, self.path, branch)
        if not schemas.list_ids():
            raise TableNotFoundError(f"{self.path} has no branch {branch!r} "
                                     f"(branches: {', '.join(self.branches()) or 'none'})")
        snapshots = SnapshotManager(self.file_io, self.path, branch)
        snap, schema = _select(snapshots, schemas, snapshot)
        return Table(self.path, self.file_io, snap, schema, schemas, snapshots, self._cache, self.progress,
                     self.engine, self.paimon_version, follows_latest=_is_latest(snapshot))

    def at(self, snapshot: int | str | _dt.datetime | None = None, **kwargs: Any) -> Table:
        """The same table at another snapshot, sharing this object's manifest cache."""
        snap, schema = _select(self.snapshot_manager, self.schema_manager, snapshot, **kwargs)
        return Table(self.path, self.file_io, snap, schema, self.schema_manager, self.snapshot_manager,
                     self._cache, self.progress, self.engine, self.paimon_version,
                     follows_latest=_is_latest(snapshot, **kwargs))

    # ---- reading metadata -----------------------------------------------------------------
    def _map(self, fn: Callable[[K], T], names: Sequence[K], what: str) -> list[T]:
        """Apply ``fn`` to each name, with a progress bar if long.

        Remote files are read in threads (their latency overlaps); local ones one after the
        other, as decoding holds the GIL and threads would only add switching.
        """
        if len(names) <= 1:
            return [fn(n) for n in names]
        show = self.progress if self.progress is not None else len(names) > PROGRESS_THRESHOLD

        def progress(it: Iterable[T]) -> Iterable[T]:
            if not show:
                return it
            from tqdm.auto import tqdm

            return tqdm(it, total=len(names), desc=f"reading {what}", unit="file")

        if local_path(self.file_io, self.path) is not None:
            return list(progress(map(fn, names)))
        with ThreadPoolExecutor(max_workers=min(8, len(names))) as pool:
            return list(progress(pool.map(fn, names)))

    def _manifest_list(self, name: str, kind: str) -> list[ManifestFileMeta]:
        key = f"{kind}:{name}"
        if key not in self._cache.manifest_lists:
            self._cache.manifest_lists[key] = read_manifest_list(self.file_io, self.manifest_dir, name, kind)
        return self._cache.manifest_lists[key]

    def manifest_files(self) -> list[ManifestFileMeta]:
        """Manifest files of the snapshot: base list, then delta list."""
        if self.snapshot is None:
            return []
        return (self._manifest_list(self.snapshot.base_manifest_list, "base")
                + self._manifest_list(self.snapshot.delta_manifest_list, "delta"))

    def _manifest(self, name_size: tuple[str, int | None]) -> list[ManifestEntry]:
        name = name_size[0]
        cached = self._cache.manifests.get(name)
        if cached is None:
            cached = read_manifest(self.file_io, self.manifest_dir, *name_size)
            self._cache.manifests[name] = cached
        return cached

    @consistent
    def manifest_entries(self) -> list[ManifestEntry]:
        """Every entry of every manifest of the snapshot, ADD and DELETE, in order."""
        metas = self.manifest_files()
        names = [m.file_name for m in metas]
        sizes = {m.file_name: m.file_size for m in metas}
        todo = [(n, sizes[n]) for n in dict.fromkeys(names) if n not in self._cache.manifests]
        with gc_paused():
            if self.engine.distributed and len(todo) >= max(2, getattr(self.engine, "min_manifests", 2)):
                from .distributed import read_manifests

                self._cache.manifests.update(zip([n for n, _ in todo], read_manifests(self.engine, self, todo)))
            else:
                self._map(self._manifest, todo, "manifests")
        out: list[ManifestEntry] = []
        for n in names:
            out.extend(self._cache.manifests[n])
        return out

    def live_entries(self) -> list[ManifestEntry]:
        """Live ADD entries of the snapshot (ADD/DELETE merged as Paimon does)."""
        if self._live is None:
            entries = self.manifest_entries()
            with gc_paused():
                self._live = merge_entries(entries)
        return self._live

    @consistent
    def index_entries(self) -> list[IndexFileMeta]:
        """Live entries of the snapshot's index manifest (HASH, DELETION_VECTORS, ...)."""
        if self.snapshot is None or not self.snapshot.index_manifest:
            return []
        name = self.snapshot.index_manifest
        if name not in self._cache.index_manifests:
            self._cache.index_manifests[name] = read_index_manifest(self.file_io, self.manifest_dir, name)
        return merge_index_entries(self._cache.index_manifests[name])

    # ---- decoding ---------------------------------------------------------------------------
    def decode_partition(self, partition: bytes, where: str) -> dict[str, Any]:
        """Partition BinaryRow -> ``{column: internal value}``."""
        fields = self.schema.partition_fields
        values = decode_binary_row(partition, [f.type for f in fields], where, [f.name for f in fields])
        return {f.name: v for f, v in zip(fields, values)}

    def relative_path(self, entry: ManifestEntry, partition: dict[str, Any]) -> str:
        """Path of a data file relative to the table directory."""
        f = entry.file
        if f.external_path:
            return f.external_path
        return f"{self.bucket_path(entry.bucket, partition)}/{f.file_name}"

    def bucket_path(self, bucket: int, partition: dict[str, Any]) -> str:
        """The directory of a partition's bucket, relative to the table directory."""
        part = partition_path(list(partition.values()), self.schema.partition_fields, self.schema.options)
        root = self.schema.options.get("data-file.path-directory")
        return "/".join(p for p in (root, part, bucket_dir(bucket)) if p)

    def _live_file(self, entry: ManifestEntry, manifest_dir: str, partitions: dict[bytes, dict[str, Any]],
                   prefixes: dict[tuple[bytes, int], str], layouts: dict[tuple[Any, ...], StatsLayout]) -> LiveFile:
        """One live file; ``partitions``, ``prefixes`` and ``layouts`` are caches shared by a listing."""
        f = entry.file
        where = f"{manifest_dir}/{entry.manifest} entry {f.file_name}"
        decoded = partitions.get(entry.partition)
        if decoded is None:
            decoded = partitions[entry.partition] = self.decode_partition(entry.partition, where + " _PARTITION")
        partition = dict(decoded)
        if f.external_path:
            path = f.external_path
        else:
            prefix = prefixes.get((entry.partition, entry.bucket))
            if prefix is None:
                prefix = prefixes[(entry.partition, entry.bucket)] = self.bucket_path(entry.bucket, partition)
            path = f"{prefix}/{f.file_name}"
        try:
            file_schema = self.schema_manager.schema(f.schema_id)
        except TableNotFoundError as e:
            unknown = tuple(ColumnStats(None, None, None) for _ in self.schema.fields)
            return LiveFile(entry, partition, path, _UnknownStats(unknown, str(e)))
        key = StatsLayout.key(f)
        layout = layouts.get(key)
        if layout is None:
            layout = layouts[key] = StatsLayout(f, file_schema, self.schema.fields)
        return LiveFile(entry, partition, path,
                        FileStats(f, file_schema, self.schema.fields, where + " _VALUE_STATS", layout))

    @consistent
    def live_files(self) -> list[LiveFile]:
        """Live data files with partition, path and stats (mapped to :attr:`schema`) decoded."""
        if self._files is None:
            manifest_dir = self.manifest_dir
            partitions: dict[bytes, dict[str, Any]] = {}
            prefixes: dict[tuple[bytes, int], str] = {}
            layouts: dict[tuple[Any, ...], StatsLayout] = {}
            entries = self.live_entries()
            with gc_paused():
                self._files = [self._live_file(e, manifest_dir, partitions, prefixes, layouts) for e in entries]
        return self._files

    def file_size(self, relative: str) -> int | None:
        """Size of a file of the table (cached); None if it does not exist."""
        if relative not in self._cache.sizes:
            try:
                self._cache.sizes[relative] = self.file_io.size(self.file_io.join(self.path, relative))
            except (OSError, PaimonLensError):  # missing, or refused (outside the table)
                return None
        return self._cache.sizes[relative]

    def index_size(self, lf: LiveFile) -> int | None:
        """Bytes of a file's index container (embedded length or external file size)."""
        f = lf.entry.file
        if f.embedded_index is not None:
            return len(f.embedded_index)
        rel = lf.index_file_path
        return None if rel is None else self.file_size(rel)

    # ---- frames -----------------------------------------------------------------------------
    def snapshots(self) -> pd.DataFrame:
        """Every snapshot still present (see :data:`paimon_lens.presentation.frames.SNAPSHOT_COLUMNS`)."""
        from .presentation import frames

        return frames.snapshots_frame(self.snapshot_manager.all())

    def schemas(self) -> pd.DataFrame:
        """Every schema version, one row per column per schema."""
        from .presentation import frames

        return frames.schemas_frame(self.schema_manager.all())

    @consistent
    def manifests(self) -> pd.DataFrame:
        """Manifest files of the snapshot, with decoded partition stats."""
        from .presentation import frames

        return frames.manifests_frame(self, self.manifest_files())

    @consistent
    def files(self) -> pd.DataFrame:
        """One row per live data file (see :data:`paimon_lens.presentation.frames.FILE_COLUMNS`)."""
        from .presentation import frames

        return frames.files_frame(self, self.live_files())

    @consistent
    def index_manifest(self) -> pd.DataFrame:
        """Entries of the snapshot's index manifest (deletion-vector and HASH index files)."""
        from .presentation import frames

        return frames.index_manifest_frame(self, self.index_entries())

    def _index_infos(self) -> list[Any]:
        if self._indexes is None:
            if self.engine.distributed:
                from .distributed import file_indexes

                self._indexes = file_indexes(self.engine, self)
            else:
                from .file_indexes import table_file_indexes

                self._indexes = table_file_indexes(self)
        return self._indexes

    @consistent
    def index_infos(self) -> list[Any]:
        """Every decoded index of every live file (:class:`~paimon_lens.file_indexes.IndexInfo`, cached)."""
        return self._index_infos()

    @consistent
    def file_indexes(self, index_type: str | None = None) -> pd.DataFrame:
        """One row per data file x column x index type with the decoded summary of each index.

        See :mod:`paimon_lens.presentation.index_frames` for the columns.
        """
        from .presentation import index_frames

        return index_frames.file_indexes_frame(self, self._index_infos(), index_type)

    def bloom_filters(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the bloom-filter indexes (fill ratio, estimated items and fpp)."""
        return self.file_indexes("bloom-filter")

    def range_bitmaps(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the range-bitmap indexes (cardinality, min, max, chunks, slices)."""
        return self.file_indexes("range-bitmap")

    @consistent
    def bitmap_values(self, column: str) -> pd.DataFrame:
        """Every value of ``column``'s bitmap indexes with its row count and bitmap bytes, per file."""
        from .presentation import index_frames

        if column not in self.schema.field_names and "[" not in column:
            raise PaimonLensError(f"no column {column!r} in {self.name}: {', '.join(self.schema.field_names)}")
        return index_frames.bitmap_values_frame(self, self._index_infos(), column)

    @consistent
    def explain(self, where: str, *, truth: bool = False, index_enabled: bool = True) -> Any:
        """Which files ``where`` makes Paimon read and why; see :func:`paimon_lens.pruning.explain.explain`."""
        from .pruning.fallback import with_fallback

        return with_fallback(self, self.explain_branch(where, truth=truth, index_enabled=index_enabled),
                             truth=truth, index_enabled=index_enabled)

    @consistent
    def explain_branch(self, where: Any, *, truth: bool = False, index_enabled: bool = True) -> Any:
        """:meth:`explain` of this branch's files alone (``scan.fallback-branch`` not followed, as
        Paimon reads a fallback branch itself)."""
        if self.engine.distributed:
            from .distributed import explain as explain_on

            return explain_on(self.engine, self, where, truth=truth, index_enabled=index_enabled)
        from .pruning.explain import explain

        return explain(self, where, truth=truth, index_enabled=index_enabled)

    @consistent
    def explain_many(self, wheres: Sequence[Any], *, truth: bool = False, index_enabled: bool = True) -> list[Any]:
        """:meth:`explain` of each predicate (one distributed run on a distributed engine)."""
        if self.engine.distributed:
            from .distributed import explain_many
            from .pruning.fallback import with_fallback

            reports = explain_many(self.engine, self, wheres, truth=truth, index_enabled=index_enabled)
            return [with_fallback(self, r, truth=truth, index_enabled=index_enabled) for r in reports]
        return [self.explain(w, truth=truth, index_enabled=index_enabled) for w in wheres]

    @consistent
    def deletion_vector_infos(self) -> list[Any]:
        """Every deletion vector of the snapshot, decoded on the table's engine
        (:class:`~paimon_lens.deletion_vectors.DeletionVectorInfo`, one per data file; cached)."""
        if self._dv_infos is None:
            if self.engine.distributed:
                from .distributed import deletion_vectors

                self._dv_infos = deletion_vectors(self.engine, self)
            else:
                from .deletion_vectors import table_deletion_vectors

                self._dv_infos = table_deletion_vectors(self)
        return list(self._dv_infos)

    @consistent
    def deletion_vectors(self) -> pd.DataFrame:
        """Every deletion vector of the snapshot, decoded and CRC-checked (one row per data file)."""
        from .presentation import frames

        return frames.deletion_vectors_frame(self, self.deletion_vector_infos())

    @consistent
    def hash_index(self) -> pd.DataFrame:
        """HASH (dynamic bucket) index files of the snapshot, decoded."""
        from .deletion_vectors import table_hash_index
        from .presentation import frames

        return frames.hash_index_frame(self, table_hash_index(self))


def _is_latest(snapshot: int | str | _dt.datetime | None, tag: str | None = None,
               timestamp_ms: int | None = None) -> bool:
    """Whether a snapshot selector means "the latest snapshot"."""
    return tag is None and timestamp_ms is None and (snapshot is None or snapshot == "latest")


def _select(snapshots: SnapshotManager, schemas: SchemaManager, snapshot: int | str | _dt.datetime | None,
            tag: str | None = None, timestamp_ms: int | None = None) -> tuple[Snapshot | None, TableSchema]:
    """Resolve a snapshot selector; returns the snapshot and the schema to present it with."""
    latest_schema = schemas.latest()
    chosen: Snapshot | None
    if tag is not None:
        chosen = snapshots.tag(tag)
    elif timestamp_ms is not None:
        chosen = snapshots.at_or_before(timestamp_ms)
    elif snapshot is None or snapshot == "latest":
        sid = snapshots.latest_id()
        if sid is None:
            return None, latest_schema
        try:
            return snapshots.snapshot(sid), latest_schema
        except SnapshotNotFoundError:  # expired between listing and reading: once more, listed afresh
            fresh = SnapshotManager(snapshots.file_io, snapshots.table_path, snapshots.branch)
            sid = fresh.latest_id()
            return (None if sid is None else fresh.snapshot(sid)), schemas.latest()
    elif isinstance(snapshot, _dt.datetime):
        ts = snapshot if snapshot.tzinfo else snapshot.astimezone()
        chosen = snapshots.at_or_before(int(ts.timestamp() * 1000))
    elif isinstance(snapshot, int) or (isinstance(snapshot, str) and snapshot.strip().lstrip("-").isdigit()):
        chosen = snapshots.snapshot(int(snapshot))
    elif snapshot == "earliest":
        chosen = snapshots.earliest()
    elif isinstance(snapshot, str) and snapshot.startswith("tag:"):
        chosen = snapshots.tag(snapshot[4:])
    elif isinstance(snapshot, str):
        try:
            when = _dt.datetime.fromisoformat(snapshot)
        except ValueError:
            raise SnapshotNotFoundError(
                f"cannot understand snapshot selector {snapshot!r}: use an id, 'latest', 'earliest', "
                "'tag:NAME' or an ISO timestamp") from None
        return _select(snapshots, schemas, when)
    else:
        raise SnapshotNotFoundError(f"cannot understand snapshot selector {snapshot!r}")
    return chosen, schemas.schema(chosen.schema_id)


def open_table(path: str, snapshot: int | str | _dt.datetime | None = None, *, tag: str | None = None,
               timestamp_ms: int | None = None, storage_options: dict[str, Any] | None = None,
               progress: bool | None = None, engine: str | Engine | None = None, spark: Any = None,
               spark_master: str | None = None, branch: str | None = None,
               path_map: dict[str, str] | None = None, paimon_version: str | None = None) -> Table:
    """Open the Paimon table in directory ``path`` at one snapshot.

    Args:
        path: table directory, local or ``s3://``/``hdfs://``/``oss://`` (needs the ``remote`` extra).
        snapshot: ``None``/``"latest"``, ``"earliest"``, a snapshot id, ``"tag:NAME"``, a
            ``datetime`` or ISO string (the latest snapshot committed at or before it).
        tag: select the snapshot a tag points to.
        timestamp_ms: select the latest snapshot committed at or before this epoch millisecond.
        storage_options: passed to fsspec for remote paths.
        progress: show a progress bar while reading many manifests (default: when many).
        engine: where per-file work runs: ``"local"`` (default, in process), ``"process"`` (a
            local process pool) or ``"spark"`` (PySpark), or an engine object; see
            :mod:`paimon_lens.engines`.
        spark: a ``SparkSession`` for the Spark engine (implies ``engine="spark"``); without
            one a session is created with ``spark_master`` (default ``local[*]``).
        branch: read this branch's snapshots, schemas and tags (``<table>/branch/branch-<name>``;
            default ``main``). A path ending in ``/branch/branch-<name>`` opens that branch of
            the table above it.
        path_map: rewrites of file locations, ``{prefix: replacement}``: for a table whose
            external data paths (``data-file.external-paths``) were copied or are mounted
            elsewhere, e.g. ``{"oss://bucket/ext": "/mnt/ext"}``. Schemes compare case-insensitively.
        paimon_version: the Paimon release your engine runs (``"0.9"`` ... ``"2.0"``): ``explain``
            applies its pruning rules (default: the newest release modelled). See
            :mod:`paimon_lens.pruning.versions`.

    Raises:
        TableNotFoundError: ``path`` holds no Paimon table.
        SnapshotNotFoundError: the requested snapshot does not exist or has expired.
    """
    file_io = TableFileIO(get_file_io(path, storage_options), storage_options, path_map)
    local = strip_file_scheme(path) if "://" not in path or path.startswith("file://") else path
    local = local.rstrip("/") or "/"
    local, branch = _branch_of_path(file_io, local, branch)
    schemas = SchemaManager(file_io, local, branch)
    if not schemas.list_ids():
        if not file_io.exists(local):
            raise TableNotFoundError(f"{path}: no such directory")
        if not is_main_branch(branch):
            known = branch_names(file_io.list_names(file_io.join(local, "branch")))
            raise TableNotFoundError(f"{local} has no branch {branch!r} (branches: {', '.join(known) or 'none'})")
        raise TableNotFoundError(f"{path} is not a Paimon table: it has no schema/schema-N files")
    file_io.confine([local, *declared_external_roots(schemas)])
    snapshots = SnapshotManager(file_io, local, branch)
    snap, schema = _select(snapshots, schemas, snapshot, tag=tag, timestamp_ms=timestamp_ms)
    from .engines.base import get_engine
    from .pruning.versions import normalize_version

    try:
        version = normalize_version(paimon_version)
    except ValueError as e:
        raise PaimonLensError(str(e)) from None
    return Table(local, file_io, snap, schema, schemas, snapshots, progress=progress,
                 engine=get_engine(engine, spark=spark, spark_master=spark_master), paimon_version=version,
                 follows_latest=_is_latest(snapshot, tag, timestamp_ms))


EXTERNAL_PATH_OPTIONS = ("data-file.external-paths", "global-index.external-path")


def declared_external_roots(schemas: SchemaManager) -> list[str]:
    """Every external root any schema version of the table declares (files keep the root they were
    written under after the option changes)."""
    roots: list[str] = []
    for sid in schemas.list_ids():
        try:
            options = schemas.schema(sid).options
        except PaimonLensError:
            continue
        for key in EXTERNAL_PATH_OPTIONS:
            roots.extend(r.strip() for r in (options.get(key) or "").split(",") if r.strip())
    return roots


def _branch_of_path(file_io: FileIO, path: str, branch: str | None) -> tuple[str, str | None]:
    """``(table directory, branch)``: a path ``<table>/branch/branch-<name>`` names a branch."""
    parent, _, name = path.rpartition("/")
    grand, _, branch_dir = parent.rpartition("/")
    if (branch_dir == "branch" and name.startswith(BRANCH_PREFIX) and len(name) > len(BRANCH_PREFIX)
            and file_io.exists(file_io.join(grand, "schema"))):
        named = name[len(BRANCH_PREFIX):]
        if branch is not None and not is_main_branch(branch) and branch != named:
            raise TableNotFoundError(f"{path} is branch {named!r} of {grand}, not branch {branch!r}")
        return grand, named
    return path, branch


__all__ = ["FILE_SOURCES", "LiveFile", "PaimonLensError", "Table", "open_table"]
