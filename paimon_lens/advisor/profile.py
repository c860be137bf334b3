"""Column profiles of a Paimon table, computed from its data files.

``profile_table(table)`` reads the profiled columns of every live data file with pyarrow (only
those columns, found by field id in the file's own schema, so renamed columns are found and a
column added after the file was written reads as all null) and measures, per data file x column
(:class:`FileColumnProfile`) and per column (:class:`ColumnProfile`):

==========================  ====================================================================
measure                     definition
==========================  ====================================================================
rows, null_count            rows of the file (as stored: rows a deletion vector marks deleted are
                            included unless ``skip_deleted``), null values among them
nan_count                   NaN values (FLOAT/DOUBLE); NaN is a value, never a min or a max
distinct_count              distinct non-null values: exact per file; per table the exact union
                            when every row was profiled, else the GEE estimate (see below)
min, max                    smallest/largest non-null, non-NaN value (from the data, so strings
                            are not truncated as manifest stats may be)
top_values                  the ``top_k`` most frequent values with their counts (ties: first seen)
top1_ratio, top10_ratio     share of the non-null profiled rows the 1 / 10 most frequent values hold
sorted_ratio                fraction of adjacent pairs of non-null values (in row order) that are
                            non-decreasing; ``is_sorted`` / ``is_strictly_sorted``: all of them
                            are (non-decreasing / increasing); ``descending_ratio`` likewise
min/avg/max_length          value length in bytes (UTF-8 for strings), for strings and binaries
mean/max_file_distinct      per-file distinct counts: what a bloom-filter's ``items`` is sized from
overlap_ratio               for each file with a range, the fraction of the *other* such files
                            whose [min, max] intersects its [min, max]; averaged over files.
                            Disjoint files give 0 (min/max stats prune perfectly), identical
                            ranges give 1 (they prune nothing)
point_lookup_files_ratio    the fraction of files whose [min, max] contains a value, averaged
                            over up to :data:`PROBE_ROWS` values drawn from each file's rows,
                            then over files: what a point lookup on an existing value must read
                            after min/max pruning (1/files at best, 1 at worst)
==========================  ====================================================================

Sampling. ``max_files`` profiles a seeded random sample of the live files; ``sample_rows_per_file``
computes top values, quantiles and the table-level distinct count from a seeded random sample of
each file's non-null rows (rows, nulls, min, max, lengths, sortedness and per-file distinct counts
stay exact for the files read). A table-level distinct count that is not an exact union is
estimated with GEE, the Guaranteed-Error Estimator of Charikar, Chaudhuri, Motwani and Narasayya
(PODS 2000): ``D = sqrt(N/n) * f1 + sum_{j>=2} f_j`` (``n`` profiled values, ``N`` values in the
table, ``f_j`` values seen ``j`` times), whose ratio error is at most about ``sqrt(N/n)``
(``distinct_error``) for uniform row samples. It is clamped to hard bounds, reported as
``distinct_low``/``distinct_high``: at least the values seen and the largest per-file count, at
most ``seen + N - n`` and the sum of the per-file counts plus the rows of unread files. A file
sample is a cluster sample, so values confined to unread files only show up through that bound.
The profile's ``notes`` say which of this applies.

Columns of nested types (ARRAY, MAP, MULTISET, ROW, VARIANT, BLOB) are skipped with a note; a
data file that cannot be read is recorded in ``errors`` and the others are profiled.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..engines.base import Engine
from ..engines.files import map_file_chunks, task_count
from ..engines.local import LOCAL
from ..errors import CorruptFileError, PaimonLensError
from ..formats.data_file import arrow_from_internal, arrow_type, internal_values, read_stored_columns
from ..inventory.deletion_vectors import deletion_vector_infos
from ..metadata.consistency import consistent
from ..metadata.row_ranges import is_blob_file
from ..progress import progress as show_progress
from ..rendering import render
from ..types import DataField, DataType
from ..values import float32, to_json, to_python

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.snapshot_reader import LiveFile, SnapshotReader

PROBE_ROWS = 1024
"""Values drawn per file to measure ``point_lookup_files_ratio``."""

SAMPLES_PER_FILE = 8
"""Live values kept per file (``ColumnProfile.samples``: what derived point lookups use)."""

MAX_SAMPLES = 32
"""Live values kept per column."""

QUANTILES = 100
"""``ColumnProfile.quantiles`` holds the 0, 1, ..., 100 % quantiles of ordered columns."""


_ORDERED = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "DATE", "TIME",
                      "TIMESTAMP", "TIMESTAMP_LTZ"})
_INT_LIKE = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"})


@dataclass(frozen=True)
class SampleValue:
    """A value held by a live row (not deleted by a deletion vector) of one data file."""

    value: Any
    count: int  # occurrences among the profiled rows of the table
    partition: dict[str, Any]
    file_name: str


@dataclass(frozen=True)
class FileColumnProfile:
    """One column of one data file (see the module docs for each measure)."""

    column: str
    rows: int
    null_count: int
    nan_count: int
    distinct_count: int
    min: Any
    max: Any
    top_values: tuple[tuple[Any, int], ...]
    sorted_ratio: float | None
    descending_ratio: float | None
    is_sorted: bool
    is_strictly_sorted: bool
    min_length: int | None
    avg_length: float | None
    max_length: int | None
    profiled_rows: int  # non-null rows distinct/top values were computed from


@dataclass(frozen=True)
class FileProfile:
    """One profiled data file."""

    file_name: str
    path: str
    partition: dict[str, Any]
    bucket: int
    level: int
    row_count: int
    deleted_rows: int
    columns: tuple[FileColumnProfile, ...]


@dataclass(frozen=True)
class UnprofiledFile:
    """A data file that could not be profiled."""

    file_name: str
    path: str
    message: str


@dataclass(frozen=True)
class ColumnProfile:
    """One column of the table, over the profiled files (see the module docs for each measure)."""

    name: str
    field_id: int
    dtype: DataType
    is_partition_key: bool
    files: int
    rows: int
    null_count: int
    nan_count: int
    distinct_count: int
    distinct_exact: bool
    distinct_low: int
    distinct_high: int
    distinct_error: float | None  # GEE's ratio-error factor sqrt(N/n) when estimated
    min: Any
    max: Any
    top_values: tuple[tuple[Any, int], ...]
    top1_ratio: float | None
    top10_ratio: float | None
    mean_file_distinct: float | None
    max_file_distinct: int | None
    overlap_ratio: float | None
    point_lookup_files_ratio: float | None
    sorted_ratio: float | None
    sorted_files: int
    min_length: int | None
    avg_length: float | None
    max_length: int | None
    profiled_rows: int
    quantiles: tuple[Any, ...] = ()
    samples: tuple[SampleValue, ...] = ()
    absent_value: Any = None  # inside [min, max], held by no profiled row (None: none found)

    @property
    def null_ratio(self) -> float | None:
        """Nulls / rows."""
        return self.null_count / self.rows if self.rows else None

    @property
    def non_null_rows(self) -> int:
        """Rows holding a value."""
        return self.rows - self.null_count



@dataclass(frozen=True)
class TableProfile:
    """Column profiles of one snapshot of a table."""

    table_path: str
    snapshot_id: int | None
    columns: tuple[ColumnProfile, ...]
    files: tuple[FileProfile, ...]
    errors: tuple[UnprofiledFile, ...]
    skipped_columns: dict[str, str]
    total_files: int
    sampled_files: int
    sample_rows_per_file: int | None
    seed: int
    notes: tuple[str, ...]
    partition_types: dict[str, DataType] = field(default_factory=dict, repr=False)

    @property
    def sampled(self) -> bool:
        """Whether some files or rows were left out."""
        return self.sampled_files < self.total_files or any(
            c.profiled_rows < c.non_null_rows for c in self.columns)

    def column(self, name: str) -> ColumnProfile:
        """The profile of one column."""
        for c in self.columns:
            if c.name == name:
                return c
        raise PaimonLensError(f"no profiled column {name!r}: {', '.join(c.name for c in self.columns)}")

    def column_records(self, as_json: bool = True) -> list[dict[str, Any]]:
        """One record per column: its profile, values as JSON (or, ``as_json=False``, as Python objects)."""
        conv = to_json if as_json else to_python
        return [_column_record(c, conv) for c in self.columns]

    def file_column_records(self, as_json: bool = True) -> list[dict[str, Any]]:
        """One record per profiled data file x column, values as :meth:`column_records` gives them."""
        conv = to_json if as_json else to_python
        types = {c.name: c.dtype for c in self.columns}
        rows = []
        for f in self.files:
            part = {k: conv(v, self.partition_types[k]) for k, v in f.partition.items()}
            for c in f.columns:
                rows.append(_file_column_record(f, c, types[c.column], part, conv))
        return rows

    def columns_frame(self) -> pd.DataFrame:
        """One row per column (:meth:`column_records`; columns:
        :data:`~paimon_lens.presentation.frame_columns.COLUMN_FRAME_COLUMNS`)."""
        return cast("pd.DataFrame", render(self, "columns_frame"))

    def files_frame(self) -> pd.DataFrame:
        """One row per profiled data file x column (:meth:`file_column_records`; columns:
        :data:`~paimon_lens.presentation.frame_columns.FILE_FRAME_COLUMNS`)."""
        return cast("pd.DataFrame", render(self, "files_frame"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``table``, ``snapshot_id``, sampling, ``notes``, ``errors``, ``columns``, ``files``."""
        types = {c.name: c.dtype for c in self.columns}
        files = []
        for f in self.files:
            part = {k: to_json(v, self.partition_types[k]) for k, v in f.partition.items()}
            files.append({
                "file_name": f.file_name, "path": f.path, "partition": part, "bucket": f.bucket,
                "level": f.level, "row_count": f.row_count, "deleted_rows": f.deleted_rows,
                "columns": [_file_column_record(f, c, types[c.column], part, to_json) for c in f.columns],
            })
        columns = []
        for c, rec in zip(self.columns, self.column_records()):
            rec["quantiles"] = [to_json(v, c.dtype) for v in c.quantiles]
            rec["absent_value"] = to_json(c.absent_value, c.dtype)
            rec["samples"] = [{"value": to_json(x.value, c.dtype), "count": x.count, "file_name": x.file_name,
                               "partition": {k: to_json(v, self.partition_types[k]) for k, v in x.partition.items()}}
                              for x in c.samples]
            columns.append(rec)
        return {
            "table": self.table_path, "snapshot_id": self.snapshot_id, "total_files": self.total_files,
            "sampled_files": self.sampled_files, "sample_rows_per_file": self.sample_rows_per_file,
            "seed": self.seed, "notes": list(self.notes), "skipped_columns": dict(self.skipped_columns),
            "errors": [{"file_name": e.file_name, "path": e.path, "message": e.message} for e in self.errors],
            "columns": columns, "files": files,
        }


