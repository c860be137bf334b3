"""Keys and the chunked dictionary of Paimon's range-bitmap index (``ChunkedDictionary``).

The dictionary maps the sorted distinct non-null values of a column to dense codes
``0..cardinality-1`` (code = rank). It is split into chunks; each chunk header carries its first
key inline, so a lookup binary-searches the chunk keys first and then one chunk's keys.

Dictionary layout (big-endian)::

    headerLength:i32 (= 13)
    header:   version:u8 (= 1) | chunkCount:i32 | offsetsLength:i32 (= 4 * chunkCount)
              | chunksLength:i32
    offsets:  chunkCount x i32     where each chunk header starts inside ``chunks``
    chunks:   the chunk headers, back to back
    keys:     the keys area (rest of the dictionary, up to ``dictionaryLength``)

Chunk header, fixed-length keys (every type except strings)::

    version:u8 (= 1) | firstKey | code:i32 | keysOffset:i32 | size:i32
    | keysLength:i32 (= size * fixedLength) | fixedLength:i32
    keys area at keysOffset: size x key            (the keys after firstKey)

Chunk header, variable-length keys (CHAR, VARCHAR, STRING)::

    version:u8 (= 1) | firstKey | code:i32 | keysOffset:i32 | size:i32
    | offsetsLength:i32 (= 4 * size) | keysLength:i32
    keys area at keysOffset: size x offset:i32 (relative to the key bytes), then the key bytes

``code`` is the code of ``firstKey``; the ``size`` further keys have codes ``code+1..code+size``.
A chunk takes keys while they fit in ``chunk-size`` bytes (default 16 KB; ``0b`` for BOOLEAN,
TINYINT and SMALLINT, i.e. one key per chunk); variable-length chunks also stop when
``4 * (size + 1)`` would exceed ``chunk-size``.

Key encodings: BOOLEAN 1 byte (1 is true, anything else false), TINYINT 1, SMALLINT 2,
INT/DATE/TIME 4, BIGINT 8, DECIMAL (precision <= 18) the unscaled value as 8 bytes, TIMESTAMP(_LTZ)
(precision <= 6) 8 bytes of epoch millis (precision <= 3) or micros, FLOAT/DOUBLE IEEE-754 bits,
strings ``length:i32`` + UTF-8. Keys are ordered like Java's comparators: numbers numerically,
floats by ``Float.compare``/``Double.compare`` (``-0.0 < 0.0``, NaN above +Infinity, all NaNs
equal), strings by unsigned UTF-8 bytes, ``false < true``.

Internally a key is a *sort key*: an ``int`` (numbers, booleans, floats mapped to a signed
integer that orders like ``Float.compare``) or ``bytes`` (UTF-8 of strings), so plain Python
comparison reproduces Java's comparator.
"""

from __future__ import annotations

import datetime as _dt
import operator
import struct
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from itertools import islice
from typing import Any

from ..errors import CorruptFileError, UnsupportedError
from ..io.byte_reader import ByteReader
from ..types import DataType, Timestamp, days_from_date
from .float_keys import (
    F32_MASK,
    F64_MASK,
    bits_array,
    f32_bits,
    f32_key,
    f64_bits,
    f64_key,
    float32_key,
    float64_key,
    key_float32,
    key_float64,
)

Key = int | bytes

DICTIONARY_VERSION = 1
CHUNK_VERSION = 1
DICTIONARY_HEADER_LENGTH = 13

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")

#: struct codes of the fixed-length key kinds (floats are read as their signed bits)
_FORMATS = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "f32": "i", "f64": "q"}

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

# ---- value conversions shared with the bsi index ----------------------------------------------

