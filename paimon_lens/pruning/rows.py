"""Row-level evaluation of a predicate over columns of values (ground truth).

The semantics of each leaf are Paimon's ``LeafFunction.test(value)``
(:func:`paimon_lens.pruning.compare.row_tester`); this module applies them to whole columns
and combines leaves into a boolean mask per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..predicate.model import LeafPredicate, Predicate
from .compare import row_tester


def evaluate_rows(pred: Predicate | None, columns: Mapping[int, Sequence[Any]],
                  row_count: int) -> npt.NDArray[np.bool_]:
    """Boolean mask of the rows matching ``pred`` (every row for None: no filter); ``columns`` maps a
    leaf's field index to values.

    A field index missing from ``columns`` stands for a column the file does not have (all null).
    """
    if pred is None:
        return np.ones(row_count, dtype=bool)
    if isinstance(pred, LeafPredicate):
        test = row_tester(pred)
        values = columns.get(pred.index)
        if values is None:
            return np.full(row_count, test(None), dtype=bool)
        return np.fromiter(map(test, values), dtype=bool, count=row_count)
    masks = [evaluate_rows(c, columns, row_count) for c in pred.children]
    if pred.function == "And":
        return np.logical_and.reduce(masks) if masks else np.ones(row_count, dtype=bool)
    return np.logical_or.reduce(masks) if masks else np.zeros(row_count, dtype=bool)