#: ColumnProfile fields a column record names otherwise (``column``, ``type``, ``partition_key``)
#: or leaves to the JSON document (quantiles, samples, the absent value: values to convert)
_NOT_RECORDED = frozenset({"name", "field_id", "dtype", "is_partition_key", "quantiles", "samples", "absent_value"})


def _column_record(c: ColumnProfile, conv: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"column": c.name, "type": str(c.dtype), "partition_key": c.is_partition_key,
                           "null_ratio": c.null_ratio}
    rec.update((fld.name, getattr(c, fld.name)) for fld in dataclass_fields(c) if fld.name not in _NOT_RECORDED)
    rec["min"], rec["max"] = conv(c.min, c.dtype), conv(c.max, c.dtype)
    rec["top_values"] = [[conv(v, c.dtype), n] for v, n in c.top_values]
    return rec


def _file_column_record(f: FileProfile, c: FileColumnProfile, dtype: DataType, partition: dict[str, Any],
                        conv: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"file_name": f.file_name, "partition": partition, "bucket": f.bucket, "level": f.level,
                           "deleted_rows": f.deleted_rows}
    rec.update((fld.name, getattr(c, fld.name)) for fld in dataclass_fields(c))
    rec["min"], rec["max"] = conv(c.min, dtype), conv(c.max, dtype)
    rec["top_values"] = [[conv(v, dtype), n] for v, n in c.top_values]
    return rec


