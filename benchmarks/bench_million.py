"""Benchmark: a million files planned on Spark with the driver's memory bounded (issue 18, item 3).

Run from the repository root (SPARK_LOCAL_IP=127.0.0.1 is set for the workers)::

    python -m benchmarks.bench_million                      # 100,000 and 1,000,000 files; writes results_million.md
    python -m benchmarks.bench_million --sizes 100000       # one size
    python -m benchmarks.bench_million --generate-only      # build (or find) the cached tables only
    python -m benchmarks.bench_million --master 'local-cluster[2,1,2048]'   # executors in their own JVMs

**Tables.** Metadata-only primary-key tables (manifests with file-index containers embedded or in
``.index`` files, deletion-vector index files; no parquet) of the layout of
:func:`benchmarks.synthetic_table.make_table`, 5,000 files per partition value and 4 buckets
(1,250 files per (partition, bucket) group) at every size: 100,000 files = 20 partitions, one
``make_table``; 1,000,000 files = 200 partitions, built as 10 shards of 100,000 files in a process
pool and merged into one table (see :func:`cached_table` and :func:`merge_shards` below: each
(partition, bucket) group lives in one shard with everything ``make_table`` gives it; the merged
table has one manifest list of all shards' manifests and one index manifest). Cached under
``<tmp>/paimon-lens-bench/meta-pk-sharded-*`` (``--cache-dir``); the million takes ~24 min on 2
CPUs, once.

**Runs.** Each size runs in a fresh interpreter (:func:`worker`) with a ``local[2]`` session
(``spark.driver.memory=4g``, ``spark.driver.maxResultSize=1g``, UI off; PySpark's other settings
default, e.g. ``spark.python.worker.memory=512m``, ``spark.python.worker.reuse=true``), and with
each further ``--master`` given (``local-cluster[2,1,2048]``: the same two cores, but two executors
in JVMs of their own, so the driver JVM's heap is the driver's alone):

``explain``
    ``Table.explain_distributed(WHERE, output="parquet:<tmp>")`` of the ``bench_explain``
    primary-key predicate: manifests read, shuffled by (partition, bucket), merged and planned in
    Spark tasks (:mod:`paimon_lens.distributed.spark_plan`); the records of every file written to
    Parquet by the tasks, the summary back in the driver.
``file_indexes``
    ``Table.file_indexes_distributed(output="parquet:<tmp>")``: every container decoded in tasks,
    one row per index (persisted, typed, written to Parquet); the rows are counted.

**Memory.** A sampler thread reads every 0.25 s, per phase: the driver Python process's RSS
(``/proc/self/status``; its peak ``VmHWM`` is reset at each phase through ``clear_refs``), the JVM's
used heap (``Runtime.totalMemory() - freeMemory()`` through py4j: live objects and garbage not
collected yet, so it follows the collector's pace), the heap a garbage collection leaves (the live
heap: the largest ``getLastGcInfo().getMemoryUsageAfterGc()`` over the heap pools, for every
collection of the phase) and the JVM's RSS (in ``local`` mode the executors live in that JVM:
its numbers include the shuffle, the persisted rows, the Parquet writers and the tasks' JVM side;
under ``local-cluster`` they do not, and the largest executor JVM's RSS is recorded apart), and the
largest RSS of a PySpark Python worker (the tasks). Bounded means: the driver's numbers do not grow
with the number of files (1,000,000 against 100,000 files); the verdict is taken on the driver
Python process and, where the executors have JVMs of their own, on the driver JVM's live heap.

**Records.** A full run writes ``results_million.md`` (every measurement) and the ``bench_million``
section of ``RESULTS.md`` through :mod:`benchmarks.records`.

**Answers.** At 100,000 files the local engine explains the whole table in the same worker after
the measured phases: the summary, the notes and all 100,000 records (read back from Parquet) must
be equal. At every size a sample of (partition, bucket) groups is checked against the local engine
on a reader restricted to those groups' entries (read from the manifests whose partition stats
admit the group): the records of their files, and their ``file_indexes`` rows.

The results file keeps any text outside its ``<!-- results:begin/end -->`` markers (the analysis).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import math
import os
import random
import shutil
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.bench_explain import generator_version

MERGE_VERSION = 1
FILES_PER_SHARD = 100_000
FILES_PER_PARTITION = 5_000
"""Files per partition value (1,250 per (partition, bucket) group with 4 buckets), at every size."""
BUCKETS = 4
ROWS = 200


def shard_layout(files: int) -> tuple[int, int]:
    """(shards, partitions) of a table of ``files`` files."""
    shards = max(1, -(-files // FILES_PER_SHARD))
    partitions = max(1, files // FILES_PER_PARTITION)
    if files % shards or partitions % shards:
        raise ValueError(f"{files:,} files do not cut into {shards} shards of whole partitions")
    return shards, partitions


def _build_shard(root: str, k: int, files: int, partitions: int) -> float:
    """Shard ``k`` (a process of the pool): ``make_table`` with seed ``k`` and days shifted by ``k``."""
    from benchmarks import synthetic_table

    synthetic_table.FIRST_DAY = _dt.date(2025, 1, 1) + _dt.timedelta(days=k * partitions)
    t0 = time.perf_counter()
    synthetic_table.make_table(Path(root), files=files, partitions=partitions, buckets=BUCKETS,
                               rows_per_file=ROWS, primary_key=True, seed=k, data_files=False)
    return time.perf_counter() - t0


def _read_avro(path: Path) -> list[dict[str, Any]]:
    import fastavro

    with open(path, "rb") as fh:
        return list(fastavro.reader(fh))  # type: ignore[arg-type]


def _write_avro(path: Path, schema: dict[str, Any], records: list[dict[str, Any]], r: random.Random) -> int:
    import fastavro

    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec="zstandard",
                    sync_marker=r.getrandbits(128).to_bytes(16, "big"))
    path.write_bytes(buf.getvalue())
    return len(buf.getvalue())


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=2, separators=(",", " : "))


def merge_shards(shards: list[Path], root: Path) -> None:
    """Move the shards' files into ``root`` and write its manifest lists, index manifest and snapshot."""
    from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, MANIFEST_LIST_SCHEMA

    names = random.Random(10_000 + len(shards))
    root.mkdir(parents=True)
    for sub in ("schema", "snapshot", "manifest", "index"):
        (root / sub).mkdir()
    shutil.copy(shards[0] / "schema" / "schema-0", root / "schema" / "schema-0")
    metas: list[dict[str, Any]] = []
    index_records: list[dict[str, Any]] = []
    total_rows = 0
    for shard in shards:
        snap = json.loads((shard / "snapshot" / "snapshot-1").read_text())
        total_rows += int(snap["totalRecordCount"])
        metas += _read_avro(shard / "manifest" / snap["baseManifestList"])
        metas += _read_avro(shard / "manifest" / snap["deltaManifestList"])
        if snap.get("indexManifest"):
            index_records += _read_avro(shard / "manifest" / snap["indexManifest"])
        for f in (shard / "manifest").iterdir():
            if f.name.startswith("manifest-") and not f.name.startswith("manifest-list-"):
                f.rename(root / "manifest" / f.name)
        if (shard / "index").is_dir():
            for f in (shard / "index").iterdir():
                f.rename(root / "index" / f.name)
        for d in shard.iterdir():
            if d.name.startswith("dt="):
                d.rename(root / d.name)
    list_uuid = str(uuid.UUID(int=names.getrandbits(128), version=4))
    base_name, delta_name = f"manifest-list-{list_uuid}-0", f"manifest-list-{list_uuid}-1"
    base_size = _write_avro(root / "manifest" / base_name, MANIFEST_LIST_SCHEMA, metas[:-1], names)
    delta_size = _write_avro(root / "manifest" / delta_name, MANIFEST_LIST_SCHEMA, metas[-1:], names)
    snapshot = json.loads((shards[0] / "snapshot" / "snapshot-1").read_text())
    snapshot.update(baseManifestList=base_name, baseManifestListSize=base_size, deltaManifestList=delta_name,
                    deltaManifestListSize=delta_size, totalRecordCount=total_rows,
                    deltaRecordCount=ROWS * int(metas[-1]["_NUM_ADDED_FILES"]))
    if index_records:
        index_name = f"index-manifest-{uuid.UUID(int=names.getrandbits(128), version=4)}-0"
        _write_avro(root / "manifest" / index_name, INDEX_MANIFEST_SCHEMA, index_records, names)
        snapshot["indexManifest"] = index_name
    (root / "snapshot" / "snapshot-1").write_text(_json(snapshot))
    (root / "snapshot" / "LATEST").write_text("1")
    (root / "snapshot" / "EARLIEST").write_text("1")


