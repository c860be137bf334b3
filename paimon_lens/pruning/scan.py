"""What Paimon's scan planning decides for each data file, stage by stage (Paimon 2.0.0 behaviour).

``plan(table, predicate)`` returns one :class:`PlanDecision` per live data file, modelling
``newReadBuilder().withFilter(predicate).newScan().plan()`` of a batch read:

1. **partition** (``SnapshotReaderImpl.withFilter``, ``PartitionPredicate``): each top-level
   conjunct is projected onto the partition columns (:func:`~.evolution.project`) and the result
   is tested on the entry's partition values (manifest-list partition stats only skip manifests
   whose entries would all fail this test). The conjuncts not entirely on partition columns form
   the *data filter*.
2. **bucket** (``BucketSelectConverter``/``BucketSelector``, see :mod:`.bucket`): fixed-bucket
   tables, equality / ``IN`` on every bucket-key column.
3. **level** (primary-key tables, ``CoreOptions.batchScanSkipLevel0``): with deletion vectors
   (unless ``deletion-vectors.merge-on-read``) or the ``first-row`` merge engine a batch scan only
   reads levels above 0.
4. **stats** (``filterByStats``): the data filter, reduced to its conjuncts that are safe for the
   file's schema (:func:`~.evolution.filter_unsafe_filter`), tested on the file's value stats
   mapped to the table schema by field id (``SimpleStatsEvolution``: dense stats, missing columns
   all-null). Append tables always; primary-key tables only when the value filter is enabled
   (same condition as the level rule), otherwise only the primary-key conjuncts on the key stats.
5. **index**: when the stats keep the file and ``file-index.read.enabled`` (and, for primary-key
   tables, deletion vectors), the *embedded* file index is evaluated with the data filter devolved
   to the file's schema. External ``.index`` files are only read by the reader, after planning.
6. **whole bucket** (primary-key tables, ``postFilterManifestEntries``): the files left in a bucket
   are filtered per file by value stats (and embedded index) when they do not overlap (one level,
   not 0), else the bucket is kept whole if any of its files passes, dropped whole otherwise
   (kept whole without deletion vectors for ``partial-update``/``aggregation``).

Paimon 0.9.0 differs in ways the recorded 0.9 plans do not show for their predicates: partition
conjuncts were split all-or-nothing, primary-key files tested either the value filter (level > 0
with deletion vectors or ``first-row``) or the key filter, never both, primary-key tables had no
file index, the bucket filter (see :mod:`.bucket`) was simpler, and OR of a bitmap result with a
non-bitmap result was wrong (``paimon_09_bitmap_or=True`` reproduces it).

Work done per plan, not per file: the filters derived for a file schema (unsafe conjuncts removed,
devolved predicates), the partition and bucket answers of a partition, and the leaf answers on one
file's stats (the predicate and its data filter share their leaves). Each file's index answer
(``PlanDecision.index_result``) is evaluated on first use: by the planner for files whose value
stats pass, when they have an embedded index it uses, by the reason of a planned file, or later by
the caller; the predicate and the data filter are answered from one container, each leaf once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, cast

from ..errors import PaimonLensError, Problem
from ..formats.file_index_format import FileIndexFormatReader
from ..formats.index_reader import EmptyFileIndexReader
from ..formats.result import REMAIN, FileIndexResult, IndexAnswer
from ..inventory.file_indexes import ContainerCache
from ..metadata.gc_pause import gc_paused
from ..metadata.row_ranges import data_evolution_enabled
from ..metadata.snapshot_reader import IndexLocation
from ..metadata.stats import ColumnStats
from ..predicate.model import LeafPredicate, Predicate, and_, leaves
from ..types import DataField
from .bucket import BucketSelector
from .compare import compile_row_test, row_test, signed_binary_compare, signed_binary_order
from .evolution import devolve_filter, fields_within, filter_unsafe_filter, pick, split_and
from .file_index_predicate import FileIndexPredicate
from .lazy_text import LazyText, resolved
from .scan_stages import (
    BucketStage,
    EmbeddedIndexStage,
    FileEval,
    GroupStage,
    KeyStatsStage,
    LevelStage,
    PartitionStage,
    PlaceStage,
    RowRangeStatsStage,
    ValueStatsStage,
    WholeBucketStage,
)
from .stats import StatsTest, compile_stats_test
from .versions import rules_of_newest

if TYPE_CHECKING:
    from ..metadata.schema import TableSchema
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .stats_vector import StatsMask
    from .versions import PaimonRules

_new = object.__new__


@dataclass(frozen=True)
class PlanDecision:
    """Paimon's planning decision for one live data file.

    Attributes:
        file_name: the data file.
        partition: its partition values (internal form).
        bucket / level: where it lives.
        partition_keep: the partition filter keeps it (True without a partition filter).
        bucket_keep: bucket pruning keeps it; None when no bucket pruning applies.
        level_keep: the level-0 rule of primary-key batch scans keeps it.
        stats_keep: the predicate tested on the file's own value stats (2.0 ``filterByStats``:
            unsafe conjuncts removed, stats evolved), whatever the planner does with it.
        stats_used: the planner decides this file with its value stats (append tables with a data
            filter; primary-key tables when the value filter applies per file).
        key_keep: primary-key tables: the primary-key conjuncts on the key stats; None without
            such conjuncts or for append tables.
        index_result: ``REMAIN``/``SKIP`` of the file's index container (embedded or external) for
            the predicate devolved to the file's schema; ``NO_INDEX`` without a container.
        index_location: ``embedded``, ``external`` or ``none``.
        index_used_at_planning: the planner evaluates the embedded index of this file.
        whole_bucket_keep: primary-key tables: the whole-bucket rule keeps it (None: not applied).
        planned: the file is in Paimon's plan.
        stage: the first stage that removed it (``partition``, ``bucket``, ``level``, ``stats``,
            ``index``, ``whole_bucket``), ``""`` when planned.
        reason: why, in a few words (for planned files: what happens next, if anything).
        index_error: why the index could not be read (index_result is then REMAIN).
        index: the container's full answer behind ``index_result`` (a bitmap of candidate rows
            for bitmap V2, range-bitmap and bsi), None without an index.
    """

    file_name: str
    partition_keep: bool
    bucket_keep: bool | None
    stats_state: bool | Callable[[], bool]
    """``stats_keep``, or the function that tells it (files no stage reaches the stats of: their
    stats are decoded only when asked)."""
    stats_used: bool
    index_used_at_planning: bool
    planned: bool
    stage: str
    reason: str
    partition: Mapping[str, Any] = field(default_factory=dict, compare=False)
    bucket: int = 0
    level: int = 0
    level_keep: bool = True
    key_keep: bool | None = None
    index_location: str = "none"
    whole_bucket_keep: bool | None = None
    row_group: tuple[int, int, int] | None = None
    """Data-evolution tables: ``(first row id, last row id, files)`` of the file's row-range group."""
    index_state: Callable[[], tuple[IndexAnswer, str | None, FileIndexResult | None]] | None = field(
        default=None, compare=False, repr=False)

    @property
    def stats_keep(self) -> bool:
        """The predicate tested on the file's value stats (decoded on first use for files that the
        partition, bucket or level stage removed)."""
        state = self.stats_state
        if callable(state):
            state = bool(state())
            object.__setattr__(self, "stats_state", state)
        return state

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (to leave a task's process) without the index evaluator, which holds the task's
        readers: the answer travels if it was computed (planning or the read stage asked), else a
        :class:`Pending` marker does, for the receiving process to answer on first use. The stats
        answer travels decided."""
        state = resolved(self.__dict__, "reason")
        state["stats_state"] = self.stats_keep
        answer = state.get("index_state")
        if answer is not None and "_index_cache" not in state:
            computed = getattr(answer, "computed", None)  # planning may have asked the evaluator directly
            if computed is not None:
                state["_index_cache"] = computed
                state["index_state"] = None
            else:
                state["index_state"] = Pending()
        else:
            state["index_state"] = None  # no index, or its answer travels in the cache
        return _restore_decision, (state,)

    def _index_answer(self) -> tuple[IndexAnswer, str | None, FileIndexResult | None]:
        cached: tuple[IndexAnswer, str | None, FileIndexResult | None] | None = self.__dict__.get("_index_cache")
        if cached is None:
            cached = (IndexAnswer.NO_INDEX, None, None) if self.index_state is None else self.index_state()
            object.__setattr__(self, "_index_cache", cached)
        return cached

    @property
    def index_result(self) -> IndexAnswer:
        """``REMAIN``/``SKIP``/``NO_INDEX`` (evaluated on first use; the same answer whenever it is)."""
        return self._index_answer()[0]

    @property
    def index_error(self) -> str | None:
        """Why the index could not be read (``index_result`` is then REMAIN)."""
        return self._index_answer()[1]

    @property
    def index(self) -> FileIndexResult | None:
        """The container's full answer (a bitmap for bitmap V2, range-bitmap and bsi), or None."""
        return self._index_answer()[2]


PlanDecision.reason = LazyText("reason")  # type: ignore[assignment]  # text written on first read


def partition_filter(table: SnapshotReader, predicate: Predicate | None, whole: bool = False) -> Predicate | None:
    """The partition filter Paimon splits off ``predicate`` (bound to the partition columns), or None.

    ``whole`` (Paimon < 1.4): only conjuncts entirely on partition columns; else (1.4+) each
    conjunct projected onto them (an AND keeps its projectable children, an OR needs all).
    """
    keys = list(table.schema.partition_keys)
    if predicate is None or not keys:
        return None
    conjuncts = split_and(predicate)
    if whole:
        conjuncts = [c for c in conjuncts if fields_within(c, keys)]
    parts = pick(conjuncts, keys)
    return and_(*parts) if parts else None


def data_filter(table: SnapshotReader, predicate: Predicate | None) -> Predicate | None:
    """The conjuncts of ``predicate`` not entirely on partition columns (Paimon's non-partition filter)."""
    keys = set(table.schema.partition_keys)
    kept = [c for c in split_and(predicate) if not (keys and fields_within(c, keys))]
    return and_(*kept) if kept else None


def partition_keep(table: SnapshotReader, predicate: Predicate | None, lf: LiveFile) -> bool:
    """Whether the partition filter of ``predicate`` keeps ``lf``'s partition."""
    part = partition_filter(table, predicate)
    return part is None or row_test(part, lf.partition)


def _fields_named(schema: TableSchema, names: Sequence[str]) -> list[DataField]:
    by_name = {f.name: f for f in schema.fields}
    return [by_name[n] for n in names if n in by_name]


Opened = tuple[FileIndexFormatReader | None, dict[str, Any], frozenset[str]]
"""An index container looked up in the cache: (container or None, its column readers, its columns)."""


class _LaterStatsTest:
    """``PlanDecision.stats_state`` of a file whose stats no planning stage needs: the predicate's
    stats test, run on first use under the release's byte order (as planning would have run it)."""

    __slots__ = ("_args", "_signed", "_test")

    def __init__(self, test: StatsTest, row_count: int,
                 stats: Sequence[ColumnStats], signed: bool) -> None:
        self._test, self._args, self._signed = test, (row_count, stats), signed

    def __call__(self) -> bool:
        with signed_binary_order(self._signed):
            return bool(self._test(*self._args, {}))

    def __eq__(self, other: object) -> bool:  # decisions compare by their answers
        return self() == (other() if callable(other) else other)

    __hash__ = None  # type: ignore[assignment]


class _SchemaFilters:
    """The planner's filters for files written with one schema (computed once per schema id)."""

    def __init__(self, planner: _Planner, file_schema: TableSchema) -> None:
        self.schema = file_schema
        self.same = same = file_schema.id == planner.schema.id
        fields = planner.fields
        self.full = filter_unsafe_filter(planner.predicate, fields, file_schema.fields, same)
        self.safe = filter_unsafe_filter(planner.data_filter, fields, file_schema.fields, same)
        # stats_test(full / safe, ..., planner.fields, memo), compiled once for the files of this schema
        self.full_test: StatsTest | None = None if self.full is None else compile_stats_test(self.full, fields)
        self.safe_test: StatsTest | None = None if self.safe is None else compile_stats_test(self.safe, fields)
        self.file_keys: list[DataField] = []
        self.safe_key: Predicate | None = None
        if planner.key_filter is not None:
            self.file_keys = _fields_named(file_schema, file_schema.trimmed_primary_keys)
            self.safe_key = filter_unsafe_filter(planner.key_filter, planner.key_fields, self.file_keys, same)
        self.safe_key_test: StatsTest | None = (None if self.safe_key is None
                                                else compile_stats_test(self.safe_key, planner.key_fields))
        self._planner = planner
        self._devolved: dict[bool, Predicate | None] = {}
        self._masks: tuple[StatsMask | None, StatsMask | None] | None = None
        self._index_columns: frozenset[str] | None = None

    def masks(self) -> tuple[StatsMask | None, StatsMask | None]:
        """``full_test`` and ``safe_test`` for a batch of files at once (compiled on first use)."""
        if self._masks is None:
            from .stats_vector import compile_stats_mask  # numpy: loaded when a batch is tested

            fields = self._planner.fields
            self._masks = (None if self.full is None else compile_stats_mask(self.full, fields),
                           None if self.safe is None else compile_stats_mask(self.safe, fields))
        return self._masks

    def index_columns(self) -> frozenset[str]:
        """The columns of the predicate devolved to this schema (those of its data filter among them)."""
        got = self._index_columns
        if got is None:
            devolved = self.devolved(False)
            got = self._index_columns = frozenset(
                leaf.field for leaf in leaves(devolved)) if devolved is not None else frozenset()
        return got

    def devolved(self, data: bool) -> Predicate | None:
        """The predicate (``data``: the data filter) devolved to this schema, for its file indexes."""
        if data not in self._devolved:
            p = self._planner
            self._devolved[data] = devolve_filter(p.data_filter if data else p.predicate, p.fields,
                                                  self.schema.fields, self.same)
        return self._devolved[data]


class _MemoFileIndexPredicate(FileIndexPredicate):
    """A :class:`FileIndexPredicate` that answers each leaf object once.

    The planner evaluates the predicate and then its data filter on the same container; both
    share their leaf objects, so the second walk reuses the first one's leaf answers.
    """

    def __init__(self, index: FileIndexFormatReader, row_type: Sequence[DataField], *,
                 paimon_09_bitmap_or: bool = False, rules: PaimonRules | None = None) -> None:
        super().__init__(index, row_type, paimon_09_bitmap_or=paimon_09_bitmap_or)
        self._answers: dict[int, tuple[LeafPredicate, FileIndexResult]] = {}
        self._rules = rules  # a release that may not read every index type (None: it reads all)

    def visit_leaf(self, leaf: LeafPredicate) -> FileIndexResult:
        got = self._answers.get(id(leaf))
        if got is not None and got[0] is leaf:
            return got[1]
        if self._rules is not None:
            for index_type, reader in self.readers(leaf.field):
                if isinstance(reader, EmptyFileIndexReader):
                    continue  # no reader is created for an empty entry
                why = self._rules.unreadable_index(index_type, getattr(reader, "version", None))
                if why is not None:
                    raise PaimonLensError(f"column {leaf.field!r}: {why}")
        result = super().visit_leaf(leaf)
        self._answers[id(leaf)] = (leaf, result)
        return result


class _IndexAnswer:
    """``PlanDecision.index_state`` of one file: its container's answer, computed on first call."""

    __slots__ = ("_fip", "_keep", "_lf", "_opened", "_planner", "_sf", "_state", "_unindexed")

    def __init__(self, planner: _Planner, sf: _SchemaFilters, lf: LiveFile, keep: bool,
                 opened: Opened | None = None) -> None:
        self._planner = planner
        self._sf = sf
        self._lf = lf
        self._keep = keep  # keep the container for data_remain()
        self._opened = opened  # the container, looked up already by planning (read_whole)
        self._fip: FileIndexPredicate | None = None
        self._state: tuple[IndexAnswer, str | None, FileIndexResult | None] | None = None
        self._unindexed = False  # the container indexes no column of the predicate

    def _compute(self) -> tuple[IndexAnswer, str | None, FileIndexResult | None]:
        p = self._planner
        try:
            opened, self._opened = self._opened, None
            container, readers, columns = opened or p.containers.get(p.table, self._lf)
            if container is None:
                return IndexAnswer.NO_INDEX, None, None
            if columns.isdisjoint(self._sf.index_columns()):
                self._unindexed = True  # every leaf, so the predicate and its data filter, answers REMAIN
                return IndexAnswer.REMAIN, None, REMAIN
            self._fip = fip = _MemoFileIndexPredicate(container, self._sf.schema.fields,
                                                      paimon_09_bitmap_or=p.paimon_09_bitmap_or,
                                                      rules=p.index_rules)
            fip._readers = readers  # the column readers of earlier plans, decoded already
            result = fip.evaluate(self._sf.devolved(False))
            return (IndexAnswer.REMAIN if result.remain() else IndexAnswer.SKIP), None, result
        except (PaimonLensError, OSError, ValueError, KeyError) as e:
            return IndexAnswer.REMAIN, Problem.of(e, text=f"{type(e).__name__}: {e}"), None

    @property
    def computed(self) -> tuple[IndexAnswer, str | None, FileIndexResult | None] | None:
        """The answer if it was computed already (by planning or a reason), else None."""
        return self._state

    def __call__(self) -> tuple[IndexAnswer, str | None, FileIndexResult | None]:
        state = self._state
        if state is None:
            signed = self._planner.rules.signed_binary_compare
            if signed_binary_compare() == signed:
                state = self._state = self._compute()
            else:  # asked after planning (a reason, the read stage): under the order planning uses
                with signed_binary_order(signed):
                    state = self._state = self._compute()
            if not self._keep:
                self._fip = None
        return state

    def data_remain(self) -> bool | None:
        """Whether the embedded index keeps the file for the data filter; None when it cannot tell.

        Evaluated after the predicate itself (whose errors make it None), on the same container.
        """
        state = self()
        fip, self._fip, self._keep = self._fip, None, False
        if self._unindexed:
            return True
        if fip is None or state[1] is not None:
            return None
        try:
            return fip.evaluate(self._sf.devolved(True)).remain()
        except (PaimonLensError, OSError, ValueError, KeyError):
            return None


class _Planner:
    """One predicate on one table: the filters Paimon derives once per scan."""

    def __init__(self, table: SnapshotReader, predicate: Predicate | None, index_enabled: bool,
                 paimon_09_bitmap_or: bool, rules: PaimonRules | None = None) -> None:
        self.table = table
        self.rules = rules = rules or rules_of_newest()
        self.schema = table.schema
        self.fields = list(self.schema.fields)
        opts = self.schema.core_options
        self.predicate = predicate
        self.paimon_09_bitmap_or = paimon_09_bitmap_or or rules.bitmap_or_bug
        # the rules, when the release cannot read every index type (its readers then fail the query)
        self.index_rules = None if rules.index_readable == rules_of_newest().index_readable else rules
        self.partition_filter = partition_filter(table, predicate, rules.partition_conjuncts_whole)
        self.partition_test = None if self.partition_filter is None else compile_row_test(self.partition_filter)
        self.data_filter = data_filter(table, predicate)
        self.pk = bool(self.schema.primary_keys)
        self.dv = opts.deletion_vectors_enabled
        self.merge_engine = opts.merge_engine
        index_read = index_enabled and opts.file_index_read_enabled
        if self.pk:
            if self.dv:
                self.skip_level0 = not (rules.merge_on_read_option
                                        and opts.deletion_vectors_merge_on_read)
            else:
                self.skip_level0 = self.merge_engine == "first-row"
            self.value_filter_enabled = self.data_filter is not None and self.skip_level0
            self.index_at_planning = index_read and self.dv and rules.pk_file_index
            self.key_names = list(self.schema.trimmed_primary_keys)
            conjuncts = split_and(self.data_filter)
            if rules.partition_conjuncts_whole:  # < 1.4: whole conjuncts on the key only
                conjuncts = [c for c in conjuncts if fields_within(c, self.key_names)]
            keys = pick(conjuncts, self.key_names)
            self.key_filter: Predicate | None = and_(*keys) if keys else None
            self.bucket_input = self.key_filter
            if rules.pk_value_xor_key_filter and self.value_filter_enabled:
                self.key_filter = None  # 0.9: the value filter replaces the key filter
        else:
            self.skip_level0 = False
            self.value_filter_enabled = self.data_filter is not None
            self.index_at_planning = index_read
            self.key_names = []
            self.key_filter = None
            self.bucket_input = self.data_filter
        self.key_fields = _fields_named(self.schema, self.key_names)
        self.evolution_groups = data_evolution_enabled(table)
        self._containers: ContainerCache | None = None
        self._dv_files: frozenset[str] | None = None  # data files with a deletion vector (read_whole)
        bucket = opts.bucket
        function = opts.bucket_function_type
        bucket_keys = _fields_named(self.schema, self.schema.bucket_keys)
        if rules.bucket_pruning_legacy:  # < 1.4 ScanBucketFilter: fixed buckets, default hash
            self.bucket_selector = BucketSelector.create(self.bucket_input, bucket_keys,
                                                         bucket > 0 and function == "default", function, legacy=True)
        else:
            fixed = (bucket > 0 or bucket == -2) and function in ("default", "mod")
            self.bucket_selector = BucketSelector.create(predicate, bucket_keys, fixed, function)
        self._schema_filters: dict[int, _SchemaFilters] = {}  # the same schema gives the same filters
        self.partition_sql = _sql(self.partition_filter)
        self.data_sql = _sql(self.data_filter)
        # decoded key stats by file name, kept on the table for the next plan of the snapshot
        self.key_stats: dict[str, list[ColumnStats]] = (
            table.memo(f"key_stats:{','.join(self.key_names)}", dict) if self.key_filter is not None else {})
        # the chain of stages this table, predicate and release have (see .scan_stages)
        self.partition_stage = PartitionStage(self)
        place: list[PlaceStage] = [self.partition_stage]
        if self.bucket_selector is not None:
            place.append(BucketStage(self, self.bucket_selector))
        if self.pk and self.skip_level0:
            place.append(LevelStage(self))
        self.place_stages: tuple[PlaceStage, ...] = tuple(place)
        self.value_stats = ValueStatsStage(self)
        self.embedded_index = EmbeddedIndexStage(self) if self.index_at_planning else None
        self.key_stage = KeyStatsStage(self) if self.key_filter is not None else None
        groups: list[GroupStage] = []
        if self.evolution_groups:
            groups.append(RowRangeStatsStage(self, rules.data_evolution_stats))
        if self.pk and self.data_filter is not None:
            groups.append(WholeBucketStage(self))
        self.group_stages: tuple[GroupStage, ...] = tuple(groups)

    @property
    def containers(self) -> ContainerCache:
        """The table directory's cache of opened index containers (see :meth:`SnapshotReader.shared`)."""
        got = self._containers
        if got is None:
            got = self._containers = self.table.shared("index_containers", ContainerCache)
        return got

    def filters(self, schema_id: int) -> _SchemaFilters:
        """The filters of the files written with schema ``schema_id``."""
        sf = self._schema_filters.get(schema_id)
        if sf is None:
            sf = self._schema_filters[schema_id] = _SchemaFilters(self, self.table.schema_manager.schema(schema_id))
        return sf

    # ---- per batch ----------------------------------------------------------------------------
    @property
    def batch_stats(self) -> bool:
        """Whether a file's plan follows from its own stats alone, so that the stats tests may be
        answered for a batch at once and a file they remove needs nothing else (append tables that
        test a data filter, without row-range groups)."""
        return (not self.pk and self.value_filter_enabled and not self.evolution_groups)

    def stats_masks(self, files: Sequence[LiveFile]) -> list[tuple[bool, bool] | None]:
        """Per file: the stats tests of the predicate and of the data filter, for a batch at once
        (see :meth:`ValueStatsStage.batch`) over the files the partition, bucket and level stages keep."""
        whole = self.partition_filter is None and self.bucket_selector is None and not self.pk
        return self.value_stats.batch(files, None if whole else self.reaches_stats)

    # ---- per file -----------------------------------------------------------------------------
    def read_whole(self, lf: LiveFile) -> tuple[bool, Opened | None]:
        """(whether a file of an append table that planning keeps (its value stats pass the data
        filter, or there is none and the partition and bucket stages keep it) is read whole with
        nothing to say: no stats error, no deletion vector, and an index container (if any) that
        opens without error and indexes none of the predicate's columns, so that every index answer
        is REMAIN; its decision and verdict then follow from its metadata (planned, read, every row)
        and are built on request. The second item: its container as looked up here, if it was, for
        the file's index answer.)"""
        if getattr(lf.stats, "error", None) is not None:
            return False, None
        f = lf.entry.file
        dv_files = self._dv_files
        if dv_files is None:
            from ..inventory.deletion_vectors import DELETION_VECTORS

            dv_files = self._dv_files = frozenset(
                dv.data_file for e in self.table.index_entries() if e.index_type == DELETION_VECTORS
                for dv in e.deletion_vectors or ())
        if f.file_name in dv_files:
            return False, None
        if lf.index_location == IndexLocation.NONE:
            return True, None
        try:
            opened = self.containers.get(self.table, lf)
        except (PaimonLensError, OSError, ValueError, KeyError):
            return False, None  # planned the long way, which says what is wrong
        container, _, columns = opened
        return container is None or columns.isdisjoint(self.filters(f.schema_id).index_columns()), opened

    def reaches_stats(self, lf: LiveFile) -> bool:
        """Whether the partition, bucket and level stages keep ``lf`` (the answers :meth:`evaluate`
        gives, from the stages' own caches)."""
        for stage in self.place_stages:  # noqa: SIM110 (a loop: no generator per file)
            if not stage.keeps(lf):
                return False
        return True

    def evaluate(self, lf: LiveFile, known: tuple[bool, bool] | None = None,
                 opened: Opened | None = None) -> FileEval:
        """The planner's answers for one file, stage by stage; ``known``: the stats tests of the
        predicate and of the data filter on its value stats, when computed already for a batch
        (:meth:`ValueStatsStage.batch`); ``opened``: its index container, looked up already
        (:meth:`read_whole`)."""
        entry = lf.entry
        f = entry.file
        sf = self.filters(f.schema_id)
        d: dict[str, Any] = {"file_name": f.file_name, "partition": dict(lf.partition),
                             "bucket": entry.bucket, "level": f.level, "index_location": lf.index_location,
                             "bucket_keep": None, "level_keep": True}
        ev = FileEval(lf, d)
        for stage in self.place_stages:  # partition, bucket, level: each records its answer
            if not stage.decide(ev) and not ev.stage:
                ev.stage, ev.reason = stage.name, stage.why(ev)
        reached = not ev.stage
        memo: dict[int, bool] = {}  # leaf answers on this file's value stats
        full_test = sf.full_test
        if full_test is None:
            d["stats_state"] = True
        elif reached and known is not None:
            d["stats_state"] = known[0]
        elif reached and self.data_filter is not None:  # the value filter tests the same leaves next
            d["stats_state"] = full_test(f.row_count, lf.stats, memo)
        else:  # no stage looks at this file's stats (or the same leaves): decoded only if someone asks
            d["stats_state"] = _LaterStatsTest(full_test, f.row_count, lf.stats, self.rules.signed_binary_compare)
        self._index(ev, sf, opened)
        if reached and self.data_filter is not None and sf.safe is not None and sf.safe_test is not None:
            # the value filter (no conjunct safe for the schema: Paimon keeps the file, skips the index)
            if (self.value_stats.decide(ev, sf, memo, None if known is None else known[1])
                    and self.embedded_index is not None):
                self.embedded_index.decide(ev)
            if self.value_filter_enabled and not ev.value_test:
                ev.stage, ev.reason = ev.value_stage, ev.value_reason
        d["key_keep"] = None if self.key_stage is None else self.key_stage.decide(ev, sf, not ev.stage)
        ev.survives_scan = not ev.stage
        d["stats_used"] = self.value_filter_enabled
        d["index_used_at_planning"] = bool(reached and self.value_filter_enabled and ev.index_consulted)
        return ev

    def _index(self, ev: FileEval, sf: _SchemaFilters, opened: Opened | None = None) -> None:
        """The index answer, evaluated on first use (by the value filter, the reader or the caller)."""
        d = ev.decision
        d["index_used_at_planning"] = False
        location = d["index_location"]
        if location == IndexLocation.NONE:
            d["index_state"] = None
            return
        keep = location == IndexLocation.EMBEDDED and self.index_at_planning and self.data_filter is not None
        d["index_state"] = _IndexAnswer(self, sf, ev.lf, keep, opened)


def _sql(pred: Predicate | None) -> str:
    return "" if pred is None else pred.sql()


class _KeptReason:
    """The reason of a planned file (``planned``, and what happens next), written on first read (see
    :mod:`.lazy_text`): a planned file that is read shows no reason, so most are never written."""

    __slots__ = ("_bucket_read", "_group", "_index_state", "_location", "_stats_error", "_used")

    def __init__(self, ev: FileEval) -> None:
        d = ev.decision
        self._bucket_read = bool(d.get("whole_bucket_keep") and not ev.value_test)
        self._group: tuple[int, int, int] | None = d.get("row_group")
        self._index_state = d["index_state"]
        self._location: str = d["index_location"]
        self._used: bool = d["index_used_at_planning"]
        self._stats_error: str | None = getattr(ev.lf.stats, "error", None)  # as planning left them

    def __call__(self) -> str:
        notes = []
        if self._bucket_read:
            notes.append("its value stats fail, but its bucket has overlapping files and another one passes, "
                         "so the whole bucket is read")
        group = self._group
        merged = group is not None and group[2] > 1
        index_result = (self._index_state()[0] if self._index_state is not None and not merged
                        else IndexAnswer.NO_INDEX)
        if self._location == IndexLocation.EXTERNAL and index_result == IndexAnswer.SKIP:
            notes.append("its external index answers SKIP, so the reader skips it")
        elif self._location == IndexLocation.EMBEDDED and not self._used and index_result == IndexAnswer.SKIP:
            notes.append("its embedded index (SKIP) is not used at planning; the reader skips the file")
        if self._stats_error:
            notes.append(f"its stats could not be decoded ({self._stats_error})")
        if merged:
            assert group is not None
            notes.append(f"read together with the other files of row ids [{group[0]}, {group[1]}] "
                         f"({group[2]} files merged column by column)")
            if self._location != IndexLocation.NONE:
                notes.append("the reader's file-index skip of a merged group is not modelled: counted as read")
        return "; ".join(["planned", *notes])


class Pending:
    """Stands for an index answer no task needed: the process holding the table computes it on first
    use (see :func:`paimon_lens.pruning.run.explain_branch`)."""

    def __call__(self) -> Any:
        raise RuntimeError("an index answer left for this process was not given an evaluator")


def _restore_decision(state: dict[str, Any]) -> PlanDecision:
    decision = _new(PlanDecision)
    decision.__dict__.update(state)
    return decision


class IndexAnswers:
    """The index answers :func:`plan` gives the files of ``table`` under ``predicate``, one file at a time.

    For decisions planned elsewhere: a distributed explain's tasks send back only the index answers
    their planning needed, and the process holding the table answers the others here, on first
    use, with the planner's own filters (built once, on the first call).
    """

    def __init__(self, table: SnapshotReader, predicate: Predicate | None, *, index_enabled: bool = True,
                 paimon_09_bitmap_or: bool = False, rules: PaimonRules | None = None) -> None:
        self._args = (table, predicate, index_enabled, paimon_09_bitmap_or, rules)
        self._planner: _Planner | None = None

    def state(self, lf: LiveFile) -> Callable[[], tuple[IndexAnswer, str | None, FileIndexResult | None]]:
        """``PlanDecision.index_state`` of ``lf`` (a file with an index container)."""
        if self._planner is None:
            self._planner = _Planner(*self._args)
        p = self._planner
        return _IndexAnswer(p, p.filters(lf.entry.file.schema_id), lf, False)


def plan(table: SnapshotReader, predicate: Predicate | None, *, index_enabled: bool = True,
         paimon_09_bitmap_or: bool = False, rules: PaimonRules | None = None,
         files: Sequence[LiveFile] | None = None) -> list[PlanDecision]:
    """Paimon's planning decision for every live data file of ``table`` under ``predicate``.

    Args:
        table: the table at the snapshot to plan.
        predicate: bound to ``table.schema`` (e.g. from :func:`paimon_lens.predicate.parse_where`);
            None plans every file.
        index_enabled: False models ``file-index.read.enabled = false``.
        paimon_09_bitmap_or: evaluate file indexes with Paimon 0.9.0's wrong ``bitmap OR
            non-bitmap`` (to compare with plans of tables read by 0.9).
        rules: the Paimon release's rules (default: the newest release modelled).

        files: plan these live files of ``table`` only (whole partitions; default: every live file).

    Returns:
        One :class:`PlanDecision` per live file, in ``table.live_files()`` order.
    """
    decisions, _ = plan_deferring(table, predicate, index_enabled=index_enabled,
                                  paimon_09_bitmap_or=paimon_09_bitmap_or, rules=rules, files=files, defer=False)
    return cast("list[PlanDecision]", decisions)


class Undecided:
    """The files :func:`plan_deferring` left undecided: those the value stats remove (stage
    ``stats``), and those it plans that the reader reads whole (:meth:`_Planner.read_whole`);
    nothing else about them is needed to plan the others.

    Attributes:
        positions: the positions (among the files planned) of the files the value stats remove.
        read_whole: the positions of the planned files read whole.
    """

    def __init__(self, planner: _Planner, files: Sequence[LiveFile], positions: list[int],
                 read_whole: list[int] | None = None,
                 known: Sequence[tuple[bool, bool] | None] | None = None) -> None:
        self._planner = planner
        self._files = files
        self.positions = positions
        self.read_whole: list[int] = read_whole or []
        self._known = known  # the batch's stats answers, as planning had them

    def decision(self, position: int) -> PlanDecision:
        """The decision :func:`plan` gives the file at ``position`` (one of :attr:`positions` or
        :attr:`read_whole`): the file planned as it would have been with the others."""
        p = self._planner
        known = None if self._known is None else self._known[position]
        with gc_paused(), signed_binary_order(p.rules.signed_binary_compare):
            ev = p.evaluate(self._files[position], known)
            return _finished(ev)


def plan_deferring(table: SnapshotReader, predicate: Predicate | None, *, index_enabled: bool = True,
                   paimon_09_bitmap_or: bool = False, rules: PaimonRules | None = None,
                   files: Sequence[LiveFile] | None = None, defer: bool = True
                   ) -> tuple[list[PlanDecision | None], Undecided | None]:
    """:func:`plan`, with the stats tests answered for all files at once where a file's plan follows
    from its own stats (append tables), and (``defer``) no decision built for the files they remove
    nor for the files they keep that are read whole (:meth:`_Planner.read_whole`): None at their
    positions, which :class:`Undecided` lists and decides on request."""
    files = table.live_files() if files is None else files
    rules = rules or rules_of_newest()
    with gc_paused(), signed_binary_order(rules.signed_binary_compare):
        planner = _Planner(table, predicate, index_enabled, paimon_09_bitmap_or, rules)
        known = planner.stats_masks(files) if planner.batch_stats else [None] * len(files)
        evals: list[FileEval | None] = []
        removed: list[int] = []
        whole_read: list[int] = []
        check = planner.read_whole if defer else None
        # append tables without a data filter: a file the partition and bucket stages keep is planned
        plain = check is not None and not planner.pk and planner.data_filter is None and not planner.evolution_groups
        for k, lf in enumerate(files):
            answer = known[k]
            opened = None
            if check is not None:
                if answer is not None and not answer[1]:
                    removed.append(k)
                    evals.append(None)
                    continue
                if answer is not None or (plain and planner.reaches_stats(lf)):
                    read_all, opened = check(lf)
                    if read_all:
                        whole_read.append(k)
                        evals.append(None)
                        continue
            evals.append(planner.evaluate(lf, answer, opened))
        whole = [ev for ev in evals if ev is not None]
        for stage in planner.group_stages:  # row-range groups, whole buckets
            stage.apply(whole)
        out = [None if ev is None else _finished(ev) for ev in evals]
    return out, (Undecided(planner, files, removed, whole_read, known) if removed or whole_read else None)


def _finished(ev: FileEval) -> PlanDecision:
    """The decision of a file whose planning is over."""
    d = ev.decision
    d["planned"], d["stage"] = not ev.stage, ev.stage
    d["reason"] = ev.reason if ev.stage else _KeptReason(ev)
    return _decision(d)


_DECISION_DEFAULTS = {f.name: f.default for f in fields(PlanDecision) if f.default is not MISSING}
_DECISION_FIELDS = frozenset(f.name for f in fields(PlanDecision))


def _decision(values: dict[str, Any]) -> PlanDecision:
    """``PlanDecision(**values)`` for thousands of files: the frozen instance's ``__dict__`` is filled
    directly (what the generated ``__init__`` does one ``object.__setattr__`` per field)."""
    decision = _new(PlanDecision)
    state = decision.__dict__
    state.update(_DECISION_DEFAULTS)
    state.update(values)
    if state.keys() != _DECISION_FIELDS:  # a missing or unknown field: let __init__ say which
        return PlanDecision(**values)
    return decision


def planned_files(decisions: Sequence[PlanDecision]) -> list[str]:
    """Names of the files in the plan."""
    return [d.file_name for d in decisions if d.planned]
