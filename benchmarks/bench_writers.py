"""Write-speed benchmark: the file-index writers one value at a time against their bulk paths.

Run from the repository root::

    python -m benchmarks.bench_writers                 # writers at 20k and 200k rows, then the what-if grid;
                                                       # writes the benchmark's RESULTS.md section
    python -m benchmarks.bench_writers --quick         # tiny sizes, a few seconds, prints only
    python -m benchmarks.bench_writers --only writers  # or --only grid

Sections:

``writers``
    For 20,000 and 200,000 rows of four columns (INT with 10 distinct values, INT with about as
    many distinct values as rows, and the same for STRING; every 50th row null), each writer is
    timed building its bytes twice: ``write(v)`` per value then ``serialized_bytes()``, and
    ``write_many(values)`` then ``serialized_bytes()``. Writers: bitmap V1 and V2 (16 kb blocks),
    range-bitmap (16 kb chunks), bsi (INT only) and bloom-filter (items = rows, fpp 0.01). Every
    pair of outputs is compared byte for byte (a mismatch fails the run).

``grid``
    :func:`paimon_lens.advisor.whatif.measure` on a table written by
    :class:`paimon_lens.writer.table_writer.TableWriter` (default 50 files x 20,000 rows; columns
    ``id`` BIGINT, ``user_id`` INT with ~1 M distinct values, ``status`` STRING with 8, ``city``
    STRING with 5,000, ``score`` INT with 1,000), 13 candidates (bloom-filter, bitmap V1/V2,
    range-bitmap, bsi and one bloom-filter + range-bitmap combination) and 10 queries. The table
    is cached under ``<tmp>/paimon-lens-bench/`` (``--cache-dir``) keyed by its size. Reported:
    the wall time of ``measure`` and each candidate's ``build_seconds`` (which counts shared work
    once per candidate using it, so their sum exceeds the wall time spent building).

Times are ``time.perf_counter`` wall clock, best of ``--repeat`` (default 3; the grid runs once).
Each section ends with a ``RESULT`` line; a run without ``--quick`` records the sections it ran as
the benchmark's section of ``RESULTS.md`` (:func:`writers_record`, :func:`grid_record`).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import records as rec
from paimon_lens.formats.bitmap import BitmapIndexWriter
from paimon_lens.formats.bloom import BloomFilterFileIndexWriter
from paimon_lens.formats.bsi import BsiWriter
from paimon_lens.formats.range_bitmap import RangeBitmapWriter
from paimon_lens.types import DataType, parse_type

QUERIES = [
    "user_id = 1234", "user_id IN (17, 2999, 40000)", "status = 'LOST'", "status <> 'NEW'",
    "city = 'city-17'", "city IN ('city-1', 'city-2')", "score BETWEEN 100 AND 120", "score > 990",
    "user_id = 77 OR status = 'NEW'", "id = 1500",
]
SUMMARY = ("Time of the file-index writers one value at a time (`write`) against their bulk paths (`write_many`), "
           "and of the advisor's what-if `measure` over a grid of candidates; ratio: per-value time / bulk time "
           "(geometric mean over the cases).")
STATUSES = ["PENDING", "SHIPPED", "DELIVERED", "CANCELLED", "RETURNED", "ON_HOLD", "NEW", "LOST"]


# ---- writers -------------------------------------------------------------------------------------

def columns(rows: int, seed: int = 0) -> dict[str, tuple[DataType, list[Any]]]:
    """The benchmark columns: name -> (type, values with every 50th row null)."""
    rng = np.random.default_rng(seed)

    def nulls(values: list[Any]) -> list[Any]:
        values[::50] = [None] * len(values[::50])
        return values

    return {
        "int-low": (parse_type("INT"), nulls(rng.integers(0, 10, rows).tolist())),
        "int-high": (parse_type("INT"), nulls(rng.integers(-2**31, 2**31, rows).tolist())),
        "string-low": (parse_type("STRING"), nulls([f"status-{i}" for i in rng.integers(0, 10, rows)])),
        "string-high": (parse_type("STRING"), nulls([f"customer-{i}" for i in rng.integers(0, 10 * rows, rows)])),
    }


def writers(dtype: DataType, rows: int) -> dict[str, Callable[[], Any]]:
    """Writer factories for one column type."""
    out: dict[str, Callable[[], Any]] = {
        "bitmap-v1": lambda: BitmapIndexWriter(dtype, 1),
        "bitmap-v2": lambda: BitmapIndexWriter(dtype, 2, "16kb"),
        "range-bitmap": lambda: RangeBitmapWriter(dtype, "16kb"),
    }
    if dtype.root == "INT":
        out["bsi"] = lambda: BsiWriter(dtype)
    out["bloom-filter"] = lambda: BloomFilterFileIndexWriter(dtype, rows, 0.01)
    return out


def _per_value(make: Callable[[], Any], values: Sequence[Any]) -> bytes:
    w = make()
    for v in values:
        w.write(v)
    data: bytes = w.serialized_bytes()
    return data


def _bulk(make: Callable[[], Any], values: Sequence[Any]) -> bytes:
    w = make()
    w.write_many(values)
    data: bytes = w.serialized_bytes()
    return data


def _best(fn: Callable[[], bytes], repeat: int) -> tuple[float, bytes]:
    best, out = float("inf"), b""
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def writers_record(sizes: Sequence[int], cases: int, total_one: float, total_bulk: float, gmean: float,
                   low: float, high: float) -> rec.Record:
    """The RESULTS.md row of the writers section (the run stops before it when bytes differ)."""
    return rec.Record(f"`write_many` gives the bytes of per-value `write` for every writer (bitmap V1/V2, "
                      f"range-bitmap, bsi, bloom-filter) on {' and '.join(f'{n:,}' for n in sizes)} rows",
                      f"{cases} cases byte-identical; {total_one:.2f} s per-value -> {total_bulk:.2f} s bulk, "
                      f"speedup {low:.1f}x to {high:.1f}x", gmean, rec.verdict(True))


def grid_record(files: int, rows: int, candidates: int, queries: int, seconds: float,
                built: float | None = None) -> rec.Record:
    """The RESULTS.md row of the grid section (``built``: the candidates' build_seconds summed)."""
    return rec.Record(f"what-if grid: `measure` of {candidates} candidates and {queries} queries on {files} files x "
                      f"{rows:,} rows", f"{seconds:.2f} s" + (
                          "" if built is None else f" (candidate build_seconds summed {built:.2f} s)"))


def bench_writers(sizes: Sequence[int], repeat: int) -> rec.Record:
    """Per-value against bulk for every writer, column and size (bytes compared)."""
    print(f"{'rows':>7} {'column':<12} {'writer':<13} {'per-value s':>11} {'bulk s':>9} {'speedup':>8}")
    ratios: list[float] = []
    total_one = total_bulk = 0.0
    for rows in sizes:
        for name, (dtype, values) in columns(rows).items():
            for wname, make in writers(dtype, rows).items():
                one, a = _best(partial(_per_value, make, values), repeat)
                bulk, b = _best(partial(_bulk, make, values), repeat)
                if a != b:
                    raise SystemExit(f"MISMATCH {wname} {name} {rows}: bulk bytes differ from per-value bytes")
                ratios.append(one / bulk)
                total_one += one
                total_bulk += bulk
                print(f"{rows:>7} {name:<12} {wname:<13} {one:>11.4f} {bulk:>9.4f} {one / bulk:>7.1f}x")
    gmean = float(np.exp(np.mean(np.log(ratios))))
    print(f"RESULT writers: {len(ratios)} cases, all byte-identical; speedup geometric mean {gmean:.1f}x, "
          f"min {min(ratios):.1f}x, max {max(ratios):.1f}x; total {total_one:.2f} s per-value -> "
          f"{total_bulk:.2f} s bulk")
    return writers_record(sizes, len(ratios), total_one, total_bulk, gmean, min(ratios), max(ratios))


# ---- the what-if grid ----------------------------------------------------------------------------

def grid_table(files: int, rows: int, cache_dir: Path) -> str:
    """Path of the benchmark table (built once per size with TableWriter, then cached)."""
    import pyarrow as pa

    from paimon_lens.writer.table_writer import TableWriter

    root = cache_dir / f"writers-grid-{files}x{rows}"
    if (root / "snapshot" / "LATEST").is_file():
        return str(root)
    if root.exists():
        shutil.rmtree(root)
    rng = np.random.default_rng(0)
    n = files * rows
    data = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "user_id": pa.array(rng.integers(0, 1_000_000, n).astype(np.int32)),
        "status": pa.array(np.array(STATUSES)[rng.integers(0, len(STATUSES), n)]),
        "city": pa.array([f"city-{i}" for i in rng.integers(0, 5000, n)]),
        "score": pa.array(rng.integers(0, 1000, n).astype(np.int32)),
    })
    TableWriter.create(root, data.schema).commit(data, rows_per_file=rows)
    return str(root)


