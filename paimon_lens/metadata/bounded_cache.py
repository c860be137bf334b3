"""A cache of decoded files bounded by bytes: least recently used first out.

For decoded objects of files that never change (index files), kept for every reader of a table
directory (:meth:`~paimon_lens.metadata.snapshot_reader.SnapshotReader.shared`): each entry costs
what its caller says (the file's bytes; decoded forms are a small multiple of them), and entries
leave, oldest use first, once the total passes the budget. The entry just added always stays (one
file larger than the budget is still answered).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class BoundedCache:
    """``get(key, cost, compute)``: ``compute()`` once per key while it stays among the most recently
    used entries whose costs fit ``budget``."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, cost: int, compute: Callable[[], T]) -> T:
        """The value under ``key``, computed (and kept, at ``cost`` bytes) if not held."""
        with self._lock:
            got = self._entries.get(key)
            if got is not None:
                self._entries.move_to_end(key)
                value: T = got[0]
                return value
        value = compute()  # outside the lock: decoding may take a while
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (value, max(0, cost))
                self.size += max(0, cost)
                while self.size > self.budget and len(self._entries) > 1:
                    _, (_, freed) = self._entries.popitem(last=False)
                    self.size -= freed
        return value
