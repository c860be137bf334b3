"""Benchmark: paimon-lens against anchors in the same run (pypaimon 2.1, Paimon 0.9 Java), issue 18.

Run from the repository root::

    python -m benchmarks.bench_anchors               # full sizes, 5 rounds, writes results_anchors.md
    python -m benchmarks.bench_anchors --quick       # tiny tables, 1 round, prints only (the smoke test)
    python -m benchmarks.bench_anchors --rounds 7    # more rounds

Targets, each measured as a ratio against an anchor timed in the same run (rounds alternate which
side runs first; the ratio of the pooled medians decides, the ratio of the best samples is shown
beside it and a verdict it contradicts is flagged):

(a) ``open_table`` + ``explain`` of a single-partition predicate on a 2,000-file table (10 partitions)
    <= 0.5x pypaimon 2.1's catalog ``get_table`` + ``plan()`` of the same predicate: a new table
    object in a running interpreter, and (second row) the first one in a fresh interpreter (the
    package import excluded and shown apart);
(b) on a reused (warm) table, an explain keeping 1 of 10 partitions <= 0.2x one keeping all of them
    (``dt = day AND status = 'pending'`` against ``status = 'pending'``; pypaimon's own ratio shown);
(c) warm explain on a 320- and a 4,000-file table no slower than Paimon 0.9 Java's plan + file-index
    evaluation, per predicate (ratio <= 1);
(d) the cold CLI, ``paimon-lens explain TABLE --where SQL`` in a new process, recorded (beside a
    new pypaimon process that plans the same predicate).

Tables (cached under ``<tmp>/paimon-lens-bench/``, ``--cache-dir``; keyed by size and generator):

* ``synth``: :func:`benchmarks.synthetic_table.make_table` append tables (10 partitions x 4 buckets,
  200 rows per file, bloom-filter on ``id``, bitmap V2 on ``country``/``status``, range-bitmap on
  ``score``, a third of the containers in external ``.index`` files): (a), (b), (d).
* ``writer``: tables written by :class:`paimon_lens.writer.TableWriter` with the same layout and
  columns but only the indexes Paimon 0.9 can read (bloom-filter on ``id``, bitmap **V1** on
  ``country``/``status``, nothing on ``score``): (c). Paimon 0.9 Java plans the ``synth`` tables but
  throws on a predicate that reaches a bitmap V2 or a range-bitmap index (``read index file fail,
  your plugin version is lower than 2``; ``Can't find file index for type: range-bitmap``; a probe
  in every full run records the exceptions). paimon-lens explains these with ``paimon_version="0.9"``
  so both sides apply the same rules and their file counts can be compared.

Predicates: ``dt = '2025-01-03'`` (one partition), ``dt = '2025-01-03' AND status = 'pending'``
(partition + bitmap column), ``status = 'pending'`` (no partition filter), ``id = N`` (bloom-filter
point lookup on an id that exists in 2025-01-03) and ``score BETWEEN 300 AND 400`` (range; the
range-bitmap column on ``synth``, stats only on ``writer``).

Anchors (each in its own process, run once per round):

* pypaimon 2.1: ``benchmarks/anchors/pypaimon_plan.py`` in the interpreter of a separate virtual
  environment (pypaimon pins ``pyarrow < 20``): ``$PAIMON_LENS_PYPAIMON_PYTHON``, else
  ``<tmp>/paimon-lens-pypaimon-venv`` (the one ``tests/synth/test_synth_pypaimon.py`` uses), created
  with ``pip install pypaimon==2.1.0`` by a full run when missing. The table is linked into a
  warehouse (``<cache>/anchors-warehouse/bench.db/<name>``) for pypaimon's filesystem catalog.
* Paimon 0.9 Java: ``benchmarks/anchors/PlanBench.java`` (see its header: plan, then
  ``FileIndexSkipper.skip`` per planned file as the 0.9 reader does, after JIT warm-up, with the
  manifest cache a ``CachingCatalog`` gives its tables). Its classpath is the single jar
  ``paimon-python-java-bridge-0.9.0.jar`` that the ``pypaimon==0.2.0`` sdist bundles (Paimon 0.9.0
  core, dependencies shaded, no Hadoop needed this way). A full run gets it as::

      pip download pypaimon==0.2.0 --no-deps --no-binary :all: -d <cache>/anchors-java
      tar xzf <cache>/anchors-java/pypaimon-0.2.0.tar.gz pypaimon-0.2.0/deps/jars/paimon-python-java-bridge-0.9.0.jar
      javac -cp <jar> -d <cache>/anchors-java/classes-<hash> benchmarks/anchors/PlanBench.java
      java -cp <jar>:<classes> PlanBench --table DIR --warmup-ms 3000 --reps 5 --pred 'name|eq:dt:2025-01-03' ...

  (``$PAIMON_LENS_BRIDGE_JAR`` points at another copy of the jar). Java 17 (``java``, ``javac``).

paimon-lens side, in a fresh interpreter per round (``--worker lens``): ``import paimon_lens``, then
``open_table`` + ``explain`` of the first predicate (fresh-interpreter cold), then per predicate new
table objects (``open_table`` + ``explain``: cold in a running interpreter) and the same table object
explained again (warm). The CLI is timed from outside (process start to exit). ``paimon_lens/`` is
byte-compiled first, as in ``bench_explain``.

``--quick``: tables of 200 (synth) and 40 / 120 (writer) files, one round, prints only; an anchor that
is not available (no pypaimon environment, no ``java``/``javac``, no cached jar: the quick run never
downloads or creates anything) is skipped with the reason printed. In a full run a missing anchor is
an error. The results file keeps any text outside its ``<!-- results:begin/end -->`` markers.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import datetime as _dt
import hashlib
import inspect
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
ANCHORS = HERE / "anchors"
RESULTS = HERE / "results_anchors.md"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"

PARTITIONS = 10
BUCKETS = 4
ROWS = 200
SEED = 0
DAY = "2025-01-03"  # the third partition
ID_STRIDE = 10**8  # writer tables: ids of partition p are p * ID_STRIDE + 3 * k

#: (synth table files, writer table files) of a full and of a quick run
FULL: tuple[int, tuple[int, ...]] = (2000, (320, 4000))
QUICK: tuple[int, tuple[int, ...]] = (200, (40, 120))

TARGET_A = 0.5
TARGET_B = 0.2
TARGET_C = 1.0

PYPAIMON_VERSION = "2.1.0"
PYPAIMON_VENV = Path(tempfile.gettempdir()) / "paimon-lens-pypaimon-venv"
BRIDGE_JAR = "paimon-python-java-bridge-0.9.0.jar"
BRIDGE_SDIST = "pypaimon-0.2.0.tar.gz"
WAREHOUSE_DB = "bench"


# ---- predicates ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pred:
    """One predicate: ANDed ``(op, column, values)`` terms, rendered for each tool."""

    name: str
    terms: tuple[tuple[str, str, tuple[Any, ...]], ...]

    def sql(self) -> str:
        """The WHERE text paimon-lens parses."""
        ops = {"eq": "=", "ne": "<>", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
        parts = []
        for op, column, values in self.terms:
            if op == "between":
                parts.append(f"{column} BETWEEN {_sql_value(values[0])} AND {_sql_value(values[1])}")
            else:
                parts.append(f"{column} {ops[op]} {_sql_value(values[0])}")
        return " AND ".join(parts)

    def java(self) -> str:
        """``name|op:column:value[:value2];...`` for PlanBench."""
        return self.name + "|" + ";".join(":".join([op, column, *(str(v) for v in values)])
                                          for op, column, values in self.terms)

    def as_json(self) -> dict[str, Any]:
        """The spec entry of pypaimon_plan.py."""
        return {"name": self.name, "terms": [[op, column, list(values)] for op, column, values in self.terms]}


def _sql_value(v: Any) -> str:
    return f"'{v}'" if isinstance(v, str) else str(v)


#: the predicate names, in run order (the first is the single-partition one of target (a))
PARTITION, PART_BITMAP, NO_PARTITION, POINT, RANGE = ("partition", "partition+bitmap", "no partition filter",
                                                      "bloom point lookup", "range")


def predicates(point_id: int) -> list[Pred]:
    """The five predicates; ``point_id`` exists in partition :data:`DAY`."""
    return [
        Pred(PARTITION, (("eq", "dt", (DAY,)),)),
        Pred(PART_BITMAP, (("eq", "dt", (DAY,)), ("eq", "status", ("pending",)))),
        Pred(NO_PARTITION, (("eq", "status", ("pending",)),)),
        Pred(POINT, (("eq", "id", (point_id,)),)),
        Pred(RANGE, (("between", "score", (300, 400)),)),
    ]


# ---- tables -------------------------------------------------------------------------------------

def _source_hash(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def _cached(cache_dir: Path, key: str, rebuild: bool, build: Any) -> tuple[Path, float | None]:
    """``cache_dir/key``, built by ``build(tmp_path)`` if missing (:func:`benchmarks.bench_explain.cached_build`)."""
    from .bench_explain import cached_build

    return cached_build(cache_dir, key, rebuild, build)


def synth_table(cache_dir: Path, files: int, rebuild: bool) -> tuple[Path, float | None]:
    """The ``make_table`` append table of ``files`` files (10 partitions x 4 buckets)."""
    from benchmarks.synthetic_table import make_table

    version = _source_hash((HERE / "synthetic_table.py").read_text(encoding="utf-8"))
    key = f"anchors-synth-f{files}-p{PARTITIONS}-b{BUCKETS}-r{ROWS}-s{SEED}-{version}"
    return _cached(cache_dir, key, rebuild, lambda tmp: make_table(
        tmp, files=files, partitions=PARTITIONS, buckets=BUCKETS, rows_per_file=ROWS, seed=SEED))


WRITER_OPTIONS = {
    "file-index.bloom-filter.columns": "id",
    "file-index.bloom-filter.id.items": str(ROWS),
    "file-index.bloom-filter.id.fpp": "0.05",
    "file-index.bitmap.columns": "country,status",
    "file-index.bitmap.country.version": "1",
    "file-index.bitmap.status.version": "1",
    # narrow containers (~1.2 kB) are embedded in the manifests, wide ones (~1.5 kB) go to .index files
    "file-index.in-manifest-threshold": "1400 b",
}


def make_writer_table(root: Path, files: int) -> Path:
    """An append table written by ``TableWriter`` with indexes Paimon 0.9 reads (see module doc).

    Same layout as the synthetic tables: ``files`` files of :data:`ROWS` rows over 10 partitions x 4
    buckets (bucket key ``user_id``, values drawn per bucket with Paimon's bucket function, so each
    (partition, bucket) gets exactly its files' rows); per file one of 24 value patterns of
    ``country``/``status``/``score`` (every third one "wide": more values, nulls, a bigger container);
    ``id`` a permutation per partition, ``p * 10**8 + 3k``.
    """
    import numpy as np
    import pyarrow as pa

    from benchmarks.synthetic_table import COUNTRIES, FIRST_DAY, STATUSES, paimon_bucket
    from paimon_lens.writer import TableWriter

    rng = np.random.default_rng(SEED)
    slots = sorted((i % PARTITIONS, (i // PARTITIONS) % BUCKETS) for i in range(files))
    per_part = Counter(p for p, _ in slots)
    users = np.arange(100_000, dtype=np.int64)
    ub = paimon_bucket(users, "INT", BUCKETS)
    pools = {b: users[ub == b] for b in range(BUCKETS)}
    ids = {p: p * ID_STRIDE + 3 * rng.permutation(ROWS * n).astype(np.int64) for p, n in sorted(per_part.items())}
    patterns = []
    for k in range(24):
        if k % 3 == 2:
            pool = rng.choice(len(COUNTRIES), 12, replace=False)
            country: list[str | None] = [COUNTRIES[i] for i in rng.choice(pool, ROWS)]
            for i in np.flatnonzero(rng.random(ROWS) < 0.02):
                country[i] = None
            status = [STATUSES[i] for i in rng.integers(0, len(STATUSES), ROWS)]
            lo = int(rng.integers(0, 600))
            score = rng.integers(lo, lo + 400, ROWS)
        else:
            country = [COUNTRIES[i] for i in rng.choice(rng.choice(len(COUNTRIES), 3, replace=False), ROWS)]
            status = [STATUSES[i] for i in rng.choice(rng.choice(len(STATUSES), 2, replace=False), ROWS)]
            a, b = sorted(int(x) for x in rng.choice(np.arange(0, 1000, 50), 2, replace=False))
            score = rng.choice(np.concatenate([rng.integers(a, a + 50, 4), rng.integers(b, b + 50, 4)]), ROWS)
        patterns.append((country, status, score.astype(np.int32)))
    used: Counter[int] = Counter()
    cols: dict[str, list[Any]] = {c: [] for c in ("id", "user_id", "country", "status", "score", "amount", "dt")}
    for p, b in slots:
        k = used[p]
        used[p] += 1
        pattern = patterns[int(rng.integers(0, len(patterns)))]
        cols["id"].append(ids[p][k * ROWS:(k + 1) * ROWS])
        cols["user_id"].append(pools[b][rng.integers(0, len(pools[b]), ROWS)].astype(np.int32))
        cols["country"].extend(pattern[0])
        cols["status"].extend(pattern[1])
        cols["score"].append(pattern[2])
        cols["amount"].append(np.round(rng.random(ROWS) * 1000.0, 2))
        cols["dt"].extend([(FIRST_DAY + _dt.timedelta(days=p)).isoformat()] * ROWS)
    table = pa.table({
        "id": pa.array(np.concatenate(cols["id"]), pa.int64()),
        "user_id": pa.array(np.concatenate(cols["user_id"]), pa.int32()),
        "country": pa.array(cols["country"], pa.string()),
        "status": pa.array(cols["status"], pa.string()),
        "score": pa.array(np.concatenate(cols["score"]), pa.int32()),
        "amount": pa.array(np.concatenate(cols["amount"]), pa.float64()),
        "dt": pa.array(cols["dt"], pa.string()),
    })
    writer = TableWriter.create(root, table.schema, partition_keys=["dt"], bucket=BUCKETS, bucket_key="user_id",
                                options=WRITER_OPTIONS)
    writer.commit(table, rows_per_file=ROWS)
    written = sum(1 for _ in root.glob("dt=*/bucket-*/*.parquet"))
    if written != files:
        raise RuntimeError(f"TableWriter wrote {written} data files, expected {files}")
    return root


def writer_table(cache_dir: Path, files: int, rebuild: bool) -> tuple[Path, float | None]:
    """The cached ``TableWriter`` table of ``files`` files."""
    version = _source_hash(inspect.getsource(make_writer_table), json.dumps(WRITER_OPTIONS, sort_keys=True),
                           (HERE / "synthetic_table.py").read_text(encoding="utf-8"))
    key = f"anchors-writer-f{files}-p{PARTITIONS}-b{BUCKETS}-r{ROWS}-s{SEED}-{version}"
    return _cached(cache_dir, key, rebuild, lambda tmp: make_writer_table(tmp, files))


def synth_point_id(path: Path) -> int:
    """An ``id`` of partition :data:`DAY` of a synthetic table: the median of its first data file."""
    import pyarrow.parquet as pq

    first = sorted((path / f"dt={DAY}").glob("bucket-*/*.parquet"))[0]
    values = sorted(pq.read_table(first, columns=["id"]).column(0).to_pylist())
    return int(values[len(values) // 2])


def writer_point_id(files: int) -> int:
    """An ``id`` in the middle of partition :data:`DAY` of a writer table."""
    n = sum(1 for i in range(files) if i % PARTITIONS == 2)
    return 2 * ID_STRIDE + 3 * (ROWS * n // 2)


def warehouse_link(cache_dir: Path, table: Path, name: str) -> tuple[Path, str]:
    """``table`` linked as ``<cache>/anchors-warehouse/bench.db/<name>``; (warehouse, identifier)."""
    wh = cache_dir / "anchors-warehouse"
    db = wh / f"{WAREHOUSE_DB}.db"
    db.mkdir(parents=True, exist_ok=True)
    link = db / name
    if (link.is_symlink() or link.exists()) and link.resolve() != table.resolve():
        link.unlink()
    if not link.exists():
        link.symlink_to(table, target_is_directory=True)
    return wh, f"{WAREHOUSE_DB}.{name}"


# ---- anchors: availability ----------------------------------------------------------------------

class AnchorMissing(Exception):
    """An anchor cannot run here (the message says why)."""


def _python_has_pypaimon(python: Path) -> bool:
    if not python.exists():
        return False
    return subprocess.run([str(python), "-c", "import pypaimon"], capture_output=True,
                          check=False).returncode == 0


def pypaimon_python(create: bool) -> Path:
    """The interpreter of a pypaimon environment (created when ``create`` and missing)."""
    override = os.environ.get("PAIMON_LENS_PYPAIMON_PYTHON")
    if override:
        if not _python_has_pypaimon(Path(override)):
            raise AnchorMissing(f"PAIMON_LENS_PYPAIMON_PYTHON={override} cannot import pypaimon")
        return Path(override)
    python = PYPAIMON_VENV / "bin" / "python"
    if _python_has_pypaimon(python):
        return python
    if not create:
        raise AnchorMissing(f"no pypaimon environment at {PYPAIMON_VENV} (a full run creates it)")
    staging = PYPAIMON_VENV.with_name(f"{PYPAIMON_VENV.name}.{os.getpid()}")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(staging)], check=True, capture_output=True)
        pip = subprocess.run([str(staging / "bin" / "python"), "-m", "pip", "install", "--quiet",
                              f"pypaimon=={PYPAIMON_VERSION}"], capture_output=True, text=True, timeout=900,
                             check=False)
        if pip.returncode != 0:
            raise AnchorMissing(f"pip install pypaimon=={PYPAIMON_VERSION} failed:\n{pip.stdout}{pip.stderr}")
        if not _python_has_pypaimon(python):
            shutil.rmtree(PYPAIMON_VENV, ignore_errors=True)
            os.replace(staging, PYPAIMON_VENV)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not _python_has_pypaimon(python):
        raise AnchorMissing(f"{python} cannot import pypaimon after installing it")
    return python


@dataclass
class Java:
    """How to run PlanBench: the classpath, and facts for the report."""

    classpath: str
    jar: Path
    version: str


def _extract_jar(sdist: Path, jar: Path) -> None:
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar.getmembers():
            if member.name.endswith(f"deps/jars/{BRIDGE_JAR}"):
                src = tar.extractfile(member)
                if src is None:
                    break
                tmp = jar.with_name(jar.name + f".tmp-{os.getpid()}")
                with src, open(tmp, "wb") as out:
                    shutil.copyfileobj(src, out)
                os.replace(tmp, jar)
                return
    raise AnchorMissing(f"{sdist} holds no deps/jars/{BRIDGE_JAR}")


def java_anchor(cache_dir: Path, download: bool) -> Java:
    """The compiled PlanBench (jar found, extracted or, when ``download``, fetched with pip)."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            raise AnchorMissing(f"no `{tool}` on PATH (Java 17 is needed for the Paimon 0.9 anchor)")
    home = cache_dir / "anchors-java"
    home.mkdir(parents=True, exist_ok=True)
    jar = Path(os.environ.get("PAIMON_LENS_BRIDGE_JAR", home / BRIDGE_JAR))
    if not jar.exists():
        sdist = home / BRIDGE_SDIST
        if not sdist.exists():
            if not download:
                raise AnchorMissing(f"no {BRIDGE_JAR} in {home} (a full run downloads pypaimon==0.2.0 for it)")
            pip = subprocess.run([sys.executable, "-m", "pip", "download", "pypaimon==0.2.0", "--no-deps",
                                  "--no-binary", ":all:", "-d", str(home)], capture_output=True, text=True,
                                 timeout=900, check=False)
            if pip.returncode != 0 or not sdist.exists():
                raise AnchorMissing(f"pip download pypaimon==0.2.0 failed:\n{pip.stdout}{pip.stderr}")
        _extract_jar(sdist, jar)
    source = ANCHORS / "PlanBench.java"
    classes = home / f"classes-{_source_hash(source.read_text(encoding='utf-8'), str(jar))}"
    if not (classes / "PlanBench.class").exists():
        tmp = home / f"classes.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        javac = subprocess.run(["javac", "-cp", str(jar), "-d", str(tmp), str(source)], capture_output=True,
                               text=True, check=False)
        if javac.returncode != 0:
            raise RuntimeError(f"javac PlanBench.java failed:\n{javac.stdout}{javac.stderr}")
        shutil.rmtree(classes, ignore_errors=True)
        os.replace(tmp, classes)
    version = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr
    return Java(f"{jar}{os.pathsep}{classes}", jar, version.strip().splitlines()[0] if version.strip() else "?")