def grid_candidates() -> list[Any]:
    """The 13 candidates of the grid section."""
    from paimon_lens.advisor.candidates import Candidate
    from paimon_lens.writer.file_index import IndexSpec

    c = Candidate
    return [
        c("user_id", "bloom-filter", {"fpp": "0.01", "items": "20000"}, "bloom-filter"),
        c("user_id", "bitmap", {"version": "2", "index-block-size": "16kb"}, "bitmap v2"),
        c("user_id", "range-bitmap", {"chunk-size": "16kb"}, "range-bitmap"),
        c("user_id", "bsi", {}, "bsi"),
        c("status", "bitmap", {"version": "2", "index-block-size": "16kb"}, "bitmap v2"),
        c("status", "bitmap", {"version": "1"}, "bitmap v1"),
        c("status", "bloom-filter", {"fpp": "0.01", "items": "100"}, "bloom-filter"),
        c("city", "bloom-filter", {"fpp": "0.01", "items": "5000"}, "bloom-filter"),
        c("city", "bitmap", {"version": "2", "index-block-size": "4kb"}, "bitmap v2 4kb"),
        c("city", "range-bitmap", {"chunk-size": "16kb"}, "range-bitmap"),
        c("score", "range-bitmap", {"chunk-size": "4kb"}, "range-bitmap 4kb"),
        c("score", "bsi", {}, "bsi"),
        c("city", "bloom-filter+range-bitmap", {"fpp": "0.01", "items": "5000"}, "bloom-filter + range-bitmap",
          also=(IndexSpec("city", "range-bitmap", {}),)),
    ]


