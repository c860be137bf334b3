"""Typed, immutable predicate trees, mirroring Paimon's ``Predicate`` classes.

A :class:`LeafPredicate` applies one Paimon leaf function (``Equal``, ``NotEqual``,
``LessThan``, ``LessOrEqual``, ``GreaterThan``, ``GreaterOrEqual``, ``IsNull``, ``IsNotNull``,
``In``, ``NotIn``, ``StartsWith``, ``EndsWith``, ``Contains``, ``Like``, ``Between``) to one
field; a :class:`CompoundPredicate` is ``And`` or ``Or`` over children. Literals are in the
internal value form of :mod:`paimon_lens.types` (DATE as epoch day, TIMESTAMP as
:class:`~paimon_lens.types.Timestamp`, DECIMAL as ``Decimal``); ``None`` is a null literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..types import DataType

LEAF_FUNCTIONS = (
    "Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual",
    "IsNull", "IsNotNull", "In", "NotIn", "StartsWith", "EndsWith", "Contains", "Like", "Between",
)

_NEGATE = {
    "Equal": "NotEqual", "NotEqual": "Equal", "LessThan": "GreaterOrEqual",
    "GreaterOrEqual": "LessThan", "LessOrEqual": "GreaterThan", "GreaterThan": "LessOrEqual",
    "IsNull": "IsNotNull", "IsNotNull": "IsNull", "In": "NotIn", "NotIn": "In",
}

@dataclass(frozen=True)
class LeafPredicate:
    """``function(field, literals)``; ``index`` is the field's position in the row type."""

    function: str
    field: str
    index: int
    type: DataType
    literals: tuple[Any, ...] = ()

    def negate(self) -> Predicate | None:
        """The negation, or None when Paimon has none (``StartsWith``, ``Like`` ...)."""
        if self.function == "Between":
            lo, hi = self.literals
            return CompoundPredicate("Or", (
                LeafPredicate("LessThan", self.field, self.index, self.type, (lo,)),
                LeafPredicate("GreaterThan", self.field, self.index, self.type, (hi,)),
            ))
        neg = _NEGATE.get(self.function)
        return None if neg is None else LeafPredicate(neg, self.field, self.index, self.type, self.literals)

    def __str__(self) -> str:
        lits = ", ".join(repr(x) for x in self.literals)
        return f"{self.function}({self.field}{', ' + lits if lits else ''})"

    def sql(self) -> str:
        """The predicate as WHERE text that parses back to it (:func:`.sql.to_sql`)."""
        from .sql import to_sql

        return to_sql(self)


@dataclass(frozen=True)
class CompoundPredicate:
    """``And`` or ``Or`` of two or more children."""

    function: str
    children: tuple[Predicate, ...]

    def negate(self) -> Predicate | None:
        """De Morgan; None if a child cannot be negated."""
        negs = [c.negate() for c in self.children]
        if any(n is None for n in negs):
            return None
        return CompoundPredicate("Or" if self.function == "And" else "And", tuple(n for n in negs if n is not None))

    def __str__(self) -> str:
        return f"{self.function}([{', '.join(str(c) for c in self.children)}])"

    def sql(self) -> str:
        """The predicate as WHERE text that parses back to it (:func:`.sql.to_sql`)."""
        from .sql import to_sql

        return to_sql(self)


Predicate = LeafPredicate | CompoundPredicate


def and_(*preds: Predicate) -> Predicate:
    """AND of predicates, flattened."""
    kids: list[Predicate] = []
    for p in preds:
        kids.extend(p.children if isinstance(p, CompoundPredicate) and p.function == "And" else (p,))
    return kids[0] if len(kids) == 1 else CompoundPredicate("And", tuple(kids))


def or_(*preds: Predicate) -> Predicate:
    """OR of predicates, flattened."""
    kids: list[Predicate] = []
    for p in preds:
        kids.extend(p.children if isinstance(p, CompoundPredicate) and p.function == "Or" else (p,))
    return kids[0] if len(kids) == 1 else CompoundPredicate("Or", tuple(kids))


def leaves(pred: Predicate) -> list[LeafPredicate]:
    """All leaves of a tree, left to right."""
    if isinstance(pred, LeafPredicate):
        return [pred]
    out: list[LeafPredicate] = []
    for c in pred.children:
        out.extend(leaves(c))
    return out
