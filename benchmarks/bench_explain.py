"""Benchmark: ``open_table`` + ``explain`` of one predicate on a 10,000-file synthetic table.

Run from the repository root::

    python -m benchmarks.bench_explain                 # 10,000 files: RESULTS.md section, results_explain.md
    python -m benchmarks.bench_explain --quick         # 1,000 files, one repetition, prints only
    python -m benchmarks.bench_explain --files 20000   # another size

The tables come from :func:`benchmarks.synthetic_table.make_table` and are cached under
``<tmp>/paimon-lens-bench/`` (``--cache-dir``; keyed by size, seed and a hash of the generator's
source), so only the first run pays for generating them.

What is timed (``time.perf_counter``, each measurement in a fresh interpreter so that no
paimon-lens cache survives; the OS page cache is warm after the first run):

``cold``
    ``open_table(path)`` + the first ``explain(table, WHERE)``: what a user waits for in a new
    notebook kernel (imports are reported separately). The target: under 2 s for the
    primary-key table, whose predicate goes through every stage (partition, stats, embedded
    index, external index, deletion vectors).
``warm``
    ``explain`` of a new predicate on the same table object (manifests and stats cached).
``breakdown``
    One fresh interpreter, new table: the third-party imports explain does lazily (fastavro,
    numpy, sqlglot), ``open_table``, manifest reading (``live_entries``), live files
    (``live_files``: partitions, paths, stats), then the first ``explain`` with ``scan.plan`` and
    ``table_deletion_vectors`` wrapped by timers, which splits it into planning, deletion vectors
    and the read stage (with the report); planning is further split by the cProfile shares of a
    warm ``scan.plan`` into index evaluation (``open_container`` + ``FileIndexPredicate``),
    value-stats tests (``stats_test`` and the compiled tests of ``compile_stats_test``) and the rest.
``profile``
    cProfile of ``open_table`` + the first ``explain``: top 20 by cumulative and by own time
    (cProfile roughly doubles the wall time; the shares are what matters).

Before the runs ``paimon_lens/`` is byte-compiled (``compileall``, into the git-ignored
``__pycache__`` directories) as an installed package is: with ``PYTHONDONTWRITEBYTECODE`` set
(as in some sandboxes) an editable checkout would otherwise be compiled from source by every
fresh interpreter, about 0.2-0.3 s that a user's kernel does not pay (``--no-compile`` measures
that case).

A full run rewrites the benchmark's section of ``RESULTS.md`` (:func:`records`) and the measured part
of ``results_explain.md``, which keeps any text outside its ``<!-- results:begin/end -->`` markers
(the analysis).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import cProfile
import datetime as _dt
import hashlib
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks import records as rec

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results_explain.md"
TARGET_S = 2.0
PARTITIONS = 20
BUCKETS = 4
ROWS = 200
SEED = 0

#: the cold predicate: every stage prunes something on the primary-key table
WHERE = {
    "pk": ("dt >= '2025-01-05' AND dt <= '2025-01-12' AND country = 'DE' AND status = 'pending' "
           "AND score BETWEEN 300 AND 700"),
    "append": ("dt >= '2025-01-05' AND dt <= '2025-01-12' AND country = 'DE' AND status = 'pending' "
               "AND score BETWEEN 300 AND 700"),
}
#: new predicates on the same table object (warm)
WARM = [
    "dt = '2025-01-03' AND status = 'closed' AND score < 200",
    "country IN ('FR', 'JP') AND score > 900",
    "id = 1234567",
]
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
SUMMARY = ("What a user waits for: `open_table` + the first `explain` of one predicate on a synthetic table of "
           "many files (each run in a fresh interpreter), then `explain` of new predicates on the same table object.")
KIND_NAMES = {"pk": "primary-key table with deletion vectors", "append": "append table"}


# ---- table cache --------------------------------------------------------------------------------

def generator_version() -> str:
    """Hash of the generator's source: a changed generator invalidates cached tables."""
    src = (Path(__file__).resolve().parent / "synthetic_table.py").read_bytes()
    return hashlib.sha256(src).hexdigest()[:12]


