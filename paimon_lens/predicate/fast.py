"""A sqlglot-free parser for the common WHERE conditions (the fast path of ``parse_where``).

Importing sqlglot costs about 0.1 s, a noticeable share of a cold ``explain``. This module parses
a strict subset of the default (Flink-like) dialect by recursive descent and builds the same
predicate the sqlglot path (:mod:`._sql`) builds, through the same binding functions of
:mod:`.bind`:

* conditions: ``AND``, ``OR``, ``NOT``, parentheses, a bare BOOLEAN column;
* leaves: ``= <> != < <= > >=`` between a column and a literal (either side), ``[NOT] IN
  (literal, ...)``, ``[NOT] BETWEEN literal AND literal``, ``IS [NOT] NULL``, ``[NOT] LIKE
  'pattern'``;
* literals: unsigned or ``-`` integers and decimals (``12``, ``-1.50``, ``1.0E-300``), ``'…'``
  strings with ``''`` escapes (no backslash), ``TRUE``, ``FALSE``, ``NULL``, ``DATE '…'``,
  ``TIME '…'``, ``TIMESTAMP '…'``, ``TIMESTAMP_LTZ '…'``;
* ``-- comments`` to the end of a line;
* columns: ``[A-Za-z_][A-Za-z0-9_]*`` names that are not sqlglot keywords, or backquoted /
  double-quoted names without quote characters inside.

:func:`parse_fast` returns None for anything else, and for every text it could parse but not
bind (unknown column, literal that does not cast, NOT that cannot be negated, ...): the caller
then runs the sqlglot path, which gives the predicate or the error with its position. So the fast
path never changes a result or an error message; ``tests/predicate/test_fast_parser.py`` checks
it against the sqlglot path on every oracle condition and on generated variations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..types import DataField
from .bind import (
    _INT_RANGE,
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
from .model import CompoundFunction, CompoundPredicate, Predicate, and_, or_

#: Single-word keys of sqlglot's ``Tokenizer.KEYWORDS`` (sqlglot 30): a bare column name among them
#: may be read as something else than a column, so the fast path leaves it to sqlglot.
#: ``tests/predicate/test_fast_parser.py`` checks that this covers the installed sqlglot's keywords.
_KEYWORD_TEXT = """
# noqa: SIM905 ALL ALTER ANALYZE AND ANTI ANY APPLY ARRAY AS ASC ASOF AUTOINCREMENT AUTO_INCREMENT
BEGIN BETWEEN BIGDECIMAL BIGINT BIGNUM BIGNUMERIC BINARY BIT BLOB BOOL BOOLEAN BPCHAR BYTE BYTEA
CACHE CALL CASE CHAR CHARACTER CLOB COLLATE COLUMN COMMENT COMMIT CONSTRAINT COPY CREATE CROSS CUBE
CURRENT_CATALOG CURRENT_DATE CURRENT_SCHEMA CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DATABASE
DATE DATEMULTIRANGE DATERANGE DATETIME DEC DECFLOAT DECIMAL DECIMAL128 DECIMAL256 DECIMAL32
DECIMAL64 DEFAULT DELETE DESC DESCRIBE DISTINCT DIV DOUBLE DROP ELSE END ENUM ESCAPE EXCEPT EXECUTE
EXISTS EXPLAIN FALSE FETCH FILE FILTER FIRST FIXED FLOAT FLOAT4 FLOAT8 FOR FORMAT FROM FULL FUNCTION
GEOGRAPHY GEOMETRY GLOB GRANT HAVING HUGEINT ILIKE IN INDEX INET INNER INSERT INT INT1 INT128 INT16
INT2 INT256 INT32 INT4 INT4MULTIRANGE INT4RANGE INT64 INT8 INT8MULTIRANGE INT8RANGE INTEGER
INTERSECT INTERVAL INTO IS ISNULL JOIN JSON JSONB KEEP KILL LATERAL LEFT LIKE LIMIT LIST LOAD
LOCALTIME LOCALTIMESTAMP LOCK LONG LONGBLOB LONGTEXT LONGVARCHAR MAP MEDIUMBLOB MEDIUMINT MEDIUMTEXT
MERGE NAMESPACE NATURAL NCHAR NEXT NOT NOTNULL NULL NULLABLE NUMBER NUMERIC NUMMULTIRANGE NUMRANGE
NVARCHAR NVARCHAR2 OBJECT OFFSET ON OPERATOR OPTIMIZE OR ORDINALITY OUT OUTER OVER OVERLAPS
OVERWRITE PARTITION PARTITIONED_BY PERCENT PIVOT PRAGMA PREPARE PROCEDURE QUALIFY RANGE REAL
RECURSIVE REF REFERENCES REGEXP RENAME REPLACE RETURNING REVOKE RIGHT RLIKE ROLLBACK ROLLUP ROW ROWS
SCHEMA SELECT SEMI SEQUENCE SESSION SESSION_USER SET SETTINGS SHORT SHOW SMALLINT SOME STR
STRAIGHT_JOIN STRING STRUCT TABLE TABLESAMPLE TEMP TEMPORARY TEXT THEN TIME TIMESTAMP TIMESTAMPLTZ
TIMESTAMPNTZ TIMESTAMPTZ TIMESTAMP_LTZ TIMESTAMP_NTZ TIMETZ TIME_NS TINYBLOB TINYINT TINYTEXT
TRIGGER TRUE TRUNCATE TSMULTIRANGE TSRANGE TSTZMULTIRANGE TSTZRANGE UHUGEINT UINT UINT128 UINT256
UNCACHE UNION UNIQUE UNKNOWN UNNEST UNPIVOT UPDATE USE USING UUID VACUUM VALUES VARBINARY VARCHAR
VARCHAR2 VARIANT VECTOR VIEW VOLATILE WHEN WHERE WINDOW WITH XOR
"""
#: and the names sqlglot's parser reads as functions without parentheses (``NO_PAREN_FUNCTION_PARSERS``)
SQLGLOT_KEYWORDS = frozenset(_KEYWORD_TEXT.split()) | {"ANY", "CASE", "CONNECT_BY_ROOT", "IF", "PRIOR"}

#: one token: whitespace, a string, a quoted name, a number, a word, an operator or punctuation
_TOKEN = re.compile(r"""
    (?P<ws>(?:[ \t\r\n]+|--[^\n]*)+)
  | '(?P<str>(?:[^'\\]|'')*)'
  | `(?P<bq>(?:[^`]|``)+)`
  | "(?P<dq>(?:[^"]|"")+)"
  | (?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![A-Za-z0-9_.])
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><>|!=|<=(?!>)|>=|<|>|=(?!=))
  | (?P<punct>[(),])
  | (?P<minus>-)(?!-)
""", re.VERBOSE)

_KW = frozenset({"AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "LIKE", "TRUE", "FALSE"})
_COMPARE = {"=": "Equal", "<>": "NotEqual", "!=": "NotEqual", "<": "LessThan", "<=": "LessOrEqual",
            ">": "GreaterThan", ">=": "GreaterOrEqual"}
_FLIP = {"Equal": "Equal", "NotEqual": "NotEqual", "LessThan": "GreaterThan", "LessOrEqual": "GreaterOrEqual",
         "GreaterThan": "LessThan", "GreaterOrEqual": "LessOrEqual"}
_TYPED = frozenset({"DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"})

# token kinds (``list``: a whole long IN list of plain integers or strings, read in one step)
_END, _KEYWORD, _NAME, _LIT, _OP, _PUNCT, _LIST = "end", "kw", "name", "lit", "op", "punct", "list"

#: a long list (at least 16 values) of plain integers or of plain strings, after ``IN``: read item
#: by item with one regular expression each instead of token by token (an IN list of 100,000 values
#: in a fraction of a second). Anything else in the list (a decimal point, an exponent, a comment, a
#: space after a minus) does not match, and the list is read token by token as before.
_BULK_MIN = 16
_OPEN = re.compile(r"[ \t\r\n]*\(")
_BULK_ITEMS = (("int", re.compile(r"[ \t\r\n]*(-?[0-9]+)[ \t\r\n]*([,)])")),
               ("string", re.compile(r"[ \t\r\n]*'((?:[^'\\]|'')*)'[ \t\r\n]*([,)])")))


class _Decline(Exception):
    """The text is outside the fast path's subset, or binding it failed: use sqlglot."""


def _tokens(text: str) -> list[tuple[str, object]] | None:
    out: list[tuple[str, object]] = []
    pos, n = 0, len(text)
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "str":
            out.append((_LIT, Lit("string", m.group("str").replace("''", "'"), m.group(0))))
        elif kind == "bq":
            out.append((_NAME, m.group("bq").replace("``", "`")))
        elif kind == "dq":
            out.append((_NAME, m.group("dq").replace('""', '"')))
        elif kind == "num":
            raw = m.group("num")
            try:
                v = number_from_text(raw)
            except BindError:
                return None
            out.append((_LIT, Lit("int", v, raw) if isinstance(v, int) else Lit("decimal", v, raw)))
        elif kind == "word":
            word = m.group("word")
            upper = word.upper()
            if upper in _KW:
                out.append((_KEYWORD, upper))
                if upper == "IN":
                    pos = _bulk_list(text, pos, out)
            elif upper in SQLGLOT_KEYWORDS:
                if upper not in _TYPED:
                    return None
                out.append((_KEYWORD, upper))
            else:
                out.append((_NAME, word))
        elif kind == "op":
            out.append((_OP, m.group("op")))
        elif kind == "punct":
            out.append((_PUNCT, m.group("punct")))
        else:  # minus: only directly before a number
            out.append((_PUNCT, "-"))
    out.append((_END, None))
    return out


