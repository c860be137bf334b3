"""What a data-evolution table's global indexes select for a predicate, as Paimon's scan plans it.

Paimon 1.4+ (``DataEvolutionBatchScan``, ``DataEvolutionGlobalIndexScanner``, ``GlobalIndexEvaluator``)
answers the filter from the global index files of the columns it references, before any manifest is
read, when ``data-evolution.enabled`` and ``global-index.enabled`` (default) hold:

1. **files**: the index manifest's global (not primary-key) entries whose partition passes the
   partition filter and whose field (or an extra field) the filter references;
2. **leaves**: per column, one reader per (index type, row range) over the files of that range, each
   file first picked by its ``_INDEX_META`` key range (none picked: an answered empty set); ``=``,
   ``IN``, ``<>``, ``NOT IN``, ``IS [NOT] NULL`` and ``startsWith`` are answered exactly; ranges,
   ``BETWEEN``, ``NOT BETWEEN``, ``endsWith``, ``contains`` and ``LIKE`` (2.0) only when the picked
   files total at most ``btree-index.fallback-scan-max-size`` / ``bitmap-index.fallback-scan-max-size``
   (256 MiB), the btree answering ``endsWith``/``contains``/``LIKE`` with every non-null row; a
   column's readers are united, and (2.0) one that cannot answer makes the leaf unanswered (1.4:
   skipped; the index types of a column intersected);
3. **AND** intersects the answered children (unanswered ones are ignored), **OR** is unanswered when
   any child is;
4. **search mode** (``scalar-index.search-mode``, else ``global-index.search-mode``; 2.0): ``fast``
   (default; 1.4 always) returns the index's rows only, so rows no index covers are never read;
   ``full`` and ``detail`` add every row id outside the ranges all referenced columns' indexes cover
   (2.0.0 counts every referenced column, partition columns included: one without an index adds all
   rows back).

The selected row ids then prune manifests (``_MIN_ROW_ID``/``_MAX_ROW_ID``) and files (a file whose
row-id range holds none is not read), and the reader of a kept file returns only the selected rows.
An unanswered predicate leaves the scan as it is. ``_ROW_ID`` predicates are not modelled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pyroaring import BitMap, BitMap64

from ..errors import PaimonLensError
from ..formats.global_index.sorted_index import SortedIndex
from ..inventory.global_indexes import GLOBAL, GlobalIndexFile, global_index_files, open_global_index
from ..metadata.options import memory_option
from ..metadata.row_ranges import intersect_ranges, merge_ranges, subtract_ranges
from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate, leaves
from ..predicate.visitor import PredicateVisitor, visit
from .compare import like_regex, row_test

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader
    from .versions import PaimonRules

SEARCH_MODES = ("fast", "full", "detail")
DEFAULT_FALLBACK_SCAN_MAX = 256 * 1024 * 1024
EXACT_FUNCTIONS = frozenset({"Equal", "In", "NotEqual", "NotIn", "IsNull", "IsNotNull", "StartsWith"})
GATED_FUNCTIONS = frozenset({"LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "Between", "NotBetween",
                    "EndsWith", "Contains", "Like"})


@dataclass
class GlobalIndexSelection:
    """The rows a data-evolution table's global indexes select for one predicate.

    Attributes:
        rows: global row ids the scan keeps (index result plus, in ``full``/``detail`` mode, the rows
            no index covers); None when the indexes do not answer the predicate (the scan is as without).
        indexed: the rows the index result alone selects (None: unanswered).
        search_mode: the mode applied (``fast`` for releases without the option).
        unindexed: row-id ranges added back because no index covers them (``full``/``detail``).
        index_files: the index files read (their names), per column.
        errors: index files that could not be read (their leaves are unanswered).
    """

    rows: BitMap64 | None
    indexed: BitMap64 | None
    search_mode: str
    unindexed: list[tuple[int, int]] = field(default_factory=list)
    index_files: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The global index's part of a file's reason."""
        names = "; ".join(f"{col}: {', '.join(n[:40] for n in names)}" for col, names in self.index_files.items())
        extra = f", plus {_ranges(self.unindexed)} no index covers ({self.search_mode} search)" if self.unindexed \
            else f" ({self.search_mode} search: rows no index covers are not searched)"
        return f"global index ({names}) selects {len(self.indexed or ())} rows{extra}"


