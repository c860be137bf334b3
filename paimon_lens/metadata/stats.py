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
from typing import Any, NamedTuple, overload

from ..errors import CorruptFileError, PaimonLensError
from ..types import DataField, parse_type
from .binary_row import BinaryRowReader, FieldDecoder, decode_binary_row, field_decoder
from .casts import Cast, stats_cast
from .manifest import DataFileMeta, SimpleStatsBytes
from .schema import TableSchema


class ColumnStats(NamedTuple):
    """Min, max and null count of one column in one file; None where unknown (a named tuple: a
    listing holds one per column per file)."""

    min: Any
    max: Any
    null_count: int | None


#: Paimon's system fields (``SpecialFields``) that row-tracking files store, and keep stats for:
#: compaction rewrites ``_ROW_ID`` and ``_SEQUENCE_NUMBER`` into the file (in ``_WRITE_COLS``).
SYSTEM_FIELDS = {
    "_ROW_ID": DataField(2**31 - 1 - 5, "_ROW_ID", parse_type("BIGINT")),
    "_SEQUENCE_NUMBER": DataField(2**31 - 1 - 1, "_SEQUENCE_NUMBER", parse_type("BIGINT")),
}


def stats_fields(meta: DataFileMeta, file_schema: TableSchema) -> list[DataField]:
    """The fields whose stats ``meta``'s value stats hold, in stored order."""
    names = meta.value_stats_cols if meta.value_stats_cols is not None else meta.write_cols
    if names is None:
        return list(file_schema.fields)
    by_name = {**SYSTEM_FIELDS, **{f.name: f for f in file_schema.fields}}
    out = []
    for n in names:
        if n not in by_name:
            raise KeyError(f"stats column {n!r} is not in schema {file_schema.id}")
        out.append(by_name[n])
    return out


def read_once(stats: Sequence[ColumnStats]) -> list[ColumnStats]:
    """A file's column stats for a single reading (:meth:`FileStats.uncached`; any other sequence
    as a list)."""
    return stats.uncached() if isinstance(stats, FileStats) else list(stats)


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
    return [by_id[f.id] if f.id in by_id else missing_stats(f.id in in_file, row_count) for f in target_fields]


_UNKNOWN = ColumnStats(None, None, None)
_tuple_new = tuple.__new__


def missing_stats(in_file: bool, row_count: int) -> ColumnStats:
    """The stats of a column a file stores none for: unknown if the file's schema has the column,
    else (added after the file was written) all ``row_count`` rows null."""
    return _UNKNOWN if in_file else ColumnStats(None, None, row_count)


class StatsLayout:
    """Where a file's value stats keep each target column, for one file schema and stats column list.

    Files with the same schema id and the same ``_VALUE_STATS_COLS``/``_WRITE_COLS`` share one
    layout (see :meth:`key`), so the field lookups are done once per table rather than per file.

    Attributes:
        stored: the fields whose stats are stored, in stored order (empty when ``error``).
        error: why the stored fields could not be determined (a stats column missing from the
            schema), else None.
        slots: per target field, its stored position, or None when the file has no stats for it.
        in_file: per target field, whether the file's schema has the field (by id).
    """

    __slots__ = ("bounds_lost", "casts", "decoders", "error", "field_labels", "in_file", "slots", "stored")

    def __init__(self, meta: DataFileMeta, file_schema: TableSchema, target_fields: Sequence[DataField]) -> None:
        self.error: str | None = None
        try:
            self.stored: list[DataField] = stats_fields(meta, file_schema)
        except KeyError as e:
            self.stored, self.error = [], str(e)
        by_id = {f.id: i for i, f in enumerate(self.stored)}
        file_ids = {f.id for f in file_schema.fields}
        self.slots: list[int | None] = [by_id.get(t.id) for t in target_fields]
        self.in_file: list[bool] = [t.id in file_ids for t in target_fields]
        self.decoders: list[FieldDecoder] = [field_decoder(f.type) for f in self.stored]
        self.field_labels: list[str] = [f"BinaryRow.{f.name or i}" for i, f in enumerate(self.stored)]
        # a column whose type changed since the file was written: min/max cast to the current type
        # when they stay bounds, else unknown (and the planner does not test them either)
        self.casts: list[Cast | None] = [None] * len(target_fields)
        self.bounds_lost: set[int] = set()
        for i, (t, slot) in enumerate(zip(target_fields, self.slots)):
            if slot is None:
                continue
            old = self.stored[slot].type
            keep, cast = stats_cast(old, t.type)
            if not keep:
                self.bounds_lost.add(i)
            self.casts[i] = cast

    @staticmethod
    def key(meta: DataFileMeta) -> tuple[Any, ...]:
        """What decides a file's layout besides the target fields: schema id and stats column lists."""
        return (meta.schema_id, meta.value_stats_cols, meta.write_cols)