def cached_table(cache_dir: Path, files: int, primary_key: bool, rebuild: bool,
                 data_files: bool = True) -> tuple[Path, float | None]:
    """The synthetic table for these parameters, built if missing; (path, build seconds or None).

    ``data_files=False`` builds the metadata only (manifests, index files, DVs; see ``make_table``).
    """
    from benchmarks.synthetic_table import make_table

    kind = ("pk" if primary_key else "append") if data_files else ("meta-pk" if primary_key else "meta-append")
    key = f"{kind}-f{files}-p{PARTITIONS}-b{BUCKETS}-r{ROWS}-s{SEED}-{generator_version()}"
    return cached_build(cache_dir, key, rebuild, lambda tmp: make_table(
        tmp, files=files, partitions=PARTITIONS, buckets=BUCKETS, rows_per_file=ROWS, primary_key=primary_key,
        seed=SEED, data_files=data_files))


def cached_build(cache_dir: Path, key: str, rebuild: bool, build: Callable[[Path], object]
                 ) -> tuple[Path, float | None]:
    """``cache_dir/key``, built by ``build(tmp_dir)`` (then renamed into place, with a ``.done``
    marker holding the build seconds) if missing or ``rebuild``; (path, build seconds or None)."""
    path = cache_dir / key
    done = cache_dir / (key + ".done")
    if done.exists() and path.is_dir() and not rebuild:
        return path, None
    shutil.rmtree(path, ignore_errors=True)
    tmp = cache_dir / (key + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    cache_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    build(tmp)
    seconds = time.perf_counter() - t0
    tmp.rename(path)
    done.write_text(f"{seconds:.1f}\n")
    return path, seconds


# ---- workers (run in a fresh interpreter) -------------------------------------------------------

def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    """(wall, CPU) seconds since ``start``: CPU time is what the call costs without contention."""
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def worker_cold(path: str, where: str) -> dict[str, Any]:
    """Imports, open_table, first explain, then warm explains of new predicates on the same table."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    t0 = _clock()
    import paimon_lens as pl
    from paimon_lens.pruning.explain import explain
    imports = _since(t0)
    t1 = _clock()
    table = pl.open_table(path, progress=False)
    opened = _since(t1)
    t2 = _clock()
    report = explain(table.reader, where)
    first = _since(t2)
    cold = _since(t1)
    warm = []
    for w in WARM:
        s = _clock()
        explain(table.reader, w)
        warm.append(_since(s))
    summary = report.summary()
    return {
        "import": imports, "open_table": opened, "first_explain": first, "cold": cold,
        "warm": warm, "files": summary["files"], "planned_files": summary["planned_files"],
        "read_files": summary["read_files"], "skipped_by": summary["skipped_by"],
        "index_locations": _locations(table), "load_before": load,
        "load_after": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _locations(table: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for lf in table.live_files():
        out[lf.index_location] = out.get(lf.index_location, 0) + 1
    return out


def worker_breakdown(path: str, where: str) -> dict[str, Any]:
    """The parts of a cold ``explain``, timed in one fresh interpreter on a new table.

    The table's public calls run first (manifests, then live files); ``explain`` then runs with
    ``scan.plan`` and ``table_deletion_vectors`` wrapped by timers (in this process only), so its
    own time splits exactly into planning, deletion vectors and the read stage. A cProfile of a
    second, warm ``scan.plan`` splits planning into index evaluation, value-stats tests and the rest.
    """
    import paimon_lens as pl
    import paimon_lens.inventory.deletion_vectors as dvs
    import paimon_lens.pruning.scan as scan
    from paimon_lens.inventory.file_indexes import open_container
    from paimon_lens.predicate.parser import parse_where
    from paimon_lens.pruning.explain import explain
    from paimon_lens.pruning.file_index_predicate import FileIndexPredicate

    out: dict[str, tuple[float, float]] = {}
    inside: dict[str, list[float]] = {"plan": [0.0, 0.0], "dv": [0.0, 0.0]}

    def timed(name: str, fn: Any) -> Any:
        s = _clock()
        value = fn()
        out[name] = _since(s)
        return value

    def wrap(key: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            s = _clock()
            try:
                return fn(*args, **kwargs)
            finally:
                wall, cpu = _since(s)
                inside[key][0] += wall
                inside[key][1] += cpu
        return wrapper

    def lazy_imports() -> None:
        import fastavro  # noqa: F401  (what explain imports on first use)
        import numpy  # noqa: F401
        import sqlglot  # noqa: F401

    timed("third-party imports done lazily by the first explain (fastavro, numpy, sqlglot)", lazy_imports)
    table = timed("open_table", lambda: pl.open_table(path, progress=False))
    timed("manifest reading (live_entries)", table.reader.live_entries)
    timed("live files: partitions, paths, stats (live_files)", table.live_files)
    plan, table_dvs = scan.plan, dvs.table_deletion_vectors
    scan.plan = wrap("plan", plan)
    dvs.table_deletion_vectors = wrap("dv", table_dvs)
    try:
        timed("explain (first, on this table)", lambda: explain(table.reader, where))
    finally:
        scan.plan, dvs.table_deletion_vectors = plan, table_dvs
    total = out.pop("explain (first, on this table)")
    planning = (inside["plan"][0], inside["plan"][1])
    predicate = parse_where(where, table.schema.fields)
    share = _index_share(lambda: plan(table.reader, predicate))
    parts = {
        f"explain: index evaluation (cProfile share {share['index']:.0%} of planning)": share["index"],
        f"explain: value-stats tests, stats_test / compiled ({share['stats']:.0%})": share["stats"],
        f"explain: rest of planning ({1 - share['index'] - share['stats']:.0%})": 1 - share["index"] - share["stats"],
    }
    out["explain: planning (scan.plan)"] = planning
    for name, part in parts.items():
        out[name] = (planning[0] * part, planning[1] * part)
    out["explain: deletion vectors (table_deletion_vectors)"] = (inside["dv"][0], inside["dv"][1])
    out["explain: read stage and report (the rest of explain)"] = (
        total[0] - inside["plan"][0] - inside["dv"][0], total[1] - inside["plan"][1] - inside["dv"][1])
    out["explain (first, on this table)"] = total
    timed("explain again, same predicate (warm)", lambda: explain(table.reader, where))

    def evaluate_every_index() -> int:
        n = 0
        for lf in table.live_files():
            container = open_container(table.reader, lf)
            if container is not None:
                FileIndexPredicate(container, table.schema.fields).evaluate(predicate)
                n += 1
        return n

    timed("for reference: open and evaluate the index container of every file", evaluate_every_index)
    return out


def _index_share(fn: Any) -> dict[str, float]:
    """Shares of ``fn()``'s time spent in index evaluation and in value-stats tests (cProfile)."""
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = getattr(pstats.Stats(prof), "stats", {})
    total = index = stats = 0.0
    for (filename, _, func), (_, _, _, cumulative, callers) in raw.items():
        name = filename.replace(os.sep, "/")
        if name.endswith("pruning/scan.py") and func == "plan":
            total = max(total, cumulative)
        elif (name.endswith("paimon_lens/file_indexes.py") and func == "open_container") or (
                name.endswith("pruning/file_index_predicate.py") and func in ("evaluate", "__init__")):
            index += cumulative
        elif name.endswith("pruning/stats.py") and (func == "stats_test" or func.startswith("test")):
            # stats_test and the tests compile_stats_test builds: time of the calls from outside
            stats += sum(c[3] for (caller, _, _), c in callers.items()
                         if not caller.replace(os.sep, "/").endswith("pruning/stats.py"))
    if total <= 0:
        return {"index": 0.0, "stats": 0.0}
    return {"index": min(index / total, 1.0), "stats": min(stats / total, 1.0)}


def worker_profile(path: str, where: str) -> dict[str, Any]:
    """cProfile of open_table + the first explain: top 20 by cumulative and by own time."""
    import paimon_lens as pl
    from paimon_lens.pruning.explain import explain

    prof = cProfile.Profile()
    s = time.perf_counter()
    prof.enable()
    table = pl.open_table(path, progress=False)
    explain(table.reader, where)
    prof.disable()
    wall = time.perf_counter() - s
    texts = {}
    for order in ("cumulative", "tottime"):
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf)
        stats.strip_dirs().sort_stats(order).print_stats(20)
        texts[order] = _trim_pstats(buf.getvalue())
    return {"wall_under_profile": wall, "cumulative": texts["cumulative"], "tottime": texts["tottime"]}


