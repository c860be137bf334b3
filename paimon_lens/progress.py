"""Progress bars for long work: ``tqdm.auto`` (a widget in notebooks, a line on stderr in a terminal).

A bar appears only once its work has run for :data:`DELAY` seconds, so quick calls stay silent
and long ones (reading hundreds of manifests, decoding every index of a large table, profiling,
measuring candidate indexes, building a report) show that they are alive. ``set_progress(False)``
(the CLI's ``--no-progress``) or the environment variable ``PAIMON_LENS_PROGRESS=0`` turns every
bar off; ``set_progress(True)`` shows them at once; a call's own ``enabled`` argument wins over both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

DELAY = 1.0
"""Seconds of work before a bar appears (unless bars are switched on)."""

_ENABLED: list[bool | None] = [None]


def set_progress(enabled: bool | None) -> None:
    """Progress bars for everything from now on: True (at once), False (never), None (after :data:`DELAY`)."""
    _ENABLED[0] = enabled


def progress_enabled() -> bool | None:
    """The setting :func:`set_progress` made (None: bars after :data:`DELAY`)."""
    return _ENABLED[0]


def progress(items: Iterable[T], *, total: int | None = None, desc: str, unit: str = "file",
             enabled: bool | None = None) -> Iterable[T]:
    """``items``, with a progress bar once the work is long (see the module docs)."""
    on = enabled if enabled is not None else _ENABLED[0]
    if on is False or (on is None and os.environ.get("PAIMON_LENS_PROGRESS", "1") == "0"):
        return items
    if "IPython" in sys.modules:  # a notebook's widget (tqdm.auto decides which)
        from tqdm.auto import tqdm
    else:  # a line on stderr, without the modules the notebook and asyncio variants load
        from tqdm.std import tqdm

    return tqdm(items, total=total, desc=desc, unit=unit, delay=0.0 if on else DELAY, leave=False)
