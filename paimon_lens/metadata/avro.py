"""Reading Paimon's Avro metadata files (manifest lists, manifests, index manifests).

Each file is read with its own writer schema, so files written by Paimon 0.9 (16 ``_FILE``
fields) and 2.x (20 fields, ``_VERSION`` first) are both understood; consumers use
``record.get(name)`` for fields that older writers lack.
"""

from __future__ import annotations

import io
from typing import Any

from ..errors import CorruptFileError

AVRO_MAGIC = b"Obj\x01"


def decode_avro(data: bytes, path: str, field: str = "avro") -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """All records of the Avro file ``data`` (read from ``path``) and its writer schema.

    Raises :class:`CorruptFileError` naming the file, the byte offset reached and the part
    being read when the bytes are not Avro, truncated or otherwise undecodable.
    """
    import fastavro

    if not data.startswith(AVRO_MAGIC):
        raise CorruptFileError(path, 0, f"{field} header", "Avro magic 4f626a01", data[:4].hex(),
                               detail="not an Avro file")
    buf = io.BytesIO(data)
    try:
        reader = fastavro.reader(buf)
    except Exception as e:
        raise CorruptFileError(path, buf.tell(), f"{field} header", detail=f"{type(e).__name__}: {e}") from None
    records: list[dict[str, Any]] = []
    try:
        for rec in reader:
            if not isinstance(rec, dict):
                raise CorruptFileError(path, buf.tell(), f"{field} record", "a record", type(rec).__name__)
            records.append(rec)
    except CorruptFileError:
        raise
    except Exception as e:
        detail = f"{type(e).__name__}: {e}"
        if isinstance(e, (EOFError, StopIteration)) or "EOF" in detail or "truncated" in detail.lower():
            detail = "truncated: " + detail
        raise CorruptFileError(path, buf.tell(), f"{field} data block (after {len(records)} records)",
                               detail=detail) from None
    schema: dict[str, Any] = reader.writer_schema if isinstance(reader.writer_schema, dict) else {}
    return records, schema
