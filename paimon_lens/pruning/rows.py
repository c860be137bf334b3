"""Row-level evaluation of a predicate over columns of values (ground truth).

The semantics of each leaf are Paimon's ``LeafFunction.test(value)``
(:func:`paimon_lens.pruning.compare.row_tester`); this module applies them to whole columns
and combines leaves into a boolean mask per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate
from ..predicate.visitor import PredicateVisitor, visit
from .compare import row_tester


def evaluate_rows(pred: Predicate | None, columns: Mapping[int, Sequence[Any]],
                  row_count: int) -> npt.NDArray[np.bool_]:
    """Boolean mask of the rows matching ``pred`` (every row for None: no filter); ``columns`` maps a
    leaf's field index to values.

    A field index missing from ``columns`` stands for a column the file does not have (all null).
    """
    if pred is None:
        return np.ones(row_count, dtype=bool)
    return visit(pred, _RowMasks(columns, row_count))


RowMask = npt.NDArray[np.bool_]


class _RowMasks(PredicateVisitor[RowMask]):
    def __init__(self, columns: Mapping[int, Sequence[Any]], row_count: int) -> None:
        self.columns, self.row_count = columns, row_count

    def visit_leaf(self, leaf: LeafPredicate) -> RowMask:
        test = row_tester(leaf)
        values = self.columns.get(leaf.index)
        if values is None:
            return np.full(self.row_count, test(None), dtype=bool)
        return np.fromiter(map(test, values), dtype=bool, count=self.row_count)

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[RowMask]) -> RowMask:
        masks = list(children)
        return np.logical_and.reduce(masks) if masks else np.ones(self.row_count, dtype=bool)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[RowMask]) -> RowMask:
        masks = list(children)
        return np.logical_or.reduce(masks) if masks else np.zeros(self.row_count, dtype=bool)
