"""The engine interface: ``map`` a picklable function over items, in order.

A *distributed* engine (``distributed = True``) runs :mod:`paimon_lens.distributed`'s plans:
its functions are top-level (or ``functools.partial`` of top-level functions with picklable
arguments) and their items and results are picklable. The local engine is not distributed: tables
opened with it run paimon-lens's in-process code paths unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..errors import PaimonLensError

T = TypeVar("T")
R = TypeVar("R")

ENGINE_NAMES = ("local", "process", "spark")

MIN_MANIFESTS = 32
"""Distributed engines read a snapshot's manifests in tasks from this many manifest files on.

Decoded entries travel back to the driver pickled, which costs about what decoding them there
does (the 10,000-file benchmark table's 13 manifests: 2.0 s through Spark ``local[2]`` against
0.8 s in the driver); tasks pay off when there are many manifests, or when storage latency
(s3, oss, hdfs) dominates.
"""


@runtime_checkable
class Engine(Protocol):
    """Runs per-item work; ``map`` returns one result per item, in the items' order."""

    name: str
    distributed: bool

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]``, wherever the engine runs it."""
        ...


class TaskError(PaimonLensError):
    """A task failed on a worker with a paimon-lens error (its message kept; ``kind``: its class name)."""

    def __init__(self, message: str, kind: str = "PaimonLensError") -> None:
        super().__init__(message)
        self.kind = kind


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
