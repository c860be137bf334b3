"""Reading Paimon's Avro metadata files (manifest lists, manifests, index manifests).

Each file is read with its own writer schema, so files written by Paimon 0.9 (16 ``_FILE``
fields) and 2.x (20 fields, ``_VERSION`` first) are both understood; consumers use
``record.get(name)`` for fields that older writers lack.

:func:`decode_avro` decodes every record of a file. :func:`decode_avro_where` decodes only the
records whose key field (a manifest entry's ``_PARTITION``) a test keeps, in two passes over the
object container (a header, then blocks of ``count, size, data compressed with the file's codec,
16-byte sync``):

1. every block is decompressed and *scanned*: a function generated from the writer schema (once
   per schema, :func:`_scanner`) walks each record's bytes, reading the key field and skipping
   the others without building any value; it checks what decoding would check (lengths, varints,
   union branches, UTF-8 of strings, timestamp ranges, that a block's records end where its
   bytes end), so a block fastavro cannot decode never passes the scan;
2. the blocks holding a kept key, as decompressed, are put in a container of codec ``null``
   (the file's schema and sync marker), which :func:`decode_avro` (fastavro) decodes; of its
   records, those with a kept key are returned, in file order. The keys the scan read must be
   those fastavro decoded.

Every block is decompressed, but only the kept blocks' records are built: on a manifest of 1,000
entries in blocks of ~10, keeping one partition of five costs ~40% of the whole decode (the
scan runs at ~7 µs an entry in Python, fastavro's decoding at ~30 µs).

A writer schema the scanner does not handle (named-type references, enums, logical types other
than ``timestamp-millis``, a key field that is not plain ``bytes``) or a codec it does not know
raises :class:`Unselectable`, as does anything unexpected: callers then decode the whole file,
whose errors are the ones to report.
"""

from __future__ import annotations

import bz2
import io
import json
import lzma
import zlib
from collections.abc import Callable
from typing import Any

from ..errors import CorruptFileError

AVRO_MAGIC = b"Obj\x01"
_SYNC_SIZE = 16

IntChecks = dict[str, tuple[int, ...] | None]
"""Checks of int or long fields by dotted path (``_FILE._FILE_SIZE``) for :func:`decode_avro_where`:
None, the value is >= 0 (when not null); a tuple, the value is one of those (each in 0..63)."""


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


class Unselectable(Exception):
    """The file cannot be read block by block here (see the module docs): decode it whole."""


