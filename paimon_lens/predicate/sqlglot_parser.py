"""The sqlglot path of :func:`~paimon_lens.predicate.parser.parse_where`: any dialect, every construct.

:mod:`.parser` tries the sqlglot-free :mod:`.fast` parser first and imports this module (and so
sqlglot, about 0.1 s) only for texts outside the fast path's subset, for other dialects and for
errors, whose messages quote the offending fragment with its position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import sqlglot
from sqlglot import exp, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError

from ..errors import PredicateError
from ..types import DataField, Timestamp  # noqa: F401
from .bind import (
    BindError,
    FieldRef,
    InExpansion,
    Lit,
    cast_literal,
    in_predicate,
    like_predicate,
    number_from_text,
    parse_date_text,
    parse_time_text,
    parse_timestamp_text,
    resolve_field,
)
from .model import CompoundFunction, CompoundPredicate, Predicate, and_, leaves, or_


class PaimonLensDialect(Dialect):
    """Flink-like SQL: ``'…'`` strings (``''`` escapes), backquoted or double-quoted identifiers,
    ``X'…'`` binary literals."""

    class Tokenizer(tokens.Tokenizer):
        QUOTES = ["'"]  # noqa: RUF012 (sqlglot's own class attributes)
        IDENTIFIERS = ['"', "`"]  # noqa: RUF012
        IDENTIFIER_ESCAPES = ['"', "`"]  # noqa: RUF012
        HEX_STRINGS = [("x'", "'"), ("X'", "'")]  # noqa: RUF012
        STRING_ESCAPES = ["'"]  # noqa: RUF012


_DEFAULT_DIALECT = PaimonLensDialect()

_COMPARE = {exp.EQ: "Equal", exp.NEQ: "NotEqual", exp.LT: "LessThan", exp.LTE: "LessOrEqual",
            exp.GT: "GreaterThan", exp.GTE: "GreaterOrEqual"}
_FLIP = {"Equal": "Equal", "NotEqual": "NotEqual", "LessThan": "GreaterThan", "LessOrEqual": "GreaterOrEqual",
         "GreaterThan": "LessThan", "GreaterOrEqual": "LessOrEqual"}

_TYPED_PREFIX = re.compile(
    r"(?i)(?:TIMESTAMP\s+WITH(?:\s+LOCAL)?\s+TIME\s+ZONE|TIMESTAMP_LTZ|TIMESTAMP_NTZ|TIMESTAMP|DATE|TIME)\s*$")

_DATE_TYPES = frozenset({"DATE", "DATE32"})
_TIME_TYPES = frozenset({"TIME"})
_TS_TYPES = frozenset({"TIMESTAMP", "TIMESTAMPNTZ", "TIMESTAMPTZ", "DATETIME", "DATETIME2", "TIMESTAMP_S",
                       "TIMESTAMP_MS", "TIMESTAMP_NS"})
_NUMBER_TYPES = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "BIGDECIMAL",
                           "DECIMAL32", "DECIMAL64", "DECIMAL128"})
_STRING_TYPES = frozenset({"CHAR", "VARCHAR", "TEXT", "NCHAR", "NVARCHAR"})
_BINARY_TYPES = frozenset({"BINARY", "VARBINARY"})


def _dialect(dialect: str | None, sql: str) -> Dialect:
    if dialect is None or dialect.lower() in ("paimon", "flink", "default"):
        return _DEFAULT_DIALECT
    try:
        return Dialect.get_or_raise(dialect)
    except ValueError as e:
        raise PredicateError(f"unknown SQL dialect {dialect!r}", sql, dialect, None, str(e)) from None


def parse_sqlglot(sql: str, text: str, fields: Sequence[DataField], dialect: str | None,
                  expansion: InExpansion) -> Predicate:
    """``text`` (``sql`` with a leading ``WHERE`` blanked) parsed by sqlglot and converted, not flattened."""
    d = _dialect(dialect, sql)
    try:
        trees = [t for t in sqlglot.parse(text, dialect=d) if isinstance(t, exp.Expression)]
    except ParseError as e:
        raise _parse_error(sql, e) from None
    except TokenError as e:
        raise _token_error(sql, e) from None
    if not trees:
        raise PredicateError("empty WHERE condition", sql)
    conv = _Converter(sql, fields, expansion)
    if len(trees) > 1:
        raise conv.error("a WHERE condition is a single expression, found several statements", trees[1])
    return conv.condition(trees[0])


def plain_identifier(name: str) -> bool:
    """Whether sqlglot reads ``name`` unquoted as that column (``name IS NULL`` parses to it)."""
    try:
        tree = sqlglot.parse_one(f"{name} IS NULL", dialect=_DEFAULT_DIALECT)
    except (ParseError, TokenError):
        return False
    return isinstance(tree, exp.Is) and isinstance(tree.this, exp.Column) and tree.this.name == name \
        and not tree.this.args.get("table")


def _parse_error(sql: str, e: ParseError) -> PredicateError:
    info: dict[str, Any] = e.errors[0] if e.errors else {}
    desc = str(info.get("description") or e).split("\n")[0]
    desc = re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", desc)  # sqlglot names its node classes
    highlight = str(info.get("highlight") or "")
    line, col = info.get("line"), info.get("col")
    start: int | None = None
    if isinstance(line, int) and isinstance(col, int) and highlight:
        # sqlglot reports the column of the highlight's last character
        line_start = 0
        for _ in range(line - 1):
            line_start = sql.index("\n", line_start) + 1
        start = line_start + col - len(highlight)
        if start < 0 or sql[start:start + len(highlight)] != highlight:
            found = sql.find(highlight)
            start = found if found >= 0 else None
    if not highlight and desc.startswith("No expression"):
        return PredicateError("empty WHERE condition", sql)
    return PredicateError(f"malformed SQL ({_in_words(desc, highlight)})", sql, highlight or sql, start)


#: sqlglot's node names of the operators a WHERE clause uses, as SQL
_OPERATORS = {"EQ": "=", "NEQ": "<>", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<=", "Like": "LIKE",
              "ILike": "ILIKE", "And": "AND", "Or": "OR", "In": "IN", "Is": "IS", "Not": "NOT",
              "Between": "BETWEEN", "NullSafeEQ": "<=>", "NullSafeNEQ": "IS DISTINCT FROM"}


def _in_words(desc: str, highlight: str) -> str:
    """What sqlglot's parse error means, in a WHERE clause's terms (none of the parser's internals)."""
    missing = re.match(r"Required keyword: '(\w+)' missing for (\w+)", desc)
    if missing is not None:
        part, node = missing.groups()
        op = _OPERATORS.get(node, node.upper())
        if node in ("And", "Or", "Not"):
            return f"expected a condition after {op}"
        if node == "Between":
            return "BETWEEN needs a lower and an upper bound: BETWEEN low AND high"
        if part == "this":
            return f"expected a column before {op}"
        return f"expected a value after {op}"
    if desc.startswith("Expecting )"):
        return "expected ')': a parenthesis is not closed"
    if desc.startswith("Invalid expression / Unexpected token"):
        return f"unexpected {highlight!r}" if highlight else "unexpected text"
    return "the WHERE clause does not parse here"


def _token_error(sql: str, e: TokenError) -> PredicateError:
    quote: str | None = None
    opened = 0
    for i, c in enumerate(sql):
        if quote is None and c in "'\"`":
            quote, opened = c, i
        elif c == quote:
            quote = None if not (i + 1 < len(sql) and sql[i + 1] == c) else quote
    if quote is not None:
        return PredicateError(f"malformed SQL (unterminated {quote}…{quote})", sql, sql[opened:opened + 30], opened)
    return PredicateError(f"malformed SQL ({e})", sql)


class _Converter:
    def __init__(self, sql: str, fields: Sequence[DataField], expansion: InExpansion) -> None:
        self.sql = sql
        self.fields = fields
        self.expansion = expansion

    # ---- positions -----------------------------------------------------------------------
    def span(self, node: exp.Expression) -> tuple[int, int] | None:
        starts: list[int] = []
        ends: list[int] = []
        for n in node.walk():
            meta = n.meta
            if "start" in meta and "end" in meta:
                starts.append(int(meta["start"]))
                ends.append(int(meta["end"]) + 1)
            if isinstance(n, exp.Cast) and isinstance(n.this, exp.Literal) and "start" in n.this.meta:
                m = _TYPED_PREFIX.search(self.sql, 0, int(n.this.meta["start"]))
                if m:
                    starts.append(m.start())
            if isinstance(n, exp.Not):
                inner_starts = [int(x.meta["start"]) for x in n.walk() if "start" in x.meta]
                if inner_starts:
                    m = re.search(r"(?i)\bNOT[\s(]*$", self.sql[:min(inner_starts)])
                    if m:
                        starts.append(m.start())
            if isinstance(n, exp.Neg):
                inner = [int(x.meta["start"]) for x in n.walk() if "start" in x.meta]
                if inner:
                    k = min(inner) - 1
                    while k >= 0 and self.sql[k] in " \t\r\n(":
                        k -= 1
                    if k >= 0 and self.sql[k] == "-":
                        starts.append(k)
        if not starts:
            return None
        start, end = min(starts), max(ends)
        if any(isinstance(n, exp.Select) for n in node.walk()):
            k = self.sql.lower().rfind("select", 0, start + 1)
            if k >= 0:
                start = k
        for opener, closer in (("(", ")"), ("[", "]")):
            depth = _balance(self.sql[start:end], opener, closer)
            while depth > 0:
                k = end
                while k < len(self.sql) and self.sql[k].isspace():
                    k += 1
                if k < len(self.sql) and self.sql[k] == closer:
                    end, depth = k + 1, depth - 1
                else:
                    break
            while depth < 0:
                k = start - 1
                while k >= 0 and self.sql[k].isspace():
                    k -= 1
                if k >= 0 and self.sql[k] == opener:
                    start, depth = k, depth + 1
                else:
                    break
        return start, end

    def text(self, node: exp.Expression) -> str:
        sp = self.span(node)
        return self.sql[sp[0]:sp[1]] if sp else node.sql()

    def error(self, reason: str, node: exp.Expression, hint: str | None = None) -> PredicateError:
        sp = self.span(node)
        if sp is None:
            return PredicateError(reason, self.sql, node.sql(), None, hint)
        return PredicateError(reason, self.sql, self.sql[sp[0]:sp[1]], sp[0], hint)

    def bind_error(self, e: BindError, node: exp.Expression) -> PredicateError:
        return self.error(e.reason, node, e.hint)

    # ---- conditions ----------------------------------------------------------------------
    def combine(self, function: str, preds: list[Predicate]) -> Predicate:
        if self.expansion == "leaf":
            return and_(*preds) if function == "And" else or_(*preds)
        return preds[0] if len(preds) == 1 else CompoundPredicate(CompoundFunction(function), tuple(preds))

    def condition(self, node: exp.Expression) -> Predicate:
        if isinstance(node, exp.Paren):
            return self.condition(node.this)
        if isinstance(node, (exp.And, exp.Or)):
            kind = type(node)
            parts: list[exp.Expression] = []
            stack: list[exp.Expression] = [node]
            while stack:
                n = stack.pop()
                if type(n) is kind:
                    stack.append(n.expression)
                    stack.append(n.this)
                else:
                    parts.append(n)
            return self.combine("And" if kind is exp.And else "Or", [self.condition(p) for p in parts])
        if isinstance(node, exp.Not):
            return self.negation(node)
        for cls, function in _COMPARE.items():
            if isinstance(node, cls):
                return self.comparison(node, function)
        if isinstance(node, (exp.NullSafeEQ, exp.NullSafeNEQ)):
            return self.null_safe(node)
        if isinstance(node, exp.In):
            return self.in_list(node)
        if isinstance(node, exp.Between):
            return self.between(node)
        if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like):
            return self.like(node.this, node.expression)
        if isinstance(node, exp.Like):
            return self.like(node, None)
        if isinstance(node, exp.Is):
            return self.is_(node)
        if isinstance(node, exp.Column):
            ref = self.column(node)
            if ref.type.root != "BOOLEAN":
                raise self.error(f"column {ref.name!r} ({ref.type}) is used as a condition", node,
                                 "compare it with a value")
            return ref.leaf("Equal", (True,))
        if isinstance(node, (exp.Boolean, exp.Null, exp.Literal)):
            raise self.error("a condition without a column is not supported", node)
        raise self.unsupported(node)

    def unsupported(self, node: exp.Expression) -> PredicateError:
        if isinstance(node, exp.Alias):
            alias = node.args.get("alias")
            target = alias if isinstance(alias, exp.Expression) else node
            return self.error("malformed SQL (unexpected text)", target)
        if isinstance(node, (exp.Subquery, exp.Query, exp.Exists)):
            return self.error("subqueries are not supported", node)
        if isinstance(node, (exp.ILike, exp.SimilarTo, exp.RegexpLike)):
            return self.error(f"{type(node).__name__} is not supported (Paimon has LIKE only)", node)
        if isinstance(node, (exp.Bracket, exp.Dot)):
            return self.error("nested field / map / array access is not supported", node,
                              "Paimon predicates apply to top-level columns")
        if isinstance(node, exp.Placeholder):
            return self.error("query parameters are not supported", node, "write the value inline")
        if isinstance(node, exp.Cast):
            return self.error("CAST is only supported around a literal", node)
        if isinstance(node, exp.Func):
            return self.error("functions are not supported", node, "Paimon predicates compare a column with literals")
        if isinstance(node, (exp.Binary, exp.Unary)):
            return self.error("expressions and operators other than comparisons are not supported", node)
        return self.error(f"unsupported SQL construct ({type(node).__name__})", node)

    def negation(self, node: exp.Not) -> Predicate:
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Boolean):
            ref = self.column_operand(inner.this, inner)
            value = self.cast(Lit("bool", inner.expression.this, self.text(inner.expression)), ref, inner.expression)
            # x IS NOT TRUE  <=>  x IS NULL OR x <> TRUE
            return self.combine("Or", [ref.leaf("IsNull"), ref.leaf("NotEqual", (value,))])
        for n in inner.walk():
            if isinstance(n, exp.Is) and isinstance(n.expression, exp.Boolean):
                raise self.error("NOT over IS TRUE / IS FALSE cannot be pushed down (null rows would change)", node)
        pred = self.condition(inner)
        neg = pred.negate()
        if neg is None:
            bad = next((lf for lf in leaves(pred) if lf.negate() is None), None)
            what = f"{bad.function}({bad.field}, …)" if bad else "this predicate"
            raise self.error(f"NOT cannot be applied: Paimon has no negation of {what}", node)
        return neg

    def comparison(self, node: exp.Expression, function: str) -> Predicate:
        left, right = self.operand(node.this), self.operand(node.args["expression"])
        if isinstance(left, FieldRef) and isinstance(right, FieldRef):
            raise self.error("comparisons between two columns are not supported", node,
                             "Paimon predicates compare a column with literals")
        if isinstance(left, FieldRef) and isinstance(right, Lit):
            return left.leaf(function, (self.cast(right, left, node.args["expression"]),))
        if isinstance(left, Lit) and isinstance(right, FieldRef):
            return right.leaf(_FLIP[function], (self.cast(left, right, node.this),))
        raise self.error("a comparison without a column is not supported", node)

    def null_safe(self, node: exp.Expression) -> Predicate:
        left, right = self.operand(node.this), self.operand(node.args["expression"])
        if isinstance(left, FieldRef) and isinstance(right, Lit):
            ref, lit, lit_node = left, right, node.args["expression"]
        elif isinstance(left, Lit) and isinstance(right, FieldRef):
            ref, lit, lit_node = right, left, node.this
        else:
            raise self.error("<=> / IS [NOT] DISTINCT FROM needs one column and one literal", node)
        pred: Predicate
        if lit.kind == "null":
            pred = ref.leaf("IsNull")
        else:  # Spark's converter: and(isNotNull, equal)
            pred = self.combine("And", [ref.leaf("IsNotNull"), ref.leaf("Equal", (self.cast(lit, ref, lit_node),))])
        if isinstance(node, exp.NullSafeNEQ):
            neg = pred.negate()
            assert neg is not None
            return neg
        return pred

    def in_list(self, node: exp.In) -> Predicate:
        if node.args.get("query") is not None:
            raise self.error("subqueries are not supported", node)
        if node.args.get("unnest") is not None or node.args.get("field") is not None:
            raise self.unsupported(node)
        ref = self.column_operand(node.this, node)
        values: list[Any] = []
        for e in node.expressions:
            op = self.operand(e)
            if isinstance(op, FieldRef):
                raise self.error("IN lists of columns are not supported", e, "IN takes literals only")
            values.append(self.cast(op, ref, e))
        return in_predicate(ref, tuple(values), False, self.expansion)

    def between(self, node: exp.Between) -> Predicate:
        if node.args.get("symmetric"):
            raise self.error("BETWEEN SYMMETRIC is not supported", node)
        ref = self.column_operand(node.this, node)
        bounds: list[Any] = []
        for key in ("low", "high"):
            e = node.args[key]
            op = self.operand(e)
            if isinstance(op, FieldRef):
                raise self.error("comparisons between two columns are not supported", node,
                                 "BETWEEN bounds must be literals")
            bounds.append(self.cast(op, ref, e))
        return ref.leaf("Between", (bounds[0], bounds[1]))

    def like(self, node: exp.Like, escape: exp.Expression | None) -> Predicate:
        ref = self.column_operand(node.this, node)
        pat = self.operand(node.expression)
        if not isinstance(pat, Lit) or pat.kind != "string":
            raise self.error("LIKE needs a string pattern", node.expression)
        esc: str | None = None
        if escape is not None:
            e = self.operand(escape)
            if not isinstance(e, Lit) or e.kind != "string":
                raise self.error("ESCAPE needs a one-character string", escape)
            esc = str(e.value)
        try:
            pred: Predicate = like_predicate(ref, str(pat.value), esc)
        except BindError as err:
            raise self.bind_error(err, node) from None
        if node.args.get("negate"):
            neg = pred.negate()
            if neg is None:
                raise self.error(f"NOT LIKE cannot be applied: Paimon has no negation of {pred}", node)
            return neg
        return pred

    def is_(self, node: exp.Is) -> Predicate:
        ref = self.column_operand(node.this, node)
        target = node.expression
        if isinstance(target, exp.Null):
            return ref.leaf("IsNull")
        if isinstance(target, exp.Boolean):
            return ref.leaf("Equal", (self.cast(Lit("bool", target.this, self.text(target)), ref, target),))
        raise self.unsupported(node)

    # ---- operands ------------------------------------------------------------------------
    def column(self, node: exp.Column) -> FieldRef:
        if node.args.get("table") is not None:
            raise self.error("qualified column names are not supported", node,
                             "write the bare column name (quote it if it contains a dot)")
        try:
            return resolve_field(node.name, self.fields)
        except BindError as e:
            raise self.bind_error(e, node) from None

    def column_operand(self, node: exp.Expression, whole: exp.Expression) -> FieldRef:
        op = self.operand(node)
        if not isinstance(op, FieldRef):
            raise self.error("the left side must be a column", whole)
        return op

    def cast(self, lit: Lit, ref: FieldRef, node: exp.Expression) -> Any:
        try:
            return cast_literal(lit, ref)
        except BindError as e:
            raise self.bind_error(e, node) from None

    def operand(self, node: exp.Expression) -> FieldRef | Lit:
        if isinstance(node, exp.Paren):
            return self.operand(node.this)
        if isinstance(node, exp.Column):
            return self.column(node)
        text = self.text(node)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return Lit("string", node.this, text)
            return self.number(node, text)
        if isinstance(node, exp.Neg):
            inner = self.operand(node.this)
            if isinstance(inner, Lit) and inner.kind == "int":
                return Lit("int", -int(inner.value), text)
            if isinstance(inner, Lit) and inner.kind == "decimal":
                return Lit("decimal", inner.value.copy_negate(), text)
            raise self.error("unary minus is only supported on numbers", node)
        if isinstance(node, exp.Boolean):
            return Lit("bool", bool(node.this), text)
        if isinstance(node, exp.Null):
            return Lit("null", None, text)
        if isinstance(node, exp.HexString):
            digits = str(node.this)
            if text[:2] in ("0x", "0X"):
                return Lit("int", int(digits, 16), text)
            if len(digits) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", digits):
                raise self.error("a binary literal needs an even number of hex digits", node)
            return Lit("binary", bytes.fromhex(digits), text)
        if isinstance(node, (exp.National, exp.RawString)):
            return Lit("string", str(node.this), text)
        if isinstance(node, (exp.Cast, exp.TryCast)) and isinstance(node.this, (exp.Literal, exp.Neg)):
            return self.typed_literal(node, text)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            raise self.error("CAST of a column is not supported", node, "compare the column itself with a literal")
        raise self.unsupported(node)

    def number(self, node: exp.Expression, text: str) -> Lit:
        try:
            v = number_from_text(str(node.this))
        except BindError as e:
            raise self.bind_error(e, node) from None
        return Lit("int", v, text) if isinstance(v, int) else Lit("decimal", v, text)

    def typed_literal(self, node: exp.Cast, text: str) -> Lit:
        to = node.args.get("to")
        tname = to.this.name if isinstance(to, exp.DataType) else ""
        inner = self.operand(node.this)
        if not isinstance(inner, Lit):  # pragma: no cover - guarded by the caller
            raise self.unsupported(node)
        raw = str(inner.value) if inner.kind in ("string", "int", "decimal") else None
        try:
            if inner.kind == "null":
                return Lit("null", None, text)
            if raw is None:
                raise BindError(f"cannot cast {inner.text} to {tname}")
            if tname in _DATE_TYPES:
                return Lit("date", parse_date_text(raw), text)
            if tname in _TIME_TYPES:
                return Lit("time", parse_time_text(raw), text)
            if tname in _TS_TYPES or tname == "TIMESTAMPLTZ":
                ts, zulu = parse_timestamp_text(raw)
                return Lit("timestamp_ltz" if tname == "TIMESTAMPLTZ" or zulu else "timestamp", ts, text)
            if tname in _NUMBER_TYPES:
                v = number_from_text(raw) if inner.kind == "string" else inner.value
                return Lit("int", v, text) if isinstance(v, int) else Lit("decimal", v, text)
            if tname in _STRING_TYPES:
                return Lit("string", raw, text)
            if tname == "BOOLEAN":
                if raw.lower() in ("t", "true", "y", "yes", "1", "f", "false", "n", "no", "0"):
                    return Lit("bool", raw.lower() in ("t", "true", "y", "yes", "1"), text)
                raise BindError(f"{raw!r} is not a boolean")
            if tname in _BINARY_TYPES:
                return Lit("binary", raw.encode("utf-8"), text)
        except BindError as e:
            raise self.bind_error(e, node) from None
        raise self.error(f"literals of type {tname or to} are not supported", node)


def _balance(text: str, opener: str, closer: str) -> int:
    """Unclosed ``opener`` count in ``text`` (negative: unopened closers), outside quotes."""
    depth = 0
    quote: str | None = None
    for c in text:
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
    return depth


# ---- printing --------------------------------------------------------------------------------
