"""Workloads from where queries are already recorded: SQL history files and Spark event logs.

Each statement is parsed with sqlglot (Spark dialect by default). For every ``SELECT`` (CTEs and
subqueries included) the tables of its ``FROM`` and ``JOIN`` are resolved through their aliases
(and through the CTEs and derived tables Spark pushes filters through, see :func:`predicates_of`),
and the ``WHERE`` conjuncts that name only columns of one table scan (and literals) make that
scan's predicate, in the table's column names. Conditions with parameter markers are left out and
counted. Predicates are grouped into templates (literals replaced by ``?``); each template becomes
one workload line: its most frequent literal values, weighted by how many statements used it.

Sources:

* a SQL history file: statements separated by ``;`` (or one per line);
* Spark event logs (``spark.eventLog.enabled``): JSON lines, plain, gzip or zstd compressed, a
  directory of logs or rolling-log directories; each ``SparkListenerSQLExecutionStart`` whose
  ``description`` is SQL text (what the Spark SQL CLI, the Thrift server and
  ``SparkContext.setJobDescription(sql)`` record) is a statement. Executions described otherwise
  (DataFrame calls such as ``collect at <stdin>:1``), and statements with parameter markers, are
  read from the recorded physical plan: the filters Spark applied to each table scan
  (:mod:`paimon_lens.workload.spark_plan_filters`). Executions with neither are counted as skipped.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PaimonLensError
from .model import Workload, WorkloadQuery
from .spark_plan_filters import ScanFilter, scan_filters

SQL_EXECUTION_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
STATEMENT_KINDS = ("select", "union", "with", "subquery", "insert", "create")
"""sqlglot statement kinds whose text counts as a statement (an execution described by anything
else, such as ``collect at <stdin>:1``, is read from its plan)."""


@dataclass
class ExtractedWorkloads:
    """Per table (as the statements or plans name it), its workload; and what was read and left out.

    ``statements`` counts the statements read (for event logs: executions with statement text),
    ``plans`` the executions whose predicates came from their plan's scan filters.
    """

    workloads: dict[str, Workload]
    statements: int = 0
    skipped: list[str] = field(default_factory=list)
    plans: int = 0

    def for_table(self, table: str) -> Workload:
        """The workload of ``table``: a name as the statements use it, or ``db.table``.

        Names that are the same table written with more or fewer qualifiers (``events20``,
        ``db.events20``, ``spark_catalog.db.events20``) are one table, their queries merged; a name
        that matches tables of two databases is ambiguous (and a statement naming the table alone
        then counts for neither).
        """
        if table in self.workloads and not any(_same_table(table, n) for n in self.workloads if n != table):
            return self.workloads[table]
        names = [n for n in self.workloads if _same_table(table, n)
                 and all(_same_table(table, m) for m in self.workloads if _same_table(n, m))]  # n not ambiguous
        if not names:
            raise PaimonLensError(f"no query of the recorded statements reads table {table!r}: they read "
                                  f"{', '.join(sorted(self.workloads)) or 'no table'}")
        longest = max(names, key=lambda n: n.count("."))
        if not all(_same_table(longest, n) for n in names):
            raise PaimonLensError(f"table {table!r} is ambiguous: the statements read {', '.join(sorted(names))}; "
                                  "name it with its database")
        if len(names) == 1:
            return self.workloads[names[0]]
        weights: dict[str, float] = defaultdict(float)
        for n in names:
            for q in self.workloads[n]:
                weights[q.where] += q.weight
        queries = tuple(WorkloadQuery(w, weight) for w, weight in sorted(weights.items(), key=lambda kv: -kv[1]))
        return Workload(queries, source=f"{self.workloads[names[0]].source.rsplit(' (', 1)[0]} ({longest})")


def _same_table(a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` can be the same table (one is the other with fewer qualifiers)."""
    pa, pb = a.lower().split("."), b.lower().split(".")
    n = min(len(pa), len(pb))
    return pa[-n:] == pb[-n:]


