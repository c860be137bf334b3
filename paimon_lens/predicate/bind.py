"""Binding predicate parts to a schema: column lookup, literal casts, LIKE and IN shapes.

This module is shared by the SQL parser (:mod:`.parser`) and the Python builder
(:mod:`.builder`). It knows nothing about SQL text; problems are raised as :class:`BindError`
(a reason and an optional hint), which both callers turn into a
:class:`~paimon_lens.predicate.parser.PredicateError` pointing at the offending fragment.

Literal casts follow Paimon (release-2.0.0):

* a literal of the column's own kind keeps its exact value (Flink's pushdown converts such
  literals with the column's converter, no rounding of timestamps);
* DECIMAL(p, s) columns round to scale ``s`` with HALF_UP and reject values needing more than
  ``p`` digits (``Decimal.fromBigDecimal`` returns null there; we raise instead);
* FLOAT columns hold the float32 value; DOUBLE columns the float64 value;
* a quoted string for a non-string column is cast the way ``TypeUtils.castFromString`` does
  (``Integer.valueOf`` syntax for integers, ``t/true/y/yes/1`` for booleans, ``yyyy-M-d[
  H:m:s[.f]]`` for dates/timestamps with the fraction truncated to the column precision, UTF-8
  bytes for binary columns);
* integers outside the column's range are errors (Paimon's ``Number.byteValue()`` would wrap
  300 to 44 silently; Flink would not push such a predicate at all).

TIMESTAMP WITH LOCAL TIME ZONE literals are read in UTC (the session time zone is UTC).
"""

from __future__ import annotations

import datetime as _dt
import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any, Literal

from ..errors import PaimonLensError
from ..metadata.casts import FALSE_STRINGS, TRUE_STRINGS
from ..types import EPOCH_DATE, DataField, DataType, Timestamp
from ..values import float32
from .model import CompoundFunction, CompoundPredicate, LeafFunction, LeafPredicate, Predicate

LitKind = Literal[
    "null", "bool", "int", "decimal", "float", "string", "binary", "date", "time", "timestamp", "timestamp_ltz",
]

#: How ``IN`` lists are shaped: a single ``In``/``NotIn`` leaf, or ``PredicateBuilder.in``'s
#: expansion of Paimon 0.9 (left-folded ``Or`` of ``Equal``) or 2.0 (balanced binary tree).
InExpansion = Literal["leaf", "0.9", "2.0"]

#: ``PredicateBuilder.in`` keeps an ``In`` leaf above this many literals.
IN_EXPANSION_LIMIT = 20

_INT_RANGE = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
}

_TRUE_STRINGS, _FALSE_STRINGS = TRUE_STRINGS, FALSE_STRINGS  # BinaryStringUtils.toBoolean

_JAVA_INT = re.compile(r"[+-]?\d+")
_JAVA_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_JAVA_DOUBLE_PARTS = re.compile(r"([+-]?)(?:(NaN)|(Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?)")
_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*")
_TIMESTAMP = re.compile(
    r"\s*(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?)?\s*(Z)?\s*"
)
_TIME = re.compile(r"\s*(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?\s*")


class BindError(PaimonLensError):
    """A predicate part that cannot be bound to the schema (no position information).

    ``reason`` says what is wrong, ``hint`` (optional) what to do about it. The parser and
    the builder re-raise it as ``PredicateError`` naming the offending fragment.
    """

    def __init__(self, reason: str, hint: str | None = None) -> None:
        self.reason = reason
        self.hint = hint
        super().__init__(reason + (f"; {hint}" if hint else ""))


@dataclass(frozen=True)
class Lit:
    """A literal before it is cast to a column type.

    ``kind`` says how it was written: ``int`` (exact Python int), ``decimal`` (a number written
    with a point or exponent, exact ``Decimal``), ``float`` (a Python float from the builder),
    ``string``, ``binary`` (bytes), ``bool``, ``null``, ``date`` (epoch day), ``time`` (millis
    of day), ``timestamp`` (wall-clock :class:`Timestamp`), ``timestamp_ltz`` (UTC instant).
    ``text`` is the literal as written, for messages.
    """

    kind: LitKind
    value: Any
    text: str


