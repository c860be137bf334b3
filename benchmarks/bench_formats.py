"""Decode-speed benchmarks for paimon-lens' file-index and deletion-vector formats (issue 3).

Run from the repository root::

    python -m benchmarks.bench_formats            # full run (a few minutes): RESULTS.md section, results_formats.md
    python -m benchmarks.bench_formats --quick    # tiny sizes, a few seconds (the smoke test runs this)

Sections (``--only`` picks some of them):

``bitmap``
    Bitmap-index decode throughput against bare pyroaring. Indexes are built with
    :func:`paimon_lens.formats.bitmap.write_bitmap_index` (V2, the default, and V1); paimon-lens
    is timed for ``BitmapFileIndexReader(...)`` plus decoding every bitmap, once through
    ``iter_bitmaps()`` and once through ``summary()``; the baseline is ``BitMap.deserialize`` over
    the identical, pre-sliced byte ranges of every stored bitmap (the null bitmap included).
    Target: paimon-lens at >= 50% of pyroaring's throughput (ratio = pyroaring time / lens time).

``bloom``
    Bloom-filter probes per second with Paimon's default sizing (items 1,000,000, fpp 0.1):
    ``might_contain_many`` on a numpy BIGINT batch (hashing included) and ``test_hashes`` on
    precomputed hashes. Target: >= 10 M probes/s. STRING probes (one xxhash per value), BIGINT
    probes from a Python list and scalar ``might_contain`` are reported without a target.

``tables``
    Decoding every file index (with its summary) and every deletion vector of the fixture table
    with the most index bytes, and of the one with the most deletion-vector bytes: cold (a new
    ``open_table``), cold in a fresh interpreter (imports included) and warm (the same table
    object, manifests cached).

``synthetic``
    An in-memory index set at scale: containers (``write_file_index``) each holding a bloom
    filter, a bitmap, a range-bitmap and a bsi index over 10,000-row columns, decoded as
    :func:`paimon_lens.inventory.file_indexes.file_indexes` does (reader + summary per index), plus one DV
    index file with a deletion vector per data file. Reports ms per container and a breakdown per
    index type.

Times are wall-clock ``time.perf_counter`` seconds, best of ``--repeat`` runs; competing
variants are run interleaved (A, B, C, A, B, C, ...). Before each timed call ``gc.collect()``
runs and, on glibc, ``malloc_trim(0)`` settles the C heap, so that no variant pays for
consolidating the many small chunks the previous one freed. A pure-Python calibration loop is
timed at the start and the end to show how fast (or loaded) the machine was. Each section ends
with ``RESULT`` lines; a run without ``--quick`` turns them into the benchmark's ``RESULTS.md``
section (:func:`records`) and writes its whole output to ``results_formats.md``. ``--profile`` adds a
cProfile and a cost breakdown for every bitmap case below target and for the synthetic decode.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import ctypes
import datetime as _dt
import gc
import io
import math
import os
import platform
import pstats
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from pyroaring import BitMap

from benchmarks import records as rec
from paimon_lens.formats.bitmap import (
    VERSION_1,
    VERSION_2,
    BitmapFileIndexReader,
    BitmapIndexSummary,
    BitmapValueCount,
    write_bitmap_index,
)
from paimon_lens.formats.bloom import (
    BloomFilterFileIndexReader,
    BloomFilterFileIndexWriter,
    hash_values,
)
from paimon_lens.formats.bsi import write_bsi
from paimon_lens.formats.deletion_vector import read_deletion_vector, write_dv_index_file
from paimon_lens.formats.file_index_format import FileIndexFormatReader, write_file_index
from paimon_lens.formats.range_bitmap import write_range_bitmap
from paimon_lens.formats.registry import create_reader
from paimon_lens.inventory.deletion_vectors import table_deletion_vectors
from paimon_lens.inventory.file_indexes import summarize, table_file_indexes
from paimon_lens.table.facade import Table, open_table
from paimon_lens.types import DataType, parse_type

ROOT = Path(__file__).resolve().parent.parent
DETAILS = Path(__file__).resolve().parent / "results_formats.md"
SUMMARY = ("Decode speed of the file-index and deletion-vector formats: bitmap indexes against bare pyroaring, "
           "bloom-filter probes, every index of the largest fixture tables and a synthetic set of 1,000 containers; "
           "ratio: pyroaring time / paimon-lens time.")
PACKAGES = ("paimon-lens", "pyroaring", "numpy", "pyarrow", "xxhash")
FIXTURES = ROOT / "tests" / "fixtures"
SECTIONS = ("bitmap", "bloom", "tables", "synthetic")
BITMAP_TARGET = 0.50
BLOOM_TARGET = 10e6
MB = 1e6


# ---- timing helpers ------------------------------------------------------------------------------

def _heap_settler() -> Callable[[], object]:
    """glibc's ``malloc_trim(0)``, or a no-op where it is not available.

    Freeing many small bitmaps leaves glibc's heap full of free chunks that the *next* large
    allocation consolidates (10 ms or more here), so without settling the heap before each timed
    call a variant pays for the previous variant's frees.
    """
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):  # no glibc (macOS, Windows, musl)
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]
    return lambda: trim(0)


_settle_heap = _heap_settler()


def best_of(variants: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best (lowest) wall time in seconds of each variant, over ``repeat`` interleaved rounds.

    Before each call the garbage collector runs and the C heap is settled (see
    :func:`_heap_settler`); the value a variant returns is kept alive until its timer has stopped,
    so freeing it is not timed.
    """
    best = dict.fromkeys(variants, math.inf)
    for _ in range(repeat):
        for name, fn in variants.items():
            gc.collect()
            _settle_heap()
            t0 = time.perf_counter()
            result = fn()
            elapsed = time.perf_counter() - t0
            del result
            best[name] = min(best[name], elapsed)
    return best