def _table_name(table: Any) -> str:
    parts = [p.name for p in (table.args.get("catalog"), table.args.get("db")) if p is not None]
    return ".".join([*parts, table.name])


def _conjuncts(condition: Any) -> list[Any]:
    from sqlglot import exp

    if isinstance(condition, exp.And):
        return _conjuncts(condition.left) + _conjuncts(condition.right)
    if isinstance(condition, exp.Paren):
        return _conjuncts(condition.this)
    return [condition]


@dataclass
class _Source:
    """What a FROM item scans: a base table, how the item's column names map to the table's
    (``None``: a computed column, not a scan column), and the conditions its definition already
    puts on the scan (a CTE's or derived table's own WHERE, in the table's column names)."""

    table: str
    columns: dict[str, str | None] = field(default_factory=dict)
    star: bool = True
    conditions: list[Any] = field(default_factory=list)

    def column(self, name: str) -> str | None:
        if name in self.columns:
            return self.columns[name]
        return name if self.star else None


class _Scans:
    """The table scans of one statement and the conjuncts each applies (see :func:`predicates_of`)."""

    def __init__(self, tree: Any) -> None:
        from sqlglot import exp

        self.exp = exp
        self.ctes = {c.alias_or_name: c.this for c in tree.find_all(exp.CTE)}
        self.inlined: set[int] = set()  # SELECTs read as part of the scan of the query naming them
        self.parameters = 0
        for body in self.ctes.values():
            if self._simple(body):
                self.inlined.add(id(body))
        for sub in tree.find_all(exp.Subquery):
            if isinstance(sub.parent, (exp.From, exp.Join)) and self._simple(sub.this):
                self.inlined.add(id(sub.this))

    def _simple(self, select: Any) -> bool:
        """A SELECT whose WHERE Spark pushes down to its one table: no join, grouping, aggregate,
        window, DISTINCT or LIMIT."""
        exp = self.exp
        if not isinstance(select, exp.Select) or select.args.get("joins"):
            return False
        if any(select.args.get(k) for k in ("group", "having", "distinct", "limit", "qualify", "offset")):
            return False
        return not any(e.find(exp.AggFunc, exp.Window) for e in select.expressions)

    def source(self, item: Any, depth: int = 0) -> _Source | None:
        """The scan behind a FROM/JOIN item (None: not a table scan this module follows)."""
        exp = self.exp
        if depth > 32:
            return None
        if isinstance(item, exp.Table) and item.name not in self.ctes:
            return _Source(_table_name(item))
        body = self.ctes.get(item.name) if isinstance(item, exp.Table) else (
            item.this if isinstance(item, exp.Subquery) else None)
        if body is None or id(body) not in self.inlined:
            return None
        frm = body.args.get("from_") or body.args.get("from")
        inner = self.source(frm.this, depth + 1) if frm is not None else None
        if inner is None:
            return None
        alias = frm.this.alias_or_name
        out = _Source(inner.table, star=False, conditions=list(inner.conditions))
        for projection in body.expressions:
            if isinstance(projection, exp.Star) or (
                    isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)):
                out.star = inner.star
                out.columns.update(inner.columns)
            elif isinstance(projection, exp.Alias) and isinstance(projection.this, exp.Column):
                out.columns[projection.alias] = inner.column(projection.this.name)
            elif isinstance(projection, exp.Column):
                out.columns[projection.name] = inner.column(projection.name)
            else:
                out.columns[projection.alias_or_name] = None
        where = body.args.get("where")
        if where is not None:
            for c in _conjuncts(where.this):
                mapped = self.mapped(c, {alias: inner} if alias else {}, inner)
                if mapped is not None:
                    out.conditions.append(mapped)
        return out

    def mapped(self, condition: Any, sources: dict[str, _Source], only: _Source | None) -> Any:
        """``condition`` in its scan's column names, or None (not a scan filter)."""
        exp = self.exp
        if condition.find(exp.Subquery, exp.Select) is not None:
            return None  # a condition on another query
        if condition.find(exp.Placeholder, exp.Parameter) is not None:
            self.parameters += 1  # a parameter marker: the value is not in the statement
            return None
        cond = condition.copy()
        columns = list(cond.find_all(exp.Column))
        if not columns:
            return None
        for col in columns:
            src = sources.get(col.table) if col.table else only
            name = src.column(col.name) if src is not None else None
            if name is None:
                return None
            col.set("table", None)
            col.set("this", exp.to_identifier(name))
        return cond

    def predicates(self, select: Any) -> list[tuple[_Source, list[Any]]]:
        """The conjuncts of ``select``'s WHERE per scan of its FROM/JOIN items, with the scans'
        own conditions first."""
        exp = self.exp
        frm = select.args.get("from_") or select.args.get("from")  # sqlglot 30 names it from_
        items = ([frm.this] if frm is not None else []) + [j.this for j in select.args.get("joins") or []]
        sources: dict[str, _Source] = {}  # alias (or name) -> its scan; a self-join is two scans
        for item in items:
            src = self.source(item)
            if src is not None:
                sources[item.alias_or_name] = src
        out = {id(src): (src, list(src.conditions)) for src in sources.values()}
        where = select.args.get("where")
        for c in _conjuncts(where.this) if where is not None else []:
            owners = {col.table if col.table else None for col in c.find_all(exp.Column)}
            if owners == {None}:
                owner = next(iter(sources)) if len(sources) == 1 and len(items) == 1 else None
            else:
                owner = owners.pop() if len(owners) == 1 else None
            if owner not in sources:
                continue  # a join condition, an unqualified column of a join, or no scan column
            src = sources[owner]
            mapped = self.mapped(c, {owner: src}, src)
            if mapped is not None:
                out[id(src)][1].append(mapped)
        return list(out.values())


