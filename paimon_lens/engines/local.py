"""Engines that run on this machine: in process (the default) and a process pool.

:class:`LocalEngine` is paimon-lens's original behaviour: tables opened with it use the
in-process code paths (remote manifests are read by a thread pool, see ``Table._map``); its
``map`` is a plain loop, or a thread pool when asked for. :class:`ProcessEngine` runs the
services' tasks (see :mod:`paimon_lens.engines.files`) on a ``ProcessPoolExecutor``: decoding holds
the GIL, so processes (not threads) are what spreads it over cores, at the cost of pickling tasks
and results. No JVM either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from .base import MIN_MANIFESTS
from .tasks import guarded, unwrap

T = TypeVar("T")
R = TypeVar("R")


class LocalEngine:
    """In this process (``threads > 1``: ``map`` uses a thread pool)."""

    name = "local"
    distributed = False
    parallelism = 1

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` (threads when configured and there is more than one item)."""
        if self.threads <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        from concurrent.futures import ThreadPoolExecutor  # not at import: the default engine needs no pool

        with ThreadPoolExecutor(max_workers=min(self.threads, len(items))) as pool:
            return list(pool.map(fn, items))

    def __repr__(self) -> str:
        return f"LocalEngine(threads={self.threads})"


LOCAL = LocalEngine()
"""The default engine."""


class ProcessEngine:
    """A local process pool running the services' tasks (``workers``: default ``os.cpu_count()``)."""

    name = "process"
    distributed = True

    def __init__(self, workers: int | None = None, *, min_manifests: int = MIN_MANIFESTS) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.min_manifests = min_manifests
        """Read manifests in worker processes from this many manifest files on (fewer: in process)."""

    @property
    def parallelism(self) -> int:
        """How many tasks run at once."""
        return self.workers

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` in worker processes (in process for a single item)."""
        if len(items) <= 1 or self.workers <= 1:
            return [fn(x) for x in items]
        from concurrent.futures import ProcessPoolExecutor  # not at import: it loads multiprocessing (~10 ms)

        with ProcessPoolExecutor(max_workers=min(self.workers, len(items))) as pool:
            return [unwrap(r) for r in pool.map(guarded, [fn] * len(items), items)]

    def __repr__(self) -> str:
        return f"ProcessEngine(workers={self.workers})"
