"""Data files (parquet, orc, avro): the stored columns of a few table fields, by field id.

One reader serves ground truth (:mod:`paimon_lens.pruning.truth`), profiling and what-if
measurement (:mod:`paimon_lens.advisor`): :func:`read_stored_columns` reads only the columns
asked for, by their name in the file's own schema (so renamed columns are found), and only those
the file writes (``_WRITE_COLS`` of data-evolution files), as Arrow arrays in physical row order
(primary-key files as stored, including rows a deletion vector marks deleted). Parquet and ORC
are read with pyarrow (a local file in place, a remote one as bytes bounded by ``_FILE_SIZE``);
avro with fastavro, its values converted once to the Arrow arrays a parquet file would hold. The
file's row count must be the manifest's ``_ROW_COUNT``: every row mask is sized from it.

One set of conversions: :func:`internal_values` (Arrow -> internal values, see
:mod:`paimon_lens.types`), :func:`arrow_from_internal` and :func:`arrow_type` (the Arrow type a
data file stores a Paimon type as). :func:`stored_row_count` reads a file's footer only.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import CorruptFileError, UnsupportedError
from ..io.fileio import check_size, local_path, note_missing, read_file
from ..metadata.row_ranges import written_field_ids
from ..types import DataField, DataType, Timestamp
from ..values import to_internal

if TYPE_CHECKING:
    import pyarrow as pa

    from ..metadata.snapshot_reader import LiveFile, SnapshotReader

FORMATS = ("parquet", "orc", "avro")

#: what a malformed data file makes pyarrow or fastavro raise (pyarrow's ArrowException
#: subclasses are among these: ArrowInvalid is a ValueError, ArrowNotImplementedError ...)
_READ_ERRORS = (OSError, ValueError, LookupError, TypeError, NotImplementedError, ArithmeticError)
_PER_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1000, "ns": 1}


def arrow_type(dtype: DataType) -> pa.DataType:
    """The Arrow type a data file stores a Paimon type as."""
    import pyarrow as pa

    r = dtype.root
    simple = {"BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(),
              "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(), "DATE": pa.date32()}
    if r in simple:
        return simple[r]
    if dtype.is_string:
        return pa.string()
    if r == "VARBINARY":
        return pa.binary()
    if r == "BINARY":
        return pa.binary(dtype.length or 1)
    if r == "TIME":
        return pa.time32("s" if (dtype.precision or 0) == 0 else "ms")
    if dtype.is_timestamp:
        p = dtype.precision if dtype.precision is not None else 6
        unit = "s" if p == 0 else "ms" if p <= 3 else "us" if p <= 6 else "ns"
        return pa.timestamp(unit, tz="UTC" if r == "TIMESTAMP_LTZ" else None)
    if r == "DECIMAL":
        return pa.decimal128(dtype.precision or 10, dtype.scale or 0)
    raise ValueError(f"no Arrow type for {dtype}")


def internal_values(arr: pa.Array | pa.ChunkedArray, dtype: DataType) -> list[Any]:
    """Arrow values (as a data file stores ``dtype``) -> internal values (see :mod:`paimon_lens.types`).

    Timestamps keep every stored digit (nanoseconds included), whatever their unit.
    """
    import pyarrow as pa

    t = arr.type
    if pa.types.is_timestamp(t):
        per = _PER_NANOS[t.unit]
        return [None if v is None else Timestamp(*divmod(v * per, 1_000_000))
                for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(t):
        return list(arr.cast(pa.int32()).to_pylist())
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        to_ms = {"s": lambda v: v * 1000, "ms": lambda v: v, "us": lambda v: v // 1000,
                 "ns": lambda v: v // 1_000_000}[t.unit]
        raw = arr.cast(pa.int64() if pa.types.is_time64(t) else pa.int32()).to_pylist()
        return [None if v is None else to_ms(v) for v in raw]
    return [to_internal(v, dtype) for v in arr.to_pylist()]


def arrow_from_internal(values: Sequence[Any], dtype: DataType) -> pa.Array:
    """Internal values -> the Arrow array a parquet file would hold for ``dtype``."""
    import pyarrow as pa

    at = arrow_type(dtype)
    if dtype.is_timestamp:
        per = _PER_NANOS[at.unit]
        raw = [None if v is None else (v.millisecond * 1_000_000 + v.nano_of_millisecond) // per for v in values]
        return pa.array(raw, pa.int64()).cast(at)
    if dtype.root == "DATE":
        return pa.array(values, pa.int32()).cast(at)
    if dtype.root == "TIME":
        div = 1000 if at.unit == "s" else 1
        return pa.array([None if v is None else v // div for v in values], pa.int32()).cast(at)
    return pa.array(values, at)


def _format(path: str) -> str:
    fmt = path.rsplit(".", 1)[-1].lower()
    if fmt not in FORMATS:
        raise UnsupportedError(f"{path}: cannot read data files of format {fmt!r}")
    return fmt


def _gone(table: SnapshotReader, path: str, error: FileNotFoundError) -> CorruptFileError:
    """A data file that is not there (deleted by an expiry, or lost): noted as the table's file system
    notes what its own reads find missing (a reader opened it in place), and an error on that file."""
    note_missing(table.file_io, path)
    return CorruptFileError(path, None, "data file", detail=f"the file is gone ({type(error).__name__}: {error})")


def _source(table: SnapshotReader, lf: LiveFile, path: str) -> Any:
    """A local file in place (its size checked against ``_FILE_SIZE``), else its bytes (a file object)."""
    local = local_path(table.file_io, path)
    if local is not None:
        check_size(table.file_io, path, lf.entry.file.file_size)
        return local
    return io.BytesIO(read_file(table.file_io, path, lf.entry.file.file_size))


def _avro_blocks(table: SnapshotReader, lf: LiveFile, path: str) -> Any:
    """fastavro's blocks of an avro data file (read as bytes bounded by ``_FILE_SIZE``)."""
    import fastavro

    return fastavro.block_reader(io.BytesIO(read_file(table.file_io, path, lf.entry.file.file_size)))