def _scan_predicates(statement: str, dialect: str) -> tuple[dict[str, list[str]], int]:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        trees = sqlglot.parse(statement, read=dialect)
    except (ParseError, TokenError) as e:
        raise PaimonLensError(f"statement does not parse: {str(e).splitlines()[0]}") from None
    out: dict[str, list[str]] = defaultdict(list)
    parameters = 0
    for tree in trees:
        if tree is None:
            continue
        scans = _Scans(tree)
        for select in tree.find_all(exp.Select):
            if id(select) in scans.inlined:
                continue
            for src, conds in scans.predicates(select):
                if conds:
                    parts = [c.sql(dialect=dialect) for c in conds]
                    out[src.table].append(" AND ".join(f"({p})" if " OR " in p.upper() else p for p in parts))
        parameters += scans.parameters
    return dict(out), parameters


def predicates_of(statement: str, dialect: str = "spark") -> dict[str, list[str]]:
    """Per table name, the predicates (WHERE text, in the table's column names) ``statement``
    applies to its scans.

    Every SELECT's FROM/JOIN items are resolved through their aliases; a CTE or derived table that
    Spark pushes filters through (one table, no join, grouping, aggregate, window, DISTINCT or
    LIMIT) is followed to its table, its column aliases mapped back, and its own WHERE joined with
    the conditions on it. Conjuncts naming one scan's columns (and literals) are that scan's
    predicate; join conditions, conditions on subqueries and conditions with parameter markers
    (``?``, ``:name``, ``${var}``) are not.

    Raises:
        PaimonLensError: the statement does not parse.
    """
    return _scan_predicates(statement, dialect)[0]