def cached_table(cache_dir: Path, files: int, rebuild: bool = False, workers: int = 2,
                 log: Any = print) -> tuple[Path, float | None]:
    """The sharded table of ``files`` files, built if missing; (path, build seconds or None)."""
    shards, partitions = shard_layout(files)
    key = f"meta-pk-sharded-f{files}-p{partitions}-b{BUCKETS}-r{ROWS}-{generator_version()}-m{MERGE_VERSION}"
    path = cache_dir / key
    done = cache_dir / (key + ".done")
    if done.exists() and path.is_dir() and not rebuild:
        return path, None
    shutil.rmtree(path, ignore_errors=True)
    work = cache_dir / (key + f".tmp-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    t0 = time.perf_counter()
    per_files, per_parts = files // shards, partitions // shards
    dirs = [work / f"shard-{k}" for k in range(shards)]
    with ProcessPoolExecutor(max_workers=max(1, min(workers, shards))) as pool:
        futures = [pool.submit(_build_shard, str(d), k, per_files, per_parts) for k, d in enumerate(dirs)]
        for k, fut in enumerate(futures):
            log(f"  shard {k + 1}/{shards}: {per_files:,} files in {fut.result():.0f} s "
                f"({time.perf_counter() - t0:.0f} s so far)")
    merged = work / "table"
    merge_shards(dirs, merged)
    merged.rename(path)
    shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - t0
    done.write_text(f"{seconds:.1f}\n")
    return path, seconds


# ---- measuring ----------------------------------------------------------------------------------

SPARK_MASTER = "local[2]"
SPARK_CONF = {"spark.driver.memory": "4g", "spark.driver.maxResultSize": "1g", "spark.ui.enabled": "false",
              "spark.ui.showConsoleProgress": "false"}
SIZES = (100_000, 1_000_000)
RESULTS = Path(__file__).resolve().parent / "results_million.md"
SAMPLE_PARTITIONS = (0, 5, 9, 12, 19, 57, 120, 199)


def _status(pid: int | str) -> dict[str, int]:
    """VmRSS / VmHWM of a process, bytes (empty if it is gone)."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1]) * 1024
    except OSError:
        pass
    return out


def _reset_peak(pid: int | str) -> None:
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="utf-8") as f:
            f.write("5")
    except OSError:
        pass


def _is_java(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as f:
            return f.read().strip() == "java"
    except OSError:
        return False


def _descendants(root: int) -> list[int]:
    """Processes below ``root`` (the PySpark daemon and its workers under the JVM)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="utf-8") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