@dataclass(frozen=True)
class FieldRef:
    """A resolved column: its position in the row type and its field."""

    index: int
    field: DataField

    @property
    def name(self) -> str:
        """The column name as the schema spells it."""
        return self.field.name

    @property
    def type(self) -> DataType:
        """The column type."""
        return self.field.type

    def leaf(self, function: str, literals: tuple[Any, ...] = ()) -> LeafPredicate:
        """A leaf predicate on this column."""
        return LeafPredicate(LeafFunction(function), self.field.name, self.index, self.field.type, literals)


# ---- columns ---------------------------------------------------------------------------------

def resolve_field(name: str, fields: Sequence[DataField]) -> FieldRef:
    """Find a column: exact (case-sensitive) match first, then a unique case-insensitive one.

    Raises :class:`BindError` for an unknown or ambiguous name, suggesting close names.
    """
    for i, f in enumerate(fields):
        if f.name == name:
            return FieldRef(i, f)
    folded = [(i, f) for i, f in enumerate(fields) if f.name.casefold() == name.casefold()]
    if len(folded) == 1:
        return FieldRef(*folded[0])
    if len(folded) > 1:
        matches = ", ".join(repr(f.name) for _, f in folded)
        raise BindError(f"column name {name!r} is ambiguous",
                        f"it matches {matches} ignoring case; quote the exact name")
    names = [f.name for f in fields]
    by_fold = {n.casefold(): n for n in names}
    similar = difflib.get_close_matches(name.casefold(), list(by_fold), n=3, cutoff=0.6)
    if similar:
        hint = "did you mean " + " or ".join(repr(by_fold[c]) for c in similar) + "?"
    else:
        shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
        hint = f"columns are: {shown}" if names else "the schema has no columns"
    raise BindError(f"unknown column {name!r}", hint)


# ---- literal parsing helpers -----------------------------------------------------------------

def _date_days(y: int, m: int, d: int, text: str) -> int:
    try:
        return (_dt.date(y, m, d) - EPOCH_DATE).days
    except ValueError as e:
        raise BindError(f"{text!r} is not a valid date ({e})") from None


def parse_date_text(text: str) -> int:
    """``yyyy-M-d`` -> epoch day (raises :class:`BindError`)."""
    m = _DATE.fullmatch(text)
    if not m:
        raise BindError(f"{text!r} is not a date", "write it as 'YYYY-MM-DD'")
    return _date_days(int(m.group(1)), int(m.group(2)), int(m.group(3)), text)


def parse_time_text(text: str) -> int:
    """``H:m[:s[.fff]]`` -> milliseconds of the day (sub-millisecond digits dropped)."""
    m = _TIME.fullmatch(text)
    if not m:
        raise BindError(f"{text!r} is not a time", "write it as 'HH:MM:SS[.fff]'")
    h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if h > 23 or mi > 59 or s > 59:
        raise BindError(f"{text!r} is not a valid time")
    frac = (m.group(4) or "").ljust(3, "0")[:3]
    return ((h * 60 + mi) * 60 + s) * 1000 + int(frac)


def parse_timestamp_text(text: str) -> tuple[Timestamp, bool]:
    """``yyyy-M-d[( |T)H:m[:s[.f]]][Z]`` -> (Timestamp, has trailing Z)."""
    m = _TIMESTAMP.fullmatch(text)
    if not m:
        raise BindError(f"{text!r} is not a timestamp", "write it as 'YYYY-MM-DD HH:MM:SS[.fffffffff]'")
    days = _date_days(int(m.group(1)), int(m.group(2)), int(m.group(3)), text)
    h, mi, s = int(m.group(4) or 0), int(m.group(5) or 0), int(m.group(6) or 0)
    if h > 23 or mi > 59 or s > 59:
        raise BindError(f"{text!r} is not a valid timestamp")
    frac = (m.group(7) or "").ljust(9, "0")
    millis = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + int(frac[:3])
    return Timestamp(millis, int(frac[3:])), m.group(8) is not None