# ---- reading -----------------------------------------------------------------------------------

def read_arrow_columns(table: SnapshotReader, lf: LiveFile, fields: Sequence[DataField]) -> dict[int, pa.Array]:
    """The given table fields of one data file as Arrow arrays (by field id), in physical row order,
    of the table's current types where they cast (else as stored).

    Read by :func:`~paimon_lens.formats.data_file.read_stored_columns`; a field the file's schema
    lacks (or the file does not write) reads as nulls.
    """
    n = lf.entry.file.row_count
    path = table.file_io.join(table.path, lf.path)
    stored = read_stored_columns(table, lf, [f.id for f in fields])
    out: dict[int, pa.Array] = {}
    for f in fields:
        want = arrow_type(f.type)
        if f.id not in stored:
            out[f.id] = pa.nulls(n, want)
            continue
        arr = stored[f.id][1]
        if len(arr) != n:
            raise CorruptFileError(path, None, f"column {f.name}", f"{n} rows (manifest row count)", f"{len(arr)} rows")
        if arr.type != want:
            with contextlib.suppress(pa.ArrowException, ValueError):  # else profiled as stored
                arr = arr.cast(want)
        out[f.id] = arr
    return out


# ---- one file x column ---------------------------------------------------------------------------

@dataclass
class _Piece:
    """What one file contributes to a column's table-level profile."""

    profile: FileColumnProfile
    values: pa.Array  # distinct profiled values of the file
    counts: np.ndarray  # their counts
    range_keys: np.ndarray | None  # [min, max] as sort keys (see _keys), None without a non-null value
    probe_keys: np.ndarray  # values drawn for point_lookup_files_ratio, as sort keys
    samples: list[Any]  # live values
    pairs: int
    asc_pairs: int
    length_sum: int


def _keys(arr: pa.Array, dtype: DataType) -> np.ndarray:
    """Non-null values as a numpy array that sorts as the values do (numbers, or Python objects)."""
    t = arr.type
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return np.asarray(arr.cast(pa.int32()).to_numpy(zero_copy_only=False), dtype=np.int64)
    if pa.types.is_timestamp(t) or pa.types.is_integer(t) or pa.types.is_time64(t):
        return np.asarray(arr.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    if pa.types.is_floating(t):
        return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.float64)
    if pa.types.is_boolean(t):
        return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.int8)
    out = np.empty(len(arr), dtype=object)
    out[:] = internal_values(arr, dtype)
    return out


