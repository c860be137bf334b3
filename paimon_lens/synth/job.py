"""``synth_table``: plan on the driver, write data files in Spark tasks (or locally), commit.

::

    driver   SynthSpec -> schema/schema-0 -> file plan (partition, bucket, name, rows, keys, seed)
    tasks    sc.parallelize(plan, n).map(write_file): rows -> parquet + index container -> entry
    driver   manifests, manifest lists, deletion vectors + index manifest, snapshot-1

``engine="spark"`` runs the tasks on a Spark session (``spark=None``: a local ``local[*]`` session
with the UI disabled, stopped afterwards); ``engine="local"`` runs the same task function in this
process, which needs no pyspark and suits small tables and tests. A table directory on a cluster
must be a path every executor can write (a shared filesystem).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from .commit import commit, write_schema
from .plan import FilePlan, make_plan
from .spec import IndexesArg, SynthSpec
from .task import FileResult, TaskContext, write_file

Engine = Literal["spark", "local"]


@dataclass(frozen=True)
class SynthFile:
    """One generated data file."""

    path: str  # relative to the table directory
    partition: dict[str, str]
    bucket: int
    level: int
    row_count: int
    file_size: int
    index: str  # "embedded", "external" or "none"
    deleted: tuple[int, ...]  # row positions held by its deletion vector

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (``deleted`` as a count)."""
        return {"path": self.path, "partition": dict(self.partition), "bucket": self.bucket, "level": self.level,
                "row_count": self.row_count, "file_size": self.file_size, "index": self.index,
                "deleted_rows": len(self.deleted)}


@dataclass(frozen=True)
class SynthResult:
    """What :func:`synth_table` wrote."""

    path: str
    spec: SynthSpec
    snapshot_id: int
    engine: str
    seconds: float
    files: tuple[SynthFile, ...] = field(repr=False)

    @property
    def row_count(self) -> int:
        """Rows stored in the data files."""
        return sum(f.row_count for f in self.files)

    @property
    def deleted_rows(self) -> int:
        """Rows marked deleted by deletion vectors."""
        return sum(len(f.deleted) for f in self.files)

    @property
    def live_rows(self) -> int:
        """Rows a reader returns."""
        return self.row_count - self.deleted_rows

    def to_dict(self, with_files: bool = False) -> dict[str, Any]:
        """JSON-able summary (``with_files``: one record per data file)."""
        out: dict[str, Any] = {
            "path": self.path, "snapshot_id": self.snapshot_id, "engine": self.engine,
            "seconds": round(self.seconds, 3), "spec": self.spec.to_dict(), "files": len(self.files),
            "rows": self.row_count, "deleted_rows": self.deleted_rows, "live_rows": self.live_rows,
            "external_indexes": sum(f.index == "external" for f in self.files),
            "embedded_indexes": sum(f.index == "embedded" for f in self.files),
            "deletion_vectors": sum(bool(f.deleted) for f in self.files),
            "bytes": sum(f.file_size for f in self.files),
        }
        if with_files:
            out["data_files"] = [f.to_dict() for f in self.files]
        return out


def synth_table(path: str | os.PathLike[str], *, rows: int, files: int, partitions: int = 0,
                primary_key: bool | str | Sequence[str] = (), buckets: int | None = None,
                deletion_vectors: bool = False, indexes: IndexesArg = None,
                options: Mapping[str, str] | None = None, seed: int = 0, spark: Any = None,
                engine: Engine = "spark") -> SynthResult:
    """Generate a new Paimon table of synthetic ``orders`` in ``path`` (see :mod:`paimon_lens.synth.spec`).

    Args:
        path: the table directory (a new or empty local directory).
        rows: total rows in the data files (deletion vectors then hide some of them).
        files: number of data files.
        partitions: number of ``dt`` partitions (0: unpartitioned).
        primary_key: ``True``/``"order_id"`` for a primary-key table (``dt`` is added when partitioned).
        buckets: fixed buckets of a primary-key table (default 2).
        deletion_vectors: primary-key tables: ``deletion-vectors.enabled`` and deletion vectors.
        indexes: file indexes, e.g. ``"bitmap:status,country bloom-filter:customer_id"``; None:
            :data:`~paimon_lens.synth.spec.DEFAULT_INDEXES`; ``"none"``: no index.
        options: further table options (``file-index.in-manifest-threshold``, bloom ``fpp`` ...).
        seed: data, file names and deletions follow from it.
        spark: a SparkSession to run on (``engine="spark"``); None: a local session.
        engine: ``"spark"`` or ``"local"`` (in process, no pyspark).

    Raises:
        ValueError: an inconsistent definition; FileExistsError: ``path`` is not empty.
    """
    spec = SynthSpec.make(rows=rows, files=files, partitions=partitions, primary_key=primary_key,
                          buckets=buckets, deletion_vectors=deletion_vectors, indexes=indexes,
                          options=options, seed=seed)
    if engine not in ("spark", "local"):
        raise ValueError(f"engine must be 'spark' or 'local', not {engine!r}")
    root = Path(path).absolute()
    started = time.perf_counter()
    created = not root.exists()
    schema, file_spec = write_schema(root, spec)
    ctx = TaskContext(str(root), spec, file_spec)
    plan = make_plan(spec)
    try:
        if engine == "local":
            results = [write_file(ctx, p) for p in plan]
        else:
            with spark_session(spark) as session:
                results = run_on_spark(session, ctx, plan)
        snapshot_id = commit(root, spec, schema, results)
    except BaseException:
        remove_unfinished(root, created)
        raise
    return SynthResult(str(root), spec, snapshot_id, engine, time.perf_counter() - started,
                       tuple(_describe(r, spec) for r in sorted(results, key=lambda r: r.path)))


def run_on_spark(spark: Any, ctx: TaskContext, plan: Sequence[FilePlan]) -> list[FileResult]:
    """Run :func:`~paimon_lens.synth.task.write_file` for every planned file as Spark tasks."""
    sc = spark.sparkContext
    slices = max(1, min(len(plan), sc.defaultParallelism * 4))
    results: list[FileResult] = sc.parallelize(list(plan), slices).map(partial(write_file, ctx)).collect()
    return results


@contextmanager
def spark_session(spark: Any) -> Iterator[Any]:
    """The given session, the active one, or a new local one (stopped on exit)."""
    if spark is not None:
        yield spark
        return
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("synth on Spark needs pyspark: pip install 'paimon-lens[spark]' "
                          "(or use engine='local')") from e
    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[*]").appName("paimon-lens-synth")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    try:
        yield session
    finally:
        session.stop()


def remove_unfinished(root: Path, created: bool) -> None:
    """Remove what a failed run wrote (the directory was new or empty before)."""
    if root.exists():
        if created:
            shutil.rmtree(root, ignore_errors=True)
        else:
            for child in root.iterdir():
                shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)


def _describe(r: FileResult, spec: SynthSpec) -> SynthFile:
    f = r.entry["_FILE"]
    index = "external" if f["_EXTRA_FILES"] else "embedded" if f["_EMBEDDED_FILE_INDEX"] is not None else "none"
    return SynthFile(r.path, dict(zip(spec.partition_keys, r.plan.partition)), r.plan.bucket, f["_LEVEL"],
                     f["_ROW_COUNT"], f["_FILE_SIZE"], index, r.deleted)