def _trim_pstats(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    head = [line.strip() for line in lines[:start] if "function calls" in line]
    return "\n".join(head + [""] + [line.rstrip() for line in lines[start:] if line.strip()])


WORKERS = {"cold": worker_cold, "breakdown": worker_breakdown, "profile": worker_profile}


def run_worker(kind: str, path: Path, where: str) -> dict[str, Any]:
    """Run one worker in a fresh interpreter and return its JSON result."""
    cmd = [sys.executable, "-m", "benchmarks.bench_explain", "--worker", kind, "--table", str(path),
           "--where", where]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{proc.stdout}\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# ---- report -------------------------------------------------------------------------------------

def machine() -> dict[str, str]:
    """nproc, CPU model, Python and library versions."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libs = []
    for name in ("pyarrow", "fastavro", "pyroaring", "numpy", "pandas"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            libs.append(f"{name} {metadata.version(name)}")
    return {"nproc": str(affinity), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "libraries": ", ".join(libs)}


def code_version() -> str:
    """``git`` commit of the checkout, and a hash of uncommitted changes under paimon_lens/ if any."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        diff = subprocess.run(["git", "diff", "HEAD", "--", "paimon_lens"], cwd=ROOT, capture_output=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    if not diff:
        return f"commit {head}"
    return f"commit {head} + uncommitted changes to paimon_lens/ (diff sha256 {hashlib.sha256(diff).hexdigest()[:12]})"


def _ms(x: float) -> str:
    return f"{x * 1000:,.0f} ms"


def _pair(values: list[Any]) -> tuple[float, float]:
    """Median wall and median CPU seconds of (wall, CPU) pairs."""
    return statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)