def _bulk_list(text: str, pos: int, out: list[tuple[str, object]]) -> int:
    """After ``IN`` at ``pos``: a long list of plain integers or strings as one ``_LIST`` token
    ``(kind, [item text])`` (and the position after its ``)``); else nothing added, ``pos`` unchanged."""
    opened = _OPEN.match(text, pos)
    if opened is None:
        return pos
    for kind, item in _BULK_ITEMS:
        at, items, match = opened.end(), [], item.match
        while (m := match(text, at)) is not None:
            items.append(m.group(1))
            at = m.end()
            if m.group(2) == ")":
                if len(items) < _BULK_MIN:
                    break
                out.append((_LIST, (kind, items)))
                return at
    return pos


class _Parser:
    def __init__(self, tokens: list[tuple[str, object]], fields: Sequence[DataField], expansion: InExpansion) -> None:
        self.toks = tokens
        self.i = 0
        self.fields = fields
        self.expansion = expansion

    # ---- tokens ------------------------------------------------------------------------------
    def peek(self) -> tuple[str, object]:
        return self.toks[self.i]

    def take(self) -> tuple[str, object]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def accept(self, kind: str, value: object) -> bool:
        tok = self.toks[self.i]
        if tok[0] == kind and tok[1] == value:
            self.i += 1
            return True
        return False

    def expect(self, kind: str, value: object) -> None:
        if not self.accept(kind, value):
            raise _Decline

    # ---- conditions (the shapes the sqlglot path's _Converter builds) --------------------------
    def combine(self, function: str, preds: list[Predicate]) -> Predicate:
        if self.expansion == "leaf":
            return and_(*preds) if function == "And" else or_(*preds)
        return preds[0] if len(preds) == 1 else CompoundPredicate(CompoundFunction(function), tuple(preds))

    def condition(self) -> Predicate:
        """OR of ANDs; a chain of one operator is one node, as sqlglot's nested nodes are flattened."""
        parts = [self.conjunction()]
        while self.accept(_KEYWORD, "OR"):
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else self.combine("Or", parts)

    def conjunction(self) -> Predicate:
        parts = [self.unary()]
        while self.accept(_KEYWORD, "AND"):
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else self.combine("And", parts)

    def unary(self) -> Predicate:
        if self.accept(_KEYWORD, "NOT"):
            return self.negate(self.unary())
        return self.primary()

    @staticmethod
    def negate(pred: Predicate) -> Predicate:
        neg = pred.negate()
        if neg is None:
            raise _Decline
        return neg

    def primary(self) -> Predicate:
        kind, value = self.peek()
        if kind == _PUNCT and value == "(":
            # "(" starts a nested condition, or a parenthesised literal/column of a comparison:
            # only the former is in the subset
            self.i += 1
            inner = self.condition()
            self.expect(_PUNCT, ")")
            return inner
        left = self.operand()
        kind, value = self.peek()
        if kind == _OP:
            self.i += 1
            return self.comparison(left, _COMPARE[str(value)], self.operand())
        if not isinstance(left, FieldRef):
            raise _Decline
        if kind == _KEYWORD:
            if value == "IS":
                self.i += 1
                negated = self.accept(_KEYWORD, "NOT")
                self.expect(_KEYWORD, "NULL")
                is_null = left.leaf("IsNull")
                return self.negate(is_null) if negated else is_null
            negated = self.accept(_KEYWORD, "NOT")
            kind, value = self.take()
            pred: Predicate
            if kind == _KEYWORD and value == "IN":
                pred = self.in_list(left)
            elif kind == _KEYWORD and value == "BETWEEN":
                pred = self.between(left)
            elif kind == _KEYWORD and value == "LIKE":
                pred = self.like(left)
            else:
                raise _Decline
            return self.negate(pred) if negated else pred
        # a bare column as a condition
        if left.type.root != "BOOLEAN":
            raise _Decline
        return left.leaf("Equal", (True,))

    def comparison(self, left: FieldRef | Lit, function: str, right: FieldRef | Lit) -> Predicate:
        if isinstance(left, FieldRef) and isinstance(right, Lit):
            return left.leaf(function, (self.cast(right, left),))
        if isinstance(left, Lit) and isinstance(right, FieldRef):
            return right.leaf(_FLIP[function], (self.cast(left, right),))
        raise _Decline

    def in_list(self, ref: FieldRef) -> Predicate:
        kind, bulk = self.peek()
        if kind == _LIST:
            self.i += 1
            values = self.cast_many(bulk, ref)  # type: ignore[arg-type]
        else:
            self.expect(_PUNCT, "(")
            values = [self.cast(self.literal(), ref)]
            while self.accept(_PUNCT, ","):
                values.append(self.cast(self.literal(), ref))
            self.expect(_PUNCT, ")")
        try:
            return in_predicate(ref, tuple(values), False, self.expansion)
        except BindError:  # pragma: no cover - a plain IN always builds
            raise _Decline from None

    def between(self, ref: FieldRef) -> Predicate:
        low = self.cast(self.literal(), ref)
        self.expect(_KEYWORD, "AND")
        high = self.cast(self.literal(), ref)
        return ref.leaf("Between", (low, high))

    def like(self, ref: FieldRef) -> Predicate:
        pat = self.literal()
        if pat.kind != "string":
            raise _Decline
        try:
            return like_predicate(ref, str(pat.value), None)
        except BindError:
            raise _Decline from None

    # ---- operands ----------------------------------------------------------------------------
    def cast(self, lit: Lit, ref: FieldRef) -> object:
        try:
            return cast_literal(lit, ref)
        except BindError:
            raise _Decline from None

    def cast_many(self, bulk: tuple[str, list[str]], ref: FieldRef) -> list[object]:
        """:meth:`cast` of each item of a bulk list: integers to an integer column and strings to a
        string column in one pass (the same values and errors as one by one)."""
        kind, items = bulk
        t = ref.type
        if kind == "int":
            ints = [int(x) for x in items]
            if t.is_integral:
                lo, hi = _INT_RANGE[t.root]
                if lo <= min(ints) and max(ints) <= hi:
                    return list(ints)
            return [self.cast(Lit("int", v, x), ref) for v, x in zip(ints, items)]
        texts = [x.replace("''", "'") for x in items]
        if t.is_string:
            return list(texts)
        return [self.cast(Lit("string", v, f"'{x}'"), ref) for v, x in zip(texts, items)]

    def operand(self) -> FieldRef | Lit:
        kind, value = self.peek()
        if kind == _NAME:
            self.i += 1
            try:
                return resolve_field(str(value), self.fields)
            except BindError:
                raise _Decline from None
        return self.literal()

    def literal(self) -> Lit:
        kind, value = self.take()
        if kind == _LIT:
            assert isinstance(value, Lit)
            return value
        if kind == _PUNCT and value == "-":
            kind, value = self.take()
            if kind != _LIT or not isinstance(value, Lit) or value.kind not in ("int", "decimal"):
                raise _Decline
            text = "-" + value.text
            if value.kind == "int":
                return Lit("int", -int(value.value), text)
            return Lit("decimal", value.value.copy_negate(), text)
        if kind == _KEYWORD:
            if value == "NULL":
                return Lit("null", None, "NULL")
            if value in ("TRUE", "FALSE"):
                return Lit("bool", value == "TRUE", str(value))
            if value in _TYPED:
                return self.typed(str(value))
        raise _Decline

    def typed(self, tname: str) -> Lit:
        """``DATE '…'`` / ``TIME '…'`` / ``TIMESTAMP '…'`` (sqlglot: a CAST of the string)."""
        kind, value = self.take()
        if kind != _LIT or not isinstance(value, Lit) or value.kind != "string":
            raise _Decline
        raw, text = str(value.value), f"{tname} {value.text}"
        try:
            if tname == "DATE":
                return Lit("date", parse_date_text(raw), text)
            if tname == "TIME":
                return Lit("time", parse_time_text(raw), text)
            ts, zulu = parse_timestamp_text(raw)
            return Lit("timestamp_ltz" if tname == "TIMESTAMP_LTZ" or zulu else "timestamp", ts, text)
        except BindError:
            raise _Decline from None


def parse_fast(text: str, fields: Sequence[DataField], expansion: InExpansion) -> Predicate | None:
    """``text`` (default dialect, any leading ``WHERE`` already blanked) as the sqlglot path would
    build it before flattening, or None when the fast path does not handle it."""
    toks = _tokens(text)
    if toks is None or len(toks) == 1:
        return None
    p = _Parser(toks, fields, expansion)
    try:
        pred = p.condition()
        if p.peek()[0] != _END:
            return None
    except _Decline:
        return None
    return pred
