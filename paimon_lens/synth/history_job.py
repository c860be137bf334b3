"""``synth_history``: a long table history whose appended data files are written by Spark tasks.

>>> from paimon_lens.synth import synth_history
>>> h = synth_history("/tmp/orders_history", commits=1000, files_per_commit=10)   # doctest: +SKIP
>>> h["latest"], h["live_files"], h["schema_ids"]                                 # doctest: +SKIP

:func:`paimon_lens.synth.history.write_history` tells a short story in process; this module
writes the same kinds of steps at scale. The table is the ``orders`` table of
:mod:`paimon_lens.synth.spec` (``order_id BIGINT, customer_id INT, status, country, quantity,
amount, price, created_at, note, dt``), an append table (bucket-unaware) partitioned by ``dt``
with ``deletion-vectors.enabled``. Its snapshots ``1 .. commits``, one commit each::

    APPEND     ``files_per_commit`` small files of a streaming writer: the stream crosses the
               ``partitions`` days in order over the history (``dt`` = the current day), 80 % of
               the files go to the current day, the others arrive late (one or two days back)
    COMPACT    every ``compact_every``-th snapshot: one partition (the closed day holding the
               most live files, else the current one) is rewritten into one file
    COMPACT    once, at ``full_compaction_at`` of the history: every partition (``min_files=1``),
               file indexes rebuilt on everything, deletion vectors gone
    OVERWRITE  every ``delete_every``-th snapshot (when > 0): a few rows of one or two files
               appended in the last ``5 * delete_every`` snapshots (and not compacted since)
               deleted by deletion vectors

and, between commits: ``alter`` adds a bitmap index on ``status, country`` and a bloom filter
on ``customer_id`` after ``index_at`` of the snapshots (schema 1: later files carry the
indexes, earlier ones not until a compaction rewrites them), ``alter`` adds the column
``channel STRING`` after ``column_at`` (schema 2); a tag ``checkpoint-<k>`` every tenth of the
snapshots (the last one included). A compaction slot with nothing to compact (no partition with
two files) deletes if it is a delete slot too, else appends, and a delete slot with nothing to
delete appends, so there are always exactly ``commits`` snapshots.

How it runs::

    driver   plan every step (pure, from the seed): which files, rows, keys, times, names
    for each schema era (the snapshots between two alters):
      driver   alter (schema-<n>): the writer's FileSpec now has the era's indexes and columns
      tasks    sc.parallelize(era's files).map(write_history_file): rows -> parquet + index -> entry
      driver   commits in order: APPEND from the tasks' manifest entries
               (``TableWriter._commit_snapshot``), compactions and deletes with
               ``TableWriter.compact/delete``, tags

The steps, the appended files (names, rows, contents) and therefore every snapshot's shape are
the same for the same arguments and seed, on either engine; what differs between runs is the
names of the files a compaction or a delete writes, UUIDs of manifests, and times.
``engine="local"`` runs the same task function in process (no pyspark).
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..metadata.binary_row import encode_binary_row
from ..writer.data_file import write_data_file
from .data import generate
from .history import ADDED_COLUMN, CHANNELS
from .job import Engine, remove_unfinished, spark_session
from .plan import DAY_MS, EPOCH, FIRST_DAY, FilePlan, day, key_span
from .spec import PARTITION_COLUMN, SynthSpec
from .task import FileResult, TaskContext

APPEND, COMPACT, FULL_COMPACT, DELETE = "APPEND", "COMPACT", "FULL_COMPACT", "DELETE"
#: the options ``alter`` sets at ``index_at`` (the bloom filter's ``items`` is added from the file size)
INDEX_OPTIONS = {"file-index.bitmap.columns": "status,country", "file-index.bloom-filter.columns": "customer_id"}
#: how late an appended file arrives, in days, and how often
LATENESS = ((0, 80), (1, 15), (2, 5))
#: deletes pick among the files of the last this many appends that are still live
DELETE_RECENT_APPENDS = 5
TAGS = 10


@dataclass(frozen=True)
class HistoryStep:
    """One commit of the history."""

    snapshot: int
    kind: str  # APPEND, COMPACT (one partition), FULL_COMPACT or DELETE
    era: int  # how many alters precede it
    files: tuple[FilePlan, ...] = ()  # APPEND: the data files, in manifest order
    partition: str | None = None  # COMPACT: the dt compacted
    deletes: tuple[tuple[str, tuple[int, ...]], ...] = ()  # DELETE: (data file name, row positions)


@dataclass(frozen=True)
class HistoryPlan:
    """Every step of a history, decided before anything is written."""

    steps: tuple[HistoryStep, ...]
    alters: tuple[tuple[int, str], ...]  # (after snapshot, "index" | "column"), in order
    tags: tuple[tuple[str, int], ...]  # (tag name, snapshot id)
    days: tuple[str, ...]
    bloom_items: int

    def era_files(self, era: int) -> list[FilePlan]:
        """The data files the APPEND commits of schema era ``era`` write."""
        return [f for s in self.steps if s.era == era for f in s.files]


@dataclass
class _State:
    """What the planner knows of the table after each step."""

    live: dict[int, int] = field(default_factory=dict)  # partition -> live data files
    appended: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # live appended file ->
    # (partition, rows, snapshot)
    deleted: dict[str, set[int]] = field(default_factory=dict)  # file -> deleted positions


def _fraction(name: str, value: float | None) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie between 0 and 1 (a share of the commits), or be None: got {value}")


def plan_history(*, commits: int, files_per_commit: int, rows_per_file: int, partitions: int, compact_every: int,
                 delete_every: int, index_at: float | None, column_at: float | None,
                 full_compaction_at: float | None, seed: int) -> HistoryPlan:
    """Plan the history of :func:`synth_history` (pure: the same arguments give the same plan).

    Raises:
        ValueError: arguments out of range.
    """
    if commits < 1:
        raise ValueError("commits must be at least 1")
    if files_per_commit < 1:
        raise ValueError("files_per_commit must be at least 1")
    if rows_per_file < 2:
        raise ValueError("rows_per_file must be at least 2 (a delete keeps a row of every file)")
    if partitions < 1:
        raise ValueError("partitions must be at least 1: the table is partitioned by dt")
    if compact_every < 0 or delete_every < 0:
        raise ValueError("compact_every and delete_every must be >= 0 (0: never)")
    for name, value in (("index_at", index_at), ("column_at", column_at), ("full_compaction_at", full_compaction_at)):
        _fraction(name, value)
    rng = random.Random(seed)
    names = random.Random(seed ^ 0x4E414D45)
    seeds = random.Random(seed ^ 0x5EED)
    alters = sorted((round(at * commits), what) for what, at in (("index", index_at), ("column", column_at))
                    if at is not None)
    full_at = None if full_compaction_at is None or commits < 2 else \
        min(commits, max(2, round(full_compaction_at * commits)))
    day0 = (FIRST_DAY - EPOCH).days * DAY_MS
    width = max(1, min(DAY_MS, partitions * DAY_MS // commits))  # the time one commit spans
    lateness, weights = zip(*LATENESS)
    state = _State()
    steps: list[HistoryStep] = []
    file_index = 0
    key = 1_000_000
    for sid in range(1, commits + 1):
        era = sum(1 for after, _ in alters if after < sid)
        current = (sid - 1) * partitions // commits
        step: HistoryStep | None = None
        if sid == full_at and state.live:
            step = HistoryStep(sid, FULL_COMPACT, era)
            state.live = dict.fromkeys(state.live, 1)
            state.appended.clear()
        elif compact_every and sid % compact_every == 0:
            p = _compaction_partition(state, current)
            if p is not None:
                step = HistoryStep(sid, COMPACT, era, partition=day(p))
                state.live[p] = 1
                for name in [n for n, v in state.appended.items() if v[0] == p]:
                    del state.appended[name]
        if step is None and delete_every and sid % delete_every == 0:
            deletes = _pick_deletes(state, rng, sid - DELETE_RECENT_APPENDS * max(1, delete_every))
            if deletes:
                step = HistoryStep(sid, DELETE, era, deletes=deletes)
        if step is None:
            files: list[tuple[int, int]] = []  # (partition, position in the commit)
            for k in range(files_per_commit):
                late = rng.choices(lateness, weights)[0]
                files.append((max(0, current - late), k))
            files.sort()
            plans: list[FilePlan] = []
            sequence: dict[int, int] = {}
            for p, _ in files:
                rows = rng.randint(max(2, rows_per_file // 2), max(2, rows_per_file * 3 // 2))
                span = key_span(rows, 1)
                offset = ((sid - 1) * partitions - p * commits) * DAY_MS // commits
                start = day0 + p * DAY_MS + max(0, min(offset, DAY_MS - width))
                seq = sequence.get(p, 0)  # bucket-unaware: every commit's writer counts from 0
                sequence[p] = seq + rows
                name = f"data-{uuid.UUID(int=names.getrandbits(128), version=4)}-0.parquet"
                plans.append(FilePlan(index=file_index, partition=(day(p),), bucket=0, file_name=name, rows=rows,
                                      key_start=key, key_span=span, time_start_ms=start, time_end_ms=start + width,
                                      sequence_start=seq, seed=seeds.getrandbits(63)))
                file_index += 1
                key += span
                state.live[p] = state.live.get(p, 0) + 1
                state.appended[name] = (p, rows, sid)
            step = HistoryStep(sid, APPEND, era, files=tuple(plans))
        steps.append(step)
    tags: dict[int, str] = {}
    for k in range(1, TAGS + 1):
        tags.setdefault(min(commits, max(1, round(k * commits / TAGS))), f"checkpoint-{len(tags) + 1}")
    return HistoryPlan(tuple(steps), tuple(alters), tuple((n, s) for s, n in sorted(tags.items())),
                       tuple(day(p) for p in range(partitions)), max(2, rows_per_file * 3 // 2))


def _compaction_partition(state: _State, current: int) -> int | None:
    """The closed day (before ``current``) with the most live files (at least 2; the oldest on
    ties), else the current day if it has 2, else None."""
    closed = [(n, -p) for p, n in state.live.items() if n >= 2 and p < current]
    if closed:
        return -max(closed)[1]
    return current if state.live.get(current, 0) >= 2 else None


def _pick_deletes(state: _State, rng: random.Random, since: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """A few rows of one or two live files appended since snapshot ``since`` (at least one row of
    every file kept)."""
    candidates = [n for n, (_, rows, sid) in state.appended.items()
                  if sid >= since and rows - len(state.deleted.get(n, ())) >= 2]
    if not candidates:
        return ()
    out = []
    for name in sorted(rng.sample(candidates, min(len(candidates), rng.randint(1, 2)))):
        rows = state.appended[name][1]
        gone = state.deleted.setdefault(name, set())
        free = [i for i in range(rows) if i not in gone]
        k = min(rng.randint(1, max(1, rows // 40)), len(free) - 1)
        positions = tuple(sorted(rng.sample(free, k)))
        gone.update(positions)
        out.append((name, positions))
    return tuple(out)


# ---- the task -----------------------------------------------------------------------------------
def write_history_file(ctx: TaskContext, plan: FilePlan) -> FileResult:
    """Generate and write one appended data file of the history with the era's FileSpec (runs in a
    Spark task): the ``orders`` rows of :func:`paimon_lens.synth.data.generate`, plus the columns
    added since (``channel``: drawn from the plan's seed; any other: null)."""
    import numpy as np
    import pyarrow as pa

    data = generate(plan, ctx.spec)
    table, values = data.table, dict(data.values)
    for f in ctx.file_spec.fields:
        if f.name in values:
            continue
        if f.name == ADDED_COLUMN:
            rng = np.random.default_rng(plan.seed ^ 0xC4A77E1)
            picks = rng.choice(len(CHANNELS), plan.rows, p=[0.5, 0.35, 0.1, 0.05])
            column: list[Any] = [CHANNELS[i] for i in picks]
        else:
            column = [None] * plan.rows
        values[f.name] = column
        table = table.append_column(f.name, pa.array(column, pa.string() if f.name == ADDED_COLUMN else pa.null()))
    rel_dir = ctx.directory(plan)
    partition = encode_binary_row(list(plan.partition), [f.type for f in ctx.partition_fields])
    entry = write_data_file(ctx.file_spec, Path(ctx.root) / rel_dir, plan.file_name, table, values,
                            range(plan.sequence_start, plan.sequence_start + plan.rows), partition, plan.bucket, -1)
    return FileResult(plan, f"{rel_dir}/{plan.file_name}", entry, ())


def _spark_runner(session: Any) -> Callable[[TaskContext, Sequence[FilePlan]], list[FileResult]]:
    def run(ctx: TaskContext, plans: Sequence[FilePlan]) -> list[FileResult]:
        sc = session.sparkContext
        slices = max(1, min(len(plans), sc.defaultParallelism * 4))
        results: list[FileResult] = sc.parallelize(list(plans), slices).map(
            partial(write_history_file, ctx)).collect()
        return results
    return run


def _local_run(ctx: TaskContext, plans: Sequence[FilePlan]) -> list[FileResult]:
    return [write_history_file(ctx, p) for p in plans]


# ---- the driver ---------------------------------------------------------------------------------
def synth_history(path: str | os.PathLike[str], *, commits: int = 200, files_per_commit: int = 10,
                  rows_per_file: int = 200, partitions: int = 20, compact_every: int = 50, delete_every: int = 0,
                  index_at: float | None = 0.3, column_at: float | None = 0.6,
                  full_compaction_at: float | None = 0.9, seed: int = 0, engine: Engine = "spark",
                  spark: Any = None, options: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Write the long history of the module docstring into the new table directory ``path``.

    Args:
        path: a new (or empty) directory every Spark executor can write (local mode, or shared).
        commits: snapshots to commit (every step is one commit).
        files_per_commit: data files of each APPEND.
        rows_per_file: mean rows of an appended file (each holds 0.5x to 1.5x, at least 2).
        partitions: ``dt`` days the stream crosses over the history.
        compact_every: every n-th snapshot compacts one partition (0: never).
        delete_every: every n-th snapshot deletes a few rows by deletion vectors (0: never).
        index_at: the bitmap and bloom-filter indexes are added after this share of the snapshots
            (0: before the first commit; None: never).
        column_at: the column ``channel`` is added after this share of the snapshots (None: never).
        full_compaction_at: the full compaction takes the snapshot at this share (None: none; it
            leaves one file per partition, so a table meant to keep many live files skips it).
        seed: steps, rows and appended file names follow from it.
        engine: ``"spark"`` (data files written by Spark tasks) or ``"local"`` (in process).
        spark: a SparkSession (``engine="spark"``); None: the active one or a local one.
        options: further options of ``schema-0`` (``file-index.in-manifest-threshold``,
            ``manifest.merge-min-count`` ...; not the bucket nor deletion vectors).

    Returns:
        ``{"path", "engine", "seed", "commits", "latest", "seconds", "task_seconds", "days",
        "appends": [ids], "compactions": [ids], "compaction_partitions": {id: dt},
        "full_compaction": id or None, "deletes": [ids], "index_schema", "index_added": the
        first snapshot written with the indexes, "column_schema", "added_column", "column_added",
        "schema_ids": [0, ...], "tags": {name: id}, "files_written", "rows", "deleted_rows",
        "live_rows", "live_files", "indexed_live_files", "dv_live_files", "files_per_snapshot":
        [live data files after each snapshot]}`` (the ``index_*``/``column_*`` keys are None
        when that change is not made or no append follows it). Everything but ``path``,
        ``engine`` and the times is the same for the same arguments.

    Raises:
        ValueError: arguments out of range; FileExistsError: ``path`` is not an empty directory.
    """
    import pyarrow as pa

    from ..writer import TableWriter
    from ..writer.history_commits import live_index_records, live_records

    if engine not in ("spark", "local"):
        raise ValueError(f"engine must be 'spark' or 'local', not {engine!r}")
    plan = plan_history(commits=commits, files_per_commit=files_per_commit, rows_per_file=rows_per_file,
                        partitions=partitions, compact_every=compact_every, delete_every=delete_every,
                        index_at=index_at, column_at=column_at, full_compaction_at=full_compaction_at, seed=seed)
    table_options = {str(k): str(v) for k, v in (options or {}).items()}
    fixed = sorted(k for k in table_options if k in ("bucket", "bucket-key", "deletion-vectors.enabled"))
    if fixed:
        raise ValueError(f"option(s) {fixed} are set by synth_history (a bucket-unaware table with deletion vectors)")
    spec = SynthSpec.make(rows=rows_per_file, files=1, partitions=partitions, indexes="none", seed=seed)
    root = Path(path).absolute()
    started = time.perf_counter()
    created = not root.exists()
    writer = TableWriter.create(root, spec.arrow_schema(), partition_keys=[PARTITION_COLUMN],
                                options={**table_options, "deletion-vectors.enabled": "true"})
    out: dict[str, Any] = {
        "path": str(root), "engine": engine, "seed": seed, "commits": commits, "days": list(plan.days),
        "appends": [], "compactions": [], "compaction_partitions": {}, "full_compaction": None, "deletes": [],
        "index_schema": None, "index_added": None, "column_schema": None, "added_column": None,
        "column_added": None, "tags": {}, "files_written": 0, "rows": 0, "deleted_rows": 0,
        "files_per_snapshot": [],
    }
    task_seconds = 0.0
    pending = list(plan.alters)

    def alter_until(sid: int) -> None:
        """Make the alters that precede snapshot ``sid``."""
        while pending and pending[0][0] < sid:
            _, what = pending.pop(0)
            if what == "index":
                out["index_schema"] = writer.alter(set_options={
                    **INDEX_OPTIONS, "file-index.bloom-filter.customer_id.items": str(plan.bloom_items)})
            else:
                out["column_schema"] = writer.alter(add_columns=pa.schema([(ADDED_COLUMN, pa.string())]))
                out["added_column"] = ADDED_COLUMN

    try:
        with contextlib.ExitStack() as stack:
            if engine == "spark":
                run = _spark_runner(stack.enter_context(spark_session(spark)))
            else:
                run = _local_run
            live_files = 0
            tags = {sid: name for name, sid in plan.tags}
            for era in sorted({s.era for s in plan.steps}):
                steps = [s for s in plan.steps if s.era == era]
                alter_until(steps[0].snapshot)
                ctx = TaskContext(str(root), spec, writer.file_spec)
                t0 = time.perf_counter()
                files = plan.era_files(era)
                entries = {r.plan.file_name: r.entry for r in (run(ctx, files) if files else ())}
                task_seconds += time.perf_counter() - t0
                for step in steps:
                    sid, live_files = _commit(writer, step, entries, live_files, out)
                    if sid != step.snapshot:
                        raise RuntimeError(f"step {step.kind} committed snapshot {sid}, planned {step.snapshot}")
                    out["files_per_snapshot"].append(live_files)
                    if sid in tags:
                        writer.tag(tags[sid], sid)
                        out["tags"][tags[sid]] = sid
            alter_until(commits + 1)
    except BaseException:
        remove_unfinished(root, created)
        raise
    latest = writer._latest_snapshot()
    assert latest is not None
    live = live_records(writer, latest)
    names = {r["_FILE"]["_FILE_NAME"] for r in live}
    with_dv = {r["f0"] for rec in live_index_records(writer, latest) if rec["_INDEX_TYPE"] == "DELETION_VECTORS"
               for r in rec.get("_DELETIONS_VECTORS_RANGES") or () if r is not None and r["f0"] in names}
    out.update({
        "latest": int(latest["id"]), "schema_ids": list(range(writer.schema.id + 1)),
        "live_rows": out["rows"] - out["deleted_rows"], "live_files": len(live),
        "indexed_live_files": sum(1 for r in live if r["_FILE"]["_EMBEDDED_FILE_INDEX"] is not None
                                  or r["_FILE"]["_EXTRA_FILES"]),
        "dv_live_files": len(with_dv),
        "seconds": time.perf_counter() - started, "task_seconds": task_seconds,
    })
    return out


def _commit(writer: Any, step: HistoryStep, entries: dict[str, dict[str, Any]], live_files: int,
            out: dict[str, Any]) -> tuple[int | None, int]:
    """Commit one step; its snapshot id and the live data files after it."""
    if step.kind == APPEND:
        sid = writer._commit_snapshot(writer._latest_snapshot(), "APPEND", [entries[f.file_name] for f in step.files])
        out["appends"].append(sid)
        out["files_written"] += len(step.files)
        out["rows"] += sum(f.rows for f in step.files)
        if out["index_schema"] is not None and out["index_added"] is None:
            out["index_added"] = sid
        if out["column_schema"] is not None and out["column_added"] is None:
            out["column_added"] = sid
        return sid, live_files + len(step.files)
    if step.kind == DELETE:
        sid = writer.delete({name: positions for name, positions in step.deletes})
        out["deletes"].append(sid)
        out["deleted_rows"] += sum(len(p) for _, p in step.deletes)
        return sid, live_files
    if step.kind == COMPACT:
        sid = writer.compact({PARTITION_COLUMN: step.partition})
        out["compactions"].append(sid)
        out["compaction_partitions"][sid] = step.partition
    else:
        sid = writer.compact(min_files=1)
        out["full_compaction"] = sid
    snap = writer._latest_snapshot()
    if sid is None or snap is None:
        return sid, live_files
    return sid, _count_delta(writer, snap, live_files)


def _count_delta(writer: Any, snapshot: dict[str, Any], live_files: int) -> int:
    """The live file count after ``snapshot``, from the previous count and its delta manifest."""
    from ..io.fileio import LocalFileIO
    from ..metadata.meta_file import read_meta_file

    manifest_dir = writer.path / "manifest"
    records, _ = read_meta_file(LocalFileIO(), str(manifest_dir / snapshot["deltaManifestList"]), "manifest list")
    for meta in records:
        live_files += meta["_NUM_ADDED_FILES"] - meta["_NUM_DELETED_FILES"]
    return live_files
