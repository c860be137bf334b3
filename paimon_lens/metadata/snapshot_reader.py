"""A pure reader of one snapshot of a Paimon table: manifests, live files, index entries, caches.

:class:`SnapshotReader` reads metadata lazily: nothing is read until asked, each manifest is read
once per table directory (the cache is shared by every reader derived with :meth:`SnapshotReader.at`
or :meth:`SnapshotReader.on_branch`). It knows no engine and builds no frames: the services
(:mod:`paimon_lens.pruning`, :mod:`paimon_lens.advisor`, ...) read through it and
:class:`paimon_lens.table.Table` puts a public face on both.

A partition filter's listing (:meth:`SnapshotReader.live_files_where`) decodes of a manifest only
the kept partitions' entries (:func:`~.manifest.read_manifest_where`); those are cached apart, per
manifest and set of kept partitions, and a manifest is cached as read whole only when it is.

Readers travel to other processes as a :class:`ReaderHandle` (path, FileIO, snapshot and schemas;
no manifest), which rebuilds on a worker the reader restricted to the entries a task works on.
"""

from __future__ import annotations

import copy
import datetime as _dt
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, TypeVar

from ..errors import PaimonLensError, SnapshotNotFoundError, TableNotFoundError
from ..io.fileio import FileIO, TableFileIO, get_file_io, local_path, strip_file_scheme
from ..progress import progress
from .binary_row import decode_binary_row
from .consistency import consistent
from .embedded_index import EmbeddedIndex
from .gc_pause import gc_paused
from .manifest import (
    IndexFileMeta,
    ManifestEntry,
    ManifestFileMeta,
    merge_entries,
    merge_index_entries,
    read_index_manifest,
    read_manifest,
    read_manifest_list,
    read_manifest_where,
)
from .paths import BRANCH_PREFIX, branch_names, bucket_dir, is_main_branch, partition_path
from .schema import SchemaManager, TableSchema
from .snapshot import Snapshot, SnapshotManager
from .stats import ColumnStats, FileStats, StatsLayout

T = TypeVar("T")
K = TypeVar("K")
R = TypeVar("R", bound="SnapshotReader")

Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]
"""``map(fn, items) -> [fn(x) for x in items]`` run elsewhere (an engine's); ``fn`` is picklable."""


class IndexLocation(StrEnum):
    """Where a data file's index container is (a member is its name as text)."""

    NONE = "none"
    """The file has no index."""
    EMBEDDED = "embedded"
    """In the manifest entry (``_EMBEDDED_FILE_INDEX``, below ``file-index.in-manifest-threshold``)."""
    EXTERNAL = "external"
    """In an ``.index`` file beside the data file (``extraFiles``)."""



class LiveFile:
    """A live data file of a snapshot, with its partition decoded and its stats decoded on access.

    A listing holds one per live file: the class has slots, and files of one partition share one
    ``partition`` mapping (read it, never change it).
    """

    __slots__ = ("_directory", "_path", "entry", "partition", "stats")

    def __init__(self, entry: ManifestEntry, partition: dict[str, Any], path: str | None,
                 stats: Sequence[ColumnStats], directory: str | None = None) -> None:
        self.entry = entry
        self.partition = partition
        self._path = path
        self._directory = directory
        """With ``path`` None: the file's directory (``.../bucket-N/``, shared by the bucket's files)."""
        self.stats = stats

    @property
    def path(self) -> str:
        """The file's path relative to the table directory (or its external path)."""
        path = self._path
        if path is None:
            return f"{self._directory}{self.entry.file.file_name}"
        return path

    def __repr__(self) -> str:
        return f"LiveFile({self.path!r}, bucket={self.entry.bucket}, level={self.entry.file.level})"

    def __reduce__(self) -> tuple[Any, ...]:
        return LiveFile, (self.entry, self.partition, self._path, self.stats, self._directory)

    @property
    def stats_error(self) -> str | None:
        """Why (some of) the file's stats could not be decoded, or None."""
        return getattr(self.stats, "error", None)

    @property
    def file(self):  # type: ignore[no-untyped-def]  # -> DataFileMeta
        """The manifest's ``DataFileMeta``."""
        return self.entry.file

    @property
    def index_location(self) -> IndexLocation:
        """:class:`IndexLocation`: ``embedded`` (in the manifest), ``external`` (an ``.index`` file) or ``none``."""
        f = self.entry.file
        if f.embedded_index is not None:
            return IndexLocation.EMBEDDED
        return IndexLocation.EXTERNAL if f.index_file is not None else IndexLocation.NONE

    @property
    def index_key(self) -> tuple[str, EmbeddedIndex | str | None]:
        """The file's name and its index container (the embedded one or the ``.index`` file's name):
        a data file's name is unique in its table, but its index may be rewritten."""
        f = self.entry.file
        return f.file_name, f.embedded_index if f.embedded_index is not None else f.index_file

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


