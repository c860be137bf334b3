"""A Paimon table at one snapshot: the entry point of paimon-lens.

``open_table(path, snapshot=None)`` selects a snapshot (latest by default; an id, ``"earliest"``,
``"latest"``, ``"tag:NAME"`` / ``tag=NAME``, a ``datetime`` or ``timestamp_ms=...``) and gives a
:class:`Table`: a :class:`~paimon_lens.metadata.snapshot_reader.SnapshotReader` (metadata read
lazily, each manifest once per table directory) with a public face: frames, explanations and
rich display, each answered by a service (:mod:`paimon_lens.inventory.file_indexes`,
:mod:`paimon_lens.inventory.deletion_vectors`, :mod:`paimon_lens.pruning`) on the table's engine.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from ..engines import get_engine
from ..engines.base import Engine
from ..engines.files import manifest_mapper
from ..errors import PaimonLensError
from ..io.fileio import FileIO
from ..metadata.consistency import run_consistently
from ..metadata.manifest import FILE_SOURCES, IndexFileMeta, ManifestFileMeta
from ..metadata.paths import is_main_branch
from ..metadata.schema import SchemaManager, TableSchema
from ..metadata.snapshot import Snapshot, SnapshotManager
from ..metadata.snapshot_reader import (
    LiveFile,
    SnapshotReader,
    declared_external_roots,
    is_latest,
    locate,
    select_snapshot,
)
from ..predicate.model import CompoundPredicate, LeafPredicate
from ..pruning.versions import PaimonRules, normalize_version, rules_for

if TYPE_CHECKING:
    import pandas as pd

    from ..advisor.findings import Findings
    from ..advisor.plan import Plan
    from ..advisor.shadow import ShadowCopy
    from ..distributed.spark_plan import SparkExplainReport, SparkFileIndexes
    from ..history.diff import ExplainDiff, SnapshotDiff
    from ..history.timeline import History
    from ..inventory.deletion_vectors import DeletionVectorInfo
    from ..inventory.file_indexes import IndexInfo
    from ..predicate.model import Predicate
    from ..pruning.explain import ExplainReport
    from ..pruning.topn import TopN
    from ..workload.model import Workload
    from .inspect import InspectTable

    WorkloadLike = Workload | str | os.PathLike[str] | Sequence[str | tuple[str, float]] | None


@dataclass(frozen=True)
class TableContext:
    """What a table's questions are answered with besides its snapshot."""

    engine: Engine
    """Where per-file work runs (see :mod:`paimon_lens.engines`)."""
    paimon_version: str
    """The Paimon release whose rules ``explain`` applies (see :mod:`paimon_lens.pruning.versions`)."""

    @property
    def rules(self) -> PaimonRules:
        """The :class:`~paimon_lens.pruning.versions.PaimonRules` of :attr:`paimon_version`."""
        return rules_for(self.paimon_version)


T = TypeVar("T")


def _consistent(method: Callable[..., T]) -> Callable[..., T]:
    """A table method answered for one snapshot (:func:`~paimon_lens.metadata.consistency.run_consistently`
    of its reader)."""
    @functools.wraps(method)
    def run(self: Table, *args: Any, **kwargs: Any) -> T:
        return run_consistently(self.reader, lambda: method(self, *args, **kwargs))

    return run