def decimal_unscaled(value: Any, scale: int) -> int:
    """A DECIMAL value as its unscaled integer at ``scale`` (Java ``toUnscaledLong``; HALF_UP)."""
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, float, str)):
        raise TypeError(f"not a decimal: {value!r}")
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    if not d.is_finite():
        raise ValueError(f"not a finite decimal: {value!r}")
    if d.adjusted() + scale > 60:
        raise ValueError(f"{value!r} has too many digits for a DECIMAL index key")
    with localcontext(Context(prec=72)):
        try:
            return int(d.scaleb(scale).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        except InvalidOperation as e:
            raise ValueError(f"cannot scale {value!r} to {scale} digits") from e


def timestamp_long(value: Any, precision: int) -> int:
    """A TIMESTAMP value as epoch millis (precision <= 3) or micros, as Paimon's indexes use it."""
    if isinstance(value, _dt.datetime):
        value = Timestamp.from_datetime(value)
    if not isinstance(value, Timestamp):
        raise TypeError(f"not a timestamp: {value!r}")
    return value.to_millis() if precision <= 3 else value.to_micros()


def long_to_value(dtype: DataType, value: int) -> Any:
    """The inverse of the index value mappings: a stored long back to the internal value."""
    r = dtype.root
    if r == "DECIMAL":
        return Decimal(value).scaleb(-(dtype.scale or 0))
    if dtype.is_timestamp:
        p = 6 if dtype.precision is None else dtype.precision
        return Timestamp.from_millis(value) if p <= 3 else Timestamp.from_micros(value)
    return value


def _plain_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not an integer: {value!r}")
    return value


def _date_int(value: Any) -> int:
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return days_from_date(value)
    return _plain_int(value)


# ---- key codecs -------------------------------------------------------------------------------

@dataclass(frozen=True)
class KeyCodec:
    """How one column type is keyed, encoded and ordered in a range-bitmap dictionary.

    ``kind`` is one of ``bool i8 i16 i32 i64 f32 f64 str``; ``fixed_length`` is None for strings.
    """

    data_type: DataType
    kind: str
    fixed_length: int | None
    default_chunk_size: str

    # -- values <-> sort keys -----------------------------------------------------------------
    def from_value(self, value: Any) -> Key:
        """Internal value -> sort key. Raises TypeError/ValueError on a value of the wrong kind."""
        k, dt = self.kind, self.data_type
        if k == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"not a boolean: {value!r}")
            return int(value)
        if k == "f32":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"not a float: {value!r}")
            return float32_key(float(value))
        if k == "f64":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"not a double: {value!r}")
            return float64_key(float(value))
        if k == "str":
            if not isinstance(value, str):
                raise TypeError(f"not a string: {value!r}")
            return value.encode("utf-8", "surrogatepass")
        if dt.root == "DECIMAL":
            return decimal_unscaled(value, dt.scale or 0)
        if dt.is_timestamp:
            return timestamp_long(value, 6 if dt.precision is None else dt.precision)
        if dt.root == "DATE":
            return _date_int(value)
        return _plain_int(value)

    def to_value(self, key: Key) -> Any:
        """Sort key -> internal value (the inverse of :meth:`from_value`)."""
        k = self.kind
        if k == "str":
            assert isinstance(key, bytes)
            return key.decode("utf-8", "replace")
        assert isinstance(key, int)
        if k == "bool":
            return bool(key)
        if k == "f32":
            return key_float32(key)
        if k == "f64":
            return key_float64(key)
        return long_to_value(self.data_type, key)

    def describe(self, key: Key) -> str:
        """A printable form of a key for messages (never raises: falls back to the raw key)."""
        try:
            return str(self.to_value(key))
        except (OverflowError, ValueError, ArithmeticError):
            return repr(key)

    # -- bytes ----------------------------------------------------------------------------------
    def encoded_size(self, key: Key) -> int:
        """Serialized size of a key in bytes."""
        if self.fixed_length is not None:
            return self.fixed_length
        assert isinstance(key, bytes)
        return 4 + len(key)

    def encode(self, key: Key) -> bytes:
        """Serialize a key the way Paimon's ``KeySerializer`` does. ValueError if it does not fit."""
        k = self.kind
        try:
            if k == "str":
                assert isinstance(key, bytes)
                return _I32.pack(len(key)) + key
            assert isinstance(key, int)
            if k == "bool":
                return b"\x01" if key else b"\x00"
            if k == "i8":
                return _I8.pack(key)
            if k == "i16":
                return _I16.pack(key)
            if k == "i32":
                return _I32.pack(key)
            if k == "i64":
                return _I64.pack(key)
            if k == "f32":
                return _I32.pack(f32_bits(key))
            return _I64.pack(f64_bits(key))
        except struct.error as e:
            raise ValueError(f"value {self.describe(key)} does not fit {self.data_type}: {e}") from None

    def decode_run(self, data: bytes, pos: int, count: int) -> list[Key]:
        """``count`` fixed-length keys stored back to back at ``pos`` (the caller checked the bytes)."""
        k = self.kind
        if k == "bool":
            return [1 if b == 1 else 0 for b in data[pos:pos + count]]
        values: tuple[int, ...] = struct.unpack_from(f">{count}{_FORMATS[k]}", data, pos)
        if k == "f32":
            return [f32_key(v) for v in values]
        if k == "f64":
            return [f64_key(v) for v in values]
        return list(values)

    def decode(self, r: ByteReader, field: str) -> Key:
        """Read one key at the reader's position."""
        k = self.kind
        if k == "str":
            n = r.i32(field + ".length")
            return r.raw(n, field)
        if k == "bool":
            return 1 if r.u8(field) == 1 else 0
        if k == "i8":
            return r.i8(field)
        if k == "i16":
            return r.i16(field)
        if k == "i32":
            return r.i32(field)
        if k == "i64":
            return r.i64(field)
        if k == "f32":
            return f32_key(r.i32(field))
        return f64_key(r.i64(field))