#: the partial manifest reads (one manifest's entries of some partitions) a table directory keeps
_MANIFEST_PARTS_KEPT = 256


class _Cache:
    """Caches shared by every reader of one table directory."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.manifest_lists: dict[str, list[ManifestFileMeta]] = {}
        self.manifests: dict[str, list[ManifestEntry]] = {}
        """Every entry of a manifest, by file name."""
        self.manifest_partitions: dict[str, tuple[bytes, ...]] = {}
        """Every partition of a manifest read in part (:func:`read_manifest_where`), by file name."""
        self.manifest_parts: dict[tuple[str, frozenset[bytes]], list[ManifestEntry]] = {}
        """The entries of some of a manifest's partitions, by file name and those partitions."""
        self.index_manifests: dict[str, list[IndexFileMeta]] = {}
        self.sizes: dict[str, int] = {}
        self.shared: dict[str, Any] = {}


class SnapshotReader:
    """One snapshot of a Paimon table, read lazily (see the module docs). Create with :func:`open_reader`."""

    def __init__(self, path: str, file_io: FileIO, snapshot: Snapshot | None, schema: TableSchema,
                 schemas: SchemaManager, snapshots: SnapshotManager, cache: _Cache | None = None,
                 progress: bool | None = None, follows_latest: bool = False) -> None:
        self.path = path
        self.file_io = file_io
        self.snapshot = snapshot
        self.schema = schema
        self.schema_manager = schemas
        self.snapshot_manager = snapshots
        self.progress = progress
        self._cache = cache or _Cache()
        self.follows_latest = follows_latest
        """Opened at the latest snapshot: when that snapshot expires while it is read, the reader
        moves to the newest one (see :mod:`paimon_lens.metadata.consistency`)."""
        self.manifest_mapper: tuple[Mapper, int] | None = None
        """``(map, minimum)``: manifests are read by ``map`` (an engine's) when at least ``minimum``
        of them are to be read at once; None: always here."""
        self._consistency_depth = 0
        self._forget()

    def _forget(self) -> None:
        """Drop what was read of the snapshot (not the manifest caches: files never change)."""
        self._expired: SnapshotNotFoundError | None = None
        self._live: list[ManifestEntry] | None = None
        self._files: list[LiveFile] | None = None
        self._index_entries: list[IndexFileMeta] | None = None
        self._memo: dict[str, Any] = {}

    def release(self) -> None:
        """Let go of what was read of the snapshot and of the table's manifests (read again when next
        needed): a process that has its answer gives the memory back. A snapshot found expired stays
        expired."""
        expired = self._expired
        self._forget()
        self._expired = expired
        with self._cache.lock:
            for cache in (self._cache.manifest_lists, self._cache.manifests, self._cache.manifest_partitions,
                          self._cache.manifest_parts, self._cache.index_manifests, self._cache.shared):
                cache.clear()

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, kept for this snapshot under ``key`` (services cache their decoded
        results here: they are dropped when the reader moves to another snapshot)."""
        if key not in self._memo:
            self._memo[key] = compute()
        result: T = self._memo[key]
        return result

    def shared(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, kept under ``key`` for every reader of the table directory, whatever its
        snapshot (for caches of files that never change, such as decoded index containers)."""
        with self._cache.lock:
            if key not in self._cache.shared:
                self._cache.shared[key] = compute()
            result: T = self._cache.shared[key]
        return result

    def memoized(self, key: str) -> bool:
        """Whether :meth:`memo` holds ``key`` for this snapshot already."""
        return key in self._memo

    @property
    def file_io_missing(self) -> list[str]:
        """Paths the table's reads found missing so far (see :mod:`paimon_lens.metadata.consistency`)."""
        missing: list[str] = getattr(self.file_io, "missing", [])
        return missing

    @property
    def snapshot_expired(self) -> SnapshotNotFoundError | None:
        """Why the snapshot can no longer be read (it expired while it was read), None while it can."""
        return self._expired

    def forget_snapshot(self, expired: SnapshotNotFoundError) -> None:
        """The snapshot expired while it was read: drop what was read of it (partial, possibly with
        errors that are the expiry's) and remember why (see :mod:`paimon_lens.metadata.consistency`)."""
        self._forget()
        self._expired = expired

    def move_to_latest(self) -> None:
        """Read the newest snapshot (and schema) from now on, listing them afresh."""
        self.schema_manager = SchemaManager(self.file_io, self.path, self.branch)
        self.snapshot_manager = SnapshotManager(self.file_io, self.path, self.branch)
        self.snapshot, self.schema = select_snapshot(self.snapshot_manager, self.schema_manager, None)
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
        return f"<{type(self).__name__} {self.path!r}{branch} snapshot={self.snapshot_id} schema={self.schema.id}>"

    def _derive(self: R, snapshot: Snapshot | None, schema: TableSchema, schemas: SchemaManager,
                snapshots: SnapshotManager, follows_latest: bool) -> R:
        """A reader of the same kind (a subclass keeps its own settings) at another snapshot,
        sharing this one's manifest cache."""
        other = copy.copy(self)
        other.snapshot, other.schema = snapshot, schema
        other.schema_manager, other.snapshot_manager = schemas, snapshots
        other.follows_latest = follows_latest
        other._consistency_depth = 0
        other._forget()
        return other

    def on_branch(self: R, branch: str, snapshot: int | str | _dt.datetime | None = None) -> R:
        """The same table read on another branch (its latest snapshot by default); shares this object's
        caches of manifests, which every branch keeps in the table directory."""
        schemas = SchemaManager(self.file_io, self.path, branch)
        if not schemas.list_ids():
            raise TableNotFoundError(f"{self.path} has no branch {branch!r} "
                                     f"(branches: {', '.join(self.branches()) or 'none'})")
        snapshots = SnapshotManager(self.file_io, self.path, branch)
        snap, schema = select_snapshot(snapshots, schemas, snapshot)
        return self._derive(snap, schema, schemas, snapshots, is_latest(snapshot))

    def at(self: R, snapshot: int | str | _dt.datetime | None = None, **kwargs: Any) -> R:
        """The same table at another snapshot, sharing this object's manifest cache."""
        snap, schema = select_snapshot(self.snapshot_manager, self.schema_manager, snapshot, **kwargs)
        return self._derive(snap, schema, self.schema_manager, self.snapshot_manager,
                            is_latest(snapshot, **kwargs))

    def pinned(self: R, snapshot: Snapshot | None, schema: TableSchema) -> R:
        """The same table reading ``snapshot`` (an object read before, e.g. by a report) with ``schema``,
        pinned to it (an expiry raises), sharing this object's manifest cache; its snapshot file need
        not exist any more (a tag may keep its files)."""
        return self._derive(snapshot, schema, self.schema_manager, self.snapshot_manager, False)

    def handle(self) -> ReaderHandle:
        """What another process needs to rebuild this reader (see :class:`ReaderHandle`)."""
        return ReaderHandle(self.path, self.file_io, self.snapshot, self.schema, self.schema_manager,
                            self.snapshot_manager, _origin=self)

    def restricted(self, entries: Sequence[ManifestEntry],
                   index_entries: Sequence[IndexFileMeta] | None = None) -> SnapshotReader:
        """A reader of this snapshot whose live entries (and index-manifest entries, all of this
        snapshot's when None) are only those given; it shares this reader's caches."""
        part = SnapshotReader(self.path, self.file_io, self.snapshot, self.schema, self.schema_manager,
                              self.snapshot_manager, self._cache, progress=False)
        part._live = list(entries)
        if index_entries is not None:
            part._index_entries = list(index_entries)
        return part

    # ---- reading metadata -----------------------------------------------------------------
    def _map(self, fn: Callable[[K], T], names: Sequence[K], what: str) -> list[T]:
        """Apply ``fn`` to each name, with a progress bar if long.

        Remote files are read in threads (their latency overlaps); local ones one after the
        other, as decoding holds the GIL and threads would only add switching.
        """
        if len(names) <= 1:
            return [fn(n) for n in names]

        def shown(it: Iterable[T]) -> Iterable[T]:
            return progress(it, total=len(names), desc=f"reading {what}", enabled=self.progress)

        if local_path(self.file_io, self.path) is not None:
            return list(shown(map(fn, names)))
        with ThreadPoolExecutor(max_workers=min(8, len(names))) as pool:
            return list(shown(pool.map(fn, names)))

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
        return self._entries_of(self.manifest_files())

    def _entries_of(self, metas: Sequence[ManifestFileMeta]) -> list[ManifestEntry]:
        """The entries of the manifests ``metas``, in order (each manifest read once per table)."""
        names = [m.file_name for m in metas]
        sizes = {m.file_name: m.file_size for m in metas}
        todo = [(n, sizes[n]) for n in dict.fromkeys(names) if n not in self._cache.manifests]
        with gc_paused():
            if self.manifest_mapper is not None and len(todo) >= self.manifest_mapper[1]:
                read = partial(_read_manifest, self.file_io, self.manifest_dir)
                self._cache.manifests.update(zip([n for n, _ in todo], self.manifest_mapper[0](read, todo)))
            else:
                self._map(self._manifest, todo, "manifests")
        out: list[ManifestEntry] = []
        for n in names:
            out.extend(self._cache.manifests[n])
        return out

    def _entries_where(self, metas: Sequence[ManifestFileMeta],
                       partition_keep: Callable[[bytes], bool]) -> list[ManifestEntry]:
        """``[e for e in self._entries_of(metas) if partition_keep(e.partition)]``, reading of the
        manifests not read whole yet only the kept partitions' entries (:func:`read_manifest_where`;
        kept per manifest and set of kept partitions, never as the manifest's entries unless they
        are all of them)."""
        names = [m.file_name for m in metas]
        sizes = {m.file_name: m.file_size for m in metas}
        todo = [n for n in dict.fromkeys(names) if n not in self._cache.manifests]
        if self.manifest_mapper is not None and len(todo) >= self.manifest_mapper[1]:
            return [e for e in self._entries_of(metas) if partition_keep(e.partition)]
        verdicts: dict[bytes, bool] = {}

        def keep(partition: bytes) -> bool:
            got = verdicts.get(partition)
            if got is None:
                got = verdicts[partition] = bool(partition_keep(partition))
            return got

        def kept(name: str) -> list[ManifestEntry]:
            whole = self._cache.manifests.get(name)
            if whole is not None:
                return [e for e in whole if keep(e.partition)]
            partitions = self._cache.manifest_partitions.get(name)
            if partitions is not None:
                part = self._cache.manifest_parts.get((name, frozenset(filter(keep, partitions))))
                if part is not None:
                    return part
            sel = read_manifest_where(self.file_io, self.manifest_dir, name, sizes[name], keep)
            if sel.whole is not None:
                self._cache.manifests[name] = sel.whole
                return sel.entries
            kept_partitions = frozenset(filter(keep, sel.partitions))
            if len(kept_partitions) == len(sel.partitions):  # every entry: the manifest read whole
                self._cache.manifests[name] = sel.entries
            else:
                self._cache.manifest_partitions[name] = sel.partitions
                if len(self._cache.manifest_parts) >= _MANIFEST_PARTS_KEPT:  # bounded: oldest out
                    del self._cache.manifest_parts[next(iter(self._cache.manifest_parts))]
                self._cache.manifest_parts[(name, kept_partitions)] = sel.entries
            return sel.entries

        with gc_paused():
            got = dict(zip(todo, self._map(kept, todo, "manifests")))
            out: list[ManifestEntry] = []
            for n in names:
                out.extend(got[n] if n in got else kept(n))
        return out

    @consistent
    def delta_entries(self) -> list[ManifestEntry]:
        """The entries of the snapshot's delta manifest list alone: what its commit added and deleted
        (ADD and DELETE, in order), relative to the previous snapshot."""
        if self.snapshot is None:
            return []
        metas = self._manifest_list(self.snapshot.delta_manifest_list, "delta")
        out: list[ManifestEntry] = []
        with gc_paused():
            for m in metas:
                out.extend(self._manifest((m.file_name, m.file_size)))
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
        if self._index_entries is not None:
            return list(self._index_entries)
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
        part = partition_path(list(partition.values()), self.schema.partition_fields, self.schema.core_options)
        root = self.schema.core_options.data_file_path_directory
        return "/".join(p for p in (root, part, bucket_dir(bucket)) if p)

    def _live_file(self, entry: ManifestEntry, manifest_dir: str, partitions: dict[bytes, dict[str, Any]],
                   prefixes: dict[tuple[bytes, int], str], layouts: dict[tuple[Any, ...], StatsLayout]) -> LiveFile:
        """One live file; ``partitions``, ``prefixes`` and ``layouts`` are caches shared by a listing."""
        f = entry.file
        decoded = partitions.get(entry.partition)
        if decoded is None:
            where = f"{manifest_dir}/{entry.manifest} entry {f.file_name} _PARTITION"
            decoded = partitions[entry.partition] = self.decode_partition(entry.partition, where)
        partition = decoded  # shared by the partition's files
        path: str | None = None
        directory: str | None = None
        if f.external_path:
            path = f.external_path
        else:  # the path is the bucket's directory (shared) and the file's name: not one more string
            directory = prefixes.get((entry.partition, entry.bucket))
            if directory is None:
                directory = prefixes[(entry.partition, entry.bucket)] = self.bucket_path(entry.bucket, partition) + "/"
        try:
            file_schema = self.schema_manager.schema(f.schema_id)
        except TableNotFoundError as e:
            unknown = tuple(ColumnStats(None, None, None) for _ in self.schema.fields)
            return LiveFile(entry, partition, path, _UnknownStats(unknown, str(e)), directory)
        key = StatsLayout.key(f)
        layout = layouts.get(key)
        if layout is None:
            layout = layouts[key] = StatsLayout(f, file_schema, self.schema.fields)
        return LiveFile(entry, partition, path,
                        FileStats(f, file_schema, self.schema.fields,
                                  (manifest_dir, "/", entry.manifest, " entry ", f.file_name, " _VALUE_STATS"),
                                  layout), directory)

    @property
    def live_file_count(self) -> int | None:
        """How many live data files the snapshot has, if they were listed already (None: not yet;
        asking does not read any manifest)."""
        return None if self._files is None else len(self._files)

    @consistent
    def live_files(self) -> list[LiveFile]:
        """Live data files with partition, path and stats (mapped to :attr:`schema`) decoded."""
        if self._files is None:
            self._files = self._listed(self.live_entries())
        return self._files

    @consistent
    def live_files_where(self, partition_keep: Callable[[bytes], bool],
                         manifest_keep: Callable[[ManifestFileMeta], bool] | None = None
                         ) -> tuple[list[LiveFile], list[ManifestFileMeta]]:
        """The live files whose partition ``partition_keep`` (given the partition's BinaryRow bytes)
        keeps, in :meth:`live_files` order, and the manifests that were not read for them.

        When the live files are not listed yet, only the manifests ``manifest_keep`` admits are read
        (a manifest it rejects must hold no entry of a kept partition: Paimon's test of the manifest
        list's partition stats), and of those only the kept partitions' entries are decoded (the
        blocks holding them, :func:`~.manifest.read_manifest_where`), merged and listed; once
        listed, the files are indexed by partition (once per snapshot) and no manifest is skipped.
        """
        if self._files is None and self._live is None and manifest_keep is not None:
            metas = self.manifest_files()
            read = [m for m in metas if manifest_keep(m)]
            if len(read) < len(metas):
                skipped = [m for m in metas if not manifest_keep(m)]
                with gc_paused():
                    entries = self._entries_where(read, partition_keep)
                    return self._listed(merge_entries(entries)), skipped
        files = self.live_files()
        by_partition: dict[bytes, list[int]] = self.memo("live_files_by_partition", lambda: _positions(files))
        kept = [p for part, positions in by_partition.items() if partition_keep(part) for p in positions]
        if len(kept) == len(files):
            return list(files), []
        kept.sort()
        return [files[i] for i in kept], []

    def _listed(self, entries: Sequence[ManifestEntry]) -> list[LiveFile]:
        """Live files of ``entries`` (partitions, paths and stats layouts decoded once per listing)."""
        manifest_dir = self.manifest_dir
        partitions: dict[bytes, dict[str, Any]] = {}
        prefixes: dict[tuple[bytes, int], str] = {}
        layouts: dict[tuple[Any, ...], StatsLayout] = {}
        with gc_paused():
            return [self._live_file(e, manifest_dir, partitions, prefixes, layouts) for e in entries]

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
            return f.embedded_index.length
        rel = lf.index_file_path
        return None if rel is None else self.file_size(rel)