def _gee(counts: np.ndarray, n: int, total: int) -> tuple[int, int, int]:
    """GEE distinct estimate of ``total`` values from the value counts of ``n`` sampled ones: (est, low, high)."""
    seen = len(counts)
    if n <= 0 or total <= n:
        return seen, seen, seen
    f1 = int((counts == 1).sum())
    est = math.sqrt(total / n) * f1 + (seen - f1)
    high = seen + (total - n)
    return round(min(max(est, seen), high)), seen, high


def _sorted_values(vals: pa.Array) -> tuple[int, int, int, int]:
    """(pairs, non-decreasing, increasing, non-increasing) adjacent pairs of non-null ``vals``."""
    n = len(vals)
    if n < 2:
        return 0, 0, 0, 0
    a, b = vals.slice(0, n - 1), vals.slice(1)

    def count(fn: Any) -> int:
        return int(pc.sum(fn(a, b)).as_py() or 0)

    return n - 1, count(pc.less_equal), count(pc.less), count(pc.greater_equal)


def _sample(arr: pa.Array, k: int, rng: np.random.Generator) -> pa.Array:
    """``k`` rows of ``arr`` drawn without replacement (in row order), or ``arr`` if it is not longer."""
    if len(arr) <= k:
        return arr
    return arr.take(pa.array(np.sort(rng.choice(len(arr), k, replace=False))))


def _profile_file_column(arr: pa.Array, f: DataField, top_k: int, sample_rows: int | None,
                         live: np.ndarray | None, rng: np.random.Generator) -> _Piece:
    dtype = f.type
    rows, nulls = len(arr), arr.null_count
    vals = pc.drop_null(arr) if nulls else arr
    is_float = dtype.root in ("FLOAT", "DOUBLE")
    nans, ordered = 0, vals
    if is_float and len(vals):
        nan_mask = pc.is_nan(vals)
        nans = int(pc.sum(nan_mask).as_py() or 0)
        ordered = pc.filter(vals, pc.invert(nan_mask)) if nans else vals
    lo = hi = None
    range_keys = None
    if len(ordered):
        mm = pc.min_max(ordered)
        lo_hi = pa.array([mm["min"], mm["max"]], ordered.type)
        lo, hi = internal_values(lo_hi, dtype)
        range_keys = _keys(lo_hi, dtype)
    pairs, asc, strict, desc = _sorted_values(vals)
    profiled = vals if sample_rows is None else _sample(vals, sample_rows, rng)
    if len(profiled):
        vc = pc.value_counts(profiled)
        uniq, counts = vc.field("values"), vc.field("counts").to_numpy(zero_copy_only=False).astype(np.int64)
    else:
        uniq, counts = pa.array([], vals.type), np.zeros(0, np.int64)
    distinct = len(counts) if len(profiled) == len(vals) else int(pc.count_distinct(vals).as_py())
    order = np.argsort(-counts, kind="stable")[:top_k]
    top = tuple(zip(internal_values(uniq.take(pa.array(order, pa.int64())), dtype), (int(c) for c in counts[order])))
    lmin = lmax = None
    lavg: float | None = None
    lsum = 0
    if (dtype.is_string or dtype.is_binary) and len(vals):
        src = vals.cast(pa.binary()) if pa.types.is_fixed_size_binary(vals.type) else vals
        lens = pc.binary_length(src).to_numpy(zero_copy_only=False)
        lmin, lmax, lsum = int(lens.min()), int(lens.max()), int(lens.sum())
        lavg = lsum / len(lens)
    probe_keys = _keys(_sample(ordered, PROBE_ROWS, rng), dtype)
    ok = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if nans:
        ok &= ~np.asarray(pc.fill_null(pc.is_nan(arr), False).to_numpy(zero_copy_only=False), dtype=bool)
    if live is not None:
        ok &= live
    where = np.flatnonzero(ok)
    samples: list[Any] = []
    if len(where):
        chosen = rng.choice(where, min(SAMPLES_PER_FILE, len(where)), replace=False)
        samples = internal_values(arr.take(pa.array(np.sort(chosen))), dtype)
    profile = FileColumnProfile(
        column=f.name, rows=rows, null_count=nulls, nan_count=nans, distinct_count=distinct, min=lo, max=hi,
        top_values=top, sorted_ratio=asc / pairs if pairs else None,
        descending_ratio=desc / pairs if pairs else None, is_sorted=asc == pairs, is_strictly_sorted=strict == pairs,
        min_length=lmin, avg_length=lavg, max_length=lmax, profiled_rows=len(profiled))
    return _Piece(profile, uniq, counts, range_keys, probe_keys, samples, pairs, asc, lsum)


