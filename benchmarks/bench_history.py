"""Benchmark: a table's timeline costs what its commits changed, not snapshots x files.

Run from the repository root::

    python -m benchmarks.bench_history            # 1,000 snapshots, ~10,000 live files; writes its RESULTS.md
                                                  # section and results_history.md
    python -m benchmarks.bench_history --quick    # 60 snapshots, ~600 files; prints only (the smoke test)
    python -m benchmarks.bench_history --engine spark [--spark-master URL] [--rebuild]
                                                  # the table built by synth_history's Spark tasks

The table (built once with paimon-lens' writer and cached under ``<tmp>/paimon-lens-bench/``) is
an append table partitioned by ``dt`` (200 days) with a bitmap index on ``status`` and a
bloom-filter on ``id``: 98 % of its commits append one small file to each of 11 partitions, the
others compact one partition (its files merged into one). Measured, each in a fresh table
object:

* ``history()`` over all snapshots: total time and time per snapshot;
* ``history(end=N)`` for the first quarter, half and all of the snapshots: with a cost that grows
  with the commits the time grows as the snapshots (ratio ~4 from a quarter to all), while reading
  every snapshot whole grows as snapshots x live files (ratio ~16 here);
* reading snapshots whole (live entries and every index head, what a timeline without delta
  manifests does) at 10 snapshots spread over the history, extrapolated to all of them.

``--engine spark`` builds a table of the same shape with
:func:`paimon_lens.synth.history_job.synth_history` instead (the data files of the appends
written by Spark tasks, the driver committing the snapshots in order): the ``orders`` columns of
the synthetic tables, 200 ``dt`` days crossed by a stream of 11 files of ~20 rows per append, a
compaction of one closed day every 50th snapshot, the bitmap (``status, country``) and bloom
(``customer_id``) indexes from the first snapshot, every index in a ``.index`` file; ~9,500 live
files at the end. It prints the build time (and the part spent in the tasks) and is cached
apart (``history-<n>-synth``); ``--engine local`` runs the same build in process, ``--rebuild``
builds again, ``--spark-master URL`` runs the tasks on a cluster, where the table directory
(``$TMPDIR/paimon-lens-bench/``) must be a shared filesystem mounted at the same path on every
executor.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import records as rec

RESULTS = Path(__file__).resolve().parent / "results_history.md"
PARTITIONS = 200
FILES_PER_APPEND = 11
COMPACT_EVERY = 50
TARGET_RATIO = 6.0
"""Target: history over all snapshots costs at most this many times the first quarter's (linear: 4;
snapshots x files: ~16)."""
SUMMARY = ("Time of `history()` over a 1,000-snapshot append table with ~10,000 live files, how it grows from the "
           "first quarter of the snapshots to all of them, and reading every snapshot whole for comparison.")


@dataclass(frozen=True)
class HistoryResult:
    """The numbers a full run records (seconds unless named otherwise)."""

    snapshots: int
    live_files: int
    total_s: float
    per_snapshot_ms: float
    quarter_s: float  # history() over the first quarter of the snapshots
    all_s: float  # history() over all of them
    ratio: float  # all_s / quarter_s
    snapshots_ratio: float  # all / first quarter, in snapshots
    files_ratio: float  # all / first quarter, in snapshots x live files
    whole_all_s: float


def records(r: HistoryResult) -> list[rec.Record]:
    """The RESULTS.md rows: the scaling target, the timeline's time, reading whole for comparison."""
    target = (f"the timeline's cost grows with the commits, not with snapshots x files: all snapshots vs the first "
              f"quarter <= {TARGET_RATIO:g}x (linear in snapshots: {r.snapshots_ratio:.0f}x; snapshots x live "
              f"files: {r.files_ratio:.1f}x)")
    return [
        rec.Record(target, f"{r.quarter_s:.2f} s -> {r.all_s:.2f} s", r.ratio, rec.verdict(r.ratio <= TARGET_RATIO)),
        rec.Record(f"`history()` on {r.snapshots:,} snapshots, {r.live_files:,} live files",
                   f"{r.total_s:.2f} s, {r.per_snapshot_ms:.2f} ms per snapshot"),
        rec.Record("reading every snapshot whole instead (extrapolated from 10)", f"{r.whole_all_s:.1f} s",
                   f"{r.whole_all_s / r.total_s:.0f}x the timeline"),
    ]


