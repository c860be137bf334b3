"""The TopN stage of an explanation (``explain --order-by COL --limit N``; see :mod:`.topn`).

Applied after the other planning stages: the splits TopN drops are removed at the ``topn`` stage
(their files keep their verdict otherwise), and with no data filter a read file whose range-bitmap
index on the column answers TopN returns only the rows it selects. With the ground truth, the rows
of the true answer (the first ``limit`` rows that match, in the order asked; rows tied with the
last of them count as right) that the scan does not return are counted.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from ..errors import Note, PaimonLensError, Problem
from ..metadata.snapshot_reader import IndexLocation
from ..types import NESTED
from .stage import StageName
from .topn import TopN, file_selection, select_splits, split_groups, split_pushdown_applies

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..predicate.model import Predicate
    from .verdict import FileVerdict
    from .versions import PaimonRules


def apply(verdicts: list[FileVerdict], table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
          topn: TopN, truth: bool, dvs: dict[str, BitMap]) -> tuple[list[FileVerdict], list[str], dict[str, Any]]:
    """The TopN stage: the verdicts after it (splits dropped, range-bitmap row selections), its notes
    and what it did (the summary's ``topn``)."""
    from ..formats.global_index.keys import KeyCodec
    from .scan import data_filter

    if topn.column not in table.schema.field_names:
        names = ", ".join(table.schema.field_names)
        raise PaimonLensError(f"ORDER BY {topn.column}: no such column (columns: {names})")
    field = table.schema.field(topn.column)
    if field.type.root in NESTED:
        raise PaimonLensError(f"ORDER BY {topn.column}: a column of type {field.type} has no order to sort by")
    index = table.schema.field_names.index(topn.column)
    files = {lf.file.file_name: lf for lf in table.live_files()}
    notes: list[str] = []
    has_filter = data_filter(table, predicate) is not None
    why_not = split_pushdown_applies(table, topn, rules, has_filter, field.type)
    facts: dict[str, Any] = {"order_by": topn.sql(), "splits": None, "splits_kept": None, "split_pruning": why_not}
    verdicts = list(verdicts)
    if why_not is None:
        planned = [files[v.file_name] for v in verdicts if v.planned and v.file_name in files]
        splits = split_groups(table, planned)
        stats = {lf.file.file_name: _bounds(lf, index, topn.column, dvs) for lf in planned}
        sort_key = KeyCodec(field.type).sort_key if field.type.root != "BOOLEAN" else (lambda v: v)
        keep, reasons = select_splits(splits, topn, stats, sort_key)
        facts.update(splits=len(splits), splits_kept=len({id(s) for s in splits if s[0].file.file_name in keep}))
        verdicts = [_drop(v, reasons[v.file_name]) if v.planned and v.file_name in reasons else v for v in verdicts]
    else:
        notes.append(f"TopN: {why_not}")
    selections: dict[str, BitMap] = {}
    if not has_filter and rules.data_evolution:  # file-index TopN at reading, 1.3+
        out = []
        for v in verdicts:
            lf = files.get(v.file_name)
            chosen = _file_topn(table, lf, topn, dvs, notes) if (v.read and lf is not None) else None
            if chosen is not None:
                selections[v.file_name] = chosen
                v = replace(v, index_selected_rows=len(chosen), rows_after_dv=len(chosen), dv_removed_rows=0)
            out.append(v)
        verdicts = out
    elif has_filter:
        notes.append("TopN: a data filter: file indexes do not select rows for TopN")
    facts["files_dropped"] = sum(1 for v in verdicts if v.stage == StageName.TOPN)
    facts["files_with_index_selection"] = len(selections)
    if truth:
        got, lost = _truth(table, files, verdicts, topn, field, selections, notes)
        facts.update(got)
        verdicts = [replace(v, flags=(f"{lost[v.file_name]} rows of the true {topn.sql()} answer are in this file "
                                      f"but not returned{' (stage ' + repr(v.stage) + ')' if v.stage else ''}",
                                      *v.flags)) if v.file_name in lost else v for v in verdicts]
    return verdicts, notes, facts


def _bounds(lf: LiveFile, index: int, column: str, dvs: dict[str, BitMap]) -> tuple[Any, Any, int | None] | None:
    """(min, max, null count) of the column in a file with usable, exact stats; None otherwise."""
    f = lf.file
    if f.value_stats_cols is not None and column not in f.value_stats_cols:
        return None
    if (f.delete_row_count or 0) > 0 or (lf.file.file_name in dvs and len(dvs[lf.file.file_name])):
        return None
    s = lf.stats[index]
    return s.min, s.max, s.null_count


def _drop(v: FileVerdict, reason: str) -> FileVerdict:
    return replace(v, planned=False, read=False, rows_after_dv=0, stage=StageName.TOPN, reason=reason,
                   index_selected_rows=None, dv_removed_rows=0)


def _file_topn(table: SnapshotReader, lf: LiveFile, topn: TopN, dvs: dict[str, BitMap],
               notes: list[str]) -> BitMap | None:
    """The rows a read file's range-bitmap index keeps for TopN (None: no such index answers); the
    container and its readers come from the table's container cache, as planning left them."""
    from ..inventory.file_indexes import ContainerCache
    from .file_index_predicate import index_field_type

    if lf.index_location == IndexLocation.NONE:
        return None
    try:
        cache: ContainerCache = table.shared("index_containers", ContainerCache)
        container, by_column, columns = cache.get(table, lf)
        if container is None or topn.column not in columns:
            return None
        readers = by_column.get(topn.column)
        if readers is None:
            file_fields = table.schema_manager.schema(lf.file.schema_id).fields
            readers = by_column[topn.column] = container.create_readers(
                topn.column, index_field_type(file_fields, topn.column))
    except (OSError, PaimonLensError) as e:
        notes.append(Note(f"its index could not be read for TopN ({e}): read whole", lf.file.file_name, Problem.of(e)))
        return None
    base = BitMap()
    base.add_range(0, lf.file.row_count)
    dv = dvs.get(lf.file.file_name)
    if dv is not None:
        base -= dv
    for index_type, reader in readers:
        if index_type != "range-bitmap":
            continue  # bitmap and bsi answer REMAIN
        try:
            got = file_selection(reader, topn, base)
        except (PaimonLensError, ValueError) as e:
            notes.append(Note(f"range-bitmap TopN failed ({e}): read whole", lf.file.file_name, Problem.of(e)))
            return None
        if got is not None:
            return got
    return None


def _truth(table: SnapshotReader, files: dict[str, LiveFile], verdicts: list[FileVerdict], topn: TopN, field: Any,
           selections: dict[str, BitMap], notes: list[str]) -> tuple[dict[str, Any], dict[str, int]]:
    """How many rows of the true answer the scan does not return, and per file those it holds (rows
    tied with the last row of the answer count once enough of them are returned)."""
    from ..formats.global_index.keys import KEYABLE, KeyCodec
    from .truth import read_columns

    sort_key = KeyCodec(field.type).sort_key if field.type.root in KEYABLE else (lambda v: v)
    rows: list[tuple[Any, str, int]] = []
    for v in verdicts:
        match = v.matching_live_positions if v.matching_live_positions is not None else v.matching_positions
        lf = files.get(v.file_name)
        if match is None or lf is None or not match:
            continue
        try:
            values = read_columns(table, lf, [field.id]).get(field.id)
        except PaimonLensError as e:
            notes.append(Note(f"TopN truth unavailable: {e}", v.file_name, Problem.of(e)))
            return {"truth_rows_not_returned": None}, {}
        if values is None:
            continue
        rows.extend((values[p], v.file_name, p) for p in match)
    nulls = [r for r in rows if r[0] is None]
    vals = sorted((r for r in rows if r[0] is not None), key=lambda r: sort_key(r[0]), reverse=topn.descending)
    ordered = nulls + vals if topn.nulls_first else vals + nulls
    top = ordered[:topn.limit]
    if not top:
        return {"truth_rows_not_returned": 0}, {}
    last = top[-1][0]
    better = [r for r in top if r[0] != last]
    tied = [r for r in ordered if r[0] == last]
    need_tied = len(top) - len(better)
    returned = _returned(verdicts, selections)
    lost: dict[str, int] = {}
    for r in better:
        if (r[1], r[2]) not in returned:
            lost[r[1]] = lost.get(r[1], 0) + 1
    short = max(0, need_tied - sum(1 for r in tied if (r[1], r[2]) in returned))
    for r in tied:
        if short <= 0:
            break
        if (r[1], r[2]) not in returned:
            lost[r[1]] = lost.get(r[1], 0) + 1
            short -= 1
    return {"truth_rows_not_returned": sum(lost.values())}, lost


def _returned(verdicts: list[FileVerdict], selections: dict[str, BitMap]) -> set[tuple[str, int]]:
    """(file, position) of every matching row the scan hands to the reader (a file's TopN
    selection, else all its matching rows)."""
    out: set[tuple[str, int]] = set()
    for v in verdicts:
        if not v.read:
            continue
        match = v.matching_live_positions if v.matching_live_positions is not None else v.matching_positions
        if match is None:
            continue
        selected = selections.get(v.file_name)
        for p in match if selected is None else match & selected:
            out.add((v.file_name, p))
    return out
