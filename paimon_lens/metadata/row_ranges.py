"""Row tracking and data evolution: files that hold columns of the same rows.

With ``row-tracking.enabled`` every appended file gets ``_FIRST_ROW_ID``: its rows have the row ids
``[first_row_id, first_row_id + row_count - 1]``. With ``data-evolution.enabled`` a later commit
may write only some columns of existing rows (``_WRITE_COLS``: the columns a file stores; null
means every column of its schema) and BLOB columns live in ``.blob`` files of their own. Paimon
2.0 reads such files together (``DataEvolutionSplitGenerator``, ``DataEvolutionSplitRead``):

* files of one partition and bucket whose row-id ranges overlap, transitively, form a *group*
  (``RangeHelper.mergeOverlappingRanges``); files without a row id are groups of their own;
* a column of the group's rows comes from the newest file (largest max sequence number) among
  the data files that write it; ``.blob`` files serve only their blob column; the data files of a
  group must cover the same rows (``areAllRangesSame``);
* the scan tests the predicate once per group, on stats merged the same way
  (``DataEvolutionFileStoreScan.evolutionStats``: blob files carry no stats, the newest writer of a
  column gives its min/max/null count, a column no file writes is all null; the group's row count
  is the newest data file's), and never consults file indexes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .stats import ColumnStats, missing_stats

if TYPE_CHECKING:
    from .snapshot_reader import LiveFile, SnapshotReader

BLOB_SUFFIX = ".blob"


def is_blob_file(name: str) -> bool:
    """A ``.blob`` file of a BLOB column (``BlobFileFormat.isBlobFile``)."""
    return name.endswith(BLOB_SUFFIX)


def row_range(lf: LiveFile) -> tuple[int, int] | None:
    """``(first, last)`` row id of a file (inclusive), None without row tracking."""
    f = lf.entry.file
    if f.first_row_id is None:
        return None
    return f.first_row_id, f.first_row_id + f.row_count - 1


@dataclass(frozen=True)
class RowRangeGroup:
    """Files of one partition and bucket that hold columns of the same rows."""

    files: tuple[LiveFile, ...]
    first_row_id: int | None
    last_row_id: int | None

    @property
    def merged(self) -> bool:
        """Whether the group has more than one file (its rows are merged from several)."""
        return len(self.files) > 1

    @property
    def data_files(self) -> list[LiveFile]:
        """The group's non-blob files, newest first (largest max sequence number)."""
        data = [lf for lf in self.files if not is_blob_file(lf.entry.file.file_name)]
        return sorted(data, key=lambda lf: lf.entry.file.max_sequence_number, reverse=True)

    @property
    def anchor(self) -> LiveFile:
        """The file the group's rows are counted on: its oldest data file (the first one written)."""
        data = self.data_files
        return data[-1] if data else self.files[0]

    @property
    def row_count(self) -> int:
        """Rows of the group: the newest data file's row count, as Paimon 2.0 counts them."""
        data = self.data_files
        return (data[0] if data else self.files[0]).entry.file.row_count


def data_evolution_enabled(table: SnapshotReader) -> bool:
    """Whether ``data-evolution.enabled`` is set on the table (append tables only)."""
    return table.schema.core_options.data_evolution_enabled and not table.schema.primary_keys


def row_range_groups(files: Sequence[LiveFile]) -> list[RowRangeGroup]:
    """Groups of files whose row-id ranges overlap, per partition and bucket, in first-file order."""
    by_bucket: dict[tuple[bytes, int], list[LiveFile]] = {}
    for lf in files:
        by_bucket.setdefault((lf.entry.partition, lf.entry.bucket), []).append(lf)
    groups: list[tuple[int, RowRangeGroup]] = []
    order = {id(lf): i for i, lf in enumerate(files)}
    for members in by_bucket.values():
        tracked = sorted((lf for lf in members if row_range(lf) is not None),
                         key=lambda lf: row_range(lf) or (0, 0))
        for lf in members:
            if row_range(lf) is None:
                groups.append((order[id(lf)], RowRangeGroup((lf,), None, None)))
        current: list[LiveFile] = []
        lo = hi = 0
        for lf in tracked:
            a, b = row_range(lf) or (0, 0)
            if current and a <= hi:
                current.append(lf)
                hi = max(hi, b)
                continue
            if current:
                groups.append((min(order[id(x)] for x in current), RowRangeGroup(tuple(current), lo, hi)))
            current, lo, hi = [lf], a, b
        if current:
            groups.append((min(order[id(x)] for x in current), RowRangeGroup(tuple(current), lo, hi)))
    return [g for _, g in sorted(groups, key=lambda t: t[0])]


def written_field_ids(table: SnapshotReader, lf: LiveFile) -> set[int]:
    """Field ids of the columns a file stores (``_WRITE_COLS``, else every column of its schema)."""
    schema = table.schema_manager.schema(lf.entry.file.schema_id)
    cols = lf.entry.file.write_cols
    if cols is None:
        return {f.id for f in schema.fields}
    by_name = {f.name: f.id for f in schema.fields}
    return {by_name[c] for c in cols if c in by_name}


def group_stats(table: SnapshotReader, group: RowRangeGroup) -> list[ColumnStats]:
    """The group's value stats aligned with the table's fields (``evolutionStats``)."""
    data = group.data_files
    writes = [written_field_ids(table, lf) for lf in data]
    out: list[ColumnStats] = []
    for i, f in enumerate(table.schema.fields):
        source = next((k for k, ids in enumerate(writes) if f.id in ids), None)
        if source is None:
            blob_writer = any(f.id in written_field_ids(table, lf) for lf in group.files
                              if is_blob_file(lf.entry.file.file_name))
            out.append(missing_stats(blob_writer, group.row_count))
        else:
            out.append(data[source].stats[i])
    return out


# ---- inclusive row-id ranges (index row ranges, pushed _ROW_ID ranges) -------------------------------
Ranges = list[tuple[int, int]]


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Inclusive ranges sorted, overlapping and adjacent ones merged (Paimon's ``Range.sortAndMerge``)."""
    out: Ranges = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def intersect_ranges(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> Ranges:
    """The row ids in both (merged) range lists."""
    x, y = merge_ranges(a), merge_ranges(b)
    out: Ranges = []
    i = j = 0
    while i < len(x) and j < len(y):
        lo, hi = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract_ranges(data: Iterable[tuple[int, int]], cut: Iterable[tuple[int, int]]) -> Ranges:
    """The row ids of ``data`` outside ``cut``."""
    cuts = merge_ranges(cut)
    out: Ranges = []
    for a, b in merge_ranges(data):
        start = a
        for c0, c1 in cuts:
            if c1 < start or c0 > b:
                continue
            if c0 > start:
                out.append((start, c0 - 1))
            start = max(start, c1 + 1)
        if start <= b:
            out.append((start, b))
    return out


def covered_count(ranges: Iterable[tuple[int, int]], start: int, end: int) -> int:
    """Rows of ``[start, end]`` inside the (merged) ``ranges``."""
    return sum(max(0, min(b, end) - max(a, start) + 1) for a, b in merge_ranges(ranges))

