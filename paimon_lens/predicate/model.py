"""Typed, immutable predicate trees, mirroring Paimon's ``Predicate`` classes.

A :class:`LeafPredicate` applies one Paimon leaf function (``Equal``, ``NotEqual``,
``LessThan``, ``LessOrEqual``, ``GreaterThan``, ``GreaterOrEqual``, ``IsNull``, ``IsNotNull``,
``In``, ``NotIn``, ``StartsWith``, ``EndsWith``, ``Contains``, ``Like``, ``Between``,
``NotBetween``: :class:`LeafFunction`) to one
field; a :class:`CompoundPredicate` is ``And`` or ``Or`` over children. Literals are in the
internal value form of :mod:`paimon_lens.types` (DATE as epoch day, TIMESTAMP as
:class:`~paimon_lens.types.Timestamp`, DECIMAL as ``Decimal``); ``None`` is a null literal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from ..types import DataType

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class _Function(StrEnum):
    """A function name as a closed set: a member equals, hashes and prints as its name, so
    ``leaf.function == "Equal"``, dict lookups by name and JSON keep working."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)

    def __repr__(self) -> str:
        return repr(self.value)


class LeafFunction(_Function):
    """Paimon's leaf functions."""

    Equal = "Equal"
    NotEqual = "NotEqual"
    LessThan = "LessThan"
    LessOrEqual = "LessOrEqual"
    GreaterThan = "GreaterThan"
    GreaterOrEqual = "GreaterOrEqual"
    IsNull = "IsNull"
    IsNotNull = "IsNotNull"
    In = "In"
    NotIn = "NotIn"
    StartsWith = "StartsWith"
    EndsWith = "EndsWith"
    Contains = "Contains"
    Like = "Like"
    Between = "Between"
    NotBetween = "NotBetween"


class CompoundFunction(_Function):
    """``And`` / ``Or``."""

    And = "And"
    Or = "Or"


_NEGATE = {
    "Equal": "NotEqual", "NotEqual": "Equal", "LessThan": "GreaterOrEqual",
    "GreaterOrEqual": "LessThan", "LessOrEqual": "GreaterThan", "GreaterThan": "LessOrEqual",
    "IsNull": "IsNotNull", "IsNotNull": "IsNull", "In": "NotIn", "NotIn": "In",
}


class FunctionVisitor(Protocol[T_co]):
    """Paimon's ``FunctionVisitor``: one method per leaf function, given the leaf's literals
    (internal values). File index readers (:class:`~paimon_lens.formats.index_reader.FileIndexReader`)
    are such visitors; :func:`visit_function` calls the method of a leaf's function."""

    def visit_is_null(self) -> T_co: ...
    def visit_is_not_null(self) -> T_co: ...
    def visit_equal(self, literal: Any) -> T_co: ...
    def visit_not_equal(self, literal: Any) -> T_co: ...
    def visit_less_than(self, literal: Any) -> T_co: ...
    def visit_less_or_equal(self, literal: Any) -> T_co: ...
    def visit_greater_than(self, literal: Any) -> T_co: ...
    def visit_greater_or_equal(self, literal: Any) -> T_co: ...
    def visit_starts_with(self, literal: Any) -> T_co: ...
    def visit_ends_with(self, literal: Any) -> T_co: ...
    def visit_contains(self, literal: Any) -> T_co: ...
    def visit_like(self, literal: Any) -> T_co: ...
    def visit_between(self, low: Any, high: Any) -> T_co: ...
    def visit_not_between(self, low: Any, high: Any) -> T_co: ...
    def visit_in(self, literals: Sequence[Any]) -> T_co: ...
    def visit_not_in(self, literals: Sequence[Any]) -> T_co: ...


