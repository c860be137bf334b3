"""Planning a snapshot on Spark without the driver holding its files: explain and file indexes.

The Spark engine (:mod:`.spark`) maps tasks over lists the driver builds: for ``explain`` the
driver lists every live file (about 2 KB per file of manifest entries), so a table of millions of
files does not fit. Here the driver reads only the snapshot and its manifest list (one
``ManifestFileMeta`` per manifest file); everything per file happens in Spark tasks:

1. **read**: an RDD of the snapshot's manifest files (and its index manifest) is read in tasks,
   each entry keyed by its (partition, bucket) and its position in the snapshot (manifest
   ``i``, entry ``j``: ``i << 32 | j``; index-manifest entries apart);
2. **shuffle**: ``repartitionAndSortWithinPartitions`` brings each (partition, bucket) group's ADD
   and DELETE entries and its index-manifest entries (deletion-vector and hash index files)
   together, sorted by position; Paimon's planning is independent between groups (the
   whole-bucket rule, deletion vectors and every cache are per group), so a group is the unit;
3. **plan**: in each task the group's entries are merged as Paimon merges them
   (:func:`merge_positioned`, the same rule as
   :func:`~paimon_lens.metadata.manifest.merge_entries`), groups are packed into batches of about
   ``batch_files`` files, and each batch is planned by the existing single-process code on a reader
   restricted to it (``ReaderHandle.restricted``); rows leave the task as Spark rows, and a small
   *partial* (summary sums, the first notes, counts) goes to the driver through an accumulator.

What comes back to the driver is bounded by the number of tasks, not of files: partial summaries
(exact sums per stage; the funnel and every field of ``summary()`` are sums), at most ``max_notes``
notes per predicate (the first ones in live-file order; the others are counted), and one manifest
entry per schema id (to compute the notes about schema versions). The rows stay in Spark: a
DataFrame (persisted, by default ``MEMORY_AND_DISK``) or Parquet files written by the tasks.
Nothing is collected unless asked (:meth:`SparkExplainReport.records`).

Accumulator updates are keyed by the reduce partition that made them, so a task run again (a lost
executor, a speculative copy, a persisted block recomputed) replaces its partial instead of adding
it twice: the summaries are exact whatever Spark retries.

This module sits above the services it distributes: it runs the single-process
:func:`~paimon_lens.pruning.explain.explain` and
:func:`~paimon_lens.inventory.file_indexes.file_indexes` in the tasks, on the Spark engine
(:mod:`paimon_lens.engines.spark`). :class:`paimon_lens.Table` calls it
(:meth:`~paimon_lens.table.Table.explain_distributed`,
:meth:`~paimon_lens.table.Table.file_indexes_distributed`). pyspark is imported only when a
function here runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from ..engines.base import Engine
from ..engines.spark import SparkEngine, create_session, is_null, plain, spark_cell, spark_kind
from ..errors import PaimonLensError, TaskError, as_text, note_file
from ..inventory.file_indexes import INDEX_FIELDS, file_indexes, summary_cells
from ..metadata.gc_pause import gc_paused
from ..metadata.manifest import (
    FILE_KIND_ADD,
    IndexFileMeta,
    ManifestEntry,
    merge_index_entries,
    read_index_manifest,
    read_manifest,
)
from ..pruning.explain import explain, note_details
from ..pruning.summary import ExplainSummary, FunnelRow
from ..values import to_python

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import ReaderHandle, SnapshotReader
    from ..predicate.model import Predicate

DEFAULT_BATCH_FILES = 5_000
"""Live files planned together in one call of the single-process code (whole groups; a group larger
than this is one batch of its own)."""
DEFAULT_ENTRIES_PER_TASK = 20_000
"""Manifest entries per reduce task of the shuffle (there are at least twice as many tasks as cores)."""
DEFAULT_MAX_NOTES = 100
"""Notes about files kept per predicate (the first in live-file order); the others are counted."""
INDEX_MANIFEST = -1
"""The manifest position of the index manifest in a read task's item."""

_DATA, _INDEX = 0, 1
_FAILURE = "<<paimon-lens task failure>>"
_FAILURE_END = "<<end>>"

# ---- merging a group's entries ------------------------------------------------------------------


def merge_positioned(entries: Iterable[tuple[int, ManifestEntry]]) -> list[tuple[int, ManifestEntry]]:
    """Live ADD entries of ``(position, entry)`` pairs given in position order, each with the position
    that places it in the snapshot's live-file order.

    The rule of :func:`~paimon_lens.metadata.manifest.merge_entries` (Paimon's ``mergeEntries``): an
    ADD makes a file live, a DELETE of a live file removes it, a DELETE of a file not seen yet (added
    in an earlier, compacted manifest) is kept until its ADD. A file keeps the position of the entry
    that first made it known (as ``merge_entries`` keeps the first insertion's place), so the live
    files of all groups sorted by position are ``merge_entries`` of the whole snapshot.
    """
    live: dict[tuple[Any, ...], tuple[int, ManifestEntry]] = {}
    for pos, e in entries:
        key = e.identifier()
        old = live.get(key)
        if e.kind == FILE_KIND_ADD or old is None or old[1].kind != FILE_KIND_ADD:
            live[key] = (pos if old is None else old[0], e)
        else:
            del live[key]
    return [(p, e) for p, e in live.values() if e.kind == FILE_KIND_ADD]