def calibration_ms() -> float:
    """Best of 5 of a fixed pure-Python loop (ms): shows how fast the machine was at that moment."""
    def loop() -> int:
        total = 0
        for i in range(1_000_000):
            total += i
        return total

    return best_of({"loop": loop}, 5)["loop"] * 1e3


def verdict(met: bool) -> str:
    """``MET`` or ``MISSED``."""
    return "MET" if met else "MISSED"


def profile_top(fn: Callable[[], object], limit: int = 14) -> str:
    """cProfile ``fn`` once; the top functions by own time, as pstats prints them."""
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(limit)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(lines[start:])


# ---- machine facts -------------------------------------------------------------------------------

def _cpu_model() -> str:
    """The CPU model (see :func:`benchmarks.records.cpu_model`)."""
    from .records import cpu_model

    return cpu_model() or "unknown"


def _version(package: str) -> str:
    """Installed version of a distribution, or ``-``."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "-"


def machine_facts() -> list[str]:
    """Lines describing the run: date, CPUs, Python and package versions."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 0
    packages = ", ".join(f"{p} {_version(p)}" for p in ("paimon-lens", "pyroaring", "numpy", "pyarrow", "xxhash"))
    return [
        f"date: {_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"machine: {platform.system()} {platform.release()} {platform.machine()}, {_cpu_model()}, "
        f"nproc {usable}",
        f"python: {platform.python_implementation()} {platform.python_version()}",
        f"packages: {packages}",
    ]


# ---- 1. bitmap -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BitmapCase:
    """One synthetic bitmap-index column."""

    name: str
    type_text: str
    rows: int
    values: int
    distribution: str  # uniform | zipf
    null_fraction: float = 0.0


BITMAP_CASES = (
    BitmapCase("bigint 2M rows x 2k values", "BIGINT", 2_000_000, 2_000, "uniform"),
    BitmapCase("bigint 1M rows x 100k values", "BIGINT", 1_000_000, 100_000, "uniform"),
    BitmapCase("string 1M rows x 100k values", "STRING", 1_000_000, 100_000, "uniform"),
    BitmapCase("string 2M rows x 200 values, zipf, 1% null", "STRING", 2_000_000, 200, "zipf", 0.01),
)


def bitmap_column(case: BitmapCase, scale: float, seed: int = 7) -> list[Any]:
    """The row values of a case (internal values; None for null), ``scale`` times its size."""
    rows = max(int(case.rows * scale), 100)
    values = max(int(case.values * scale), 2)
    rng = np.random.default_rng(seed)
    if case.distribution == "zipf":
        weights = 1.0 / np.arange(1, values + 1)
        codes = rng.choice(values, size=rows, p=weights / weights.sum())
    else:
        codes = rng.integers(0, values, size=rows)
    if case.type_text == "STRING":
        column: list[Any] = [f"value-{c:07d}" for c in codes.tolist()]
    else:
        column = (codes * 7_919 + 1_000_000_007).tolist()
    if case.null_fraction:
        for i in np.flatnonzero(rng.random(rows) < case.null_fraction).tolist():
            column[i] = None
    return column


