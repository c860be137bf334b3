"""Pausing Python's cyclic garbage collector while metadata is decoded in bulk.

Decoding a large table creates hundreds of thousands of small objects (manifest records, file
metadata, stats, index readers, plan decisions) that form no reference cycles. Each allocation
burst makes the collector walk the young objects again and again, promoting them one generation
at a time, which costs a noticeable share of a cold ``explain``. :func:`gc_paused` switches the
collector off for the duration of such a burst. On the way out the objects made during the pause
are handed to the oldest generation in one step (``gc.freeze()`` then ``gc.unfreeze()``, which
moves the tracked objects without examining them) instead of being walked by the next young
collection; this is skipped when the program has frozen objects of its own, which ``unfreeze``
would release. Reference counting frees everything as usual; cycles made during the pause are
collected by the next full collection.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the ``with`` block (restored on exit).

    Nested uses only act at the outermost level; a collector that was already disabled is left
    alone.
    """
    was_enabled = gc.isenabled()
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
