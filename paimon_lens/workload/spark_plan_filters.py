"""The filters of a Spark SQL execution's table scans, read from its recorded physical plan.

Spark records each SQL execution's plan in its event log (``SparkListenerSQLExecutionStart``:
``sparkPlanInfo``, a tree of ``nodeName``, ``simpleString``, ``metadata`` and ``children``). When an
execution carries no statement text (a DataFrame call) or a statement with parameter markers, the
filters Spark applied to each scan are the predicate the query put on that table:

* the scan node: ``Scan <format> [<table>]`` (file sources; ``metadata`` has ``PartitionFilters``,
  ``DataFilters``, ``ReadSchema`` and ``Location``) or ``BatchScan <table>`` (DataSource V2, such as
  Paimon's Spark connector);
* the ``Filter`` node directly above it (through ``ColumnarToRow``, ``InputAdapter``,
  ``WholeStageCodegen``) holds every condition on the scan's rows; a file scan's
  ``PartitionFilters`` add the partition conditions, which no ``Filter`` node repeats.

Conditions are Catalyst expressions as Spark prints them: attributes carry expression ids
(``country#2``), comparisons are parenthesised (``(score#4 > 1)``), and literals are unquoted
(``(country#2 = D E)``). They are turned back into SQL with the scan's ``ReadSchema`` types
(strings, dates and timestamps quoted; a column the schema does not list, such as a partition
column, is quoted unless the value is a number). Supported: ``AND``, ``OR``, ``NOT``, the
comparisons, ``IN``/``INSET``, ``isnull``/``isnotnull``, ``StartsWith``/``EndsWith``/``Contains``,
``LIKE``, and ``cast`` of a column to a numeric type. A conjunct in any other form (functions of
columns, column-to-column comparisons, a literal with unbalanced parentheses) is left out and
counted. A conjunct ``isnotnull(c)`` is dropped: Spark infers one from every null-intolerant
condition and join key, so in a plan it cannot be told from one the query wrote.

The table of a scan is the name the plan gives it (``spark_catalog.db.t``, ``paimon.db.t``), else
the Paimon table directory of its ``Location`` (``<warehouse>/<db>.db/<table>/dt=.../bucket-N/...``
gives ``db.table``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_ATTR = re.compile(r"([A-Za-z_][\w$]*)#\d+L?")
_COMPARISON = re.compile(r" (<=>|!=|<>|<=|>=|=|<|>) ")
_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_STRING_TYPES = ("string", "varchar", "char")
_NUMERIC_TYPES = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "byte", "short", "long")
_PASS_THROUGH = ("WholeStageCodegen", "InputAdapter", "ColumnarToRow", "Project", "ReusedExchange",
                 "AQEShuffleRead", "CometColumnarToRow")


class Unsupported(Exception):
    """A Catalyst expression this module does not turn into SQL."""


@dataclass(frozen=True)
class ScanFilter:
    """One table scan of a plan: the table, its predicate as SQL (None: no filter), and the number
    of conjuncts left out because they could not be turned into SQL."""

    table: str
    where: str | None
    unsupported: int = 0


# ---- Catalyst expressions -> SQL ---------------------------------------------------------------

Node = tuple[Any, ...]  # ("and"|"or", [nodes]) | ("not", node) | ("leaf", sql, column) | ("col", name)


class _Parser:
    def __init__(self, text: str, types: dict[str, str]) -> None:
        self.s = text.strip()
        self.i = 0
        self.types = types

    def parse(self) -> Node:
        node = self.expr()
        if self.i != len(self.s):
            raise Unsupported(self.s[self.i:])
        return node

    def expr(self) -> Node:
        left = self.unary()
        while True:
            for word, kind in ((" AND ", "and"), (" OR ", "or")):
                if self.s.startswith(word, self.i):
                    self.i += len(word)
                    right = self.unary()
                    left = (kind, _flat(kind, left) + _flat(kind, right))
                    break
            else:
                return left

    def unary(self) -> Node:
        s = self.s
        if s.startswith("NOT ", self.i):
            self.i += 4
            return ("not", self.unary())
        if s.startswith("(", self.i):
            self.i += 1
            left = self.unary()
            m = _COMPARISON.match(s, self.i)
            if m is not None:
                self.i = m.end()
                return self._comparison(left, m.group(1))
            while True:  # (a AND b), (a OR b)
                for word, kind in ((" AND ", "and"), (" OR ", "or")):
                    if s.startswith(word, self.i):
                        self.i += len(word)
                        left = (kind, _flat(kind, left) + _flat(kind, self.unary()))
                        break
                else:
                    break
            self._expect(")")
            return left
        return self.operand()

    def operand(self) -> Node:
        s = self.s
        m = re.compile(r"(\w+)\(").match(s, self.i)
        if m is not None:
            name = m.group(1).lower()
            self.i = m.end()
            if name in ("isnull", "isnotnull"):
                col = self._column()
                self._expect(")")
                return ("leaf", f"{col} IS {'NOT ' if name == 'isnotnull' else ''}NULL", col, name)
            if name in ("startswith", "endswith", "contains"):
                col = self._column()
                self._expect(", ")
                value = self._until_close()
                self._expect(")")
                pattern = {"startswith": "{}%", "endswith": "%{}", "contains": "%{}%"}[name].format(
                    value.replace("%", "\\%").replace("_", "\\_"))
                return ("leaf", f"{col} LIKE {_quote(pattern)}", col, "like")
            if name == "cast":
                col = self._column()
                m2 = re.compile(r" as (\w+)[^)]*\)").match(s, self.i)
                if m2 is None or not m2.group(1).lower().startswith(_NUMERIC_TYPES):
                    raise Unsupported(s[m.start():])
                self.i = m2.end()
                return ("col", col)
            raise Unsupported(s[m.start():])
        col = self._column()
        if s.startswith(" IN (", self.i):
            self.i += 5
            values = self._until_close()
            self._expect(")")
            return ("leaf", f"{col} IN ({', '.join(self._literal(col, v) for v in _split(values))})", col, "in")
        if s.startswith(" INSET ", self.i):
            self.i += 7
            if s.startswith("(", self.i):
                self.i += 1
                values = self._until_close()
                self._expect(")")
            else:
                values = self._until_close()
            return ("leaf", f"{col} IN ({', '.join(self._literal(col, v) for v in _split(values))})", col, "in")
        if s.startswith(" LIKE ", self.i):
            self.i += 6
            return ("leaf", f"{col} LIKE {_quote(self._until_close())}", col, "like")
        return ("col", col)

    def _comparison(self, left: Node, op: str) -> Node:
        if left[0] == "col":
            if _ATTR.match(self.s, self.i) or re.compile(r"\w+\(").match(self.s, self.i):
                raise Unsupported("a comparison of two columns")
            value = self._until_close()
            self._expect(")")
            col = left[1]
        else:  # literal op column
            raise Unsupported("a literal on the left")
        if op == "<=>":
            op = "="
        if value == "null":
            raise Unsupported("a comparison with null")
        return ("leaf", f"{col} {'!=' if op == '<>' else op} {self._literal(col, value)}", col, "cmp")

    def _column(self) -> str:
        m = _ATTR.match(self.s, self.i)
        if m is None:
            raise Unsupported(self.s[self.i:])
        self.i = m.end()
        return m.group(1)

    def _expect(self, text: str) -> None:
        if not self.s.startswith(text, self.i):
            raise Unsupported(self.s[self.i:])
        self.i += len(text)

    def _until_close(self) -> str:
        """The text up to the ``)`` that closes the current parenthesis (nested pairs kept)."""
        depth, j = 0, self.i
        while j < len(self.s):
            c = self.s[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        else:
            raise Unsupported("unbalanced parentheses")
        text, self.i = self.s[self.i:j], j
        return text

    def _literal(self, col: str, value: str) -> str:
        kind = self.types.get(col, "").lower()
        if kind.startswith(_STRING_TYPES):
            return _quote(value)
        if kind == "date":
            return f"DATE {_quote(value)}"
        if kind.startswith("timestamp"):
            return f"TIMESTAMP {_quote(value)}"
        if kind.startswith(_NUMERIC_TYPES) or kind == "boolean":
            return value
        if _NUMBER.fullmatch(value) or value in ("true", "false"):
            return value
        return _quote(value)


def _flat(kind: str, node: Node) -> list[Node]:
    return list(node[1]) if node[0] == kind else [node]


def _split(values: str) -> list[str]:
    return [v.strip() for v in values.split(",")] if values.strip() else []


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _sql(node: Node, top: bool = False) -> str:
    kind = node[0]
    if kind == "leaf":
        return str(node[1])
    if kind == "not":
        return f"NOT ({_sql(node[1])})"
    if kind in ("and", "or"):
        text = f" {kind.upper()} ".join(_sql(n) for n in node[1])
        return text if top else f"({text})"
    raise Unsupported("a bare column")


def conjuncts_sql(conditions: list[str], types: dict[str, str]) -> tuple[list[str], int]:
    """The SQL of the conjuncts of Catalyst ``conditions`` (each a whole condition), duplicates once,
    ``isnotnull`` conjuncts dropped; and how many conjuncts could not be turned into SQL."""
    nodes: list[Node] = []
    unsupported = 0
    for text in conditions:
        for part in _top_level_and(text):
            try:
                nodes += _flat("and", _Parser(part, types).parse())
            except Unsupported:
                unsupported += 1
    out: list[str] = []
    for n in nodes:
        if n[0] == "leaf" and n[3] == "isnotnull":
            continue  # inferred by Spark from null-intolerant conditions and join keys
        try:
            text = _sql(n, top=n[0] != "or")
        except Unsupported:
            unsupported += 1
            continue
        if text not in out:
            out.append(text)
    return out, unsupported


def _top_level_and(text: str) -> list[str]:
    """A condition's outermost ``AND`` operands, found by parentheses alone (Catalyst nests them
    left-deep: ``((a AND b) AND c)``), so that one conjunct in an unsupported form leaves the others."""
    s = text.strip()
    while s.startswith("(") and s.endswith(")") and _closing(s, 0) == len(s) - 1:
        s = s[1:-1]
    depth, parts, start = 0, [], 0
    for j, c in enumerate(s):
        depth += (c == "(") - (c == ")")
        if depth == 0 and s.startswith(" AND ", j):
            parts.append(s[start:j])
            start = j + 5
    if not parts:
        return [text.strip()]
    parts.append(s[start:])
    out: list[str] = []
    for p in parts:
        out += _top_level_and(p)
    return out


def _closing(s: str, start: int) -> int:
    depth = 0
    for j in range(start, len(s)):
        depth += (s[j] == "(") - (s[j] == ")")
        if depth == 0:
            return j
    return -1


# ---- plans -> scans -----------------------------------------------------------------------------

def _list_items(text: str) -> list[str]:
    """``[a, b(c, d), e]`` -> ``["a", "b(c, d)", "e"]`` (commas inside parentheses kept)."""
    s = text.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1]
    items, depth, start = [], 0, 0
    for j, c in enumerate(s):
        depth += (c == "(") - (c == ")")
        if depth == 0 and s.startswith(", ", j):
            items.append(s[start:j])
            start = j + 2
    items.append(s[start:])
    return [i.strip() for i in items if i.strip()]


def read_schema_types(schema: str) -> dict[str, str]:
    """``struct<id:bigint,m:map<string,int>,p:decimal(10,2)>`` -> ``{"id": "bigint", ...}``."""
    s = schema.strip()
    if not s.startswith("struct<") or not s.endswith(">"):
        return {}
    body, out, depth, start = s[7:-1], {}, 0, 0
    fields = []
    for j, c in enumerate(body):
        depth += (c in "<(") - (c in ">)")
        if depth == 0 and c == ",":
            fields.append(body[start:j])
            start = j + 1
    fields.append(body[start:])
    for f in fields:
        name, _, kind = f.partition(":")
        if name and kind:
            out[name.strip("`")] = kind
    return out


_PARTITION_DIR = re.compile(r"[^/=]+=[^/]*|bucket-\d+|bucket-postpone")


def table_of_location(location: str) -> str | None:
    """The Paimon table a scan's ``Location`` reads: ``db.table`` for ``<wh>/<db>.db/<table>/...``,
    else the table directory's name."""
    m = re.search(r"\[([^,\]]+)", location)
    path = (m.group(1) if m else location).strip()
    path = re.sub(r"^[a-z][\w+.-]*:(//[^/]*)?", "", path).rstrip("/")
    parts = [p for p in path.split("/") if p]
    if parts and "." in parts[-1] and not _PARTITION_DIR.fullmatch(parts[-1]):
        parts = parts[:-1]  # a data file
    while parts and _PARTITION_DIR.fullmatch(parts[-1]):
        parts = parts[:-1]
    if not parts:
        return None
    if len(parts) >= 2 and parts[-2].endswith(".db") and len(parts[-2]) > 3:
        return f"{parts[-2][:-3]}.{parts[-1]}"
    return parts[-1]


