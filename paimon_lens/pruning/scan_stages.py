"""The stages of Paimon's scan planning (see :mod:`.scan` for the rules each models, and :mod:`.stage`).

A plan's chain, built by the planner from the table, the predicate and the release's rules:

* per file, from its place: :class:`PartitionStage`, :class:`BucketStage`, :class:`LevelStage`;
* per file that reaches them, the value filter: :class:`ValueStatsStage`, then
  :class:`EmbeddedIndexStage`; then :class:`KeyStatsStage` (primary-key conjuncts on the key stats);
* per group, after every file: :class:`RowRangeStatsStage` (data-evolution tables), then
  :class:`WholeBucketStage` (primary-key tables).

Each stage records its answer on the file's :class:`FileEval` and, when it is the first to drop the
file, says why. Their fast paths are theirs: per-partition and per-bucket-count caches, the
partition answer without building a decision (:meth:`PartitionStage.keeps`, for batches), the value
stats of a batch of files answered at once (:meth:`ValueStatsStage.batch`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ..errors import PaimonLensError
from ..metadata.row_ranges import group_stats, row_range_groups
from ..metadata.snapshot_reader import IndexLocation
from ..metadata.stats import ColumnStats, decode_stats, evolve_stats
from ..predicate.model import Predicate
from ..types import DataField
from .compare import signed_binary_compare, signed_binary_order
from .manifests import rejected_manifests
from .stage import Stage, StageName
from .stats import StatsTest, stats_reason

if TYPE_CHECKING:
    from ..metadata.schema import TableSchema
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .bucket import BucketSelector
    from .stats_vector import StatsColumns, StatsMask
    from .versions import PaimonRules


class SchemaFilters(Protocol):
    """The planner's filters for the files of one schema (see ``scan._SchemaFilters``)."""

    schema: TableSchema
    safe: Predicate | None
    safe_test: StatsTest | None
    safe_key: Predicate | None
    safe_key_test: StatsTest | None
    file_keys: list[DataField]

    def masks(self) -> tuple[StatsMask | None, StatsMask | None]: ...


class Scan(Protocol):
    """What the scan stages read of the planner: the filters Paimon derives once per scan."""

    table: SnapshotReader
    rules: PaimonRules
    schema: TableSchema
    fields: list[DataField]
    pk: bool
    dv: bool
    merge_engine: str
    partition_filter: Predicate | None
    partition_test: Callable[[Mapping[str, Any]], bool] | None
    partition_sql: str
    data_filter: Predicate | None
    data_sql: str
    bucket_selector: BucketSelector | None
    skip_level0: bool
    value_filter_enabled: bool
    index_at_planning: bool
    key_filter: Predicate | None
    key_fields: list[DataField]
    key_stats: dict[str, list[ColumnStats]]

    def filters(self, schema_id: int) -> SchemaFilters: ...


@dataclass(slots=True)
class FileEval:
    """One file's answers while its plan is made."""

    lf: LiveFile
    decision: dict[str, Any]
    value_test: bool = True  # value stats (+ embedded index when used) of the planner
    value_reason: str | Callable[[], str] = ""
    value_stage: str = ""
    index_remain: bool | None = None  # the embedded index on the data filter, when the planner uses it
    index_consulted: bool = False  # the value stats passed, so the planner evaluates the embedded index
    survives_scan: bool = True  # after partition, bucket, level and filterByStats
    stage: str = ""
    reason: str | Callable[[], str] = ""  # text, or the function writing it on first read


def _part(values: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v!s}" for k, v in values.items()) + "}"


class ScanStage(Stage):
    """A stage of the scan, holding one plan's caches."""

    phase = "scan"

    def __init__(self, scan: Scan) -> None:
        self.scan = scan


class PlaceStage(ScanStage):
    """A stage deciding a file from where it lives (partition, bucket, level), before its stats."""

    def keeps(self, lf: LiveFile) -> bool:
        """Whether the stage keeps ``lf`` (the answer :meth:`decide` records, without recording it)."""
        raise NotImplementedError

    def decide(self, ev: FileEval) -> bool:
        """Record the stage's answer for ``ev``'s file; whether it keeps the file."""
        raise NotImplementedError

    def why(self, ev: FileEval) -> str:
        """Why the stage drops ``ev``'s file."""
        raise NotImplementedError


