"""Paimon data types and the in-memory values paimon-lens uses for them.

Types are parsed from the forms Paimon writes in schema files (``"INT NOT NULL"``,
``"DECIMAL(10, 2)"``, ``"TIMESTAMP(6) WITH LOCAL TIME ZONE"``, ``{"type": "MAP", ...}``) and
from SQL-like column lists (``"c_int INT, c_string STRING"``).

Values follow Paimon's *internal* representation, so that decoders, predicates and indexes
agree on one form:

=====================  =====================================================
type                   Python value
=====================  =====================================================
BOOLEAN                ``bool``
TINYINT..BIGINT        ``int``
FLOAT, DOUBLE          ``float`` (FLOAT holds the exact float32 value)
DECIMAL                ``decimal.Decimal``
CHAR/VARCHAR/STRING    ``str``
BINARY/VARBINARY       ``bytes``
DATE                   ``int`` days since 1970-01-01
TIME                   ``int`` milliseconds of the day
TIMESTAMP(_LTZ)        :class:`Timestamp` (epoch millis + nanos of milli)
=====================  =====================================================
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Any

from .errors import PaimonLensError

EPOCH = _dt.datetime(1970, 1, 1)
EPOCH_DATE = _dt.date(1970, 1, 1)

MAX_LENGTH = 2147483647

INTEGRAL = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT"})
STRINGS = frozenset({"CHAR", "VARCHAR"})
BINARIES = frozenset({"BINARY", "VARBINARY"})
TIMESTAMPS = frozenset({"TIMESTAMP", "TIMESTAMP_LTZ"})
NESTED = frozenset({"ARRAY", "MULTISET", "MAP", "ROW", "VARIANT", "BLOB", "UNKNOWN"})
UNKNOWN = "UNKNOWN"
"""Root of a type paimon-lens does not model (``VECTOR<...>`` and whatever comes next): kept with its
raw text, treated like a nested type (no stats, no index, only IS [NOT] NULL in predicates)."""


class TypeParseError(PaimonLensError):
    """A type string that is not a Paimon data type."""


@dataclass(frozen=True)
class DataField:
    """A named field of a row type (``id`` is Paimon's field id, stable across renames)."""

    id: int
    name: str
    type: DataType
    description: str | None = None


@dataclass(frozen=True)
class DataType:
    """A Paimon data type.

    ``root`` is one of ``BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE DECIMAL CHAR VARCHAR
    BINARY VARBINARY DATE TIME TIMESTAMP TIMESTAMP_LTZ ARRAY MULTISET MAP ROW VARIANT BLOB``.
    """

    root: str
    nullable: bool = True
    length: int | None = None  # CHAR/VARCHAR/BINARY/VARBINARY
    precision: int | None = None  # DECIMAL, TIME, TIMESTAMP(_LTZ)
    scale: int | None = None  # DECIMAL
    element: DataType | None = None  # ARRAY, MULTISET
    key: DataType | None = None  # MAP
    value: DataType | None = None  # MAP
    fields: tuple[DataField, ...] = field(default=())  # ROW
    raw: str | None = None  # UNKNOWN: the type as the schema file spells it

    # ---- classification -------------------------------------------------------------------
    @property
    def is_string(self) -> bool:
        """CHAR, VARCHAR, STRING."""
        return self.root in STRINGS

    @property
    def is_binary(self) -> bool:
        """BINARY, VARBINARY, BYTES."""
        return self.root in BINARIES

    @property
    def is_integral(self) -> bool:
        """TINYINT, SMALLINT, INT, BIGINT."""
        return self.root in INTEGRAL

    @property
    def is_timestamp(self) -> bool:
        """TIMESTAMP or TIMESTAMP WITH LOCAL TIME ZONE."""
        return self.root in TIMESTAMPS

    @property
    def is_nested(self) -> bool:
        """ARRAY, MULTISET, MAP, ROW, VARIANT, BLOB."""
        return self.root in NESTED

    def copy(self, nullable: bool) -> DataType:
        """The same type with another nullability."""
        return DataType(self.root, nullable, self.length, self.precision, self.scale,
                        self.element, self.key, self.value, self.fields, self.raw)

    # ---- printing (Paimon's own spelling) -------------------------------------------------
    def __str__(self) -> str:
        r = self.root
        if r == "VARCHAR" and self.length == MAX_LENGTH:
            s = "STRING"
        elif r == "VARBINARY" and self.length == MAX_LENGTH:
            s = "BYTES"
        elif r in STRINGS or r in BINARIES:
            s = f"{r}({self.length})"
        elif r == "DECIMAL":
            s = f"DECIMAL({self.precision}, {self.scale})"
        elif r == "TIME":
            s = f"TIME({self.precision})"
        elif r == "TIMESTAMP":
            s = f"TIMESTAMP({self.precision})"
        elif r == "TIMESTAMP_LTZ":
            s = f"TIMESTAMP({self.precision}) WITH LOCAL TIME ZONE"
        elif r in ("ARRAY", "MULTISET"):
            s = f"{r}<{self.element}>"
        elif r == "MAP":
            s = f"MAP<{self.key}, {self.value}>"
        elif r == "ROW":
            s = "ROW<" + ", ".join(f"{f.name} {f.type}" for f in self.fields) + ">"
        elif r == UNKNOWN and self.raw is not None:
            s = self.raw
        else:
            s = r
        return s if self.nullable else s + " NOT NULL"

    def __repr__(self) -> str:
        return f"DataType({str(self)!r})"


# ---- parsing ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(`(?:[^`]|``)*`)|(\"(?:[^\"]|\"\")*\")|(.))")


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                break
            start = m.start(m.lastindex or 0)
            if m.group(1) is not None:
                self.toks.append(("num", m.group(1), start))
            elif m.group(2) is not None:
                self.toks.append(("id", m.group(2), start))
            elif m.group(3) is not None:
                self.toks.append(("id", m.group(3)[1:-1].replace("``", "`"), start))
            elif m.group(4) is not None:
                self.toks.append(("id", m.group(4)[1:-1].replace('""', '"'), start))
            elif m.group(5) is not None and not m.group(5).isspace():
                self.toks.append(("sym", m.group(5), start))
            pos = m.end()
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str, int] | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def word(self, k: int = 0) -> str | None:
        t = self.peek(k)
        return t[1].upper() if t and t[0] == "id" else None

    def next(self) -> tuple[str, str, int]:
        t = self.peek()
        if t is None:
            raise self.fail("unexpected end")
        self.i += 1
        return t

    def accept(self, sym: str) -> bool:
        t = self.peek()
        if t and t[0] != "num" and t[1].upper() == sym:
            self.i += 1
            return True
        return False

    def expect(self, sym: str) -> None:
        if not self.accept(sym):
            raise self.fail(f"expected {sym!r}")

    def number(self) -> int:
        t = self.next()
        if t[0] != "num":
            raise self.fail("expected a number", t[2])
        return int(t[1])

    def fail(self, msg: str, at: int | None = None) -> TypeParseError:
        if at is None:
            t = self.peek()
            at = t[2] if t else len(self.text)
        return TypeParseError(f"{msg} at position {at} in type {self.text!r}")


