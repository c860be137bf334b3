"""Ground truth: read a data file's predicate columns and find the rows that really match.

Data files are read by :mod:`paimon_lens.formats.data_file`: only the columns the predicate
names, by their name in the file's own schema (so renamed columns are found; a column added
after the file was written reads as all null). Primary-key files are read as stored (physical
rows, including rows a deletion vector marks deleted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from ..errors import CorruptFileError, UnsupportedError
from ..formats.data_file import internal_values, read_stored_columns, stored_row_count
from ..metadata.casts import CastError, cast_function
from ..metadata.row_ranges import RowRangeGroup, row_range, written_field_ids
from ..predicate.model import Predicate, leaves
from ..values import to_internal
from .rows import evaluate_rows

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader

__all__ = ["group_matching_positions", "matching_positions", "read_columns", "to_internal"]


def read_columns(table: SnapshotReader, lf: LiveFile, field_ids: Sequence[int],
                 cast: bool = True) -> dict[int, list[Any]]:
    """Values of the given table fields (by field id) in one data file, in physical row order.

    Read by :func:`~paimon_lens.formats.data_file.read_stored_columns` (a field the file does not
    have or write is absent from the result). ``cast``: values of a column whose type changed
    since the file was written are cast to the table's current type (as Paimon reads them);
    False keeps the file's own type.
    """
    path = table.file_io.join(table.path, lf.path)
    current = {f.id: f for f in table.schema.fields}
    out: dict[int, list[Any]] = {}
    for fid, (f, arr) in read_stored_columns(table, lf, field_ids).items():
        try:
            values = internal_values(arr, f.type)
        except _VALUE_ERRORS as e:
            raise CorruptFileError(path, None, f"column {f.name} ({f.type})",
                                   detail=f"its values do not fit the type: {type(e).__name__}: {e}") from None
        target = current.get(fid) if cast else None
        fn = None if target is None else cast_function(f.type, target.type)
        if fn is not None:  # written before a type-changing ALTER TABLE: read as Paimon casts it
            try:
                values = [None if v is None else fn(v) for v in values]
            except CastError as e:
                raise CorruptFileError(path, None, f"column {f.name} ({f.type} -> {current[fid].type})",
                                       detail=str(e)) from None
            except _VALUE_ERRORS as e:  # values of another type than the file's schema says
                raise CorruptFileError(path, None, f"column {f.name} ({f.type} -> {current[fid].type})",
                                       detail=f"its values do not fit the type: {type(e).__name__}: {e}") from None
        out[fid] = values
    return out


def matching_positions(table: SnapshotReader, lf: LiveFile, predicate: Predicate | None) -> BitMap:
    """Positions of the rows of ``lf`` that satisfy ``predicate`` (bound to ``table.schema``)."""
    fields = table.schema.fields
    leaf_ids = {leaf.index: fields[leaf.index].id for leaf in leaves(predicate)}
    by_fid = read_columns(table, lf, sorted(set(leaf_ids.values())))
    columns: dict[int, Sequence[Any]] = {idx: by_fid[fid] for idx, fid in leaf_ids.items() if fid in by_fid}
    n = lf.entry.file.row_count
    for idx, values in columns.items():
        if len(values) != n:
            raise CorruptFileError(table.file_io.join(table.path, lf.path), None, f"column {fields[idx].name}",
                                   f"{n} rows (manifest row count)", f"{len(values)} rows")
    mask = _evaluate(predicate, columns, n, table.file_io.join(table.path, lf.path))
    return BitMap(mask.nonzero()[0].tolist())


#: what evaluating a predicate on values of another type than the schema's raises
_VALUE_ERRORS = (TypeError, ValueError, OverflowError, ArithmeticError, AttributeError)


def _evaluate(predicate: Predicate | None, columns: dict[int, Sequence[Any]], n: int, where: str) -> Any:
    """:func:`evaluate_rows`; values that do not fit the column's type (a data file whose columns do
    not match its schema) are a :class:`CorruptFileError` naming ``where``."""
    try:
        return evaluate_rows(predicate, columns, n)
    except _VALUE_ERRORS as e:
        raise CorruptFileError(where, None, "column values", detail=f"they do not fit the schema's types: "
                               f"{type(e).__name__}: {e}") from None


def group_matching_positions(table: SnapshotReader, group: RowRangeGroup, predicate: Predicate | None) -> BitMap:
    """Positions (within the group's rows) of the rows of a data-evolution row-range group that
    satisfy ``predicate``: each column read from the newest data file that writes it, as Paimon's
    ``DataEvolutionSplitRead`` merges them."""
    fields = table.schema.fields
    data = group.data_files
    anchor = table.file_io.join(table.path, group.anchor.path)
    ranges = {row_range(lf) for lf in data}
    if len(ranges) > 1:
        raise CorruptFileError(anchor, None, "row-range group", "data files covering the same row ids",
                               sorted(r for r in ranges if r is not None))
    n = group.row_count
    leaf_ids = {leaf.index: fields[leaf.index].id for leaf in leaves(predicate)}
    sources: dict[int, tuple[int, LiveFile | None]] = {}
    for idx, fid in leaf_ids.items():
        source = next((lf for lf in data if fid in written_field_ids(table, lf)), None)
        if source is None and any(fid in written_field_ids(table, lf) for lf in group.files):
            raise UnsupportedError(f"{anchor}: column {fields[idx].name} lives in .blob files, "
                                   "which paimon-lens does not read")
        sources[idx] = (fid, source)
    if data and any(source is None for _, source in sources.values()):
        # the row count is checked against the file's footer before nulls are made up
        rows = stored_row_count(table, data[0])
        if rows != data[0].entry.file.row_count:
            raise CorruptFileError(table.file_io.join(table.path, data[0].path), None, "rows",
                                   f"{data[0].entry.file.row_count} (manifest _ROW_COUNT)", rows)
    columns: dict[int, Sequence[Any]] = {}
    for idx, (fid, source) in sources.items():
        if source is None:
            columns[idx] = [None] * n  # no file of the group writes it: null
            continue
        values = read_columns(table, source, [fid]).get(fid, [None] * source.entry.file.row_count)
        if len(values) != n:
            raise CorruptFileError(table.file_io.join(table.path, source.path), None, f"column {fields[idx].name}",
                                   f"{n} rows (the group's row count)", f"{len(values)} rows")
        columns[idx] = values
    mask = _evaluate(predicate, columns, n, anchor)
    return BitMap(mask.nonzero()[0].tolist())
