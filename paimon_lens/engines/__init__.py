"""Engines: where paimon-lens runs its per-file work.

An engine maps a picklable top-level function over a list of items and returns the results in
order (:class:`~paimon_lens.engines.base.Engine`). Three are provided:

* ``"local"`` (default, :class:`~paimon_lens.engines.local.LocalEngine`): in this process, as
  paimon-lens always ran (remote manifests are read by a thread pool). No JVM, nothing pickled.
* ``"process"`` (:class:`~paimon_lens.engines.local.ProcessEngine`): a local process pool; the same
  distributed plan as Spark without a JVM (tasks and results are pickled).
* ``"spark"`` (:class:`~paimon_lens.engines.spark.SparkEngine`): PySpark. Give a session
  (``open_table(path, engine="spark", spark=session)``) or let one be created
  (``spark_master="local[*]"`` by default). Only :mod:`paimon_lens.engines.spark` imports pyspark.

The services hand their per-file work to the table's engine (see :mod:`.files`): manifest reading
(from :data:`~paimon_lens.engines.base.MIN_MANIFESTS` manifest files on), per-file index decoding
(:mod:`paimon_lens.inventory.file_indexes`), deletion-vector decoding (:mod:`paimon_lens.inventory.deletion_vectors`),
``explain`` (:mod:`paimon_lens.pruning.run`: planning, file-index evaluation, deletion vectors and
ground truth per partition and bucket), and the recommender's column profiling and what-if index
building (runs of data files per task). An engine of parallelism 1 gets the whole snapshot as one
task, on the reader itself. Executors read files
through the table's own FileIO (local paths, or fsspec for s3/hdfs/oss; an in-memory ``memory://``
file system is not shared with other processes). Results are identical to the local engine's.

Frames stay pandas. A Spark engine also turns any frame into a Spark DataFrame::

    t = paimon_lens.open_table(path, engine="spark", spark=spark)
    files_df = t.engine.to_spark(t.files())      # dict/list columns become JSON strings
"""

from __future__ import annotations

from typing import Any

from ..errors import PaimonLensError
from .base import Engine

ENGINE_NAMES = ("local", "process", "spark")

__all__ = ["Engine", "get_engine", "to_spark"]


def to_spark(frame: Any, spark: Any = None) -> Any:
    """A pandas frame of paimon-lens as a Spark DataFrame (see :func:`paimon_lens.engines.spark.to_spark`)."""
    from .spark import to_spark as _to_spark

    return _to_spark(frame, spark)


def get_engine(engine: str | Engine | None = None, *, spark: Any = None, spark_master: str | None = None,
               workers: int | None = None) -> Engine:
    """The engine named ``engine`` (``"local"``, ``"process"``, ``"spark"``), or ``engine`` itself.

    A Spark session given as ``spark`` selects the Spark engine when ``engine`` is None.
    """
    if engine is None:
        engine = "spark" if spark is not None else "local"
    if not isinstance(engine, str):
        return engine
    name = engine.strip().lower()
    if name == "local":
        from .local import LOCAL

        return LOCAL
    if name == "process":
        from .local import ProcessEngine

        return ProcessEngine(workers)
    if name == "spark":
        from .spark import SparkEngine

        return SparkEngine(spark, master=spark_master)
    raise PaimonLensError(f"unknown engine {engine!r}: use one of {', '.join(ENGINE_NAMES)}")