class DefaultFunctionVisitor(Generic[T]):
    """A :class:`FunctionVisitor` whose every method answers :meth:`otherwise`; subclasses
    override the functions they decide."""

    def otherwise(self) -> T:
        """The answer for a function this visitor does not decide."""
        raise NotImplementedError

    def visit_is_null(self) -> T:
        return self.otherwise()

    def visit_is_not_null(self) -> T:
        return self.otherwise()

    def visit_equal(self, literal: Any) -> T:
        return self.otherwise()

    def visit_not_equal(self, literal: Any) -> T:
        return self.otherwise()

    def visit_less_than(self, literal: Any) -> T:
        return self.otherwise()

    def visit_less_or_equal(self, literal: Any) -> T:
        return self.otherwise()

    def visit_greater_than(self, literal: Any) -> T:
        return self.otherwise()

    def visit_greater_or_equal(self, literal: Any) -> T:
        return self.otherwise()

    def visit_starts_with(self, literal: Any) -> T:
        return self.otherwise()

    def visit_ends_with(self, literal: Any) -> T:
        return self.otherwise()

    def visit_contains(self, literal: Any) -> T:
        return self.otherwise()

    def visit_like(self, literal: Any) -> T:
        return self.otherwise()

    def visit_between(self, low: Any, high: Any) -> T:
        return self.otherwise()

    def visit_not_between(self, low: Any, high: Any) -> T:
        return self.otherwise()

    def visit_in(self, literals: Sequence[Any]) -> T:
        return self.otherwise()

    def visit_not_in(self, literals: Sequence[Any]) -> T:
        return self.otherwise()


#: leaf function -> (visitor method, how its literals are passed: 0 none, 1 the first, 2 two, -1 all)
VISIT_METHODS: dict[LeafFunction, tuple[str, int]] = {
    LeafFunction.IsNull: ("visit_is_null", 0), LeafFunction.IsNotNull: ("visit_is_not_null", 0),
    LeafFunction.Equal: ("visit_equal", 1), LeafFunction.NotEqual: ("visit_not_equal", 1),
    LeafFunction.LessThan: ("visit_less_than", 1), LeafFunction.LessOrEqual: ("visit_less_or_equal", 1),
    LeafFunction.GreaterThan: ("visit_greater_than", 1),
    LeafFunction.GreaterOrEqual: ("visit_greater_or_equal", 1),
    LeafFunction.StartsWith: ("visit_starts_with", 1), LeafFunction.EndsWith: ("visit_ends_with", 1),
    LeafFunction.Contains: ("visit_contains", 1), LeafFunction.Like: ("visit_like", 1),
    LeafFunction.Between: ("visit_between", 2), LeafFunction.NotBetween: ("visit_not_between", 2),
    LeafFunction.In: ("visit_in", -1),
    LeafFunction.NotIn: ("visit_not_in", -1),
}


def visit_function(leaf: LeafPredicate, visitor: FunctionVisitor[T], missing: T) -> T:
    """``leaf.function.visit(visitor, literals)``: the visitor's answer for the leaf, or ``missing``
    when the leaf lacks the literals its function needs."""
    method, arity = VISIT_METHODS[leaf.function]
    lits = leaf.literals
    if arity == 0:
        result: T = getattr(visitor, method)()
    elif arity == -1:
        result = getattr(visitor, method)(lits)
    elif len(lits) < arity:
        return missing
    else:
        result = getattr(visitor, method)(*lits[:arity])
    return result


class LeafMemo(Generic[T]):
    """``build(leaf)`` kept per leaf object (the leaf is kept alive with it; at most ``size`` leaves,
    then the memo starts over): for what is compiled from a leaf once and asked per file or value."""

    def __init__(self, build: Callable[[LeafPredicate], T], size: int = 4096) -> None:
        self.build = build
        self.size = size
        self._by_id: dict[int, tuple[LeafPredicate, T]] = {}

    def __call__(self, leaf: LeafPredicate) -> T:
        got = self._by_id.get(id(leaf))
        if got is not None and got[0] is leaf:
            return got[1]
        value = self.build(leaf)
        if len(self._by_id) >= self.size:
            self._by_id.clear()
        self._by_id[id(leaf)] = (leaf, value)
        return value