class PartitionStage(PlaceStage):
    """``SnapshotReaderImpl.withFilter``: the partition filter on the entry's partition values, and the
    manifests the manifest list's partition stats exclude (their entries are never read)."""

    name = StageName.PARTITION

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self._keep: dict[bytes, bool] = {}
        self._reasons: dict[bytes, str] = {}
        self._rejected: dict[str, Any] | None = None  # manifests whose partition stats fail the filter

    def answer(self, lf: LiveFile) -> tuple[bool, bool]:
        """(the stage keeps the file, its manifest is not read though its partition passes)."""
        scan, entry = self.scan, lf.entry
        keep = self._keep.get(entry.partition)
        if keep is None:
            test = scan.partition_test
            keep = self._keep[entry.partition] = test is None or test(lf.partition)
        if keep and scan.partition_filter is not None:
            if self._rejected is None:
                with signed_binary_order(scan.rules.signed_binary_compare):
                    self._rejected = rejected_manifests(scan.table, scan.partition_filter)
            if entry.manifest in self._rejected:
                return False, True  # Paimon does not read the manifest, whatever the entry says
        return keep, False

    def keeps(self, lf: LiveFile) -> bool:
        return self.answer(lf) == (True, False)

    def decide(self, ev: FileEval) -> bool:
        keep = ev.decision["partition_keep"] = self.answer(ev.lf)[0]
        return keep

    def why(self, ev: FileEval) -> str:
        scan, entry, d = self.scan, ev.lf.entry, ev.decision
        if self.answer(ev.lf)[1]:
            meta = (self._rejected or {})[entry.manifest]
            return (f"its manifest {meta.file_name} is not read: the partition stats of the manifest list "
                    f"{meta.manifest_list} fail {scan.partition_sql}, though the file's partition "
                    f"{_part(d['partition'])} passes (the stats are wrong)")
        why = self._reasons.get(entry.partition)
        if why is None:
            why = self._reasons[entry.partition] = f"partition {_part(d['partition'])} fails {scan.partition_sql}"
        return why


class BucketStage(PlaceStage):
    """``BucketSelectConverter``/``BucketSelector`` (see :mod:`.bucket`): the buckets the bucket-key
    values of the filter hash to, per partition and bucket count."""

    name = StageName.BUCKET

    def __init__(self, scan: Scan, selector: BucketSelector) -> None:
        super().__init__(scan)
        self.selector = selector
        self._buckets: dict[tuple[bytes, int], frozenset[int] | None] = {}

    def buckets(self, lf: LiveFile) -> frozenset[int] | None:
        """The buckets kept in the file's partition (None: all)."""
        entry = lf.entry
        key = (entry.partition, entry.total_buckets)
        if key in self._buckets:
            return self._buckets[key]
        got = self._buckets[key] = self.selector.buckets(lf.partition, entry.total_buckets)
        return got

    def keeps(self, lf: LiveFile) -> bool:
        buckets = self.buckets(lf)
        return buckets is None or lf.entry.bucket in buckets

    def decide(self, ev: FileEval) -> bool:
        buckets = self.buckets(ev.lf)
        keep = ev.decision["bucket_keep"] = None if buckets is None else ev.lf.entry.bucket in buckets
        return keep is not False

    def why(self, ev: FileEval) -> str:
        keys = ", ".join(self.scan.schema.bucket_keys)
        return (f"bucket {ev.decision['bucket']} is not among the buckets {sorted(self.buckets(ev.lf) or ())} "
                f"of the {keys} values")


class LevelStage(PlaceStage):
    """``CoreOptions.batchScanSkipLevel0``: primary-key batch scans that read only levels above 0
    (deletion vectors unless merge-on-read, or the ``first-row`` merge engine)."""

    name = StageName.LEVEL
    label = "after level-0 rule"
    primary_key_only = True

    def keeps(self, lf: LiveFile) -> bool:
        return lf.entry.file.level != 0

    def decide(self, ev: FileEval) -> bool:
        keep = ev.decision["level_keep"] = ev.lf.entry.file.level != 0
        return keep

    def why(self, ev: FileEval) -> str:
        return "level-0 file: this batch scan reads only levels above 0"


class _StatsReason:
    """The reason a file's value stats fail the value filter, written on first read (see
    :mod:`.lazy_text`)."""

    __slots__ = ("_args", "_signed")

    def __init__(self, predicate: Predicate, row_count: int, stats: Sequence[ColumnStats],
                 fields: Sequence[DataField], memo: dict[int, bool]) -> None:
        self._args = (predicate, row_count, stats, fields, memo)
        self._signed = signed_binary_compare()  # written later: under the order planning used

    def __call__(self) -> str:
        with signed_binary_order(self._signed):
            return "stats: " + (stats_reason(*self._args) or "")


#: the batches of files whose gathered stats columns a table keeps (see :meth:`ValueStatsStage.batch`)
_STATS_BATCHES_KEPT = 4


