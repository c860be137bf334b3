"""benchmarks/bench_million.py: its RESULTS.md rows and the bounded-memory verdict (no Spark run here)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import bench_million as bm

MB = 2**20


def _phase(driver: int, live: int, executors: int = 0) -> dict[str, int]:
    return {"driver_rss": driver * MB, "jvm_heap": 2 * live * MB, "jvm_heap_after_gc": live * MB, "jvm_rss": 0,
            "worker_rss": 0, "workers": 0, "executor_jvm_rss": 300 * MB if executors else 0,
            "executor_jvms": executors}


def _run(master: str, files: int, driver: int, live: int, executors: int = 0, equal: bool = True) -> dict[str, Any]:
    phases = {p: _phase(driver, live, executors) for p in ("open", "explain", "file_indexes")}
    return {"master": master, "files": files, "explain": files * 4e-4, "file_indexes": files * 7e-4,
            "index_rows": files * 4, "memory": phases,
            "sample": {"explain_equal": equal, "index_rows_differing": 0, "index_rows": 40, "index_rows_dist": 40,
                       "files": 10, "groups": 1}}


def test_shard_layout_cuts_whole_partitions() -> None:
    assert bm.shard_layout(100_000) == (1, 20)
    assert bm.shard_layout(1_000_000) == (10, 200)
    with pytest.raises(ValueError):
        bm.shard_layout(250_000)


def test_driver_python_bounded_on_local_and_the_driver_jvm_only_with_executor_jvms() -> None:
    """local[2]: the JVM holds the executors, so only the driver's Python process is judged; local-cluster:
    the driver JVM's live heap is judged too."""
    results = [_run("local[2]", 100_000, 130, 200), _run("local[2]", 1_000_000, 135, 900),
               _run("local-cluster[2,1,2048]", 100_000, 130, 70, executors=2),
               _run("local-cluster[2,1,2048]", 1_000_000, 134, 90, executors=2)]
    assert [(m, w) for m, w, _, _ in bm.bounded(results)] == [
        ("local[2]", "driver Python RSS"), ("local-cluster[2,1,2048]", "driver Python RSS"),
        ("local-cluster[2,1,2048]", "driver JVM heap live after GC")]
    rows = bm.records(results)
    assert [r.verdict for r in rows] == ["MET"] * 7
    assert rows[-1].ratio == pytest.approx(90 / 70)


def test_growth_with_the_files_and_a_disagreement_are_missed() -> None:
    results = [_run("local-cluster[2,1,2048]", 100_000, 130, 70, executors=2),
               _run("local-cluster[2,1,2048]", 1_000_000, 400, 700, executors=2, equal=False)]
    rows = bm.records(results)
    assert [r.verdict for r in rows] == ["MET", "MISSED", "MISSED", "MISSED"]
    assert "equal on 10 sampled files: NO" in rows[1].result


def test_one_size_alone_makes_no_bounded_row() -> None:
    assert bm.bounded([_run("local[2]", 100_000, 130, 200)]) == []
