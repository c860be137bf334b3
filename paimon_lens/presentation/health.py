"""Warehouse health: every table of a filesystem catalog in one row, ranked by what fixing it would save
(tables that could not be read first).

Per table: live files and bytes, the share of small files, snapshots kept and schema versions,
the stats mode, how many files carry a file index and the index bytes against the data bytes, the
worst deletion-vector share of a bucket, and its findings (:mod:`paimon_lens.advisor.findings`):
how many, the top one, and the total they would save (their scores). A workload for the table
(``<db>.<table>.sql`` or ``<table>.sql`` in a workload directory) adds the workload checks,
including the bytes its queries read for nothing. A table that cannot be read is a row with its
``error``; the others are still measured. Reads metadata and index containers; data files only
for the ground truth of a workload.

On a distributed engine (``engine="spark"``) the tables are the tasks: each task opens its table
from the warehouse (with the catalog's storage options) and measures it on the local engine, and
only the rows travel back; workload files are read on the driver and shipped with the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..advisor.findings import Finding, buckets, deleted_rows
from ..metadata.options import SMALL_FILE_DIVISOR, target_file_size
from ..metadata.snapshot_reader import IndexLocation

if TYPE_CHECKING:
    import pandas as pd

    from ..table.facade import Table


class Catalog(Protocol):
    """What health needs of a catalog (:class:`paimon_lens.catalog.Catalog`, which calls this module)."""

    warehouse: str
    storage_options: dict[str, Any] | None
    table_options: dict[str, Any]

    def identifiers(self) -> list[str]: ...

    def table(self, identifier: str, **options: Any) -> Any: ...


@dataclass
class TableHealth:
    """One table's row of the warehouse health (``error`` set when it could not be read)."""

    table: str
    files: int = 0
    bytes: int = 0
    small_file_ratio: float | None = None
    snapshots: int = 0
    schemas: int = 0
    stats_mode: str = ""
    index_coverage_ratio: float | None = None
    index_bytes: int | None = 0
    """Bytes of the live files' index containers (None: one of their sizes could not be read)."""
    index_data_ratio: float | None = None
    dv_max_bucket_ratio: float | None = None
    findings: int = 0
    top_finding: str | None = None
    savings_score: float = 0.0
    read_for_nothing_bytes: int | None = None
    workload: str | None = None
    error: str | None = None
    snapshot_id: int | None = None
    """The snapshot every fact of the row was read at (None: the table has none, or was not read)."""
    items: list[Finding] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The ``health --format json`` record of the table."""
        out = {k: v for k, v in self.__dict__.items() if k != "items"}
        out["top_statements"] = list(self.items[0].statements) if self.items else []
        return out


@dataclass
class WarehouseHealth:
    """Every table's health, the most to save first."""

    warehouse: str
    tables: list[TableHealth]

    def frame(self) -> pd.DataFrame:
        """One row per table (:data:`~paimon_lens.presentation.frame_columns.HEALTH_COLUMNS`)."""
        from .frame_columns import HEALTH_COLUMNS
        from .lens_frame import LensFrame

        return LensFrame([t.to_dict() for t in self.tables], columns=list(HEALTH_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """The ``health --format json`` document."""
        return {"warehouse": self.warehouse, "tables": [t.to_dict() for t in self.tables]}

    @property
    def html(self) -> str:
        """A self-contained page in the tuning report's style: the ranked table, then each table's
        top findings with their statements (every table-derived string escaped)."""
        import datetime as _dt

        from .._version import __version__
        from .html import environment
        from .lens_frame import frame_html
        from .report import CSP

        frame = self.frame().drop(columns=["top_statements"])
        tops = [{"table": t.table, "findings": t.items[:3]} for t in self.tables if t.items]
        return environment().get_template("health.html.j2").render(
            csp=CSP, warehouse=self.warehouse, version=__version__, table=frame_html(frame, max_rows=500),
            tops=tops, errors=[t for t in self.tables if t.error],
            generated_at=_dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))

    def save(self, path: str) -> Path:
        """Write :attr:`html` to ``path`` (UTF-8) and return the path."""
        out = Path(path)
        out.write_text(self.html, encoding="utf-8")
        return out

    def _repr_html_(self) -> str:
        from .lens_frame import frame_html

        return frame_html(self.frame(), max_rows=100)


def _workload_file(directory: str | None, identifier: str) -> str | None:
    if directory is None:
        return None
    name = identifier.split(".", 1)[1]
    for candidate in (f"{identifier}.sql", f"{name}.sql"):
        path = Path(directory) / candidate
        if path.is_file():
            return str(path)
    return None


def table_health(catalog: Catalog, identifier: str, workload_dir: str | None = None) -> TableHealth:
    """The health of one table of ``catalog`` (errors become the row's ``error``)."""
    return _measure(catalog, identifier, _workload_file(workload_dir, identifier))


def _measure(catalog: Catalog, identifier: str, workload_path: str | None, workload: Any = None,
             **table_options: Any) -> TableHealth:
    """One table's row; ``workload`` (already read) stands for the file ``workload_path`` when given."""
    from ..errors import PaimonLensError
    from ..metadata.consistency import run_consistently

    row = TableHealth(identifier, workload=workload_path)
    try:
        table = catalog.table(identifier, progress=False, **table_options)
        # every fact of the row at one snapshot (moved as a whole if it expires while it is read)
        run_consistently(table.reader, lambda: _fill(row, table, workload))
    except (PaimonLensError, OSError, ValueError) as e:
        row.error = f"{type(e).__name__}: {e}" if not isinstance(e, PaimonLensError) else str(e)
    return row


def _fill(row: TableHealth, table: Table, workload: Any) -> None:
    """The facts of ``row`` read from ``table`` (one consistent operation: a retry fills it afresh)."""

    row.error = None
    live = table.reader.live_files()
    row.snapshot_id = table.snapshot_id
    sizes = [lf.entry.file.file_size for lf in live]
    opts = table.schema.options
    target = target_file_size(opts, bool(table.schema.primary_keys))
    row.files, row.bytes = len(live), sum(sizes)
    row.small_file_ratio = sum(1 for s in sizes if s < target / SMALL_FILE_DIVISOR) / len(sizes) if sizes else None
    row.snapshots = len(table.snapshot_manager.list_ids())
    row.schemas = len(table.schema_manager.list_ids())
    row.stats_mode = table.schema.core_options.stats_mode
    indexed = [lf for lf in live if lf.index_location != IndexLocation.NONE]
    row.index_coverage_ratio = len(indexed) / len(live) if live else None
    index_sizes = [table.reader.index_size(lf) for lf in indexed]
    known = [n for n in index_sizes if n is not None]
    row.index_bytes = sum(known) if len(known) == len(index_sizes) else None  # an unread size is no 0
    unread = [lf.index_file_path or lf.path for lf, n in zip(indexed, index_sizes) if n is None]
    problems = [f"the index size of {len(unread)} file(s) could not be read (index_bytes unknown), "
                f"e.g. {unread[0]}"] if unread else []
    row.index_data_ratio = row.index_bytes / row.bytes if row.bytes and row.index_bytes is not None else None
    deleted = deleted_rows(table.reader, table.engine)
    ratios = [sum(deleted.get(lf.entry.file.file_name, 0) for lf in files) / rows
              for files in buckets(table.reader).values() if (rows := sum(lf.entry.file.row_count for lf in files))]
    row.dv_max_bucket_ratio = max(ratios) if deleted and ratios else None
    found = table.find(workload if workload is not None else row.workload)
    row.items = found.items
    row.findings = len(found)
    row.top_finding = found.items[0].title if found.items else None
    row.savings_score = sum(f.score for f in found.items)
    if row.workload is not None:
        row.read_for_nothing_bytes = sum(int(f.details.get("bytes", 0)) for f in found.items
                                         if f.kind == "read-for-nothing")
    problems += found.problems
    if problems:
        row.error = "; ".join(problems)


def _health_task(item: tuple[Any, str, dict[str, Any] | None, dict[str, Any], str, str | None, Any]) -> TableHealth:
    """A task of a distributed engine: one table's row, measured on the worker's local engine
    (the catalog is built again there from its class, warehouse and options)."""
    catalog_class, warehouse, storage_options, table_options, identifier, workload_path, workload = item
    try:
        catalog = catalog_class(warehouse, storage_options, **table_options)
    except Exception as e:  # the row says why the worker could not reach the warehouse
        return TableHealth(identifier, workload=workload_path, error=f"{type(e).__name__}: {e}")
    return _measure(catalog, identifier, workload_path, workload, engine="local")


def warehouse_health(catalog: Catalog, workload_dir: str | None = None,
                     identifiers: Sequence[str] | None = None, engine: Any = None) -> WarehouseHealth:
    """Every table of ``catalog`` (or the given ``db.table`` identifiers), the most to save first;
    a progress bar per table once the work is long.

    ``engine`` (default: the catalog's ``engine`` table option, else local) runs the tables as tasks
    when it is distributed (see the module docstring); the rows are the same as the local engine's.
    """
    from ..engines import get_engine
    from ..progress import progress

    names = list(identifiers) if identifiers is not None else catalog.identifiers()
    runner = get_engine(engine if engine is not None else catalog.table_options.get("engine"),
                        spark=catalog.table_options.get("spark"),
                        spark_master=catalog.table_options.get("spark_master"))
    if runner.distributed and len(names) > 1:
        from ..errors import PaimonLensError
        from ..workload.model import read_workload

        options = {k: v for k, v in catalog.table_options.items() if k not in ("engine", "spark", "spark_master")}
        items = []
        for name in names:
            path = _workload_file(workload_dir, name)
            try:
                workload = read_workload(path) if path is not None else None
            except (PaimonLensError, OSError, ValueError):
                workload = None  # the task reads it again and reports the error on the table's row
            items.append((type(catalog), catalog.warehouse, catalog.storage_options, options, name, path, workload))
        rows = runner.map(_health_task, items)
    else:
        rows = [table_health(catalog, name, workload_dir)
                for name in progress(names, total=len(names), desc="tables", unit="table")]
    rows.sort(key=lambda r: (r.error is not None, r.savings_score), reverse=True)  # unreadable first
    return WarehouseHealth(catalog.warehouse, rows)