@functools.lru_cache(maxsize=4096)
def _template(where: str) -> str:
    """``where`` with its literals as ``?`` (cached: a history repeats the same predicates)."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(where, read="spark")
    for lit in list(tree.find_all(exp.Literal)):
        lit.replace(exp.Placeholder())
    return tree.sql(dialect="spark")


def _workloads(found: Iterable[dict[str, list[str]]], source: str) -> dict[str, Workload]:
    """Per table, one workload line per template (literals as ``?``): its most frequent literal
    values, weighted by how many statements or executions used the template; heaviest first."""
    templates: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for per_table in found:
        for table, wheres in per_table.items():
            for where in wheres:
                templates[table][_template(where)][where] += 1
    workloads = {}
    for table, by_template in templates.items():
        queries = []
        for _, instances in sorted(by_template.items(), key=lambda kv: -sum(kv[1].values())):
            where, _ = instances.most_common(1)[0]
            queries.append(WorkloadQuery(where, float(sum(instances.values()))))
        workloads[table] = Workload(tuple(queries), source=f"{source} ({table})")
    return workloads


def _parameter_note(count: int) -> str:
    return (f"{count} conditions with parameter markers (?, :name, ${{var}}) were left out: "
            "their values are not in the statement text")


def workloads_from_statements(statements: Iterable[str], dialect: str = "spark",
                              source: str = "statements") -> ExtractedWorkloads:
    """The workload of every table the statements read (see the module docs)."""
    found: list[dict[str, list[str]]] = []
    count = parameters = 0
    skipped: list[str] = []
    for text in statements:
        text = text.strip().rstrip(";").strip()
        if not text:
            continue
        count += 1
        try:
            per_table, params = _scan_predicates(text, dialect)
        except PaimonLensError as e:
            skipped.append(f"{text[:80]}: {e}")
            continue
        found.append(per_table)
        parameters += params
    if parameters:
        skipped.append(_parameter_note(parameters))
    return ExtractedWorkloads(_workloads(found, source), count, skipped)


def split_statements(text: str) -> list[str]:
    """Statements of a SQL history: ``;``-separated, or one per line when there is no ``;``."""
    if ";" in text:
        return [s for s in text.split(";") if s.strip()]
    return [line for line in text.splitlines() if line.strip() and not line.strip().startswith("--")]


def workload_from_sql_history(path: str | os.PathLike[str], dialect: str = "spark") -> ExtractedWorkloads:
    """The workloads of the statements of a SQL history file."""
    text = Path(path).read_text(encoding="utf-8")
    return workloads_from_statements(split_statements(text), dialect, source=str(path))


def _open_log(path: Path) -> io.TextIOBase:
    raw = path.read_bytes()
    name = path.name.lower()
    if name.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    elif name.endswith((".zstd", ".zst")) or raw[:4] == b"\x28\xb5\x2f\xfd":
        raw = _zstd_decompress(raw, path)
    elif name.endswith((".lz4", ".lzf", ".snappy")):
        raise PaimonLensError(f"{path}: event logs compressed with {name.rsplit('.', 1)[-1]} are not read; "
                              "set spark.eventLog.compression.codec=zstd (or no compression)")
    return io.StringIO(raw.decode("utf-8", "replace"))


def _zstd_decompress(raw: bytes, path: Path) -> bytes:
    """zstd frames (Spark's default event-log codec) with the decoder fastavro[zstandard] brings."""
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]  # Python 3.14
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:  # pragma: no cover - fastavro[zstandard] installs it
            raise PaimonLensError(f"{path}: reading a zstd-compressed event log needs backports.zstd") from None
    data: bytes = zstd.decompress(raw)
    return data


def _log_files(directory: Path) -> Iterator[Path]:
    for p in sorted(directory.iterdir()):
        if p.is_dir():  # a rolling event log: eventlog_v2_<app>/events_<n>_<app>
            yield from sorted(q for q in p.iterdir() if q.is_file() and q.name.startswith("events_"))
        elif p.is_file() and not p.name.endswith(".inprogress") and not p.name.startswith("."):
            yield p


@dataclass(frozen=True)
class SqlExecution:
    """A ``SparkListenerSQLExecutionStart`` event: its statement text (None when the description is
    not SQL) and the filters of its plan's table scans."""

    execution_id: int
    root_execution_id: int
    time_ms: int
    statement: str | None
    scans: tuple[ScanFilter, ...]