def key_codec(dtype: DataType) -> KeyCodec:
    """The key codec of a column type, as Paimon's ``KeyFactory.create``.

    Raises :class:`~paimon_lens.errors.UnsupportedError` for types range-bitmap rejects
    (binary, nested, DECIMAL with precision > 18, TIMESTAMP with precision > 6).
    """
    r = dtype.root
    if dtype.is_string:
        return KeyCodec(dtype, "str", None, "16kb")
    fixed = {"BOOLEAN": ("bool", 1, "0b"), "TINYINT": ("i8", 1, "0b"), "SMALLINT": ("i16", 2, "0b"),
             "INT": ("i32", 4, "16kb"), "DATE": ("i32", 4, "16kb"), "TIME": ("i32", 4, "16kb"),
             "BIGINT": ("i64", 8, "16kb"), "FLOAT": ("f32", 4, "16kb"), "DOUBLE": ("f64", 8, "16kb")}
    if r in fixed:
        kind, length, chunk = fixed[r]
        return KeyCodec(dtype, kind, length, chunk)
    if r == "DECIMAL":
        if (dtype.precision or 0) > 18:
            raise UnsupportedError(f"range-bitmap supports DECIMAL with a precision in [0, 18], not {dtype}")
        return KeyCodec(dtype, "i64", 8, "16kb")
    if dtype.is_timestamp:
        if (6 if dtype.precision is None else dtype.precision) > 6:
            raise UnsupportedError(f"range-bitmap supports TIMESTAMP with a precision in [0, 6], not {dtype}")
        return KeyCodec(dtype, "i64", 8, "16kb")
    raise UnsupportedError(f"range-bitmap does not support data type {dtype}")


# ---- decoded dictionary -----------------------------------------------------------------------

@dataclass(frozen=True)
class DictionaryChunk:
    """One chunk: its first key (inline in the header) and ``size`` further keys in the keys area.

    ``header_offset`` and ``keys_offset_in_file`` are absolute file offsets (``base`` included).
    """

    index: int
    first_key: Key
    code: int
    keys_offset: int
    size: int
    keys_length: int
    offsets_length: int
    fixed_length: int | None
    header_offset: int
    header_length: int

    @property
    def key_count(self) -> int:
        """Keys in this chunk: the first key plus ``size``."""
        return self.size + 1


@dataclass(frozen=True)
class ChunkedDictionary:
    """A decoded dictionary: chunk headers and every key (sort keys), in code order."""

    offset: int
    length: int
    header_length: int
    version: int
    offsets_length: int
    chunks_length: int
    keys_area_length: int
    chunks: tuple[DictionaryChunk, ...]
    keys: tuple[Key, ...]

    @property
    def chunk_count(self) -> int:
        """Number of chunks."""
        return len(self.chunks)

    def find(self, key: Key) -> int:
        """The code of ``key``, or ``-(insertion point) - 1`` when absent (Java ``find(Object)``)."""
        i = bisect_left(self.keys, key)
        if i < len(self.keys) and self.keys[i] == key:
            return i
        return -i - 1

    def key_of(self, code: int) -> Key:
        """The key with ``code`` (Java ``find(int)``). IndexError for an invalid code."""
        if code < 0 or code >= len(self.keys):
            raise IndexError(f"invalid code: {code}")
        return self.keys[code]


