"""The stages of the reader: what Paimon's reader does with a planned file (see :mod:`.stage`).

In order, on a file the scan planned, with its index answer and its deletion vector:

1. :class:`ReadIndexStage` (``read index``): an external ``.index`` file, evaluated when the file
   is opened, answers that no row can match: the file is not read;
2. :class:`IndexRowsStage` (``index rows``, Paimon 1.0+): a bitmap index result selects the rows
   the reader returns; a file whose selection is empty is not read (``index_selected_rows``);
3. :class:`DeletionVectorStage` (``deletion vector``): the deleted rows are taken out of that
   selection (``[0, rowCount)`` without a bitmap); a file left with no row is not read
   (``dv_removed_rows``); the rows left (``rows_after_dv``) go to the row-level filter.

Also here: the deletion vectors an explanation reads (decoded only for the files it needs where the
index manifest records every file's deleted-row count) and the row-range groups whose files share
positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pyroaring import BitMap

from ..formats.result import BitmapIndexResult, FileIndexResult
from ..formats.roaring import to_bitmap32
from ..inventory.deletion_vectors import deletion_vector_infos
from ..metadata.row_ranges import RowRangeGroup, data_evolution_enabled, row_range_groups
from ..metadata.snapshot_reader import IndexLocation
from .stage import Stage, StageName

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .scan import PlanDecision


class ReadStage(Stage):
    """A stage of the reader (stateless: its class answers)."""

    phase = "read"


class ReadIndexStage(ReadStage):
    """External index files are evaluated by the reader when it opens the data file."""

    name = StageName.READ_INDEX

    @classmethod
    def drops(cls, d: PlanDecision, result: FileIndexResult | None) -> str | None:
        """Why the reader skips the file after its external index (None: it does not)."""
        if d.index_location == IndexLocation.EXTERNAL and result is not None and not result.remain():
            return d.reason or "external index: no row can match"
        return None


class IndexRowsStage(ReadStage):
    """A bitmap index result selects the rows the reader returns (Paimon 1.0+)."""

    name = StageName.INDEX_ROWS
    label = "after index row selection"
    REASON: ClassVar[str] = "index selects no row"

    @classmethod
    def selection(cls, row_count: int, result: FileIndexResult | None, bitmap_selection: bool) -> BitMap | None:
        """The positions the index selects (None: no bitmap selection, every row)."""
        if bitmap_selection and isinstance(result, BitmapIndexResult) and row_count <= 2**31 - 1:
            return BitMap(result.bitmap)
        return None


class DeletionVectorStage(ReadStage):
    """The deleted rows are taken out of what the reader returns."""

    name = StageName.DELETION_VECTOR
    REASON: ClassVar[str] = "every candidate row is deleted"

    @classmethod
    def rows(cls, row_count: int, selection: BitMap | None, dv: BitMap | None) -> int:
        """The rows left of ``selection`` (None: the whole file) once the deleted rows are out."""
        if dv is None:
            return row_count if selection is None else len(selection)
        if selection is None:
            selection = BitMap()
            selection.add_range(0, row_count)
        return len(selection - dv)


def read_file(d: PlanDecision, lf: LiveFile, result: FileIndexResult | None, dv: BitMap | None,
              bitmap_selection: bool = True) -> tuple[bool, int, str, str, int | None, int]:
    """The reader's stages on a planned file: (read, rows_after_dv, stage, reason,
    index_selected_rows, dv_removed_rows).

    ``bitmap_selection`` (Paimon 1.0+): a bitmap index result selects the rows the reader returns.
    """
    why = ReadIndexStage.drops(d, result)
    if why is not None:
        return False, 0, ReadIndexStage.name, why, None, 0
    n = lf.entry.file.row_count
    selection = IndexRowsStage.selection(n, result, bitmap_selection)
    selected = None if selection is None else len(selection)
    if selected == 0:
        return False, 0, IndexRowsStage.name, IndexRowsStage.REASON, 0, 0
    rows = DeletionVectorStage.rows(n, selection, dv)
    removed = (n if selected is None else selected) - rows
    if rows == 0:
        return False, 0, DeletionVectorStage.name, DeletionVectorStage.REASON, selected, removed
    return True, rows, "", "", selected, removed


def deletion_vector_bitmaps(table: SnapshotReader) -> dict[str, BitMap]:
    """Deleted positions per data file name, for the deletion vectors (32- or 64-bit) that decode and
    agree with their file (the others are in :func:`deletion_vector_errors`)."""
    if not table.index_entries():
        return {}
    return _bitmaps(deletion_vector_infos(table))


def _bitmaps(infos: Any) -> dict[str, BitMap]:
    out: dict[str, BitMap] = {}
    for dv in infos:
        if dv.positions is None or dv.error is not None:
            continue
        bm = dv.positions if isinstance(dv.positions, BitMap) else to_bitmap32(dv.positions)
        if bm is not None:  # positions of a file's rows fit 32 bits (rows beyond the file are an error)
            out[dv.data_file] = BitMap(bm)
    return out


def recorded_deletion_counts(table: SnapshotReader) -> dict[str, int | None]:
    """The deleted-row count the index manifest records per data file with a deletion vector (None:
    not recorded, as before Paimon 1.0)."""
    from ..inventory.deletion_vectors import DELETION_VECTORS

    return {dv.data_file: dv.cardinality for e in table.index_entries() if e.index_type == DELETION_VECTORS
            for dv in e.deletion_vectors or ()}


def deletion_vector_errors(table: SnapshotReader) -> dict[str, str]:
    """Why the deletion vector of a data file could not be read, per data file name."""
    if not table.index_entries():
        return {}
    return {dv.data_file: dv.error for dv in deletion_vector_infos(table) if dv.error}


def groups_by_file(table: SnapshotReader) -> dict[str, RowRangeGroup]:
    """Data-evolution tables: each file's row-range group (empty for other tables)."""
    if not data_evolution_enabled(table):
        return {}
    return {lf.entry.file.file_name: g for g in row_range_groups(table.live_files()) for lf in g.files}