def _batches(files: Sequence[LiveFile], positions: Iterable[int]) -> dict[int, tuple[list[int], StatsColumns]]:
    """The files at ``positions`` grouped by schema id: (their positions, their value stats)."""
    from .stats_vector import StatsColumns

    by_schema: dict[int, list[int]] = {}
    for k in positions:
        by_schema.setdefault(files[k].entry.file.schema_id, []).append(k)
    return {sid: (ks, StatsColumns([files[k].stats for k in ks], [files[k].entry.file.row_count for k in ks]))
            for sid, ks in by_schema.items()}


class ValueStatsStage(ScanStage):
    """``filterByStats``: the data filter, its conjuncts unsafe for the file's schema removed, on the
    file's value stats evolved to the table schema (removes files when the value filter applies;
    on other primary-key tables its answer feeds :class:`WholeBucketStage`)."""

    name = StageName.STATS

    def decide(self, ev: FileEval, sf: SchemaFilters, memo: dict[int, bool], known: bool | None) -> bool:
        """Record the value stats' answer (``known``: computed already for a batch); whether they pass."""
        safe, safe_test = sf.safe, sf.safe_test
        if safe is None or safe_test is None:
            return True  # no conjunct is safe for this schema: Paimon keeps the file and skips the index
        f = ev.lf.entry.file
        if safe_test(f.row_count, ev.lf.stats, memo) if known is None else known:
            return True
        ev.value_test, ev.value_stage = False, self.name
        ev.value_reason = _StatsReason(safe, f.row_count, ev.lf.stats, self.scan.fields, memo)
        return False

    def batch(self, files: Sequence[LiveFile], reaching: Callable[[LiveFile], bool] | None
              ) -> list[tuple[bool, bool] | None]:
        """Per file: the stats tests of the predicate and of the data filter, answered per schema for
        a batch at once (numpy, :mod:`.stats_vector`) over the files that reach this stage
        (``reaching``; None: all of them); None for the others. When every file reaches it, the
        gathered stats columns are kept on the table for the next plan of the same files."""
        scan = self.scan
        out: list[tuple[bool, bool] | None] = [None] * len(files)
        if reaching is None:
            kept: dict[int, tuple[Sequence[LiveFile], dict[int, tuple[list[int], StatsColumns]]]] = (
                scan.table.memo("stats_batches", dict))
            got = kept.get(id(files))
            if got is None or got[0] is not files:
                if len(kept) >= _STATS_BATCHES_KEPT:
                    kept.clear()
                got = kept[id(files)] = (files, _batches(files, range(len(files))))
            groups = got[1]
        else:
            groups = _batches(files, [k for k, lf in enumerate(files) if reaching(lf)])
        for schema_id, (positions, batch) in groups.items():
            batch.forget_masks()  # the leaves of earlier predicates
            full, safe = scan.filters(schema_id).masks()
            full_keep = [True] * len(positions) if full is None else full(batch).tolist()
            safe_keep = [True] * len(positions) if safe is None else safe(batch).tolist()
            for k, a, b in zip(positions, full_keep, safe_keep):
                out[k] = (a, b)
        return out


class EmbeddedIndexStage(ScanStage):
    """The embedded file index evaluated while planning, on the data filter devolved to the file's
    schema, for files whose value stats pass (``file-index.read.enabled``; primary-key tables with
    deletion vectors only)."""

    name = StageName.INDEX

    def decide(self, ev: FileEval) -> bool:
        """Record the index's answer on the data filter; whether it keeps the file."""
        answer = ev.decision["index_state"]
        data_remain = getattr(answer, "data_remain", None)  # the file's index answer, if it has an index
        if data_remain is not None and ev.decision["index_location"] == IndexLocation.EMBEDDED:
            ev.index_remain = data_remain()
        ev.index_consulted = ev.index_remain is not None
        if ev.index_consulted and ev.index_remain is False:
            ev.value_test, ev.value_stage = False, self.name
            ev.value_reason = f"embedded index answers SKIP for {self.scan.data_sql}"
            return False
        return True


def _key_stats(lf: LiveFile, file_keys: Sequence[DataField], file_schema: TableSchema,
               key_fields: Sequence[DataField]) -> list[ColumnStats]:
    f = lf.entry.file
    try:
        stored = decode_stats(f.key_stats, file_keys, f"{f.file_name} _KEY_STATS")
    except PaimonLensError:
        return [ColumnStats(None, None, None) for _ in key_fields]
    return evolve_stats(stored, file_keys, file_schema, key_fields, f.row_count)


