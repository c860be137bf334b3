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
from ..io.fileio import FileIO
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


def read_meta_file(file_io: FileIO, path: str, field: str) -> tuple[list[dict[str, Any]], str]:
    """All records of metadata file ``path`` and its format (``avro``, ``orc`` or ``parquet``).

    Raises :class:`CorruptFileError` naming the file, the byte offset and the part being read
    when the file is not one of the three formats or cannot be decoded, and
    :class:`PaimonLensError` when it does not exist.
    """
    try:
        data = file_io.read_bytes(path)
    except FileNotFoundError:
        raise PaimonLensError(f"{field} file {path} does not exist (was it removed by expiration?)") from None
    fmt = detect_format(data)
    if fmt == "avro":
        records, _ = decode_avro(data, path, field)
        return records, fmt
    if fmt is None:
        raise CorruptFileError(path, 0, f"{field} header", "Avro, ORC or Parquet magic (4f626a01, 4f5243, 50415231)",
                               data[:4].hex(), detail="not an Avro, ORC or Parquet file")
    return _read_columnar(data, path, field, fmt), fmt


def _read_columnar(data: bytes, path: str, field: str, fmt: str) -> list[dict[str, Any]]:
    """Records of an ORC or Parquet metadata file as plain dicts."""
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
    except CorruptFileError:
        raise
    except Exception as e:
        raise CorruptFileError(path, None, f"{field} ({fmt})", detail=f"{type(e).__name__}: {e}") from None
    return [_plain(r) for r in table.to_pylist()]


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