class FileStats(Sequence[ColumnStats]):
    """A file's value stats mapped onto ``target_fields``, each column decoded on first access.

    Behaves like ``list[ColumnStats]`` aligned with ``target_fields``. A column whose bytes
    cannot be decoded reads as unknown (None, None, None) and the problem is kept in
    :attr:`error`, so one bad record never stops a listing. ``layout`` may be given when the
    caller shares one :class:`StatsLayout` between files of the same :meth:`StatsLayout.key`.
    """

    __slots__ = ("_cache", "_file_schema", "_layout", "_meta", "_targets", "_where", "error")

    def __init__(self, meta: DataFileMeta, file_schema: TableSchema, target_fields: Sequence[DataField],
                 where: str | tuple[str, ...], layout: StatsLayout | None = None) -> None:
        self._meta = meta
        self._file_schema = file_schema
        self._targets = target_fields
        self._where = where
        self._layout = layout
        self._cache: list[ColumnStats | None] | None = None
        self.error: str | None = None

    @property
    def where(self) -> str:
        """Where the stats are read from (the manifest entry and its field), for messages; given as
        the parts of the text, it is joined only when asked (a listing holds one per file)."""
        where = self._where
        return where if isinstance(where, str) else "".join(where)

    def _open_rows(self, layout: StatsLayout) -> tuple[BinaryRowReader, BinaryRowReader] | None:
        """The min and max rows (opened for each column decoded, not kept: a listing holds every
        file's stats); None with :attr:`error` set when they cannot be read."""
        if layout.error is not None:
            self.error = layout.error
            return None
        n = len(layout.stored)
        st = self._meta.value_stats
        where = self.where
        try:
            return (BinaryRowReader(st.min_values, n, f"{where} _MIN_VALUES"),
                    BinaryRowReader(st.max_values, n, f"{where} _MAX_VALUES"))
        except CorruptFileError as e:
            self.error = str(e)
            return None

    def _decode(self, i: int) -> ColumnStats:
        layout = self._layout
        if layout is None:
            layout = self._layout = StatsLayout(self._meta, self._file_schema, self._targets)
        in_file = layout.in_file[i]
        rows = None if self.error is not None else self._open_rows(layout)
        pos = None if rows is None else layout.slots[i]
        if pos is None:
            return _UNKNOWN if self.error is not None else missing_stats(in_file, self._meta.row_count)
        assert rows is not None
        counts = self._meta.value_stats.null_counts
        nc = counts[pos] if counts is not None and pos < len(counts) else None
        if i in layout.bounds_lost:  # min/max are not bounds in the current type: null counts only
            return _tuple_new(ColumnStats, (None, None, nc))
        decode, label = layout.decoders[pos], layout.field_labels[pos]
        try:
            mn, mx = rows[0].get_with(pos, decode, label), rows[1].get_with(pos, decode, label)
            cast = layout.casts[i]
            if cast is not None:
                mn = None if mn is None else cast(mn)
                mx = None if mx is None else cast(mx)
        except CorruptFileError as e:
            self.error = str(e)
            return _UNKNOWN
        except PaimonLensError as e:  # a value that does not cast (CastError)
            self.error = f"{self.where}: {layout.field_labels[pos]}: {e}"
            return _UNKNOWN
        return _tuple_new(ColumnStats, (mn, mx, nc))

    @overload
    def __getitem__(self, i: int) -> ColumnStats: ...

    @overload
    def __getitem__(self, i: slice) -> list[ColumnStats]: ...

    def __getitem__(self, i: int | slice) -> ColumnStats | list[ColumnStats]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        cache = self._cache
        if cache is None:
            cache = self._cache = [None] * len(self._targets)
        got = cache[i]  # IndexError out of range, as a list
        if got is None:
            got = cache[i] = self._decode(i if i >= 0 else i + len(cache))
        return got

    def __len__(self) -> int:
        return len(self._targets)

    def uncached(self) -> list[ColumnStats]:
        """Every column's stats, those not decoded yet decoded now without being kept (an answer
        reading each file once, over every file of a large table)."""
        cache = self._cache
        return [(cache[i] if cache is not None else None) or self._decode(i) for i in range(len(self._targets))]

    def __iter__(self) -> Iterator[ColumnStats]:
        for i in range(len(self._targets)):
            yield self[i]
