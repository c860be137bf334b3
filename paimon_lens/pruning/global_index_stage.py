"""The global index stage of an explanation (data-evolution tables, Paimon 1.4+).

Applied to the verdicts planning made: a file the partition and bucket stages kept is dropped at
the ``global index`` stage when the index's selection (:mod:`.global_index`) holds none of its row
ids (Paimon's ``DataEvolutionFileStoreScan.filterByStats`` with a row-range index, before the
row-range groups are tested on their stats); a file it keeps and the reader opens returns only the
selected rows (an ``IndexedSplit``), intersected with a file-index bitmap and without the deleted
rows. With the ground truth, the matching rows the reader does not return (rows a ``fast`` search
does not cover, or a stale index's) are counted per file and named in the summary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap, BitMap64

from ..formats.result import BitmapIndexResult
from .global_index import GlobalIndexSelection
from .stage import StageName

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile
    from .verdict import FileVerdict

MAX_NAMED_ROWS = 10_000


def local_selection(sel: BitMap64, first_row_id: int, row_count: int) -> BitMap:
    """The positions of a file (rows ``first_row_id ..``) that the selection holds."""
    out = BitMap()
    if row_count <= 0:
        return out
    end = first_row_id + row_count
    for r in sel.iter_equal_or_larger(first_row_id):
        if r >= end:
            break
        out.add(r - first_row_id)
    return out


def apply(verdicts: list[FileVerdict], files: dict[str, LiveFile], sel: GlobalIndexSelection,
          dvs: dict[str, BitMap], truth: bool) -> tuple[list[FileVerdict], list[int]]:
    """The verdicts after the global index stage, and the global row ids of the matching rows the
    reader does not return (with the ground truth)."""
    assert sel.rows is not None
    rows, why = sel.rows, sel.describe()
    firsts = {name: lf.file.first_row_id for name, lf in files.items()}

    def choose(v: FileVerdict) -> tuple[BitMap, int, str] | None:
        first = firsts.get(v.file_name)
        if first is None or v.stage in ("partition", "bucket"):
            return None
        return (local_selection(rows, first, v.row_count), first,
                f"{why}: none of rows {first}-{first + v.row_count - 1}")

    return apply_selection(verdicts, choose, "global index", f"the global index selects ({sel.search_mode} search)",
                           dvs, truth)


def apply_selection(verdicts: list[FileVerdict], choose: Callable[[FileVerdict], tuple[BitMap, int, str] | None],
                    stage: str, selects: str, dvs: dict[str, BitMap], truth: bool
                    ) -> tuple[list[FileVerdict], list[int]]:
    """The verdicts after an index stage that selects rows of files: ``choose(verdict)`` gives the
    file's selected positions, the row id (or ordinal) of its position 0 and the reason an empty
    selection drops it, or None to leave the verdict as it is. Also returns the ids of the matching
    rows the reader does not return (with the ground truth)."""
    out: list[FileVerdict] = []
    missed: list[int] = []
    for v in verdicts:
        picked = choose(v)
        if picked is None:
            out.append(v)
            continue
        chosen, first, why = picked
        matching = v.matching_live_positions if v.matching_live_positions is not None else v.matching_positions
        flags = [f for f in v.flags if not f.startswith(("PAIMON SKIPPED", "read without any matching row"))]
        if not chosen:
            n = len(matching) if matching is not None else 0
            if n and matching is not None:
                flags.insert(0, f"PAIMON SKIPPED A FILE WITH {n} MATCHING ROWS at stage {stage!r}")
                missed.extend(first + p for p in matching)
            out.append(replace(v, planned=False, read=False, rows_after_dv=0, stage=stage, reason=why,
                               index_selected_rows=None, dv_removed_rows=0, flags=tuple(flags)))
            continue
        if not v.read:
            out.append(v)
            continue
        base = BitMap(chosen)
        result = v.decision.index if v.index_selected_rows is not None else None
        if isinstance(result, BitmapIndexResult):
            base &= BitMap(result.bitmap)
        dv = dvs.get(v.file_name)
        kept = base - dv if dv is not None else base
        changes: dict[str, Any] = {"index_selected_rows": len(base), "rows_after_dv": len(kept),
                                   "dv_removed_rows": len(base) - len(kept)}
        if not base:
            changes.update(read=False, rows_after_dv=0, stage=StageName.INDEX_ROWS,
                           reason=f"the {stage} and file indexes together select no row")
        elif not kept:
            changes.update(read=False, stage=StageName.DELETION_VECTOR, reason="every selected row is deleted")
        if matching is not None:
            lost = matching - kept if changes.get("read", True) else matching
            if lost:
                missed.extend(first + p for p in lost)
                flags.insert(0, f"{len(lost)} matching rows not returned: outside the rows {selects}")
            if changes.get("read", True) and not (matching & kept):
                flags.append("read without any matching row")
            elif not changes.get("read", True) and matching:
                flags.insert(0, f"PAIMON SKIPPED A FILE WITH {len(matching)} MATCHING ROWS at stage "
                                f"{changes['stage']!r}")
        out.append(replace(v, flags=tuple(flags), **changes))
    return out, sorted(missed) if truth else []


def summary_fields(sel: GlobalIndexSelection, missed: list[int] | None) -> dict[str, Any]:
    """The ``global_index`` field of an explanation's summary."""
    out: dict[str, Any] = {
        "used": sel.rows is not None, "search_mode": sel.search_mode,
        "indexed_rows": None if sel.indexed is None else len(sel.indexed),
        "selected_rows": None if sel.rows is None else len(sel.rows),
        "unindexed_ranges": [list(r) for r in sel.unindexed], "index_files": sel.index_files,
        "errors": list(sel.errors),
    }
    if missed is not None:
        out["matching_rows_not_returned"] = len(missed)
        out["not_returned_row_ids"] = missed[:MAX_NAMED_ROWS]
        out["not_returned_row_ids_truncated"] = len(missed) > MAX_NAMED_ROWS
    return out