def _ranges(ranges: Sequence[tuple[int, int]]) -> str:
    text = ", ".join(f"{a}-{b}" for a, b in ranges[:3])
    return "rows " + text + (f" and {len(ranges) - 3} more ranges" if len(ranges) > 3 else "")


def search_mode(options: dict[str, str], rules: PaimonRules, query: str | None = None) -> str:
    """The scalar search mode (``query``'s, else the table options') under the release's rules."""
    if not rules.global_index_search_mode:
        return "fast"
    mode = query or options.get("scalar-index.search-mode") or options.get("global-index.search-mode") or "fast"
    mode = mode.strip().lower()
    if mode not in SEARCH_MODES:
        raise PaimonLensError(f"scalar-index.search-mode = {mode!r}: not one of {', '.join(SEARCH_MODES)}")
    return mode


def applies(table: SnapshotReader, rules: PaimonRules) -> bool:
    """Whether Paimon's scan of this table consults global indexes (data evolution, the option on,
    the release has them, and the snapshot has global index files)."""
    opts = table.schema.core_options
    if not rules.global_index or table.schema.primary_keys:
        return False
    if not opts.data_evolution_enabled or not opts.global_index_enabled:
        return False
    return any(g.kind == GLOBAL for g in global_index_files(table))


def select(table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
           partition_filter: Predicate | None, mode: str | None = None) -> GlobalIndexSelection | None:
    """The global index's selection for ``predicate`` (``mode``: the query's search mode), or None
    when no index file is consulted."""
    if predicate is None or not applies(table, rules):
        return None
    names = {leaf.field for leaf in leaves(predicate)}
    ids = {table.schema.field(n).id for n in names if n in table.schema.field_names}
    files = [g for g in global_index_files(table) if g.kind == GLOBAL
             and (g.field_id in ids or ids & set(g.extra_field_ids))
             and (partition_filter is None or row_test(partition_filter, g.partition))]
    if not files:
        return None
    evaluator = _Evaluator(table, files, rules)
    evaluator.errors.extend(f"{g.path}: its metadata could not be read ({g.error}): the file is searched "
                            "without its key range" for g in files if g.error)
    result = evaluator.evaluate(predicate)
    mode = search_mode(table.schema.options, rules, mode)
    used = {c: sorted({g.file_name for g in gs}) for c, gs in evaluator.by_column.items()}
    if result is None:
        return GlobalIndexSelection(None, None, mode, [], used, evaluator.errors)
    unindexed: list[tuple[int, int]] = []
    if mode != "fast":
        unindexed = _unindexed(table, files, ids, mode, partition_filter)
    rows = BitMap64(result)
    for a, b in unindexed:
        rows.add_range(a, b + 1)
    return GlobalIndexSelection(rows, result, mode, unindexed, used, evaluator.errors)


def _unindexed(table: SnapshotReader, files: list[GlobalIndexFile], ids: set[int], mode: str,
               partition_filter: Predicate | None) -> list[tuple[int, int]]:
    """Row-id ranges of the data no loaded index covers for every referenced field."""
    coverage: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for g in files:
        for fid in (g.field_id, *g.extra_field_ids):
            coverage[fid].append((g.row_range_start, g.row_range_end))
    indexed: list[tuple[int, int]] | None = None
    for fid in ids:
        ranges = merge_ranges(coverage.get(fid, []))
        indexed = ranges if indexed is None else intersect_ranges(indexed, ranges)
    indexed = indexed or []
    if mode == "full":
        next_id = table.snapshot.next_row_id if table.snapshot is not None else None
        data = [(0, next_id - 1)] if next_id else []
    else:  # detail: the live files of the partitions the filter keeps
        data = merge_ranges([(lf.file.first_row_id, lf.file.first_row_id + lf.file.row_count - 1)
                             for lf in table.live_files() if lf.file.first_row_id is not None and lf.file.row_count
                             and (partition_filter is None or row_test(partition_filter, lf.partition))])
    return subtract_ranges(data, indexed)


