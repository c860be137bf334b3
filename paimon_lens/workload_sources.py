"""Workloads from where queries are already recorded: SQL history files and Spark event logs.

Each statement is parsed with sqlglot (Spark dialect by default). For every ``SELECT`` (CTEs and
subqueries included) the tables of its ``FROM`` and ``JOIN`` are resolved through their aliases,
and the ``WHERE`` conjuncts that name only columns of one table (and literals) make that table's
predicate, its column qualifiers removed. Predicates are grouped into templates (literals
replaced by ``?``); each template becomes one workload line: its most frequent literal values,
weighted by how many statements used the template.

Sources:

* a SQL history file: statements separated by ``;`` (or one per line);
* Spark event logs (``spark.eventLog.enabled``): JSON lines, plain, gzip or zstd compressed, a
  directory of logs or rolling-log directories; each ``SparkListenerSQLExecutionStart`` whose
  ``description`` is SQL text (what the Spark SQL CLI, the Thrift server and
  ``SparkContext.setJobDescription(sql)`` record) is a statement. Executions described otherwise
  (DataFrame calls such as ``collect at <stdin>:1``) carry no statement and are counted as skipped.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import PaimonLensError
from .workload import Workload, WorkloadQuery

SQL_EXECUTION_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"


@dataclass
class ExtractedWorkloads:
    """Per table (as the statements name it), its workload; and what was read and left out."""

    workloads: dict[str, Workload]
    statements: int = 0
    skipped: list[str] = field(default_factory=list)

    def for_table(self, table: str) -> Workload:
        """The workload of ``table``: a name as the statements use it, or ``db.table`` (also matched
        by its last part when the statements name the table alone)."""
        if table in self.workloads:
            return self.workloads[table]
        short = table.rsplit(".", 1)[-1]
        matches = [w for name, w in self.workloads.items() if name.rsplit(".", 1)[-1] == short]
        if len(matches) == 1:
            return matches[0]
        raise PaimonLensError(f"no query of the recorded statements reads table {table!r}: they read "
                              f"{', '.join(sorted(self.workloads)) or 'no table'}")


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


def predicates_of(statement: str, dialect: str = "spark") -> dict[str, list[str]]:
    """Per table name, the predicates (WHERE text, unqualified) ``statement`` applies to it.

    Raises:
        PaimonLensError: the statement does not parse.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        trees = sqlglot.parse(statement, read=dialect)
    except (ParseError, TokenError) as e:
        raise PaimonLensError(f"statement does not parse: {str(e).splitlines()[0]}") from None
    out: dict[str, list[str]] = defaultdict(list)
    for tree in trees:
        if tree is None:
            continue
        ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
        for select in tree.find_all(exp.Select):
            where = select.args.get("where")
            if where is None:
                continue
            sources: dict[str, str] = {}  # alias (or name) -> table name, of this SELECT's own FROM / JOINs
            frm = select.args.get("from_") or select.args.get("from")  # sqlglot 30 names it from_
            items = ([frm.this] if frm is not None else []) + [j.this for j in select.args.get("joins") or []]
            for item in items:
                if isinstance(item, exp.Table) and item.name not in ctes:
                    sources[item.alias_or_name] = _table_name(item)
            if not sources:
                continue
            per_table: dict[str, list[Any]] = defaultdict(list)  # alias -> its conjuncts
            for c in _conjuncts(where.this):
                if c.find(exp.Subquery, exp.Select) is not None:
                    continue  # a condition on another query: not a file-level predicate
                columns = list(c.find_all(exp.Column))
                if not columns:
                    continue
                # one scan per alias: a table joined with itself is two scans, each with its own filter
                owners = {(col.table if col.table in sources else None) if col.table
                          else (next(iter(sources)) if len(sources) == 1 else None) for col in columns}
                owner = owners.pop() if len(owners) == 1 else None
                if owner is None:
                    continue  # a join condition, or an unqualified column of a join
                per_table[owner].append(c)
            for alias, conds in per_table.items():
                name = sources[alias]
                parts = []
                for cond in conds:
                    cond = cond.copy()
                    for col in cond.find_all(exp.Column):
                        col.set("table", None)
                    parts.append(cond.sql(dialect=dialect))
                out[name].append(" AND ".join(f"({p})" if " OR " in p.upper() else p for p in parts))
    return dict(out)


def _template(where: str) -> str:
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(where, read="spark")
    for lit in list(tree.find_all(exp.Literal)):
        lit.replace(exp.Placeholder())
    return tree.sql(dialect="spark")


def workloads_from_statements(statements: Iterable[str], dialect: str = "spark",
                              source: str = "statements") -> ExtractedWorkloads:
    """The workload of every table the statements read (see the module docs)."""
    per_table: dict[str, Counter[str]] = defaultdict(Counter)
    templates: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    count = 0
    skipped: list[str] = []
    for text in statements:
        text = text.strip().rstrip(";").strip()
        if not text:
            continue
        count += 1
        try:
            found = predicates_of(text, dialect)
        except PaimonLensError as e:
            skipped.append(f"{text[:80]}: {e}")
            continue
        for table, wheres in found.items():
            for where in wheres:
                per_table[table][where] += 1
                templates[table][_template(where)][where] += 1
    workloads = {}
    for table, by_template in templates.items():
        queries = []
        for _, instances in sorted(by_template.items(), key=lambda kv: -sum(kv[1].values())):
            where, _ = instances.most_common(1)[0]
            queries.append(WorkloadQuery(where, float(sum(instances.values()))))
        workloads[table] = Workload(tuple(queries), source=f"{source} ({table})")
    return ExtractedWorkloads(workloads, count, skipped)


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


def spark_sql_statements(directory: str | os.PathLike[str],
                         since_ms: int | None = None) -> tuple[list[str], int, int]:
    """The SQL statements of the SQL executions recorded in Spark event logs, how many executions
    had no statement (their description is not SQL), and how many SQL-execution lines did not parse."""
    import sqlglot
    from sqlglot.errors import ParseError, TokenError

    statements: list[str] = []
    without = malformed = 0
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
            if tree is None or tree.key not in ("select", "union", "with", "subquery", "insert", "create"):
                without += 1
                continue
            statements.append(text)
    return statements, without, malformed


def workload_from_spark_event_logs(directory: str | os.PathLike[str], since_ms: int | None = None
                                   ) -> ExtractedWorkloads:
    """The workloads of the SQL statements Spark recorded in its event logs (see the module docs)."""
    statements, without, malformed = spark_sql_statements(directory, since_ms)
    extracted = workloads_from_statements(statements, source=f"Spark event logs {directory}")
    if malformed:
        extracted.skipped.append(f"{malformed} SQL-execution events are not valid JSON (a torn or damaged log)")
    if without:
        extracted.skipped.append(f"{without} SQL executions recorded no statement text (DataFrame calls)")
    return extracted


def write_workload(workload: Workload, path: str | os.PathLike[str]) -> Path:
    """A workload file (``explain --where-file``, ``recommend``, ``report`` read it back)."""
    lines = [f"# {workload.source}: one WHERE clause per line, weighted by how many statements used it"]
    lines += [f"{q.where}  -- weight: {q.weight:g}" for q in workload]
    out = Path(path)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
