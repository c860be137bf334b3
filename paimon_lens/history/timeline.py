"""A table's timeline: one row per snapshot, computed from the snapshots' delta manifests.

The first snapshot of the range is read whole (its base and delta manifests); every later one is
reached by applying its commit's delta manifest list (ADD and DELETE entries relative to the
snapshot before it), so a snapshot costs what its commit changed, not what the table holds.
Running totals are kept per file added or removed: files, bytes and rows, files per LSM level,
small files (below an eighth of ``target-file-size``), and for each file its index container's
``type(column)`` labels (one head read per added file with an index) and index bytes.

Deletion vectors come from the snapshot's index manifest (a full list, written anew only when
index files change: a snapshot that keeps its predecessor's index manifest costs nothing); a
changed one is compared entry by entry with the previous, and only new ``DELETION_VECTORS``
entries are read (their cardinality from the manifest, else the vector decoded once).

A snapshot whose delta cannot be read (or whose id does not follow the previous one) is read
whole instead; one that cannot be read at all is a row with its ``problems``, and the next
snapshot is read whole. Nothing is written.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..errors import PaimonLensError
from ..metadata.gc_pause import gc_paused
from ..metadata.manifest import FILE_KIND_ADD, IndexFileMeta, ManifestEntry
from ..metadata.options import SMALL_FILE_DIVISOR, configured_indexes, target_file_size
from ..metadata.snapshot_reader import LiveFile, ReaderHandle, SnapshotReader
from ..rendering import render, render_html

if TYPE_CHECKING:
    import pandas as pd

def _small_below(table: SnapshotReader) -> int:
    return target_file_size(table.schema.options, bool(table.schema.primary_keys)) // SMALL_FILE_DIVISOR


class _File(NamedTuple):
    """A live file's facts the timeline keeps (a named tuple: one per live file of the snapshot)."""

    partition: bytes
    bucket: int
    level: int
    name: str
    size: int
    rows: int
    indexes: frozenset[str]
    index_bytes: int


