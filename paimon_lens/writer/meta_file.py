"""Writing Paimon metadata files (manifest lists, manifests, index manifests) as Avro, ORC or Parquet.

``manifest.format = orc | parquet`` makes Paimon write its metadata files in that format with the
same field names as the Avro records; this writes ``records`` laid out by an Avro record schema
(the ones in :mod:`paimon_lens.writer.avro`, or a file's own writer schema) in any of the three.
Avro ``[null, T]`` unions become nullable Arrow fields, records structs, arrays lists,
``timestamp-millis`` a millisecond timestamp.
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa

from .avro import avro_bytes

_PRIMITIVES = {"int": pa.int32(), "long": pa.int64(), "string": pa.string(), "bytes": pa.binary(),
               "boolean": pa.bool_(), "float": pa.float32(), "double": pa.float64()}


def arrow_type(avro_type: Any) -> tuple[pa.DataType, bool]:
    """The Arrow type of an Avro type and whether it is nullable."""
    if isinstance(avro_type, list):
        rest = [t for t in avro_type if t != "null"]
        if len(rest) != 1:
            raise ValueError(f"unsupported Avro union {avro_type!r}")
        return arrow_type(rest[0])[0], True
    if isinstance(avro_type, dict):
        kind = avro_type["type"]
        if avro_type.get("logicalType") == "timestamp-millis":
            return pa.timestamp("ms"), False
        if kind == "record":
            return pa.struct([arrow_field(f) for f in avro_type["fields"]]), False
        if kind == "array":
            item, nullable = arrow_type(avro_type["items"])
            return pa.list_(pa.field("item", item, nullable=nullable)), False
        return arrow_type(kind)
    return _PRIMITIVES[avro_type], False


def arrow_field(avro_field: dict[str, Any]) -> pa.Field:
    """One Avro record field as an Arrow field."""
    typ, nullable = arrow_type(avro_field["type"])
    return pa.field(avro_field["name"], typ, nullable=nullable)


def arrow_schema(avro_schema: dict[str, Any]) -> pa.Schema:
    """An Avro record schema as an Arrow schema (field order kept)."""
    return pa.schema([arrow_field(f) for f in avro_schema["fields"]])


def meta_file_bytes(avro_schema: dict[str, Any], records: list[dict[str, Any]], fmt: str = "avro") -> bytes:
    """A metadata file holding ``records`` in ``fmt`` (``avro``, ``orc`` or ``parquet``)."""
    if fmt == "avro":
        return avro_bytes(avro_schema, records)
    table = pa.Table.from_pylist(records, schema=arrow_schema(avro_schema))
    buf = io.BytesIO()
    if fmt == "orc":
        import pyarrow.orc as orc

        orc.write_table(table, buf, compression="zstd")
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, buf, compression="zstd")
    else:
        raise ValueError(f"unknown manifest format {fmt!r}: use avro, orc or parquet")
    return buf.getvalue()
