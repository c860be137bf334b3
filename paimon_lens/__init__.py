"""paimon-lens: see what an Apache Paimon table's metadata, file indexes and deletion vectors hold.

``import paimon_lens`` is light: notebook, plotting and Spark packages load only when used.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import CorruptFileError, PaimonLensError, SnapshotNotFoundError, TableNotFoundError
from .presentation.views import register_views

register_views()  # how the presentation shows the services' answers (imported when first shown)

if TYPE_CHECKING:
    import datetime

    from .advisor.advise import Advice
    from .catalog.filesystem import Catalog
    from .engines.base import Engine
    from .presentation.report import TuningReport
    from .presentation.widgets import Explorer
    from .table.facade import Table
    from .workload.model import Workload
    from .workload.sources import ExtractedWorkloads

    TableLike = Table | str | os.PathLike[str]
    WorkloadLike = Workload | str | os.PathLike[str] | list[str] | list[tuple[str, float]] | None

__all__ = [
    "CorruptFileError",
    "PaimonLensError",
    "SnapshotNotFoundError",
    "TableNotFoundError",
    "__version__",
    "explore",
    "load_ipython_extension",
    "open_catalog",
    "open_table",
    "recommend",
    "report",
    "set_gc_pause",
    "workload_from_spark_event_logs",
    "workload_from_sql_history",
]


def open_table(path: str | os.PathLike[str], snapshot: int | str | datetime.datetime | None = None, *,
               tag: str | None = None, timestamp_ms: int | None = None,
               storage_options: dict[str, Any] | None = None, progress: bool | None = None,
               engine: str | Engine | None = None, spark: Any = None, spark_master: str | None = None,
               branch: str | None = None, path_map: dict[str, str] | None = None,
               paimon_version: str | None = None) -> Table:
    """Open a Paimon table directory at one snapshot; every parameter is that of
    :func:`paimon_lens.table.open_table`.

    ``engine="spark"`` (with ``spark=session``, or a local session created on demand) or
    ``engine="process"`` runs per-file work distributed; see :mod:`paimon_lens.engines`.
    """
    from .table.facade import open_table as _open

    return _open(path, snapshot, tag=tag, timestamp_ms=timestamp_ms, storage_options=storage_options,
                 progress=progress, engine=engine, spark=spark, spark_master=spark_master, branch=branch,
                 path_map=path_map, paimon_version=paimon_version)


def set_gc_pause(enabled: bool | None) -> None:
    """Let paimon-lens pause this process's cyclic garbage collector while it decodes metadata in
    bulk (True), never (False), or only with ``PAIMON_LENS_GC_PAUSE=1`` (None, the default). A
    cold ``explain`` on many files is about a quarter faster with it, a warm one more; the
    ``paimon-lens`` command and the engines' worker processes always may. See
    :mod:`paimon_lens.metadata.gc_pause`."""
    from .metadata.gc_pause import set_gc_pause as _set

    _set(enabled)


def open_catalog(warehouse: str, storage_options: dict[str, Any] | None = None, **table_options: Any) -> Catalog:
    """A warehouse of Paimon's filesystem catalog (``<warehouse>/<db>.db/<table>``): ``databases()``,
    ``tables(db)``, ``table("db.table", snapshot=..., branch=...)``; see :mod:`paimon_lens.catalog`."""
    from .catalog.filesystem import open_catalog as _open

    return _open(warehouse, storage_options, **table_options)


def workload_from_spark_event_logs(directory: str, since_ms: int | None = None) -> ExtractedWorkloads:
    """Per table, the workload of the SQL statements Spark recorded in its event logs
    (:mod:`paimon_lens.workload.sources`): ``.for_table("db.t")`` is a workload for recommend/report."""
    from .workload.sources import workload_from_spark_event_logs as _read

    return _read(directory, since_ms)


def workload_from_sql_history(path: str) -> ExtractedWorkloads:
    """Per table, the workload of the statements of a SQL history file (``;``-separated or one per line)."""
    from .workload.sources import workload_from_sql_history as _read

    return _read(path)


def _as_table(table: TableLike) -> Table:
    from .table.facade import Table

    return table if isinstance(table, Table) else open_table(str(table))


def report(table: TableLike, workload: WorkloadLike = None, recommendations: Advice | None = None, *,
           recommend: bool | None = None, **recommend_options: Any) -> TuningReport:
    """The HTML tuning report of a table (a :class:`~paimon_lens.table.Table` or a path).

    ``workload`` is a workload file path, a list of WHERE strings or ``(where, weight)`` pairs, or
    a :class:`~paimon_lens.workload.Workload`. The report leads with the findings; ``recommend``
    runs :func:`recommend` (options passed through) and adds its advice, by default (None) when a
    workload is given; ``recommendations`` takes one already computed. Returns a
    :class:`~paimon_lens.presentation.report.TuningReport`: ``.save("report.html")`` writes the
    self-contained file, and a notebook displays it inline.
    """
    from .metadata.consistency import run_consistently
    from .presentation.report import build_report

    t = _as_table(table)

    wanted = recommend if recommend is not None else workload is not None

    def build() -> TuningReport:
        advice = recommendations
        if wanted and advice is None:
            from .advisor.advise import recommend as _recommend

            advice = _recommend(t.reader, workload, engine=t.engine, rules=t.rules, **recommend_options)
        return build_report(t, workload, advice)

    return run_consistently(t.reader, build)  # advice and report of one snapshot


def recommend(table: TableLike, workload: WorkloadLike = None, **options: Any) -> Advice:
    """Which file indexes the table should have, measured on its own data.

    See :func:`paimon_lens.advisor.advise.recommend` (``workload=None`` derives one from the
    column profiles; ``max_files`` samples). Returns an
    :class:`~paimon_lens.advisor.advise.Advice`: ``.frame()``, ``.tradeoff_frame()``,
    ``.pareto_frame()``, ``.statements("spark" | "flink")``, ``.to_dict()``.
    """
    from .advisor.advise import recommend as _recommend

    t = _as_table(table)
    return _recommend(t.reader, workload, engine=t.engine, rules=t.rules, **options)


def explore(table: TableLike) -> Explorer:
    """An ipywidgets explorer of a table (a :class:`~paimon_lens.table.Table` or a path).

    Needs the ``notebook`` extra: ``pip install 'paimon-lens[notebook]'``.
    """
    from .presentation.widgets import Explorer

    return Explorer(_as_table(table))


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext paimon_lens``: registers the ``%paimon_explain`` / ``%%paimon_explain`` magic."""
    from .presentation.magic import register

    register(ipython)


def __getattr__(name: str) -> Any:
    if name == "plots":  # ``paimon_lens.plots`` imports matplotlib only when asked for
        import importlib

        return importlib.import_module(".presentation.plots", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
