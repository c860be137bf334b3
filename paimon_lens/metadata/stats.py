"""Decoding ``SimpleStats`` and mapping them to the current schema by field id.

Stats are written in the file's own schema (``_SCHEMA_ID``). ``_VALUE_STATS_COLS`` null means
"every column of that schema" (or of ``_WRITE_COLS`` when set); a list means dense stats: the
min/max rows and null counts hold only those columns, in that order. Mapping to another schema
(Paimon's ``SimpleStatsEvolution``) goes by field id: a renamed column keeps its stats, a column
added after the file was written has null min/max and ``null_count = row_count``, a column with
no stored stats (mode ``none``, nested types, dense-store cuts) has null min/max/null count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..types import DataField
from .binary_row import decode_binary_row
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