def stored_bitmap_slices(data_type: DataType, data: bytes) -> list[bytes]:
    """The bytes of every bitmap stored in the index body (the null bitmap first, if stored).

    Found with the public reader API outside any timing; their total must be the body size.
    """
    reader = BitmapFileIndexReader(data_type, data)
    summary = reader.summary()
    slices = []
    if summary.null_bitmap_bytes:
        start = reader.body_start + reader.null_offset
        slices.append(data[start:start + summary.null_bitmap_bytes])
    slices.extend(v.bitmap for v in reader.values() if v.stored)
    if sum(len(s) for s in slices) != summary.bitmap_bytes:
        raise AssertionError("the stored bitmaps do not add up to the index body")
    return slices


def bitmap_variants(data_type: DataType, data: bytes, slices: list[bytes]) -> dict[str, Callable[[], object]]:
    """The timed variants of one index: bare pyroaring, ``iter_bitmaps()`` and ``summary()``."""
    deserialize = BitMap.deserialize

    def pyroaring() -> list[BitMap]:
        return [deserialize(s) for s in slices]

    def iter_bitmaps() -> list[tuple[Any, BitMap]]:
        return list(BitmapFileIndexReader(data_type, data).iter_bitmaps())

    def summary() -> BitmapIndexSummary:
        return BitmapFileIndexReader(data_type, data).summary()

    return {"pyroaring": pyroaring, "iter": iter_bitmaps, "summary": summary}


def bitmap_breakdown(data_type: DataType, data: bytes, slices: list[bytes], repeat: int) -> str:
    """Time the pieces of a bitmap decode separately (ms and us per bitmap), for ``--profile``,
    through the reader's public calls."""
    deserialize = BitMap.deserialize
    pairs = list(BitmapFileIndexReader(data_type, data).iter_bitmaps())
    values = [v for v, _ in pairs]
    pieces = {
        "BitMap.deserialize over pre-sliced bytes (the baseline)": lambda: [deserialize(b) for b in slices],
        "reader construction (head and dictionary)": lambda: BitmapFileIndexReader(data_type, data),
        "iter_bitmaps() on a new reader": lambda: list(BitmapFileIndexReader(data_type, data).iter_bitmaps()),
        "summary() on a new reader": lambda: BitmapFileIndexReader(data_type, data).summary(),
        "BitmapValueCount records alone": lambda: [BitmapValueCount(v, 1, 0) for v in values],
    }
    best = best_of(pieces, repeat)
    n = max(len(pairs), 1)
    return "\n".join(f"   {name:<60} {t * 1e3:8.1f} ms {t / n * 1e6:6.2f} us/bitmap" for name, t in best.items())


@dataclass(frozen=True)
class BitmapRow:
    """Timings of one (case, version)."""

    case: str
    version: int
    rows: int
    cardinality: int
    index_bytes: int
    bitmaps: int
    pyroaring_s: float
    iter_s: float
    summary_s: float

    @property
    def iter_ratio(self) -> float:
        """paimon-lens ``iter_bitmaps`` throughput / pyroaring throughput."""
        return self.pyroaring_s / self.iter_s

    @property
    def summary_ratio(self) -> float:
        """paimon-lens ``summary`` throughput / pyroaring throughput."""
        return self.pyroaring_s / self.summary_s


