"""Decoding ``SimpleStats`` and mapping them to the current schema by field id.

Stats are written in the file's own schema (``_SCHEMA_ID``). ``_VALUE_STATS_COLS`` null means
"every column of that schema" (or of ``_WRITE_COLS`` when set); a list means dense stats: the
min/max rows and null counts hold only those columns, in that order. Mapping to another schema
(Paimon's ``SimpleStatsEvolution``) goes by field id: a renamed column keeps its stats, a column
added after the file was written has null min/max and ``null_count = row_count``, a column with
no stored stats (mode ``none``, nested types, dense-store cuts) has null min/max/null count.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from ..errors import CorruptFileError
from ..types import DataField
from .binary_row import BinaryRowReader, decode_binary_row
from .manifest import DataFileMeta, SimpleStatsBytes
from .schema import TableSchema


@dataclass(frozen=True)
class ColumnStats:
    """Min, max and null count of one column in one file; None where unknown."""

    min: Any
    max: Any
    null_count: int | None


def stats_fields(meta: DataFileMeta, file_schema: TableSchema) -> list[DataField]:
    """The fields whose stats ``meta``'s value stats hold, in stored order."""
    names = meta.value_stats_cols if meta.value_stats_cols is not None else meta.write_cols
    if names is None:
        return list(file_schema.fields)
    by_name = {f.name: f for f in file_schema.fields}
    out = []
    for n in names:
        if n not in by_name:
            raise KeyError(f"stats column {n!r} is not in schema {file_schema.id}")
        out.append(by_name[n])
    return out


def decode_stats(stats: SimpleStatsBytes, fields: Sequence[DataField], path: str | None) -> list[ColumnStats]:
    """Decode SimpleStats bytes for ``fields`` (the order they were written in)."""
    types = [f.type for f in fields]
    names = [f.name for f in fields]
    mins = decode_binary_row(stats.min_values, types, f"{path}: _MIN_VALUES", names)
    maxs = decode_binary_row(stats.max_values, types, f"{path}: _MAX_VALUES", names)
    counts = stats.null_counts
    out = []
    for i in range(len(fields)):
        nc = counts[i] if counts is not None and i < len(counts) else None
        out.append(ColumnStats(mins[i], maxs[i], nc))
    return out


def evolve_stats(
    stored: Sequence[ColumnStats],
    stored_fields: Sequence[DataField],
    file_schema: TableSchema,
    target_fields: Sequence[DataField],
    row_count: int,
) -> list[ColumnStats]:
    """Map stats stored for ``stored_fields`` onto ``target_fields`` by field id."""
    by_id = {f.id: s for f, s in zip(stored_fields, stored)}
    in_file = {f.id for f in file_schema.fields}
    out = []
    for f in target_fields:
        if f.id in by_id:
            out.append(by_id[f.id])
        elif f.id in in_file:
            out.append(ColumnStats(None, None, None))
        else:
            out.append(ColumnStats(None, None, row_count))
    return out


_UNKNOWN = ColumnStats(None, None, None)


class FileStats(Sequence[ColumnStats]):
    """A file's value stats mapped onto ``target_fields``, each column decoded on first access.

    Behaves like ``list[ColumnStats]`` aligned with ``target_fields``. A column whose bytes
    cannot be decoded reads as unknown (None, None, None) and the problem is kept in
    :attr:`error`, so one bad record never stops a listing.
    """

    def __init__(self, meta: DataFileMeta, file_schema: TableSchema, target_fields: Sequence[DataField],
                 where: str) -> None:
        self._meta = meta
        self._file_schema = file_schema
        self._targets = list(target_fields)
        self._where = where
        self._cache: dict[int, ColumnStats] = {}
        self._slots: dict[int, int] | None = None  # field id -> stored position
        self._stored: list[DataField] = []
        self._rows: tuple[BinaryRowReader, BinaryRowReader] | None = None
        self.error: str | None = None

    def _prepare(self) -> None:
        if self._slots is not None:
            return
        self._slots = {}
        try:
            self._stored = stats_fields(self._meta, self._file_schema)
            n = len(self._stored)
            st = self._meta.value_stats
            self._rows = (BinaryRowReader(st.min_values, n, f"{self._where} _MIN_VALUES"),
                          BinaryRowReader(st.max_values, n, f"{self._where} _MAX_VALUES"))
            self._slots = {f.id: i for i, f in enumerate(self._stored)}
        except (CorruptFileError, KeyError) as e:
            self.error = str(e)

    def _decode(self, i: int) -> ColumnStats:
        self._prepare()
        target = self._targets[i]
        assert self._slots is not None
        pos = self._slots.get(target.id)
        if pos is None:
            if self.error is not None:
                return _UNKNOWN
            in_file = any(f.id == target.id for f in self._file_schema.fields)
            return _UNKNOWN if in_file else ColumnStats(None, None, self._meta.row_count)
        assert self._rows is not None
        f = self._stored[pos]
        counts = self._meta.value_stats.null_counts
        nc = counts[pos] if counts is not None and pos < len(counts) else None
        try:
            return ColumnStats(self._rows[0].get(pos, f.type, f.name), self._rows[1].get(pos, f.type, f.name), nc)
        except CorruptFileError as e:
            self.error = str(e)
            return _UNKNOWN

    @overload
    def __getitem__(self, i: int) -> ColumnStats: ...

    @overload
    def __getitem__(self, i: slice) -> list[ColumnStats]: ...

    def __getitem__(self, i: int | slice) -> ColumnStats | list[ColumnStats]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self._targets)
        got = self._cache.get(i)
        if got is None:
            got = self._cache[i] = self._decode(i)
        return got

    def __len__(self) -> int:
        return len(self._targets)

    def __iter__(self) -> Iterator[ColumnStats]:
        for i in range(len(self._targets)):
            yield self[i]