def decode_avro_where(data: bytes, path: str, key: str, keep: Callable[[bytes], bool], field: str = "avro",
                      checks: IntChecks | None = None, check_schema: Callable[[dict[str, Any]], None] | None = None
                      ) -> tuple[list[dict[str, Any]], dict[str, Any], list[bytes]]:
    """The records of the Avro file ``data`` whose top-level ``bytes`` field ``key`` ``keep``
    admits, in file order and exactly as :func:`decode_avro` returns them; the writer schema; and
    the distinct ``key`` values of all the file's records, in order of first appearance.

    ``keep`` is asked once per distinct key. Only the blocks holding a kept key are decoded (see
    the module docs); every record is scanned, and ``checks`` its int fields on the way.
    ``check_schema(writer_schema)`` runs before any block is read. Raises :class:`Unselectable`
    (or another exception: ``check_schema``'s, ``keep``'s) when the file cannot be read so, or
    does not pass the checks: decode it whole with :func:`decode_avro`, which (with its callers'
    checks) reports what is wrong with it.
    """
    import fastavro

    buf = io.BytesIO(data)
    try:
        reader = fastavro.reader(buf)
    except Exception as e:
        raise Unselectable(f"header: {type(e).__name__}: {e}") from None
    schema = reader.writer_schema
    if not data.startswith(AVRO_MAGIC) or not isinstance(schema, dict):
        raise Unselectable("not an Avro file of records")
    if check_schema is not None:
        check_schema(schema)
    start = buf.tell()
    sync = data[start - _SYNC_SIZE:start]
    decompress = _decompressor(reader.metadata.get("avro.codec") or "null")
    scan = _scanner(schema, key, checks or {})
    verdicts: dict[bytes, bool] = {}
    chosen: list[tuple[bytes, list[bytes]]] = []  # (decompressed block, keys of its records)
    pos, end_of_file = start, len(data)
    while pos < end_of_file:
        count, at = _long(data, pos)
        size, at = _long(data, at)
        end = at + size
        if count < 0 or size < 0 or data[end:end + _SYNC_SIZE] != sync:
            raise Unselectable(f"block at byte {pos}: no sync marker after {size} bytes")
        block = decompress(data[at:end])
        keys, stop = scan(block, count)
        if stop != len(block):
            raise Unselectable(f"block at byte {pos}: its {count} records end at byte {stop} of {len(block)}")
        kept = False
        for k in keys:
            v = verdicts.get(k)
            if v is None:
                v = verdicts[k] = bool(keep(k))
            kept = kept or v
        if kept:
            chosen.append((block, keys))
        pos = end + _SYNC_SIZE
    if not chosen:
        return [], schema, list(verdicts)
    # the chosen blocks, as decompressed, in a container of codec null (decoded as they would be)
    parts = [AVRO_MAGIC, _long_bytes(2), _avro_bytes(b"avro.schema"),
             _avro_bytes(reader.metadata["avro.schema"].encode()), _avro_bytes(b"avro.codec"),
             _avro_bytes(b"null"), _long_bytes(0), sync]
    for block, keys in chosen:
        parts += [_long_bytes(len(keys)), _avro_bytes(block), sync]
    records, _ = decode_avro(b"".join(parts), path, field)
    keys = [k for _, ks in chosen for k in ks]
    if len(records) != len(keys) or any(r.get(key) != k for r, k in zip(records, keys)):
        raise Unselectable("the scan and the decoder disagree")  # never seen; the decoder is right
    return [r for r, k in zip(records, keys) if verdicts[k]], schema, list(verdicts)


def _decompressor(codec: str) -> Callable[[bytes], bytes]:
    """What fastavro does to a block of ``codec`` (the codecs Paimon writes, and bzip2/xz)."""
    if codec == "null":
        return bytes
    if codec == "deflate":
        return lambda raw: zlib.decompress(raw, -15)  # stricter than fastavro's (a complete stream)
    if codec == "zstandard":
        try:
            from backports import zstd  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            try:
                from compression import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
            except ImportError:
                raise Unselectable("no zstd module") from None
        decompress: Callable[[bytes], bytes] = zstd.decompress
        return decompress
    if codec == "bzip2":
        return bz2.decompress
    if codec == "xz":
        return lzma.decompress
    raise Unselectable(f"codec {codec!r}")


# ---- the scanner ------------------------------------------------------------------------------
def _long(buf: bytes, pos: int) -> tuple[int, int]:
    """The zig-zag varint at ``pos`` and the position after it (at most 10 bytes)."""
    b = buf[pos]
    n, shift, end = b & 0x7F, 7, pos + 10
    pos += 1
    while b & 0x80:
        if pos >= end:
            raise ValueError("varint longer than 10 bytes")
        b = buf[pos]
        n |= (b & 0x7F) << shift
        shift += 7
        pos += 1
    return (n >> 1) ^ -(n & 1), pos


def _long_bytes(n: int) -> bytes:
    """The zig-zag varint of ``n``."""
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _avro_bytes(b: bytes) -> bytes:
    return _long_bytes(len(b)) + b


def _length(buf: bytes, pos: int) -> tuple[int, int]:
    n, pos = _long(buf, pos)
    if n < 0:
        raise ValueError(f"negative length {n}")
    return n, pos


def _skip_long(buf: bytes, pos: int) -> int:
    """The position after the varint at ``pos`` (at most 10 bytes)."""
    end = pos + 9
    while buf[pos] & 0x80:
        pos += 1
        if pos > end:
            raise ValueError("varint longer than 10 bytes")
    return pos + 1


# fastavro reads a timestamp-millis ``ms`` as ``epoch + timedelta(milliseconds=ms)``: only values
# between years 1 and 9999 succeed; the scan admits them with a day to spare at either end.
_MIN_MILLIS, _MAX_MILLIS = -62135596800000 + 86400000, 253402300799999 - 86400000
_PRIMITIVE_SIZES = {"null": 0, "boolean": 1, "float": 4, "double": 8}
_Scanner = Callable[[bytes, int], tuple[list[bytes], int]]
_SCANNERS: dict[str, _Scanner] = {}