def read_dictionary(r: ByteReader, start: int, length: int, codec: KeyCodec, cardinality: int) -> ChunkedDictionary:
    """Decode and validate the dictionary occupying ``[start, start + length)`` of ``r``.

    Checks every offset and length against the bytes, that chunk codes are consecutive, that the
    keys are strictly increasing and that there are exactly ``cardinality`` of them.
    """
    d = r.sub(start, length, "dictionary")
    header_length = d.i32("dictionary.header_length")
    if header_length != DICTIONARY_HEADER_LENGTH:
        raise d.error("dictionary.header_length", DICTIONARY_HEADER_LENGTH, header_length, at=0)
    d.need(header_length, "dictionary.header")
    version = d.u8("dictionary.version")
    if version != DICTIONARY_VERSION:
        raise d.error("dictionary.version", DICTIONARY_VERSION, version, at=d.pos - 1)
    at = d.pos
    size = d.i32("dictionary.chunk_count")
    if size < 0 or (cardinality == 0) != (size == 0) or size > cardinality:
        raise d.error("dictionary.chunk_count", f"1..{cardinality}" if cardinality else 0, size, at=at)
    at = d.pos
    offsets_length = d.i32("dictionary.offsets_length")
    if offsets_length != 4 * size:
        raise d.error("dictionary.offsets_length", 4 * size, offsets_length, at=at)
    at = d.pos
    chunks_length = d.i32("dictionary.chunks_length")
    body = 4 + header_length
    if chunks_length < 0 or body + offsets_length + chunks_length > length:
        raise d.error("dictionary.chunks_length", f"0..{length - body - offsets_length}", chunks_length, at=at,
                      detail="chunk headers do not fit in the dictionary")
    keys_base = body + offsets_length + chunks_length
    keys_area_length = length - keys_base
    d.check_count(size, 4, "dictionary.offsets")
    offsets = [off for (off,) in d.tuples(_I32, size, "dictionary.offsets")]

    chunks: list[DictionaryChunk] = []
    keys: list[Key] = []
    chunks_start = body + offsets_length
    for i, off in enumerate(offsets):
        end = offsets[i + 1] if i + 1 < size else chunks_length
        if off < 0 or off > end or end > chunks_length or (i == 0 and off != 0):
            raise d.error(f"dictionary.offsets[{i}]", f"0..{chunks_length}, increasing", off,
                          at=body + 4 * i)
        chunk, chunk_keys = _read_chunk(d, i, chunks_start + off, end - off, keys_base, keys_area_length,
                                        codec, len(keys))
        chunks.append(chunk)
        keys.extend(chunk_keys)
        if len(keys) > cardinality:
            raise d.error(f"dictionary.chunk[{i}].size", f"at most {cardinality} keys in all", len(keys),
                          at=chunks_start + off)
    if len(keys) != cardinality:
        raise CorruptFileError(r.path, r.base + start, "dictionary.key_count", cardinality, len(keys),
                               detail="the dictionary holds another number of keys than the cardinality")
    if not all(map(operator.lt, keys, islice(keys, 1, None))):
        for i in range(1, len(keys)):
            if not keys[i - 1] < keys[i]:  # type: ignore[operator]
                raise CorruptFileError(r.path, r.base + start, f"dictionary.key[{i}]",
                                       f"> {codec.describe(keys[i - 1])} (strictly increasing)",
                                       codec.describe(keys[i]))
    return ChunkedDictionary(r.base + start, length, header_length, version, offsets_length, chunks_length,
                             keys_area_length, tuple(chunks), tuple(keys))


def _read_chunk(d: ByteReader, index: int, start: int, length: int, keys_base: int, keys_area_length: int,
                codec: KeyCodec, expected_code: int) -> tuple[DictionaryChunk, list[Key]]:
    name = f"dictionary.chunk[{index}]"
    h = d.sub(start, length, name)
    version = h.u8(name + ".version")
    if version != CHUNK_VERSION:
        raise h.error(name + ".version", CHUNK_VERSION, version, at=0)
    first_key = codec.decode(h, name + ".key")
    at = h.pos
    code = h.i32(name + ".code")
    if code != expected_code:
        raise h.error(name + ".code", expected_code, code, at=at)
    at_offset = h.pos
    keys_offset = h.i32(name + ".keys_offset")
    at_size = h.pos
    size = h.i32(name + ".size")
    if size < 0:
        raise h.error(name + ".size", "a non-negative count", size, at=at_size)
    fixed = codec.fixed_length
    if fixed is not None:
        at = h.pos
        keys_length = h.i32(name + ".keys_length")
        if keys_length != size * fixed:
            raise h.error(name + ".keys_length", size * fixed, keys_length, at=at)
        at = h.pos
        fixed_length = h.i32(name + ".fixed_length")
        if fixed_length != fixed:
            raise h.error(name + ".fixed_length", fixed, fixed_length, at=at)
        offsets_length = 0
    else:
        at = h.pos
        offsets_length = h.i32(name + ".offsets_length")
        if offsets_length != 4 * size:
            raise h.error(name + ".offsets_length", 4 * size, offsets_length, at=at)
        at = h.pos
        keys_length = h.i32(name + ".keys_length")
        if keys_length < 0:
            raise h.error(name + ".keys_length", "a non-negative length", keys_length, at=at)
    if h.remaining:
        raise h.error(name + ".header", f"{h.pos} bytes", length, detail="unexpected bytes after the chunk header")
    area = offsets_length + keys_length
    if keys_offset < 0 or keys_offset + area > keys_area_length:
        raise h.error(name + ".keys_offset", f"a range inside the {keys_area_length}-byte keys area",
                      f"[{keys_offset}, {keys_offset + area})", at=at_offset)
    keys: list[Key] = [first_key]
    kr = d.sub(keys_base + keys_offset, area, name + ".keys")
    if fixed is not None:
        keys += codec.decode_run(kr.data, 0, size)  # area == size * fixed bytes
    else:
        keys += _string_keys(kr, size, offsets_length, keys_length, name)
    chunk = DictionaryChunk(index, first_key, code, keys_offset, size, keys_length, offsets_length, fixed,
                            h.base, length)
    return chunk, keys


