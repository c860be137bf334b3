"""Paimon table schemas from Arrow schemas: ``<table>/schema/schema-0`` (and ``schema-<n>``).

The schema file is JSON written the way Paimon's Jackson pretty printer writes it
(``"key" : value``, two-space indent), version 3::

    {
      "version" : 3,
      "id" : 0,
      "fields" : [ {"id" : 0, "name" : "id", "type" : "BIGINT NOT NULL"}, ... ],
      "highestFieldId" : N - 1,
      "partitionKeys" : [ ... ],
      "primaryKeys" : [ ... ],
      "options" : { "bucket" : "-1", "file.format" : "parquet", ... },
      "timeMillis" : <creation time>
    }

Field ids are 0..N-1 in Arrow schema order. A schema change (``TableWriter.alter``) writes
``schema-<n+1>`` with the same layout: ``id`` n+1, added columns appended with the ids after
``highestFieldId``, options changed. Arrow types map to Paimon types as follows
(:func:`paimon_type`); primary-key columns become ``NOT NULL`` as Paimon makes them:

==========================  =======================================
Arrow                       Paimon
==========================  =======================================
bool                        BOOLEAN
int8 / int16 / int32 / int64  TINYINT / SMALLINT / INT / BIGINT
float32 / float64           FLOAT / DOUBLE
string, large_string        STRING
binary, large_binary        BYTES
fixed_size_binary(n)        BINARY(n)
date32                      DATE
time32[s] / time32[ms]      TIME(0) / TIME(3)
timestamp[s|ms|us|ns]       TIMESTAMP(0|3|6|9)
timestamp[..., tz=...]      TIMESTAMP(p) WITH LOCAL TIME ZONE
decimal128(p, s)            DECIMAL(p, s)
==========================  =======================================

Nested types (list, map, struct) and unsigned integers are refused.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..types import MAX_LENGTH, DataField, DataType

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA_VERSION = 3
#: Paimon's field ids of the system columns of primary-key data files (``SpecialFields``)
KEY_FIELD_ID_START = 1_073_741_823
SEQUENCE_NUMBER_FIELD_ID = 2_147_483_646
VALUE_KIND_FIELD_ID = 2_147_483_645
KEY_FIELD_PREFIX = "_KEY_"
SEQUENCE_NUMBER = "_SEQUENCE_NUMBER"
VALUE_KIND = "_VALUE_KIND"

_TIME_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def paimon_type(arrow_type: pa.DataType, nullable: bool = True) -> DataType:
    """The Paimon type of an Arrow type (see the module docstring); ValueError if unsupported."""
    import pyarrow as pa
    import pyarrow.types as t

    if t.is_boolean(arrow_type):
        dt = DataType("BOOLEAN")
    elif t.is_int8(arrow_type):
        dt = DataType("TINYINT")
    elif t.is_int16(arrow_type):
        dt = DataType("SMALLINT")
    elif t.is_int32(arrow_type):
        dt = DataType("INT")
    elif t.is_int64(arrow_type):
        dt = DataType("BIGINT")
    elif t.is_float32(arrow_type):
        dt = DataType("FLOAT")
    elif t.is_float64(arrow_type):
        dt = DataType("DOUBLE")
    elif t.is_string(arrow_type) or t.is_large_string(arrow_type):
        dt = DataType("VARCHAR", length=MAX_LENGTH)
    elif t.is_binary(arrow_type) or t.is_large_binary(arrow_type):
        dt = DataType("VARBINARY", length=MAX_LENGTH)
    elif t.is_fixed_size_binary(arrow_type):
        dt = DataType("BINARY", length=arrow_type.byte_width)
    elif t.is_date32(arrow_type):
        dt = DataType("DATE")
    elif t.is_time32(arrow_type):
        dt = DataType("TIME", precision=_TIME_PRECISION[arrow_type.unit])
    elif t.is_timestamp(arrow_type):
        root = "TIMESTAMP_LTZ" if arrow_type.tz is not None else "TIMESTAMP"
        dt = DataType(root, precision=_TIME_PRECISION[arrow_type.unit])
    elif isinstance(arrow_type, pa.Decimal128Type):
        dt = DataType("DECIMAL", precision=arrow_type.precision, scale=arrow_type.scale)
    else:
        raise ValueError(f"the writer does not support Arrow type {arrow_type} "
                         "(nested and unsigned types have no Paimon mapping here)")
    return dt if nullable else dt.copy(False)


def fields_from_arrow(schema: pa.Schema, primary_keys: tuple[str, ...]) -> tuple[DataField, ...]:
    """Paimon fields (ids 0..N-1) of an Arrow schema; primary-key columns become NOT NULL."""
    names = schema.names
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate column names in {names}")
    out = []
    for i, f in enumerate(schema):
        if f.name.startswith(KEY_FIELD_PREFIX) or f.name in (SEQUENCE_NUMBER, VALUE_KIND):
            raise ValueError(f"column name {f.name!r} is reserved by Paimon")
        out.append(DataField(i, f.name, paimon_type(f.type, f.nullable and f.name not in primary_keys)))
    return tuple(out)


def paimon_json(obj: Any) -> str:
    """JSON the way Paimon's Jackson pretty printer writes it (``"key" : value``)."""
    return json.dumps(obj, indent=2, separators=(",", " : "), ensure_ascii=False)


def schema_json(fields: tuple[DataField, ...], partition_keys: tuple[str, ...], primary_keys: tuple[str, ...],
                options: dict[str, str], time_millis: int, schema_id: int = 0,
                highest_field_id: int | None = None) -> dict[str, Any]:
    """The JSON object of ``schema-<schema_id>`` (``highestFieldId``: the largest field id ever
    given, by default the largest of ``fields``)."""
    return {
        "version": SCHEMA_VERSION, "id": schema_id,
        "fields": [{"id": f.id, "name": f.name, "type": str(f.type)} for f in fields],
        "highestFieldId": max((f.id for f in fields), default=-1) if highest_field_id is None else highest_field_id,
        "partitionKeys": list(partition_keys), "primaryKeys": list(primary_keys),
        "options": dict(options), "timeMillis": time_millis,
    }
