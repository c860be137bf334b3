"""The benchmarks (``python -m benchmarks.bench_<name>``; see README.md).

They measure paimon-lens as the ``paimon-lens`` command runs it: allowed to pause the garbage
collector of its own process during bulk decoding (``PAIMON_LENS_GC_PAUSE=1``, inherited by the
worker interpreters they start). A notebook gets the same by ``paimon_lens.set_gc_pause(True)``;
without it a cold ``explain`` on 10,000 files takes about a quarter longer. Set
``PAIMON_LENS_GC_PAUSE=0`` to measure the library's default.
"""

from __future__ import annotations

import os

os.environ.setdefault("PAIMON_LENS_GC_PAUSE", "1")