class Sampler:
    """Peak memory of the driver, the JVM and the Python workers, per phase (see the module docs)."""

    def __init__(self, spark: Any, interval: float = 0.25) -> None:
        import threading

        jvm = spark.sparkContext._jvm
        self.runtime = jvm.java.lang.Runtime.getRuntime()
        self.jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.heap_max = int(self.runtime.maxMemory())
        management = jvm.java.lang.management.ManagementFactory
        self.collectors = list(management.getGarbageCollectorMXBeans())
        self.heap_pools = [str(p.getName()) for p in management.getMemoryPoolMXBeans()
                           if str(p.getType()) == "Heap memory"]
        self.seen_gcs: set[tuple[str, int]] = set()
        self.interval = interval
        self.phases: dict[str, dict[str, int]] = {}
        self.current: dict[str, int] | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def phase(self, name: str) -> None:
        """Start measuring a new phase (peaks reset)."""
        _reset_peak("self")
        _reset_peak(self.jvm_pid)
        self._gcs()  # collections before the phase do not count
        self.current = self.phases[name] = {"driver_rss": 0, "jvm_heap": 0, "jvm_heap_after_gc": 0, "jvm_rss": 0,
                                            "worker_rss": 0, "workers": 0, "executor_jvm_rss": 0,
                                            "executor_jvms": 0}

    def _gcs(self) -> int:
        """The largest heap left by a garbage collection not seen yet (0: none): the live heap."""
        live = 0
        for gc in self.collectors:
            info = gc.getLastGcInfo()
            if info is None or (str(gc.getName()), int(info.getId())) in self.seen_gcs:
                continue
            self.seen_gcs.add((str(gc.getName()), int(info.getId())))
            after = info.getMemoryUsageAfterGc()
            live = max(live, sum(int(after.get(p).getUsed()) for p in self.heap_pools if after.containsKey(p)))
        return live

    def end(self) -> None:
        """Close the phase: the kernel's peaks of the driver and JVM complete the samples."""
        if self.current is not None:
            self._sample()
            self.current["driver_rss"] = max(self.current["driver_rss"], _status("self").get("VmHWM", 0))
            self.current["jvm_rss"] = max(self.current["jvm_rss"], _status(self.jvm_pid).get("VmHWM", 0))
        self.current = None

    def _sample(self) -> None:
        cur = self.current
        if cur is None:
            return
        try:
            heap = int(self.runtime.totalMemory()) - int(self.runtime.freeMemory())
            live = self._gcs()
        except Exception:  # the gateway is busy shutting down
            heap = live = 0
        below = _descendants(self.jvm_pid)
        executors = [_status(p).get("VmRSS", 0) for p in below if _is_java(p)]  # local-cluster only
        workers = [_status(p).get("VmRSS", 0) for p in below if not _is_java(p)]
        cur["driver_rss"] = max(cur["driver_rss"], _status("self").get("VmRSS", 0))
        cur["jvm_heap"] = max(cur["jvm_heap"], heap)
        cur["jvm_heap_after_gc"] = max(cur["jvm_heap_after_gc"], live)
        cur["jvm_rss"] = max(cur["jvm_rss"], _status(self.jvm_pid).get("VmRSS", 0))
        cur["worker_rss"] = max(cur["worker_rss"], max(workers, default=0))
        cur["workers"] = max(cur["workers"], len(workers))
        cur["executor_jvm_rss"] = max(cur["executor_jvm_rss"], max(executors, default=0))
        cur["executor_jvms"] = max(cur["executor_jvms"], len(executors))

    def _loop(self) -> None:
        while not self.stop.wait(self.interval):
            self._sample()

    def close(self) -> None:
        """Stop sampling."""
        self.stop.set()
        self.thread.join()