_SIMPLE = {
    "BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT",
    "INT": "INT", "INTEGER": "INT", "BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE",
    "DATE": "DATE", "VARIANT": "VARIANT", "BLOB": "BLOB", "REAL": "FLOAT",
}


def _parse_type(t: _Tokens) -> DataType:
    tok = t.next()
    if tok[0] != "id":
        raise t.fail("expected a type name", tok[2])
    name = tok[1].upper()
    dt: DataType
    if name in _SIMPLE:
        dt = DataType(_SIMPLE[name])
        if name == "DOUBLE" and t.word() == "PRECISION":
            t.next()
    elif name == "STRING":
        dt = DataType("VARCHAR", length=MAX_LENGTH)
    elif name == "BYTES":
        dt = DataType("VARBINARY", length=MAX_LENGTH)
    elif name in ("CHAR", "VARCHAR", "BINARY", "VARBINARY", "CHARACTER"):
        root = "CHAR" if name == "CHARACTER" else name
        n = 1
        if t.accept("("):
            n = t.number()
            t.expect(")")
        dt = DataType(root, length=n)
    elif name in ("DECIMAL", "DEC", "NUMERIC"):
        p, s = 10, 0
        if t.accept("("):
            p = t.number()
            if t.accept(","):
                s = t.number()
            t.expect(")")
        dt = DataType("DECIMAL", precision=p, scale=s)
    elif name == "TIME":
        p = 0
        if t.accept("("):
            p = t.number()
            t.expect(")")
        if t.word() == "WITHOUT":
            for w in ("WITHOUT", "TIME", "ZONE"):
                t.expect(w)
        dt = DataType("TIME", precision=p)
    elif name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = 6
        if t.accept("("):
            p = t.number()
            t.expect(")")
        root = "TIMESTAMP" if name == "TIMESTAMP" else "TIMESTAMP_LTZ"
        if t.word() == "WITH" and t.word(1) == "LOCAL":
            for w in ("WITH", "LOCAL", "TIME", "ZONE"):
                t.expect(w)
            root = "TIMESTAMP_LTZ"
        elif t.word() == "WITHOUT":
            for w in ("WITHOUT", "TIME", "ZONE"):
                t.expect(w)
        elif t.word() == "WITH":
            raise t.fail("TIMESTAMP WITH TIME ZONE is not a Paimon type")
        dt = DataType(root, precision=p)
    elif name in ("ARRAY", "MULTISET"):
        t.expect("<")
        el = _parse_type(t)
        t.expect(">")
        dt = DataType(name, element=el)
    elif name == "MAP":
        t.expect("<")
        k = _parse_type(t)
        t.expect(",")
        v = _parse_type(t)
        t.expect(">")
        dt = DataType("MAP", key=k, value=v)
    elif name == "ROW":
        t.expect("<") if t.peek() and t.peek()[1] == "<" else t.expect("(")  # type: ignore[index]
        close = ">" if t.toks[t.i - 1][1] == "<" else ")"
        fields: list[DataField] = []
        i = 0
        while not t.accept(close):
            if fields:
                t.expect(",")
            fname = t.next()
            fields.append(DataField(i, fname[1], _parse_type(t)))
            i += 1
        dt = DataType("ROW", fields=tuple(fields))
    else:
        raise t.fail(f"unknown type {tok[1]!r}", tok[2])
    if t.word() == "NOT" and t.word(1) == "NULL":
        t.next()
        t.next()
        dt = dt.copy(False)
    elif t.word() == "NULL":
        t.next()
    return dt


