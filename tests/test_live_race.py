"""Readers beside a live writer that appends, deletes by deletion vectors, compacts, adds a column and
expires with its files (:mod:`tests.live_writer`): every answer is the one of the snapshot it names,
checked against the writer's log, or a clear SnapshotNotFoundError; never a traceback, never a mix.

The API is read through new table objects (as a notebook re-runs a cell) and a long-lived one, with
explanations completed later (their documents written after the writer moved on); the CLI in
processes of its own. ``PAIMON_LENS_RACE_SECONDS`` sets the writer's time (the benchmark
``benchmarks/bench_live_race.py`` runs it longer).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.errors import SnapshotNotFoundError
from paimon_lens.metadata.consistency import SnapshotMovedWarning
from tests.live_writer import WHERE

ROOT = Path(__file__).resolve().parent.parent
SECONDS = float(os.environ.get("PAIMON_LENS_RACE_SECONDS", "12"))


def _log(path: Path) -> dict[int, dict[str, Any]]:
    return {rec["snapshot_id"]: rec for rec in map(json.loads, path.read_text().splitlines())}


def race(tmp: Path, seconds: float, cli_every: int = 5) -> dict[str, Any]:
    """Run the writer for ``seconds`` with readers beside it; every answer checked against its log.
    Returns the tallies (answers, clean errors, moves, CLI answers)."""
    table, log = tmp / "t", tmp / "log.jsonl"
    writer = subprocess.Popen([sys.executable, "-m", "tests.live_writer", str(table), str(log), str(seconds)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answers: list[tuple[str, int, int, int]] = []  # (who, snapshot, matching rows, files listed)
    tally = {"answers": 0, "clean_errors": 0, "moves": 0, "cli_answers": 0, "cli_clean_errors": 0}
    rng = random.Random(11)
    long_lived: pl.Table | None = None
    pending: list[Any] = []  # explanations whose documents are written a round later
    rounds = 0
    try:
        while writer.poll() is None:
            if not (table / "snapshot" / "LATEST").exists():
                time.sleep(0.05)
                continue
            rounds += 1
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", SnapshotMovedWarning)
                for report in pending:  # written after the writer moved on: its own snapshot, or an error
                    try:
                        doc = report.to_dict()
                        answers.append(("late", doc["snapshot_id"], -1,
                                        len(doc["files"])))
                    except SnapshotNotFoundError:
                        tally["clean_errors"] += 1
                pending = []
                try:
                    long_lived = long_lived or pl.open_table(str(table))
                    fresh = pl.open_table(str(table))
                    time.sleep(rng.uniform(0, 0.2))
                    for t in (fresh, long_lived):
                        r = t.explain(WHERE, truth=True)
                        s = r.summary()
                        answers.append(("api", r.snapshot_id, s["matching_rows"], s["files"]))
                        frame = t.files()
                        answers.append(("files", t.snapshot_id, -1, len(frame)))
                    pending.append(fresh.explain("country = 'DE'"))  # its other partitions listed later
                except SnapshotNotFoundError:
                    tally["clean_errors"] += 1
            tally["moves"] += sum(1 for c in caught if issubclass(c.category, SnapshotMovedWarning))
            if rounds % cli_every == 0:
                run = subprocess.run([sys.executable, "-m", "paimon_lens", "explain", str(table), "--where", WHERE,
                                      "--truth", "--format", "json"], cwd=ROOT, capture_output=True, text=True)
                if run.returncode == 0:
                    doc = json.loads(run.stdout)
                    answers.append(("cli", doc["snapshot_id"], doc["summary"]["matching_rows"], len(doc["files"])))
                    tally["cli_answers"] += 1
                else:
                    errors = [f"{f['file_name']}: {f['error']}" for f in json.loads(run.stdout or "{}").get("files", [])
                              if f.get("error")] if run.returncode == 1 else []
                    assert run.returncode == 2 and "SnapshotNotFound" not in run.stderr, (run.stderr[-2000:], errors)
                    assert "expired" in run.stderr and "Traceback" not in run.stderr, run.stderr[-2000:]
                    tally["cli_clean_errors"] += 1
    finally:
        _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err[-3000:]
    truth = _log(log)
    for who, sid, rows, files in answers:
        want = truth[sid]
        if rows >= 0:
            assert rows == want["rows"], (who, sid, rows, want)
        assert files == want["files"], (who, sid, files, want)
    tally["answers"] = len(answers)
    tally["snapshots"] = len(truth)
    return tally


@pytest.mark.timeout(240)
def test_readers_beside_a_writer_that_deletes_compacts_alters_and_expires(tmp_path: Path) -> None:
    tally = race(tmp_path, SECONDS)
    assert tally["answers"] >= 20 and tally["cli_answers"] >= 1, tally
    assert tally["snapshots"] >= 20, tally