def bench_grid(files: int, rows: int, cache_dir: Path) -> rec.Record:
    """``measure`` of the candidate grid on the cached table."""
    import paimon_lens
    from paimon_lens.advisor.whatif import measure

    t0 = time.perf_counter()
    path = grid_table(files, rows, cache_dir)
    print(f"table {path} ready in {time.perf_counter() - t0:.1f} s")
    table = paimon_lens.open_table(path)
    candidates = grid_candidates()
    gc.collect()
    t0 = time.perf_counter()
    result = measure(table.reader, QUERIES, candidates)
    seconds = time.perf_counter() - t0
    measured = result.records()
    for m in measured:
        print(f"  {m['column']:<8} {m['label']:<28} build {m['build_seconds']:7.3f} s "
              f"{m['index_bytes']:>12,.0f} index bytes")
    built = sum(float(m["build_seconds"]) for m in measured)
    print(f"RESULT what-if grid: {files} files x {rows} rows, {len(candidates)} candidates, {len(QUERIES)} queries: "
          f"measure {seconds:.2f} s, candidate build_seconds summed {built:.2f} s")
    return grid_record(files, rows, len(candidates), len(QUERIES), seconds, built)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round")
    parser.add_argument("--only", action="append", choices=["writers", "grid"], help="run only these sections")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds per writer case (best is kept)")
    parser.add_argument("--files", type=int, default=None, help="grid: data files (default 50, quick 4)")
    parser.add_argument("--rows", type=int, default=None, help="grid: rows per file (default 20000, quick 2000)")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    args = parser.parse_args(argv)
    sections = args.only or ["writers", "grid"]
    sizes = (2000,) if args.quick else (20_000, 200_000)
    repeat = 1 if args.quick else args.repeat
    files = args.files or (4 if args.quick else 50)
    rows = args.rows or (2000 if args.quick else 20_000)
    commit = "" if args.quick else rec.git_commit()  # before the run: the code the numbers belong to
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cpus")
    records = []
    if "writers" in sections:
        print("== writers: per-value write() vs write_many()")
        records.append(bench_writers(sizes, repeat))
    if "grid" in sections:
        print("== what-if grid")
        args.cache_dir.mkdir(parents=True, exist_ok=True)
        records.append(bench_grid(files, rows, args.cache_dir))
    if not args.quick:
        rec.update_results("bench_writers", rec.command_line("bench_writers", argv), records, summary=SUMMARY,
                           commit=commit)
        print(f"wrote {rec.RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