def parse_type(text: str) -> DataType:
    """Parse one type written the way Paimon writes it (``"DECIMAL(10, 2) NOT NULL"``)."""
    t = _Tokens(text)
    dt = _parse_type(t)
    if t.peek() is not None:
        raise t.fail("unexpected text after the type")
    return dt


def parse_row_type(text: str) -> list[DataField]:
    """Parse a column list ``"a INT, b STRING NOT NULL, c MAP<STRING, INT>"``."""
    t = _Tokens(text)
    fields: list[DataField] = []
    while t.peek() is not None:
        if fields:
            t.expect(",")
        tok = t.next()
        if tok[0] != "id":
            raise t.fail("expected a column name", tok[2])
        fields.append(DataField(len(fields), tok[1], _parse_type(t)))
    return fields


def _unknown_type(text: str) -> DataType:
    """A type paimon-lens does not model, kept by its raw text."""
    raw = text.strip()
    nullable = not raw.upper().endswith(" NOT NULL")
    return DataType(UNKNOWN, nullable, raw=raw if nullable else raw[: -len(" NOT NULL")].rstrip())


def type_from_json(obj: Any) -> DataType:
    """Decode a type as Paimon writes it in schema JSON (a string or a nested object).

    A type name paimon-lens does not know (``VECTOR<FLOAT, 3>``, a future type) becomes an
    :data:`UNKNOWN` type that keeps its text, so the rest of the table still opens.
    """
    if isinstance(obj, str):
        try:
            return parse_type(obj)
        except TypeParseError as e:
            if "unknown type" not in str(e):
                raise
            return _unknown_type(obj)
    if not isinstance(obj, dict) or "type" not in obj:
        raise TypeParseError(f"not a Paimon type: {obj!r}")
    kind = str(obj["type"]).upper()
    nullable = True
    if kind.endswith(" NOT NULL"):
        kind, nullable = kind[: -len(" NOT NULL")], False
    if kind in ("ARRAY", "MULTISET"):
        return DataType(kind, nullable, element=type_from_json(obj["element"]))
    if kind == "MAP":
        return DataType("MAP", nullable, key=type_from_json(obj["key"]), value=type_from_json(obj["value"]))
    if kind == "ROW":
        return DataType("ROW", nullable, fields=tuple(field_from_json(f) for f in obj.get("fields", [])))
    try:
        return parse_type(str(obj["type"]))
    except TypeParseError as e:
        if "unknown type" not in str(e):
            raise
        import json

        return _unknown_type(str(obj["type"]) if len(obj) == 1 else json.dumps(obj, sort_keys=True))