def _truncate(ts: Timestamp, precision: int | None) -> Timestamp:
    """Floor the fraction to ``precision`` digits (what Paimon's string -> timestamp cast does)."""
    p = 6 if precision is None else precision
    if p >= 9:
        return ts
    nanos = (ts.millisecond % 1000) * 1_000_000 + ts.nano_of_millisecond
    unit = 10 ** (9 - p)
    kept = nanos - nanos % unit
    return Timestamp(ts.millisecond - ts.millisecond % 1000 + kept // 1_000_000, kept % 1_000_000)


def number_from_text(text: str) -> int | Decimal:
    """A SQL numeric literal as written (``12``, ``1.25``, ``1.0E-300``) -> int or exact Decimal."""
    t = text.strip()
    if re.fullmatch(r"\d+", t):
        return int(t)
    if _JAVA_DECIMAL.fullmatch(t):
        return Decimal(t)
    raise BindError(f"{text!r} is not a number")


# ---- casting ---------------------------------------------------------------------------------

def _describe(ref: FieldRef) -> str:
    return f"column {ref.name!r} ({ref.type})"


def _cannot(lit: Lit, ref: FieldRef, why: str, hint: str | None = None) -> BindError:
    return BindError(f"cannot use {lit.text} as a value of {_describe(ref)}: {why}", hint)


def _to_int(lit: Lit, ref: FieldRef) -> int:
    root = ref.type.root
    lo, hi = _INT_RANGE[root]
    value: int
    if lit.kind == "int":
        value = int(lit.value)
    elif lit.kind == "string":
        s = str(lit.value)
        if not _JAVA_INT.fullmatch(s):
            raise _cannot(lit, ref, "not an integer")
        value = int(s)
    elif lit.kind in ("decimal", "float"):
        raise _cannot(lit, ref, "not an integer", "integer columns take integer literals (no decimal point)")
    else:
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not an integer")
    if not lo <= value <= hi:
        raise _cannot(lit, ref, f"out of range for {root} ({lo}..{hi})")
    return value


def _to_decimal(lit: Lit, ref: FieldRef) -> Decimal:
    precision = ref.type.precision if ref.type.precision is not None else 10
    scale = ref.type.scale if ref.type.scale is not None else 0
    if lit.kind == "int":
        d = Decimal(int(lit.value))
    elif lit.kind == "decimal":
        d = Decimal(lit.value)
    elif lit.kind == "float":
        f = float(lit.value)
        if not math.isfinite(f):
            raise _cannot(lit, ref, "not a finite number")
        d = Decimal(repr(f))
    elif lit.kind == "string":
        s = str(lit.value)
        if not _JAVA_DECIMAL.fullmatch(s):
            raise _cannot(lit, ref, "not a decimal number")
        d = Decimal(s)
    else:
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a number")
    with localcontext() as ctx:
        ctx.prec = 400
        try:
            q = d.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        except InvalidOperation:
            raise _cannot(lit, ref, f"does not fit DECIMAL({precision}, {scale})") from None
        digits = len(str(abs(int(q.scaleb(scale)))))
    if digits > precision:
        raise _cannot(lit, ref, f"needs {digits} digits after rounding to scale {scale}; "
                                f"DECIMAL({precision}, {scale}) holds {precision}")
    return q


def _to_float(lit: Lit, ref: FieldRef) -> float:
    value: float
    finite_in = True
    try:
        if lit.kind in ("int", "decimal", "float"):
            value = float(lit.value)
            finite_in = math.isfinite(value) or lit.kind != "float"
        elif lit.kind == "string":
            m = _JAVA_DOUBLE_PARTS.fullmatch(str(lit.value).strip())
            if not m:
                raise _cannot(lit, ref, "not a number")
            if m.group(2):
                value, finite_in = math.nan, False
            elif m.group(3):
                value, finite_in = (-math.inf if m.group(1) == "-" else math.inf), False
            else:
                value = float(m.group(1) + m.group(4))
        else:
            raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a number")
        if ref.type.root == "FLOAT":
            value = float32(value)
    except OverflowError:
        raise _cannot(lit, ref, f"out of range for {ref.type.root}") from None
    if finite_in and math.isinf(value):
        raise _cannot(lit, ref, f"out of range for {ref.type.root}")
    return value


def _kind_name(lit: Lit) -> str:
    return {
        "null": "NULL", "bool": "boolean", "int": "number", "decimal": "number", "float": "number",
        "string": "string", "binary": "binary literal", "date": "DATE literal", "time": "TIME literal",
        "timestamp": "TIMESTAMP literal", "timestamp_ltz": "TIMESTAMP_LTZ literal",
    }[lit.kind]


def cast_literal(lit: Lit, ref: FieldRef) -> Any:
    """Cast one literal to the internal value of the column's type (see the module docstring)."""
    if lit.kind == "null":
        return None
    t = ref.type
    root = t.root
    if t.is_nested:
        raise BindError(f"{_describe(ref)} cannot be compared with a literal",
                        "only IS NULL / IS NOT NULL work on nested columns")
    if root == "BOOLEAN":
        if lit.kind == "bool":
            return bool(lit.value)
        if lit.kind == "string" and str(lit.value).lower() in _TRUE_STRINGS | _FALSE_STRINGS:
            return str(lit.value).lower() in _TRUE_STRINGS
        raise _cannot(lit, ref, "not a boolean", "use TRUE or FALSE")
    if t.is_integral:
        return _to_int(lit, ref)
    if root == "DECIMAL":
        return _to_decimal(lit, ref)
    if root in ("FLOAT", "DOUBLE"):
        return _to_float(lit, ref)
    if t.is_string:
        if lit.kind == "string":
            return str(lit.value)
        hint = (f"quote it: '{lit.text}'" if lit.kind in ("int", "decimal", "float")
                else "compare with a quoted string" if lit.kind in ("date", "time", "timestamp", "timestamp_ltz")
                else None)
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a string", hint)
    if t.is_binary:
        if lit.kind == "binary":
            return bytes(lit.value)
        if lit.kind == "string":
            data = str(lit.value).encode("utf-8")
            if root == "VARBINARY" and t.length is not None and len(data) > t.length:
                raise _cannot(lit, ref, f"{len(data)} bytes do not fit {t}")
            return data
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not binary", "write bytes as X'0a0b'")
    if root == "DATE":
        if lit.kind == "date":
            return int(lit.value)
        if lit.kind == "string":
            try:
                return parse_date_text(str(lit.value))
            except BindError as e:
                raise _cannot(lit, ref, e.reason, e.hint) from None
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a date", "write DATE 'YYYY-MM-DD'")
    if root == "TIME":
        if lit.kind == "time":
            return int(lit.value)
        if lit.kind == "string":
            try:
                return parse_time_text(str(lit.value))
            except BindError as e:
                raise _cannot(lit, ref, e.reason, e.hint) from None
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a time", "write TIME 'HH:MM:SS'")
    if t.is_timestamp:
        if lit.kind in ("timestamp", "timestamp_ltz"):
            ts = lit.value
            if not isinstance(ts, Timestamp):
                raise _cannot(lit, ref, "not a timestamp")
            return ts
        if lit.kind == "date":
            return Timestamp(int(lit.value) * 86_400_000, 0)
        if lit.kind == "string":
            try:
                ts, zulu = parse_timestamp_text(str(lit.value))
            except BindError as e:
                raise _cannot(lit, ref, e.reason, e.hint) from None
            if zulu and root != "TIMESTAMP_LTZ":
                raise _cannot(lit, ref, "a zone suffix 'Z' needs a TIMESTAMP WITH LOCAL TIME ZONE column")
            return _truncate(ts, t.precision)
        raise _cannot(lit, ref, f"a {_kind_name(lit)} is not a timestamp",
                      "write TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fff]'")
    raise BindError(f"{_describe(ref)} cannot be compared with a literal")


def cast_literals(lits: Sequence[Lit], ref: FieldRef) -> tuple[Any, ...]:
    """Cast several literals to the column type."""
    return tuple(cast_literal(lit, ref) for lit in lits)


# ---- shapes ----------------------------------------------------------------------------------

def _binary_tree(function: str, preds: Sequence[Predicate]) -> Predicate:
    """Paimon 2.0 ``PredicateBuilder.buildBinaryTree``: split in the middle, recursively."""
    if len(preds) == 1:
        return preds[0]
    if len(preds) == 2:
        return CompoundPredicate(CompoundFunction(function), (preds[0], preds[1]))
    mid = len(preds) // 2
    return CompoundPredicate(CompoundFunction(function),
                             (_binary_tree(function, preds[:mid]), _binary_tree(function, preds[mid:])))


def _left_fold(function: str, preds: Sequence[Predicate]) -> Predicate:
    """Paimon 0.9 ``PredicateBuilder.or``: ``reduce((a, b) -> Or(a, b))``."""
    acc = preds[0]
    for p in preds[1:]:
        acc = CompoundPredicate(CompoundFunction(function), (acc, p))
    return acc


def in_predicate(ref: FieldRef, literals: tuple[Any, ...], negated: bool, expansion: InExpansion) -> Predicate:
    """``IN`` / ``NOT IN`` over cast literals.

    ``expansion="leaf"`` gives one ``In``/``NotIn`` leaf. ``"2.0"`` / ``"0.9"`` reproduce
    ``PredicateBuilder.in`` of that Paimon version: up to 20 literals become an ``Or`` of
    ``Equal`` leaves (2.0: balanced binary tree; 0.9: left fold), more (or none) an ``In``
    leaf; ``notIn`` is the negation (``And`` of ``NotEqual``, or a ``NotIn`` leaf).
    """
    pred: Predicate
    if expansion == "leaf" or len(literals) > IN_EXPANSION_LIMIT or not literals:
        pred = ref.leaf("In", literals)
    else:
        equals: list[Predicate] = [ref.leaf("Equal", (v,)) for v in literals]
        pred = _binary_tree("Or", equals) if expansion == "2.0" else _left_fold("Or", equals)
    if not negated:
        return pred
    neg = pred.negate()
    if neg is None:  # pragma: no cover - In / Or-of-Equal always negate
        raise BindError("NOT IN cannot be negated")
    return neg


def like_predicate(ref: FieldRef, pattern: str, escape: str | None = None) -> LeafPredicate:
    """``column LIKE pattern [ESCAPE escape]`` as Paimon 2.0's ``PredicateBuilder.like`` builds it.

    Without escapes, ``LikeOptimization`` applies: no ``_`` and no ``%`` -> ``Equal``;
    ``abc%`` -> ``StartsWith``; ``%abc`` -> ``EndsWith``; ``%abc%`` -> ``Contains``; anything
    else -> ``Like``. A pattern that uses its escape character (``\\`` by default) is kept as a
    ``Like`` leaf, rewritten to ``\\`` escapes (Paimon's ``Like`` convention); Paimon itself
    would run ``LikeOptimization`` on the raw text and treat ``'a\\%%'`` as ``StartsWith('a\\')``.
    """
    if not ref.type.is_string:
        raise BindError(f"LIKE needs a CHAR/VARCHAR/STRING column, {_describe(ref)} is not one")
    esc = "\\" if escape is None else escape
    if len(esc) != 1:
        raise BindError(f"invalid escape character {esc!r}", "ESCAPE takes exactly one character")
    if esc in pattern:
        out: list[str] = []
        i = 0
        while i < len(pattern):
            c = pattern[i]
            if c == esc:
                if i + 1 >= len(pattern) or pattern[i + 1] not in ("%", "_", esc):
                    raise BindError(f"invalid escape sequence in LIKE pattern {pattern!r} at {i}",
                                    f"{esc!r} must be followed by %, _ or {esc!r}")
                nxt = pattern[i + 1]
                out.append("\\" + nxt if nxt in "%_" else "\\\\" if nxt == "\\" else nxt)
                i += 2
                continue
            out.append("\\\\" if c == "\\" else c)
            i += 1
        return ref.leaf("Like", ("".join(out),))
    if "_" not in pattern:
        if re.fullmatch(r"[^%]+", pattern):
            return ref.leaf("Equal", (pattern,))
        m = re.fullmatch(r"([^%]+)%", pattern)
        if m:
            return ref.leaf("StartsWith", (m.group(1),))
        m = re.fullmatch(r"%([^%]+)", pattern)
        if m:
            return ref.leaf("EndsWith", (m.group(1),))
        m = re.fullmatch(r"%([^%]+)%", pattern)
        if m:
            return ref.leaf("Contains", (m.group(1),))
    # a literal backslash under a custom ESCAPE: Paimon's Like reads '\\' as its escape
    return ref.leaf("Like", (pattern.replace("\\", "\\\\"),))