def _sample_groups(table: Any, partitions: int) -> tuple[list[Any], list[Any]]:
    """Live entries and index entries of the sampled groups (partition ``p``, bucket ``p % 4``),
    read locally from the manifests whose partition stats admit the partition."""
    from paimon_lens.metadata.manifest import merge_entries, merge_index_entries, read_index_manifest, read_manifest

    days = {(_dt.date(2025, 1, 1) + _dt.timedelta(days=p)).isoformat(): p % BUCKETS
            for p in SAMPLE_PARTITIONS if p < partitions}
    metas = []
    for m in table.manifest_files():
        lo = table.reader.decode_partition(m.partition_stats.min_values, "min")["dt"]
        hi = table.reader.decode_partition(m.partition_stats.max_values, "max")["dt"]
        if any(str(lo) <= d <= str(hi) for d in days):
            metas.append(m)
    entries = []
    for m in metas:
        for e in read_manifest(table.file_io, table.reader.manifest_dir, m.file_name, m.file_size):
            dt = str(table.reader.decode_partition(e.partition, "partition")["dt"])
            if days.get(dt) == e.bucket:
                entries.append(e)
    live = merge_entries(entries)
    keys = {(e.partition, e.bucket) for e in live}
    index = []
    if table.snapshot.index_manifest:
        index = [e for e in merge_index_entries(read_index_manifest(table.file_io, table.reader.manifest_dir,
                                                                    table.snapshot.index_manifest))
                 if (e.partition, e.bucket) in keys]
    return live, index