def _cell(pair: tuple[float, float]) -> str:
    return f"{_ms(pair[0])} | {_ms(pair[1])}"


def results_header(module: str, code: str) -> list[str]:
    """The first lines of a measured section: marker, date and command, machine, library versions."""
    m = machine()
    cmd = f"python -m benchmarks.{module}" + "".join(f" {a}" for a in sys.argv[1:] if not a.startswith("--cache-dir"))
    return [
        BEGIN,
        f"Measured {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')} with `{cmd}`.",
        "",
        f"* machine: {m['nproc']} CPUs available (nproc), {m['cpu']}, {m['platform']}",
        f"* Python {m['python']}; {m['libraries']}; paimon-lens {code}",
    ]


def render(args: argparse.Namespace, results: dict[str, dict[str, Any]], built: dict[str, float | None]) -> str:
    """The measured part of results_explain.md."""
    lines = [
        *results_header("bench_explain", args.code),
        f"* table: {args.files:,} data files, {PARTITIONS} partitions x {BUCKETS} buckets, {ROWS} rows per file, "
        f"seed {SEED} (`benchmarks/synthetic_table.py`); each measurement in a fresh interpreter, "
        f"OS page cache warm; {args.repeat} cold run(s), medians shown; paimon_lens byte-compiled "
        + ("beforehand (as installed)" if not args.no_compile else "from source by each run (`--no-compile`)"),
        "* wall = `time.perf_counter`, CPU = `time.process_time` of the benchmark process (all its threads); "
        "with other processes competing for the CPUs wall time grows and CPU time stays close to the "
        "uncontended wall time (explain is single-threaded apart from the manifest-reading pool)",
        "",
    ]
    for kind, r in results.items():
        cold = r["cold_runs"]
        med = _pair([x["cold"] for x in cold])
        first = cold[0]
        met = "met" if med[0] < TARGET_S else "NOT met"
        gen = built.get(kind)
        loads = [x[k] for x in cold for k in ("load_before", "load_after") if x.get(k) is not None]
        lines += [
            f"### {'primary-key table with deletion vectors' if kind == 'pk' else 'append table'}",
            "",
            f"Predicate: `{WHERE[kind]}`",
            "",
            f"Files: {first['files']:,} ({', '.join(f'{v:,} {k}' for k, v in sorted(first['index_locations'].items()))}"
            f" index containers) -> planned {first['planned_files']:,} -> read {first['read_files']:,}; "
            f"removed by stage: {', '.join(f'{k} {v:,}' for k, v in first['skipped_by'].items() if v)}.",
            "" if gen is None else f"(Table generated in this run in {gen:.1f} s.)",
            "" if not loads else f"1-minute load average during the cold runs: {min(loads):.2f} to {max(loads):.2f} "
            f"({machine()['nproc']} CPUs).",
            "",
            "| measurement | wall | CPU |",
            "| --- | --- | --- |",
            f"| import paimon_lens + explain module | {_cell(_pair([x['import'] for x in cold]))} |",
            f"| open_table | {_cell(_pair([x['open_table'] for x in cold]))} |",
            f"| first explain (manifests, stats, plan, indexes, DVs, read stage) | "
            f"{_cell(_pair([x['first_explain'] for x in cold]))} |",
            f"| **cold: open_table + first explain** | **{_ms(med[0])}** | **{_ms(med[1])}** |",
        ]
        for i, w in enumerate(WARM):
            lines.append(f"| warm: explain `{w}` on the same table | {_cell(_pair([x['warm'][i] for x in cold]))} |")
        lines += ["", f"Target (cold < {TARGET_S:.0f} s wall for one predicate with all stages): **{met}**"
                  + ("" if kind == "pk" else " (append table: no deletion-vector stage; for reference)"), ""]
        b = r["breakdown"]
        lines += ["Breakdown (public calls in sequence on a new table, one fresh interpreter):", "",
                  "| step | wall | CPU |", "| --- | --- | --- |"]
        lines += [f"| {k} | {_cell(v)} |" for k, v in b.items()]
        p = r["profile"]
        lines += ["", f"cProfile of open_table + first explain ({p['wall_under_profile']:.2f} s under the "
                  "profiler), top 20 by cumulative time:", "", "```", p["cumulative"], "```", "",
                  "Top 20 by own time:", "", "```", p["tottime"], "```", ""]
    lines.append(END)
    return "\n".join(lines)


