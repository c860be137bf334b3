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

    def get(self, key: Hashable, cost: int | Callable[[T], int], compute: Callable[[], T]) -> T:
        """The value under ``key``, computed (and kept, at ``cost`` bytes, or ``cost(value)``) if not held."""
        with self._lock:
            got = self._entries.get(key)
            if got is not None:
                self._entries.move_to_end(key)
                value: T = got[0]
                return value
        value = compute()  # outside the lock: decoding may take a while
        spent = max(0, cost(value) if callable(cost) else cost)
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (value, spent)
                self.size += spent
                while self.size > self.budget and len(self._entries) > 1:
                    _, (_, freed) = self._entries.popitem(last=False)
                    self.size -= freed
        return value

    def discard(self, key: Hashable) -> None:
        """Forget the value under ``key`` (computed again on the next :meth:`get`)."""
        with self._lock:
            got = self._entries.pop(key, None)
            if got is not None:
                self.size -= got[1]

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._entries.clear()
            self.size = 0