def _same_cell(local: Any, dist: Any) -> bool:
    if isinstance(local, float) and math.isnan(local):
        local = None
    if isinstance(local, (dict, list)) and isinstance(dist, str):
        return bool(json.loads(dist) == json.loads(json.dumps(local, default=str)))
    if local is None or dist is None:
        return local is None and dist is None
    if isinstance(local, (int, float)) and isinstance(dist, (int, float)):
        return float(local) == float(dist)
    return bool(str(local) == str(dist))


def check_sample(table: Any, spark: Any, explain_path: str, indexes_path: str, partitions: int) -> dict[str, Any]:
    """The sampled groups' records and file_indexes rows against the local engine (see the module docs)."""
    from pyspark.sql import functions as F

    from benchmarks.bench_explain import WHERE
    from paimon_lens.distributed.spark_plan import row_record
    from paimon_lens.inventory.file_indexes import table_file_indexes
    from paimon_lens.presentation.index_frames import file_indexes_frame
    from paimon_lens.pruning.explain import explain

    live, index = _sample_groups(table, partitions)
    part = table.reader.restricted(live, index)
    names = [e.file.file_name for e in live]
    want = sorted(explain(part, WHERE["pk"], rules=table.rules).to_dict()["files"], key=lambda r: r["file_name"])
    rows = spark.read.parquet(explain_path).where(F.col("file_name").isin(names)).collect()
    got = sorted((row_record(r.asDict(), False) for r in rows), key=lambda r: r["file_name"])
    frame = file_indexes_frame(part, table_file_indexes(part))
    local_rows = frame.to_dict("records")
    dist = {(r["file_name"], r["column"], r["index_type"]): r.asDict()
            for r in spark.read.parquet(indexes_path).where(F.col("file_name").isin(names)).collect()}
    bad = 0
    for r in local_rows:
        d = dist.get((r["file_name"], r["column"], r["index_type"]))
        if d is None or not all(_same_cell(v, d.get(k)) for k, v in r.items()):
            bad += 1
    return {"groups": len({(e.partition, e.bucket) for e in live}), "files": len(names),
            "explain_equal": got == want, "index_rows": len(local_rows), "index_rows_dist": len(dist),
            "index_rows_differing": bad}


def worker(path: str, files: int, out_dir: str, full_check: bool, master: str = SPARK_MASTER) -> dict[str, Any]:
    """Time and measure one size in this (fresh) interpreter."""
    import paimon_lens as pl
    from benchmarks.bench_explain import WHERE

    out: dict[str, Any] = {"files": files, "master": master}
    t = time.perf_counter()
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("paimon-lens-bench-million")
    for k, v in SPARK_CONF.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    out["session"] = time.perf_counter() - t
    sampler = Sampler(spark)
    out["heap_max"] = sampler.heap_max
    try:
        sampler.phase("open")
        t = time.perf_counter()
        table = pl.open_table(path, progress=False, engine="spark", spark=spark)
        out["manifests"] = len(table.manifest_files())
        out["open"] = time.perf_counter() - t
        sampler.end()

        explain_path = f"{out_dir}/explain"
        sampler.phase("explain")
        t = time.perf_counter()
        report = table.explain_distributed(WHERE["pk"], output=f"parquet:{explain_path}")
        out["explain"] = time.perf_counter() - t
        sampler.end()
        summary = report.summary()
        out["summary"] = {k: summary[k] for k in ("files", "planned_files", "read_files", "files_with_errors",
                                                  "skipped_by")}
        out["notes"] = len(report.notes) + report.notes_omitted

        indexes_path = f"{out_dir}/indexes"
        sampler.phase("file_indexes")
        t = time.perf_counter()
        indexes = table.file_indexes_distributed(output=f"parquet:{indexes_path}")
        out["file_indexes"] = time.perf_counter() - t
        sampler.end()
        out["index_rows"] = indexes.rows
        out["index_errors"] = indexes.files_with_errors
        out["index_rows_parquet"] = spark.read.parquet(indexes_path).count()
        out["memory"] = sampler.phases
    finally:
        sampler.close()
    t = time.perf_counter()
    _, partitions = shard_layout(files)
    out["sample"] = check_sample(table, spark, explain_path, indexes_path, partitions)
    if full_check:  # the whole table on the local engine
        from paimon_lens.distributed.spark_plan import row_record

        local = pl.open_table(path, progress=False).explain(WHERE["pk"]).to_dict()
        rows = [row_record(r.asDict(), False) for r in spark.read.parquet(explain_path).collect()]
        key = lambda r: r["file_name"]  # noqa: E731
        out["full"] = {"summary_equal": local["summary"] == summary, "notes_equal": local["notes"] == report.notes,
                       "records_equal": sorted(rows, key=key) == sorted(local["files"], key=key),
                       "records": len(rows)}
    out["check"] = time.perf_counter() - t
    spark.stop()
    return out