def field_from_json(obj: dict[str, Any]) -> DataField:
    """Decode a field ``{"id", "name", "type", "description"?}`` of a schema file."""
    return DataField(int(obj["id"]), str(obj["name"]), type_from_json(obj["type"]), obj.get("description"))


# ---- values ----------------------------------------------------------------------------------

@total_ordering
@dataclass(frozen=True)
class Timestamp:
    """Paimon's ``Timestamp``: epoch milliseconds plus nanoseconds within the millisecond."""

    millisecond: int
    nano_of_millisecond: int = 0

    @staticmethod
    def from_micros(micros: int) -> Timestamp:
        """From epoch microseconds."""
        ms, us = divmod(micros, 1000)
        return Timestamp(ms, us * 1000)

    @staticmethod
    def from_millis(millis: int) -> Timestamp:
        """From epoch milliseconds."""
        return Timestamp(millis, 0)

    @staticmethod
    def from_datetime(value: _dt.datetime, nanos: int | None = None) -> Timestamp:
        """From a naive datetime (taken as is; an aware one is converted to UTC first)."""
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC).replace(tzinfo=None)
        delta = value - EPOCH
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        ts = Timestamp.from_micros(micros)
        if nanos is not None:
            ts = Timestamp(ts.millisecond, (ts.nano_of_millisecond // 1000) * 1000 + nanos % 1000)
        return ts

    def to_millis(self) -> int:
        """Epoch milliseconds (what indexes use for precision <= 3)."""
        return self.millisecond

    def to_micros(self) -> int:
        """Epoch microseconds (what indexes use for precision > 3)."""
        return self.millisecond * 1000 + self.nano_of_millisecond // 1000

    def to_datetime(self) -> _dt.datetime:
        """A naive datetime (sub-microsecond digits dropped)."""
        return EPOCH + _dt.timedelta(microseconds=self.to_micros())

    def isoformat(self, precision: int = 6) -> str:
        """``YYYY-MM-DDTHH:MM:SS.fff`` (p <= 3), ``.ffffff`` (p <= 6) or ``.fffffffff``."""
        d = EPOCH + _dt.timedelta(milliseconds=self.millisecond)
        base = d.strftime("%Y-%m-%dT%H:%M:%S") if d.year >= 1000 else (
            f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}")
        nanos = (self.millisecond % 1000) * 1_000_000 + self.nano_of_millisecond
        if precision <= 3:
            return f"{base}.{nanos // 1_000_000:03d}"
        if precision <= 6:
            return f"{base}.{nanos // 1000:06d}"
        return f"{base}.{nanos:09d}"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Timestamp):
            return NotImplemented
        return (self.millisecond, self.nano_of_millisecond) < (other.millisecond, other.nano_of_millisecond)

    def __str__(self) -> str:
        return self.isoformat(9 if self.nano_of_millisecond % 1000 else 6)


def date_from_days(days: int) -> _dt.date:
    """Epoch day -> date."""
    return EPOCH_DATE + _dt.timedelta(days=days)


def days_from_date(value: _dt.date) -> int:
    """Date -> epoch day."""
    return (value - EPOCH_DATE).days
