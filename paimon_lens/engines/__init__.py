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

What a distributed engine runs (see :mod:`paimon_lens.distributed`): manifest reading (from
:data:`~paimon_lens.engines.base.MIN_MANIFESTS` manifest files on), per-file index decoding
(``file_indexes()``), deletion-vector decoding, ``explain`` (planning, file-index evaluation,
deletion vectors and ground truth per partition and bucket), and the recommender's column
profiling and what-if index building (runs of data files per task). Executors read files
through the table's own FileIO (local paths, or fsspec for s3/hdfs/oss; an in-memory ``memory://``
file system is not shared with other processes). Results are identical to the local engine's.

Frames stay pandas. A Spark engine also turns any frame into a Spark DataFrame::

    t = paimon_lens.open_table(path, engine="spark", spark=spark)
    files_df = t.engine.to_spark(t.files())      # dict/list columns become JSON strings
"""

from __future__ import annotations

from typing import Any

from .base import Engine, get_engine

__all__ = ["Engine", "get_engine", "to_spark"]


def to_spark(frame: Any, spark: Any = None) -> Any:
    """A pandas frame of paimon-lens as a Spark DataFrame (see :func:`paimon_lens.engines.spark.to_spark`)."""
    from .spark import to_spark as _to_spark

    return _to_spark(frame, spark)