def run_worker(path: Path, files: int, full_check: bool, master: str = SPARK_MASTER) -> dict[str, Any]:
    """:func:`worker` in a fresh interpreter; load average before and after."""
    import subprocess
    import sys
    import tempfile

    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    with tempfile.TemporaryDirectory(prefix="bench-million-") as tmp:
        cmd = [sys.executable, "-m", "benchmarks.bench_million", "--worker", str(path), "--files", str(files),
               "--out-dir", tmp, "--master", master] + (["--full-check"] if full_check else [])
        load = os.getloadavg()
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
        wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"worker failed on {path}:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result.update(process_wall=wall, load_before=load[0], load_after=os.getloadavg()[0],
                  load_5_15=f"{os.getloadavg()[1]:.1f}/{os.getloadavg()[2]:.1f}")
    return result


# ---- report -------------------------------------------------------------------------------------

def _mb(x: int) -> str:
    return f"{x / 2**20:,.0f} MB"


def _s(x: float) -> str:
    return f"{x:.1f} s" if x < 100 else f"{x:,.0f} s"


def _peak(r: dict[str, Any], key: str) -> int:
    """The largest ``key`` of a run's explain and file_indexes phases."""
    return max(r["memory"]["explain"].get(key, 0), r["memory"]["file_indexes"].get(key, 0))


def _sample_ok(r: dict[str, Any]) -> bool:
    s = r["sample"]
    return bool(s["explain_equal"] and not s["index_rows_differing"] and s["index_rows"] == s["index_rows_dist"])


def _full_ok(r: dict[str, Any]) -> bool:
    f = r["full"]
    return bool(f["summary_equal"] and f["notes_equal"] and f["records_equal"])


def _own_executors(r: dict[str, Any]) -> bool:
    """Whether the run's executors had JVMs of their own (the driver JVM's numbers are the driver's)."""
    return _peak(r, "executor_jvms") > 0


BOUND = 2.0
"""Bounded: the driver's peak at 1,000,000 files at most this many times its peak at 100,000 (10x the files)."""


def bounded(results: list[dict[str, Any]]) -> list[tuple[str, str, int, int]]:
    """(master, what, peak at 100,000, peak at 1,000,000 files) of the driver measures each master gives."""
    out = []
    for master in dict.fromkeys(r["master"] for r in results):
        by = {r["files"]: r for r in results if r["master"] == master}
        if 100_000 not in by or 1_000_000 not in by:
            continue
        a, b = by[100_000], by[1_000_000]
        keys = [("driver_rss", "driver Python RSS")]
        if _own_executors(a) and _own_executors(b):
            keys.append(("jvm_heap_after_gc", "driver JVM heap live after GC"))
        for key, what in keys:
            out.append((master, what, _peak(a, key), _peak(b, key)))
    return out


SUMMARY = ("A million files planned on Spark with the driver kept out of the per-file work: "
           "`explain_distributed` and `file_indexes_distributed` on metadata-only primary-key tables of 100,000 "
           "and 1,000,000 files, the answers checked against the local engine and the driver's peak memory "
           "compared across the two sizes; ratio: peak at 1,000,000 files / peak at 100,000.")


