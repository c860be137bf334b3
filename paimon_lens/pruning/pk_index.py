"""What a primary-key table's primary-key indexes select for a predicate (Paimon 2.0).

Paimon 2.0 keeps, per bucket, index column and LSM level, one btree or bitmap file (options
``pk-btree.index.columns`` / ``pk-bitmap.index.columns``; deletion vectors required) whose
``_SOURCE_META`` lists the compacted data files of that level it indexes; its ids are ordinals over
those files in that order. ``PrimaryKeyBatchScan.postProcessPlan`` / ``PrimaryKeySortedIndexScan``
apply them after the ordinary plan:

1. the filter is projected onto the indexed columns (a leaf kept when its column is indexed, AND
   keeps projectable children, OR needs all); nothing left: the plan is unchanged;
2. per bucket, a level is *covered* when exactly one index file of the (column, type) lists exactly
   the planned files of that level whose source is COMPACT, sorted by name, with their row counts;
   level-0 files and files only moved up a level (APPEND source) are never covered;
3. per planned file, the filter is evaluated with the covered columns' indexes (the same AND / OR
   rules as the global index; a leaf on an uncovered column is unanswered): unanswered, the file is
   read whole; an empty answer drops it; otherwise the reader returns only those row positions;
4. a bucket whose files are not all raw-convertible (a file with delete rows, level 0) is read as
   planned, without the index (its splits are merged reads).

Search modes do not apply: uncovered files are read whole, so no row is missed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyroaring import BitMap, BitMap64

from ..errors import Note, PaimonLensError, Problem
from ..formats.global_index.sorted_index import SortedIndex
from ..inventory.global_indexes import PRIMARY_KEY, GlobalIndexFile, global_index_files, open_global_index
from ..predicate.model import LeafPredicate, Predicate, and_
from .evolution import pick
from .global_index import (
    EXACT_FUNCTIONS,
    GATED_FUNCTIONS,
    combine,
    fallback_scan_max_sizes,
    leaf_answer,
    may_hold,
)

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .versions import PaimonRules

COMPACT = 1


def indexed_columns(options: dict[str, str]) -> dict[str, str]:
    """Column -> index type (``btree``/``bitmap``) of the table's primary-key index options."""
    out: dict[str, str] = {}
    for kind in ("btree", "bitmap"):
        for col in options.get(f"pk-{kind}.index.columns", "").split(","):
            if col.strip():
                out[col.strip()] = kind
    return out


def applies(table: SnapshotReader, rules: PaimonRules) -> bool:
    """Whether the scan of this table consults primary-key indexes."""
    opts = table.schema.core_options
    if not table.schema.primary_keys or not rules.pk_index:
        return False
    if not opts.global_index_enabled or not opts.deletion_vectors_enabled or opts.deletion_vectors_merge_on_read:
        return False
    return bool(indexed_columns(opts.raw)) and any(g.kind == PRIMARY_KEY for g in global_index_files(table))


@dataclass(frozen=True)
class FileSelection:
    """What the primary-key index says of one planned file."""

    positions: BitMap | None
    """Selected row positions (None: the index does not answer; the file is read whole)."""
    reason: str
    index_files: tuple[str, ...]


def select(table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
           planned: list[LiveFile]) -> tuple[dict[str, FileSelection], list[str]] | None:
    """Per planned file the index's selection, and notes; None when no index is consulted."""
    if predicate is None or not applies(table, rules):
        return None
    columns = indexed_columns(table.schema.options)
    parts = pick([predicate], list(columns))
    if not parts:
        return None
    projected = and_(*parts)
    ids = {table.schema.field(c).id: c for c in columns if c in table.schema.field_names}
    payloads: dict[tuple[bytes, int], list[GlobalIndexFile]] = defaultdict(list)
    notes: list[str] = []
    for g in global_index_files(table):
        if g.kind == PRIMARY_KEY and g.field_id in ids and g.index_type == columns[ids[g.field_id]]:
            if g.error is None:
                payloads[(g.entry.partition, g.bucket)].append(g)
            else:  # Paimon rejects a payload it cannot decode: the files it indexes are read whole
                notes.append(f"primary-key index {g.path} is not used: {g.error}")
    by_bucket: dict[tuple[bytes, int], list[LiveFile]] = defaultdict(list)
    for lf in planned:
        by_bucket[(lf.entry.partition, lf.entry.bucket)].append(lf)
    out: dict[str, FileSelection] = {}
    gate = fallback_scan_max_sizes(table.schema.options)
    for key, lfs in by_bucket.items():
        if not all(lf.file.level > 0 and not lf.file.delete_row_count for lf in lfs):
            for lf in lfs:
                out[lf.file.file_name] = FileSelection(None, "its bucket is read by merging (level 0 or delete "
                                                             "rows): primary-key indexes are not used", ())
            continue
        groups = _groups(lfs, payloads.get(key, []))
        for lf in lfs:
            # the payloads built from this very file (a file only moved up to an indexed level is not a source)
            mine = {fid: g for (fid, level), g in groups.items()
                    if level == lf.file.level and g.source is not None and lf.file.file_name in g.source.offsets()}
            if not mine:
                out[lf.file.file_name] = FileSelection(None, _uncovered(lf), ())
                continue
            ev = _FileEvaluator(table, lf, mine, rules, gate, notes)
            got = ev.evaluate(projected)
            names = tuple(sorted({g.file_name for g in ev.used}))
            out[lf.file.file_name] = FileSelection(got, "" if got is not None else
                                                   "the primary-key index does not answer the filter", names)
    return out, notes


