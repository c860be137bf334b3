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
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from ..errors import PaimonLensError
from ..types import DataField, DataType, Timestamp, date_from_days
from ..values import float32
from .bind import InExpansion
from .fast import SQLGLOT_KEYWORDS, parse_fast
from .model import CompoundPredicate, LeafPredicate, Predicate, and_, or_

if TYPE_CHECKING:
    from ._sql import PaimonLensDialect

__all__ = ["PaimonLensDialect", "PredicateError", "parse_where", "to_sql"]

_WHERE = re.compile(r"\s*WHERE\b", re.IGNORECASE)
_DEFAULT_DIALECTS = ("paimon", "flink", "default")


def __getattr__(name: str) -> Any:
    """``PaimonLensDialect`` (a sqlglot dialect) is imported with sqlglot, on first use."""
    if name == "PaimonLensDialect":
        from ._sql import PaimonLensDialect

        globals()[name] = PaimonLensDialect
        return PaimonLensDialect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PredicateError(PaimonLensError):
    """A WHERE text that cannot become a Paimon predicate.

    Attributes:
        sql: the whole text.
        fragment: the offending part of it (quoted in the message).
        start: character offset of ``fragment`` in ``sql`` (None if unknown).
        line / column: 1-based position of ``fragment`` (None if unknown).
        reason: what is wrong; hint: what to do (may be None).
    """

    def __init__(
        self,
        reason: str,
        sql: str,
        fragment: str | None = None,
        start: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.reason = reason
        self.sql = sql
        self.fragment = fragment if fragment is not None else sql
        self.start = start
        self.hint = hint
        if start is not None:
            self.line: int | None = sql.count("\n", 0, start) + 1
            self.column: int | None = start - (sql.rfind("\n", 0, start) + 1) + 1
        else:
            self.line = self.column = None
        msg = f"{reason}: {self.fragment!r}"
        if self.line is not None:
            msg += f" (line {self.line}, column {self.column})"
        if self.fragment.strip() != sql.strip():
            msg += f" in {sql.strip()!r}"
        if hint:
            msg += f"; {hint}"
        super().__init__(msg)


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
    text = sql
    m = _WHERE.match(text)
    if m:
        text = " " * m.end() + text[m.end():]
    pred: Predicate | None = None
    if dialect is None or dialect.lower() in _DEFAULT_DIALECTS:
        pred = parse_fast(text, fields, expansion)
    if pred is None:
        from ._sql import parse_sqlglot

        pred = parse_sqlglot(sql, text, fields, dialect, expansion)
    return pred if expansion != "leaf" else _flatten(pred)



def _flatten(pred: Predicate) -> Predicate:
    """Flatten nested And/Or of the same kind (after NOT pushdown)."""
    if isinstance(pred, LeafPredicate):
        return pred
    kids = [_flatten(c) for c in pred.children]
    return and_(*kids) if pred.function == "And" else or_(*kids)


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1024)
def _plain_identifier(name: str) -> bool:
    if not _PLAIN_NAME.fullmatch(name):
        return False
    if name.upper() not in SQLGLOT_KEYWORDS:
        return True  # sqlglot reads it as a column (tests/predicate/test_fast_parser.py checks this)
    from ._sql import plain_identifier

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


_SYMBOLS = {"Equal": "=", "NotEqual": "<>", "LessThan": "<", "LessOrEqual": "<=",
            "GreaterThan": ">", "GreaterOrEqual": ">="}


def to_sql(pred: Predicate) -> str:
    """Render a predicate as WHERE text for the default dialect.

    ``parse_where(to_sql(p), fields)`` gives ``p`` back for trees the parser produces
    (flattened AND/OR). ``StartsWith``/``EndsWith``/``Contains`` print as ``LIKE``; when their
    literal holds ``%``, ``_`` or ``\\`` the pattern needs escapes and parses back as ``Like``.
    """
    if isinstance(pred, CompoundPredicate):
        op = " AND " if pred.function == "And" else " OR "
        return op.join(f"({to_sql(c)})" if isinstance(c, CompoundPredicate) else to_sql(c) for c in pred.children)
    col = quote_identifier(pred.field)
    f, lits, t = pred.function, pred.literals, pred.type
    if f in _SYMBOLS:
        return f"{col} {_SYMBOLS[f]} {literal_sql(lits[0], t)}"
    if f == "IsNull":
        return f"{col} IS NULL"
    if f == "IsNotNull":
        return f"{col} IS NOT NULL"
    if f in ("In", "NotIn"):
        neg = "NOT " if f == "NotIn" else ""
        return f"{col} {neg}IN ({', '.join(literal_sql(v, t) for v in lits)})"
    if f == "Between":
        return f"{col} BETWEEN {literal_sql(lits[0], t)} AND {literal_sql(lits[1], t)}"
    if f == "StartsWith":
        return f"{col} LIKE {_quote(_like_escape(str(lits[0])) + '%')}"
    if f == "EndsWith":
        return f"{col} LIKE {_quote('%' + _like_escape(str(lits[0])))}"
    if f == "Contains":
        return f"{col} LIKE {_quote('%' + _like_escape(str(lits[0])) + '%')}"
    if f == "Like":
        return f"{col} LIKE {_quote(str(lits[0]))}"
    raise ValueError(f"cannot print leaf function {f!r}")
