"""Benchmark: how open, explain and full index decode grow with the number of files (issue 7).

Run from the repository root::

    python -m benchmarks.bench_scale                                  # 1,000 / 10,000 / 100,000 files,
                                                                      # local and Spark; writes its RESULTS.md
                                                                      # section and results_scale.md
    python -m benchmarks.bench_scale --quick                          # 200 and 1,000 files, prints only
    python -m benchmarks.bench_scale --sizes 1000,10000 --engines local,spark

For every size a metadata-only primary-key table is generated with
:func:`benchmarks.synthetic_table.make_table` (``data_files=False``: schema, snapshot, Avro
manifests, file-index containers embedded in the manifests or in ``.index`` files, deletion-vector
index files; no parquet, since ``explain`` without ``truth`` and index decoding never read data
files) and cached under ``<tmp>/paimon-lens-bench/`` (``--cache-dir``; keyed by size, seed and a
hash of the generator's source), 20 partitions x 4 buckets, 200 rows per file, as in
``bench_explain``. Generating 100,000 files took ~2 min on 2 CPUs, once.

Every (size, engine) run is one fresh interpreter (no paimon-lens cache survives; the OS page
cache is warm), timed with ``time.perf_counter``:

``spark session``
    Spark engine only: ``SparkSession`` start with ``local[2]``, UI disabled,
    ``SPARK_LOCAL_IP=127.0.0.1``, ``PYSPARK_PYTHON`` = this interpreter (reported apart).
``open + explain``
    ``open_table(path, engine=...)`` + the first ``table.explain(WHERE)`` of the
    ``bench_explain`` primary-key predicate (every stage prunes something).
``+ every answer``
    ``open + explain`` plus ``report.to_dict()`` (timed last, after ``deletion_vectors``): the
    index answer of *every* file, also of files that partition or stats pruning removed. On both
    engines the answers planning did not need are computed lazily, on first use (on Spark the
    tasks compute the ones planning needs and the driver the others), so ``open + explain``
    leaves them out and this column has them.
``file_indexes``
    ``table.file_indexes()``: every index container of every file decoded and summarised.
``deletion_vectors``
    ``table.deletion_vectors()``: every deletion vector decoded and CRC-checked.

The Spark explain's per-file records (``report.to_dict()["files"]``) and summary must equal the
local engine's for the same size (asserted; ``agree`` column); the ``file_indexes`` and
``deletion_vectors`` frames are compared too (row count and a hash of their CSV text). The
1-minute load average is read before and after every run. A full run rewrites the benchmark's
section of ``RESULTS.md`` (:func:`records`) and the measured part of ``results_scale.md``, which
keeps any text outside its ``<!-- results:begin/end -->`` markers (the analysis).
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import bench_explain
from benchmarks import records as rec
from benchmarks.bench_explain import (
    BUCKETS,
    END,
    PARTITIONS,
    ROWS,
    SEED,
    WHERE,
    code_version,
    results_header,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results_scale.md"
SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (200, 1_000)
ENGINES = ("local", "spark")
SPARK_MASTER = "local[2]"
PREDICATE = WHERE["pk"]
SUMMARY = ("How `open_table` + the first `explain`, every file's index answer, `file_indexes()` and "
           "`deletion_vectors()` grow with the number of files on the local and the Spark engine (a fresh "
           "interpreter per run); ratio: Spark open + explain time / local.")


# ---- table cache --------------------------------------------------------------------------------

def cached_table(cache_dir: Path, files: int, rebuild: bool = False) -> tuple[Path, float | None]:
    """The metadata-only primary-key table of ``files`` files, built if missing; (path, build s or None)."""
    return bench_explain.cached_table(cache_dir, files, True, rebuild, data_files=False)


# ---- worker (a fresh interpreter per size and engine) -------------------------------------------

def _frame_digest(frame: Any) -> dict[str, Any]:
    """Row count and a sha256 of a frame's CSV text (to compare engines without shipping frames)."""
    text = frame.to_csv(index=False)
    return {"rows": len(frame), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]}