@dataclass(frozen=True)
class LeafPredicate:
    """``function(field, literals)``; ``index`` is the field's position in the row type."""

    function: LeafFunction
    field: str
    index: int
    type: DataType
    literals: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if type(self.function) is not LeafFunction:
            try:
                object.__setattr__(self, "function", LeafFunction(self.function))
            except ValueError:
                raise ValueError(f"unknown leaf function {self.function!r}") from None

    def negate(self) -> Predicate | None:
        """The negation, or None when Paimon has none (``StartsWith``, ``Like`` ...)."""
        if self.function == "Between":
            lo, hi = self.literals
            return CompoundPredicate(CompoundFunction.Or, (
                LeafPredicate(LeafFunction.LessThan, self.field, self.index, self.type, (lo,)),
                LeafPredicate(LeafFunction.GreaterThan, self.field, self.index, self.type, (hi,)),
            ))
        neg = _NEGATE.get(self.function)
        if neg is None:
            return None
        return LeafPredicate(LeafFunction(neg), self.field, self.index, self.type, self.literals)

    def __str__(self) -> str:
        """``Equal(country, 'DE')``: Paimon's leaf form, literals as SQL (``TIMESTAMP '...'``, ``DATE '...'``)."""
        lits = ", ".join(_render_literal(x, self.type) for x in self.literals)
        return f"{self.function}({self.field}{', ' + lits if lits else ''})"

    def sql(self) -> str:
        """The predicate as WHERE text that parses back to it (:func:`.sql.to_sql`)."""
        return _render_sql(self)


@dataclass(frozen=True)
class CompoundPredicate:
    """``And`` or ``Or`` of two or more children."""

    function: CompoundFunction
    children: tuple[Predicate, ...]

    def __post_init__(self) -> None:
        if type(self.function) is not CompoundFunction:
            try:
                object.__setattr__(self, "function", CompoundFunction(self.function))
            except ValueError:
                raise ValueError(f"unknown compound function {self.function!r}") from None

    def negate(self) -> Predicate | None:
        """De Morgan; None if a child cannot be negated."""
        negs = [c.negate() for c in self.children]
        if any(n is None for n in negs):
            return None
        flipped = CompoundFunction.Or if self.function == CompoundFunction.And else CompoundFunction.And
        return CompoundPredicate(flipped, tuple(n for n in negs if n is not None))

    def __str__(self) -> str:
        return f"{self.function}([{', '.join(str(c) for c in self.children)}])"

    def sql(self) -> str:
        """The predicate as WHERE text that parses back to it (:func:`.sql.to_sql`)."""
        return _render_sql(self)


Predicate = LeafPredicate | CompoundPredicate

_SQL_RENDERER: list[Callable[[Predicate], str]] = []
_LITERAL_RENDERER: list[Callable[[Any, DataType], str]] = []


def set_sql_renderer(render: Callable[[Predicate], str], literal: Callable[[Any, DataType], str]) -> None:
    """Install the functions behind :meth:`LeafPredicate.sql` and the literals of ``str(predicate)``
    (:mod:`.sql_text` installs ``to_sql`` and ``literal_sql`` when the ``predicate`` package is
    imported, which happens before this module is used)."""
    _SQL_RENDERER[:] = [render]
    _LITERAL_RENDERER[:] = [literal]


def _render_sql(pred: Predicate) -> str:
    return _SQL_RENDERER[0](pred)


def _render_literal(value: Any, dtype: DataType) -> str:
    if not _LITERAL_RENDERER:
        return repr(value)
    try:
        return _LITERAL_RENDERER[0](value, dtype)
    except (TypeError, ValueError, ArithmeticError, AttributeError):  # a literal of another type: as it is
        return repr(value)


def and_(*preds: Predicate) -> Predicate:
    """AND of predicates, flattened."""
    kids: list[Predicate] = []
    for p in preds:
        kids.extend(p.children if isinstance(p, CompoundPredicate) and p.function == "And" else (p,))
    return kids[0] if len(kids) == 1 else CompoundPredicate(CompoundFunction.And, tuple(kids))


def or_(*preds: Predicate) -> Predicate:
    """OR of predicates, flattened."""
    kids: list[Predicate] = []
    for p in preds:
        kids.extend(p.children if isinstance(p, CompoundPredicate) and p.function == "Or" else (p,))
    return kids[0] if len(kids) == 1 else CompoundPredicate(CompoundFunction.Or, tuple(kids))


def leaves(pred: Predicate | None) -> list[LeafPredicate]:
    """All leaves of a tree, left to right (none for no predicate)."""
    if pred is None:
        return []
    if isinstance(pred, LeafPredicate):
        return [pred]
    out: list[LeafPredicate] = []
    for c in pred.children:
        out.extend(leaves(c))
    return out