def write_results(command: str, commit: str, result: HistoryResult, output: Sequence[str],
                  machine: rec.MachineFacts | str | None = None, date: str | None = None) -> None:
    """The benchmark's RESULTS.md section and results_history.md (the run's RESULT lines)."""
    rec.update_results("bench_history", command, records(result), summary=SUMMARY, machine=machine, commit=commit,
                       date=date, details=RESULTS.name)
    body = "\n".join([f"Output of `{command}` at commit `{commit}`:", "", "```text", *output, "```"])
    rec.write_details(RESULTS, body, "Table history: cost per snapshot")


def build(path: Path, snapshots: int) -> dict[str, Any]:
    """The benchmark table (deterministic rows; file names differ between builds)."""
    import pyarrow as pa

    from paimon_lens.writer.table_writer import TableWriter

    schema = pa.schema([("id", pa.int64()), ("status", pa.string()), ("score", pa.int32()), ("dt", pa.string())])
    writer = TableWriter.create(path, schema, partition_keys=["dt"], options={
        "file-index.bitmap.columns": "status", "file-index.bloom-filter.columns": "id",
        "file-index.in-manifest-threshold": "0"})
    days = [f"2025-{1 + d // 28:02d}-{1 + d % 28:02d}" for d in range(PARTITIONS)]
    compactions = 0
    next_id = 0
    for sid in range(1, snapshots + 1):
        if sid % COMPACT_EVERY == 0:
            day = days[(sid // COMPACT_EVERY * 7) % PARTITIONS]
            if writer.compact({"dt": day}) is not None:
                compactions += 1
                continue
        first = (sid * FILES_PER_APPEND) % PARTITIONS
        parts = [days[(first + k) % PARTITIONS] for k in range(FILES_PER_APPEND)]
        rows = 20
        n = rows * FILES_PER_APPEND
        ids = list(range(next_id, next_id + n))
        next_id += n
        status = ["rare" if i % 997 == 0 else ("open", "paid", "sent")[i % 3] for i in ids]
        writer.commit(pa.table({"id": ids, "status": status, "score": [i % 1000 for i in ids],
                                "dt": [parts[i % FILES_PER_APPEND] for i in range(n)]}))
    return {"snapshots": snapshots, "compactions": compactions}


def build_synth(path: Path, snapshots: int, engine: str, master: str | None = None) -> dict[str, Any]:
    """The benchmark table's shape written by ``synth_history`` (``engine`` ``spark`` or ``local``)."""
    from paimon_lens.synth.history_job import synth_history

    spark = None
    if engine == "spark" and master:
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master(master).appName("paimon-lens-bench-history")
                 .config("spark.ui.enabled", "false").getOrCreate())
    try:
        doc = synth_history(path, commits=snapshots, files_per_commit=FILES_PER_APPEND, rows_per_file=20,
                            partitions=PARTITIONS, compact_every=COMPACT_EVERY, delete_every=0, index_at=0.0,
                            column_at=None, full_compaction_at=None, spark=spark,
                            engine="spark" if engine == "spark" else "local",
                            options={"file-index.in-manifest-threshold": "0"})
    finally:
        if spark is not None:
            spark.stop()
    return {"snapshots": doc["latest"], "compactions": len(doc["compactions"]), "live_files": doc["live_files"],
            "data_files_written": doc["files_written"], "task_s": round(doc["task_seconds"], 1)}


def _table(path: Path) -> Any:
    import paimon_lens as pl

    return pl.open_table(str(path), progress=False)


def measure(path: Path) -> dict[str, Any]:
    """The timings (see the module docs)."""
    from paimon_lens.history.timeline import _Timeline

    table = _table(path)
    ids = table.snapshot_manager.list_ids()
    t0 = time.perf_counter()
    full = table.history()
    total = time.perf_counter() - t0
    scaling = {}
    for share in (4, 2, 1):
        end = ids[len(ids) // share - 1]
        t0 = time.perf_counter()
        _table(path).history(end=end)
        scaling[end] = time.perf_counter() - t0
    live_sum = sum(r.files for r in full)
    changes = sum(r.added_files + r.removed_files + r.upgraded_files for r in full)
    sample = [ids[i * (len(ids) - 1) // 9] for i in range(10)]
    fresh = _table(path)
    t0 = time.perf_counter()
    for sid in sample:
        reader = fresh.at(sid).reader
        _Timeline(reader).read_whole(reader, [])
    whole_each = (time.perf_counter() - t0) / len(sample)
    return {"snapshots": len(ids), "live_files": full.snapshots[-1].files, "total_s": total,
            "per_snapshot_ms": total / len(ids) * 1000, "scaling": scaling, "live_file_sum": live_sum,
            "changes": changes, "whole_each_s": whole_each, "whole_all_s": whole_each * len(ids),
            "problems": full.problems}


def main(argv: list[str] | None = None) -> int:
    """Build (or reuse) the table, measure, print the RESULT lines; write results_history.md at full size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="60 snapshots, prints only")
    parser.add_argument("--snapshots", type=int, default=None)
    parser.add_argument("--engine", choices=("writer", "spark", "local"), default="writer",
                        help="build the table with this module's build() (writer, the default) or with "
                             "synth_history: data files written by Spark tasks (spark) or in process (local)")
    parser.add_argument("--spark-master", default=None, help="Spark master URL for --engine spark (default local[*])")
    parser.add_argument("--rebuild", action="store_true", help="build the table again even when it is cached")
    args = parser.parse_args(argv)
    snapshots = args.snapshots or (60 if args.quick else 1000)
    commit = rec.git_commit()  # before the run: the code the numbers belong to
    synth = args.engine != "writer"
    root = Path(tempfile.gettempdir()) / "paimon-lens-bench" / f"history-{snapshots}{'-synth' if synth else ''}"
    if args.rebuild or not (root / "snapshot" / "LATEST").exists():
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        t0 = time.perf_counter()
        built = build_synth(root, snapshots, args.engine, args.spark_master) if synth else build(root, snapshots)
        how = f" with synth_history on {args.engine}" if synth else ""
        print(f"built {root}{how} in {time.perf_counter() - t0:.1f} s: {built}")
    elif synth:
        print(f"reusing {root} (built before; --rebuild to time the build)")
    m = measure(root)
    ends = sorted(m["scaling"])
    ratio = m["scaling"][ends[-1]] / m["scaling"][ends[0]]
    quarter_live = sum(r.files for r in _table(root).history(end=ends[0]).snapshots)
    files_ratio = m["live_file_sum"] / quarter_live if quarter_live else float("nan")
    lines = [
        f"RESULT history: {m['snapshots']} snapshots, {m['live_files']:,} live files at the end, "
        f"{m['total_s']:.2f} s ({m['per_snapshot_ms']:.2f} ms per snapshot), {m['changes']:,} file changes applied",
        f"RESULT scaling: first {ends[0]} snapshots {m['scaling'][ends[0]]:.2f} s, first {ends[1]} "
        f"{m['scaling'][ends[1]]:.2f} s, all {m['scaling'][ends[-1]]:.2f} s: ratio {ratio:.2f} "
        f"(snapshots ratio {ends[-1] / ends[0]:.1f}, snapshots x live files ratio {files_ratio:.1f})",
        f"RESULT read whole: {m['whole_each_s'] * 1000:.0f} ms per snapshot, {m['whole_all_s']:.1f} s for all "
        f"{m['snapshots']} (the timeline: {m['total_s']:.2f} s, {m['whole_all_s'] / m['total_s']:.0f}x less)",
    ]
    for line in lines:
        print(line)
    if m["problems"]:
        print("PROBLEMS", m["problems"][:5])
    if args.quick or args.snapshots:
        return 0
    result = HistoryResult(m["snapshots"], m["live_files"], m["total_s"], m["per_snapshot_ms"], m["scaling"][ends[0]],
                           m["scaling"][ends[-1]], ratio, ends[-1] / ends[0], files_ratio, m["whole_all_s"])
    write_results(rec.command_line("bench_history", argv), commit, result, lines)
    print(f"wrote {rec.RESULTS} and {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
