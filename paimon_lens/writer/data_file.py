"""Writing one data file and describing it the way a Paimon 2.0 manifest entry does.

A data file is parquet (zstd level 1, like ``file.compression``), no Arrow schema in the footer,
every column tagged with its Paimon field id (``PARQUET:field_id``), decimals stored as INT32 /
INT64 when the precision allows (as Paimon's parquet writer does). Append tables store the table
columns; primary-key tables store, in this order::

    _KEY_<k> ...        trimmed primary-key columns (field id 1073741823 + id), NOT NULL
    _SEQUENCE_NUMBER    BIGINT NOT NULL (field id 2147483646)
    _VALUE_KIND         TINYINT NOT NULL (field id 2147483645; 0 = +I)
    <table columns>

Its manifest entry (``ManifestEntry`` of kind ADD, ``_VERSION = 2``) carries ``_FILE``:
file name and size, row count, ``_MIN_KEY``/``_MAX_KEY`` and ``_KEY_STATS`` (empty rows of arity 0
for append tables), ``_VALUE_STATS`` and ``_VALUE_STATS_COLS`` (:mod:`.stats`), sequence number
range, the id of the schema the file is written with (``FileSpec.schema_id``), level 0,
``_EXTRA_FILES`` (the ``.index`` file when the index container is too big for the manifest),
creation time, delete row count 0, ``_EMBEDDED_FILE_INDEX``, file source 0 (APPEND; 1, COMPACT,
for the files a compaction writes), and null external path, first row id and write columns.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..formats.data_file import arrow_type
from ..metadata.binary_row import encode_binary_row
from ..types import DataField
from .avro import MANIFEST_VERSION
from .file_index import IndexSpec, build_container
from .schema import (
    KEY_FIELD_ID_START,
    KEY_FIELD_PREFIX,
    SEQUENCE_NUMBER,
    SEQUENCE_NUMBER_FIELD_ID,
    VALUE_KIND,
    VALUE_KIND_FIELD_ID,
)
from .stats import KEY_STATS_MODE, column_modes, column_stats, stats_record

if TYPE_CHECKING:
    import pyarrow as pa

EMPTY_ROW = encode_binary_row([], [])
EMPTY_STATS: dict[str, Any] = {"_MIN_VALUES": EMPTY_ROW, "_MAX_VALUES": EMPTY_ROW, "_NULL_COUNTS": []}
FILE_SOURCE_APPEND = 0
FILE_SOURCE_COMPACT = 1
ZSTD_LEVEL = 1


@dataclass(frozen=True)
class FileSpec:
    """What every data file of a table shares: schema, key columns, stats and index settings."""

    fields: tuple[DataField, ...]
    key_fields: tuple[DataField, ...]  # trimmed primary keys; empty for append tables
    options: dict[str, str]
    index_specs: tuple[IndexSpec, ...]
    threshold: int
    schema_id: int = 0  # the table schema the files are written with (``_SCHEMA_ID``)

    def file_schema(self) -> pa.Schema:
        """The parquet schema of a data file, with Paimon field ids."""
        import pyarrow as pa

        def field(name: str, t: pa.DataType, fid: int, nullable: bool) -> pa.Field:
            return pa.field(name, t, nullable, metadata={b"PARQUET:field_id": str(fid).encode()})

        out = [field(KEY_FIELD_PREFIX + f.name, arrow_type(f.type), KEY_FIELD_ID_START + f.id, False)
               for f in self.key_fields]
        if self.key_fields:
            out += [field(SEQUENCE_NUMBER, pa.int64(), SEQUENCE_NUMBER_FIELD_ID, False),
                    field(VALUE_KIND, pa.int8(), VALUE_KIND_FIELD_ID, False)]
        out += [field(f.name, arrow_type(f.type), f.id, f.type.nullable) for f in self.fields]
        return pa.schema(out)


def creation_time() -> _dt.datetime:
    """Now as Paimon records it: the local wall-clock time stored as if it were UTC."""
    t = time.time()
    millis = calendar.timegm(time.localtime(t)) * 1000 + int(t * 1000) % 1000
    return _dt.datetime.fromtimestamp(millis / 1000, _dt.UTC)


def write_data_file(spec: FileSpec, directory: Path, name: str, data: pa.Table, values: dict[str, list[Any]],
                    sequence_numbers: Sequence[int], partition: bytes, bucket: int,
                    total_buckets: int, *, level: int = 0, file_source: int | None = None) -> dict[str, Any]:
    """Write ``data`` (table columns, file row order) as ``directory/name``; return its manifest entry.

    ``values`` holds the same rows as internal values per column; ``sequence_numbers`` one per row.
    ``level`` and ``file_source`` (``0`` APPEND, ``1`` COMPACT) default to a freshly written file;
    a fully compacted primary-key table puts its files at the top level with source COMPACT.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = data.num_rows
    schema = spec.file_schema()
    arrays: list[pa.Array] = [data.column(f.name) for f in spec.key_fields]
    if spec.key_fields:
        arrays += [pa.array(list(sequence_numbers), pa.int64()), pa.array([0] * rows, pa.int8())]
    arrays += [data.column(f.name) for f in spec.fields]
    table = pa.Table.from_arrays([a.cast(f.type) for a, f in zip(arrays, schema)], schema=schema)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    pq.write_table(table, path, compression="zstd", compression_level=ZSTD_LEVEL, store_schema=False,
                   store_decimal_as_integer=True)
    file_size = os.path.getsize(path)

    modes = column_modes([f.name for f in spec.fields], spec.options)
    value_stats = [column_stats(values[f.name], f.type, m) for f, m in zip(spec.fields, modes)]
    dense = spec.options.get("metadata.stats-dense-store", "true").lower() != "false"
    stats_cols, value_record = stats_record(value_stats, spec.fields, dense)
    if spec.key_fields:
        key_types = [f.type for f in spec.key_fields]
        key_stats = [column_stats(values[f.name], f.type, KEY_STATS_MODE) for f in spec.key_fields]
        _, key_record = stats_record(key_stats, spec.key_fields, False)
        min_key = encode_binary_row([values[f.name][0] for f in spec.key_fields], key_types)
        max_key = encode_binary_row([values[f.name][-1] for f in spec.key_fields], key_types)
    else:
        key_record, min_key, max_key = EMPTY_STATS, EMPTY_ROW, EMPTY_ROW

    container = build_container(spec.index_specs, spec.fields, values)
    embedded: bytes | None = None
    extra: list[str] = []
    if container is not None:
        if len(container) > spec.threshold:
            extra = [name + ".index"]
            (directory / extra[0]).write_bytes(container)
        else:
            embedded = container
    return {
        "_VERSION": MANIFEST_VERSION, "_KIND": 0, "_PARTITION": partition, "_BUCKET": bucket,
        "_TOTAL_BUCKETS": total_buckets,
        "_FILE": {
            "_FILE_NAME": name, "_FILE_SIZE": file_size, "_ROW_COUNT": rows,
            "_MIN_KEY": min_key, "_MAX_KEY": max_key, "_KEY_STATS": key_record, "_VALUE_STATS": value_record,
            "_MIN_SEQUENCE_NUMBER": min(sequence_numbers), "_MAX_SEQUENCE_NUMBER": max(sequence_numbers),
            "_SCHEMA_ID": spec.schema_id, "_LEVEL": level, "_EXTRA_FILES": extra, "_CREATION_TIME": creation_time(),
            "_DELETE_ROW_COUNT": 0, "_EMBEDDED_FILE_INDEX": embedded,
            "_FILE_SOURCE": FILE_SOURCE_APPEND if file_source is None else file_source,
            "_VALUE_STATS_COLS": stats_cols, "_EXTERNAL_PATH": None, "_FIRST_ROW_ID": None, "_WRITE_COLS": None,
        },
    }
