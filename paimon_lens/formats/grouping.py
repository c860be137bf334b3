"""A column's rows as dictionary codes: the one state of the bitmap and range-bitmap writers.

:func:`first_occurrence_codes` gives the distinct non-null keys in first-occurrence order (the
order Paimon's writers meet them in) and each row's code into that list, ``-1`` for a null.

:class:`CodedRows` keeps the rows a writer was given, a value (:meth:`CodedRows.add`) or a
grouped batch (:meth:`CodedRows.add_grouped`) at a time, as those keys and codes; the writers
lay their index out from them in one vectorised pass, however the rows came in.
:func:`write_batch` is the writers' ``write_many``: group the batch at once, or, when a value
does not group (one ``write`` rejects), write the values one by one so that the same error is
raised after the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def first_occurrence_codes(keys: Iterable[Hashable | None]) -> tuple[list[Any], npt.NDArray[np.int64]]:
    """``(distinct non-null keys in first-occurrence order, per-row code with -1 for None)``."""
    import numpy as np

    index: dict[Any, int] = {}
    setdefault = index.setdefault
    codes = np.array([setdefault(k, len(index)) for k in keys], dtype=np.int64)
    distinct = list(index)
    null = index.get(None)
    if null is not None:
        del distinct[null]
        codes[codes == null] = -1
        codes[codes > null] -= 1
    return distinct, codes


class CodedRows:
    """Rows as codes into the distinct non-null keys, in first-occurrence order (-1: a null row)."""

    __slots__ = ("_chunks", "_index", "_pending", "rows")

    def __init__(self) -> None:
        self._index: dict[Hashable, int] = {}
        self._chunks: list[npt.NDArray[np.int64]] = []
        self._pending: list[int] = []  # codes of rows added one at a time since the last chunk
        self.rows = 0

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def add(self, key: Hashable | None) -> None:
        """Append one row (None: a null)."""
        if key is None:
            self._pending.append(-1)
        else:
            index = self._index
            self._pending.append(index.setdefault(key, len(index)))
        self.rows += 1

    def add_grouped(self, keys: Sequence[Hashable], codes: npt.NDArray[np.int64]) -> None:
        """Append a batch: its distinct keys (first-occurrence order) and each row's code into them."""
        import numpy as np

        self._flush()
        index = self._index
        if not index:
            index.update(zip(keys, range(len(keys))))
            self._chunks.append(codes)
        else:
            setdefault = index.setdefault
            remap = np.array([*(setdefault(k, len(index)) for k in keys), -1], dtype=np.int64)
            self._chunks.append(remap[codes])  # code -1 takes remap[-1], still -1
        self.rows += len(codes)

    def _flush(self) -> None:
        if self._pending:
            import numpy as np

            self._chunks.append(np.array(self._pending, dtype=np.int64))
            self._pending = []

    def keys(self) -> list[Hashable]:
        """The distinct non-null keys, in first-occurrence order."""
        return list(self._index)

    def codes(self) -> npt.NDArray[np.int64]:
        """Each row's code (-1 for a null)."""
        import numpy as np

        self._flush()
        if len(self._chunks) != 1:
            self._chunks = [np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=np.int64)]
        return self._chunks[0]


def write_batch(values: Iterable[Any], group: Callable[[list[Any]], bool], write: Callable[[Any], None],
                errors: tuple[type[Exception], ...] = (TypeError, ValueError, ArithmeticError)) -> None:
    """A writer's ``write_many(values)``: ``group(values)`` appends them at once, else one ``write`` each.

    ``group`` takes the values as a list and returns False, or raises one of ``errors``, when it
    cannot take them (a value ``write`` would reject); then each value goes to ``write`` in turn,
    which raises the same error after the same rows as writing them one at a time.
    """
    vals = values if isinstance(values, list) else list(values)
    if not vals:
        return
    try:
        if group(vals):
            return
    except errors:
        pass
    for v in vals:
        write(v)
