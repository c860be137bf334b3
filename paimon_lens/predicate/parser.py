"""SQL WHERE text -> typed predicate tree bound to a schema.

``parse_where("country = 'DE' AND score BETWEEN 40 AND 45", fields)`` parses the text with
sqlglot and builds :mod:`.model` predicates, resolving columns against ``fields`` and casting
literals to the column types (see :mod:`.bind` for the cast rules).

Supported: ``= <> != < <= > >=`` (a literal on either side), ``<=>`` / ``IS [NOT] DISTINCT
FROM``, ``[NOT] IN (...)``, ``IS [NOT] NULL``, ``IS TRUE/FALSE``, ``[NOT] BETWEEN``, ``[NOT]
LIKE [ESCAPE]``, ``AND``, ``OR``, ``NOT`` (pushed into the leaves with ``negate()``),
parentheses, a bare BOOLEAN column. Literals: integers, decimals, exponents, negatives,
strings (``''`` escapes, non-ASCII), ``X'0a0b'``, ``TRUE``/``FALSE``, ``NULL``, ``DATE '…'``,
``TIME '…'``, ``TIMESTAMP '…'``, ``TIMESTAMP_LTZ '…'`` / ``TIMESTAMP WITH LOCAL TIME ZONE '…'``,
``CAST(<literal> AS <type>)`` and Spark's typed suffixes (``12L``, ``1.5BD``) with
``dialect="spark"``.

The default dialect is Flink-like: ``'…'`` strings with ``''`` escapes, identifiers in
backquotes or double quotes, ``X'…'`` binary literals. Any sqlglot dialect name may be given
instead (``"spark"``: double quotes are strings there, backslash escapes apply).

Column names match case-sensitively first, then case-insensitively when that is unique.

The common conditions of the default dialect are parsed without sqlglot (:mod:`.fast`, which
declines anything it does not handle exactly as sqlglot would); sqlglot (:mod:`._sql`) is
imported on first use for the rest, for other dialects and to report errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..errors import PredicateError
from ..types import DataField
from .bind import InExpansion
from .fast import parse_fast
from .model import CompoundPredicate, LeafPredicate, Predicate, and_, or_
from .sql_text import literal_sql, quote_identifier, to_sql
from .visitor import PredicateVisitor, visit

if TYPE_CHECKING:
    from .sqlglot_parser import PaimonLensDialect

__all__ = ["PaimonLensDialect", "PredicateError", "literal_sql", "parse_where", "quote_identifier", "to_sql"]

_WHERE = re.compile(r"\s*WHERE\b", re.IGNORECASE)
_DEFAULT_DIALECTS = ("paimon", "flink", "default")


def __getattr__(name: str) -> Any:
    """``PaimonLensDialect`` (a sqlglot dialect) is imported with sqlglot, on first use."""
    if name == "PaimonLensDialect":
        from .sqlglot_parser import PaimonLensDialect

        globals()[name] = PaimonLensDialect
        return PaimonLensDialect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _expansion(value: bool | str) -> InExpansion:
    if value is False:
        return "leaf"
    if value is True or value == "2.0":
        return "2.0"
    if value == "0.9":
        return "0.9"
    raise ValueError(f"paimon_in_expansion must be False, True, '0.9' or '2.0', not {value!r}")


def parse_where(
    sql: str,
    fields: Sequence[DataField],
    dialect: str | None = None,
    *,
    paimon_in_expansion: bool | Literal["0.9", "2.0"] = False,
) -> Predicate:
    """Parse a SQL WHERE condition into a predicate bound to ``fields`` (the table row type).

    Args:
        sql: the condition, e.g. ``"country = 'DE' AND score > 50"`` (a leading ``WHERE`` and
            SQL comments are allowed).
        fields: the row type; leaves get the field's position in it as ``index``.
        dialect: ``None`` for the Flink-like default, or a sqlglot dialect name (``"spark"``).
        paimon_in_expansion: ``False`` (default) builds one ``In``/``NotIn`` leaf per
            ``[NOT] IN`` list. ``True``/``"2.0"`` (or ``"0.9"``) reproduces that Paimon
            version's ``PredicateBuilder.in``/``notIn`` instead: ``Or`` of ``Equal`` (``And``
            of ``NotEqual``) for up to 20 literals, nested exactly as Paimon nests them, and
            keeps the AND/OR nesting of the text instead of flattening it.

    Returns:
        The predicate; AND/OR are n-ary and flattened unless ``paimon_in_expansion`` is set.

    Raises:
        PredicateError: malformed SQL, unknown columns, literals that cannot be cast to the
            column type, unsupported constructs (functions, subqueries, column-to-column
            comparisons, a NOT that Paimon cannot negate). The message quotes the fragment
            and its line/column.
    """
    expansion = _expansion(paimon_in_expansion)
    check_unicode(sql, sql)
    text = sql
    m = _WHERE.match(text)
    if m:
        text = " " * m.end() + text[m.end():]
    pred: Predicate | None = None
    try:
        if dialect is None or dialect.lower() in _DEFAULT_DIALECTS:
            pred = parse_fast(text, fields, expansion)
        if pred is None:
            from .sqlglot_parser import parse_sqlglot

            pred = parse_sqlglot(sql, text, fields, dialect, expansion)
        pred = pred if expansion != "leaf" else _flatten(pred)
    except RecursionError:
        pred = None
    if pred is None or _depth(pred) > MAX_DEPTH:
        raise PredicateError(f"the condition is nested too deeply (parentheses, NOT or AND/OR beyond "
                             f"{MAX_DEPTH} levels)", sql, sql[:80] + ("..." if len(sql) > 80 else ""),
                             hint="flatten it: Paimon's own predicate visitors recurse as well")
    return pred


def check_unicode(text: str, sql: str) -> None:
    """Raise :class:`PredicateError` when ``text`` (a condition or a literal of it) is not valid
    Unicode: a lone surrogate (``'\\ud800'``) has no UTF-8 bytes, so no Paimon string equals it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise PredicateError(f"not valid Unicode: lone surrogate U+{ord(text[e.start]):04X}", sql,
                             text[e.start], e.start if text is sql else None,
                             hint="strings in Paimon are UTF-8: write the character itself") from None


MAX_DEPTH = 200
"""Deepest AND/OR nesting accepted after flattening (Paimon's own visitors recurse too)."""


def _depth(pred: Predicate) -> int:
    """Nesting depth of AND/OR, computed without recursion."""
    deepest, todo = 0, [(pred, 1)]
    while todo:
        p, d = todo.pop()
        deepest = max(deepest, d)
        if not isinstance(p, LeafPredicate):
            todo.extend((c, d + 1) for c in p.children)
    return deepest



def _flatten(pred: Predicate) -> Predicate:
    """Flatten nested And/Or of the same kind (after NOT pushdown)."""
    return visit(pred, _Flattening())


class _Flattening(PredicateVisitor[Predicate]):
    def visit_leaf(self, leaf: LeafPredicate) -> Predicate:
        return leaf

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate]) -> Predicate:
        return and_(*children)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate]) -> Predicate:
        return or_(*children)
