"""Benchmark: peak memory of the commands that read every file, against the number of files (issue 28).

Run from the repository root::

    python -m benchmarks.bench_memory                      # 10,000 and 100,000 files; writes its RESULTS.md section
    python -m benchmarks.bench_memory --sizes 10000        # one size
    python -m benchmarks.bench_memory --quick              # 1,000 files, prints only

The tables are ``bench_scale``'s metadata-only primary-key tables (``make_table(..., primary_key=True,
data_files=False)``: manifests, file-index containers embedded or in ``.index`` files, deletion
vectors; 20 partitions x 4 buckets), cached under ``<tmp>/paimon-lens-bench/``. Each command runs in
a fresh process (``python -m paimon_lens ...``, output to a file) and its peak resident set size is
read from ``wait4``'s ``ru_maxrss``:

* ``files --format json``, ``indexes --format json``, ``findings --format json``;
* ``explain --where ... --format json`` (every file's verdict and index answer);
* ``report`` (the HTML tuning report, no workload).

Target: peak RSS at most 150 MB + 4 KB per file. The interpreter with pyarrow and pandas loaded is
about 100 MB of it.

``--finish N`` (default 500,000; 0 skips it) runs ``files``, ``explain`` and ``indexes`` on a table
of N files, where the target is that each finishes (exit 0) on this machine; their peak RSS and
time are recorded beside.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import bench_scale
from benchmarks import records as rec

ROOT = Path(__file__).resolve().parent.parent
BASE_MB = 150.0
PER_FILE_KB = 4.0
WHERE = "dt = '2025-01-03' AND id < 5000"
FINISH = ("files", "explain", "indexes")
"""The commands that must finish on the ``--finish`` table."""


def commands(table: Path, out_dir: Path) -> dict[str, list[str]]:
    """The measured commands (arguments after ``python -m paimon_lens``)."""
    return {
        "files": ["files", str(table), "--format", "json"],
        "indexes": ["indexes", str(table), "--format", "json"],
        "findings": ["findings", str(table), "--format", "json"],
        "explain": ["explain", str(table), "--where", WHERE, "--format", "json"],
        "report": ["report", str(table), "-o", str(out_dir / "report.html")],
    }


def peak_rss(args: list[str], out: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, exit code) of ``python -m paimon_lens *args`` in a fresh process."""
    started = time.perf_counter()
    with out.open("wb") as sink:
        pid = os.fork()
        if pid == 0:  # the child: the command, its output to a file
            os.dup2(sink.fileno(), 1)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, "-m", "paimon_lens", *args])
        _, status, usage = os.wait4(pid, 0)
    took = time.perf_counter() - started
    return usage.ru_maxrss / 1024, took, os.waitstatus_to_exitcode(status)


def main(argv: list[str] | None = None) -> int:
    """Measure every command at every size; print, and (full runs) record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated file counts")
    parser.add_argument("--quick", action="store_true", help="1,000 files, print only")
    parser.add_argument("--finish", type=int, default=500_000,
                        help="files of the table files, explain and indexes must finish on (0: skip)")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    args = parser.parse_args(argv)
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",")]
    commit = rec.git_commit()
    rows: list[rec.Record] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            table, _ = bench_scale.cached_table(args.cache_dir, size)
            target = BASE_MB + PER_FILE_KB * size / 1024
            for name, cmd in commands(table, Path(tmp)).items():
                mb, took, code = peak_rss(cmd, Path(tmp) / f"{name}.out")
                ok = mb <= target and code == 0
                print(f"RESULT memory {name} {size:,} files: peak {mb:,.0f} MB (target {target:,.0f} MB), "
                      f"{took:.1f} s, exit {code}")
                per_file = mb * 1024 / size
                rows.append(rec.Record(f"`{name}`, {size:,} files: peak RSS <= {target:,.0f} MB "
                                       f"(150 MB + 4 KB per file)",
                                       f"{mb:,.0f} MB in {took:.1f} s (exit {code}); {per_file:,.1f} KB per file",
                                       mb / target, rec.verdict(ok)))
        if args.finish and not args.quick:
            table, _ = bench_scale.cached_table(args.cache_dir, args.finish)
            for name, cmd in commands(table, Path(tmp)).items():
                if name not in FINISH:
                    continue
                mb, took, code = peak_rss(cmd, Path(tmp) / f"{name}.out")
                print(f"RESULT memory {name} {args.finish:,} files: peak {mb:,.0f} MB, {took:.1f} s, exit {code}")
                rows.append(rec.Record(f"`{name}`, {args.finish:,} files: finishes (exit 0) on this machine",
                                       f"exit {code} in {took:.1f} s; peak {mb:,.0f} MB "
                                       f"({mb * 1024 / args.finish:,.1f} KB per file)",
                                       None, rec.verdict(code == 0)))
    if not args.quick:
        rec.update_results("bench_memory", "python -m benchmarks.bench_memory", rows,
                           summary="Peak resident memory of the commands that read every file (fresh process "
                                   "each), on metadata-only primary-key tables; ratio: peak / target.",
                           commit=commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