# ---- runners ------------------------------------------------------------------------------------

def _last_json(proc: subprocess.CompletedProcess[str], what: str) -> dict[str, Any]:
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def run_lens(path: Path, preds: list[Pred], fresh_reps: int, warm_reps: int,
             paimon_version: str | None) -> dict[str, Any]:
    """The paimon-lens worker in a fresh interpreter."""
    spec = {"path": str(path), "preds": [{"name": p.name, "sql": p.sql()} for p in preds],
            "fresh_reps": fresh_reps, "warm_reps": warm_reps, "paimon_version": paimon_version}
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_anchors", "--worker", "lens", "--spec",
                           json.dumps(spec)], cwd=ROOT, capture_output=True, text=True, check=False)
    return _last_json(proc, "paimon-lens worker")


def run_pypaimon(python: Path, warehouse: Path, ident: str, preds: list[Pred], fresh_reps: int, warm_reps: int,
                 mode: str = "bench") -> dict[str, Any]:
    """pypaimon_plan.py in the pypaimon interpreter; adds the process' wall time as ``process_s``."""
    spec = {"warehouse": str(warehouse), "table": ident, "mode": mode, "fresh_reps": fresh_reps,
            "warm_reps": warm_reps, "preds": [p.as_json() for p in preds]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        t0 = time.perf_counter()
        proc = subprocess.run([str(python), str(ANCHORS / "pypaimon_plan.py"), f.name], cwd=tempfile.gettempdir(),
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
    finally:
        os.unlink(f.name)
    out = _last_json(proc, "pypaimon anchor")
    out["process_s"] = wall
    return out


def run_java(java: Java, path: Path, preds: list[Pred], warmup_ms: int, reps: int,
             extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """PlanBench on one table (one JVM)."""
    cmd = ["java", "-cp", java.classpath, "PlanBench", "--table", str(path), "--warmup-ms", str(warmup_ms),
           "--reps", str(reps), *extra]
    for p in preds:
        cmd += ["--pred", p.java()]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return _last_json(proc, "PlanBench")


def cli_command() -> list[str]:
    """``paimon-lens`` next to this interpreter (the console script), else ``python -m paimon_lens``."""
    script = Path(sys.executable).parent / "paimon-lens"
    return [str(script)] if script.exists() else [sys.executable, "-m", "paimon_lens"]


def run_cli(path: Path, where: str) -> dict[str, Any]:
    """``paimon-lens explain TABLE --where SQL`` in a new process: wall seconds, start to exit."""
    cmd = [*cli_command(), "explain", str(path), "--where", where]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return {"process_s": wall, "command": cmd}


# ---- the paimon-lens worker (fresh interpreter) -------------------------------------------------

def _funnel(report: Any) -> dict[str, int]:
    s = report.summary()
    out = {row["stage"]: int(row["files"]) for row in s["funnel"]}
    out["planned"] = int(s["planned_files"])
    out["read"] = int(s["read_files"])
    return out


def worker_lens(spec: dict[str, Any]) -> dict[str, Any]:
    """Imports, first open + explain, new table objects per predicate, then warm explains; each explain
    is timed up to its totals (``summary(complete=False)``: the funnel a notebook shows first)."""
    t0 = time.perf_counter()
    import paimon_lens

    imported = time.perf_counter() - t0
    kwargs: dict[str, Any] = {"progress": False}
    if spec.get("paimon_version"):
        kwargs["paimon_version"] = spec["paimon_version"]
    path, preds = spec["path"], spec["preds"]
    t1 = time.perf_counter()
    table = paimon_lens.open_table(path, **kwargs)
    opened = time.perf_counter() - t1
    table.explain(preds[0]["sql"]).summary(complete=False)
    first = time.perf_counter() - t1
    fresh: dict[str, list[float]] = {p["name"]: [] for p in preds}
    for _ in range(int(spec["fresh_reps"])):
        for p in preds:
            s = time.perf_counter()
            paimon_lens.open_table(path, **kwargs).explain(p["sql"]).summary(complete=False)
            fresh[p["name"]].append(time.perf_counter() - s)
    counts = {p["name"]: _funnel(table.explain(p["sql"])) for p in preds}  # warms every predicate once
    warm: dict[str, list[float]] = {p["name"]: [] for p in preds}
    for r in range(int(spec["warm_reps"])):
        for j in range(len(preds)):
            p = preds[(j + r) % len(preds)]
            s = time.perf_counter()
            table.explain(p["sql"]).summary(complete=False)
            warm[p["name"]].append(time.perf_counter() - s)
    locations = Counter(lf.index_location for lf in table.live_files())
    return {"import_s": imported, "first": {"name": preds[0]["name"], "open_s": opened, "open_explain_s": first},
            "fresh": fresh, "warm": warm, "counts": counts, "index_locations": dict(locations),
            "paimon_version": table.paimon_version}


# ---- the run ------------------------------------------------------------------------------------

@dataclass
class Samples:
    """Timings pooled over rounds, by key."""

    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, xs: list[float] | float) -> None:
        self.values.setdefault(key, []).extend(xs if isinstance(xs, list) else [xs])

    def median(self, key: str) -> float | None:
        xs = self.values.get(key)
        return statistics.median(xs) if xs else None

    def best(self, key: str) -> float | None:
        xs = self.values.get(key)
        return min(xs) if xs else None

    def spread(self, key: str) -> str:
        xs = self.values.get(key) or []
        if not xs:
            return "n/a"
        return f"median {_ms(statistics.median(xs))} (min {_ms(min(xs))}, max {_ms(max(xs))}, n={len(xs)})"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"


def _load() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


@dataclass
class Run:
    """Everything one invocation measured."""

    args: argparse.Namespace
    synth_path: Path
    synth_preds: list[Pred]
    writer_paths: dict[int, Path]
    writer_preds: dict[int, list[Pred]]
    skipped: dict[str, str] = field(default_factory=dict)
    samples: Samples = field(default_factory=Samples)
    counts: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    loads: list[float] = field(default_factory=list)
    built: dict[str, float] = field(default_factory=dict)


def measure(run: Run, pypython: Path | None, java: Java | None) -> None:
    """All rounds: each pair (paimon-lens, anchor) alternates which side goes first."""
    a = run.args
    wh: Path | None = None
    ident = ""
    if pypython is not None:
        wh, ident = warehouse_link(a.cache_dir, run.synth_path, f"synth_f{a.synth_files}")
    for r in range(a.rounds):
        jobs: list[list[tuple[str, Any]]] = []
        synth_pair: list[tuple[str, Any]] = [("lens synth", lambda: run_lens(
            run.synth_path, run.synth_preds, a.fresh_reps, a.warm_reps, None))]
        if pypython is not None and wh is not None:
            synth_pair.append(("pypaimon synth", lambda: run_pypaimon(
                pypython, wh, ident, run.synth_preds, a.fresh_reps, a.warm_reps)))
        jobs.append(synth_pair)
        for files, path in run.writer_paths.items():
            pair: list[tuple[str, Any]] = [(f"lens writer {files}", lambda p=path, f=files: run_lens(
                p, run.writer_preds[f], 0, a.warm_reps, "0.9"))]
            if java is not None:
                pair.append((f"java writer {files}", lambda p=path, f=files: run_java(
                    java, p, run.writer_preds[f], a.java_warmup_ms, a.java_reps)))
            jobs.append(pair)
        cli_pair: list[tuple[str, Any]] = [("cli", lambda: run_cli(run.synth_path, run.synth_preds[0].sql()))]
        if pypython is not None and wh is not None:
            cli_pair.append(("pypaimon once", lambda: run_pypaimon(
                pypython, wh, ident, run.synth_preds[:1], 0, 0, mode="once")))
        jobs.append(cli_pair)
        for pair in jobs:
            for name, job in (pair if r % 2 == 0 else list(reversed(pair))):
                load = _load()
                if load is not None:
                    run.loads.append(load)
                t0 = time.perf_counter()
                result = job()
                record(run, name, result)
                print(f"  round {r + 1}/{a.rounds}: {name:<20} {time.perf_counter() - t0:6.1f} s"
                      + (f"  (load {load:.2f})" if load is not None else ""), flush=True)
    load = _load()
    if load is not None:
        run.loads.append(load)


def record(run: Run, name: str, result: dict[str, Any]) -> None:
    """File one job's result under sample keys and counts."""
    s = run.samples
    if name == "lens synth":
        s.add("lens import", result["import_s"])
        s.add("lens first open+explain", result["first"]["open_explain_s"])
        for k, v in result["fresh"].items():
            s.add(f"lens fresh {k}", v)
        for k, v in result["warm"].items():
            s.add(f"lens warm {k}", v)
        run.counts["lens synth"] = result["counts"]
        run.counts["lens synth locations"] = result["index_locations"]
    elif name == "pypaimon synth":
        s.add("pypaimon import", result["import_s"])
        s.add("pypaimon first open+plan", result["first"]["open_s"] + result["first"]["plan_s"])
        s.add("pypaimon first plan", result["first"]["plan_s"])
        for k, v in result["fresh"].items():
            s.add(f"pypaimon fresh {k}", v)
        for k, v in result["warm"].items():
            s.add(f"pypaimon warm {k}", v)
        run.counts["pypaimon synth"] = result["counts"]
        run.facts["pypaimon"] = result["version"]
    elif name.startswith("lens writer"):
        files = name.rsplit(" ", 1)[1]
        for k, v in result["warm"].items():
            s.add(f"lens writer {files} warm {k}", v)
        run.counts[f"lens writer {files}"] = result["counts"]
        run.counts[f"lens writer {files} locations"] = result["index_locations"]
    elif name.startswith("java writer"):
        files = name.rsplit(" ", 1)[1]
        for p in result["preds"]:
            s.add(f"java writer {files} {p['name']}", [x / 1000 for x in p["total_ms"]])
            s.add(f"java writer {files} plan {p['name']}", [x / 1000 for x in p["plan_ms"]])
            s.add(f"java writer {files} index {p['name']}", [x / 1000 for x in p["index_ms"]])
        s.add(f"java writer {files} first plan", result["first_plan_ms"] / 1000)
        s.add(f"java writer {files} open", result["open_ms"] / 1000)
        run.counts[f"java writer {files}"] = {p["name"]: {k: p[k] for k in ("splits", "planned", "index_files",
                                                                               "after_index")}
                                              for p in result["preds"]}
        run.facts["java runtime"] = result["java"]
    elif name == "cli":
        s.add("cli", result["process_s"])
        *head, flag, where = result["command"]  # ... explain TABLE --where SQL
        run.facts["cli"] = " ".join([Path(head[0]).name, *head[1:], flag]) + f' "{where}"'
    elif name == "pypaimon once":
        s.add("pypaimon process", result["process_s"])
        s.add("pypaimon process import", result["import_s"])


# ---- verdicts -----------------------------------------------------------------------------------

@dataclass
class Row:
    """One line of the results table."""

    target: str
    result: str
    anchor: str
    ratio: float | None
    verdict: str
    result_line: str
    best: float | None = None  # the ratio of the best (minimum) samples of each side

    def ratio_text(self) -> str:
        """The median ratio, and the best-of ratio beside it."""
        if self.ratio is None:
            return "n/a"
        return f"{self.ratio:.2f}" + ("" if self.best is None else f" (best-of {self.best:.2f})")


def _ratio(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None or y <= 0 else x / y


def _verdict(ratio: float | None, limit: float, skipped: str | None, best: float | None = None) -> str:
    """MET / NOT MET by the median ratio; noted when the best-of ratio says otherwise."""
    if ratio is None:
        return f"SKIPPED (no {skipped} anchor)" if skipped else "n/a"
    verdict = "MET" if ratio <= limit else "NOT MET"
    if best is not None and (best <= limit) != (ratio <= limit):
        verdict += f" (best-of: {'MET' if best <= limit else 'NOT MET'})"
    return verdict


def rows(run: Run) -> list[Row]:
    """The results table: targets (a) to (d)."""
    s, a = run.samples, run.args
    out: list[Row] = []
    n_synth = f"{a.synth_files:,}"
    pyp_skip = "pypaimon" if "pypaimon" in run.skipped else None
    java_skip = "Java" if "java" in run.skipped else None

    lens = s.median(f"lens fresh {PARTITION}")
    pyp = s.median(f"pypaimon fresh {PARTITION}")
    ratio = _ratio(lens, pyp)
    best = _ratio(s.best(f"lens fresh {PARTITION}"), s.best(f"pypaimon fresh {PARTITION}"))
    verdict = _verdict(ratio, TARGET_A, pyp_skip, best)
    out.append(Row(f"(a) new table object + explain `{run.synth_preds[0].sql()}`, {n_synth} files, running "
                   f"interpreter; <= {TARGET_A}x", _ms(lens), f"pypaimon 2.1 new catalog + get_table + plan: "
                   f"{_ms(pyp)}", ratio, verdict,
                   f"RESULT anchors (a) cold, new table object: {_ms(lens)} vs pypaimon {_ms(pyp)}", best))
    lens1 = s.median("lens first open+explain")
    pyp1 = s.median("pypaimon first open+plan")
    ratio = _ratio(lens1, pyp1)
    best = _ratio(s.best("lens first open+explain"), s.best("pypaimon first open+plan"))
    out.append(Row(f"(a) same, first in a fresh interpreter (package import apart: paimon-lens "
                   f"{_ms(s.median('lens import'))}, pypaimon {_ms(s.median('pypaimon import'))}); <= {TARGET_A}x",
                   _ms(lens1), f"pypaimon 2.1 first get_table + plan: {_ms(pyp1)} (plan alone "
                   f"{_ms(s.median('pypaimon first plan'))})", ratio, _verdict(ratio, TARGET_A, pyp_skip, best),
                   f"RESULT anchors (a) cold, fresh interpreter: {_ms(lens1)} vs pypaimon {_ms(pyp1)}", best))

    one = s.median(f"lens warm {PART_BITMAP}")
    every = s.median(f"lens warm {NO_PARTITION}")
    ratio = _ratio(one, every)
    best = _ratio(s.best(f"lens warm {PART_BITMAP}"), s.best(f"lens warm {NO_PARTITION}"))
    pone, pall = s.median(f"pypaimon warm {PART_BITMAP}"), s.median(f"pypaimon warm {NO_PARTITION}")
    pratio = _ratio(pone, pall)
    out.append(Row(f"(b) warm explain keeping 1 of {PARTITIONS} partitions (`{run.synth_preds[1].sql()}`) / "
                   f"keeping all (`{run.synth_preds[2].sql()}`), {n_synth} files; <= {TARGET_B}x",
                   f"{_ms(one)} / {_ms(every)}",
                   "none needed" + (f" (pypaimon 2.1 warm plans: {_ms(pone)} / {_ms(pall)} = {pratio:.2f})"
                                    if pratio is not None else ""),
                   ratio, _verdict(ratio, TARGET_B, None, best),
                   f"RESULT anchors (b) warm 1 of {PARTITIONS} partitions / all: {_ms(one)} / {_ms(every)}", best))

    for files, preds in run.writer_preds.items():
        for p in preds:
            lw = s.median(f"lens writer {files} warm {p.name}")
            jw = s.median(f"java writer {files} {p.name}")
            ratio = _ratio(lw, jw)
            best = _ratio(s.best(f"lens writer {files} warm {p.name}"), s.best(f"java writer {files} {p.name}"))
            plan, idx = s.median(f"java writer {files} plan {p.name}"), s.median(f"java writer {files} index {p.name}")
            anchor = f"Paimon 0.9 Java plan + index: {_ms(jw)}"
            if jw is not None:
                anchor += f" ({_ms(plan)} + {_ms(idx)})"
            out.append(Row(f"(c) warm explain, {files:,} files, {p.name}: `{p.sql()}`; <= {TARGET_C:g}x", _ms(lw),
                           anchor, ratio, _verdict(ratio, TARGET_C, java_skip, best),
                           f"RESULT anchors (c) warm {files} files {p.name}: {_ms(lw)} vs Java {_ms(jw)}", best))

    cli, pproc = s.median("cli"), s.median("pypaimon process")
    ratio = _ratio(cli, pproc)
    best = _ratio(s.best("cli"), s.best("pypaimon process"))
    out.append(Row(f"(d) cold CLI `{run.facts.get('cli', 'paimon-lens explain')}`, new process, start to exit, "
                   f"{n_synth} files", _ms(cli), f"new pypaimon process (python + import + get_table + plan): "
                   f"{_ms(pproc)} (import {_ms(s.median('pypaimon process import'))})", ratio, "RECORDED",
                   f"RESULT anchors (d) cold CLI: {_ms(cli)} (pypaimon process {_ms(pproc)})", best))
    return out


def count_rows(run: Run) -> tuple[list[str], list[str], int]:
    """Planned-file counts of each tool side by side; (markdown lines, mismatches, rows compared)."""
    lines = ["| table | predicate | paimon-lens: after partition / after stats / planned / read | "
             "anchor | agree |", "| --- | --- | --- | --- | --- |"]
    problems: list[str] = []
    compared = 0
    lens = run.counts.get("lens synth", {})
    pyp = run.counts.get("pypaimon synth", {})
    for p in run.synth_preds:
        c = lens.get(p.name)
        if c is None:
            continue
        q = pyp.get(p.name)
        compared += q is not None
        agree = "n/a (skipped)" if q is None else ("yes" if q["files"] == c["after stats"] else "NO")
        if agree == "NO":
            problems.append(f"synth {p.name}: pypaimon kept {q['files'] if q else '?'} files, "
                            f"paimon-lens after stats {c['after stats']}")
        lines.append(f"| synth {run.args.synth_files:,} | `{p.sql()}` | {c['after partition']:,} / "
                     f"{c['after stats']:,} / {c['planned']:,} / {c['read']:,} | pypaimon 2.1 plan: "
                     + (f"{q['files']:,} files in {q['splits']} splits" if q else "skipped")
                     + f" | {agree} (pypaimon = paimon-lens after stats) |")
    for files, preds in run.writer_preds.items():
        lc = run.counts.get(f"lens writer {files}", {})
        jc = run.counts.get(f"java writer {files}", {})
        for p in preds:
            c = lc.get(p.name)
            if c is None:
                continue
            j = jc.get(p.name)
            compared += j is not None
            if j is None:
                agree = "n/a (skipped)"
            else:
                agree = "yes" if (j["planned"], j["after_index"]) == (c["planned"], c["read"]) else "NO"
                if agree == "NO":
                    problems.append(f"writer {files} {p.name}: Java planned {j['planned']} / after index "
                                    f"{j['after_index']}, paimon-lens (0.9 rules) planned {c['planned']} / "
                                    f"read {c['read']}")
            lines.append(f"| writer {files:,} | `{p.sql()}` | {c['after partition']:,} / {c['after stats']:,} / "
                         f"{c['planned']:,} / {c['read']:,} | Paimon 0.9 Java: "
                         + (f"planned {j['planned']:,} ({j['index_files']} with an .index file), "
                            f"{j['after_index']:,} after FileIndexSkipper" if j else "skipped")
                         + f" | {agree} (Java planned / after index = paimon-lens planned / read) |")
    return lines, problems, compared


def agreement(problems: list[str], compared: int) -> str:
    """One sentence on the planned-file counts."""
    if not compared:
        return "none compared (no anchor ran)"
    return f"all {compared} compared agree" if not problems else f"DIFFER in {len(problems)} of {compared}: " + \
        "; ".join(problems)


# ---- report -------------------------------------------------------------------------------------

def machine() -> dict[str, str]:
    """nproc, CPU model, Python and library versions."""
    cpu = platform.processor() or ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libs = []
    for name in ("paimon-lens", "pyarrow", "fastavro", "numpy", "pyroaring", "sqlglot"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            libs.append(f"{name} {metadata.version(name)}")
    return {"nproc": str(nproc), "cpu": cpu, "python": platform.python_version(), "platform": platform.platform(),
            "libraries": ", ".join(libs)}


def git_commit() -> str:
    """``git rev-parse --short HEAD`` (read-only), noting uncommitted changes under paimon_lens/."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        diff = subprocess.run(["git", "diff", "HEAD", "--", "paimon_lens"], cwd=ROOT, capture_output=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    if not diff:
        return head
    return f"{head} + uncommitted changes to paimon_lens/ (diff sha256 {hashlib.sha256(diff).hexdigest()[:12]})"


def _command() -> str:
    return "python -m benchmarks.bench_anchors" + "".join(f" {x}" for x in sys.argv[1:])


def render(run: Run, table: list[Row], counts: list[str], agreed: str) -> str:
    """The measured part of results_anchors.md."""
    m, a = machine(), run.args
    loads = run.loads
    lines = [
        BEGIN,
        f"Measured {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')} with `{_command()}` "
        f"({a.rounds} rounds) at commit {run.facts.get('commit', '?')}.",
        "",
        f"* machine: {m['nproc']} CPUs available (nproc), {m['cpu']}, {m['platform']}",
        f"* Python {m['python']}; {m['libraries']}",
        f"* anchors: pypaimon {run.facts.get('pypaimon', 'skipped')} (its own venv: "
        f"{run.facts.get('pypaimon python', '-')}; {run.facts.get('pypaimon libs', '')}); Paimon 0.9.0 Java from "
        f"`{BRIDGE_JAR}` (sha256 {run.facts.get('jar sha', '-')}), {run.facts.get('java', 'skipped')}",
        "* 1-minute load average while measuring: "
        + (f"{min(loads):.2f} to {max(loads):.2f} (both sides under the same load; ratios are what matter)"
           if loads else "n/a"),
        f"* tables: synth {a.synth_files:,} files ({_locations(run.counts.get('lens synth locations'))}), writer "
        + ", ".join(f"{f:,} files ({_locations(run.counts.get(f'lens writer {f} locations'))})"
                    for f in run.writer_paths)
        + f"; 10 partitions x 4 buckets, {ROWS} rows per file, under `{a.cache_dir}`",
        f"* per round: paimon-lens {a.fresh_reps} new table objects and {a.warm_reps} warm explains per "
        f"predicate (one fresh interpreter), pypaimon the same (one process), Java {a.java_warmup_ms} ms of "
        f"warm-up then {a.java_reps} runs per predicate (one JVM); medians of all rounds' samples",
        "",
        "Times are medians of all samples; the ratio is paimon-lens / anchor of the medians, and of the best "
        "(minimum) samples in brackets. The verdict follows the median ratio and notes when the best-of ratio "
        "disagrees.",
        "",
        "| target | paimon-lens | anchor | ratio | verdict |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in table:
        lines.append(f"| {r.target} | {r.result} | {r.anchor} | {r.ratio_text()} | **{r.verdict}** |")
    lines += ["", "Files each tool keeps (one run; paimon-lens counts from its funnel; `synth` with the default "
              "(2.0) rules, `writer` with `paimon_version=\"0.9\"`):", "", *counts, ""]
    lines.append(f"Planned-file counts: {agreed}.")
    probe = run.facts.get("probe")
    if probe:
        lens09 = run.counts.get("lens synth 0.9", {})
        lines += ["", f"Paimon 0.9 Java on the synth {a.synth_files:,}-file table (the reason for the writer "
                  "tables), one plan + index check per predicate, beside paimon-lens' explain of the same table "
                  "with `paimon_version=\"0.9\"`:", ""]
        for p in probe:
            c = lens09.get(p["name"])
            lens_text = f"; paimon-lens (0.9 rules): planned {c['planned']}, read {c['read']}" if c else ""
            if p["ok"]:
                lines.append(f"* {p['name']}: ok, planned {p['planned']}, {p['after_index']} after index{lens_text}")
            else:
                lines.append(f"* {p['name']}: Java throws `{p['root_cause']}` at "
                             f"`{p['at'][0] if p['at'] else '?'}`{lens_text}")
    extra = run.facts.get("java nocache")
    if extra:
        lines += ["", "Paimon 0.9 Java without the manifest cache (FileStoreTableFactory alone; first round only), "
                  "median plan + index: " + ", ".join(f"{k} {v}" for k, v in extra.items())]
    timings = [f"* {k}: {run.samples.spread(k)}" for k in sorted(run.samples.values)]
    lines += ["", "<details><summary>All samples (median, min, max)</summary>", "", *timings, "", "</details>", END]
    return "\n".join(lines)


def _locations(locs: dict[str, int] | None) -> str:
    if not locs:
        return "?"
    return ", ".join(f"{v:,} {k}" for k, v in sorted(locs.items()))


def write_results(text: str) -> None:
    """Replace the measured section of results_anchors.md, keeping the rest."""
    if RESULTS.exists():
        old = RESULTS.read_text(encoding="utf-8")
        if BEGIN in old and END in old:
            head, rest = old.split(BEGIN, 1)
            RESULTS.write_text(head + text + rest.split(END, 1)[1], encoding="utf-8")
            return
    RESULTS.write_text("# paimon-lens against anchors: pypaimon 2.1 and Paimon 0.9 Java (issue 18)\n\n" + text
                       + "\n", encoding="utf-8")


def record_results(table: list[Row], commit: str, date: str | None = None) -> None:
    """This benchmark's section of ``benchmarks/RESULTS.md`` (see :mod:`benchmarks.records`)."""
    from .records import Record, update_results

    update_results(
        "bench_anchors", "python -m benchmarks.bench_anchors",
        [Record(r.target, f"{r.result} vs {r.anchor}", r.ratio_text(), r.verdict) for r in table],
        summary=("Interactive explains against anchors measured in the same run: pypaimon 2.1's plan in its "
                 "own venv and Paimon 0.9 Java's plan + file-index check; ratio = paimon-lens / anchor "
                 "(medians; best-of samples in brackets)."),
        commit=commit, date=date, details="results_anchors.md")


# ---- main ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--quick", action="store_true", help="tiny tables, one round, print only; skip missing anchors")
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 5; 1 with --quick)")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    ap.add_argument("--rebuild", action="store_true", help="regenerate the cached tables")
    ap.add_argument("--no-write", action="store_true", help="do not write results_anchors.md")
    ap.add_argument("--worker", choices=["lens"], help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker_lens(json.loads(args.spec))))
        return 0
    args.synth_files, writer_sizes = QUICK if args.quick else FULL
    args.rounds = args.rounds or (1 if args.quick else 5)
    args.fresh_reps = 1 if args.quick else 3
    args.warm_reps = 2 if args.quick else 5
    args.java_warmup_ms = 300 if args.quick else 4000
    args.java_reps = 2 if args.quick else 7
    commit = git_commit()  # before the runs: the state the numbers belong to
    compileall.compile_dir(ROOT / "paimon_lens", quiet=1)  # as installed; see bench_explain

    built: dict[str, float] = {}
    synth_path, seconds = synth_table(args.cache_dir, args.synth_files, args.rebuild)
    if seconds is not None:
        built[f"synth {args.synth_files}"] = seconds
    print(f"synth table: {synth_path}" + (f" (generated in {seconds:.1f} s)" if seconds is not None else " (cached)"))
    writer_paths: dict[int, Path] = {}
    for files in writer_sizes:
        path, seconds = writer_table(args.cache_dir, files, args.rebuild)
        writer_paths[files] = path
        if seconds is not None:
            built[f"writer {files}"] = seconds
        print(f"writer table: {path}" + (f" (written in {seconds:.1f} s)" if seconds is not None else " (cached)"))
    run = Run(args, synth_path, predicates(synth_point_id(synth_path)), writer_paths,
              {f: predicates(writer_point_id(f)) for f in writer_paths}, built=built)
    run.facts["commit"] = commit

    pypython: Path | None = None
    java: Java | None = None
    try:
        pypython = pypaimon_python(create=not args.quick)
        run.facts["pypaimon python"] = str(pypython)
        libs = subprocess.run([str(pypython), "-c", "import pyarrow, pypaimon; from importlib import metadata; "
                               "print('pyarrow', pyarrow.__version__, '| pypaimon', metadata.version('pypaimon'))"],
                              capture_output=True, text=True, check=False).stdout.strip()
        run.facts["pypaimon libs"] = libs
    except AnchorMissing as e:
        if not args.quick:
            print(f"error: the pypaimon anchor is missing: {e}", file=sys.stderr)
            return 2
        run.skipped["pypaimon"] = str(e)
        print(f"pypaimon anchor skipped: {e}")
    try:
        java = java_anchor(args.cache_dir, download=not args.quick)
        run.facts["java"] = java.version
        run.facts["jar sha"] = hashlib.sha256(java.jar.read_bytes()).hexdigest()[:12]
    except AnchorMissing as e:
        if not args.quick:
            print(f"error: the Paimon Java anchor is missing: {e}", file=sys.stderr)
            return 2
        run.skipped["java"] = str(e)
        print(f"Java anchor skipped: {e}")

    if java is not None and not args.quick:
        probe = run_java(java, synth_path, run.synth_preds, 0, 1, ("--probe",))
        run.facts["probe"] = probe["probe"]
        run.counts["lens synth 0.9"] = run_lens(synth_path, run.synth_preds, 0, 0, "0.9")["counts"]
        for p in probe["probe"]:
            c = run.counts["lens synth 0.9"][p["name"]]
            print(f"Java 0.9 on the synth table, {p['name']}: "
                  + (f"ok, planned {p['planned']}, {p['after_index']} after index" if p["ok"]
                     else f"FAILS: {p['root_cause']}")
                  + f" (paimon-lens 0.9 rules: planned {c['planned']}, read {c['read']})")
        nocache: dict[str, str] = {}
        for files, path in writer_paths.items():
            res = run_java(java, path, run.writer_preds[files], args.java_warmup_ms, args.java_reps, ("--no-cache",))
            for p in res["preds"]:
                nocache[f"{files}/{p['name']}"] = _ms(statistics.median(p["total_ms"]) / 1000)
        run.facts["java nocache"] = nocache

    print(f"measuring: {args.rounds} round(s), load {_load()}")
    measure(run, pypython, java)
    table = rows(run)
    counts, problems, compared = count_rows(run)
    agreed = agreement(problems, compared)
    print()
    for r in table:
        print(f"{r.result_line}: ratio {r.ratio_text()}: {r.verdict}")
    print()
    print("\n".join(counts))
    print(f"planned-file counts: {agreed}")
    if not args.quick and not args.no_write:
        write_results(render(run, table, counts, agreed))
        print(f"wrote {RESULTS}")
        record_results(table, commit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