class KeyStatsStage(ScanStage):
    """Primary-key tables: the primary-key conjuncts of the data filter on the key stats."""

    name = StageName.STATS

    def decide(self, ev: FileEval, sf: SchemaFilters, first: bool) -> bool | None:
        """The key filter's answer (None: nothing to test); when it drops the file and is the
        first stage to (``first``), the file's stage and reason are set."""
        safe, test = sf.safe_key, sf.safe_key_test
        if safe is None or test is None:
            return True
        scan, lf = self.scan, ev.lf
        f = lf.entry.file
        stats = scan.key_stats.get(f.file_name)
        if stats is None:
            stats = scan.key_stats[f.file_name] = _key_stats(lf, sf.file_keys, sf.schema, scan.key_fields)
        memo: dict[int, bool] = {}
        if test(f.row_count, stats, memo):
            return True
        if first:
            ev.stage, ev.reason = self.name, "key stats: " + (
                stats_reason(safe, f.row_count, stats, scan.key_fields, memo) or "")
        return False


class GroupStage(ScanStage):
    """A stage deciding groups of files together, after every file's own stages."""

    def apply(self, evals: list[FileEval]) -> None:
        """Decide the groups of ``evals`` (in place)."""
        raise NotImplementedError


class RowRangeStatsStage(GroupStage):
    """Data-evolution tables (``DataEvolutionFileStoreScan.postFilterManifestEntries``): each group of
    files holding columns of the same rows (:mod:`paimon_lens.metadata.row_ranges`) is kept or dropped
    whole by the data filter on the group's merged stats (``use_stats``; the release may not test
    them); file indexes are not used by this scan."""

    name = StageName.STATS

    def __init__(self, scan: Scan, use_stats: bool) -> None:
        super().__init__(scan)
        self.use_stats = use_stats

    def apply(self, evals: list[FileEval]) -> None:
        scan = self.scan
        by_file = {id(ev.lf): ev for ev in evals}
        sf = scan.filters(scan.schema.id)
        test = sf.safe_test
        for group in row_range_groups([ev.lf for ev in evals]):
            members = [by_file[id(lf)] for lf in group.files]
            rows = (f"row ids [{group.first_row_id}, {group.last_row_id}]" if group.first_row_id is not None
                    else "a file without row ids")
            keep, why = True, ""
            if self.use_stats and scan.data_filter is not None and test is not None and sf.safe is not None:
                stats = group_stats(scan.table, group)
                memo: dict[int, bool] = {}
                keep = test(group.row_count, stats, memo)
                if not keep:
                    why = stats_reason(sf.safe, group.row_count, stats, scan.fields, memo) or ""
            for ev in members:
                ev.decision["row_group"] = (group.first_row_id, group.last_row_id, len(group.files)) \
                    if group.first_row_id is not None else None
                ev.index_remain, ev.index_consulted = None, False
                ev.value_test = keep
                ev.value_stage = "" if keep else self.name
                what = f"{rows}, merged from {len(group.files)} files" if group.merged else rows
                ev.value_reason = "" if keep else f"stats of the row-range group ({what}): {why}"
                ev.decision["index_used_at_planning"] = False
                if ev.stage in ("partition", "bucket", "level"):
                    continue
                ev.stage, ev.reason = ("", "") if keep else (self.name, ev.value_reason)
                ev.survives_scan = keep


def _no_overlapping(levels: Sequence[int]) -> bool:
    return len(levels) <= 1 or (0 not in levels and len(set(levels)) == 1)


class WholeBucketStage(GroupStage):
    """Primary-key tables (``postFilterManifestEntries``): the files left in a bucket are decided per
    file by the value filter when they do not overlap (one level, not 0); else the bucket is kept
    whole if any of its files passes, dropped whole otherwise (kept whole without deletion vectors
    for ``partial-update``/``aggregation``)."""

    name = StageName.WHOLE_BUCKET
    label = "after whole-bucket rule"
    primary_key_only = True
    _REASON: ClassVar[str] = ("overlapping files: no file of this bucket passes the value filter, "
                              "so the whole bucket is skipped")

    def apply(self, evals: list[FileEval]) -> None:
        scan = self.scan
        groups: dict[tuple[bytes, int], list[FileEval]] = {}
        for ev in evals:
            if ev.survives_scan:
                groups.setdefault((ev.lf.entry.partition, ev.lf.entry.bucket), []).append(ev)
        for group in groups.values():
            if _no_overlapping([ev.lf.entry.file.level for ev in group]):
                for ev in group:
                    ev.decision["whole_bucket_keep"] = ev.value_test
                    ev.decision["stats_used"] = True
                    if not ev.value_test:
                        ev.stage, ev.reason = ev.value_stage, ev.value_reason
                continue
            keep = (True if not scan.dv and scan.merge_engine in ("partial-update", "aggregation")
                    else any(ev.value_test for ev in group))
            for ev in group:
                ev.decision["whole_bucket_keep"] = keep
                if not keep:
                    ev.stage, ev.reason = self.name, self._REASON