class Table:
    """One snapshot of a Paimon table: a :class:`~paimon_lens.metadata.snapshot_reader.SnapshotReader`
    (:attr:`reader`) and a :class:`TableContext` (:attr:`context`: engine and Paimon release),
    each question answered by a service on them. Create with :func:`open_table`."""

    def __init__(self, reader: SnapshotReader, context: TableContext) -> None:
        self._reader = reader
        self._context = context
        reader.manifest_mapper = manifest_mapper(context.engine)

    @property
    def reader(self) -> SnapshotReader:
        """The snapshot's reader: what the services read (metadata read lazily, cached per table directory)."""
        return self._reader

    @property
    def context(self) -> TableContext:
        """The engine and the Paimon release the table's questions are answered with."""
        return self._context

    @property
    def engine(self) -> Engine:
        """Where per-file work runs (see :mod:`paimon_lens.engines`)."""
        return self._context.engine

    @property
    def paimon_version(self) -> str:
        """The Paimon release whose rules ``explain`` applies (see :mod:`paimon_lens.pruning.versions`)."""
        return self._context.paimon_version

    @property
    def rules(self) -> PaimonRules:
        """The :class:`~paimon_lens.pruning.versions.PaimonRules` of :attr:`paimon_version`."""
        return self._context.rules

    # ---- the snapshot ---------------------------------------------------------------------------
    @property
    def path(self) -> str:
        """The table directory."""
        return self._reader.path

    @property
    def name(self) -> str:
        """The table's name (its directory's)."""
        return self._reader.name

    @property
    def branch(self) -> str:
        """The branch read (``main`` unless opened on another)."""
        return self._reader.branch

    @property
    def snapshot(self) -> Snapshot | None:
        """The snapshot read (None for a table without one)."""
        return self._reader.snapshot

    @property
    def snapshot_id(self) -> int | None:
        """The id of the snapshot read."""
        return self._reader.snapshot_id

    @property
    def schema(self) -> TableSchema:
        """The snapshot's schema."""
        return self._reader.schema

    @property
    def is_primary_key_table(self) -> bool:
        """Whether the table has a primary key."""
        return self._reader.is_primary_key_table

    @property
    def file_io(self) -> FileIO:
        """The file system the table is read through."""
        return self._reader.file_io

    @property
    def schema_manager(self) -> SchemaManager:
        """Every schema version of the branch."""
        return self._reader.schema_manager

    @property
    def snapshot_manager(self) -> SnapshotManager:
        """Every snapshot of the branch."""
        return self._reader.snapshot_manager

    def at(self, snapshot: int | str | _dt.datetime | None = None, **kwargs: Any) -> Table:
        """The table at another snapshot (``tag=``, ``timestamp_ms=`` as :func:`open_table`; the same
        engine, release and manifest cache)."""
        return Table(self._reader.at(snapshot, **kwargs), self._context)

    def on_branch(self, branch: str, snapshot: int | str | _dt.datetime | None = None) -> Table:
        """The table's ``branch`` (at ``snapshot``, default its latest)."""
        return Table(self._reader.on_branch(branch, snapshot), self._context)

    def release(self) -> None:
        """Let go of what the snapshot's reads keep (it is read again when asked)."""
        self._reader.release()

    def branches(self) -> list[str]:
        """Names of the table's branches besides ``main``."""
        return self._reader.branches()

    @_consistent
    def manifest_files(self) -> list[ManifestFileMeta]:
        """The snapshot's manifest files (base and delta), as its manifest lists name them."""
        return self._reader.manifest_files()

    @_consistent
    def live_files(self) -> list[LiveFile]:
        """The snapshot's live data files, each with its decoded partition, path and stats."""
        return self._reader.live_files()

    @_consistent
    def index_entries(self) -> list[IndexFileMeta]:
        """The entries of the snapshot's index manifest (deletion-vector, HASH and global index files)."""
        return self._reader.index_entries()

    def __repr__(self) -> str:
        branch = "" if is_main_branch(self.branch) else f" branch={self.branch!r}"
        return (f"<paimon_lens.Table {self.path!r}{branch} snapshot={self.snapshot_id} schema={self.schema.id} "
                f"paimon_version={self.paimon_version}>")

    def _repr_html_(self) -> str:
        from ..presentation.html import render_table

        return render_table(self.reader)

    # ---- frames -----------------------------------------------------------------------------
    @property
    def inspect(self) -> InspectTable:
        """Every frame of the table in one namespace (``t.inspect.files()`` ...), as PyIceberg's
        ``table.inspect``; the methods below are the same frames."""
        from .inspect import InspectTable

        return InspectTable(self.reader, self.engine)

    def snapshots(self) -> pd.DataFrame:
        """Every snapshot still present (see :data:`paimon_lens.presentation.frames.SNAPSHOT_COLUMNS`)."""
        return self.inspect.snapshots()

    def schemas(self) -> pd.DataFrame:
        """Every schema version, one row per column per schema."""
        return self.inspect.schemas()

    def manifests(self) -> pd.DataFrame:
        """Manifest files of the snapshot, with decoded partition stats."""
        return self.inspect.manifests()

    def files(self) -> pd.DataFrame:
        """One row per live data file (see :data:`paimon_lens.presentation.frames.FILE_COLUMNS`)."""
        return self.inspect.files()

    def index_manifest(self) -> pd.DataFrame:
        """Entries of the snapshot's index manifest (deletion-vector and HASH index files)."""
        return self.inspect.index_manifest()

    @_consistent
    def index_infos(self) -> list[IndexInfo]:
        """Every decoded index of every live file (:class:`~paimon_lens.inventory.file_indexes.IndexInfo`,
        decoded on the table's engine once per snapshot)."""
        from ..inventory.file_indexes import table_file_indexes

        return table_file_indexes(self.reader, self.engine)

    def file_indexes(self, index_type: str | None = None) -> pd.DataFrame:
        """One row per data file x column x index type with the decoded summary of each index.

        See :mod:`paimon_lens.presentation.index_frames` for the columns.
        """
        return self.inspect.file_indexes(index_type)

    def bloom_filters(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the bloom-filter indexes (fill ratio, estimated items and fpp)."""
        return self.inspect.bloom_filters()

    def range_bitmaps(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the range-bitmap indexes (cardinality, min, max, chunks, slices)."""
        return self.inspect.range_bitmaps()

    def bitmap_values(self, column: str) -> pd.DataFrame:
        """Every value of ``column``'s bitmap indexes with its row count and bitmap bytes, per file."""
        return self.inspect.bitmap_values(column)

    @overload
    def explain(  # type: ignore[overload-overlap]  # a str is one predicate, not a sequence of them
            self, where: str | Predicate | None, *, truth: bool = ..., index_enabled: bool = ...,
            search_mode: str | None = ..., order_by: str | None = ..., limit: int | None = ...,
            follow_fallback: bool = ..., distributed: Literal[False] = ...) -> ExplainReport: ...

    @overload
    def explain(self, where: Sequence[str | Predicate | None], *, truth: bool = ..., index_enabled: bool = ...,
                search_mode: str | None = ..., order_by: str | None = ..., limit: int | None = ...,
                follow_fallback: bool = ..., distributed: Literal[False] = ...) -> list[ExplainReport]: ...

    @overload
    def explain(self, where: str | Predicate, *, truth: bool = ..., index_enabled: bool = ...,
                follow_fallback: bool = ..., distributed: Literal[True], **options: Any) -> SparkExplainReport: ...

    @overload
    def explain(self, where: Sequence[str | Predicate], *, truth: bool = ..., index_enabled: bool = ...,
                follow_fallback: bool = ..., distributed: Literal[True],
                **options: Any) -> list[SparkExplainReport]: ...

    def explain(self, where: Any, *, truth: bool = False, index_enabled: bool = True, search_mode: str | None = None,
                order_by: str | None = None, limit: int | None = None, follow_fallback: bool = True,
                distributed: bool = False, **options: Any) -> Any:
        """Which files ``where`` makes Paimon read and why (see :func:`paimon_lens.pruning.explain.explain`):
        one report for one predicate (SQL WHERE text or a :class:`~paimon_lens.predicate.model.Predicate`),
        a list for a list of them (planned in one run of tasks on the table's engine).

        Args:
            truth: read the data files and count the rows that really match, beside what Paimon reads.
            index_enabled: as Paimon with ``file-index.read.enabled``; False: as with it off.
            search_mode: the query's ``scalar-index.search-mode`` (tables with global indexes).
            order_by, limit: the query's ``ORDER BY col [DESC] LIMIT n``, pushed down as Paimon pushes
                a TopN; ``where`` may then be None.
            follow_fallback: False explains this branch's files alone (``scan.fallback-branch`` not
                followed, as Paimon reads a fallback branch itself).
            distributed: planned in Spark tasks, for snapshots whose files do not fit the driver: a
                :class:`~paimon_lens.distributed.spark_plan.SparkExplainReport` per predicate;
                ``options`` are those of :meth:`explain_many_distributed` (``positions``,
                ``output``, ``spark`` ...).
        """
        single = where is None or isinstance(where, str | LeafPredicate | CompoundPredicate)
        wheres = [where] if single else list(where)
        if distributed:
            if search_mode is not None or order_by is not None or limit is not None:
                raise PaimonLensError("the distributed explain plans WHERE conditions only (no search_mode, "
                                      "ORDER BY or LIMIT): use distributed=False")
            got: list[Any] = self.explain_many_distributed(wheres, truth=truth, index_enabled=index_enabled,
                                                           follow_fallback=follow_fallback, **options)
        else:
            if options:
                raise PaimonLensError(f"options of the distributed explain without distributed=True: "
                                      f"{', '.join(sorted(options))}")
            if follow_fallback:
                got = self.explain_many(wheres, truth=truth, index_enabled=index_enabled, search_mode=search_mode,
                                        order_by=order_by, limit=limit)
            else:
                got = self._explain_branch(wheres, truth=truth, index_enabled=index_enabled, search_mode=search_mode,
                                           order_by=order_by, limit=limit)
        return got[0] if single else got

    def explain_branch(self, where: str | Predicate | None, *, truth: bool = False,
                       index_enabled: bool = True) -> ExplainReport:
        """``explain(where, follow_fallback=False)``: this branch's files alone."""
        return self._explain_branch([where], truth=truth, index_enabled=index_enabled)[0]

    @_consistent
    def _explain_branch(self, wheres: Sequence[str | Predicate | None], *, truth: bool = False,
                        index_enabled: bool = True, search_mode: str | None = None, order_by: str | None = None,
                        limit: int | None = None) -> list[ExplainReport]:
        from ..pruning.run import explain_branch

        return explain_branch(self.reader, wheres, engine=self.engine, rules=self.rules, truth=truth,
                              index_enabled=index_enabled, search_mode=search_mode, topn=_topn(order_by, limit, wheres))

    @_consistent
    def explain_many(self, wheres: Sequence[str | Predicate | None], *, truth: bool = False,
                     index_enabled: bool = True, search_mode: str | None = None, order_by: str | None = None,
                     limit: int | None = None) -> list[ExplainReport]:
        """``explain(wheres)`` with a list: each predicate (one run of tasks on the table's engine)."""
        from ..pruning.run import explain_many

        return explain_many(self.reader, wheres, engine=self.engine, rules=self.rules, truth=truth,
                            index_enabled=index_enabled, search_mode=search_mode, topn=_topn(order_by, limit, wheres))

    def explain_distributed(self, where: str, *, truth: bool = False, index_enabled: bool = True,
                            positions: bool = False, max_positions: int | None = None, output: str = "dataframe",
                            spark: Any = None, follow_fallback: bool = True, **options: Any) -> SparkExplainReport:
        """``explain(where, distributed=True)``: planned in Spark tasks, for snapshots whose files do not
        fit the driver.

        The driver reads the snapshot and its manifest list; the manifests are read, merged per
        (partition, bucket) and planned in Spark tasks (see :mod:`paimon_lens.distributed.spark_plan`).
        Returns a :class:`~paimon_lens.distributed.spark_plan.SparkExplainReport`: ``summary()`` and
        ``funnel()`` exactly as :meth:`explain`'s, ``notes`` (the first ``max_notes`` about files,
        ``notes_omitted`` counting the rest), and ``files``: the per-file records
        (``ExplainReport.file_record``) as a Spark DataFrame, never collected unless asked
        (``records()``).

        Args:
            where: SQL WHERE text.
            truth, index_enabled: as for :meth:`explain`.
            positions, max_positions: include index bitmap positions in the records (at most this
                many per list), as ``explain --positions``.
            output: ``"dataframe"`` (persisted, ``storage_level``) or ``"parquet:<path>"`` (written by
                the tasks; ``mode="overwrite"`` replaces an existing directory).
            spark: the ``SparkSession`` (default: the table's Spark engine's, else a new one).
            follow_fallback: a table with ``scan.fallback-branch`` is refused (the fallback branch is
                not followed here; use :meth:`explain`); False explains this branch's files alone.
            options: ``mode``, ``storage_level``, ``max_notes``, ``batch_files``,
                ``entries_per_task`` (see :func:`~paimon_lens.distributed.spark_plan.explain_on_spark`).
        """
        return self.explain_many_distributed([where], truth=truth, index_enabled=index_enabled, positions=positions,
                                             max_positions=max_positions, output=output, spark=spark,
                                             follow_fallback=follow_fallback, **options)[0]

    def explain_many_distributed(self, wheres: Sequence[str | Predicate], *, truth: bool = False,
                                 index_enabled: bool = True,
                                 positions: bool = False, max_positions: int | None = None,
                                 output: str = "dataframe", spark: Any = None, follow_fallback: bool = True,
                                 **options: Any) -> list[SparkExplainReport]:
        """:meth:`explain_distributed` of each predicate, with one read and shuffle of the manifests for
        all (Parquet output of several predicates: partitioned by ``where_index=<i>``)."""
        from ..distributed.spark_plan import explain_on_spark, session_of
        from ..pruning.fallback import FALLBACK_OPTION, fallback_branch

        branch = fallback_branch(self.reader)
        if follow_fallback and branch is not None:
            raise PaimonLensError(f"{self.path} reads partitions it lacks from branch {branch!r} "
                                  f"({FALLBACK_OPTION}); the distributed explain does not follow it: use explain(), "
                                  "or follow_fallback=False to explain this branch's files alone")
        from ..pruning import global_index, pk_index

        if global_index.applies(self.reader, self.rules) or pk_index.applies(self.reader, self.rules):
            raise PaimonLensError(f"{self.path} plans with global or primary-key indexes, which the distributed "
                                  "explain does not apply yet: use explain()")
        return explain_on_spark(self.reader, wheres, rules=self.rules, spark=session_of(self.engine, spark),
                                truth=truth, index_enabled=index_enabled, positions=positions,
                                max_positions=max_positions, output=output, **options)

    def file_indexes_distributed(self, index_type: str | None = None, *, output: str = "dataframe",
                                 spark: Any = None, **options: Any) -> SparkFileIndexes:
        """:meth:`file_indexes` decoded in Spark tasks, for snapshots whose files do not fit the driver.

        Returns a :class:`~paimon_lens.distributed.spark_plan.SparkFileIndexes`: ``frame`` (a Spark
        DataFrame with the columns of :meth:`file_indexes`, typed as
        :func:`~paimon_lens.engines.to_spark` types that frame), ``rows``, ``files_with_errors``.

        Args:
            index_type: one index type only (``bloom-filter``, ``bitmap``, ...).
            output: ``"dataframe"`` or ``"parquet:<path>"``.
            spark: the ``SparkSession`` (default: the table's Spark engine's, else a new one).
            options: ``mode``, ``storage_level``, ``batch_files``, ``entries_per_task`` (see
                :func:`~paimon_lens.distributed.spark_plan.file_indexes_on_spark`).
        """
        from ..distributed.spark_plan import file_indexes_on_spark, session_of

        return file_indexes_on_spark(self.reader, spark=session_of(self.engine, spark), index_type=index_type,
                                     output=output, **options)

    def history(self, start: int | None = None, end: int | None = None, every: int | None = None) -> History:
        """The table's timeline: one row per snapshot kept from ``start`` to ``end`` (or every
        ``every``-th), computed from delta manifests (:class:`~paimon_lens.history.timeline.History`:
        ``frame()``, ``to_dict()``, ``problems``)."""
        from ..history.timeline import history

        return history(self.reader, start, end, every, engine=self.engine)

    def diff(self, a: int, b: int | None = None) -> SnapshotDiff:
        """What changed from snapshot ``a`` to ``b`` (default: this table's snapshot): files added and
        removed, each commit between (compactions: which files merged into which), index coverage,
        deletion vectors, schema and options (:class:`~paimon_lens.history.diff.SnapshotDiff`)."""
        from ..history.diff import diff

        return diff(self.reader, a, self._snapshot_or(b))

    def explain_diff(self, where: str, a: int, b: int | None = None) -> ExplainDiff:
        """``where`` explained at snapshots ``a`` and ``b`` (default: this table's snapshot), the
        difference in bytes read split into its causes (:class:`~paimon_lens.history.diff.ExplainDiff`)."""
        from ..history.diff import explain_diff

        return explain_diff(self.reader, where, a, self._snapshot_or(b), engine=self.engine, rules=self.rules)

    def _snapshot_or(self, snapshot: int | None) -> int:
        if snapshot is not None:
            return int(snapshot)
        if self.snapshot_id is None:
            raise PaimonLensError(f"{self.path} has no snapshot")
        return self.snapshot_id

    @_consistent
    def findings(self, workload: WorkloadLike = None) -> pd.DataFrame:
        """What is wrong with the snapshot's layout and indexes, ranked by cost, each with its evidence
        and the statement that fixes it (:mod:`paimon_lens.advisor.findings`); ``workload`` (a file,
        a list of WHERE clauses or a Workload) adds the checks that need queries."""
        return self.find(workload).frame()

    @_consistent
    @_consistent
    def plan(self, workload: WorkloadLike = None, *, max_files: int | None = None,
             progress: bool | None = None) -> Plan:
        """One tuning plan for the snapshot (:mod:`paimon_lens.advisor.plan`): the recommendations and
        findings resolved into one configuration, ordered steps with their Spark and Flink statements,
        and the predicted effect on ``workload`` (None: derived from the column profiles).
        ``max_files``: measure a seeded sample of the files (predictions are then estimates)."""
        from ..advisor.plan import plan

        return plan(self.reader, workload, max_files=max_files, progress=progress, engine=self.engine,
                    rules=self.rules)

    def shadow(self, out: str | os.PathLike[str], plan: Plan | dict[str, Any]) -> ShadowCopy:
        """Write a shadow copy of the snapshot at ``out`` with ``plan``'s file indexes
        (:mod:`paimon_lens.advisor.shadow`): data files hard-linked (or copied), index files built by
        the byte-identical writers, one snapshot. The table itself is only read; ``out`` inside it
        is refused. ``plan``: a :class:`~paimon_lens.advisor.plan.Plan` or its JSON document."""
        from ..advisor.shadow import shadow

        return shadow(self.reader, out, plan)

    @_consistent
    def find(self, workload: WorkloadLike = None) -> Findings:
        """The :class:`~paimon_lens.advisor.findings.Findings` behind :meth:`findings` (``to_dict()``,
        ``problems``), every check at one snapshot."""
        from ..advisor.findings import find
        from ..workload.model import as_workload

        wl = None if workload is None else as_workload(workload)
        return find(self.reader, wl, engine=self.engine, rules=self.rules)  # the indexes' facts only

    @_consistent
    def deletion_vector_infos(self) -> list[DeletionVectorInfo]:
        """Every deletion vector of the snapshot, decoded on the table's engine
        (:class:`~paimon_lens.inventory.deletion_vectors.DeletionVectorInfo`, one per data file; cached)."""
        from ..inventory.deletion_vectors import deletion_vector_infos

        return list(deletion_vector_infos(self.reader, self.engine))

    def deletion_vectors(self) -> pd.DataFrame:
        """Every deletion vector of the snapshot, decoded and CRC-checked (one row per data file)."""
        return self.inspect.deletion_vectors()

    def hash_index(self) -> pd.DataFrame:
        """HASH (dynamic bucket) index files of the snapshot, decoded."""
        return self.inspect.hash_index()

    def global_indexes(self) -> pd.DataFrame:
        """Every global index (data-evolution tables) and primary-key index file of the snapshot:
        type, column, row range or source files, key range, bytes, the snapshot that added it, and
        what decoding it found (see :data:`paimon_lens.presentation.frame_columns.GLOBAL_INDEX_COLUMNS`)."""
        return self.inspect.global_indexes()

    def global_index_coverage(self) -> pd.DataFrame:
        """Per live data file and indexed column: rows covered by a global or primary-key index, and
        why the others are not (appended after the build, level 0, only moved up a level, rewritten)."""
        return self.inspect.global_index_coverage()

    def global_index_keys(self, column: str | None = None) -> pd.DataFrame:
        """Every key of the btree and bitmap global / primary-key indexes, with the rows holding it."""
        return self.inspect.global_index_keys(column)


def _topn(order_by: str | None, limit: int | None, wheres: Sequence[Any]) -> TopN | None:
    """The query's TopN (None without ``ORDER BY ... LIMIT``); refuses a query with neither a
    condition nor a TopN, and an ORDER BY without its LIMIT."""
    if (order_by is None) != (limit is None):
        raise PaimonLensError("order_by and limit go together (ORDER BY ... LIMIT n)")
    topn = None
    if order_by is not None and limit is not None:
        from ..pruning.topn import TopN

        topn = TopN.parse(order_by, limit)
    if topn is None and any(w is None for w in wheres):
        raise PaimonLensError("a query needs a WHERE condition, an ORDER BY ... LIMIT, or both")
    return topn


def open_table(path: str | os.PathLike[str], snapshot: int | str | _dt.datetime | None = None, *,
               tag: str | None = None,
               timestamp_ms: int | None = None, storage_options: dict[str, Any] | None = None,
               progress: bool | None = None, engine: str | Engine | None = None, spark: Any = None,
               spark_master: str | None = None, branch: str | None = None,
               path_map: dict[str, str] | None = None, paimon_version: str | None = None) -> Table:
    """Open the Paimon table in directory ``path`` at one snapshot.

    Args:
        path: table directory (a string or a path object), local or ``s3://``/``hdfs://``/``oss://``
            (needs the ``remote`` extra).
        snapshot: ``None``/``"latest"``, ``"earliest"``, a snapshot id, ``"tag:NAME"``, a
            ``datetime`` or ISO string (the latest snapshot committed at or before it).
        tag: select the snapshot a tag points to.
        timestamp_ms: select the latest snapshot committed at or before this epoch millisecond.
        storage_options: passed to fsspec for remote paths.
        progress: show a progress bar while reading many manifests (default: when many).
        engine: where per-file work runs: ``"local"`` (default, in process), ``"process"`` (a
            local process pool) or ``"spark"`` (PySpark), or an engine object; see
            :mod:`paimon_lens.engines`.
        spark: a ``SparkSession`` for the Spark engine (implies ``engine="spark"``); without
            one a session is created with ``spark_master`` (default ``local[*]``).
        branch: read this branch's snapshots, schemas and tags (``<table>/branch/branch-<name>``;
            default ``main``). A path ending in ``/branch/branch-<name>`` opens that branch of
            the table above it.
        path_map: rewrites of file locations, ``{prefix: replacement}``: for a table whose
            external data paths (``data-file.external-paths``) were copied or are mounted
            elsewhere, e.g. ``{"oss://bucket/ext": "/mnt/ext"}``. Schemes compare case-insensitively.
        paimon_version: the Paimon release your engine runs (``"0.9"`` ... ``"2.0"``): ``explain``
            applies its pruning rules (default: the newest release modelled). See
            :mod:`paimon_lens.pruning.versions`.

    Raises:
        TableNotFoundError: ``path`` holds no Paimon table.
        SnapshotNotFoundError: the requested snapshot does not exist or has expired.
    """
    path = os.fspath(path)
    local, file_io, schemas, snapshots = locate(path, storage_options, path_map, branch)
    snap, schema = select_snapshot(snapshots, schemas, snapshot, tag=tag, timestamp_ms=timestamp_ms)
    try:
        version = normalize_version(paimon_version)
    except ValueError as e:
        raise PaimonLensError(str(e)) from None
    reader = SnapshotReader(local, file_io, snap, schema, schemas, snapshots, progress=progress,
                            follows_latest=is_latest(snapshot, tag, timestamp_ms))
    return Table(reader, TableContext(get_engine(engine, spark=spark, spark_master=spark_master), version))


__all__ = ["FILE_SOURCES", "LiveFile", "PaimonLensError", "Table", "declared_external_roots", "open_table"]
