"""Grouping a column's values into dictionary codes, and ``write_many``: shared by the bulk index writers.

:func:`first_occurrence_codes` gives the distinct non-null keys in first-occurrence order (the
order Paimon's writers meet them in) and each row's code into that list, ``-1`` for a null.

:func:`bulk_or_replay` is the ``write_many`` protocol of the bitmap, range-bitmap and bsi
writers: build the bulk state at once into an empty writer, or else write the values one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

_Bulk = TypeVar("_Bulk")


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


def bulk_or_replay(values: Iterable[Any], empty: bool, bulk: Callable[[list[Any]], _Bulk | None],
                   write: Callable[[Any], None],
                   errors: tuple[type[Exception], ...] = (TypeError, ValueError, ArithmeticError)) -> _Bulk | None:
    """A writer's ``write_many(values)``: its bulk state for the values, or None after writing them one by one.

    Into an ``empty`` writer, ``bulk(values)`` (the values as a non-empty list) builds the state the
    writer keeps, which is returned. When the writer already holds rows, there are no values,
    ``bulk`` returns None or it raises one of ``errors`` (a value :meth:`write` would reject), each
    value goes to ``write`` in turn, which raises the same error after the same rows as writing
    them one at a time; then the result is None.
    """
    vals = values if isinstance(values, list) else list(values)
    if empty and vals:
        try:
            state = bulk(vals)
        except errors:
            state = None
        if state is not None:
            return state
    for v in vals:
        write(v)
    return None