def records(results: list[dict[str, Any]]) -> list[Any]:
    """The ``bench_million`` rows of RESULTS.md."""
    from benchmarks import records as rec

    rows = []
    for r in results:
        n, master = r["files"], r["master"]
        equal = _sample_ok(r) and (_full_ok(r) if "full" in r else True)
        checked = f"{r['sample']['files']:,} sampled files" + (
            f" and all {r['full']['records']:,} records" if "full" in r else "")
        rows.append(rec.Record(
            f"`{master}`, {n:,} files: distributed explain and file_indexes finish, equal to the local engine",
            f"explain {_s(r['explain'])} ({r['explain'] / n * 1e6:,.0f} µs/file), file_indexes "
            f"{_s(r['file_indexes'])} ({r['file_indexes'] / n * 1e6:,.0f} µs/file, {r['index_rows']:,} rows); "
            f"equal on {checked}: {'yes' if equal else 'NO'}; driver peak: Python {_mb(_peak(r, 'driver_rss'))} RSS, "
            f"JVM heap live {_mb(_peak(r, 'jvm_heap_after_gc'))}"
            + (f"; largest executor JVM {_mb(_peak(r, 'executor_jvm_rss'))} RSS" if _own_executors(r) else ""),
            None, rec.verdict(equal)))
    for master, what, a, b in bounded(results):
        rows.append(rec.Record(f"`{master}`: {what} bounded (<= {BOUND:g}x for 10x the files)",
                               f"{_mb(a)} -> {_mb(b)}", b / a if a else None, rec.verdict(bool(a) and b <= BOUND * a)))
    return rows


