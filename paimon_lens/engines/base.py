"""The engine interface: ``map`` a picklable function over items, in order.

The functions the services map are top-level (or ``functools.partial`` of top-level functions with
picklable arguments) and their items and results are picklable, so a *distributed* engine
(``distributed = True``) can run them in other processes. ``parallelism`` (default 1) says how many
tasks run at once: the services cut their work into that many (a few per unit), and into one task,
run on the reader itself, for an engine of parallelism 1 such as the local one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from ..errors import TaskError

T = TypeVar("T")
R = TypeVar("R")

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
    """Whether tasks run in other processes (their items and results are pickled)."""

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]``, wherever the engine runs it."""
        ...


__all__ = ["MIN_MANIFESTS", "Engine", "TaskError"]