@dataclass
class Group:
    """The live entries (with their positions) and index-manifest entries of one (partition, bucket)."""

    partition: bytes
    bucket: int
    entries: list[tuple[int, ManifestEntry]]
    index_entries: list[IndexFileMeta]


def groups_of(records: Iterable[tuple[tuple[bytes, int, int, int], Any]]) -> Iterator[Group]:
    """The groups of a sorted stream of ``((partition, bucket, kind, position), entry)`` records
    (kind 0: manifest entry, 1: index-manifest entry), merged; groups without a live file are left out."""
    current: tuple[bytes, int] | None = None
    data: list[tuple[int, ManifestEntry]] = []
    index: list[IndexFileMeta] = []

    def flush() -> Group | None:
        if current is None:
            return None
        live = merge_positioned(data)
        return Group(current[0], current[1], live, merge_index_entries(index)) if live else None

    for (part, bucket, kind, pos), value in records:
        if current != (part, bucket):
            done = flush()
            if done is not None:
                yield done
            current, data, index = (part, bucket), [], []
        if kind == _DATA:
            data.append((pos, value))
        else:
            index.append(value)
    done = flush()
    if done is not None:
        yield done


def batches(groups: Iterable[Group], batch_files: int) -> Iterator[list[Group]]:
    """Whole groups packed into batches of about ``batch_files`` live files."""
    batch: list[Group] = []
    size = 0
    for g in groups:
        batch.append(g)
        size += len(g.entries)
        if size >= batch_files:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


# ---- tasks ---------------------------------------------------------------------------------------

_READERS: dict[tuple[Any, ...], SnapshotReader] = {}


def _reader(handle: ReaderHandle) -> SnapshotReader:
    """The snapshot's reader in this worker process (one per snapshot, kept for the worker's next
    tasks: schemas and the manifest list are read once per worker)."""
    key = (handle.path, handle.schemas.branch, handle.snapshot.id if handle.snapshot else None, handle.schema.id)
    reader = _READERS.get(key)
    if reader is None:
        if len(_READERS) >= 4:
            _READERS.clear()
        reader = _READERS[key] = handle.reader()
    return reader


def _failure(e: BaseException) -> RuntimeError:
    """A task's paimon-lens error, in a form the driver finds in Spark's error text."""
    return RuntimeError(f"{_FAILURE}{type(e).__name__}|{e}{_FAILURE_END}")


def _raise_task_error(e: BaseException) -> None:
    """Raise :class:`TaskError` for a job that failed with a task's paimon-lens error (else nothing)."""
    text = str(e)
    start = text.find(_FAILURE)
    if start < 0:
        return
    body = text[start + len(_FAILURE):]
    body = body[: body.find(_FAILURE_END)] if _FAILURE_END in body else body
    kind, _, message = body.partition("|")
    raise TaskError(message, kind) from None


def read_task(handle: ReaderHandle, item: tuple[int, str, int | None]
              ) -> Iterator[tuple[tuple[bytes, int, int, int], Any]]:
    """A read task: the entries of one manifest (or of the index manifest), keyed for the shuffle."""
    pos, name, size = item
    reader = _reader(handle)
    with gc_paused():
        try:
            if pos == INDEX_MANIFEST:
                index = read_index_manifest(reader.file_io, reader.manifest_dir, name)
                out: list[tuple[tuple[bytes, int, int, int], Any]] = [
                    ((e.partition, e.bucket, _INDEX, i), e) for i, e in enumerate(index)]
            else:
                base = pos << 32
                out = [((e.partition, e.bucket, _DATA, base | i), e)
                       for i, e in enumerate(read_manifest(reader.file_io, reader.manifest_dir, name, size))]
        except (PaimonLensError, OSError) as e:
            raise _failure(e) from None
    return iter(out)


def group_partition(key: tuple[bytes, int, int, int]) -> int:
    """The shuffle's partition function: a hash of (partition, bucket) alone, the same in every process."""
    import xxhash

    return int(xxhash.xxh32_intdigest(key[0] + key[1].to_bytes(8, "big", signed=True)))


