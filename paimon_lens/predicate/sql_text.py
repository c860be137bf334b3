"""Predicates back to SQL text: ``to_sql``, ``literal_sql``, ``quote_identifier``.

The one renderer of predicates as WHERE text (the default, Flink-like dialect of
:mod:`.parser`): explain reasons, workloads, recommendations and tests all use it, and
``parse_where(to_sql(p), fields)`` gives ``p`` back. sqlglot is imported only to decide whether
a keyword-like column name needs quoting.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from ..types import DataType, Timestamp, date_from_days
from ..values import float32
from .fast import SQLGLOT_KEYWORDS
from .model import CompoundPredicate, LeafPredicate, Predicate, set_sql_renderer, visit_function
from .visitor import PredicateVisitor, visit

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1024)
def _plain_identifier(name: str) -> bool:
    if not _PLAIN_NAME.fullmatch(name):
        return False
    if name.upper() not in SQLGLOT_KEYWORDS:
        return True  # sqlglot reads it as a column (tests/predicate/test_fast_parser.py checks this)
    from .sqlglot_parser import plain_identifier

    return plain_identifier(name)


def quote_identifier(name: str) -> str:
    """A column name as SQL text for the default dialect (backquoted when needed)."""
    return name if _plain_identifier(name) else "`" + name.replace("`", "``") + "`"


def _quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def literal_sql(value: Any, dtype: DataType) -> str:
    """One internal value of ``dtype`` as a SQL literal that parses back to the same value."""
    if value is None:
        return "NULL"
    r = dtype.root
    if r == "BOOLEAN":
        return "TRUE" if value else "FALSE"
    if dtype.is_integral:
        return str(int(value))
    if r in ("FLOAT", "DOUBLE"):
        f = float(value)
        if f != f:
            return "'NaN'"
        if f in (float("inf"), float("-inf")):
            return "'Infinity'" if f > 0 else "'-Infinity'"
        return _float32_text(f) if r == "FLOAT" else repr(f)
    if r == "DECIMAL":
        return format(value, "f")
    if dtype.is_string:
        return _quote(str(value))
    if dtype.is_binary:
        return "X'" + bytes(value).hex() + "'"
    if r == "DATE":
        d = date_from_days(int(value))
        return f"DATE '{d.year:04d}-{d.month:02d}-{d.day:02d}'"
    if r == "TIME":
        ms = int(value)
        return f"TIME '{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}'"
    if dtype.is_timestamp and isinstance(value, Timestamp):
        digits = 3 if value.nano_of_millisecond == 0 else 6 if value.nano_of_millisecond % 1000 == 0 else 9
        text = value.isoformat(digits).replace("T", " ")
        return f"TIMESTAMP_LTZ '{text}'" if r == "TIMESTAMP_LTZ" else f"TIMESTAMP '{text}'"
    return _quote(str(value))


def _float32_text(value: float) -> str:
    """The shortest decimal that reads back as this float32 (values.shortest_float32 without
    its OverflowError for candidates rounding past the float32 maximum)."""
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        try:
            if float32(float(text)) == value:
                return repr(float(text))
        except OverflowError:
            continue
    return repr(value)


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class _LeafSql:
    """A leaf as WHERE text: a :class:`~.model.FunctionVisitor` over its literals."""

    def __init__(self, column: str, dtype: DataType) -> None:
        self.col = column
        self.t = dtype

    def _binary(self, symbol: str, literal: Any) -> str:
        return f"{self.col} {symbol} {literal_sql(literal, self.t)}"

    def visit_equal(self, literal: Any) -> str:
        return self._binary("=", literal)

    def visit_not_equal(self, literal: Any) -> str:
        return self._binary("<>", literal)

    def visit_less_than(self, literal: Any) -> str:
        return self._binary("<", literal)

    def visit_less_or_equal(self, literal: Any) -> str:
        return self._binary("<=", literal)

    def visit_greater_than(self, literal: Any) -> str:
        return self._binary(">", literal)

    def visit_greater_or_equal(self, literal: Any) -> str:
        return self._binary(">=", literal)

    def visit_is_null(self) -> str:
        return f"{self.col} IS NULL"

    def visit_is_not_null(self) -> str:
        return f"{self.col} IS NOT NULL"

    def visit_in(self, literals: Sequence[Any]) -> str:
        return f"{self.col} IN ({', '.join(literal_sql(v, self.t) for v in literals)})"

    def visit_not_in(self, literals: Sequence[Any]) -> str:
        return f"{self.col} NOT IN ({', '.join(literal_sql(v, self.t) for v in literals)})"

    def visit_between(self, low: Any, high: Any) -> str:
        return f"{self.col} BETWEEN {literal_sql(low, self.t)} AND {literal_sql(high, self.t)}"

    def visit_not_between(self, low: Any, high: Any) -> str:
        return f"{self.col} NOT BETWEEN {literal_sql(low, self.t)} AND {literal_sql(high, self.t)}"

    def visit_starts_with(self, literal: Any) -> str:
        return f"{self.col} LIKE {_quote(_like_escape(str(literal)) + '%')}"

    def visit_ends_with(self, literal: Any) -> str:
        return f"{self.col} LIKE {_quote('%' + _like_escape(str(literal)))}"

    def visit_contains(self, literal: Any) -> str:
        return f"{self.col} LIKE {_quote('%' + _like_escape(str(literal)) + '%')}"

    def visit_like(self, literal: Any) -> str:
        return f"{self.col} LIKE {_quote(str(literal))}"


def to_sql(pred: Predicate) -> str:
    """Render a predicate as WHERE text for the default dialect.

    ``parse_where(to_sql(p), fields)`` gives ``p`` back for trees the parser produces
    (flattened AND/OR). ``StartsWith``/``EndsWith``/``Contains`` print as ``LIKE``; when their
    literal holds ``%``, ``_`` or ``\\`` the pattern needs escapes and parses back as ``Like``.
    """
    return visit(pred, _Sql())


class _Sql(PredicateVisitor[str]):
    def visit_leaf(self, leaf: LeafPredicate) -> str:
        missing = f"<{leaf.function} of {leaf.field} without its literals>"
        text = visit_function(leaf, _LeafSql(quote_identifier(leaf.field), leaf.type), missing)
        if text == missing:
            raise ValueError(f"cannot print {leaf}: {leaf.function} needs literals")
        return text

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[str]) -> str:
        return _joined(" AND ", predicate, list(children))

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[str]) -> str:
        return _joined(" OR ", predicate, list(children))


def _joined(op: str, predicate: CompoundPredicate, children: list[str]) -> str:
    return op.join(f"({text})" if isinstance(c, CompoundPredicate) else text
                   for c, text in zip(predicate.children, children))


set_sql_renderer(to_sql, literal_sql)
