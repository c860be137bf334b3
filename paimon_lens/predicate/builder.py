"""A small Python builder for predicates, bound to a schema later.

>>> expr = (col("country") == "US") & col("score").between(1, 5) | col("note").is_null()
>>> pred = bind(expr, fields)            # -> model.Predicate, literals cast to column types

Expressions are immutable and unbound: column names are resolved and literals cast (with the
rules of :mod:`.bind`, the same as :func:`~.parser.parse_where`) only by :func:`bind`, which
raises :class:`~.parser.PredicateError` naming the offending sub-expression. ``~`` is pushed
into the leaves with ``negate()`` at bind time.

Literal values: ``None``, ``bool``, ``int``, ``float``, ``Decimal``, ``str``, ``bytes``,
``datetime.date``, ``datetime.time``, ``datetime.datetime`` (aware ones are converted to UTC),
:class:`~paimon_lens.types.Timestamp`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ..types import EPOCH_DATE, DataField, Timestamp
from .bind import BindError, FieldRef, Lit, cast_literal, in_predicate, like_predicate, resolve_field
from .model import Predicate, and_, leaves, or_
from .parser import PredicateError, _expansion, _flatten, check_unicode, parse_where

__all__ = ["Col", "Expr", "Value", "bind", "col"]

Value = None | bool | int | float | Decimal | str | bytes | _dt.date | _dt.time | Timestamp

_OPS = {"Equal": "=", "NotEqual": "<>", "LessThan": "<", "LessOrEqual": "<=", "GreaterThan": ">",
        "GreaterOrEqual": ">="}


def _lit(value: Value) -> Lit:
    text = repr(value)
    if isinstance(value, (Col, Expr)):
        raise TypeError("comparisons between two columns are not supported; compare a column with a value")
    if value is None:
        return Lit("null", None, "NULL")
    if isinstance(value, bool):
        return Lit("bool", value, text)
    if isinstance(value, int):
        return Lit("int", value, text)
    if isinstance(value, float):
        return Lit("float", value, text)
    if isinstance(value, Decimal):
        return Lit("decimal", value, text)
    if isinstance(value, str):
        check_unicode(value, text)
        return Lit("string", value, text)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Lit("binary", bytes(value), text)
    if isinstance(value, Timestamp):
        return Lit("timestamp", value, text)
    if isinstance(value, _dt.datetime):
        aware = value.tzinfo is not None
        return Lit("timestamp_ltz" if aware else "timestamp", Timestamp.from_datetime(value), text)
    if isinstance(value, _dt.date):
        return Lit("date", (value - EPOCH_DATE).days, text)
    if isinstance(value, _dt.time):
        ms = ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
        return Lit("time", ms, text)
    raise TypeError(f"unsupported literal {value!r} of type {type(value).__name__}")


class Expr:
    """An unbound predicate expression; combine with ``&``, ``|`` and ``~``."""

    def __and__(self, other: Expr) -> Expr:
        return _Compound("And", (self, _check(other)))

    def __or__(self, other: Expr) -> Expr:
        return _Compound("Or", (self, _check(other)))

    def __invert__(self) -> Expr:
        return _Not(self)

    def __bool__(self) -> bool:
        raise TypeError("use & / | / ~ to combine predicates, not and / or / not")

    def _bind(self, fields: Sequence[DataField], expansion: str) -> Predicate:
        raise NotImplementedError

    def sql(self) -> str:
        """A SQL-like rendering (for messages)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.sql()}>"


def _check(other: object) -> Expr:
    if not isinstance(other, Expr):
        raise TypeError(f"cannot combine a predicate with {other!r}")
    return other


@dataclass(frozen=True, eq=False, repr=False)
class _Compound(Expr):
    function: str
    children: tuple[Expr, ...]

    def _bind(self, fields: Sequence[DataField], expansion: str) -> Predicate:
        kids = [c._bind(fields, expansion) for c in self.children]
        return and_(*kids) if self.function == "And" else or_(*kids)

    def sql(self) -> str:
        op = " AND " if self.function == "And" else " OR "
        return op.join(f"({c.sql()})" if isinstance(c, _Compound) else c.sql() for c in self.children)


@dataclass(frozen=True, eq=False, repr=False)
class _Not(Expr):
    child: Expr

    def _bind(self, fields: Sequence[DataField], expansion: str) -> Predicate:
        pred = self.child._bind(fields, expansion)
        neg = pred.negate()
        if neg is None:
            bad = next((lf for lf in leaves(pred) if lf.negate() is None), None)
            what = f"{bad.function}({bad.field}, …)" if bad else "this predicate"
            raise _error(f"NOT cannot be applied: Paimon has no negation of {what}", self)
        return neg

    def sql(self) -> str:
        return f"NOT ({self.child.sql()})"


