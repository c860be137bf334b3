"""Benchmark: time to recommend file indexes for a table built for it (issue 6).

Builds (once, cached under ``<tmp>/paimon-lens-bench/``) an append table with
:class:`paimon_lens.writer.TableWriter`: ``--files`` parquet files of ``--rows`` rows with a
shuffled unique ``id`` (point lookups), a 5-value ``status`` (equality), a uniform ``amount``
(ranges), a sequential ``seq`` (files disjoint by min/max) and a ``ts`` timestamp, then times
``paimon_lens.recommend`` on a 10-query workload, whole and with ``max_files`` sampling, in one
process, printing the phases (profile, what-if: build + evaluate, advice) and the advice.

    python -m benchmarks.bench_recommend                 # 50 files x 20,000 rows (1M rows)
    python -m benchmarks.bench_recommend --quick         # 8 files x 2,000 rows
    python -m benchmarks.bench_recommend --files 100 --rows 20000 --max-files 20

A full run rewrites the benchmark's section of ``benchmarks/RESULTS.md`` (:func:`records`) and
``benchmarks/results_recommend.md`` (``--no-write`` to skip both).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import records as rec

WORKLOAD = [
    ("id = 17", 5.0), ("id = 123457", 5.0), ("id = 99999999", 5.0),
    ("status = 'void'", 3.0), ("status IN ('new', 'paid')", 1.0),
    ("amount BETWEEN 1000 AND 1500", 2.0), ("amount > 99000", 2.0),
    ("seq = 30000", 2.0), ("seq BETWEEN 100 AND 300", 2.0),
    ("ts >= TIMESTAMP '2026-01-01 10:00:00' AND status = 'new'", 1.0),
]
SUMMARY = ("Time of `paimon_lens.recommend` phase by phase (profile, what-if build and evaluation, advice) on a "
           "table written by `paimon_lens.writer`, on all files and on a `max_files` sample; ratio: the sample's "
           "time / all files' time.")
Pass = tuple[str, float, dict[str, float], list[str]]
"""One recommend pass: label, load average, phase times (and ``candidates``), advice lines."""


def build_table(root: Path, files: int, rows: int, seed: int = 1) -> Path:
    """The benchmark table (deterministic for a seed)."""
    import numpy as np
    import pyarrow as pa

    from paimon_lens.writer import TableWriter

    rng = np.random.default_rng(seed)
    n = files * rows
    ids = rng.permutation(np.arange(1, n + 1, dtype=np.int64))
    status = np.array(["new", "paid", "shipped", "done", "void"])[rng.integers(0, 5, n)]
    amount = rng.integers(0, 100_000, n, dtype=np.int32)
    seq = np.arange(n, dtype=np.int64)
    start = np.datetime64("2026-01-01T00:00:00", "ms")
    ts = start + rng.integers(0, 86_400_000, n).astype("timedelta64[ms]")
    schema = pa.schema([("id", pa.int64()), ("status", pa.string()), ("amount", pa.int32()), ("seq", pa.int64()),
                        ("ts", pa.timestamp("ms"))])
    w = TableWriter.create(root, schema)
    w.commit(pa.table({"id": ids, "status": status, "amount": amount, "seq": seq, "ts": ts}, schema=schema),
             rows_per_file=rows)
    return root


def cached_table(files: int, rows: int, rebuild: bool) -> tuple[Path, float | None]:
    """The table under the cache directory, built when missing; (path, build seconds or None)."""
    root = Path(tempfile.gettempdir()) / "paimon-lens-bench" / f"recommend-f{files}-r{rows}-s1"
    done = root.with_suffix(".done")
    if rebuild and root.exists():
        shutil.rmtree(root)
        done.unlink(missing_ok=True)
    if done.exists():
        return root, None
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    build_table(root, files, rows)
    done.touch()
    return root, time.perf_counter() - t0


def timed_recommend(path: Path, max_files: int | None) -> tuple[dict[str, float], object]:
    """Run the advisor's phases one by one (as :func:`paimon_lens.advisor.advise.recommend` does), timing each."""
    import paimon_lens
    from paimon_lens.advisor import advise as adv
    from paimon_lens.advisor.candidates import candidate_grid, predicate_kinds
    from paimon_lens.advisor.profile import profile_table
    from paimon_lens.advisor.whatif import measure
    from paimon_lens.predicate.parser import parse_where
    from paimon_lens.workload.model import as_workload

    times: dict[str, float] = {}
    t0 = time.perf_counter()
    table = paimon_lens.open_table(str(path))
    profile = profile_table(table.reader, max_files=max_files)
    times["profile"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    wl = as_workload(WORKLOAD)
    kinds = predicate_kinds([parse_where(q.where, table.schema.fields) for q in wl])
    by_name = {f.name: f for f in table.schema.fields}
    cands = []
    for col in kinds:
        per_file = [fc.distinct_count for fp in profile.files for fc in fp.columns if fc.column == col]
        ranges = "range" in kinds[col]  # the advisor's own filter (see paimon_lens.advisor.advise)
        grid = candidate_grid(col, by_name[col].type, per_file, workload_kinds=kinds[col])
        cands.extend(c for c in grid if c.index_type != "bsi"
                     and (ranges or c.index_type is None or "range-bitmap" not in c.index_type))
    result = measure(table.reader, wl, cands, max_files=max_files)
    times["what-if (build + evaluate)"] = time.perf_counter() - t1
    times["of which building indexes"] = sum(m.build_seconds for m in result.measures)  # measured, not scaled
    t2 = time.perf_counter()
    advice = adv._advise(table.reader, wl, False, profile, result, list(kinds), [], adv.QUERY_RUNS)
    times["advice"] = time.perf_counter() - t2
    times["total"] = time.perf_counter() - t0
    times["candidates"] = float(len(cands))
    return times, advice


def records(files: int, rows: int, passes: Sequence[Pass]) -> list[rec.Record]:
    """The RESULTS.md rows: one per pass (total and phases; the sample against all files)."""
    out = []
    first = passes[0]
    for label, _, times, advice in passes:
        result = (f"{times['total']:.2f} s: profile {times['profile']:.2f} s, what-if "
                  f"{times['what-if (build + evaluate)']:.2f} s (building indexes "
                  f"{times['of which building indexes']:.2f} s), advice {times['advice']:.2f} s; "
                  f"{int(times['candidates'])} candidates")
        ratio = None
        if label != first[0]:
            ratio = times["total"] / first[2]["total"]
            differ = [a.split(":")[0] for a, b in zip(advice, first[3]) if a != b]
            result += ("; advice as on all files" if not differ and len(advice) == len(first[3])
                       else f"; advice differs on {', '.join(differ) or 'the columns advised'}")
        out.append(rec.Record(f"`recommend`, {files} files x {rows:,} rows, {len(WORKLOAD)} queries: {label}",
                              result, ratio))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: ``python -m benchmarks.bench_recommend``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=50)
    p.add_argument("--rows", type=int, default=20_000)
    p.add_argument("--max-files", type=int, default=10, help="the sampled run (default 10 files)")
    p.add_argument("--quick", action="store_true", help="8 files x 2,000 rows, no results file")
    p.add_argument("--rebuild", action="store_true")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    if args.quick:
        args.files, args.rows, args.max_files, args.no_write = 8, 2000, 4, True
    commit = rec.git_commit()  # before the run: the code the numbers belong to
    path, built = cached_table(args.files, args.rows, args.rebuild)
    print(f"table {path}: {args.files} files x {args.rows:,} rows" +
          (f" (built in {built:.1f} s)" if built is not None else " (cached)"))
    lines: list[Pass] = []
    for label, max_files in (("all files", None), (f"max_files={args.max_files}", args.max_files)):
        load = os.getloadavg()[0]
        times, advice = timed_recommend(path, max_files)
        print(f"\n== recommend, {label} (load average {load:.2f}) ==")
        for k, v in times.items():
            print(f"  {k:<30} {v:9.2f}" + ("" if k == "candidates" else " s"))
        for r in advice.recommendations:  # type: ignore[attr-defined]
            print(f"  -> {r.column}: {r.action} {r.label}")
        lines.append((label, load, times, [f"{r.column}: {r.action} {r.label}"
                                           for r in advice.recommendations]))  # type: ignore[attr-defined]
    if not args.no_write:
        out = Path(__file__).with_name("results_recommend.md")
        now = _dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        doc = [f"# Time to recommend (issue 6)\n\nMeasured {now} with `python -m benchmarks.bench_recommend "
               f"--files {args.files} --rows {args.rows} --max-files {args.max_files}` on commit {commit} "
               f"({platform.python_version()}, {os.cpu_count()} CPUs). The table: {args.files} parquet files x "
               f"{args.rows:,} rows written by `paimon_lens.writer` (see the module docstring); workload: "
               f"{len(WORKLOAD)} queries on 5 columns.\n"]
        for label, load, times, recs in lines:
            doc.append(f"\n## {label} (load average {load:.2f})\n\n| phase | seconds |\n| --- | --- |")
            doc += [f"| {k} | {v:.2f} |" if k != "candidates" else f"| candidates measured | {int(v)} |"
                    for k, v in times.items()]
            doc.append("\nAdvice: " + "; ".join(recs) + "\n")
        out.write_text("\n".join(doc), encoding="utf-8")
        rec.update_results("bench_recommend", rec.command_line("bench_recommend", argv),
                           records(args.files, args.rows, lines), summary=SUMMARY, commit=commit, details=out.name)
        print(f"\nwrote {out} and {rec.RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
