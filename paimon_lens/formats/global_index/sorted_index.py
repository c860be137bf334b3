"""What the btree and bitmap global indexes have in common: keys mapped to the rows holding them.

Both formats store, for each distinct non-null key of one column, the *local* row ids (row id
minus the index's ``_ROW_RANGE_START``; for a primary-key index, the ordinal in its source files)
of the rows with that key, and the rows whose key is null. :class:`SortedIndex` holds them decoded
(keys ordered by value, as Paimon's comparator orders them) and answers Paimon's global-index
questions (``GlobalIndexReader.visitEqual`` ...) with the set of local row ids a predicate leaf
selects, or None when the index cannot answer it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyroaring import BitMap64

from ...types import DataType
from .keys import KeyCodec


@dataclass(frozen=True)
class KeyRows:
    """One key of a sorted global index and the local row ids holding it."""

    key: Any
    rows: BitMap64


class SortedIndex:
    """Decoded keys -> rows of one btree or bitmap global index file.

    Args:
        dtype: the indexed column's type (decodes and orders the keys).
        entries: (key, rows) in any order; keys may repeat (their rows are united).
        nulls: local row ids whose key is null.
        path: the file, for errors and display.
    """

    def __init__(self, dtype: DataType, entries: Iterable[tuple[Any, BitMap64]], nulls: BitMap64,
                 path: str | None = None) -> None:
        self.codec = KeyCodec(dtype)
        self.dtype = dtype
        self.path = path
        sk = self.codec.sort_key
        merged: dict[Any, tuple[Any, BitMap64]] = {}
        order: list[Any] = []
        for key, rows in entries:
            k = sk(key)
            if k in merged:
                merged[k] = (merged[k][0], merged[k][1] | rows)
            else:
                merged[k] = (key, rows)
            order.append(k)
        self.file_order_sorted = all(a < b for a, b in itertools.pairwise(order))
        """True when the file lists its keys strictly ascending by value, as Paimon's Java writer
        does (and its reader's binary search needs)."""
        self._sort_keys = sorted(merged)
        self.keys: list[Any] = [merged[k][0] for k in self._sort_keys]
        self.rows: list[BitMap64] = [merged[k][1] for k in self._sort_keys]
        self.nulls = nulls
        self._non_null: BitMap64 | None = None

    # ---- facts ----------------------------------------------------------------------------------
    @property
    def non_null(self) -> BitMap64:
        """Every local row id with a non-null key."""
        if self._non_null is None:
            out = BitMap64()
            for r in self.rows:
                out |= r
            self._non_null = out
        return self._non_null

    def key_rows(self) -> list[KeyRows]:
        """Every key with its rows, ordered by key."""
        return [KeyRows(k, r) for k, r in zip(self.keys, self.rows)]

    # ---- Paimon's questions: local row ids, or None (cannot answer) -------------------------------
    def _index(self, literal: Any) -> int | None:
        k = self.codec.sort_key(literal)
        i = bisect.bisect_left(self._sort_keys, k)
        return i if i < len(self._sort_keys) and self._sort_keys[i] == k else None

    def equal(self, literal: Any) -> BitMap64:
        """Rows whose key equals ``literal`` (a null literal matches nothing)."""
        if literal is None:
            return BitMap64()
        i = self._index(literal)
        return BitMap64() if i is None else BitMap64(self.rows[i])

    def in_(self, literals: Sequence[Any]) -> BitMap64:
        """Rows whose key is one of ``literals``."""
        out = BitMap64()
        for v in literals:
            out |= self.equal(v)
        return out

    def not_equal(self, literal: Any) -> BitMap64:
        """Rows with a non-null key other than ``literal``."""
        if literal is None:
            return BitMap64()
        return self.non_null - self.equal(literal)

    def not_in(self, literals: Sequence[Any]) -> BitMap64:
        """Rows with a non-null key none of ``literals``."""
        if any(v is None for v in literals):
            return BitMap64()
        return self.non_null - self.in_(literals)

    def range(self, low: Any = None, low_inclusive: bool = True, high: Any = None,
              high_inclusive: bool = True) -> BitMap64:
        """Rows whose key lies between ``low`` and ``high`` (None: unbounded on that side)."""
        sk, keys = self.codec.sort_key, self._sort_keys
        lo = 0 if low is None else (bisect.bisect_left if low_inclusive else bisect.bisect_right)(keys, sk(low))
        hi = len(keys) if high is None else (bisect.bisect_right if high_inclusive else bisect.bisect_left)(
            keys, sk(high))
        out = BitMap64()
        for r in self.rows[lo:hi]:
            out |= r
        return out

    def is_null(self) -> BitMap64:
        """Rows whose key is null."""
        return BitMap64(self.nulls)

    def is_not_null(self) -> BitMap64:
        """Rows whose key is not null."""
        return BitMap64(self.non_null)

    def matching(self, test: Callable[[Any], bool]) -> BitMap64:
        """Rows whose (non-null) key passes ``test``."""
        out = BitMap64()
        for k, r in zip(self.keys, self.rows):
            if test(k):
                out |= r
        return out