class _Evaluator:
    """``GlobalIndexEvaluator`` over the loaded index files: a leaf's rows, or None (unanswered)."""

    def __init__(self, table: SnapshotReader, files: list[GlobalIndexFile], rules: PaimonRules) -> None:
        self.table, self.rules = table, rules
        self.by_column: dict[str, list[GlobalIndexFile]] = defaultdict(list)
        for g in files:
            for name in (g.column, *g.extra_columns):
                if name is not None:
                    self.by_column[name].append(g)
        self.errors: list[str] = []
        self.gate = fallback_scan_max_sizes(table.schema.options)

    def evaluate(self, p: Predicate) -> BitMap64 | None:
        return combine(p, self._leaf, BitMap64)

    def _leaf(self, leaf: LeafPredicate) -> BitMap64 | None:
        files = self.by_column.get(leaf.field)
        if not files:
            return None
        by_type: dict[str, dict[tuple[int, int], list[GlobalIndexFile]]] = defaultdict(lambda: defaultdict(list))
        for g in files:
            if g.column == leaf.field:
                by_type[g.index_type][(g.row_range_start, g.row_range_end)].append(g)
        per_type: list[BitMap64 | None] = []
        for index_type, ranges in by_type.items():
            union: BitMap64 | None = None
            for (start, _end), gs in sorted(ranges.items()):
                got = self._range(leaf, index_type, gs, start)
                if got is None:
                    if self.rules.global_index_strict_union:
                        union = None
                        break
                    continue  # 1.4: a range that cannot answer is skipped (none answering: unanswered)
                union = got if union is None else union | got
            per_type.append(union)
        if self.rules.global_index_strict_union:  # one union over every type and range
            out = BitMap64()
            for t in per_type:
                if t is None:
                    return None
                out |= t
            return out
        answered = [t for t in per_type if t is not None]  # 1.4: the types' answers intersected
        if not answered:
            return None
        res = answered[0]
        for t in answered[1:]:
            res &= t
        return res

    def _range(self, leaf: LeafPredicate, index_type: str, files: list[GlobalIndexFile], start: int
               ) -> BitMap64 | None:
        """One (type, row range) reader: its picked files' answers united, offset to global row ids."""
        if index_type not in ("btree", "bitmap"):
            return None
        fn = leaf.function
        picked = [g for g in files if may_hold(g, leaf)]
        if fn in GATED_FUNCTIONS and self.rules.global_index_range_gate:
            if any(v is None for v in leaf.literals) or sum(g.file_size for g in picked) > self.gate[index_type]:
                return None
        elif fn not in EXACT_FUNCTIONS and fn not in GATED_FUNCTIONS:
            return None
        if not picked:
            return BitMap64()
        out = BitMap64()
        for g in picked:
            try:
                idx = open_global_index(self.table, g)
            except (OSError, PaimonLensError) as e:
                self.errors.append(f"{g.path}: {e}")
                return None
            if not isinstance(idx, SortedIndex):
                return None
            local = leaf_answer(idx, leaf, index_type, self.rules)
            if local is None:
                return None
            for r in local:
                out.add(start + r)
        return out


def fallback_scan_max_sizes(options: dict[str, str]) -> dict[str, int]:
    """``btree-index.fallback-scan-max-size`` and ``bitmap-index.fallback-scan-max-size`` (256 MiB)."""
    try:
        return {t: memory_option(options, f"{t}-index.fallback-scan-max-size", DEFAULT_FALLBACK_SCAN_MAX)
                for t in ("btree", "bitmap")}
    except ValueError as e:
        raise PaimonLensError(str(e)) from None


B = TypeVar("B", BitMap, BitMap64)


def combine(p: Predicate, leaf: Callable[[LeafPredicate], B | None], empty: Callable[[], B]) -> B | None:
    """``GlobalIndexEvaluator`` over a predicate tree: AND intersects the answered children (none
    answered: unanswered), OR unites them and is unanswered when any child is; ``leaf`` answers a
    leaf (None: unanswered)."""
    return visit(p, _TreeEvaluator(leaf, empty))


class _TreeEvaluator(PredicateVisitor["B | None"]):
    """Every child is evaluated (each leaf's reads happen whatever its siblings answer)."""

    def __init__(self, leaf: Callable[[LeafPredicate], B | None], empty: Callable[[], B]) -> None:
        self.leaf: Callable[[LeafPredicate], B | None] = leaf
        self.empty: Callable[[], B] = empty

    def visit_leaf(self, leaf: LeafPredicate) -> B | None:
        return self.leaf(leaf)

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[B | None]) -> B | None:
        answers = list(children)
        known = [a for a in answers if a is not None]
        if not known:
            return None
        res = known[0]
        for a in known[1:]:
            res = res & a
        return res

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[B | None]) -> B | None:
        answers = list(children)
        out = self.empty()
        for a in answers:
            if a is None:
                return None
            out |= a
        return out


