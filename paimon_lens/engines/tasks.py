"""Running a task on a worker: paimon-lens errors travel back as values, not as worker crashes.

A :class:`~paimon_lens.errors.PaimonLensError` raised by a task (a corrupt file, a missing one)
is caught on the worker and returned as a :class:`Failure`; the driver raises it again as a
:class:`~paimon_lens.errors.TaskError` with the same message, so a distributed run fails
with the sentence the local run would have printed (not with a Java stack trace). Other
exceptions are bugs and propagate as the engine reports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import PaimonLensError, TaskError
from ..metadata.gc_pause import gc_paused

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Failure:
    """A paimon-lens error raised by a task on a worker."""

    kind: str
    message: str


def guarded(fn: Callable[[T], R], item: T) -> R | Failure:
    """``fn(item)``, or the :class:`Failure` describing the paimon-lens error it raised; runs in an
    engine's worker process.

    The cyclic garbage collector of the worker (a process of our own) is paused meanwhile: a task
    builds many long-lived objects (manifest entries, verdicts) and would otherwise scan them again
    and again.
    """
    try:
        with gc_paused(own_process=True):
            return fn(item)
    except PaimonLensError as e:
        return Failure(type(e).__name__, str(e))


def unwrap(result: Any) -> Any:
    """A task's result; raises :class:`~paimon_lens.errors.TaskError` for a :class:`Failure`."""
    if isinstance(result, Failure):
        raise TaskError(result.message, result.kind)
    return result