def _scan_table(node: dict[str, Any]) -> str | None:
    name = str(node.get("nodeName", "")).strip()
    if name.startswith("BatchScan"):  # BatchScan <catalog>.<db>.<table>
        ident = name[len("BatchScan"):].split("[", 1)[0].strip()
        if ident:
            return ident.replace("`", "")
    elif name.startswith("Scan "):  # Scan <format> [<table>]
        words = name[len("Scan "):].split()
        if len(words) >= 2:
            return words[1].replace("`", "")
    location = (node.get("metadata") or {}).get("Location")
    return table_of_location(str(location)) if location else None


def _is_scan(node: dict[str, Any]) -> bool:
    name = str(node.get("nodeName", ""))
    return name.startswith(("Scan ", "BatchScan", "FileScan")) or name == "Scan"


def _filter_condition(node: dict[str, Any]) -> str | None:
    text = str(node.get("simpleString", ""))
    return text[len("Filter "):] if text.startswith("Filter ") else None


def scan_filters(plan: dict[str, Any]) -> list[ScanFilter]:
    """Every table scan of a ``sparkPlanInfo`` tree with the predicate Spark applied to it."""
    out: list[ScanFilter] = []

    def walk(node: dict[str, Any], above: list[str]) -> None:
        if _is_scan(node):
            table = _scan_table(node)
            if table is not None:
                meta = node.get("metadata") or {}
                types = read_schema_types(str(meta.get("ReadSchema", "")))
                conditions = _list_items(str(meta.get("PartitionFilters", "[]")))
                conditions += above if above else _list_items(str(meta.get("DataFilters", "[]")))
                sql, bad = conjuncts_sql(conditions, types)
                out.append(ScanFilter(table, " AND ".join(sql) or None, bad))
            return
        condition = _filter_condition(node)
        for child in node.get("children") or []:
            if condition is not None:
                walk(child, [*above, condition])
            elif str(node.get("nodeName", "")).startswith(_PASS_THROUGH):
                walk(child, above)
            else:
                walk(child, [])

    walk(plan, [])
    return out
