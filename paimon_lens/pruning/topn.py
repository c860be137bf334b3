"""``ORDER BY col [ASC|DESC] [NULLS FIRST|LAST] LIMIT n`` pushed into a scan (Paimon 1.3+, TopN).

Two places use it:

1. **splits, at planning** (``AbstractBatchTableScan.applyPushDownTopN``, ``TopNDataSplitEvaluator``):
   append tables (not primary-key), one sort column of BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT,
   DOUBLE or DATE, a limit of at most 100 and no pushed limit; 2.0 also needs no filter on
   non-partition columns (1.3/1.4: no deletion vectors instead). The planned files of each
   partition and bucket, ordered by their minimum sequence number, are packed into splits
   (``source.split.target-size``, 128 MiB, each file weighing at least ``source.split.open-file-cost``,
   4 MiB). When the limit is below the number of splits, the splits whose files all have min/max
   stats of the column and exact bounds (no delete rows, no deletion vector) are sorted by their
   minimum (ascending; descending: maximum), null counts ordering them first or last as the nulls
   do, and only the first ``limit`` of them are kept; the others are kept too.
2. **rows, at reading** (``FileIndexEvaluator``, ``FileIndexPredicate.evaluateTopN``): with no data
   filter, a file whose range-bitmap index on the column answers TopN returns only the ``limit``
   rows it selects among those its deletion vector leaves (all of them when they are at most
   ``limit``). Bitmap and BSI indexes do not answer TopN.

Data-evolution tables (split-level) and the btree global index's TopN (later than 2.0) are not
modelled: their splits are all kept, and the explanation says so.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from ..errors import PaimonLensError

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..types import DataType
    from .versions import PaimonRules

MAX_LIMIT = 100
MINMAX_TYPES = frozenset({"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE"})
_ORDER = re.compile(r"^\s*(?P<col>`[^`]+`|\"[^\"]+\"|[A-Za-z_][\w$]*)\s*(?P<dir>ASC|DESC)?"
                    r"\s*(?:NULLS\s+(?P<nulls>FIRST|LAST))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class TopN:
    """``ORDER BY column direction NULLS ... LIMIT limit``."""

    column: str
    descending: bool
    nulls_first: bool
    limit: int

    @staticmethod
    def parse(order_by: str, limit: int) -> TopN:
        """From ``"col [ASC|DESC] [NULLS FIRST|LAST]"``; nulls default to first for ascending, last
        for descending (Spark's and Flink's defaults)."""
        m = _ORDER.match(order_by)
        if m is None:
            raise PaimonLensError(f"ORDER BY {order_by!r}: expected 'column [ASC|DESC] [NULLS FIRST|LAST]'")
        if limit < 0:
            raise PaimonLensError(f"LIMIT {limit}: a limit can not be negative")
        col = m.group("col").strip('`"')
        desc = (m.group("dir") or "ASC").upper() == "DESC"
        nulls = m.group("nulls")
        return TopN(col, desc, (nulls.upper() == "FIRST") if nulls else not desc, limit)

    def sql(self) -> str:
        """The clause as SQL."""
        return (f"ORDER BY {self.column} {'DESC' if self.descending else 'ASC'} "
                f"NULLS {'FIRST' if self.nulls_first else 'LAST'} LIMIT {self.limit}")


def split_groups(table: SnapshotReader, files: list[LiveFile]) -> list[list[LiveFile]]:
    """The splits an append table's batch scan makes of ``files`` (``AppendOnlySplitGenerator``)."""
    opts = table.schema.core_options
    try:
        target, cost = opts.split_target_size, opts.split_open_file_cost
    except ValueError as e:
        raise PaimonLensError(str(e)) from None
    buckets: dict[tuple[bytes, int], list[LiveFile]] = defaultdict(list)
    for lf in files:
        buckets[(lf.entry.partition, lf.entry.bucket)].append(lf)
    out: list[list[LiveFile]] = []
    for group in buckets.values():
        group = sorted(group, key=lambda lf: lf.file.min_sequence_number)
        current: list[LiveFile] = []
        weight = 0
        for lf in group:
            w = max(lf.file.file_size, cost)
            if weight + w > target and current:
                out.append(current)
                current, weight = [], 0
            weight += w
            current.append(lf)
        if current:
            out.append(current)
    return out