def _positions(files: Sequence[LiveFile]) -> dict[bytes, list[int]]:
    """Positions of the files of each partition (BinaryRow bytes), in order."""
    out: dict[bytes, list[int]] = {}
    for i, lf in enumerate(files):
        out.setdefault(lf.entry.partition, []).append(i)
    return out


def _read_manifest(file_io: FileIO, manifest_dir: str, name_size: tuple[str, int | None]) -> list[ManifestEntry]:
    return read_manifest(file_io, manifest_dir, *name_size)


@dataclass(frozen=True)
class ReaderHandle:
    """A picklable stand-in for a :class:`SnapshotReader` (no manifest travels with it).

    In the process that made it, :meth:`reader` is the original reader itself, with everything it
    has read (and :meth:`restricted` shares its caches); pickled to another process it rebuilds
    readers there.
    """

    path: str
    file_io: FileIO
    snapshot: Snapshot | None
    schema: TableSchema
    schemas: SchemaManager
    snapshots: SnapshotManager
    _origin: SnapshotReader | None = field(default=None, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_origin"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def reader(self) -> SnapshotReader:
        """The whole snapshot's reader: the original one where it is at hand."""
        if self._origin is not None:
            return self._origin
        return SnapshotReader(self.path, self.file_io, self.snapshot, self.schema, self.schemas, self.snapshots,
                              progress=False)

    def restricted(self, entries: Sequence[ManifestEntry],
                   index_entries: Sequence[IndexFileMeta] | None = None) -> SnapshotReader:
        """The snapshot's reader restricted to ``entries`` (see :meth:`SnapshotReader.restricted`)."""
        return self.reader().restricted(entries, index_entries)


def is_latest(snapshot: int | str | _dt.datetime | None, tag: str | None = None,
               timestamp_ms: int | None = None) -> bool:
    """Whether a snapshot selector means "the latest snapshot"."""
    return tag is None and timestamp_ms is None and (snapshot is None or snapshot == "latest")


def select_snapshot(snapshots: SnapshotManager, schemas: SchemaManager, snapshot: int | str | _dt.datetime | None,
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
        return select_snapshot(snapshots, schemas, when)
    else:
        raise SnapshotNotFoundError(f"cannot understand snapshot selector {snapshot!r}")
    return chosen, schemas.schema(chosen.schema_id)


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


def locate(path: str, storage_options: dict[str, Any] | None = None, path_map: dict[str, str] | None = None,
           branch: str | None = None) -> tuple[str, TableFileIO, SchemaManager, SnapshotManager]:
    """The table directory of ``path`` (a branch directory names its table and branch), its
    confined :class:`~paimon_lens.io.fileio.TableFileIO` and its schema and snapshot managers.

    Raises:
        TableNotFoundError: ``path`` holds no Paimon table (or not that branch).
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
    return local, file_io, schemas, SnapshotManager(file_io, local, branch)


def open_reader(path: str, snapshot: int | str | _dt.datetime | None = None, *, tag: str | None = None,
                timestamp_ms: int | None = None, storage_options: dict[str, Any] | None = None,
                branch: str | None = None, path_map: dict[str, str] | None = None,
                progress: bool | None = None) -> SnapshotReader:
    """A :class:`SnapshotReader` of the table in ``path`` at one snapshot (the selectors of
    :func:`paimon_lens.open_table`)."""
    local, file_io, schemas, snapshots = locate(path, storage_options, path_map, branch)
    snap, schema = select_snapshot(snapshots, schemas, snapshot, tag=tag, timestamp_ms=timestamp_ms)
    return SnapshotReader(local, file_io, snap, schema, schemas, snapshots, progress=progress,
                          follows_latest=is_latest(snapshot, tag, timestamp_ms))