def spark_sql_executions(directory: str | os.PathLike[str],
                         since_ms: int | None = None) -> tuple[list[SqlExecution], int]:
    """The SQL executions recorded in Spark event logs (from ``since_ms`` on), and how many
    SQL-execution lines were not valid JSON."""
    import sqlglot
    from sqlglot.errors import ParseError, TokenError

    executions: list[SqlExecution] = []
    malformed = 0
    for path in _log_files(Path(directory)):
        for line in _open_log(path):
            if SQL_EXECUTION_START not in line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:  # a torn last line of a running application, or damage
                malformed += 1
                continue
            if event.get("Event") != SQL_EXECUTION_START:
                continue
            if since_ms is not None and int(event.get("time", 0)) < since_ms:
                continue
            text = str(event.get("description") or "").strip()
            try:
                tree = sqlglot.parse_one(text, read="spark") if text else None
            except (ParseError, TokenError):
                tree = None
            statement = text if tree is not None and tree.key in STATEMENT_KINDS else None
            plan = event.get("sparkPlanInfo")
            execution_id = int(event.get("executionId", -1))
            executions.append(SqlExecution(
                execution_id, int(event.get("rootExecutionId", execution_id)), int(event.get("time", 0)),
                statement, tuple(scan_filters(plan)) if isinstance(plan, dict) else ()))
    return executions, malformed


def workload_from_spark_event_logs(directory: str | os.PathLike[str], since_ms: int | None = None
                                   ) -> ExtractedWorkloads:
    """The workloads of the SQL executions Spark recorded in its event logs (see the module docs).

    An execution with statement text counts as that statement (its nested executions are part of
    it). One without (a DataFrame call), or whose statement has parameter markers, is read from its
    plan: the filters Spark applied to each table scan (:mod:`paimon_lens.workload.spark_plan_filters`).
    """
    executions, malformed = spark_sql_executions(directory, since_ms)
    found: list[dict[str, list[str]]] = []
    skipped: list[str] = []
    statements = plans = without = parameters = unsupported = 0
    covered: set[int] = set()  # executions whose statement text stands for them and their nested ones
    for ex in executions:
        if ex.root_execution_id != ex.execution_id and ex.root_execution_id in covered:
            continue
        per_table: dict[str, list[str]] | None = None
        params = 0
        if ex.statement is not None:
            try:
                per_table, params = _scan_predicates(ex.statement, "spark")
            except PaimonLensError as e:
                skipped.append(f"{ex.statement[:80]}: {e}")
        from_plan: dict[str, list[str]] = defaultdict(list)
        for scan in ex.scans:
            if scan.where is not None:
                from_plan[scan.table].append(scan.where)
        if per_table is not None and not (params and from_plan):
            statements += 1
            parameters += params
            covered.add(ex.execution_id)
            found.append(per_table)
        elif from_plan or (per_table is not None and ex.scans):
            plans += 1
            unsupported += sum(scan.unsupported for scan in ex.scans)
            covered.add(ex.execution_id)
            found.append(dict(from_plan))
        else:
            without += 1
    extracted = ExtractedWorkloads(_workloads(found, f"Spark event logs {directory}"), statements, skipped, plans)
    if malformed:
        skipped.append(f"{malformed} SQL-execution events are not valid JSON (a torn or damaged log)")
    if parameters:
        skipped.append(_parameter_note(parameters))
    if unsupported:
        skipped.append(f"{unsupported} scan conditions of recorded plans are in a form not turned into SQL "
                       "(functions of columns, comparisons of two columns) and were left out")
    if without:
        skipped.append(f"{without} SQL executions recorded neither statement text nor a filtered table scan")
    return extracted


def write_workload(workload: Workload, path: str | os.PathLike[str]) -> Path:
    """A workload file (``explain --where-file``, ``recommend``, ``report`` read it back)."""
    lines = [f"# {workload.source}: one WHERE clause per line, weighted by how many statements used it"]
    lines += [f"{q.where}  -- weight: {q.weight:g}" for q in workload]
    out = Path(path)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