def plan_task(handle: ReaderHandle, work: Any, batch_files: int, acc: Any, index: int,
              records: Iterator[tuple[tuple[bytes, int, int, int], Any]]) -> Iterator[tuple[Any, ...]]:
    """A plan task (one reduce partition): its groups merged, batched and handed to ``work``, whose
    rows are yielded; the partition's partial goes to ``acc`` as ``{index: partial}``."""
    base = _reader(handle)
    partial_: Any = None
    with gc_paused():
        try:
            for batch in batches(groups_of(records), batch_files):
                entries = [e for g in batch for _, e in g.entries]
                positions = {e.file.file_name: p for g in batch for p, e in g.entries}
                part = base.restricted(entries, [e for g in batch for e in g.index_entries])
                got: list[Any] = []
                yield from work.run(part, positions, got)
                partial_ = got[0] if partial_ is None else work.combine(partial_, got[0])
        except (PaimonLensError, OSError) as e:
            raise _failure(e) from None
    if partial_ is not None:
        acc.add({index: partial_})


class PartialsParam:
    """The accumulator of partials: ``{reduce partition: partial}``, a partition's latest replacing
    an earlier one (idempotent under retries); duck-typed as pyspark's ``AccumulatorParam``."""

    def zero(self, value: dict[int, Any]) -> dict[int, Any]:
        """An empty map."""
        return {}

    def addInPlace(self, value1: dict[int, Any], value2: dict[int, Any]) -> dict[int, Any]:
        """``value1`` updated with ``value2``."""
        value1.update(value2)
        return value1


# ---- sums of summaries ---------------------------------------------------------------------------