def _string_keys(kr: ByteReader, size: int, offsets_length: int, keys_length: int, name: str) -> list[Key]:
    """The ``size`` keys of a variable-length chunk's keys area (``kr``: offsets, then the keys,
    each an i32 length and its bytes); every offset and length is checked, the first bad one raises."""
    data = kr.data
    n = len(data)
    out: list[Key] = []
    for j, (off,) in enumerate(kr.tuples(_I32, size, f"{name}.key_offsets")):
        if off < 0 or off > keys_length:
            raise kr.error(f"{name}.key_offsets[{j}]", f"0..{keys_length}", off, at=4 * j)
        p = offsets_length + off
        if p + 4 > n:
            raise kr.error(f"{name}.keys[{j}].length", "4 more bytes", f"{n - p} left", detail="truncated", at=p)
        length = _I32.unpack_from(data, p)[0]
        if length < 0 or length > n - p - 4:
            raise kr.error(f"{name}.keys[{j}]", f"a length within the {n - p - 4} bytes left", length, at=p)
        out.append(data[p + 4:p + 4 + length])
    return out


# ---- writing ----------------------------------------------------------------------------------

def write_dictionary(keys: Sequence[Key], codec: KeyCodec, chunk_size: int) -> bytes:
    """Serialize sorted distinct keys (codes = positions) exactly as ``ChunkedDictionary.Appender``."""
    if chunk_size < 0:
        raise ValueError(f"chunk size must be non-negative, not {chunk_size}")
    offsets = bytearray()
    chunks = bytearray()
    key_area = bytearray()
    fixed = codec.fixed_length
    i = 0
    n = len(keys)
    while i < n:
        first, code = keys[i], i
        i += 1
        extra: list[bytes] = []
        used = 0
        while i < n:
            enc = codec.encode(keys[i])
            if fixed is not None:
                if fixed > chunk_size - used:
                    break
            elif len(enc) > chunk_size - used or chunk_size - 4 * len(extra) < 4:
                break
            extra.append(enc)
            used += len(enc)
            i += 1
        offsets += _I32.pack(len(chunks))
        head = bytes([CHUNK_VERSION]) + codec.encode(first) + _I32.pack(code) + _I32.pack(len(key_area))
        head += _I32.pack(len(extra))
        if fixed is not None:
            head += _I32.pack(used) + _I32.pack(fixed)
            key_area += b"".join(extra)
        else:
            head += _I32.pack(4 * len(extra)) + _I32.pack(used)
            pos = 0
            for enc in extra:
                key_area += _I32.pack(pos)
                pos += len(enc)
            key_area += b"".join(extra)
        chunks += head
    header = _I32.pack(DICTIONARY_HEADER_LENGTH) + bytes([DICTIONARY_VERSION]) + _I32.pack(len(offsets) // 4)
    header += _I32.pack(len(offsets)) + _I32.pack(len(chunks))
    return header + bytes(offsets) + bytes(chunks) + bytes(key_area)


#: numpy dtypes of stored fixed-length keys (after the float sort-key flip), by key kind
_NUMPY_KEYS = {"bool": "u1", "i8": "i1", "i16": ">i2", "i32": ">i4", "i64": ">i8", "f32": ">i4", "f64": ">i8"}


def stored_keys(codec: KeyCodec, keys: Any) -> Any:
    """Fixed-length sort keys (an int64 array or a sequence) as stored: a big-endian numpy array.

    The vectorised :meth:`KeyCodec.encode` of every key (the caller checked that they fit).
    """
    import numpy as np

    k = codec.kind
    arr = np.asarray(keys, dtype=np.int64)
    if k == "bool":
        arr = (arr != 0).astype(np.int64)
    elif k == "f32":
        arr = bits_array(arr, F32_MASK)
    elif k == "f64":
        arr = bits_array(arr, F64_MASK)
    return arr.astype(_NUMPY_KEYS[k])


def length_prefixed(keys: Sequence[bytes]) -> tuple[Any, Any]:
    """``length:i32 + bytes`` of every key back to back (a uint8 array) and each one's start."""
    import numpy as np

    n = len(keys)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=n)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths + 4, out=starts[1:])
    out = np.empty(int(starts[-1]), dtype=np.uint8)
    if n:
        out[(starts[:-1, None] + np.arange(4)).ravel()] = lengths.astype(">i4").view(np.uint8)
        data = np.frombuffer(b"".join(keys), dtype=np.uint8)
        if len(data):
            out[np.repeat(starts[:-1] + 4 - (np.cumsum(lengths) - lengths), lengths) + np.arange(len(data))] = data
    return out, starts