def worker(path: str, engine: str, records_out: str) -> dict[str, Any]:
    """Time one engine on one table; write the explain's per-file records to ``records_out``."""
    import paimon_lens as pl

    out: dict[str, Any] = {"engine": engine}
    session: Any = None
    if engine == "spark":
        t = time.perf_counter()
        from pyspark.sql import SparkSession

        session = (SparkSession.builder.master(SPARK_MASTER).appName("paimon-lens-bench-scale")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.memory", "4g")
                   .config("spark.driver.maxResultSize", "2g")
                   .getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        out["session"] = time.perf_counter() - t
    try:
        t0 = time.perf_counter()
        table = (pl.open_table(path, progress=False, engine="spark", spark=session) if session is not None
                 else pl.open_table(path, progress=False))
        out["open"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        report = table.explain(PREDICATE)
        out["explain"] = time.perf_counter() - t1
        out["open_explain"] = time.perf_counter() - t0
        t2 = time.perf_counter()
        indexes = table.file_indexes()
        out["file_indexes"] = time.perf_counter() - t2
        t3 = time.perf_counter()
        dvs = table.deletion_vectors()
        out["deletion_vectors"] = time.perf_counter() - t3
        out["total"] = time.perf_counter() - t0
        t4 = time.perf_counter()
        d = report.to_dict()  # every file's index answer: lazy in process, computed by the tasks on Spark
        out["answers"] = time.perf_counter() - t4
        summary = d["summary"]
        out["files"] = summary["files"]
        out["planned_files"] = summary["planned_files"]
        out["skipped_by"] = summary["skipped_by"]
        out["file_indexes_frame"] = _frame_digest(indexes)
        out["deletion_vectors_frame"] = _frame_digest(dvs)
        with open(records_out, "w", encoding="utf-8") as f:
            json.dump({"files": d["files"], "summary": summary, "notes": d["notes"]}, f, default=str)
    finally:
        if session is not None:
            session.stop()
    return out


def run_worker(path: Path, engine: str, records_out: Path) -> dict[str, Any]:
    """Run :func:`worker` in a fresh interpreter; load average read before and after."""
    env = dict(os.environ)
    if engine == "spark":
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
        env["PYSPARK_PYTHON"] = sys.executable
        env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    cmd = [sys.executable, "-m", "benchmarks.bench_scale", "--worker", engine, "--table", str(path),
           "--records", str(records_out)]
    load_before = os.getloadavg()
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - t
    load_after = os.getloadavg()
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} worker failed on {path}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall"] = wall
    result["load_before"] = load_before[0]
    result["load_after"] = load_after[0]
    return result


def agree(local: Path, other: Path) -> tuple[bool, str]:
    """Whether two explain record files are equal; a short reason when they are not."""
    a = json.loads(local.read_text(encoding="utf-8"))
    b = json.loads(other.read_text(encoding="utf-8"))
    if len(a["files"]) != len(b["files"]):
        return False, f"{len(a['files'])} vs {len(b['files'])} file records"
    for i, (x, y) in enumerate(zip(a["files"], b["files"])):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            return False, f"file record {i} ({x.get('file_name')}) differs in {', '.join(keys)}"
    if a["summary"] != b["summary"]:
        return False, "summaries differ"
    if a["notes"] != b["notes"]:
        return False, "notes differ"
    return True, f"{len(a['files']):,} file records equal"


# ---- report -------------------------------------------------------------------------------------

def _s(x: float | None) -> str:
    return "-" if x is None else (f"{x:.2f} s" if x < 100 else f"{x:.0f} s")


def _us(x: float, files: int) -> str:
    return f"{x / files * 1e6:,.0f} us"


ROW_HEAD = ("| files | engine | spark session | open_table | first explain | open + explain | + every answer "
            "| file_indexes "
            "| deletion_vectors | process wall | per file (open+explain / file_indexes) | agree | load 1m "
            "before -> after |")


def table_rows(results: list[dict[str, Any]]) -> list[str]:
    """The markdown table of every run."""
    lines = [ROW_HEAD, "| " + " | ".join(["---"] * 13) + " |"]
    for r in results:
        n = r["size"]
        lines.append(
            f"| {n:,} | {r['engine']} | {_s(r.get('session'))} | {_s(r['open'])} | {_s(r['explain'])} | "
            f"{_s(r['open_explain'])} | {_s(r['open_explain'] + r['answers'])} | {_s(r['file_indexes'])} | "
            f"{_s(r['deletion_vectors'])} | "
            f"{_s(r['process_wall'])} | {_us(r['open_explain'], n)} / {_us(r['file_indexes'], n)} | "
            f"{r.get('agree', '-')} | {r['load_before']:.2f} -> {r['load_after']:.2f} |")
    return lines


def render(args: argparse.Namespace, results: list[dict[str, Any]], built: dict[int, float | None]) -> str:
    """The measured part of results_scale.md."""
    lines = [
        *results_header("bench_scale", args.code),
        f"* tables: metadata-only primary-key tables (`make_table(..., primary_key=True, data_files=False)`), "
        f"{PARTITIONS} partitions x {BUCKETS} buckets, {ROWS} rows per file, seed {SEED}; "
        + "; ".join(f"{n:,} files " + ("cached" if s is None else f"generated in {s:.0f} s")
                    for n, s in built.items()),
        f"* Spark: `{SPARK_MASTER}`, UI disabled, `SPARK_LOCAL_IP=127.0.0.1`, `PYSPARK_PYTHON` = the venv's "
        "python; each (size, engine) run in a fresh interpreter, one run each, OS page cache warm",
        f"* predicate: `{PREDICATE}`",
        "* agree: the Spark explain's `to_dict()` per-file records, summary and notes equal the local "
        "engine's; the `file_indexes()` and `deletion_vectors()` frames have equal CSV hashes",
        "",
    ]
    lines += table_rows(results)
    lines.append("")
    for r in results:
        if r["engine"] == "local":
            lines.append(f"* {r['size']:,} files: {r['files']:,} live -> {r['planned_files']:,} planned; "
                         f"removed by stage: {', '.join(f'{k} {v:,}' for k, v in r['skipped_by'].items() if v)}; "
                         f"file_indexes {r['file_indexes_frame']['rows']:,} rows, deletion_vectors "
                         f"{r['deletion_vectors_frame']['rows']:,} rows")
    lines += ["", END]
    return "\n".join(lines)


def run_record(size: int, engine: str, open_explain: float, every_answer: float, file_indexes: float,
               deletion_vectors: float, session: float | None = None, agree: str | None = None,
               local_open_explain: float | None = None) -> rec.Record:
    """The RESULTS.md row of one (size, engine) run (seconds; ``agree`` yes/no against the local engine)."""
    calls = "`open_table` + first `explain`, every file's answer, `file_indexes()`, `deletion_vectors()`"
    if engine == "local":
        target = f"local engine, {size:,} files: {calls}"
    else:
        target = f"{engine} engine (`{SPARK_MASTER}`), {size:,} files: {calls}" + (
            ", results equal to the local engine's" if agree is not None else "")
    result = (f"open + explain {_s(open_explain)} ({_us(open_explain, size)} per file), every answer "
              f"{_s(every_answer)}, file_indexes {_s(file_indexes)}, deletion_vectors {_s(deletion_vectors)}"
              + (f"; session start {_s(session)}" if session is not None else ""))
    ratio = None if engine == "local" or not local_open_explain else open_explain / local_open_explain
    return rec.Record(target, result, ratio, rec.verdict(None if agree is None else agree == "yes"))


def records(results: list[dict[str, Any]]) -> list[rec.Record]:
    """The RESULTS.md rows of a run: :func:`run_record` of every (size, engine)."""
    local = {r["size"]: r["open_explain"] for r in results if r["engine"] == "local"}
    return [run_record(r["size"], r["engine"], r["open_explain"], r["open_explain"] + r["answers"], r["file_indexes"],
                       r["deletion_vectors"], r.get("session"), r.get("agree"), local.get(r["size"]))
            for r in results]


def write_results(text: str) -> None:
    """Replace the measured section of results_scale.md, keeping the rest."""
    bench_explain.write_marked_section(RESULTS, text, "Scale: 1,000 to 100,000 files, local and Spark engines")


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--sizes", default=None, help="data files per table, comma-separated (default 1000,10000,100000)")
    ap.add_argument("--engines", default=",".join(ENGINES), help="local, spark or both (default local,spark)")
    ap.add_argument("--quick", action="store_true", help="sizes 200,1000; prints only (no results file)")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    ap.add_argument("--rebuild", action="store_true", help="regenerate the cached tables")
    ap.add_argument("--write", action="store_true", help="write results_scale.md even with --quick")
    ap.add_argument("--no-write", action="store_true", help="do not write results_scale.md")
    ap.add_argument("--generate-only", action="store_true", help="only build the cached tables")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--table", help=argparse.SUPPRESS)
    ap.add_argument("--records", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.table, args.worker, args.records)))
        return 0
    sizes = ([int(s) for s in args.sizes.split(",") if s.strip()] if args.sizes
             else list(QUICK_SIZES if args.quick else SIZES))
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES:
            ap.error(f"unknown engine {e!r} (local, spark)")
    args.code = code_version()
    commit = rec.git_commit()  # before the runs: the code the numbers belong to
    compileall.compile_dir(ROOT / "paimon_lens", quiet=1)  # as installed; see bench_explain
    results: list[dict[str, Any]] = []
    built: dict[int, float | None] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for n in sizes:
            path, seconds = cached_table(args.cache_dir, n, args.rebuild)
            built[n] = seconds
            how = f"generated in {seconds:.1f} s" if seconds is not None else "cached"
            print(f"[{n:,}] table {path} ({how})", flush=True)
            if args.generate_only:
                continue
            record_files: dict[str, Path] = {}
            for engine in engines:
                record_files[engine] = Path(tmp) / f"{n}-{engine}.json"
                r = run_worker(path, engine, record_files[engine])
                r["size"] = n
                if engine != "local" and "local" in record_files:
                    ok, why = agree(record_files["local"], record_files[engine])
                    local = next(x for x in results if x["size"] == n and x["engine"] == "local")
                    for frame in ("file_indexes_frame", "deletion_vectors_frame"):
                        if r[frame] != local[frame]:
                            ok, why = False, f"{why}; {frame} differs: {r[frame]} vs {local[frame]}"
                    r["agree"] = "yes" if ok else "no"
                    r["agree_detail"] = why
                    if not ok:
                        failures.append(f"{n:,} files, {engine}: {why}")
                results.append(r)
                print(f"[{n:,}] {engine:5}: " + (f"session {r['session']:.2f} s, " if "session" in r else "")
                      + f"open {r['open']:.2f} s, explain {r['explain']:.2f} s, file_indexes "
                      f"{r['file_indexes']:.2f} s, deletion_vectors {r['deletion_vectors']:.2f} s, process "
                      f"{r['process_wall']:.1f} s; load {r['load_before']:.2f} -> {r['load_after']:.2f}"
                      + (f"; agree: {r['agree']} ({r['agree_detail']})" if "agree" in r else ""), flush=True)
    if results:
        print()
        print("\n".join(table_rows(results)))
        if (not args.quick or args.write) and not args.no_write:
            write_results(render(args, results, built))
            print(f"wrote {RESULTS}")
        if not args.quick and not args.no_write:
            rec.update_results("bench_scale", rec.command_line("bench_scale", argv), records(results),
                               summary=SUMMARY, machine=rec.machine_facts((*rec.DEFAULT_PACKAGES, "pyspark")),
                               commit=commit, details=RESULTS.name)
            print(f"wrote {rec.RESULTS}")
    if failures:
        print("DISAGREEMENT:\n" + "\n".join(failures), file=sys.stderr)
    assert not failures, "the Spark engine disagrees with the local engine"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