def kind_records(kind: str, files: int, runs: int, cold: tuple[float, float], warm: list[tuple[float, float]],
                 planned: int, read: int) -> list[rec.Record]:
    """The RESULTS.md rows of one table: cold open + first explain (medians of wall, CPU) and the warm explains."""
    name = f"{KIND_NAMES[kind]}, {files:,} files"
    result = (f"{_ms(cold[0])} wall, {_ms(cold[1])} CPU (median of {runs}); {files:,} files -> planned "
              f"{planned:,} -> read {read:,}")
    if kind == "pk":
        first = rec.Record(f"cold `open_table` + first `explain` < {TARGET_S:.0f} s: {name}, every pruning stage",
                           result, None, rec.verdict(cold[0] < TARGET_S))
    else:
        first = rec.Record(f"cold `open_table` + first `explain`: {name}", result)
    return [first, rec.Record(f"warm `explain` of {len(warm)} new predicates on the same table object: {name}",
                              ", ".join(_ms(w[0]) for w in warm) + " wall")]


def records(results: dict[str, dict[str, Any]]) -> list[rec.Record]:
    """The RESULTS.md rows of a run: :func:`kind_records` of every table measured."""
    out: list[rec.Record] = []
    for kind, r in results.items():
        cold = r["cold_runs"]
        out += kind_records(kind, cold[0]["files"], len(cold), _pair([x["cold"] for x in cold]),
                            [_pair([x["warm"][i] for x in cold]) for i in range(len(WARM))],
                            cold[0]["planned_files"], cold[0]["read_files"])
    return out