def split_pushdown_applies(table: SnapshotReader, topn: TopN, rules: PaimonRules, has_data_filter: bool,
                           dtype: DataType) -> str | None:
    """Why split-level TopN does not apply (None: it applies)."""
    if not rules.data_evolution:  # 1.3+
        return f"Paimon {rules.version} pushes no TopN into a scan"
    if table.schema.primary_keys:
        return "primary-key tables: splits are not pruned for TopN"
    if topn.limit > MAX_LIMIT:
        return f"a limit above {MAX_LIMIT}: splits are not pruned for TopN"
    if dtype.root not in MINMAX_TYPES:
        return f"{dtype} is not a type whose min/max TopN trusts: splits are not pruned"
    if rules.global_index_search_mode:  # 2.0
        if has_data_filter:
            return "a filter on non-partition columns: splits are not pruned for TopN (Paimon 2.0)"
    elif table.schema.core_options.deletion_vectors_enabled:
        return f"deletion vectors: splits are not pruned for TopN (Paimon {rules.version})"
    if table.schema.core_options.data_evolution_enabled:
        return "data-evolution splits (row-id groups) are not modelled for TopN: every split is kept"
    return None


def select_splits(splits: list[list[LiveFile]], topn: TopN, stats: dict[str, tuple[Any, Any, int | None] | None],
                  sort_key: Any) -> tuple[set[str], dict[str, str]]:
    """The files of the splits TopN keeps, and a reason for each file it drops.

    ``stats``: per file name its (min, max, null count) of the column, or None when the file has
    no usable (tight) bounds.
    """
    if topn.limit > len(splits):
        return {lf.file.file_name for s in splits for lf in s}, {}
    keep: set[str] = set()
    rich: list[tuple[list[LiveFile], Any, Any, int | None]] = []
    for s in splits:
        values = [stats.get(lf.file.file_name) for lf in s]
        if any(v is None for v in values):
            keep.update(lf.file.file_name for lf in s)
            continue
        mins = [v[0] for v in values if v is not None and v[0] is not None]
        maxs = [v[1] for v in values if v is not None and v[1] is not None]
        counts = [v[2] for v in values if v is not None]
        nulls = None if any(c is None for c in counts) else sum(c for c in counts if c is not None)
        rich.append((s, min(mins, key=sort_key) if mins else None, max(maxs, key=sort_key) if maxs else None, nulls))

    def value_key(v: Any) -> tuple[int, Any]:
        # Java's ascCompare/descCompare: a null bound sorts first either way
        if v is None:
            return (0, 0)
        k = sort_key(v)
        return (1, _Neg(k) if topn.descending else k)

    def null_key(n: int | None) -> tuple[int, int]:
        if n is None:
            return (0, 0)
        return (1, -n if topn.nulls_first else n)

    if topn.nulls_first:
        ranked = sorted(rich, key=lambda r: (null_key(r[3]), value_key(r[2] if topn.descending else r[1])))
    else:
        ranked = sorted(rich, key=lambda r: (value_key(r[2] if topn.descending else r[1]), null_key(r[3])))
    kept = ranked[:topn.limit]
    for s, *_ in kept:
        keep.update(lf.file.file_name for lf in s)
    reasons: dict[str, str] = {}
    bound = "max" if topn.descending else "min"
    for rank, (s, lo, hi, _nulls) in enumerate(ranked[topn.limit:], topn.limit + 1):
        v = hi if topn.descending else lo
        for lf in s:
            reasons[lf.file.file_name] = (f"TopN ({topn.sql()}): its split ranks {rank} of {len(splits)} by "
                                          f"{bound}({topn.column}) = {v!r}; only the first {topn.limit} are read")
    return keep, reasons


class _Neg:
    """Reverses the order of a sort key."""

    __slots__ = ("k",)

    def __init__(self, k: Any) -> None:
        self.k = k

    def __lt__(self, other: _Neg) -> bool:
        return bool(other.k < self.k)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Neg) and bool(self.k == other.k)

    def __hash__(self) -> int:
        return hash(self.k)


def file_selection(reader: Any, topn: TopN, base: BitMap) -> BitMap | None:
    """``FileIndexPredicate.evaluateTopN`` with one range-bitmap reader over the rows ``base`` (all
    rows minus the deleted ones): the positions kept, or None when it does not answer."""
    from ..formats.result import BitmapIndexResult

    if len(base) <= topn.limit:
        return BitMap(base)
    visit = getattr(reader, "visit_top_n", None)
    if visit is None:
        return None
    got = visit("DESCENDING" if topn.descending else "ASCENDING", "NULLS_FIRST" if topn.nulls_first else "NULLS_LAST",
                topn.limit, BitmapIndexResult(BitMap(base)), True)
    return BitMap(got.bitmap) if isinstance(got, BitmapIndexResult) else None
