"""The Spark engine: paimon-lens's per-file work as PySpark tasks (the only module importing pyspark).

``SparkEngine(spark)`` uses a given ``SparkSession``; without one it creates (or reuses) a session
with ``master`` (default ``local[*]``), the console progress bar off, and the executors' Python set
to this interpreter unless ``PYSPARK_PYTHON`` says otherwise. ``map(fn, items)`` is
``sc.parallelize(items, n).map(fn).collect()``: ``fn`` is pickled with cloudpickle, the items and
results with the standard pickler, so ``fn`` is a top-level function (or a partial of one) and
items and results are plain picklable data; the executors import paimon-lens, which must be
installed where they run.

Lists of fewer than ``min_items`` items are mapped in the driver (a Spark job costs a few hundred
milliseconds), and a snapshot's manifests are read in the driver unless there are at least
``min_manifests`` of them (see :data:`~paimon_lens.engines.base.MIN_MANIFESTS`).

:func:`to_spark` turns a paimon-lens pandas frame into a Spark DataFrame: numbers, booleans and
strings keep their types, anything else (partition dicts, lists, decimals, timestamps of internal
form) becomes a string (JSON for dicts and lists), and an all-null column is a nullable string.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from ..errors import PaimonLensError
from ..metadata.gc_pause import gc_paused
from .base import MIN_MANIFESTS
from .tasks import guarded, unwrap

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_MASTER = "local[*]"


def _pyspark() -> Any:
    try:
        import pyspark
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise PaimonLensError("the Spark engine needs pyspark: pip install 'paimon-lens[spark]'") from e
    return pyspark


def create_session(master: str | None = None, app_name: str = "paimon-lens") -> Any:
    """A ``SparkSession`` (the active one is reused by ``getOrCreate``) for ``master``."""
    _pyspark()
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master or DEFAULT_MASTER).appName(app_name)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    if not os.environ.get("PYSPARK_PYTHON"):
        # PySpark starts its workers with $PYSPARK_PYTHON, else the `python3` on PATH, which for a
        # CLI installed in a virtualenv that is not activated (or by pipx) lacks paimon-lens: the
        # workers must run this interpreter. The config alone does not reach the worker factory.
        os.environ["PYSPARK_PYTHON"] = sys.executable
        builder = builder.config("spark.pyspark.python", sys.executable)
    return builder.getOrCreate()


def _run_pickled(fn: Callable[[Any], Any], blob: bytes) -> bytes:
    """A task: ``fn`` of the pickled item, its result (or :class:`~.tasks.Failure`) pickled (in a
    Python worker of Spark's: a process of our own, whose collector may pause)."""
    with gc_paused(own_process=True):
        return pickle.dumps(guarded(fn, pickle.loads(blob)), protocol=pickle.HIGHEST_PROTOCOL)


class SparkEngine:
    """Runs tasks on a Spark cluster (or ``local[N]``) through a ``SparkSession``."""

    name = "spark"
    distributed = True

    def __init__(self, spark: Any = None, *, master: str | None = None, min_items: int = 2,
                 tasks_per_core: int = 2, min_manifests: int = MIN_MANIFESTS) -> None:
        self._spark = spark
        self.master = master or DEFAULT_MASTER
        self.min_items = min_items
        self.min_manifests = min_manifests
        """Read manifests in Spark tasks from this many manifest files on (fewer: in the driver)."""
        self.tasks_per_core = tasks_per_core

    @property
    def spark(self) -> Any:
        """The session (created on first use when none was given)."""
        if self._spark is None:
            self._spark = create_session(self.master)
        return self._spark

    @property
    def parallelism(self) -> int:
        """Tasks the cluster runs at once (``defaultParallelism``)."""
        return max(1, int(self.spark.sparkContext.defaultParallelism))

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` as one Spark job (in the driver below ``min_items`` items)."""
        if len(items) < self.min_items:
            return [fn(x) for x in items]
        sc = self.spark.sparkContext
        slices = min(len(items), self.parallelism * self.tasks_per_core)
        # items and results cross as bytes of the C pickler: PySpark would otherwise pickle them
        # with cloudpickle's pure-Python pickler, 2-3 times slower on many small objects
        payload = [pickle.dumps(x, protocol=pickle.HIGHEST_PROTOCOL) for x in items]
        results = sc.parallelize(payload, slices).map(partial(_run_pickled, fn)).collect()
        with gc_paused():
            loaded = [pickle.loads(r) for r in results]
        return [unwrap(r) for r in loaded]

    def to_spark(self, frame: Any) -> Any:
        """``frame`` (pandas) as a Spark DataFrame of this engine's session; see :func:`to_spark`."""
        return to_spark(frame, self.spark)

    def __repr__(self) -> str:
        master = self.master if self._spark is None else self._spark.sparkContext.master
        return f"SparkEngine(master={master!r})"


# ---- pandas -> Spark DataFrame ------------------------------------------------------------------

def is_null(v: Any) -> bool:
    """Whether a frame cell is missing: None or NaN (a null in Spark)."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def spark_kind(values: Sequence[Any]) -> str:
    """``boolean``, ``long``, ``double`` or ``string``: the Spark type a column's values fit."""
    kinds = set()
    for v in values:
        if is_null(v):
            continue
        if isinstance(v, bool) or type(v).__name__ == "bool_":
            kinds.add("boolean")
        elif isinstance(v, int) or type(v).__name__.startswith("int"):
            kinds.add("long")
        elif isinstance(v, float) or type(v).__name__.startswith("float"):
            kinds.add("double")
        else:
            return "string"
    if not kinds:
        return "string"
    if kinds == {"long", "double"}:
        return "double"
    return kinds.pop() if len(kinds) == 1 else "string"


def plain(v: Any) -> Any:
    """``v``, a text of a ``str`` subclass (an enum member, a ``Problem``) as the plain text it is:
    Spark's JVM side unpickles built-in types only."""
    return str.__str__(v) if isinstance(v, str) and type(v) is not str else v


def spark_cell(v: Any, kind: str) -> Any:
    """A frame cell as a Spark value of the column's :func:`spark_kind` (dicts and lists as JSON
    text, bytes as hex, other objects as ``str``; None for :func:`is_null`)."""
    if is_null(v):
        return None
    if kind == "boolean":
        return bool(v)
    if kind == "long":
        return int(v)
    if kind == "double":
        return float(v)
    if isinstance(v, str):
        return plain(v)
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, default=str, ensure_ascii=False, sort_keys=False)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    return str(v)


def to_spark(frame: Any, spark: Any = None) -> Any:
    """A pandas frame as a Spark DataFrame (``spark``: a session; default: the active or a new one).

    Column types: boolean, long, double or string (dicts and lists as JSON text, other objects as
    ``str``); nulls stay null.
    """
    _pyspark()
    from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType, StructField, StructType

    session = spark if spark is not None else create_session()
    types = {"boolean": BooleanType(), "long": LongType(), "double": DoubleType(), "string": StringType()}
    columns = [str(c) for c in frame.columns]
    data = [list(frame.iloc[:, i]) for i in range(len(columns))]
    kinds = [spark_kind(col) for col in data]
    schema = StructType([StructField(c, types[k], True) for c, k in zip(columns, kinds)])
    rows = [tuple(spark_cell(col[r], k) for col, k in zip(data, kinds)) for r in range(len(frame))]
    return session.createDataFrame(rows, schema)