class _Source:
    """The Python source of a scanner, written field by field (only numbers come from the schema)."""

    def __init__(self, checks: IntChecks) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.checks = checks

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def add(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def skip(self, t: Any, indent: int, path: str) -> None:
        """Lines that move ``pos`` past a value of Avro type ``t`` (of field ``path``), checking it as
        decoding would (and as :attr:`checks` asks)."""
        if path in self.checks and not (t in ("int", "long", "null") or isinstance(t, list)):
            raise Unselectable(f"{path} is not an int or long")
        if isinstance(t, dict):
            kind = t.get("type")
            logical = t.get("logicalType")
            if logical is not None:
                if logical != "timestamp-millis" or kind != "long" or path in self.checks:
                    raise Unselectable(f"logical type {logical!r}")
                v = self.name("t")
                self.add(indent, f"{v}, pos = _long(buf, pos)")
                self.add(indent, f"if not _MIN_MILLIS <= {v} <= _MAX_MILLIS: raise ValueError('timestamp range')")
                return
            if kind == "record":
                for f in t.get("fields", ()):
                    if not isinstance(f, dict) or "type" not in f:
                        raise Unselectable("field without a type")
                    self.skip(f["type"], indent, f"{path}.{f.get('name')}")
                return
            if kind == "fixed":
                self.add(indent, f"pos += {int(t['size'])}")
                self.add(indent, "if pos > len(buf): raise ValueError('truncated fixed')")
                return
            if kind in ("array", "map"):
                c = self.name("c")
                self.add(indent, "while True:")
                self.add(indent + 1, f"{c} = buf[pos]")
                self.add(indent + 1, f"if {c} < 128 and not {c} & 1:")
                self.add(indent + 2, "pos += 1")
                self.add(indent + 2, f"{c} >>= 1")
                self.add(indent + 1, "else:")
                self.add(indent + 2, f"{c}, pos = _long(buf, pos)")
                self.add(indent + 2, f"if {c} < 0:")
                self.add(indent + 3, f"{c} = -{c}")
                self.add(indent + 3, "pos = _skip_long(buf, pos)")
                self.add(indent + 1, f"if not {c}: break")
                self.add(indent + 1, f"for _ in range({c}):")
                mark = len(self.lines)
                if kind == "map":
                    self.skip("string", indent + 2, f"{path}[key]")
                self.skip(t.get("items") if kind == "array" else t.get("values"), indent + 2, f"{path}[]")
                if len(self.lines) == mark:
                    self.add(indent + 2, "pass")
                return
            if isinstance(kind, str) and (kind in _PRIMITIVE_SIZES or kind in ("int", "long", "bytes", "string")):
                self.skip(kind, indent, path)
                return
            raise Unselectable(f"type {kind!r}")
        if isinstance(t, list):  # a union: its branch index, one byte for the first 64 branches
            if not 0 < len(t) <= 64:
                raise Unselectable("union size")
            u = self.name("u")
            self.add(indent, f"{u} = buf[pos]")
            self.add(indent, "pos += 1")
            branches = []
            for i, branch in enumerate(t):
                mark = len(self.lines)
                self.skip(branch, indent + 1, path)
                body = self.lines[mark:]
                del self.lines[mark:]
                if body:
                    branches.append((i, body))
            for j, (i, body) in enumerate(branches):
                self.add(indent, f"{'el' if j else ''}if {u} == {2 * i}:")
                self.lines.extend(body)
            valid = ", ".join(str(2 * i) for i in range(len(t)))
            self.add(indent, f"{'el' if branches else ''}if {u} not in ({valid},): raise ValueError('union branch')")
            return
        if t in ("int", "long"):
            allowed = self.checks.get(path, ())
            if allowed:  # values in 0..63: one byte each
                if not all(0 <= int(a) < 64 for a in allowed):
                    raise Unselectable(f"{path} check")
                codes = ", ".join(str(2 * int(a)) for a in allowed)
                self.add(indent, f"if buf[pos] not in ({codes},): raise ValueError('value')")
                self.add(indent, "pos += 1")
                return
            self.add(indent, "b = buf[pos]")
            if path in self.checks:  # zig-zag: the first byte's lowest bit is the sign
                self.add(indent, "if b & 1: raise ValueError('negative')")
            self.add(indent, "if b < 128: pos += 1")  # most take one or two bytes
            self.add(indent, "elif buf[pos + 1] < 128: pos += 2")
            self.add(indent, "else: pos = _skip_long(buf, pos)")
        elif t == "bytes":  # a length of one or two varint bytes read here (most are), others by _length
            n, m = self.name("n"), self.name("m")
            self.add(indent, f"{n} = buf[pos]")
            self.add(indent, f"if {n} < 128 and not {n} & 1: pos += 1 + ({n} >> 1)")
            self.add(indent, f"elif {n} & 129 == 128 and ({m} := buf[pos + 1]) < 128:")
            self.add(indent + 1, f"pos += 2 + ((({n} & 127) | ({m} << 7)) >> 1)")
            self.add(indent, "else:")
            self.add(indent + 1, f"{n}, pos = _length(buf, pos)")
            self.add(indent + 1, f"pos += {n}")
        elif t == "string":  # decoded to check its UTF-8 as fastavro does (strict)
            n = self.name("n")
            self.add(indent, f"{n} = buf[pos]")
            self.add(indent, f"if {n} < 128 and not {n} & 1:")
            self.add(indent + 1, "pos += 1")
            self.add(indent + 1, f"{n} >>= 1")
            self.add(indent, f"else: {n}, pos = _length(buf, pos)")
            self.add(indent, f"buf[pos:pos + {n}].decode()")
            self.add(indent, f"pos += {n}")
        elif t == "boolean":
            self.add(indent, "if buf[pos] > 1: raise ValueError('boolean')")
            self.add(indent, "pos += 1")
        elif t in _PRIMITIVE_SIZES:
            if _PRIMITIVE_SIZES[t]:
                self.add(indent, f"pos += {_PRIMITIVE_SIZES[t]}")
        else:
            raise Unselectable(f"type {t!r}")


def _scanner(schema: dict[str, Any], key: str, checks: IntChecks) -> _Scanner:
    """``scan(block, count) -> (key of each record, position after the last record)`` for records
    of the writer ``schema``, generated once per schema (see the module docs)."""
    cache_key = json.dumps([schema, key, sorted(checks.items())], sort_keys=True)
    scan = _SCANNERS.get(cache_key)
    if scan is not None:
        return scan
    if schema.get("type") != "record" or not isinstance(schema.get("fields"), list):
        raise Unselectable("not a record schema")
    src = _Source(checks)
    src.add(0, "def scan(buf, count):")
    src.add(1, "pos = 0")
    src.add(1, "keys = []")
    src.add(1, "for _ in range(count):")
    found = False
    for f in schema["fields"]:
        if not isinstance(f, dict) or "type" not in f:
            raise Unselectable("field without a type")
        if f.get("name") == key:
            if f["type"] != "bytes" or found:
                raise Unselectable(f"key field {key} is not plain bytes")
            src.add(2, "n = buf[pos]")
            src.add(2, "if n < 128 and not n & 1:")
            src.add(3, "pos += 1")
            src.add(3, "n >>= 1")
            src.add(2, "else: n, pos = _length(buf, pos)")
            src.add(2, "keys.append(buf[pos:pos + n])")
            src.add(2, "pos += n")
            found = True
        else:
            src.skip(f["type"], 2, str(f.get("name")))
    if not found:
        raise Unselectable(f"no key field {key}")
    src.add(2, "if pos > len(buf): raise ValueError('truncated')")
    src.add(1, "return keys, pos")
    env: dict[str, Any] = {"_long": _long, "_length": _length, "_skip_long": _skip_long,
           "_MIN_MILLIS": _MIN_MILLIS, "_MAX_MILLIS": _MAX_MILLIS}
    exec(compile("\n".join(src.lines), "<avro scanner>", "exec"), env)
    scan = env["scan"]
    assert scan is not None
    if len(_SCANNERS) >= 64:
        _SCANNERS.clear()
    _SCANNERS[cache_key] = scan
    return scan
