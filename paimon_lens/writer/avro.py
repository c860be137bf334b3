"""Avro writer schemas of Paimon 2.0 manifests, manifest lists and index manifests, and writing them.

The schemas are verbatim copies of the writer schemas embedded in manifests written by Paimon
release-2.0.0 (``tests/fixtures/tables20``): a manifest list record has ``_VERSION = 2`` first and
the 2.x bucket/level/row-id summary; a manifest entry has ``_VERSION = 2``, ``_KIND``,
``_PARTITION``, ``_BUCKET``, ``_TOTAL_BUCKETS`` and a ``_FILE`` record of 20 fields; an index
manifest entry has ``_VERSION = 1`` and ``_DELETIONS_VECTORS_RANGES`` (one range per data file with
a deletion vector: ``f0`` file name, ``f1`` offset, ``f2`` length, ``_CARDINALITY``). Files are
written with the ``zstandard`` codec (``manifest.compression = zstd``) and a random sync marker.
"""

from __future__ import annotations

import io
import os
from typing import Any

_NS = "org.apache.paimon.avro.generated.record"


def _stats_schema(name: str) -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": [
        {"name": "_MIN_VALUES", "type": "bytes"},
        {"name": "_MAX_VALUES", "type": "bytes"},
        {"default": None, "name": "_NULL_COUNTS", "type": ["null", {"type": "array", "items": ["null", "long"]}]},
    ]}


MANIFEST_LIST_SCHEMA: dict[str, Any] = {"type": "record", "name": _NS, "fields": [
    {"name": "_VERSION", "type": "int"},
    {"name": "_FILE_NAME", "type": "string"},
    {"name": "_FILE_SIZE", "type": "long"},
    {"name": "_NUM_ADDED_FILES", "type": "long"},
    {"name": "_NUM_DELETED_FILES", "type": "long"},
    {"name": "_PARTITION_STATS", "type": _stats_schema(_NS + "__PARTITION_STATS")},
    {"name": "_SCHEMA_ID", "type": "long"},
    {"default": None, "name": "_MIN_BUCKET", "type": ["null", "int"]},
    {"default": None, "name": "_MAX_BUCKET", "type": ["null", "int"]},
    {"default": None, "name": "_MIN_LEVEL", "type": ["null", "int"]},
    {"default": None, "name": "_MAX_LEVEL", "type": ["null", "int"]},
    {"default": None, "name": "_MIN_ROW_ID", "type": ["null", "long"]},
    {"default": None, "name": "_MAX_ROW_ID", "type": ["null", "long"]},
]}

MANIFEST_SCHEMA: dict[str, Any] = {"type": "record", "name": _NS, "fields": [
    {"name": "_VERSION", "type": "int"},
    {"name": "_KIND", "type": "int"},
    {"name": "_PARTITION", "type": "bytes"},
    {"name": "_BUCKET", "type": "int"},
    {"name": "_TOTAL_BUCKETS", "type": "int"},
    {"name": "_FILE", "type": {"type": "record", "name": _NS + "__FILE", "fields": [
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_ROW_COUNT", "type": "long"},
        {"name": "_MIN_KEY", "type": "bytes"},
        {"name": "_MAX_KEY", "type": "bytes"},
        {"name": "_KEY_STATS", "type": _stats_schema(_NS + "__FILE__KEY_STATS")},
        {"name": "_VALUE_STATS", "type": _stats_schema(_NS + "__FILE__VALUE_STATS")},
        {"name": "_MIN_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_MAX_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_SCHEMA_ID", "type": "long"},
        {"name": "_LEVEL", "type": "int"},
        {"name": "_EXTRA_FILES", "type": {"type": "array", "items": "string"}},
        {"default": None, "name": "_CREATION_TIME",
         "type": ["null", {"logicalType": "timestamp-millis", "type": "long"}]},
        {"default": None, "name": "_DELETE_ROW_COUNT", "type": ["null", "long"]},
        {"default": None, "name": "_EMBEDDED_FILE_INDEX", "type": ["null", "bytes"]},
        {"default": None, "name": "_FILE_SOURCE", "type": ["null", "int"]},
        {"default": None, "name": "_VALUE_STATS_COLS", "type": ["null", {"type": "array", "items": "string"}]},
        {"default": None, "name": "_EXTERNAL_PATH", "type": ["null", "string"]},
        {"default": None, "name": "_FIRST_ROW_ID", "type": ["null", "long"]},
        {"default": None, "name": "_WRITE_COLS", "type": ["null", {"type": "array", "items": "string"}]},
    ]}},
]}

#: Writer schema of index manifests (``manifest/index-manifest-<uuid>-0``), as Paimon 2.0 writes it
INDEX_MANIFEST_SCHEMA: dict[str, Any] = {"type": "record", "name": _NS, "fields": [
    {"name": "_VERSION", "type": "int"},
    {"name": "_KIND", "type": "int"},
    {"name": "_PARTITION", "type": "bytes"},
    {"name": "_BUCKET", "type": "int"},
    {"name": "_INDEX_TYPE", "type": "string"},
    {"name": "_FILE_NAME", "type": "string"},
    {"name": "_FILE_SIZE", "type": "long"},
    {"name": "_ROW_COUNT", "type": "long"},
    {"default": None, "name": "_DELETIONS_VECTORS_RANGES", "type": ["null", {"type": "array", "items": [
        "null", {"type": "record", "name": _NS + "__DELETIONS_VECTORS_RANGES", "fields": [
            {"name": "f0", "type": "string"},
            {"name": "f1", "type": "int"},
            {"name": "f2", "type": "int"},
            {"default": None, "name": "_CARDINALITY", "type": ["null", "long"]},
        ]}]}]},
    {"default": None, "name": "_EXTERNAL_PATH", "type": ["null", "string"]},
    {"default": None, "name": "_GLOBAL_INDEX", "type": ["null", {
        "type": "record", "name": _NS + "__GLOBAL_INDEX", "fields": [
            {"name": "_ROW_RANGE_START", "type": "long"},
            {"name": "_ROW_RANGE_END", "type": "long"},
            {"name": "_INDEX_FIELD_ID", "type": "int"},
            {"default": None, "name": "_EXTRA_FIELD_IDS", "type": ["null", {"type": "array", "items": "int"}]},
            {"default": None, "name": "_INDEX_META", "type": ["null", "bytes"]},
            {"default": None, "name": "_SOURCE_META", "type": ["null", "bytes"]},
        ]}]},
]}

#: ``_VERSION`` of manifest entries and manifest list records written by Paimon 2.0
MANIFEST_VERSION = 2
#: ``_VERSION`` of index manifest entries written by Paimon 2.0
INDEX_MANIFEST_VERSION = 1


def avro_bytes(schema: dict[str, Any], records: list[dict[str, Any]]) -> bytes:
    """An Avro object container file (codec zstandard) holding ``records``."""
    import fastavro

    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec="zstandard", sync_marker=os.urandom(16))
    return buf.getvalue()
