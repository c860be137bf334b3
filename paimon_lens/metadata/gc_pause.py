"""Pausing Python's cyclic garbage collector while metadata is decoded in bulk, where allowed.

Decoding a large table creates hundreds of thousands of small objects (manifest records, file
metadata, stats, index readers, plan decisions) that form no reference cycles. Each allocation
burst makes the collector walk the young objects again and again, and the table's long-lived
objects at every full collection: a cold ``explain`` on 10,000 files takes about a quarter longer,
a warm one on the same table object about three quarters longer, with the collector running.

A library must not change its host's collector on its own, so :func:`gc_paused` pauses it only
where that is allowed:

* in processes paimon-lens owns: the ``paimon-lens`` command (which calls ``set_gc_pause(True)``),
  and the worker processes of the process and Spark engines (``own_process=True`` at the engine
  boundary, where a task runs);
* in a host that opts in: ``paimon_lens.set_gc_pause(True)``, or the environment variable
  ``PAIMON_LENS_GC_PAUSE=1``.

When it pauses, the collector is switched off for the burst and, on the way out, the objects made
meanwhile are handed to the oldest generation in one step (``gc.freeze()`` then ``gc.unfreeze()``,
which moves the tracked objects without examining them) instead of being walked by the next young
collection; this is skipped when the program has frozen objects of its own, which ``unfreeze``
would release. Reference counting frees everything as usual; cycles made during the pause are
collected by the next full collection.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

_SETTING: list[bool | None] = [None]


def set_gc_pause(enabled: bool | None) -> None:
    """Whether paimon-lens may pause this process's cyclic garbage collector during bulk decoding:
    True, False, or None (the default: only when ``PAIMON_LENS_GC_PAUSE=1``)."""
    _SETTING[0] = enabled


def gc_pause_allowed() -> bool:
    """Whether :func:`gc_paused` pauses the collector in this process (see :func:`set_gc_pause`)."""
    setting = _SETTING[0]
    return setting if setting is not None else os.environ.get("PAIMON_LENS_GC_PAUSE", "") == "1"


@contextmanager
def gc_paused(own_process: bool = False) -> Iterator[None]:
    """Disable the cyclic garbage collector inside the ``with`` block (restored on exit) when that
    is allowed (:func:`gc_pause_allowed`, or ``own_process``: a worker process of an engine).

    Nested uses only act at the outermost level; a collector that was already disabled is left
    alone.
    """
    was_enabled = gc.isenabled() and (own_process or gc_pause_allowed())
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()  # every tracked object to the permanent generation, unexamined ...
                gc.unfreeze()  # ... and back into the oldest one
            gc.enable()