def bench_bitmap(scale: float, repeat: int, profile: bool) -> list[BitmapRow]:
    """Section 1: bitmap decode throughput, every case in V2 and V1."""
    print(f"\n== 1. bitmap index decode vs bare pyroaring (best of {repeat}, interleaved) ==")
    print("MB/s = whole index bytes / time; ratio = pyroaring time / paimon-lens time (target >= "
          f"{BITMAP_TARGET:.2f})")
    header = (f"{'case':<44} {'ver':>3} {'index MB':>8} {'bitmaps':>8} {'pyroaring':>10} "
              f"{'iter_bitmaps':>12} {'ratio':>6} {'summary':>8} {'ratio':>6}  {'build s':>7}")
    print(header)
    rows: list[BitmapRow] = []
    for case in BITMAP_CASES:
        data_type = parse_type(case.type_text)
        column = bitmap_column(case, scale)
        for version in (VERSION_2, VERSION_1):
            t0 = time.perf_counter()
            data = write_bitmap_index(data_type, column, version=version)
            build_s = time.perf_counter() - t0
            slices = stored_bitmap_slices(data_type, data)
            cardinality = BitmapFileIndexReader(data_type, data).non_null_bitmap_count
            best = best_of(bitmap_variants(data_type, data, slices), repeat)
            row = BitmapRow(case.name, version, len(column), cardinality, len(data), len(slices),
                            best["pyroaring"], best["iter"], best["summary"])
            rows.append(row)
            mbps = len(data) / MB
            print(f"{case.name:<44} {'V' + str(version):>3} {mbps:8.2f} {len(slices):8d} "
                  f"{mbps / row.pyroaring_s:10.0f} {mbps / row.iter_s:12.0f} {row.iter_ratio:6.2f} "
                  f"{mbps / row.summary_s:8.0f} {row.summary_ratio:6.2f}  {build_s:7.1f}")
            if profile and min(row.iter_ratio, row.summary_ratio) < BITMAP_TARGET:
                print(f"-- {case.name} V{version}: cost breakdown (diagnostic; uses reader internals)")
                print(bitmap_breakdown(data_type, data, slices, repeat))
                print(f"-- cProfile of summary(), {case.name} V{version}:")
                print(profile_top(bitmap_variants(data_type, data, slices)["summary"]))
    worst_iter = min(rows, key=lambda r: r.iter_ratio)
    worst_summary = min(rows, key=lambda r: r.summary_ratio)
    total_index = sum(r.index_bytes for r in rows) / MB
    print(f"RESULT bitmap-decode iter_bitmaps: worst ratio {worst_iter.iter_ratio:.2f} "
          f"({worst_iter.case} V{worst_iter.version}), aggregate "
          f"{total_index / sum(r.iter_s for r in rows):.0f} MB/s vs pyroaring "
          f"{total_index / sum(r.pyroaring_s for r in rows):.0f} MB/s; target >= {BITMAP_TARGET:.2f}: "
          f"{verdict(worst_iter.iter_ratio >= BITMAP_TARGET)}")
    print(f"RESULT bitmap-decode summary: worst ratio {worst_summary.summary_ratio:.2f} "
          f"({worst_summary.case} V{worst_summary.version}), aggregate "
          f"{total_index / sum(r.summary_s for r in rows):.0f} MB/s; target >= {BITMAP_TARGET:.2f}: "
          f"{verdict(worst_summary.summary_ratio >= BITMAP_TARGET)}")
    return rows


# ---- 2. bloom ------------------------------------------------------------------------------------