@dataclass(frozen=True, eq=False, repr=False)
class _Leaf(Expr):
    kind: str  # a model leaf function, or "Like"
    column: str
    values: tuple[Lit, ...] = ()
    negated: bool = False  # for In

    def _ref(self, fields: Sequence[DataField]) -> FieldRef:
        try:
            return resolve_field(self.column, fields)
        except BindError as e:
            raise _error(e.reason, self, e.hint) from None

    def _bind(self, fields: Sequence[DataField], expansion: str) -> Predicate:
        ref = self._ref(fields)
        try:
            if self.kind == "Like":
                return like_predicate(ref, str(self.values[0].value))
            lits = tuple(cast_literal(v, ref) for v in self.values)
            if self.kind == "In":
                return in_predicate(ref, lits, self.negated, _expansion_name(expansion))
            if self.kind in ("StartsWith", "EndsWith", "Contains") and not ref.type.is_string:
                raise BindError(f"{self.kind} needs a CHAR/VARCHAR/STRING column, {ref.name!r} is {ref.type}")
            return ref.leaf(self.kind, lits)
        except BindError as e:
            raise _error(e.reason, self, e.hint) from None

    def sql(self) -> str:
        c, v = self.column, [x.text for x in self.values]
        if self.kind in _OPS:
            return f"{c} {_OPS[self.kind]} {v[0]}"
        if self.kind in ("IsNull", "IsNotNull"):
            return f"{c} IS {'NOT ' if self.kind == 'IsNotNull' else ''}NULL"
        if self.kind == "In":
            return f"{c} {'NOT ' if self.negated else ''}IN ({', '.join(v)})"
        if self.kind == "Between":
            return f"{c} BETWEEN {v[0]} AND {v[1]}"
        return f"{self.kind}({c}, {', '.join(v)})"


def _expansion_name(expansion: str) -> Literal["leaf", "0.9", "2.0"]:
    if expansion == "0.9":
        return "0.9"
    if expansion == "2.0":
        return "2.0"
    return "leaf"


def _error(reason: str, expr: Expr, hint: str | None = None) -> PredicateError:
    text = expr.sql()
    return PredicateError(reason, text, text, None, hint)


class Col:
    """A column reference; comparison operators and methods build leaf expressions."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"col({self.name!r})"

    def __bool__(self) -> bool:
        raise TypeError("a column is not a condition; compare it with a value")

    def _cmp(self, function: str, value: Value) -> Expr:
        return _Leaf(function, self.name, (_lit(value),))

    def __eq__(self, value: Value) -> Expr:  # type: ignore[override]
        return self._cmp("Equal", value)

    def __ne__(self, value: Value) -> Expr:  # type: ignore[override]
        return self._cmp("NotEqual", value)

    def __lt__(self, value: Value) -> Expr:
        return self._cmp("LessThan", value)

    def __le__(self, value: Value) -> Expr:
        return self._cmp("LessOrEqual", value)

    def __gt__(self, value: Value) -> Expr:
        return self._cmp("GreaterThan", value)

    def __ge__(self, value: Value) -> Expr:
        return self._cmp("GreaterOrEqual", value)

    __hash__ = None  # type: ignore[assignment]

    def is_null(self) -> Expr:
        """``column IS NULL``."""
        return _Leaf("IsNull", self.name)

    def is_not_null(self) -> Expr:
        """``column IS NOT NULL``."""
        return _Leaf("IsNotNull", self.name)

    def isin(self, values: Iterable[Value]) -> Expr:
        """``column IN (values)`` (one ``In`` leaf unless bound with ``paimon_in_expansion``)."""
        return _Leaf("In", self.name, tuple(_lit(v) for v in values))

    def notin(self, values: Iterable[Value]) -> Expr:
        """``column NOT IN (values)``."""
        return _Leaf("In", self.name, tuple(_lit(v) for v in values), negated=True)

    def between(self, low: Value, high: Value) -> Expr:
        """``column BETWEEN low AND high`` (a Paimon 2.0 ``Between`` leaf, bounds included)."""
        return _Leaf("Between", self.name, (_lit(low), _lit(high)))

    def startswith(self, prefix: str) -> Expr:
        """``StartsWith(column, prefix)``."""
        return _Leaf("StartsWith", self.name, (_lit(prefix),))

    def endswith(self, suffix: str) -> Expr:
        """``EndsWith(column, suffix)``."""
        return _Leaf("EndsWith", self.name, (_lit(suffix),))

    def contains(self, part: str) -> Expr:
        """``Contains(column, part)``."""
        return _Leaf("Contains", self.name, (_lit(part),))

    def like(self, pattern: str) -> Expr:
        """``column LIKE pattern`` (``\\`` escapes; simplified like Paimon's ``LikeOptimization``)."""
        if not isinstance(pattern, str):
            raise TypeError("LIKE needs a string pattern")
        return _Leaf("Like", self.name, (_lit(pattern),))


def col(name: str) -> Col:
    """A reference to the column ``name`` (matched case-sensitively first, then ignoring case)."""
    return Col(name)


def bind(
    expr: Expr | str,
    fields: Sequence[DataField],
    *,
    paimon_in_expansion: bool | Literal["0.9", "2.0"] = False,
) -> Predicate:
    """Bind an expression (or WHERE text, parsed with :func:`parse_where`) to a row type.

    Raises:
        PredicateError: unknown column, literal that cannot be cast, NOT that Paimon cannot
            negate. The message quotes the offending sub-expression.
    """
    if isinstance(expr, str):
        return parse_where(expr, fields, paimon_in_expansion=paimon_in_expansion)
    if not isinstance(expr, Expr):
        raise TypeError(f"expected a predicate expression, got {expr!r}")
    expansion = _expansion(paimon_in_expansion)
    pred = expr._bind(fields, expansion)
    return pred if expansion != "leaf" else _flatten(pred)