def render(results: list[dict[str, Any]], built: dict[int, float | None], code: str) -> str:
    """The measured part of results_million.md."""
    from benchmarks.bench_explain import END, WHERE, results_header

    masters = list(dict.fromkeys(r["master"] for r in results))
    lines = [
        *results_header("bench_million", code),
        "* Spark: " + " and ".join(f"`{m}`" for m in masters) + ", "
        + ", ".join(f"`{k}={v}`" for k, v in SPARK_CONF.items())
        + "; one fresh interpreter per size; OS page cache warm",
        "* tables: metadata-only primary-key tables, 5,000 files per partition x 4 buckets (1,250 files per group), "
        "200 rows per file; " + "; ".join(f"{n:,} files " + ("cached" if s is None else f"built in {s:.0f} s")
                                           for n, s in built.items()),
        f"* predicate: `{WHERE['pk']}`",
        "* load average: 1-minute before -> after each run (5/15-minute after)",
        "",
        "| target | result |",
        "| --- | --- |",
    ]
    for r in results:
        n, m = r["files"], f"`{r['master']}`, "
        lines.append(f"| {m}{n:,} files: distributed explain finishes | {_s(r['explain'])} "
                     f"({r['explain'] / n * 1e6:,.0f} µs/file), {r['summary']['files']:,} records to Parquet |")
        lines.append(f"| {m}{n:,} files: distributed file_indexes finishes | {_s(r['file_indexes'])} "
                     f"({r['file_indexes'] / n * 1e6:,.0f} µs/file), {r['index_rows']:,} rows "
                     f"({r['index_rows_parquet']:,} in Parquet) |")
        s = r["sample"]
        lines.append(f"| {m}{n:,} files: equal to the local engine on sampled groups | "
                     f"{'yes' if _sample_ok(r) else 'NO'}: {s['groups']} groups, {s['files']:,} files, "
                     f"{s['index_rows']:,} index rows |")
        if "full" in r:
            lines.append(f"| {m}{n:,} files: equal to the local engine on the whole table | "
                         f"{'yes' if _full_ok(r) else 'NO'}: summary, notes, {r['full']['records']:,} records |")
        jvm = "driver JVM" if _own_executors(r) else "JVM (driver and executors)"
        lines.append(f"| {m}{n:,} files: driver peak memory | Python {_mb(_peak(r, 'driver_rss'))} RSS; {jvm} heap "
                     f"live after GC {_mb(_peak(r, 'jvm_heap_after_gc'))}, used (with garbage) "
                     f"{_mb(_peak(r, 'jvm_heap'))} of {_mb(r['heap_max'])} |")
    for master, what, a, b in bounded(results):
        lines.append(f"| `{master}`: driver memory bounded (not ~10x from 100k to 1M files): {what} | "
                     f"{_mb(a)} -> {_mb(b)} ({b / a if a else float('nan'):.2f}x) |")
    lines += ["", "| master | files | phase | wall | µs/file | driver Python RSS peak | JVM heap live after GC | "
              "JVM heap used peak | JVM RSS peak | largest executor JVM RSS | largest Python worker RSS | "
              "load 1m before -> after (5/15m) |",
              "| " + " | ".join(["---"] * 12) + " |"]
    for r in results:
        n = r["files"]
        for phase in ("open", "explain", "file_indexes"):
            m = r["memory"][phase]
            wall = r[phase]
            executor = _mb(m["executor_jvm_rss"]) if m.get("executor_jvms") else "(in the JVM)"
            lines.append(f"| `{r['master']}` | {n:,} | {phase} | {_s(wall)} | {wall / n * 1e6:,.1f} | "
                         f"{_mb(m['driver_rss'])} | {_mb(m['jvm_heap_after_gc'])} | {_mb(m['jvm_heap'])} | "
                         f"{_mb(m['jvm_rss'])} | {executor} | {_mb(m['worker_rss'])} | "
                         f"{r['load_before']:.2f} -> {r['load_after']:.2f} ({r['load_5_15']}) |")
    lines.append("")
    for r in results:
        sk = ", ".join(f"{k} {v:,}" for k, v in r["summary"]["skipped_by"].items() if v)
        lines.append(f"* `{r['master']}`, {r['files']:,} files: {r['manifests']:,} manifests; session start "
                     f"{_s(r['session'])}; {r['summary']['files']:,} live -> {r['summary']['planned_files']:,} planned "
                     f"-> {r['summary']['read_files']:,} read; removed by stage: {sk}; "
                     f"{r['summary']['files_with_errors']} files with errors; process wall {_s(r['process_wall'])}")
    lines += ["", END]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    import argparse
    import tempfile

    from benchmarks import records as rec
    from benchmarks.bench_explain import code_version, write_marked_section

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    ap.add_argument("--workers", type=int, default=2, help="processes building the shards")
    ap.add_argument("--master", action="append", default=None,
                    help=f"a Spark master to run every size on (repeatable; default {SPARK_MASTER})")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="do not write results_million.md and RESULTS.md")
    ap.add_argument("--files", type=int, default=None, help="(generate-only / worker) table size")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out-dir", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--full-check", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    masters = args.master or [SPARK_MASTER]
    if args.worker:
        print(json.dumps(worker(args.worker, args.files, args.out_dir, args.full_check, masters[0])))
        return 0
    sizes = [args.files] if args.files else [int(s) for s in args.sizes.split(",") if s.strip()]
    code = code_version()
    commit = rec.git_commit()
    built: dict[int, float | None] = {}
    paths: dict[int, Path] = {}
    for n in sizes:
        paths[n], built[n] = cached_table(args.cache_dir, n, workers=args.workers)
        print(f"[{n:,}] {paths[n]} ({'cached' if built[n] is None else f'built in {built[n]:.0f} s'})", flush=True)
    if args.generate_only:
        return 0
    results = []
    for master in masters:
        for n in sizes:
            r = run_worker(paths[n], n, full_check=n <= 100_000, master=master)
            results.append(r)
            print(f"[{master} {n:,}] " + json.dumps({k: v for k, v in r.items() if k != "memory"}), flush=True)
            print(f"[{master} {n:,}] memory " + json.dumps(r["memory"]), flush=True)
    if results:
        text = render(results, built, code)
        print(text)
        if not args.no_write:
            write_marked_section(RESULTS, text, "A million files planned on Spark")
            print(f"wrote {RESULTS}")
            rec.update_results("bench_million", rec.command_line("bench_million", argv), records(results),
                               summary=SUMMARY, machine=rec.machine_facts((*rec.DEFAULT_PACKAGES, "pyspark")),
                               commit=commit, details=RESULTS.name)
            print(f"wrote {rec.RESULTS}")
    return 0


ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    raise SystemExit(main())
