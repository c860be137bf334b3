"""Grouping a column's values into dictionary codes: shared by the bulk index writers.

:func:`first_occurrence_codes` gives the distinct non-null keys in first-occurrence order (the
order Paimon's writers meet them in) and each row's code into that list, ``-1`` for a null.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
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
