"""The question every file index answers: Paimon's ``FileIndexReader`` visitor.

A reader is created for one column's index bytes. Each ``visit_*`` method receives literals
in the internal value form of :mod:`paimon_lens.types` and returns a
:class:`~paimon_lens.formats.result.FileIndexResult`. Anything an index type cannot answer
returns ``REMAIN`` (the defaults below), exactly as Paimon's reader does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..predicate.model import LeafPredicate
from .result import REMAIN, FileIndexResult


class FileIndexReader:
    """Base reader: every predicate REMAINs; ``IN``/``NOT IN`` are ORs of ``=``/``<>``."""

    def visit_is_null(self) -> FileIndexResult:
        return REMAIN

    def visit_is_not_null(self) -> FileIndexResult:
        return REMAIN

    def visit_equal(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_less_than(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_less_or_equal(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_greater_than(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_greater_or_equal(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_starts_with(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_ends_with(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_contains(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_like(self, literal: Any) -> FileIndexResult:
        return REMAIN

    def visit_between(self, low: Any, high: Any) -> FileIndexResult:
        return REMAIN

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        result: FileIndexResult | None = None
        for lit in literals:
            r = self.visit_equal(lit)
            result = r if result is None else result.or_(r)
        return REMAIN if result is None else result

    def visit_not_in(self, literals: Sequence[Any]) -> FileIndexResult:
        result: FileIndexResult | None = None
        for lit in literals:
            r = self.visit_not_equal(lit)
            result = r if result is None else result.or_(r)
        return REMAIN if result is None else result

    def visit(self, leaf: LeafPredicate) -> FileIndexResult:
        """Dispatch a leaf predicate to the matching ``visit_*`` method."""
        f, lits = leaf.function, leaf.literals
        if f == "IsNull":
            return self.visit_is_null()
        if f == "IsNotNull":
            return self.visit_is_not_null()
        if f == "In":
            return self.visit_in(lits)
        if f == "NotIn":
            return self.visit_not_in(lits)
        if f == "Between":
            return self.visit_between(lits[0], lits[1])
        method = _SINGLE.get(f)
        if method is None:
            return REMAIN
        result: FileIndexResult = getattr(self, method)(lits[0])
        return result


_SINGLE = {
    "Equal": "visit_equal", "NotEqual": "visit_not_equal", "LessThan": "visit_less_than",
    "LessOrEqual": "visit_less_or_equal", "GreaterThan": "visit_greater_than",
    "GreaterOrEqual": "visit_greater_or_equal", "StartsWith": "visit_starts_with",
    "EndsWith": "visit_ends_with", "Contains": "visit_contains", "Like": "visit_like",
}