def write_dictionary_bulk(keys: Sequence[Key], codec: KeyCodec, chunk_size: int) -> bytes:
    """:func:`write_dictionary`, vectorised (the same bytes; for many keys much faster).

    Fixed-length keys: every chunk holds ``1 + chunk_size // fixedLength`` keys (the last one
    fewer), so the chunk headers are one numpy record array. Strings: each chunk's extra keys are
    the longest run whose encodings fit in ``chunk-size`` (a binary search over their running
    sizes; the offsets bound ``4 * (size + 1) <= chunk-size`` never binds first, since every
    encoding takes at least 4 bytes).
    """
    import numpy as np

    if chunk_size < 0:
        raise ValueError(f"chunk size must be non-negative, not {chunk_size}")
    n = len(keys)
    fixed = codec.fixed_length
    if fixed is not None:
        per = 1 + chunk_size // fixed  # keys per chunk
        stored = stored_keys(codec, keys)
        firsts = np.arange(0, n, per, dtype=np.int64)
        count = len(firsts)
        sizes = np.minimum(per, n - firsts) - 1
        heads = np.empty(count, dtype=[("v", "u1"), ("k", stored.dtype), ("code", ">i4"), ("off", ">i4"),
                                       ("size", ">i4"), ("len", ">i4"), ("fixed", ">i4")])
        heads["v"] = CHUNK_VERSION
        heads["k"] = stored[firsts]
        heads["code"] = firsts
        heads["off"] = (np.cumsum(sizes) - sizes) * fixed
        heads["size"] = sizes
        heads["len"] = sizes * fixed
        heads["fixed"] = fixed
        extra = np.ones(n, dtype=bool)
        extra[firsts] = False
        offsets = (np.arange(count, dtype=np.int64) * heads.dtype.itemsize).astype(">i4").tobytes()
        chunks = heads.tobytes()
        key_area = stored[extra].tobytes()
    else:
        enc, starts = length_prefixed(keys)  # type: ignore[arg-type]  # string keys are bytes
        out_offsets = bytearray()
        out_chunks = bytearray()
        area: list[bytes] = []
        area_length = 0
        i = 0
        while i < n:
            j = max(i + 1, min(n, int(np.searchsorted(starts, starts[i + 1] + chunk_size, side="right")) - 1))
            size = j - i - 1
            used = int(starts[j] - starts[i + 1])
            out_offsets += _I32.pack(len(out_chunks))
            out_chunks += (bytes([CHUNK_VERSION]) + codec.encode(keys[i]) + _I32.pack(i) + _I32.pack(area_length)
                           + _I32.pack(size) + _I32.pack(4 * size) + _I32.pack(used))
            if size:
                area.append((starts[i + 1:j] - starts[i + 1]).astype(">i4").tobytes())
                area.append(enc[starts[i + 1]:starts[j]].tobytes())
                area_length += 4 * size + used
            i = j
        offsets, chunks, key_area = bytes(out_offsets), bytes(out_chunks), b"".join(area)
    header = _I32.pack(DICTIONARY_HEADER_LENGTH) + bytes([DICTIONARY_VERSION]) + _I32.pack(len(offsets) // 4)
    header += _I32.pack(len(offsets)) + _I32.pack(len(chunks))
    return header + offsets + chunks + key_area