def may_hold(g: GlobalIndexFile, leaf: LeafPredicate) -> bool:
    """``SortedFileMetaSelector``: whether a file's key range (``_INDEX_META``) may answer the leaf."""
    fn, lits = leaf.function, leaf.literals
    lo, hi, nulls = g.first_key, g.last_key, bool(g.has_nulls)
    only_nulls = lo is None and hi is None and nulls
    if g.first_key is None and g.last_key is None and not nulls:
        return True  # no meta: read it
    if fn == "IsNull":
        return nulls
    if only_nulls:
        return False
    if lo is None or hi is None:
        return True
    try:
        if fn == "Equal":
            return lits[0] is not None and lo <= lits[0] <= hi
        if fn == "In":
            return any(v is not None and lo <= v <= hi for v in lits)
        if fn in ("LessThan", "LessOrEqual"):
            return lits[0] is not None and (lo < lits[0] or (fn == "LessOrEqual" and lo == lits[0]))
        if fn in ("GreaterThan", "GreaterOrEqual"):
            return lits[0] is not None and (hi > lits[0] or (fn == "GreaterOrEqual" and hi == lits[0]))
        if fn == "Between":
            return lits[0] is not None and lits[1] is not None and lits[0] <= hi and lits[1] >= lo
        if fn == "StartsWith" and isinstance(lits[0], str) and isinstance(lo, str):
            p = lits[0]
            return hi[:len(p)] >= p and lo[:len(p)] <= p
    except TypeError:
        return True
    return True


def _legacy_answer(idx: SortedIndex, leaf: LeafPredicate) -> BitMap64 | None:
    """A Paimon 1.4 bitmap global index (file-index bitmap): ``=``, ``IN``, nulls; ``<>``/``NOT IN``
    flipped over all its rows (null rows included); nothing else."""
    fn, lits = leaf.function, leaf.literals
    every = BitMap64()
    every.add_range(0, int(getattr(idx, "row_count", 0)))
    if fn in ("Equal", "In"):
        return idx.in_([v for v in lits if v is not None])
    if fn in ("NotEqual", "NotIn"):
        return every - idx.in_([v for v in lits if v is not None])
    if fn == "IsNull":
        return idx.is_null()
    if fn == "IsNotNull":
        return every - idx.is_null()
    return None


def leaf_answer(idx: SortedIndex, leaf: LeafPredicate, index_type: str, rules: PaimonRules) -> BitMap64 | None:
    """One file's local rows for a leaf, or None when the index cannot answer it."""
    fn, lits = leaf.function, leaf.literals
    lit = lits[0] if lits else None
    btree = index_type == "btree"
    if getattr(idx, "legacy", False):  # Paimon 1.4's file-index bitmap: <> and NOT IN flip over every row
        return _legacy_answer(idx, leaf)
    simple: dict[str, Callable[[], BitMap64]] = {
        "Equal": lambda: idx.equal(lit), "NotEqual": lambda: idx.not_equal(lit),
        "In": lambda: idx.in_([v for v in lits if v is not None]), "NotIn": lambda: idx.not_in(list(lits)),
        "IsNull": idx.is_null, "IsNotNull": idx.is_not_null,
        "LessThan": lambda: idx.range(high=lit, high_inclusive=False),
        "LessOrEqual": lambda: idx.range(high=lit),
        "GreaterThan": lambda: idx.range(low=lit, low_inclusive=False),
        "GreaterOrEqual": lambda: idx.range(low=lit),
    }
    if fn in simple:
        return simple[fn]()
    if fn == "Between":
        lo, hi = lits[0], lits[1]
        return BitMap64() if lo > hi else idx.range(low=lo, high=hi)
    if fn == "NotBetween":
        return idx.range(high=lits[0], high_inclusive=False) | idx.range(low=lits[1], low_inclusive=False)
    if not isinstance(lit, str):
        return None
    if fn == "StartsWith":
        if btree and not rules.global_index_range_gate:  # 1.4: every non-null row
            return idx.is_not_null()
        return idx.matching(lambda k: isinstance(k, str) and k.startswith(lit))
    if btree:  # endsWith, contains, LIKE: every non-null row (a superset)
        return idx.is_not_null()
    tests: dict[str, Callable[[Any], bool]] = {
        "EndsWith": lambda k: k.endswith(lit), "Contains": lambda k: lit in k,
        "Like": lambda k: like_regex(lit).fullmatch(k) is not None,
    }
    test = tests.get(fn)
    return None if test is None else idx.matching(lambda k: isinstance(k, str) and test(k))
