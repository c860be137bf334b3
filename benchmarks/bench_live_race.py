"""Benchmark: readers beside a live writer, for minutes (issue 28's longer race).

Run from the repository root::

    python -m benchmarks.bench_live_race                 # 120 s, writes its section of RESULTS.md
    python -m benchmarks.bench_live_race --seconds 600   # longer
    python -m benchmarks.bench_live_race --quick         # 10 s, prints only

The writer (:mod:`tests.live_writer`) appends, deletes by deletion vectors, compacts, adds a column
and expires all but two snapshots with their files, as fast as it can; beside it the readers of
:func:`tests.test_live_race.race` (API: new and long-lived table objects, documents written after the
writer moved on; CLI processes) answer, and every answer is checked against the writer's log of what
each snapshot holds. The target: no wrong answer, no traceback (a wrong answer fails the run);
answered and cleanly refused (SnapshotNotFoundError) reads are counted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.records import Record, git_commit, update_results, verdict

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    """Run the race; print its tallies and, unless ``--quick``, record them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the writer runs")
    parser.add_argument("--quick", action="store_true", help="10 s, print only")
    args = parser.parse_args(argv)
    seconds = 10.0 if args.quick else args.seconds
    sys.path.insert(0, str(ROOT))
    from tests.test_live_race import race

    commit = git_commit()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tally = race(Path(tmp), seconds, cli_every=5)  # raises on any wrong answer or traceback
    took = time.perf_counter() - started
    answered = tally["answers"]
    refused = tally["clean_errors"] + tally["cli_clean_errors"]
    line = (f"{tally['snapshots']:,} snapshots in {seconds:.0f} s; {answered:,} answers checked "
            f"({tally['cli_answers']} from CLI processes), {refused} cleanly refused, "
            f"{tally['moves']} moves to the newest snapshot")
    print(f"RESULT live race: {line} ({took:.0f} s in all)")
    if not args.quick:
        update_results("bench_live_race", "python -m benchmarks.bench_live_race",
                       [Record("no answer that mixes snapshots or disagrees with the writer's log, no traceback",
                               line, None, verdict(True))],
                       summary="Readers (API and CLI) beside a writer that appends, deletes, compacts, adds a "
                               "column and expires with its files; every answer checked against the writer's log.",
                       commit=commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