def bench_bloom(probes: int, string_probes: int, repeat: int) -> float:
    """Section 2: bloom-filter probes per second; returns the numpy BIGINT probe rate."""
    print(f"\n== 2. bloom-filter probes, default sizing (items 1,000,000, fpp 0.1), best of {repeat} ==")
    rng = np.random.default_rng(11)
    bigint, string = parse_type("BIGINT"), parse_type("STRING")

    items = 1_000_000 if probes >= 1_000_000 else 10_000
    inserted = rng.integers(-(2**62), 2**62, size=items, dtype=np.int64)
    writer = BloomFilterFileIndexWriter(bigint)
    t0 = time.perf_counter()
    writer.write_many(inserted)
    build_s = time.perf_counter() - t0
    reader = BloomFilterFileIndexReader(bigint, writer.serialized_bytes())
    info = reader.info()
    print(f"BIGINT filter: {info.num_bits} bits, k={info.num_hash_functions}, {info.size_bytes} bytes, "
          f"{items:,} values inserted in {build_s:.2f} s (write_many)")

    # Half members, half random values (almost all absent).
    batch = np.concatenate([rng.choice(inserted, size=probes // 2),
                            rng.integers(-(2**62), 2**62, size=probes - probes // 2, dtype=np.int64)])
    rng.shuffle(batch)
    hashes = hash_values(bigint, batch)
    as_list = batch[: max(probes // 10, 1)].tolist()
    scalars = as_list[: max(probes // 100, 1)]
    best = best_of({
        "might_contain_many": lambda: reader.might_contain_many(batch),
        "test_hashes": lambda: reader.test_hashes(hashes),
        "hash_values": lambda: hash_values(bigint, batch),
        "list": lambda: reader.might_contain_many(as_list),
        "scalar": lambda: [reader.might_contain(v) for v in scalars],
    }, repeat)
    hit = reader.might_contain_many(batch)
    absent_fp = float(hit[~np.isin(batch, inserted)].mean())
    rate = probes / best["might_contain_many"]
    print(f"BIGINT numpy batch of {probes:,}: might_contain_many {rate / 1e6:.1f} M/s "
          f"({best['might_contain_many'] * 1e3:.1f} ms); test_hashes on precomputed hashes "
          f"{probes / best['test_hashes'] / 1e6:.1f} M/s; hash_values alone "
          f"{probes / best['hash_values'] / 1e6:.1f} M/s")
    print(f"BIGINT from a Python list of {len(as_list):,}: {len(as_list) / best['list'] / 1e6:.2f} M/s; "
          f"scalar might_contain x {len(scalars):,}: {len(scalars) / best['scalar'] / 1e6:.3f} M/s")
    print(f"observed false-positive rate on absent values: {absent_fp:.3f} (configured fpp 0.1)")

    strings_in = [f"user-{i:09d}@example.com" for i in range(items)]
    swriter = BloomFilterFileIndexWriter(string)
    t0 = time.perf_counter()
    swriter.write_many(strings_in)
    sbuild_s = time.perf_counter() - t0
    sreader = BloomFilterFileIndexReader(string, swriter.serialized_bytes())
    sidx = rng.integers(0, 2 * items, size=string_probes).tolist()
    sbatch = [f"user-{i:09d}@example.com" for i in sidx]
    sbest = best_of({"strings": lambda: sreader.might_contain_many(sbatch)}, repeat)
    srate = string_probes / sbest["strings"]
    print(f"STRING filter: {items:,} values inserted in {sbuild_s:.2f} s; batch of {string_probes:,} "
          f"(list of str, xxhash per value): {srate / 1e6:.2f} M/s")
    print(f"RESULT bloom-probe BIGINT numpy might_contain_many: {rate / 1e6:.1f} M probes/s "
          f"(test_hashes {probes / best['test_hashes'] / 1e6:.1f} M/s); target >= {BLOOM_TARGET / 1e6:.0f} M/s: "
          f"{verdict(rate >= BLOOM_TARGET)}")
    print(f"RESULT bloom-probe STRING might_contain_many: {srate / 1e6:.2f} M probes/s (no target)")
    return rate


# ---- 3a. fixture tables --------------------------------------------------------------------------

@dataclass(frozen=True)
class TableFacts:
    """Size facts of one fixture table's indexes and deletion vectors."""

    path: Path
    files: int
    indexes: int
    index_bytes: int
    vectors: int
    dv_bytes: int


def decode_table(table: Table, summaries: bool = True) -> tuple[int, int]:
    """Decode every file index and deletion vector; (index count, dv count).

    ``table_file_indexes`` already computes each summary once (to surface corruption); with
    ``summaries`` every ``IndexInfo.summary()`` is also asked for, as the ``file_indexes()`` frame does.
    """
    infos = table_file_indexes(table.reader)
    if summaries:
        for info in infos:
            info.summary()
    dvs = table_deletion_vectors(table.reader)
    errors = [i.error for i in infos if i.error] + [d.error for d in dvs if d.error]
    if errors:
        raise AssertionError(f"{table.path}: {errors[:3]}")
    return len(infos), len(dvs)


def table_variants(path: Path, table: Table) -> dict[str, Callable[[], object]]:
    """Cold (new ``open_table``), warm (``table`` reused) and warm without the frame's summaries."""
    def cold() -> tuple[int, int]:
        return decode_table(open_table(str(path)))

    def warm() -> tuple[int, int]:
        return decode_table(table)

    def warm_once() -> tuple[int, int]:
        return decode_table(table, summaries=False)

    return {"cold": cold, "warm": warm, "warm_once": warm_once}


def fixture_tables() -> list[TableFacts]:
    """Every fixture table with its index and deletion-vector byte counts."""
    out = []
    for path in sorted(FIXTURES.glob("tables*/*/warehouse/*.db/*/")):
        table = open_table(str(path))
        infos = table_file_indexes(table.reader)
        dvs = table_deletion_vectors(table.reader)
        out.append(TableFacts(path, len(table.live_files()), len(infos), sum(i.bytes for i in infos),
                              len(dvs), sum(d.length for d in dvs)))
    return out


_CHILD = """
import sys, time
t0 = time.perf_counter()
from paimon_lens.table import open_table
from benchmarks.bench_formats import decode_table
decode_table(open_table(sys.argv[1]))
print(time.perf_counter() - t0)
"""


def fresh_process_seconds(path: Path) -> float:
    """Imports + open + decode of one table in a new interpreter (seconds, measured inside it)."""
    res = subprocess.run([sys.executable, "-c", _CHILD, str(path)], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return float(res.stdout.split()[-1])


def bench_tables(repeat: int) -> None:
    """Section 3a: cold and warm decode of the largest fixture tables."""
    print(f"\n== 3a. decode every file index + deletion vector of a fixture table (best of {repeat}) ==")
    facts = fixture_tables()
    by_index = max(facts, key=lambda f: f.index_bytes + f.dv_bytes)
    chosen = [by_index]
    by_dv = max(facts, key=lambda f: (f.dv_bytes, f.index_bytes))
    if by_dv is not by_index:
        chosen.append(by_dv)
    for f in chosen:
        rel = f.path.relative_to(ROOT)
        table = open_table(str(f.path))
        decode_table(table)  # warm up the table object's caches
        best = best_of(table_variants(f.path, table), repeat)
        fresh = min(fresh_process_seconds(f.path) for _ in range(max(1, min(repeat, 3))))
        print(f"{rel}: {f.files} live files, {f.indexes} indexes ({f.index_bytes:,} bytes), "
              f"{f.vectors} deletion vectors ({f.dv_bytes:,} bytes)")
        print(f"warm without the frame's second summary() per index: {best['warm_once'] * 1e3:.1f} ms")
        print(f"RESULT table-decode {rel.parts[-1]}: cold {best['cold'] * 1e3:.1f} ms, warm "
              f"{best['warm'] * 1e3:.1f} ms, fresh interpreter (imports included) {fresh * 1e3:.0f} ms "
              f"for {f.indexes} indexes + {f.vectors} DVs (no target)")


# ---- 3b. synthetic index set ---------------------------------------------------------------------

SYNTHETIC_TYPES = {
    "user_id": parse_type("BIGINT"),
    "country": parse_type("STRING"),
    "price": parse_type("INT"),
    "qty": parse_type("BIGINT"),
}


def synthetic_container(rows: int, seed: int) -> bytes:
    """One data file's index container: bloom, bitmap, range-bitmap and bsi over ``rows`` rows."""
    rng = np.random.default_rng(seed)
    user_id = rng.integers(0, 10**12, size=rows, dtype=np.int64)
    bloom = BloomFilterFileIndexWriter(SYNTHETIC_TYPES["user_id"], items=rows)
    bloom.write_many(user_id)
    country: list[str | None] = [f"country-{c:03d}" for c in rng.integers(0, 200, size=rows).tolist()]
    for i in rng.integers(0, rows, size=rows // 100).tolist():
        country[i] = None
    price = rng.integers(100, 5_100, size=rows).tolist()
    qty = rng.integers(0, 1_000, size=rows).tolist()
    return write_file_index({
        "user_id": {"bloom-filter": bloom.serialized_bytes()},
        "country": {"bitmap": write_bitmap_index(SYNTHETIC_TYPES["country"], country)},
        "price": {"range-bitmap": write_range_bitmap(SYNTHETIC_TYPES["price"], price)},
        "qty": {"bsi": write_bsi(SYNTHETIC_TYPES["qty"], qty)},
    })


def decode_containers(containers: Sequence[bytes], per_type: dict[str, float] | None = None) -> int:
    """Decode every index of every container as ``file_indexes`` does; returns the index count.

    With ``per_type``, the time spent per index type is added to it (seconds).
    """
    count = 0
    for n, data in enumerate(containers):
        container = FileIndexFormatReader(data, f"container-{n}")
        for col in container.layout.columns:
            dtype = SYNTHETIC_TYPES[col.column]
            for entry in col.indexes:
                t0 = time.perf_counter() if per_type is not None else 0.0
                raw = container.read_entry(entry) or b""
                summarize(create_reader(entry.index_type, dtype, raw, container.path, entry.start))
                if per_type is not None:
                    per_type[entry.index_type] = per_type.get(entry.index_type, 0.0) + time.perf_counter() - t0
                count += 1
    return count


def decode_dv_file(data: bytes, metas: Sequence[Any]) -> int:
    """Read every deletion vector of one DV index file as ``table_deletion_vectors`` does."""
    total = 0
    for m in metas:
        total += read_deletion_vector(data, m.offset, m.length, None, "dv-index").cardinality
    return total


def bench_synthetic(containers: int, unique: int, rows: int, repeat: int, profile: bool) -> None:
    """Section 3b: a synthetic index set decoded at scale."""
    print(f"\n== 3b. synthetic index set: {containers:,} containers of 4 indexes over {rows:,}-row columns "
          f"(best of {repeat}) ==")
    t0 = time.perf_counter()
    built = [synthetic_container(rows, seed) for seed in range(unique)]
    build_s = time.perf_counter() - t0
    batch = [built[i % unique] for i in range(containers)]
    rng = np.random.default_rng(5)
    vectors = {f"data-{i:05d}.parquet": rng.choice(rows, size=rows // 20, replace=False).tolist()
               for i in range(containers)}
    dv_data, metas = write_dv_index_file(vectors)
    total_bytes = sum(len(c) for c in batch)
    sizes: dict[str, int] = {}
    for col in FileIndexFormatReader(built[0]).layout.columns:
        for e in col.indexes:
            sizes[e.index_type] = e.length
    print(f"{unique} distinct containers built in {build_s:.1f} s and cycled to {containers:,}; "
          f"{total_bytes / MB:.1f} MB of containers ({', '.join(f'{k} {v:,} B' for k, v in sizes.items())} each); "
          f"DV index file of {len(metas):,} vectors x {rows // 20:,} rows ({len(dv_data) / MB:.1f} MB)")
    best = best_of({
        "indexes": lambda: decode_containers(batch),
        "dvs": lambda: decode_dv_file(dv_data, metas),
    }, repeat)
    split: dict[str, float] = {}
    for _ in range(repeat):
        one: dict[str, float] = {}
        decode_containers(batch, one)
        for k, v in one.items():
            split[k] = min(split.get(k, math.inf), v)
    per_type = {k: v / containers * 1e3 for k, v in split.items()}
    per_container_ms = best["indexes"] / containers * 1e3
    print("per container by index type: " + ", ".join(f"{k} {v:.2f} ms" for k, v in per_type.items()))
    if profile:
        print("-- cProfile of decoding the containers:")
        print(profile_top(lambda: decode_containers(batch[: max(1, containers // 10)])))
    print(f"RESULT synthetic-decode {containers:,} containers x 4 indexes: {best['indexes']:.2f} s total, "
          f"{per_container_ms:.2f} ms per container ({total_bytes / MB / best['indexes']:.0f} MB/s); "
          f"{len(metas):,} deletion vectors: {best['dvs'] * 1e3:.0f} ms, "
          f"{best['dvs'] / len(metas) * 1e6:.0f} us each (no target)")


# ---- records -------------------------------------------------------------------------------------

_BITMAP = re.compile(r"RESULT bitmap-decode (\w+): worst ratio ([\d.]+) \((.+?)\), aggregate (.+); "
                     r"target >= ([\d.]+): (\w+)$")
_BLOOM = re.compile(r"RESULT bloom-probe BIGINT numpy might_contain_many: (.+); target >= (\d+) M/s: (\w+)$")
_STRING = re.compile(r"RESULT bloom-probe STRING might_contain_many: (.+) \(no target\)$")
_TABLE = re.compile(r"RESULT table-decode (\S+): (.+) for (\d+) indexes \+ (\d+) DVs \(no target\)$")
_SYNTHETIC = re.compile(r"RESULT synthetic-decode ([\d,]+) containers x 4 indexes: (.+) \(no target\)$")


def records(lines: Sequence[str]) -> list[rec.Record]:
    """The RESULTS.md rows of a run, from its ``RESULT`` lines (in their order)."""
    out = []
    for line in lines:
        if m := _BITMAP.match(line):
            api, ratio, case, aggregate, target, met = m.groups()
            out.append(rec.Record(f"bitmap decode >= {float(target):.0%} of bare pyroaring, `{api}()`",
                                  f"worst case {case}; aggregate {aggregate}", float(ratio), met))
        elif m := _BLOOM.match(line):
            result, target, met = m.groups()
            out.append(rec.Record(f"bloom probes >= {target} M/s (BIGINT numpy batch, default sizing, hashing "
                                  "included)", result, None, met))
        elif m := _STRING.match(line):
            out.append(rec.Record("bloom probes, STRING (a list of str, one xxhash per value)", m.group(1)))
        elif m := _TABLE.match(line):
            name, result, indexes, dvs = m.groups()
            out.append(rec.Record(f"decode every file index and deletion vector of fixture table `{name}` "
                                  f"({indexes} indexes, {dvs} DVs)", result))
        elif m := _SYNTHETIC.match(line):
            out.append(rec.Record(f"synthetic: decode {m.group(1)} containers of 4 indexes (bloom, bitmap, "
                                  "range-bitmap, bsi) and as many deletion vectors", m.group(2)))
        elif line.startswith("RESULT "):
            raise ValueError(f"a RESULT line records() does not know: {line}")
    return out


def details_body(command: str, commit: str, output: str) -> str:
    """The measured part of results_formats.md: the run's whole output."""
    return f"Output of `{command}` at commit `{commit}`:\n\n```text\n{output.strip()}\n```"


def write_results(command: str, commit: str, output: str, machine: rec.MachineFacts | str, date: str) -> None:
    """The RESULTS.md section (from the output's RESULT lines) and results_formats.md."""
    rec.update_results("bench_formats", command, records(output.splitlines()), summary=SUMMARY, machine=machine,
                       commit=commit, date=date, details=DETAILS.name)
    rec.write_details(DETAILS, details_body(command, commit, output), "File-index and deletion-vector decoding")


# ---- main ----------------------------------------------------------------------------------------

def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_formats", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one round (smoke test)")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed rounds per measurement (default 7, quick 1; the synthetic set uses at most 3)")
    p.add_argument("--only", choices=SECTIONS, action="append", help="run only this section (repeatable)")
    p.add_argument("--profile", action="store_true",
                   help="for missed bitmap cases print a cProfile and a cost breakdown; profile the synthetic decode")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the selected sections and print their results; a run that is not ``--quick`` records them."""
    args = parse_args(argv)
    record = not args.quick  # quick runs print only
    commit = rec.git_commit() if record else ""  # before the run: the code the numbers belong to
    date = rec.utc_now()
    command = rec.command_line("bench_formats", argv)
    tee = rec.Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        run(args, command)
    records(tee.text().splitlines())  # every RESULT line is known, also in quick runs
    if record:
        write_results(command, commit, tee.text(), rec.machine_facts(PACKAGES), date)
        print(f"wrote {rec.RESULTS} and {DETAILS}")
    return 0


def run(args: argparse.Namespace, command: str) -> None:
    """The selected sections, printing their output."""
    quick = args.quick
    repeat = args.repeat or (1 if quick else 7)
    sections = args.only or list(SECTIONS)
    mode = "quick" if quick else "full"
    print(f"paimon-lens format benchmarks ({mode}): {command}")
    for line in machine_facts():
        print(line)
    print(f"calibration: 1M-iteration Python loop {calibration_ms():.1f} ms (best of 5)")
    t0 = time.perf_counter()
    if "bitmap" in sections:
        bench_bitmap(0.01 if quick else 1.0, repeat, args.profile)
    if "bloom" in sections:
        bench_bloom(200_000 if quick else 10_000_000, 10_000 if quick else 1_000_000, repeat)
    if "tables" in sections:
        bench_tables(repeat)
    if "synthetic" in sections:
        if quick:
            bench_synthetic(containers=8, unique=2, rows=2_000, repeat=repeat, profile=args.profile)
        else:
            bench_synthetic(containers=1_000, unique=100, rows=10_000, repeat=min(repeat, 3), profile=args.profile)
    print(f"\ncalibration at the end: 1M-iteration Python loop {calibration_ms():.1f} ms (best of 5)")
    print(f"total benchmark time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    raise SystemExit(main())