@dataclass
class SnapshotFacts:
    """One snapshot's row of the timeline (see :data:`~paimon_lens.presentation.frame_columns.HISTORY_COLUMNS`)."""

    snapshot_id: int
    commit_kind: str | None = None
    time: _dt.datetime | None = None
    schema_id: int | None = None
    records: int | None = None
    delta_records: int | None = None
    files: int = 0
    bytes: int = 0
    rows: int = 0
    added_files: int = 0
    removed_files: int = 0
    added_bytes: int = 0
    removed_bytes: int = 0
    upgraded_files: int = 0
    """Files the commit moved to another level without rewriting them (a compaction upgrade)."""
    level_files: dict[int, int] = field(default_factory=dict)
    small_files: int = 0
    small_file_ratio: float | None = None
    indexed_files: int = 0
    index_bytes: int = 0
    index_coverage: dict[str, int] = field(default_factory=dict)
    """Files holding each index: the configured ones (0 when none does) and any other found."""
    unindexed_files: dict[str, int] = field(default_factory=dict)
    """Files without each configured index."""
    dv_files: int = 0
    dv_deleted_rows: int = 0
    dv_ratio: float | None = None
    dv_max_bucket_ratio: float | None = None
    stats_mode: str | None = None
    global_index_coverage: dict[str, int] = field(default_factory=dict)
    """Rows each global index covers (``type(column)``: its index files' row ranges merged), and for
    a primary-key index (``pk-type(column)``) the rows of the data files it was built from."""
    global_index_uncovered_rows: dict[str, int] = field(default_factory=dict)
    """Row ids below the snapshot's ``nextRowId`` that each global index does not cover."""
    tags: list[str] = field(default_factory=list)
    read_whole: bool = False
    """The snapshot was read whole (the first of the range, or its delta could not be applied)."""
    problems: list[str] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The snapshot's fields as Python values (the timeline frame's row)."""
        return dict(self.__dict__)

    def to_dict(self) -> dict[str, Any]:
        """The ``history --format json`` record (:meth:`record`, times as ISO 8601, level keys as strings)."""
        out = self.record()
        out["time"] = None if self.time is None else self.time.isoformat()
        out["level_files"] = {str(k): v for k, v in self.level_files.items()}
        return out


def _count_changes(facts: SnapshotFacts, added: dict[str, int], removed: dict[str, int]) -> None:
    """Files the commit wrote and dropped; a file deleted and added again under its name moved to
    another level without being rewritten (Paimon's compaction *upgrade*)."""
    moved = added.keys() & removed.keys()
    facts.upgraded_files = len(moved)
    facts.added_files = len(added) - len(moved)
    facts.removed_files = len(removed) - len(moved)
    facts.added_bytes = sum(size for name, size in added.items() if name not in moved)
    facts.removed_bytes = sum(size for name, size in removed.items() if name not in moved)


class _State:
    """The live files of the current snapshot and the running totals over them."""

    def __init__(self) -> None:
        self.files: dict[tuple[Any, ...], _File] = {}
        self.names: Counter[str] = Counter()
        self.bytes = self.rows = self.indexed = self.index_bytes = 0
        self.levels: Counter[int] = Counter()
        self.coverage: Counter[str] = Counter()
        self.bucket_rows: Counter[tuple[bytes, int]] = Counter()
        self.small = 0
        self.small_below = 0
        # deletion vectors: live DELETION_VECTORS index entries, and deleted rows per data file
        self.index_manifest: str | None = None
        self.dv_entries: dict[tuple[Any, ...], IndexFileMeta] = {}
        self.dv_rows: dict[str, int] = {}
        self.bucket_deleted: Counter[tuple[bytes, int]] = Counter()

    def add(self, key: tuple[Any, ...], f: _File) -> None:
        if key in self.files:
            self.remove(key)
        self.files[key] = f
        self.names[f.name] += 1
        self.bytes += f.size
        self.rows += f.rows
        self.levels[f.level] += 1
        self.bucket_rows[(f.partition, f.bucket)] += f.rows
        self.small += f.size < self.small_below
        if f.indexes:
            self.indexed += 1
            self.index_bytes += f.index_bytes
            self.coverage.update(f.indexes)

    def remove(self, key: tuple[Any, ...]) -> _File | None:
        f = self.files.pop(key, None)
        if f is None:
            return None
        self.names[f.name] -= 1
        if not self.names[f.name]:
            del self.names[f.name]
        self.bytes -= f.size
        self.rows -= f.rows
        self.levels[f.level] -= 1
        self.bucket_rows[(f.partition, f.bucket)] -= f.rows
        self.small -= f.size < self.small_below
        if f.indexes:
            self.indexed -= 1
            self.index_bytes -= f.index_bytes
            self.coverage.subtract(f.indexes)
        return f

    def set_small_below(self, threshold: int) -> None:
        if threshold != self.small_below:
            self.small_below = threshold
            self.small = sum(1 for f in self.files.values() if f.size < threshold)


class _Timeline:
    def __init__(self, table: SnapshotReader) -> None:
        self.table = table
        self.indexes: dict[str, tuple[frozenset[str], int]] = {}  # data file -> its index labels, bytes
        self.labels: dict[frozenset[str], frozenset[str]] = {}  # one set per distinct set of labels
        self.dv_cache: dict[str, dict[str, tuple[int | None, str | None]]] = {}  # index file -> data file ->
        # (deleted rows, error): decoded once
        self.partitions: dict[bytes, dict[str, Any]] = {}
        self.state: _State | None = None
        self.previous_id: int | None = None

    # ---- per file -------------------------------------------------------------------------
    def file_facts(self, reader: SnapshotReader, entry: ManifestEntry, problems: list[str]) -> _File:
        f = entry.file
        labels: frozenset[str] = frozenset()
        nbytes = 0
        if f.embedded_index is not None or f.index_file is not None:
            cached = self.indexes.get(f.file_name)
            if cached is None:
                cached = self.indexes[f.file_name] = self._index_labels(reader, entry, problems)
            labels, nbytes = cached
        return _File(entry.partition, entry.bucket, f.level, f.file_name, f.file_size, f.row_count, labels, nbytes)

    def _index_labels(self, reader: SnapshotReader, entry: ManifestEntry,
                      problems: list[str]) -> tuple[frozenset[str], int]:
        from ..inventory.file_indexes import open_container

        try:
            partition = self.partitions.get(entry.partition)
            if partition is None:
                partition = self.partitions[entry.partition] = reader.decode_partition(
                    entry.partition, f"{reader.manifest_dir}/{entry.manifest} _PARTITION")
            lf = LiveFile(entry, partition, reader.relative_path(entry, partition), ())
            container = open_container(reader, lf)
            if container is None:
                return frozenset(), 0
            labels = frozenset(f"{ix.index_type}({col.column})" for col in container.layout.columns
                               for ix in col.indexes)
            labels = self.labels.setdefault(labels, labels)  # most files share their table's few sets
            size = reader.index_size(lf)
            if size is None:  # counted as nothing, and said so
                problems.append(f"index of {entry.file.file_name}: the size of {lf.index_file_path} could not be read")
                return labels, 0
            return labels, size
        except (PaimonLensError, OSError) as e:
            problems.append(f"index of {entry.file.file_name}: {e}")
            return frozenset({"unreadable"}), 0

    # ---- per snapshot ---------------------------------------------------------------------
    def read_whole(self, reader: SnapshotReader, problems: list[str]) -> _State:
        state = _State()
        state.set_small_below(_small_below(reader))
        for e in reader.live_entries():
            state.add(e.identifier(), self.file_facts(reader, e, problems))
        return state

    def delta(self, reader: SnapshotReader, problems: list[str]) -> list[tuple[int, tuple[Any, ...], _File | None]]:
        """The snapshot's commit as ``(kind, identifier, file)`` (file facts for ADD entries only)."""
        return [(e.kind, e.identifier(), self.file_facts(reader, e, problems) if e.kind == FILE_KIND_ADD else None)
                for e in reader.delta_entries()]

    @staticmethod
    def _apply_delta(delta: list[tuple[int, tuple[Any, ...], _File | None]], state: _State,
                     facts: SnapshotFacts) -> None:
        added: dict[str, int] = {}
        removed: dict[str, int] = {}
        for kind, key, f in delta:
            if kind == FILE_KIND_ADD and f is not None:
                state.add(key, f)
                added[f.name] = f.size
            else:
                gone = state.remove(key)
                if gone is not None:
                    removed[gone.name] = gone.size
        _count_changes(facts, added, removed)

    def _deletion_vectors(self, reader: SnapshotReader, state: _State, problems: list[str]) -> None:
        from ..inventory.deletion_vectors import DELETION_VECTORS

        name = reader.snapshot.index_manifest if reader.snapshot is not None else None
        if name == state.index_manifest:
            return
        entries = {e.identifier(): e for e in reader.index_entries() if e.index_type == DELETION_VECTORS}
        for key in [k for k in state.dv_entries if k not in entries]:
            old = state.dv_entries.pop(key)
            for dv in old.deletion_vectors or ():
                state.bucket_deleted[(old.partition, old.bucket)] -= state.dv_rows.pop(dv.data_file, 0)
        for key, e in entries.items():
            if key in state.dv_entries:
                continue
            state.dv_entries[key] = e
            for dv in e.deletion_vectors or ():
                rows = self._deleted_rows(reader, e, dv, problems)
                state.bucket_deleted[(e.partition, e.bucket)] += rows - state.dv_rows.get(dv.data_file, 0)
                state.dv_rows[dv.data_file] = rows
        state.index_manifest = name

    def _deleted_rows(self, reader: SnapshotReader, entry: IndexFileMeta, dv: Any, problems: list[str]) -> int:
        """Rows ``dv`` deletes: its recorded cardinality (2.x), else its index file decoded once, every
        vector of it checked as the deletion-vector frame checks them."""
        if dv.cardinality is not None:
            return int(dv.cardinality)
        decoded = self.dv_cache.get(entry.file_name)
        if decoded is None:
            from ..inventory.deletion_vectors import table_deletion_vectors

            decoded = self.dv_cache[entry.file_name] = {
                info.data_file: (info.cardinality, info.error)
                for info in table_deletion_vectors(reader.restricted([], [entry]))}
        cardinality, error = decoded.get(dv.data_file, (None, "not in its index file"))
        if error is not None or cardinality is None:
            problems.append(f"deletion vector of {dv.data_file}: {error}")
            return 0
        return int(cardinality)

    def row(self, reader: SnapshotReader, tags: list[str],
            read: tuple[list[tuple[int, tuple[Any, ...], _File | None]] | None, list[str]] | None = None
            ) -> SnapshotFacts:
        """The snapshot's row; ``read`` is its delta already read elsewhere (a task) with its problems
        (delta None: it could not be read)."""
        snap = reader.snapshot
        assert snap is not None
        facts = SnapshotFacts(snap.id, snap.commit_kind,
                              _dt.datetime.fromtimestamp(snap.time_millis / 1000, tz=_dt.UTC),
                              snap.schema_id, snap.total_record_count, snap.delta_record_count, tags=tags)
        problems = facts.problems
        state = self.state
        try:
            if state is not None and self.previous_id == snap.id - 1:
                try:
                    state.set_small_below(_small_below(reader))
                    if read is None:
                        delta = self.delta(reader, problems)
                    elif read[0] is None:
                        raise PaimonLensError("; ".join(read[1]))
                    else:
                        delta = read[0]
                        problems += read[1]
                    self._apply_delta(delta, state, facts)
                except (PaimonLensError, OSError) as e:
                    problems.append(f"delta manifests: {e}; the snapshot was read whole")
                    state = None
            if state is None:
                old = self.state
                state = self.read_whole(reader, problems)
                facts.read_whole = True
                if old is not None:  # carry the deletion vectors already read
                    state.index_manifest, state.dv_entries = old.index_manifest, old.dv_entries
                    state.dv_rows, state.bucket_deleted = old.dv_rows, old.bucket_deleted
                    _count_changes(facts, {f.name: f.size for k, f in state.files.items() if k not in old.files},
                                   {f.name: f.size for k, f in old.files.items() if k not in state.files})
                else:
                    facts.added_files, facts.added_bytes = len(state.files), state.bytes
            self._deletion_vectors(reader, state, problems)
        except (PaimonLensError, OSError) as e:
            problems.append(str(e))
            self.state, self.previous_id = None, None
            return facts
        self.state, self.previous_id = state, snap.id
        self._fill(reader, state, facts)
        return facts

    @staticmethod
    def _fill(reader: SnapshotReader, state: _State, facts: SnapshotFacts) -> None:

        facts.files, facts.bytes, facts.rows = len(state.files), state.bytes, state.rows
        facts.level_files = {lvl: n for lvl, n in sorted(state.levels.items()) if n}
        facts.small_files = state.small
        facts.small_file_ratio = state.small / len(state.files) if state.files else None
        facts.indexed_files, facts.index_bytes = state.indexed, state.index_bytes
        configured = configured_indexes(reader.schema.options)
        present = {k: n for k, n in state.coverage.items() if n > 0}
        facts.index_coverage = {label: present.get(label, 0) for label in configured}
        facts.index_coverage.update({k: n for k, n in sorted(present.items()) if k not in facts.index_coverage})
        facts.unindexed_files = {label: len(state.files) - present.get(label, 0) for label in configured}
        deleted = {name: rows for name, rows in state.dv_rows.items() if rows and name in state.names}
        facts.dv_files, facts.dv_deleted_rows = len(deleted), sum(deleted.values())
        facts.dv_ratio = facts.dv_deleted_rows / state.rows if state.rows and deleted else None
        ratios = [d / state.bucket_rows[b] for b, d in state.bucket_deleted.items() if d > 0 and state.bucket_rows[b]]
        facts.dv_max_bucket_ratio = max(ratios) if ratios else None
        facts.stats_mode = reader.schema.core_options.stats_mode
        facts.global_index_coverage, facts.global_index_uncovered_rows = _global_coverage(reader)


def _global_coverage(reader: SnapshotReader) -> tuple[dict[str, int], dict[str, int]]:
    """(covered rows, uncovered row ids) per global / primary-key index label, from the index manifest."""
    from ..metadata.row_ranges import merge_ranges

    ranges: dict[str, list[tuple[int, int]]] = {}
    pk_rows: dict[str, int] = {}
    for e in reader.index_entries():
        gi = e.global_index
        if gi is None:
            continue
        f = reader.schema.field_by_id(gi.index_field_id)
        column = f.name if f is not None else f"#{gi.index_field_id}"
        if gi.is_primary_key_index:
            label = f"pk-{e.index_type}({column})"
            pk_rows[label] = pk_rows.get(label, 0) + gi.row_count
        else:
            ranges.setdefault(f"{e.index_type}({column})", []).append((gi.row_range_start, gi.row_range_end))
    covered = {label: sum(b - a + 1 for a, b in merge_ranges(rs)) for label, rs in sorted(ranges.items())}
    next_id = reader.snapshot.next_row_id if reader.snapshot is not None else None
    uncovered = {label: max(0, next_id - n) for label, n in covered.items()} if next_id else {}
    covered.update(sorted(pk_rows.items()))
    return covered, uncovered


@dataclass
class History:
    """The timeline of a table: one :class:`SnapshotFacts` per snapshot (or per sampled snapshot)."""

    table: str
    snapshots: list[SnapshotFacts]

    def frame(self) -> pd.DataFrame:
        """One row per snapshot (:meth:`SnapshotFacts.record`; columns:
        :data:`~paimon_lens.presentation.frame_columns.HISTORY_COLUMNS`)."""
        return cast("pd.DataFrame", render(self, "frame"))

    def to_dict(self) -> dict[str, Any]:
        """The ``history --format json`` document."""
        return {"table": self.table, "snapshots": [s.to_dict() for s in self.snapshots]}

    @property
    def problems(self) -> list[str]:
        """Every problem, prefixed with its snapshot."""
        return [f"snapshot {s.snapshot_id}: {p}" for s in self.snapshots for p in s.problems]

    def __iter__(self) -> Iterator[SnapshotFacts]:
        return iter(self.snapshots)

    def __len__(self) -> int:
        return len(self.snapshots)

    def _repr_html_(self) -> str | None:
        return render_html(self)


def _tags_by_snapshot(table: SnapshotReader) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for name in table.snapshot_manager.tag_names():
        try:
            out.setdefault(table.snapshot_manager.tag(name).id, []).append(name)
        except PaimonLensError:
            continue  # an unreadable tag names no snapshot here; the tags frame says why
    return out


def snapshot_ids(table: SnapshotReader, start: int | None = None, end: int | None = None) -> list[int]:
    """The ids of the snapshots kept, from ``start`` to ``end`` (inclusive; default all)."""
    ids = table.snapshot_manager.list_ids()
    return [i for i in ids if (start is None or i >= start) and (end is None or i <= end)]


MIN_DISTRIBUTED_SNAPSHOTS = 64
"""On a distributed engine, the commits are read in tasks from this many snapshots on."""

Delta = tuple[list[tuple[int, tuple[Any, ...], "_File | None"]] | None, list[str]]


def _delta_task(handle: ReaderHandle, ids: Sequence[int]) -> list[Delta]:
    """A task: the commits of snapshots ``ids`` (their delta manifests and the index labels of the
    files they add), read on a worker."""
    base = handle.reader()
    timeline = _Timeline(base)
    out: list[Delta] = []
    for sid in ids:
        problems: list[str] = []
        try:
            out.append((timeline.delta(base.at(sid), problems), problems))
        except (PaimonLensError, OSError) as e:
            out.append((None, [str(e)]))
    return out


def _read_deltas(table: SnapshotReader, ids: list[int], engine: Any) -> dict[int, Delta]:
    """Every snapshot's commit but the first's, read in tasks on ``engine``."""
    from functools import partial

    from ..engines.files import chunks, task_count

    todo = ids[1:]
    parts = [[todo[i] for i in r] for r in chunks(len(todo), task_count(engine))]
    results = engine.map(partial(_delta_task, table.handle()), parts)
    return {sid: d for part, got in zip(parts, results) for sid, d in zip(part, got)}


def history(table: SnapshotReader, start: int | None = None, end: int | None = None,
            every: int | None = None, engine: Any = None,
            min_distributed: int = MIN_DISTRIBUTED_SNAPSHOTS) -> History:
    """The timeline from snapshot ``start`` to ``end`` (default: every snapshot kept), one row per
    snapshot, or per ``every``-th snapshot and the last (the deltas between are still applied).

    On a distributed ``engine`` (default: none, the commits read here) and from ``min_distributed`` snapshots on,
    the commits are read in tasks (delta manifests, index heads of added files); the
    driver applies them in order.
    """
    from ..progress import progress

    if every is not None and every < 1:
        raise PaimonLensError(f"every={every}: sample every 1st, 2nd ... snapshot")
    ids = snapshot_ids(table, start, end)
    tags = _tags_by_snapshot(table)
    timeline = _Timeline(table)
    runner = engine
    deltas: dict[int, Delta] = {}
    if runner is not None and getattr(runner, "distributed", False) and len(ids) >= max(2, min_distributed):
        deltas = _read_deltas(table, ids, runner)
    rows: list[SnapshotFacts] = []
    shown = progress(ids, total=len(ids), desc="snapshots", unit="snapshot") if table.progress is not False else ids
    with gc_paused():  # the running state holds every live file: cyclic collections would rescan it each time
        _walk(table, timeline, shown, tags, deltas, every, len(ids), rows)
    return History(table.name, rows)


def _walk(table: SnapshotReader, timeline: _Timeline, ids: Any, tags: dict[int, list[str]],
          deltas: dict[int, Delta], every: int | None, count: int, rows: list[SnapshotFacts]) -> None:
    """Apply each snapshot of ``ids`` in order, appending the rows kept (every ``every``-th and the last)."""
    for n, sid in enumerate(ids):
        try:
            reader = table.at(sid)
        except PaimonLensError as e:
            rows.append(SnapshotFacts(sid, problems=[str(e)]))
            timeline.state, timeline.previous_id = None, None
            continue
        facts = timeline.row(reader, sorted(tags.get(sid, [])), deltas.get(sid))
        if every is None or n % every == 0 or n == count - 1:
            rows.append(facts)