def _uncovered(lf: LiveFile) -> str:
    f = lf.file
    if f.file_source != COMPACT:
        return "only moved up a level (APPEND source): no primary-key index covers it, read whole"
    return f"no primary-key index covers level {f.level} of this bucket as planned: read whole"


def _groups(lfs: list[LiveFile], payloads: list[GlobalIndexFile]) -> dict[tuple[int, int], GlobalIndexFile]:
    """(field id, level) -> the one payload whose sources are exactly the level's planned compacted files."""
    eligible: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for lf in lfs:
        if lf.file.level > 0 and lf.file.file_source == COMPACT:
            eligible[lf.file.level].append((lf.file.file_name, lf.file.row_count))
    for names in eligible.values():
        names.sort()
    cands: dict[tuple[int, int], list[GlobalIndexFile]] = defaultdict(list)
    for g in payloads:
        if g.source is None:
            continue
        want = eligible.get(g.source.data_level)
        if want and [(s.file_name, s.row_count) for s in g.source.files] == want \
                and g.row_range_start == 0 and g.row_range_end == g.source.row_count - 1:
            cands[(g.field_id, g.source.data_level)].append(g)
    return {k: v[0] for k, v in cands.items() if len(v) == 1}


class _FileEvaluator:
    """``GlobalIndexEvaluator`` of one data file with its covering payloads: file positions or None."""

    def __init__(self, table: SnapshotReader, lf: LiveFile, payloads: dict[int, GlobalIndexFile],
                 rules: PaimonRules, gate: dict[str, int], notes: list[str]) -> None:
        self.table, self.lf, self.rules, self.gate, self.notes = table, lf, rules, gate, notes
        self.by_column = {g.column: g for g in payloads.values() if g.column is not None}
        self.used: list[GlobalIndexFile] = []

    def evaluate(self, p: Predicate) -> BitMap | None:
        return combine(p, self._leaf, BitMap)

    def _leaf(self, leaf: LeafPredicate) -> BitMap | None:
        g = self.by_column.get(leaf.field)
        if g is None or g.source is None:
            return None
        fn = leaf.function
        if fn not in EXACT_FUNCTIONS and fn not in GATED_FUNCTIONS:
            return None
        picked = may_hold(g, leaf)
        too_big = picked and g.file_size > self.gate[g.index_type]
        if fn in GATED_FUNCTIONS and (any(v is None for v in leaf.literals) or too_big):
            return None
        self.used.append(g)
        if not picked:
            return BitMap()
        try:
            idx = open_global_index(self.table, g)
        except (OSError, PaimonLensError) as e:
            self.notes.append(Note(f"primary-key index {g.path} could not be read ({e}): the file is read whole",
                                   self.lf.file.file_name, Problem.of(e, g.path)))
            return None
        if not isinstance(idx, SortedIndex):
            return None
        ordinals: BitMap64 | None = leaf_answer(idx, leaf, g.index_type, self.rules)
        if ordinals is None:
            return None
        start = g.source.offsets().get(self.lf.file.file_name, 0)
        end = start + self.lf.file.row_count
        out = BitMap()
        for o in ordinals.iter_equal_or_larger(start):
            if o >= end:
                break
            out.add(o - start)
        if ordinals and (ordinals.max() >= g.source.row_count):
            self.notes.append(Note(f"primary-key index {g.file_name} holds ordinal {ordinals.max()} beyond its "
                                   f"{g.source.row_count} source rows: the file is read whole", self.lf.file.file_name))
            return None
        return out
