"""Reading a Paimon metadata file (manifest list, manifest, index manifest) in any format.

``manifest.format`` (``avro`` by default, ``orc`` or ``parquet``) only applies to metadata files
written after it is set, so one table can hold all three: each file's format is detected from its
first bytes, never taken from the option::

    Avro     4f 62 6a 01  "Obj\\x01"   read with fastavro and the file's own writer schema
    ORC      4f 52 43     "ORC"        read with pyarrow.orc
    Parquet  50 41 52 31  "PAR1"       read with pyarrow.parquet (also "PAR1" at the end)

ORC and Parquet files carry the same field names as the Avro records (``_FILE``,
``_PARTITION_STATS``, ...): records come back as the same plain dicts, so consumers do not know
which format a record came from.
"""

from __future__ import annotations

import datetime as _dt
import io
from typing import Any

from ..errors import CorruptFileError, PaimonLensError
from ..io.fileio import FileIO, read_file
from .avro import AVRO_MAGIC, decode_avro

ORC_MAGIC = b"ORC"
PARQUET_MAGIC = b"PAR1"

META_FORMATS = ("avro", "orc", "parquet")


def detect_format(data: bytes) -> str | None:
    """``avro``, ``orc`` or ``parquet`` from a metadata file's first bytes; None if none of them."""
    if data.startswith(AVRO_MAGIC):
        return "avro"
    if data.startswith(ORC_MAGIC):
        return "orc"
    if data.startswith(PARQUET_MAGIC):
        return "parquet"
    return None


Kinds = dict[str, Any]
"""A record layout by kind: ``{field: "int" | "str" | "bytes" | "list" | "timestamp" | Kinds}``
(a nested dict for a record); fields a writer did not write are simply absent."""


def read_meta_file(file_io: FileIO, path: str, field: str, expected: Kinds | None = None,
                   size: int | None = None) -> tuple[list[dict[str, Any]], str]:
    """All records of metadata file ``path`` and its format (``avro``, ``orc`` or ``parquet``).

    ``expected``: the kinds of the fields Paimon writes; a field the file declares with another
    type (a manifest whose fields have the right names but the wrong types) is an error naming it,
    checked once per file from its schema. ``size``: the file's size as the manifest list records
    it (``_FILE_SIZE``); a file of another size is not read.

    Raises :class:`CorruptFileError` naming the file, the byte offset and the part being read
    when the file is not one of the three formats, cannot be decoded or declares a field with the
    wrong type, and :class:`PaimonLensError` when it does not exist.
    """
    return decode_meta_file(read_meta_bytes(file_io, path, field, size), path, field, expected)


def read_meta_bytes(file_io: FileIO, path: str, field: str, size: int | None = None) -> bytes:
    """The bytes of metadata file ``path`` (at most ``size``, as :func:`read_meta_file` reads them):
    :class:`PaimonLensError` when it does not exist (removed by expiration), a
    :class:`CorruptFileError` naming it when it cannot be read."""
    try:
        return read_file(file_io, path, size)
    except FileNotFoundError:
        raise PaimonLensError(f"{field} file {path} does not exist (was it removed by expiration?)") from None
    except OSError as e:  # a name too long for the file system, a permission ...
        raise CorruptFileError(path[:300], None, f"{field} file", detail=f"cannot be read: {e.strerror or e}") \
            from None


def decode_meta_file(data: bytes, path: str, field: str,
                     expected: Kinds | None = None) -> tuple[list[dict[str, Any]], str]:
    """All records of the metadata file ``data`` (read from ``path``) and its format, checked as
    :func:`read_meta_file` checks them."""
    fmt = detect_format(data)
    if fmt == "avro":
        records, schema = decode_avro(data, path, field)
        if expected is not None:
            check_kinds(avro_kinds(schema), expected, path, field)
        return records, fmt
    if fmt is None:
        raise CorruptFileError(path, 0, f"{field} header", "Avro, ORC or Parquet magic (4f626a01, 4f5243, 50415231)",
                               data[:4].hex(), detail="not an Avro, ORC or Parquet file")
    records, kinds = _read_columnar(data, path, field, fmt)
    if expected is not None:
        check_kinds(kinds, expected, path, field)
    return records, fmt


def check_kinds(found: Kinds, expected: Kinds, path: str, where: str) -> None:
    """Raise :class:`CorruptFileError` for the first field whose declared kind is not the expected one."""
    for name, want in expected.items():
        have = found.get(name)
        if have is None:
            continue  # not written by this Paimon version
        if isinstance(want, dict):
            if not isinstance(have, dict):
                raise CorruptFileError(path, 0, f"{where} field {name}", "a record", have,
                                       detail="a field with the right name but the wrong type")
            check_kinds(have, want, path, f"{where} field {name}")
        elif have != want and not (want == "timestamp" and have == "int"):
            shown = have if isinstance(have, str) else "a record"
            raise CorruptFileError(path, 0, f"{where} field {name}", want, shown,
                                   detail="a field with the right name but the wrong type")


_AVRO_KINDS = {"int": "int", "long": "int", "string": "str", "bytes": "bytes", "fixed": "bytes",
               "boolean": "bool", "float": "float", "double": "float", "array": "list", "map": "map",
               "enum": "str", "null": "null"}


def _avro_kind(t: Any) -> Any:
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        return _avro_kind(rest[0]) if len(rest) == 1 else "union"
    if isinstance(t, dict):
        if t.get("logicalType", "").startswith("timestamp"):
            return "timestamp"
        if t.get("type") == "record":
            return avro_kinds(t)
        return _avro_kind(t.get("type"))
    return _AVRO_KINDS.get(str(t), str(t))


def avro_kinds(schema: dict[str, Any]) -> Kinds:
    """The kind of each field of an Avro record schema (``int``, ``str``, ``bytes``, ``list``,
    ``timestamp``, ``union`` or a nested record's kinds), as :func:`check_kinds` compares them."""
    return {f["name"]: _avro_kind(f["type"]) for f in schema.get("fields", []) if isinstance(f, dict)}


def _arrow_kind(t: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "bytes"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "list"
    if pa.types.is_struct(t):
        return {t.field(i).name: _arrow_kind(t.field(i).type) for i in range(t.num_fields)}
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_floating(t):
        return "float"
    return str(t)


def _read_columnar(data: bytes, path: str, field: str, fmt: str) -> tuple[list[dict[str, Any]], Kinds]:
    """Records of an ORC or Parquet metadata file as plain dicts, and the kinds of its fields."""
    try:
        if fmt == "orc":
            import pyarrow.orc as orc

            table = orc.ORCFile(io.BytesIO(data)).read()
        else:
            import pyarrow.parquet as pq

            if not data.endswith(PARQUET_MAGIC):
                raise CorruptFileError(path, max(0, len(data) - 4), f"{field} footer", "PAR1",
                                       data[-4:].hex(), detail="truncated Parquet file")
            table = pq.read_table(io.BytesIO(data))
        kinds = {f.name: _arrow_kind(f.type) for f in table.schema}
        return [_plain(r) for r in table.to_pylist()], kinds  # values checked too (bad UTF-8, dates)
    except CorruptFileError:
        raise
    except Exception as e:
        raise CorruptFileError(path, None, f"{field} ({fmt})", detail=f"{type(e).__name__}: {e}") from None


def _plain(value: Any) -> Any:
    """pyarrow's Python values made equal to fastavro's (pandas Timestamps become datetimes)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.datetime) and type(value) is not _dt.datetime:
        to_py = getattr(value, "to_pydatetime", None)
        if to_py is not None:
            return to_py()
    return value
