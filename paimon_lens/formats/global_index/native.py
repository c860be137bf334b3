"""Headers of vector and full-text global index files, whose payloads native libraries read.

What can be read without those libraries (all little-endian unless stated):

* ``ivf-flat``  ``u32 magic "IVFL" (0x4956464C) | u32 version | i32 dimension | i32 nlist | u32 metric
  | i64 vectors | u32 flags``
* ``ivf-pq``    ``u32 magic "IVPQ" (0x49565051) | u32 version | i32 dimension | i32 nlist | i32 m
  | i32 ksub | i32 dsub | u32 metric | i64 vectors | u32 flags``
* ``ivf-sq``    ``u32 magic "IVSQ" (0x49565351) | u32 version | i32 dimension | i32 nlist | u32 metric
  | i64 vectors | u32 sq_bits | u32 flags``
* ``ivf-rq``    ``u32 magic "IVRQ" (0x49565251) | u32 version | i32 dimension | i32 padded_dimension
  | i32 nlist | u32 metric | u32 flags | u32 bits | i64 vectors``
* ``diskann``   ``u32 magic "DANN" (0x4E4E4144) | u32 version | u32 header_size | u32 flags
  | u32 dimension | u32 metric | u64 vectors``
  (metric: 0 l2, 1 inner product, 2 cosine; ``apache/paimon-vector-index`` 0.3/0.4)
* ``full-text`` ``8 bytes "PFTIDX01" | u32 BE version | u32 BE header_length | header JSON``
  (``{"metadata": {"config": ..., "document_count": n, "tantivy_version": ...}, "files": [...]}``)
* ``lumina`` (a closed-source library's dump) and ``es-index`` (an archive of Lucene files) have no
  header this module reads; their ``_INDEX_META`` says what the index holds (``es-index``:
  :mod:`.es_meta`).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any

from ...errors import CorruptFileError

METRICS = {0: "l2", 1: "inner_product", 2: "cosine"}

#: magic -> (format, struct of the fields after the magic, their names)
_VECTOR_HEADERS: dict[int, tuple[str, str, tuple[str, ...]]] = {
    0x4956464C: ("ivf-flat", "<Iiiiq", ("version", "dimension", "nlist", "metric", "vectors")),
    0x49565051: ("ivf-pq", "<Iiiiiiiq", ("version", "dimension", "nlist", "m", "ksub", "dsub", "metric", "vectors")),
    0x49565351: ("ivf-sq", "<Iiiiq", ("version", "dimension", "nlist", "metric", "vectors")),
    0x49565251: ("ivf-rq", "<IiiiIIIq", ("version", "dimension", "padded_dimension", "nlist", "metric", "flags",
                                         "bits", "vectors")),
    0x4E4E4144: ("diskann", "<IIIIIQ", ("version", "header_size", "flags", "dimension", "metric", "vectors")),
}
FULL_TEXT_MAGIC = b"PFTIDX01"


@dataclass(frozen=True)
class NativeIndexHeader:
    """What a vector or full-text index file's header says (``decoded`` False: payload not read)."""

    format: str
    version: int | None = None
    dimension: int | None = None
    metric: str | None = None
    vectors: int | None = None
    documents: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    decoded: bool = False
    """The payload itself (centroids, graph, postings) is never decoded: a native library reads it."""


def read_native_header(data: bytes, index_type: str, path: str | None) -> NativeIndexHeader | None:
    """The header of a vector or full-text index file, or None for a type whose files have none
    this module reads (``lumina``, ``es-index``)."""
    if index_type in ("full-text",):
        return _full_text(data, path)
    if index_type.startswith("ivf-") or index_type == "diskann":
        return _vector(data, index_type, path)
    return None


def _vector(data: bytes, index_type: str, path: str | None) -> NativeIndexHeader:
    if len(data) < 4:
        raise CorruptFileError(path, 0, "magic", f"a {index_type} header", f"{len(data)} bytes")
    magic = struct.unpack_from("<I", data)[0]
    spec = _VECTOR_HEADERS.get(magic)
    if spec is None or spec[0] != index_type:
        want = next((f"{m:#x}" for m, s in _VECTOR_HEADERS.items() if s[0] == index_type), "?")
        raise CorruptFileError(path, 0, "magic", f"{want} ({index_type})", f"{magic:#x}")
    fmt, st, names = spec
    size = struct.calcsize(st)
    if len(data) < 4 + size:
        raise CorruptFileError(path, 4, f"{fmt} header", f"{size} bytes", f"{len(data) - 4} bytes")
    values = dict(zip(names, struct.unpack_from(st, data, 4)))
    metric = values.pop("metric")
    return NativeIndexHeader(fmt, values.pop("version"), values.pop("dimension"), METRICS.get(metric, str(metric)),
                             values.pop("vectors"), None, values)


def _full_text(data: bytes, path: str | None) -> NativeIndexHeader:
    if data[:8] != FULL_TEXT_MAGIC:
        raise CorruptFileError(path, 0, "magic", "PFTIDX01", data[:8].hex() or "empty file")
    if len(data) < 16:
        raise CorruptFileError(path, 8, "header", "u32 version, u32 header length", f"{len(data) - 8} bytes")
    version, length = struct.unpack_from(">II", data, 8)
    if length > len(data) - 16:
        raise CorruptFileError(path, 12, "header_length", f"<= {len(data) - 16}", length)
    try:
        header = json.loads(data[16:16 + length].decode("utf-8"))
        meta = header["metadata"]
        files = header.get("files", [])
        details = {"tantivy_version": meta.get("tantivy_version"), "config": meta.get("config"),
                   "segment_files": len(files)}
        documents = meta.get("document_count")
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise CorruptFileError(path, 16, "header", "a JSON header with metadata", data[16:48].hex(),
                               detail=str(e)) from None
    return NativeIndexHeader("full-text", version, None, None, None,
                             documents if isinstance(documents, int) else None, details)