# ---- table level -----------------------------------------------------------------------------------

def _overlap(pieces: list[_Piece]) -> tuple[float | None, float | None]:
    """(overlap_ratio, point_lookup_files_ratio) of the files' [min, max] ranges (see module docs)."""
    ranged = [(p.range_keys, p.probe_keys) for p in pieces if p.range_keys is not None]
    n = len(ranged)
    if n == 0:
        return None, None
    bounds = np.concatenate([r for r, _ in ranged])
    lows, highs = bounds[0::2], bounds[1::2]
    mins, maxs = np.sort(lows), np.sort(highs)

    def containing(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        # files j with min_j <= hi and max_j >= lo
        return np.searchsorted(mins, hi, side="right") - np.searchsorted(maxs, lo, side="left")

    overlap = None
    if n > 1:
        overlap = float(((containing(lows, highs) - 1) / (n - 1)).mean())
    per_file = [float(containing(probes, probes).mean()) / n for _, probes in ranged if len(probes)]
    return overlap, (sum(per_file) / len(per_file) if per_file else None)


def _merge_counts(parts: Sequence[tuple[pa.Array, np.ndarray]], atype: pa.DataType) -> tuple[pa.Array, np.ndarray]:
    """Distinct values of (values, counts) parts and their summed counts, in order of first appearance."""
    if not parts:
        return pa.array([], atype), np.zeros(0, np.int64)
    if len(parts) == 1:
        return parts[0]
    values = pa.concat_arrays([v.cast(atype) if v.type != atype else v for v, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    merged = pa.table({"v": values, "c": counts}).group_by("v", use_threads=False).aggregate([("c", "sum")])
    return merged.column("v").combine_chunks(), merged.column("c_sum").to_numpy().astype(np.int64)


def _quantiles(values: pa.Array, counts: np.ndarray, dtype: DataType) -> tuple[Any, ...]:
    """The 0..100 % quantiles (observed values, lower rank) of values with these counts."""
    if dtype.root in ("FLOAT", "DOUBLE") and len(values):
        keep = pc.invert(pc.is_nan(values))
        counts = counts[np.asarray(keep.to_numpy(zero_copy_only=False), dtype=bool)]
        values = pc.filter(values, keep)
    if not len(values):
        return ()
    keys = _keys(values, dtype) if dtype.root != "DECIMAL" else None
    order = np.argsort(keys, kind="stable") if keys is not None else pc.sort_indices(values).to_numpy()
    cum = np.cumsum(counts[order])
    ranks = np.floor(np.linspace(0, 1, QUANTILES + 1) * (cum[-1] - 1))
    pos = np.searchsorted(cum, ranks, side="right")
    return tuple(internal_values(values.take(pa.array(order[pos])), dtype))


def _absent_candidates(values: pa.Array, dtype: DataType, lo: Any, hi: Any, rng: np.random.Generator) -> list[Any]:
    """Values in (lo, hi) that may be absent from ``values`` (the distinct profiled values); integer-like
    types get one surely absent value (a gap between sorted values), others neighbours of present values."""
    if lo is None or lo == hi or dtype.root == "BOOLEAN" or not len(values):
        return []
    if dtype.root in _INT_LIKE:
        u = np.sort(_keys(values, dtype))  # distinct already
        gaps = np.flatnonzero(np.diff(u) > 1)
        if not len(gaps):
            return []
        gap = pa.array([int(u[gaps[int(rng.integers(len(gaps)))]]) + 1], pa.int64())
        narrow = pa.types.is_date32(values.type) or pa.types.is_time32(values.type)
        return internal_values((gap.cast(pa.int32()) if narrow else gap).cast(values.type), dtype)
    picks = internal_values(_sample(values, 32, rng), dtype)
    return [c for v in picks for c in _neighbours(v, dtype) if lo < c < hi]


def _neighbours(v: Any, dtype: DataType) -> list[Any]:
    """Values just above and below ``v`` (candidates for an absent value)."""
    r = dtype.root
    if r in ("FLOAT", "DOUBLE"):
        if not math.isfinite(v):
            return []
        if r == "DOUBLE":
            return [math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]
        f = np.float32(v)
        return [float32(float(np.nextafter(f, np.float32(np.inf)))),
                float32(float(np.nextafter(f, np.float32(-np.inf))))]
    if r == "DECIMAL":
        ulp = Decimal(1).scaleb(-(dtype.scale or 0))
        return [v + ulp, v - ulp]
    if dtype.is_string:
        return [v + "~", v + "0", v[:-1]] if v else ["0"]
    if dtype.is_binary:
        return [v + b"\x00", v[:-1]] if v else [b"\x00"]
    return []


def _counts_of(values: pa.Array, counts: np.ndarray, probe: list[Any], dtype: DataType) -> list[int]:
    """How often each probe value occurs among the profiled values (0: absent).

    The probe values are hashed and the (many) distinct values looked up in them, not the reverse:
    hashing a few values is cheaper than hashing a million.
    """
    if not probe:
        return []
    arr = arrow_from_internal(probe, dtype)
    if arr.type != values.type:
        arr = arr.cast(values.type)
    uniq = pc.unique(arr)
    where = pc.index_in(values, value_set=uniq)
    hit = np.flatnonzero(np.asarray(where.is_valid().to_numpy(zero_copy_only=False), dtype=bool))
    found = np.zeros(len(uniq), np.int64)
    slots = np.asarray(where.take(pa.array(hit, pa.int64())).to_numpy(zero_copy_only=False), dtype=np.int64)
    found[slots] = counts[hit]
    return [int(found[i]) for i in pc.index_in(arr, value_set=uniq).to_numpy(zero_copy_only=False)]


def _column_profile(f: DataField, is_partition: bool, pieces: list[_Piece], merged: tuple[pa.Array, np.ndarray],
                    metas: list[LiveFile], total_rows: int, top_k: int, rng: np.random.Generator) -> ColumnProfile:
    dtype = f.type
    profs = [p.profile for p in pieces]
    rows = sum(p.rows for p in profs)
    nulls = sum(p.null_count for p in profs)
    values, counts = merged
    profiled = int(counts.sum())
    non_null = rows - nulls
    error: float | None = None
    if profiled == non_null and rows == total_rows:
        distinct, low, high, exact = len(counts), len(counts), len(counts), True
    else:
        # every live file's rows, at the non-null share seen in the profiled ones
        total_values = max(round(total_rows * (non_null / rows)) if rows else 0, non_null)
        distinct, low, high = _gee(counts, profiled, total_values)
        # per-file distinct counts are exact: the union holds at least the largest and at most their
        # sum plus one new value per unread row
        low = max(low, max((p.distinct_count for p in profs), default=0))
        high = max(low, min(high, sum(p.distinct_count for p in profs) + total_values - non_null))
        distinct, exact = min(max(distinct, low), high), False
        error = math.sqrt(total_values / profiled) if profiled else None
    order = np.argsort(-counts, kind="stable")[:max(top_k, 10)]
    top_all = list(zip(internal_values(values.take(pa.array(order, pa.int64())), dtype),
                       (int(c) for c in counts[order])))
    overlap, lookup = _overlap(pieces)
    los = [p.min for p in profs if p.min is not None]
    his = [p.max for p in profs if p.max is not None]
    lo, hi = (min(los), max(his)) if los else (None, None)
    pairs = sum(p.pairs for p in pieces)
    lens = [p for p in profs if p.min_length is not None]
    drawn = [(v, lf) for p, lf in zip(pieces, metas) for v in p.samples]
    if len(drawn) > MAX_SAMPLES:
        drawn = [drawn[i] for i in sorted(rng.choice(len(drawn), MAX_SAMPLES, replace=False))]
    candidates = _absent_candidates(values, dtype, lo, hi, rng)
    found = _counts_of(values, counts, [v for v, _ in drawn] + candidates, dtype)
    samples = tuple(SampleValue(v, n, dict(lf.partition), lf.entry.file.file_name) for (v, lf), n in zip(drawn, found))
    absent = next((c for c, n in zip(candidates, found[len(drawn):]) if n == 0), None)
    return ColumnProfile(
        name=f.name, field_id=f.id, dtype=dtype, is_partition_key=is_partition, files=len(profs), rows=rows,
        null_count=nulls, nan_count=sum(p.nan_count for p in profs), distinct_count=distinct,
        distinct_exact=exact, distinct_low=low, distinct_high=high, distinct_error=error, min=lo, max=hi,
        top_values=tuple(top_all[:top_k]),
        top1_ratio=(top_all[0][1] / profiled) if profiled else None,
        top10_ratio=(sum(c for _, c in top_all[:10]) / profiled) if profiled else None,
        mean_file_distinct=(sum(p.distinct_count for p in profs) / len(profs)) if profs else None,
        max_file_distinct=max((p.distinct_count for p in profs), default=None),
        overlap_ratio=overlap, point_lookup_files_ratio=lookup,
        sorted_ratio=(sum(p.asc_pairs for p in pieces) / pairs) if pairs else None,
        sorted_files=sum(1 for p in profs if p.is_sorted),
        min_length=min((p.min_length for p in lens if p.min_length is not None), default=None),
        avg_length=(sum(p.length_sum for p in pieces) / non_null) if lens and non_null else None,
        max_length=max((p.max_length for p in lens if p.max_length is not None), default=None),
        profiled_rows=profiled,
        quantiles=_quantiles(values, counts, dtype) if dtype.root in _ORDERED else (),
        samples=samples, absent_value=absent)


def _deletion_vectors(table: SnapshotReader) -> dict[str, np.ndarray]:
    """Deleted positions per data file name (files without a readable vector are absent)."""
    if not table.index_entries():
        return {}
    out = {}
    for dv in deletion_vector_infos(table):
        if dv.positions is not None:
            out[dv.data_file] = np.fromiter(dv.positions, dtype=np.int64, count=len(dv.positions))
    return out


@dataclass
class _ChunkProfile:
    """What a run of data files (one task) contributes to a table profile."""

    done: list[tuple[int, FileProfile, list[_Piece]]]  # (position in live files, profile, piece per field)
    errors: list[UnprofiledFile]
    merged: list[tuple[pa.Array, np.ndarray]]  # per field: the files' distinct values and summed counts


def _profile_chunk(table: SnapshotReader, lfs: Sequence[LiveFile], extras: Sequence[tuple[int, np.ndarray | None]], *,
                   fields: Sequence[DataField], top_k: int, sample_rows: int | None, seed: int,
                   skip_deleted: bool, progress: bool | None = False) -> _ChunkProfile:
    """Profile ``lfs`` (``extras``: each file's position among the live files and deleted positions).

    The pieces come back without their value counts, which are merged per field over the chunk
    (in file order, so merging the chunks' counts in order equals merging every file's).
    """
    iterator: Any = zip(lfs, extras)
    if progress is not False:
        iterator = show_progress(iterator, total=len(lfs), desc="profiling data files", enabled=progress)
    done: list[tuple[int, FileProfile, list[_Piece]]] = []
    errors: list[UnprofiledFile] = []
    for lf, (position, deleted) in iterator:
        meta = lf.entry.file
        try:
            arrays = read_arrow_columns(table, lf, fields)
        except (PaimonLensError, OSError) as e:
            errors.append(UnprofiledFile(meta.file_name, lf.path, str(e)))
            continue
        live_mask: np.ndarray | None = None
        if deleted is not None and len(deleted):
            live_mask = np.ones(meta.row_count, dtype=bool)
            live_mask[deleted[deleted < meta.row_count]] = False
        if skip_deleted and live_mask is not None:
            keep = pa.array(live_mask)
            arrays = {k: pc.filter(a, keep) for k, a in arrays.items()}
            live_mask = None
        pieces = []
        for f in fields:
            rng = np.random.default_rng([seed, f.id, position])  # the same draws whatever else is profiled
            pieces.append(_profile_file_column(arrays[f.id], f, top_k, sample_rows, live_mask, rng))
        done.append((position, FileProfile(meta.file_name, lf.path, dict(lf.partition), lf.entry.bucket, meta.level,
                                           meta.row_count, 0 if deleted is None else len(deleted),
                                           tuple(p.profile for p in pieces)), pieces))
    merged = []
    for i, f in enumerate(fields):
        atype = arrow_type(f.type)
        merged.append(_merge_counts([(ps[i].values, ps[i].counts) for _, _, ps in done], atype))
        for _, _, ps in done:
            ps[i] = replace(ps[i], values=pa.array([], ps[i].values.type), counts=_NO_COUNTS)
    return _ChunkProfile(done, errors, merged)


_NO_COUNTS = np.zeros(0, np.int64)


@consistent
def profile_table(table: SnapshotReader, columns: Sequence[str] | None = None, *, max_files: int | None = None,
                  sample_rows_per_file: int | None = None, seed: int = 0, top_k: int = 10,
                  skip_deleted: bool = False, progress: bool | None = None,
                  engine: Engine | None = None) -> TableProfile:
    """Profile the columns of a table's live data files (see the module docs for every measure).

    The files are read on the table's engine (:mod:`paimon_lens.engines`): on a distributed one,
    runs of files are profiled in tasks and their partial profiles merged here, with the same
    answers as in process.

    Args:
        table: the table, at the snapshot to profile.
        columns: column names (default: every column; nested types are skipped with a note).
        max_files: profile at most this many files, a seeded random sample of the live files.
        sample_rows_per_file: compute distinct counts, top values and quantiles from at most this
            many non-null rows of each file (a seeded random sample).
        seed: seed (>= 0) of every random choice (file sample, row sample, probes, samples, absent
            values); each column draws from its own stream, so its profile does not depend on
            which other columns are profiled.
        top_k: how many most frequent values to keep.
        skip_deleted: leave out rows deleted by deletion vectors (default: profile files as
            stored, which is what their min/max stats and file indexes cover).
        progress: show a progress bar (default: once the work is long, see :mod:`paimon_lens.progress`;
            in process only).

    Raises:
        PaimonLensError: an unknown column name.
    """
    fields = list(table.schema.fields)
    if columns is not None:
        by_name = {f.name: f for f in fields}
        unknown = [c for c in columns if c not in by_name]
        if unknown:
            raise PaimonLensError(f"no column {unknown[0]!r} in {table.name}: {', '.join(by_name)}")
        fields = [by_name[c] for c in dict.fromkeys(columns)]
    skipped = {f.name: f"{f.type.root} columns are not profiled" for f in fields if f.type.is_nested}
    fields = [f for f in fields if not f.type.is_nested]
    live = [lf for lf in table.live_files() if not is_blob_file(lf.entry.file.file_name)]  # BLOB columns only
    chosen = list(enumerate(live))
    if max_files is not None and max_files < len(live):
        rng = np.random.default_rng(seed)
        chosen = [chosen[i] for i in sorted(rng.choice(len(live), max(0, max_files), replace=False))]
    dvs = _deletion_vectors(table)
    engine = engine or LOCAL
    run = partial(_profile_chunk, fields=fields, top_k=top_k, sample_rows=sample_rows_per_file, seed=seed,
                  skip_deleted=skip_deleted, progress=progress if task_count(engine) == 1 else False)
    chosen_files = [lf for _, lf in chosen]
    extras = [(position, dvs.get(lf.entry.file.file_name)) for position, lf in chosen]
    chunks = map_file_chunks(engine, table, chosen_files, run, extras)
    pieces: dict[int, list[_Piece]] = {f.id: [] for f in fields}
    metas: list[LiveFile] = []
    files: list[FileProfile] = []
    errors: list[UnprofiledFile] = []
    for chunk in chunks:
        for position, file_profile, file_pieces in chunk.done:
            metas.append(live[position])
            files.append(file_profile)
            for f, piece in zip(fields, file_pieces):
                pieces[f.id].append(piece)
        errors.extend(chunk.errors)
    read = [c for c in chunks if c.done]  # a chunk whose files all failed adds no values (nor a cast)
    merged = {f.id: _merge_counts([c.merged[i] for c in read], arrow_type(f.type)) for i, f in enumerate(fields)}
    total_rows = sum(lf.entry.file.row_count for lf in live)
    if skip_deleted:
        total_rows -= sum(len(d) for d in dvs.values())
    parts = set(table.schema.partition_keys)
    profiles = tuple(_column_profile(f, f.name in parts, pieces[f.id], merged[f.id], metas, total_rows, top_k,
                                     np.random.default_rng([seed, f.id])) for f in fields)
    notes = _notes(len(live), len(chosen), sample_rows_per_file, skipped, errors, dvs, skip_deleted, profiles)
    return TableProfile(table.path, table.snapshot_id, profiles, tuple(files), tuple(errors), skipped,
                        len(live), len(chosen), sample_rows_per_file, seed, tuple(notes),
                        {p.name: p.type for p in table.schema.partition_fields})


def _notes(total: int, sampled: int, sample_rows: int | None, skipped: dict[str, str], errors: list[UnprofiledFile],
           dvs: dict[str, np.ndarray], skip_deleted: bool, profiles: Sequence[ColumnProfile]) -> list[str]:
    notes = []
    if sampled < total:
        notes.append(f"profiled a seeded random sample of {sampled} of {total} data files")
    else:
        notes.append(f"profiled all {total} data files")
    if sample_rows is not None:
        notes.append(f"top values, quantiles and table distinct counts come from at most {sample_rows} random "
                     "non-null rows per file; rows, nulls, min, max, lengths, sortedness and per-file distinct "
                     "counts are exact for the files read")
    estimated = [c for c in profiles if not c.distinct_exact]
    if estimated:
        worst = max((c.distinct_error for c in estimated if c.distinct_error is not None), default=math.inf)
        notes.append("table distinct counts of " + ", ".join(c.name for c in estimated) + " are GEE estimates "
                     "(sqrt(N/n)*f1 + sum f_j, Charikar et al. 2000) from the profiled values, clamped to "
                     f"[distinct_low, distinct_high]; ratio error up to about {worst:.2f}x (distinct_error) for a "
                     "uniform row sample; a file sample is a cluster sample, so values confined to unread files may "
                     "be missed (distinct_high bounds them); top values count profiled rows only")
    else:
        notes.append("distinct counts are exact (union of the values of every row)")
    notes.append(f"point_lookup_files_ratio probes up to {PROBE_ROWS} random values per file (exact below that)")
    if dvs:
        deleted = sum(len(d) for d in dvs.values())
        notes.append(f"{deleted} rows are deleted by deletion vectors: "
                     + ("left out" if skip_deleted else "profiled as stored (as min/max stats and file indexes see "
                        "them); samples come from live rows only"))
    notes.extend(f"column {name!r} skipped: {why}" for name, why in skipped.items())
    if errors:
        notes.append(f"{len(errors)} data file(s) could not be read and are left out: "
                     + "; ".join(f"{e.file_name}: {e.message}" for e in errors[:3]))
    return notes
