"""``_ROW_ID`` in a filter (row-tracking tables, Paimon 1.4+): row ranges pushed into the scan.

Paimon's ``DataEvolutionBatchScan.withFilter`` turns the ``_ROW_ID`` part of a filter into row-id
ranges (``RowIdPredicateVisitor``): ``_ROW_ID = v``, ``IN (...)`` and ``BETWEEN a AND b`` give
ranges, any other leaf none; AND intersects the children that give ranges (ignoring the others),
OR unites them only when every child gives ranges. Ranges, when there are any, prune manifests,
files (a file holding none of the row ids is not read) and the rows the reader returns, and the
global index is not consulted. What goes on to partition, stats and global-index pruning is the
*residual* filter: 2.0 (``rowIdSafeResidualFilter``) drops ``_ROW_ID`` leaves from AND and drops
an OR that holds one whole; 1.4 (``removeRowIdFilter``) drops ``_ROW_ID`` leaves everywhere, OR
included, which narrows ``_ROW_ID = 1 OR a = 5`` to ``a = 5``. Paimon 1.3 pushes nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from ..errors import Note, Problem
from ..metadata.row_ranges import intersect_ranges, merge_ranges
from ..metadata.stats import SYSTEM_FIELDS
from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves, or_
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataField
from .global_index_stage import apply_selection

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .verdict import FileVerdict
    from .versions import PaimonRules

ROW_ID = "_ROW_ID"


def row_tracking(table: SnapshotReader) -> bool:
    """Whether the table's rows carry row ids (``row-tracking.enabled``)."""
    return table.schema.core_options.row_tracking_enabled


def fields_with_row_id(table: SnapshotReader) -> list[DataField]:
    """The table's fields, and ``_ROW_ID`` after them when its rows carry row ids."""
    fields = list(table.schema.fields)
    if row_tracking(table) and ROW_ID not in table.schema.field_names:
        f = SYSTEM_FIELDS[ROW_ID]
        fields.append(DataField(f.id, f.name, f.type.copy(False)))
    return fields


def has_row_id(p: Predicate | None) -> bool:
    """Whether the filter names ``_ROW_ID``."""
    return any(leaf.field == ROW_ID for leaf in leaves(p))


def ranges(p: Predicate) -> list[tuple[int, int]] | None:
    """``RowIdPredicateVisitor``: the row-id ranges the filter gives (None: none; [] no row)."""
    return visit(p, _RowIdRanges())


Ranges = list[tuple[int, int]]


class _RowIdRanges(PredicateVisitor["Ranges | None"]):
    def visit_leaf(self, leaf: LeafPredicate) -> Ranges | None:
        lits = leaf.literals
        if leaf.field != ROW_ID or any(v is None for v in lits):
            return None
        if leaf.function == "Equal":
            return [(lits[0], lits[0])]
        if leaf.function == "In":
            return merge_ranges([(v, v) for v in lits])
        if leaf.function == "Between":
            return [] if lits[0] > lits[1] else [(lits[0], lits[1])]
        return None

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Ranges | None]) -> Ranges | None:
        got = list(children)
        known = [g for g in got if g is not None]
        if not known:
            return None
        out = known[0]
        for g in known[1:]:
            out = intersect_ranges(out, g)
        return out

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Ranges | None]) -> Ranges | None:
        got = list(children)
        if any(g is None for g in got):
            return None
        return merge_ranges([r for g in got if g is not None for r in g])


def residual(p: Predicate, rules: PaimonRules) -> Predicate | None:
    """The filter without its ``_ROW_ID`` part, as the release pushes it on (None: no filter)."""
    return visit(p, _Residual(rules))


class _Residual(PredicateVisitor["Predicate | None"]):
    def __init__(self, rules: PaimonRules) -> None:
        self.rules = rules

    def visit_leaf(self, leaf: LeafPredicate) -> Predicate | None:
        return None if leaf.field == ROW_ID else leaf

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        kids = list(children)
        kept = [r for r in kids if r is not None]
        return and_(*kept) if kept else None

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        if self.rules.global_index_search_mode and has_row_id(predicate):  # 2.0: the whole OR
            return None
        kids = list(children)
        kept = [r for r in kids if r is not None]
        return or_(*kept) if kept else None


def apply(verdicts: list[FileVerdict], files: dict[str, LiveFile], row_ranges: Sequence[tuple[int, int]],
          dvs: dict[str, BitMap], truth: bool) -> tuple[list[FileVerdict], list[int]]:
    """The row-id stage: files holding none of the ranges dropped, the others' rows selected."""
    wanted = list(row_ranges)
    text = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in wanted[:6]) + (" ..." if len(wanted) > 6 else "")

    def choose(v: FileVerdict) -> tuple[BitMap, int, str] | None:
        lf = files.get(v.file_name)
        first = None if lf is None else lf.file.first_row_id
        if first is None or v.stage in ("partition", "bucket"):
            return None
        end = first + v.row_count - 1
        chosen = BitMap()
        for a, b in wanted:
            lo, hi = max(a, first), min(b, end)
            if lo <= hi:
                chosen.add_range(lo - first, hi - first + 1)
        return chosen, first, f"_ROW_ID {text}: none of rows {first}-{end}"

    return apply_selection(verdicts, choose, "row ids", "the _ROW_ID ranges select", dvs, truth)


def full_truth(table: SnapshotReader, verdicts: list[FileVerdict], full: Predicate,
               files: dict[str, LiveFile], dvs: dict[str, BitMap]) -> tuple[list[FileVerdict], list[str]]:
    """The ground truth of the whole filter (``_ROW_ID`` leaves too), for files whose row ids no
    other file shares; files merged with others (partial-column writes) say it is unavailable."""
    from dataclasses import replace

    from ..errors import PaimonLensError
    from .rows import evaluate_rows
    from .truth import read_columns

    fields = fields_with_row_id(table)
    row_id_index = next((i for i, f in enumerate(fields) if f.name == ROW_ID), None)
    ids = {leaf.index: fields[leaf.index].id for leaf in leaves(full) if leaf.field != ROW_ID}
    out: list[FileVerdict] = []
    notes: list[str] = []
    shared: dict[int, int] = {}
    for lf in files.values():
        if lf.file.first_row_id is not None:
            shared[lf.file.first_row_id] = shared.get(lf.file.first_row_id, 0) + 1
    for v in verdicts:
        got = files.get(v.file_name)
        if got is None or got.file.first_row_id is None:
            out.append(v)
            continue
        if shared.get(got.file.first_row_id, 0) > 1:
            notes.append(Note("ground truth with _ROW_ID over row ids merged from several files is not computed",
                              v.file_name))
            out.append(replace(v, matching_positions=None, matching_live_positions=None,
                               flags=tuple(f for f in v.flags if "merged from" not in f)))
            continue
        try:
            by_fid = read_columns(table, got, sorted(set(ids.values())))
        except PaimonLensError as e:
            notes.append(Note(f"ground truth unavailable: {e}", v.file_name, Problem.of(e)))
            out.append(replace(v, matching_positions=None, matching_live_positions=None))
            continue
        n = v.row_count
        columns: dict[int, Sequence[Any]] = {idx: by_fid[fid] for idx, fid in ids.items() if fid in by_fid}
        if row_id_index is not None:
            first = got.file.first_row_id
            columns[row_id_index] = range(first, first + n)
        mask = evaluate_rows(full, columns, n)
        match = BitMap(mask.nonzero()[0].tolist())
        dv = dvs.get(v.file_name)
        out.append(replace(v, matching_positions=match, matching_live_positions=None if dv is None else match - dv))
    return out, notes