def read_stored_columns(table: SnapshotReader, lf: LiveFile,
                        field_ids: Sequence[int]) -> dict[int, tuple[DataField, pa.Array]]:
    """The stored columns of the given table fields in one data file: field id -> (the field as the
    file's schema has it, its values as Arrow), for the fields the file has and writes.

    Raises:
        CorruptFileError: the file cannot be read, or its row count is not the manifest's.
        UnsupportedError: not a parquet, orc or avro file.
    """
    by_id = {f.id: f for f in table.schema_manager.schema(lf.entry.file.schema_id).fields}
    written = written_field_ids(table, lf)  # _WRITE_COLS: a data-evolution file stores only these
    wanted = [by_id[fid] for fid in dict.fromkeys(field_ids) if fid in by_id and fid in written]
    path = table.file_io.join(table.path, lf.path)
    fmt = _format(path)
    names = [f.name for f in wanted]
    try:
        if fmt == "avro":
            records = [r for block in _avro_blocks(table, lf, path) for r in block if isinstance(r, dict)]
            rows = len(records)
            arrays = {}
            for f in wanted:
                try:
                    arrays[f.name] = arrow_from_internal([to_internal(r.get(f.name), f.type) for r in records], f.type)
                except (TypeError, ValueError, OverflowError, ArithmeticError, AttributeError) as e:
                    raise CorruptFileError(path, None, f"column {f.name} ({f.type})",
                                           detail=f"its values do not fit the type: {type(e).__name__}: {e}") from None
        else:
            if fmt == "parquet":
                import pyarrow.parquet as pq

                with pq.ParquetFile(_source(table, lf, path)) as pf:
                    rows = pf.metadata.num_rows
                    table_ = pf.read(columns=names, use_threads=False) if names else None
            else:
                import pyarrow.orc as orc

                of = orc.ORCFile(_source(table, lf, path))
                rows = of.nrows
                table_ = of.read(columns=names) if names else None
            arrays = {} if table_ is None else {n: table_.column(n).combine_chunks() for n in names}
            if table_ is not None:
                rows = table_.num_rows
    except CorruptFileError:
        raise
    except FileNotFoundError as e:
        raise _gone(table, path, e) from None
    except _READ_ERRORS as e:
        raise CorruptFileError(path, None, "data file", detail=f"{type(e).__name__}: {e}") from None
    if rows != lf.entry.file.row_count:  # the manifest's count sizes every row mask and selection
        raise CorruptFileError(path, None, "rows", f"{lf.entry.file.row_count} (manifest _ROW_COUNT)", rows)
    return {f.id: (f, arrays[f.name]) for f in wanted}


def stored_row_count(table: SnapshotReader, lf: LiveFile) -> int:
    """The rows of one data file as its own footer (parquet, orc) or blocks (avro) count them."""
    path = table.file_io.join(table.path, lf.path)
    fmt = _format(path)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            with pq.ParquetFile(_source(table, lf, path)) as pf:
                return int(pf.metadata.num_rows)
        if fmt == "orc":
            import pyarrow.orc as orc

            return int(orc.ORCFile(_source(table, lf, path)).nrows)
        return sum(block.num_records for block in _avro_blocks(table, lf, path))
    except FileNotFoundError as e:
        raise _gone(table, path, e) from None
    except _READ_ERRORS as e:
        raise CorruptFileError(path, None, "data file", detail=f"{type(e).__name__}: {e}") from None