def write_marked_section(path: Path, text: str, title: str) -> None:
    """Replace the part of ``path`` between the results markers with ``text`` (which carries them),
    keeping the rest; a new file gets ``title`` as its heading."""
    if path.exists():
        old = path.read_text(encoding="utf-8")
        if BEGIN in old and END in old:
            head, rest = old.split(BEGIN, 1)
            tail = rest.split(END, 1)[1]
            path.write_text(head + text + tail, encoding="utf-8")
            return
    path.write_text(f"# {title}\n\n" + text + "\n", encoding="utf-8")


def write_results(text: str) -> None:
    """Replace the measured section of results_explain.md, keeping the rest."""
    write_marked_section(RESULTS, text, "explain() on a 10,000-file table")


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--files", type=int, default=None, help="data files (default 10,000; 1,000 with --quick)")
    ap.add_argument("--quick", action="store_true", help="1,000 files, one repetition, no results file")
    ap.add_argument("--repeat", type=int, default=None, help="cold runs (default 3; 1 with --quick)")
    ap.add_argument("--tables", default="pk,append", help="which tables: pk, append or both (pk,append)")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    ap.add_argument("--rebuild", action="store_true", help="regenerate the cached tables")
    ap.add_argument("--write", action="store_true", help="write results_explain.md even with --quick")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not byte-compile paimon_lens/ first (measure compiling from source too)")
    ap.add_argument("--no-write", action="store_true", help="do not write results_explain.md")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--table", help=argparse.SUPPRESS)
    ap.add_argument("--where", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.table, args.where)))
        return 0
    args.code = code_version()  # before the runs: the state the numbers belong to
    commit = rec.git_commit()
    if not args.no_compile:  # what installing the package does; see the module docstring
        compileall.compile_dir(ROOT / "paimon_lens", quiet=1)
    args.files = args.files or (1_000 if args.quick else 10_000)
    args.repeat = args.repeat or (1 if args.quick else 3)
    kinds = [k.strip() for k in args.tables.split(",") if k.strip()]
    results: dict[str, dict[str, Any]] = {}
    built: dict[str, float | None] = {}
    for kind in kinds:
        if kind not in WHERE:
            ap.error(f"unknown table kind {kind!r}")
        path, seconds = cached_table(args.cache_dir, args.files, kind == "pk", args.rebuild)
        built[kind] = seconds
        print(f"[{kind}] table {path}" + (f" (generated in {seconds:.1f} s)" if seconds is not None else " (cached)"))
        cold = [run_worker("cold", path, WHERE[kind]) for _ in range(args.repeat)]
        c = _pair([x["cold"] for x in cold])
        warm = [_pair([x["warm"][i] for x in cold]) for i in range(len(WARM))]
        print(f"[{kind}] cold open_table + first explain: median {c[0]:.3f} s wall, {c[1]:.3f} s CPU "
              f"(target {TARGET_S} s: {'met' if c[0] < TARGET_S else 'NOT met'}); "
              f"warm: {', '.join(f'{w[0]:.3f} s' for w in warm)}")
        breakdown = run_worker("breakdown", path, WHERE[kind])
        for k, v in breakdown.items():
            print(f"[{kind}]   {k:<70} {v[0]:8.3f} s wall {v[1]:8.3f} s CPU")
        profile = run_worker("profile", path, WHERE[kind])
        print(f"[{kind}] cProfile top 20 (cumulative):\n{profile['cumulative']}")
        results[kind] = {"cold_runs": cold, "breakdown": breakdown, "profile": profile}
    if (not args.quick or args.write) and not args.no_write:
        write_results(render(args, results, built))
        print(f"wrote {RESULTS}")
    if not args.quick and not args.no_write:
        rec.update_results("bench_explain", rec.command_line("bench_explain", argv), records(results),
                           summary=SUMMARY, commit=commit, details=RESULTS.name)
        print(f"wrote {rec.RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