def group_dv(group: RowRangeGroup, dvs: dict[str, BitMap]) -> BitMap | None:
    """The deleted positions of a row-range group: those of any of its files (they share positions)."""
    found = [dvs[lf.entry.file.file_name] for lf in group.files if lf.entry.file.file_name in dvs]
    return BitMap.union(*found) if found else None


def needed_deletion_vectors(table: SnapshotReader, wanted: set[str] | None, files: Sequence[LiveFile]
                            ) -> tuple[dict[str, BitMap], dict[str, str], dict[str, int] | None]:
    """The deletion vectors the read stage needs: decoded for the ``wanted`` data files only (the
    index files holding them), with every other file's deleted-row count taken from the index
    manifest (Paimon 2.x records it); everything decoded when ``wanted`` is None, when a count is
    not recorded (0.9) or when the snapshot's vectors are decoded already. Returns (bitmaps, errors,
    counts of the files not decoded, or None)."""
    from ..inventory.deletion_vectors import DELETION_VECTORS

    entries = [e for e in table.index_entries() if e.index_type == DELETION_VECTORS]
    if not entries:
        return {}, {}, None
    counts = {dv.data_file: dv.cardinality for e in entries for dv in e.deletion_vectors or ()}
    if wanted is None or table.memoized("deletion_vectors") or any(c is None for c in counts.values()):
        return deletion_vector_bitmaps(table), deletion_vector_errors(table), None
    from ..inventory.deletion_vectors import table_deletion_vectors

    needed = [e for e in entries if any(dv.data_file in wanted for dv in e.deletion_vectors or ())]
    decoded: dict[str, list[Any]] = table.memo("deletion_vectors_by_index_file", dict)  # kept for the next explain
    todo = [e for e in needed if e.file_name not in decoded]
    if todo:
        part = table.restricted([lf.entry for lf in files], todo)
        for info in table_deletion_vectors(part):
            decoded.setdefault(info.index_file.rsplit("/", 1)[-1], []).append(info)
        for e in todo:
            decoded.setdefault(e.file_name, [])
    infos = [info for e in needed for info in decoded[e.file_name]]
    return (_bitmaps(infos), {dv.data_file: dv.error for dv in infos if dv.error},
            {k: int(v or 0) for k, v in counts.items()})
