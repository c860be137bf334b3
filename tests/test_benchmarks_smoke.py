"""Smoke test: ``python -m benchmarks.bench_formats --quick`` still runs and prints its results.

Only that it runs is checked (no timing assertions), so the benchmark cannot rot unnoticed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EXPECTED = (
    "RESULT bitmap-decode iter_bitmaps:",
    "RESULT bitmap-decode summary:",
    "RESULT bloom-probe BIGINT",
    "RESULT bloom-probe STRING",
    "RESULT table-decode ",
    "RESULT synthetic-decode ",
)


def test_bench_formats_quick_runs() -> None:
    """The quick benchmark exits 0 and prints every section's RESULT line."""
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_formats", "--quick"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    lines = r.stdout.splitlines()
    for prefix in EXPECTED:
        assert any(line.startswith(prefix) for line in lines), f"no {prefix!r} line in:\n{r.stdout[-3000:]}"


def test_bench_recommend_quick_runs(tmp_path: Path) -> None:
    """The quick recommend benchmark builds its small table, runs both passes and prints the advice."""
    env = {**__import__("os").environ, "TMPDIR": str(tmp_path)}  # its table cache goes to a fresh dir
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_recommend", "--quick"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert r.stdout.count("== recommend,") == 2
    assert "-> id: add bloom-filter" in r.stdout


def test_bench_parse_quick_runs() -> None:
    """The quick parse benchmark exits 0 (no target missed at a tenth of the sizes) and prints each case."""
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_parse", "--quick"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert r.stdout.count("RESULT parse ") == 7


def test_bench_s3_small_runs(tmp_path: Path) -> None:
    """The S3 benchmark on a 100-file table: every step prints its requests (results_s3.md untouched)."""
    before = (ROOT / "benchmarks" / "results_s3.md").read_text(encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_s3", "--files", "100", "--cache-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and "requests" not in line]
    assert len(rows) == 7 and int(rows[2].split("|")[2].replace(",", "")) > 0  # the first explain's requests
    assert (ROOT / "benchmarks" / "results_s3.md").read_text(encoding="utf-8") == before


def test_bench_history_quick_runs(tmp_path: Path) -> None:
    """The quick history benchmark builds its 60-snapshot table and prints its three RESULT lines."""
    env = {**__import__("os").environ, "TMPDIR": str(tmp_path)}  # its table cache goes to a fresh dir
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_history", "--quick"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [line.split(":")[0] for line in r.stdout.splitlines() if line.startswith("RESULT")] == [
        "RESULT history", "RESULT scaling", "RESULT read whole"]
    assert "PROBLEMS" not in r.stdout


def test_bench_live_race_quick_runs() -> None:
    """The quick live race (10 s) checks every answer against the writer's log and prints its tallies."""
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_live_race", "--quick"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert "RESULT live race: " in r.stdout


def test_bench_memory_quick_runs(tmp_path: Path) -> None:
    """The quick memory benchmark (1,000 files) measures every command in a fresh process."""
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_memory", "--quick", "--cache-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert r.stdout.count("RESULT memory ") == 5 and "exit 0" in r.stdout