def add_summaries(a: Any, b: Any, where: str = "summary") -> Any:
    """``a + b`` of two summaries of disjoint files: integers summed, dicts by key (``partial``: either
    is), lists item by item; strings (stage labels) must agree. Anything else cannot be summed and is
    refused (the summary would be wrong)."""
    if isinstance(a, bool) or isinstance(b, bool):
        raise PaimonLensError(f"{where}: a boolean cannot be summed over tasks")
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, str) and isinstance(b, str):
        if a != b:
            raise PaimonLensError(f"{where}: {a!r} and {b!r} differ between tasks")
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            if k == "partial" and isinstance(v, bool) and isinstance(out.get(k, False), bool):
                out[k] = out.get(k, False) or v  # partial over any task's files: partial over all
                continue
            out[k] = add_summaries(out[k], v, f"{where}.{k}") if k in out else v
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [add_summaries(x, y, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
    raise PaimonLensError(f"{where}: {type(a).__name__} and {type(b).__name__} cannot be summed over tasks")


# ---- explain ------------------------------------------------------------------------------------

#: The Spark type of every field of ``ExplainReport.file_record``, in its order (``partition`` is
#: JSON text, as :func:`~paimon_lens.engines.spark.to_spark` renders a dict).
EXPLAIN_FIELDS: tuple[tuple[str, str], ...] = (
    ("file_name", "string"), ("path", "string"), ("partition", "string"), ("bucket", "long"),
    ("level", "long"), ("row_count", "long"), ("file_size", "long"), ("index_location", "string"),
    ("partition_keep", "boolean"), ("bucket_keep", "boolean"), ("stats_keep", "boolean"),
    ("stats_used", "boolean"), ("index_result", "string"), ("index_result_kind", "string"),
    ("index_positions", "array<long>"), ("planned", "boolean"), ("read", "boolean"),
    ("deleted_rows", "long"), ("rows_after_dv", "long"), ("stage", "string"), ("reason", "string"),
    ("flags", "array<string>"), ("error", "string"), ("branch", "string"),
    ("index_selected_rows", "long"), ("dv_removed_rows", "long"), ("index_error", "string"),
)
TRUTH_FIELDS: tuple[tuple[str, str], ...] = (
    ("matching_positions", "array<long>"), ("matching_live_positions", "array<long>"), ("matching_rows", "long"))
TRUNCATED_FIELD = ("positions_truncated", "array<string>")
WHERE_INDEX = "where_index"
"""The column naming the predicate (0, 1, ...) of a row when several are explained at once."""


def explain_fields(truth: bool) -> list[tuple[str, str]]:
    """The columns of the per-file records (``file_record``'s keys and Spark types)."""
    return [*EXPLAIN_FIELDS, *(TRUTH_FIELDS if truth else ()), TRUNCATED_FIELD]


def record_row(rec: dict[str, Any], names: Sequence[str]) -> tuple[Any, ...]:
    """A ``file_record`` dict as a row of ``names`` (``partition`` as JSON text); a key without a
    column is refused, not dropped."""
    unknown = rec.keys() - set(names)
    if unknown:
        raise PaimonLensError(f"explain record fields without a Spark column: {sorted(unknown)} "
                              "(add them to paimon_lens.distributed.spark_plan.EXPLAIN_FIELDS)")
    return tuple(json.dumps(rec["partition"], ensure_ascii=False) if n == "partition" else plain(rec.get(n))
                 for n in names)


def row_record(row: dict[str, Any], truth: bool) -> dict[str, Any]:
    """A row of the per-file records (``Row.asDict()``) as the ``file_record`` dict it was made from."""
    rec = {k: v for k, v in row.items() if k != WHERE_INDEX}
    rec["partition"] = json.loads(rec["partition"])
    if not truth:
        for k, _ in TRUTH_FIELDS:
            rec.pop(k, None)
    if rec.get(TRUNCATED_FIELD[0]) is None:
        rec.pop(TRUNCATED_FIELD[0], None)
    return rec


@dataclass
class ExplainPartial:
    """What one task (or batch) of one predicate sends back: summary sums, its first notes about
    files (with their positions), how many such notes it had, and one live entry per schema id."""

    summary: ExplainSummary
    notes: list[tuple[int, int, str]]
    """(file position, place among that file's notes, note)"""
    notes_total: int
    schemas: dict[int, tuple[int, ManifestEntry]] = field(default_factory=dict)

    def combine(self, other: ExplainPartial, max_notes: int) -> ExplainPartial:
        """Both partials' sums and notes (the first ``max_notes``), and the first entry per schema id."""
        schemas = dict(self.schemas)
        for sid, (pos, e) in other.schemas.items():
            if sid not in schemas or pos < schemas[sid][0]:
                schemas[sid] = (pos, e)
        return ExplainPartial(add_summaries(self.summary, other.summary),
                              sorted(self.notes + other.notes)[:max_notes],
                              self.notes_total + other.notes_total, schemas)


@dataclass(frozen=True)
class ExplainWork:
    """The explain of a batch: every predicate explained by the single-process
    :func:`~paimon_lens.pruning.explain.explain` on the batch's reader."""

    predicates: tuple[Predicate, ...]
    truth: bool
    index_enabled: bool
    rules: Any
    positions: bool
    max_positions: int | None
    max_notes: int

    def run(self, reader: SnapshotReader, positions: dict[str, int], out: list[Any]) -> Iterator[tuple[Any, ...]]:
        """The rows of the batch's files (prefixed by the predicate's index when there are several);
        appends the batch's partials (one per predicate) to ``out``."""
        names = [n for n, _ in explain_fields(self.truth)]
        several = len(self.predicates) > 1
        schemas: dict[int, tuple[int, ManifestEntry]] = {}
        for lf in reader.live_files():
            pos = positions[lf.entry.file.file_name]
            sid = lf.entry.file.schema_id
            if sid not in schemas or pos < schemas[sid][0]:
                schemas[sid] = (pos, lf.entry)
        partials = []
        for k, predicate in enumerate(self.predicates):
            report = explain(reader, predicate, truth=self.truth, index_enabled=self.index_enabled,
                              rules=self.rules)
            for v in report.files:
                row = record_row(report.file_record(v, self.positions, self.max_positions), names)
                yield (k, *row) if several else row
            file_notes = [(positions[name], i, n) for i, n in enumerate(report.notes)
                          if (name := note_file(n)) is not None and name in positions]
            partials.append(ExplainPartial(report.summary(), sorted(file_notes)[: self.max_notes],
                                           len(file_notes), schemas))
        out.append(partials)

    def combine(self, a: list[ExplainPartial], b: list[ExplainPartial]) -> list[ExplainPartial]:
        """Partials of the same predicates combined."""
        return [x.combine(y, self.max_notes) for x, y in zip(a, b)]


class SparkExplainReport:
    """One predicate explained on Spark: the exact summary and funnel, the notes, and the per-file
    records as a Spark DataFrame (or Parquet files), never collected unless asked.

    Attributes:
        table: the table explained (its reader in the driver).
        where: the predicate's SQL text.
        predicate: the bound predicate.
        truth: the ground truth was computed (``matching_*`` columns).
        snapshot_id: the snapshot explained.
        rules: the Paimon release's rules the explanation applies.
        notes: notes about the table (schema versions, the modelled release), then the first
            ``max_notes`` notes about files, in live-file order (what :attr:`ExplainReport.notes
            <paimon_lens.pruning.explain.ExplainReport.notes>` starts with).
        notes_omitted: notes about files left out of :attr:`notes` (beyond ``max_notes``).
        parquet_path: where the records were written (``output="parquet:<path>"``), else None.
    """

    def __init__(self, table: SnapshotReader, where: str, predicate: Predicate, summary: dict[str, Any],
                 notes: list[str], notes_omitted: int, truth: bool, rules: Any,
                 files: Any = None, parquet_path: str | None = None, spark: Any = None) -> None:
        self.table = table
        self.where = where
        self.predicate = predicate
        self._summary = summary
        self.notes = notes
        self.notes_omitted = notes_omitted
        self.truth = truth
        self.rules = rules
        self.snapshot_id = table.snapshot_id
        self.parquet_path = parquet_path
        self._files = files
        self._spark = spark

    @property
    def paimon_version(self) -> str:
        """The Paimon release whose pruning rules this explanation applies."""
        return str(self.rules.version)

    @property
    def files(self) -> Any:
        """The per-file records as a Spark DataFrame (columns: ``file_record``'s keys; ``partition``
        as JSON text); read back from :attr:`parquet_path` when they were written there."""
        if self._files is None and self.parquet_path is not None:
            self._files = self._spark.read.parquet(self.parquet_path)
        return self._files

    complete = True
    """Every live file has its verdict (always: every file is planned in the tasks)."""

    def summary(self, complete: bool = True) -> ExplainSummary:
        """Totals, exactly as :meth:`ExplainReport.summary() <paimon_lens.pruning.explain.ExplainReport.summary>`
        computes them (sums of the tasks' summaries; ``complete`` is accepted for the same
        signature: every file is always counted)."""
        return cast(ExplainSummary, json.loads(json.dumps(self._summary)))

    def funnel(self, complete: bool = True) -> list[FunnelRow]:
        """Files, bytes and rows still in play after each stage (the summary's ``funnel``)."""
        return self.summary()["funnel"]

    def records(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The per-file records collected to the driver as ``file_record`` dicts (at most ``limit``;
        in no particular order): for small tables and samples only."""
        df = self.files if limit is None else self.files.limit(limit)
        return [row_record(r.asDict(), self.truth) for r in df.collect()]

    def to_dict(self) -> dict[str, Any]:
        """The ``explain --format json`` document without ``files`` (they are in :attr:`files`), with
        ``notes_omitted`` and, when written, ``files_parquet``."""
        out: dict[str, Any] = {
            "where": self.where, "predicate": str(self.predicate), "table": self.table.path,
            "branch": self.table.branch, "paimon_version": self.paimon_version,
            "snapshot_id": self.snapshot_id, "notes": list(self.notes),
            "note_details": [note_details(n) for n in self.notes], "notes_omitted": self.notes_omitted,
            "summary": self.summary(),
        }
        if self.parquet_path is not None:
            out["files_parquet"] = self.parquet_path
        return out

    def unpersist(self) -> None:
        """Release the persisted records (a DataFrame output)."""
        if self._files is not None and self.parquet_path is None:
            self._files.unpersist()

    def __repr__(self) -> str:
        s = self._summary
        return (f"<SparkExplainReport {self.where!r}: {s['files']} files -> {s['planned_files']} planned -> "
                f"{s['read_files']} read ({s['rows_after_dv']} rows)>")


# ---- file indexes --------------------------------------------------------------------------------

INDEX_BASE_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (name, "long" if name in ("bucket", "row_count", "bytes") else "string") for name in INDEX_FIELDS)
"""An index record's own fields (:data:`~paimon_lens.inventory.file_indexes.INDEX_FIELDS`) and their Spark types."""
SUMMARY_COLUMN = "summary"
"""The raw rows' map of summary cells (text), cast into typed columns in the driver."""


@dataclass
class ColumnFacts:
    """What the tasks saw of one summary column: where it first appeared, the Spark kinds of its
    values and how many rows have a value (not null)."""

    first: tuple[int, int, int]
    kinds: set[str]
    values: int

    def combine(self, other: ColumnFacts) -> ColumnFacts:
        """Both tasks' facts."""
        return ColumnFacts(min(self.first, other.first), self.kinds | other.kinds, self.values + other.values)


@dataclass
class IndexPartial:
    """What one task of ``file_indexes`` sends back: row and error counts, and its summary columns."""

    rows: int
    errors: int
    columns: dict[str, ColumnFacts]

    def combine(self, other: IndexPartial) -> IndexPartial:
        """Both tasks' counts and columns."""
        columns = dict(self.columns)
        for k, v in other.columns.items():
            columns[k] = columns[k].combine(v) if k in columns else v
        return IndexPartial(self.rows + other.rows, self.errors + other.errors, columns)


@dataclass(frozen=True)
class IndexWork:
    """The file indexes of a batch: the single-process
    :func:`~paimon_lens.inventory.file_indexes.file_indexes` of each file, each index a row as
    :func:`~paimon_lens.presentation.index_frames.file_indexes_frame` builds it (its
    :func:`~paimon_lens.inventory.file_indexes.summary_cells`)."""

    index_type: str | None

    def run(self, reader: SnapshotReader, positions: dict[str, int], out: list[Any]) -> Iterator[tuple[Any, ...]]:
        """The rows of the batch's indexes; appends the batch's partial to ``out``."""
        ptypes = {p.name: p.type for p in reader.schema.partition_fields}
        columns: dict[str, ColumnFacts] = {}
        rows = errors = 0
        for lf in reader.live_files():
            f = lf.entry.file
            pos = positions[f.file_name]
            partition = spark_cell({k: to_python(v, ptypes[k]) for k, v in lf.partition.items()}, "string")
            for j, info in enumerate(file_indexes(reader, lf)):
                if self.index_type is not None and info.index_type != self.index_type:
                    continue
                rows += 1
                errors += 1 if info.error else 0
                cells: dict[str, str | None] = {}
                for i, (k, v) in enumerate(summary_cells(info, as_json=False).items()):
                    null = is_null(v)
                    facts = columns.get(k)
                    if facts is None:
                        facts = columns[k] = ColumnFacts((pos, j, i), set(), 0)
                    if not null:
                        facts.kinds.add(spark_kind([v]))
                        facts.values += 1
                    cells[k] = None if null else spark_cell(v, "string")
                error = as_text(info.error)  # a Spark row holds plain text
                yield (partition, lf.entry.bucket, f.file_name, f.row_count, info.column, plain(info.index_type),
                       plain(info.storage), info.index_file, info.bytes, error, cells)
        out.append(IndexPartial(rows, errors, columns))

    def combine(self, a: IndexPartial, b: IndexPartial) -> IndexPartial:
        """Partials combined."""
        return a.combine(b)


def column_kind(facts: ColumnFacts, rows: int) -> str:
    """The Spark type :func:`~paimon_lens.engines.spark.to_spark` gives the local frame's column:
    that of its values (:func:`~paimon_lens.engines.spark.spark_kind`), and ``double`` for integers with
    missing values (pandas holds those as floats)."""
    kinds = facts.kinds
    if not kinds:
        kind = "string"
    elif kinds == {"long", "double"}:
        kind = "double"
    else:
        kind = next(iter(kinds)) if len(kinds) == 1 else "string"
    if kind == "long" and facts.values < rows:
        kind = "double"
    return kind


class SparkFileIndexes:
    """Every index of every live file of a snapshot, decoded in Spark tasks: a DataFrame with the
    columns of :meth:`Table.file_indexes() <paimon_lens.table.Table.file_indexes>` (typed as
    :func:`~paimon_lens.engines.spark.to_spark` types that frame), or Parquet files.

    Attributes:
        rows: rows (indexes) in the frame.
        files_with_errors: rows whose index (or container) could not be decoded (``error`` set).
        columns: the frame's columns, in the local frame's order, with their Spark types.
        parquet_path: where the rows were written (``output="parquet:<path>"``), else None.
    """

    def __init__(self, frame: Any, rows: int, errors: int, columns: list[tuple[str, str]],
                 parquet_path: str | None, raw: Any, spark: Any) -> None:
        self._frame = frame
        self.rows = rows
        self.files_with_errors = errors
        self.columns = columns
        self.parquet_path = parquet_path
        self._raw = raw
        self._spark = spark

    @property
    def frame(self) -> Any:
        """The rows as a Spark DataFrame (read back from :attr:`parquet_path` when written there)."""
        if self._frame is None and self.parquet_path is not None:
            self._frame = self._spark.read.parquet(self.parquet_path)
        return self._frame

    def collect(self) -> list[dict[str, Any]]:
        """Every row as a dict (collected to the driver: small tables only)."""
        return [r.asDict() for r in self.frame.collect()]

    def unpersist(self) -> None:
        """Release the persisted rows (a DataFrame output)."""
        if self._raw is not None:
            self._raw.unpersist()

    def __repr__(self) -> str:
        where = f" -> {self.parquet_path}" if self.parquet_path else ""
        return f"<SparkFileIndexes {self.rows:,} indexes, {self.files_with_errors:,} with errors{where}>"


# ---- the driver ----------------------------------------------------------------------------------

def session_of(engine: Engine, spark: Any = None) -> Any:
    """The Spark session to plan with: ``spark``, else the table's engine's (a Spark engine), else a new one."""
    if spark is not None:
        return spark
    if isinstance(engine, SparkEngine):
        return engine.spark
    return create_session()


def parse_output(output: str) -> str | None:
    """``"dataframe"`` -> None; ``"parquet:<path>"`` -> the path."""
    if output == "dataframe":
        return None
    if output.startswith("parquet:") and len(output) > len("parquet:"):
        return output[len("parquet:"):]
    raise PaimonLensError(f"output {output!r}: use 'dataframe' or 'parquet:<path>'")


def _spark_type(kind: str) -> Any:
    from pyspark.sql import types as T

    simple = {"string": T.StringType(), "long": T.LongType(), "double": T.DoubleType(), "boolean": T.BooleanType()}
    if kind.startswith("array<"):
        return T.ArrayType(simple[kind[6:-1]], True)
    if kind == "map<string,string>":
        return T.MapType(T.StringType(), T.StringType(), True)
    return simple[kind]


def _schema(fields: Sequence[tuple[str, str]]) -> Any:
    from pyspark.sql import types as T

    return T.StructType([T.StructField(n, _spark_type(k), True) for n, k in fields])


def planned_rows(table: SnapshotReader, spark: Any, work: Any, *, batch_files: int = DEFAULT_BATCH_FILES,
                 entries_per_task: int = DEFAULT_ENTRIES_PER_TASK) -> tuple[Any, Any]:
    """The RDD of ``work``'s rows over every live file of ``table``'s snapshot, planned in tasks (see
    the module docs), and the accumulator its tasks fill (``{reduce partition: partial}``, complete
    once an action has consumed every row). The driver reads the manifest list only."""
    sc = spark.sparkContext
    metas = table.manifest_files()
    items: list[tuple[int, str, int | None]] = [(i, m.file_name, m.file_size) for i, m in enumerate(metas)]
    if table.snapshot is not None and table.snapshot.index_manifest:
        items.append((INDEX_MANIFEST, table.snapshot.index_manifest, None))
    parallelism = max(1, int(sc.defaultParallelism))
    entries = sum(m.num_added_files + m.num_deleted_files for m in metas)
    reduce_parts = max(2 * parallelism, math.ceil(entries / max(1, entries_per_task)))
    handle = table.handle()
    acc = sc.accumulator({}, PartialsParam())
    if not items:
        return sc.emptyRDD(), acc
    read = sc.parallelize(items, min(len(items), 4 * parallelism)).flatMap(partial(read_task, handle))
    shuffled = read.repartitionAndSortWithinPartitions(reduce_parts, group_partition)
    rows = shuffled.mapPartitionsWithIndex(partial(plan_task, handle, work, batch_files, acc))
    return rows, acc


def _merged(acc: Any, work: Any) -> Any:
    """The partials of every reduce partition combined in partition order (None: no live file)."""
    value: dict[int, Any] = acc.value
    merged: Any = None
    for pid in sorted(value):
        merged = value[pid] if merged is None else work.combine(merged, value[pid])
    return merged


def _run(action: Callable[[], Any]) -> Any:
    """Run a Spark action; a task's paimon-lens error is raised as :class:`TaskError`."""
    try:
        return action()
    except Exception as e:  # py4j / pyspark wrap the task's error: find ours in the text
        _raise_task_error(e)
        if type(e).__name__ == "AnalysisException":
            raise PaimonLensError(f"Spark refused the output: {str(e).splitlines()[0]}") from None
        raise


def explain_on_spark(table: SnapshotReader, wheres: Sequence[str | Predicate], *, rules: Any, spark: Any,
                     truth: bool = False, index_enabled: bool = True,
                     positions: bool = False, max_positions: int | None = None,
                     output: str = "dataframe", mode: str = "errorifexists",
                     storage_level: str = "MEMORY_AND_DISK", max_notes: int = DEFAULT_MAX_NOTES,
                     batch_files: int = DEFAULT_BATCH_FILES,
                     entries_per_task: int = DEFAULT_ENTRIES_PER_TASK) -> list[SparkExplainReport]:
    """Each predicate explained over every live file of ``table``'s snapshot in Spark tasks (one
    shuffle for all of them); see the module docs.

    Args:
        table: the snapshot's reader (a :class:`paimon_lens.Table`).
        wheres: SQL WHERE texts or bound predicates.
        rules: the Paimon release's rules (:class:`~paimon_lens.pruning.versions.PaimonRules`).
        spark: the ``SparkSession``.
        truth, index_enabled: as for ``explain``.
        positions, max_positions: as for ``ExplainReport.file_record``.
        output: ``"dataframe"`` (the records persisted with ``storage_level``) or
            ``"parquet:<path>"`` (written by the tasks; with several predicates partitioned by
            ``where_index=<i>``).
        mode: the Parquet save mode (``errorifexists``, ``overwrite``, ...).
        max_notes: notes about files kept per predicate (the first in live-file order).
        batch_files, entries_per_task: see :data:`DEFAULT_BATCH_FILES`, :data:`DEFAULT_ENTRIES_PER_TASK`.
    """
    from ..predicate.parser import parse_where

    path = parse_output(output)
    predicates = tuple(parse_where(w, table.schema.fields) if isinstance(w, str) else w for w in wheres)
    texts = [w if isinstance(w, str) else str(w) for w in wheres]
    if not predicates:
        return []
    work = ExplainWork(predicates, truth, index_enabled, rules, positions, max_positions, max_notes)
    rows, acc = planned_rows(table, spark, work, batch_files=batch_files, entries_per_task=entries_per_task)
    several = len(predicates) > 1
    fields = ([(WHERE_INDEX, "long")] if several else []) + explain_fields(truth)
    df = spark.createDataFrame(rows, _schema(fields), verifySchema=False)
    if path is not None:
        writer = df.write.mode(mode)
        if several:
            writer = writer.partitionBy(WHERE_INDEX)
        _run(lambda: writer.parquet(path))
    else:
        from pyspark import StorageLevel

        df = df.persist(getattr(StorageLevel, storage_level))
        _run(df.count)
    merged: list[ExplainPartial] | None = _merged(acc, work)
    empty = table.restricted([], [])
    reports = []
    for k, (predicate, text) in enumerate(zip(predicates, texts)):
        zero = explain(empty, predicate, truth=truth, index_enabled=index_enabled, rules=rules).summary()
        got = merged[k] if merged is not None else ExplainPartial(zero, [], 0)
        summary = add_summaries(zero, got.summary)
        notes = table_notes(table, predicate, index_enabled, rules, got.schemas)
        notes += [n for _, _, n in got.notes]
        files = None
        if path is None:
            files = df.where(df[WHERE_INDEX] == k).drop(WHERE_INDEX) if several else df
        out_path = None if path is None else (f"{path.rstrip('/')}/{WHERE_INDEX}={k}" if several else path)
        reports.append(SparkExplainReport(table, text, predicate, summary, notes, got.notes_total - len(got.notes),
                                          truth, rules, files, out_path, spark))
    return reports


def table_notes(table: SnapshotReader, predicate: Predicate, index_enabled: bool,
                rules: Any, schemas: dict[int, tuple[int, ManifestEntry]]) -> list[str]:
    """The notes about the table rather than one file (schema versions, the modelled release): those
    ``explain`` gives for one live file of each schema id the snapshot's files have."""
    entries = [e for _, e in sorted(schemas.values(), key=lambda p: p[0])]
    sample = table.restricted(entries, [])
    names = {e.file.file_name for e in entries}
    report = explain(sample, predicate, truth=False, index_enabled=index_enabled, rules=rules)
    return [n for n in report.notes if note_file(n) not in names]


def file_indexes_on_spark(table: SnapshotReader, *, spark: Any, index_type: str | None = None,
                          output: str = "dataframe", mode: str = "errorifexists",
                          storage_level: str | None = None, batch_files: int = DEFAULT_BATCH_FILES,
                          entries_per_task: int = DEFAULT_ENTRIES_PER_TASK) -> SparkFileIndexes:
    """Every index of every live file decoded in Spark tasks (see the module docs): the rows of the
    local ``file_indexes(index_type)`` frame as a DataFrame or Parquet files.

    The tasks emit each summary value as text with its kind; once every task has run, the driver
    casts each summary column to the type ``to_spark`` gives the local frame's column, so the rows
    are persisted (``storage_level``; default ``MEMORY_AND_DISK`` for a DataFrame, ``DISK_ONLY``
    for Parquet output, where they are an intermediate) before they are typed (and written).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    path = parse_output(output)
    work = IndexWork(index_type)
    rows, acc = planned_rows(table, spark, work, batch_files=batch_files, entries_per_task=entries_per_task)
    raw = spark.createDataFrame(rows, _schema([*INDEX_BASE_FIELDS, (SUMMARY_COLUMN, "map<string,string>")]),
                                verifySchema=False)
    level = storage_level or ("MEMORY_AND_DISK" if path is None else "DISK_ONLY")
    raw = raw.persist(getattr(StorageLevel, level))
    _run(raw.count)
    merged: IndexPartial = _merged(acc, work) or IndexPartial(0, 0, {})
    ordered = sorted(merged.columns.items(), key=lambda kv: kv[1].first)
    if index_type is not None:  # as the local frame: summary columns without a value are dropped
        ordered = [(k, f) for k, f in ordered if f.values]
    extra = [(k, column_kind(f, merged.rows)) for k, f in ordered]
    summary = F.col(SUMMARY_COLUMN)
    frame = raw.select(*[n for n, _ in INDEX_BASE_FIELDS],
                       *[summary.getItem(k).cast(_spark_type(kind)).alias(k) for k, kind in extra])
    columns = [*INDEX_BASE_FIELDS, *extra]
    if path is not None:
        _run(lambda: frame.write.mode(mode).parquet(path))
        raw.unpersist()
        return SparkFileIndexes(None, merged.rows, merged.errors, columns, path, None, spark)
    return SparkFileIndexes(frame, merged.rows, merged.errors, columns, None, raw, spark)


__all__ = [
    "DEFAULT_BATCH_FILES", "DEFAULT_ENTRIES_PER_TASK", "DEFAULT_MAX_NOTES", "SparkExplainReport",
    "SparkFileIndexes", "explain_on_spark", "file_indexes_on_spark", "merge_positioned",
]
