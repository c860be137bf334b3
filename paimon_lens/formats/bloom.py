"""Bloom-filter file index: Paimon's ``BloomFilterFileIndex``, ``BloomFilter64`` and ``FastHash``.

Layout of one column's index bytes (identical in Paimon 0.9.0 and 2.0.0)::

    offset  size           field
    ------  -------------  ----------------------------------------------------------------
    0       4              num_hash_functions:i32 (big-endian; k)
    4       len - 4        bit set: bit i is bit (i & 7) of byte (i >>> 3);
                           num_bits = 8 * (len - 4)

Sizing (``BloomFilter64(items, fpp)``; options ``items`` default 1,000,000, ``fpp`` default 0.1)::

    nb        = (int) (-items * ln(fpp) / (ln 2)^2)
    num_bits  = nb + (8 - nb % 8)          # a whole byte is added when nb % 8 == 0
    k         = max(1, (int) Math.round(num_bits / items * ln 2))

Hash of a value (``FastHash``): CHAR/VARCHAR/STRING -> XXH64 (seed 0) of the UTF-8 bytes,
BINARY/VARBINARY -> XXH64 of the bytes; TINYINT/SMALLINT/INT/BIGINT/DATE/TIME -> the value as a
long, FLOAT -> ``floatToIntBits`` (sign-extended), DOUBLE -> ``doubleToLongBits``,
TIMESTAMP(_LTZ) -> epoch millis for precision <= 3 else micros, each through Thomas Wang's 64-bit
mix (arithmetic right shifts, wrapping). BOOLEAN, DECIMAL and nested types cannot be indexed.

Probe of a 64-bit hash ``h``: ``h1 = (int) h``, ``h2 = (int) (h >>> 32)``; for ``i = 1..k``:
``c = h1 + i * h2`` (int32), ``if c < 0: c = ~c``, test bit ``c % num_bits``. All set -> the value
may be present (REMAIN), else SKIP. Nulls are never added; ``= NULL`` answers REMAIN. Only ``=``
and ``IN`` (an OR of ``=``) are answered.

The reader decodes ``k`` the way Paimon's reader does, adding the four bytes as *signed* Java
bytes. That equals the big-endian int for every ``k`` below 128; :attr:`BloomFilterFileIndexReader
.stored_num_hash_functions` keeps the plain big-endian value and a note says when they differ.

:meth:`BloomFilterFileIndexReader.might_contain_many` and :func:`hash_values` are vectorised with
numpy for numeric, date, time and timestamp values (tens of millions of probes per second);
strings and binary values are hashed one by one with the ``xxhash`` package.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import xxhash

from ..errors import UnsupportedError
from ..io.byte_reader import ByteReader
from ..types import EPOCH_DATE, DataType, Timestamp
from .index_reader import FileIndexReader
from .result import REMAIN, SKIP, FileIndexResult
from .summary import IndexSummary

INDEX_TYPE = "bloom-filter"
DEFAULT_ITEMS = 1_000_000
DEFAULT_FPP = 0.1

_MASK64 = (1 << 64) - 1
_INT_MAX = 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_LN2 = math.log(2)
#: values per vectorised step: temporaries stay in the CPU cache
_CHUNK = 1 << 15
_M21 = np.uint64((1 << 21) - 1)
_ONE = np.uint64(1)
_M265 = np.uint64(265)
_M21B = np.uint64(21)
_M31 = np.uint64((1 << 31) + 1)
_ONE_U8 = np.uint8(1)
_INT32_NATIVE = np.dtype(np.int32)
_LOW = 0 if sys.byteorder == "little" else 1
#: more hash functions than this cannot come from Paimon's sizing (about 1,100 at most)
MAX_HASH_FUNCTIONS = 1 << 16

_LONG_HASHED = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME",
                          "FLOAT", "DOUBLE", "TIMESTAMP", "TIMESTAMP_LTZ"})
_BYTES_HASHED = frozenset({"CHAR", "VARCHAR", "BINARY", "VARBINARY"})

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


# ---- Java arithmetic -------------------------------------------------------------------------

def _to_int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _to_int64(v: int) -> int:
    v &= _MASK64
    return v - (1 << 64) if v >> 63 else v


def java_double_to_int(x: float) -> int:
    """Java's ``(int) x``: truncation toward zero, saturating, NaN -> 0."""
    if math.isnan(x):
        return 0
    if x >= _INT_MAX:
        return _INT_MAX
    if x <= -(2**31):
        return -(2**31)
    return int(x)


def java_round(x: float) -> int:
    """Java's ``Math.round(double)``: nearest long, ties toward positive infinity, saturating."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return _LONG_MAX if x > 0 else _LONG_MIN
    f = math.floor(x)
    r = f + 1 if x - f >= 0.5 else f
    return max(_LONG_MIN, min(_LONG_MAX, int(r)))


def bloom_filter_sizing(items: int, fpp: float) -> tuple[int, int]:
    """``(num_bits, num_hash_functions)`` exactly as ``BloomFilter64(items, fpp)`` computes them.

    Raises:
        ValueError: when Paimon's formula gives no usable bit set (``num_bits <= 0``) or
            ``items < 1`` / ``fpp <= 0``.
    """
    if items < 1 or not fpp > 0:
        raise ValueError(f"bloom filter needs items >= 1 and fpp > 0 (got items={items}, fpp={fpp})")
    nb = java_double_to_int(float(-items) * math.log(fpp) / (_LN2 * _LN2))
    rem = int(math.fmod(nb, 8))  # Java's % truncates toward zero
    num_bits = _to_int32(nb + (8 - rem))
    if num_bits <= 0:
        raise ValueError(f"bloom filter sizing gives {num_bits} bits for items={items}, fpp={fpp}")
    k = max(1, _to_int32(java_round(num_bits / items * _LN2)))
    return num_bits, k


# ---- hashing ---------------------------------------------------------------------------------

def is_bloom_hashable(data_type: DataType) -> bool:
    """Whether Paimon can build a bloom filter on this type (``FastHash`` has a function)."""
    return data_type.root in _LONG_HASHED or data_type.root in _BYTES_HASHED


def thomas_wang_hash64(key: int) -> int:
    """Thomas Wang's 64-bit integer mix as ``FastHash.getLongHash`` computes it (signed result)."""
    k = key & _MASK64

    def ashr(v: int, n: int) -> int:
        return (_to_int64(v) >> n) & _MASK64

    k = ((~k) + (k << 21)) & _MASK64
    k ^= ashr(k, 24)
    k = (k + (k << 3) + (k << 8)) & _MASK64
    k ^= ashr(k, 14)
    k = (k + (k << 2) + (k << 4)) & _MASK64
    k ^= ashr(k, 28)
    k = (k + (k << 31)) & _MASK64
    return _to_int64(k)


def thomas_wang_hash64_array(keys: npt.ArrayLike) -> Int64Array:
    """Vectorised :func:`thomas_wang_hash64` over an array of signed 64-bit keys.

    Uses the multiplications the shift-and-add steps stand for (``(~k) + (k << 21)`` is
    ``k * (2^21 - 1) - 1``, then ``* 265``, ``* 21``, ``* (2^31 + 1)``), all modulo 2^64.
    """
    out = np.array(keys, dtype=np.int64, copy=True).reshape(-1)
    tmp = np.empty(min(len(out), _CHUNK), dtype=np.int64)
    for start in range(0, len(out), _CHUNK):
        chunk = out[start:start + _CHUNK]
        _thomas_wang_inplace(chunk.view(np.uint64), tmp[:len(chunk)])
    return out


def _thomas_wang_inplace(k: npt.NDArray[np.uint64], tmp: Int64Array) -> None:
    ks = k.view(np.int64)
    tu = tmp.view(np.uint64)
    np.multiply(k, _M21, out=k)
    np.subtract(k, _ONE, out=k)
    np.right_shift(ks, 24, out=tmp)
    np.bitwise_xor(k, tu, out=k)
    np.multiply(k, _M265, out=k)
    np.right_shift(ks, 14, out=tmp)
    np.bitwise_xor(k, tu, out=k)
    np.multiply(k, _M21B, out=k)
    np.right_shift(ks, 28, out=tmp)
    np.bitwise_xor(k, tu, out=k)
    np.multiply(k, _M31, out=k)


def xxh64(data: bytes) -> int:
    """XXH64 with seed 0 as a signed long (zero-allocation-hashing's ``LongHashFunction.xx()``)."""
    return _to_int64(xxhash.xxh64_intdigest(data))


def java_utf8(text: str) -> bytes:
    """The bytes of ``BinaryString.fromString(text)``: UTF-8, unpaired surrogates become ``?``."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Join surrogate pairs first (Java strings are UTF-16), then replace lone ones by '?'.
        joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return joined.encode("utf-8", "replace")


def _float_bits(value: float) -> int:
    if math.isnan(value):
        return 0x7FC00000
    (bits,) = struct.unpack(">i", struct.pack(">f", value))
    return int(bits)


def _double_bits(value: float) -> int:
    if math.isnan(value):
        return 0x7FF8000000000000
    (bits,) = struct.unpack(">q", struct.pack(">d", value))
    return int(bits)


def _timestamp_long(data_type: DataType, value: Any) -> int:
    if isinstance(value, _dt.datetime):
        value = Timestamp.from_datetime(value)
    if isinstance(value, Timestamp):
        precision = 6 if data_type.precision is None else data_type.precision
        return value.to_millis() if precision <= 3 else value.to_micros()
    return int(value)  # already the physical long


def physical_long(data_type: DataType, value: Any) -> int:
    """The long ``FastHash`` mixes for a numeric/date/time/timestamp value.

    Accepts internal values (:mod:`paimon_lens.types`) and also ``datetime.date``,
    ``datetime.time`` and ``datetime.datetime``; an ``int`` for a timestamp is taken as the
    physical value (millis for precision <= 3, else micros).
    """
    r = data_type.root
    if r == "FLOAT":
        return _float_bits(float(value))
    if r == "DOUBLE":
        return _double_bits(float(value))
    if data_type.is_timestamp:
        return _timestamp_long(data_type, value)
    if r == "DATE" and isinstance(value, _dt.date):
        return (value - EPOCH_DATE).days
    if r == "TIME" and isinstance(value, _dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return _to_int64(int(value))


def hash_value(data_type: DataType, value: Any) -> int:
    """``FastHash.getHashFunction(type).hash(value)`` for one non-null value (signed long).

    Raises:
        UnsupportedError: the type has no bloom-filter hash (BOOLEAN, DECIMAL, nested types).
    """
    r = data_type.root
    if r in _BYTES_HASHED:
        if isinstance(value, str):
            return xxh64(java_utf8(value))
        return xxh64(bytes(value))
    if r in _LONG_HASHED:
        return thomas_wang_hash64(physical_long(data_type, value))
    raise UnsupportedError(f"Paimon has no bloom-filter hash for type {data_type}")


def physical_longs(data_type: DataType, values: Any) -> Int64Array:
    """Vectorised :func:`physical_long` (no nulls). numpy arrays take a fast path:

    integer arrays as they are, ``float32``/``float64`` arrays by their IEEE bits (NaN made
    canonical), ``datetime64`` arrays converted to days (DATE), millis or micros (TIMESTAMP).
    """
    r = data_type.root
    if isinstance(values, np.ndarray):
        if r == "FLOAT" and values.dtype.kind == "f":
            f = values.astype(np.float32)
            bits = f.view(np.int32).astype(np.int64)
            bits[np.isnan(f)] = 0x7FC00000
            return bits
        if r == "DOUBLE" and values.dtype.kind == "f":
            d = values.astype(np.float64)
            bits = d.view(np.int64).copy()
            bits[np.isnan(d)] = 0x7FF8000000000000
            return bits
        if values.dtype.kind == "M":
            if r == "DATE":
                unit = "D"
            elif data_type.is_timestamp:
                unit = "ms" if (data_type.precision if data_type.precision is not None else 6) <= 3 else "us"
            else:
                unit = ""
            if unit:
                # Timestamps with a fraction below the unit must floor (Java's integer division
                # of non-negative nanos), which numpy's cast of datetime64 does.
                return values.astype(f"datetime64[{unit}]").view(np.int64).astype(np.int64)
        if values.dtype.kind in "iub" and r not in ("FLOAT", "DOUBLE"):
            return values.astype(np.int64)
    return np.fromiter((physical_long(data_type, v) for v in values), dtype=np.int64)


#: ``hash_value`` answers by (type, literal): a predicate's literal is probed in the bloom filter of
#: every file it reaches, with one hash (bounded; cleared when full)
_LITERAL_HASHES: dict[tuple[DataType, type, Any], int] = {}
_LITERAL_HASHES_MAX = 4096


#: the literal classes whose equal values hash alike in Paimon (not float: ``-0.0 == 0.0``, whose bits
#: differ; not Decimal: ``1.0 == 1.00``)
_MEMO_CLASSES = frozenset({int, str, bytes})


def literal_hash(data_type: DataType, value: Any) -> int:
    """:func:`hash_value`, computed once per (type, value) for int, str and bytes literals."""
    kind = type(value)
    if kind not in _MEMO_CLASSES:
        return hash_value(data_type, value)
    key = (data_type, kind, value)
    got = _LITERAL_HASHES.get(key)
    if got is None:
        got = hash_value(data_type, value)
        if len(_LITERAL_HASHES) >= _LITERAL_HASHES_MAX:
            _LITERAL_HASHES.clear()
        _LITERAL_HASHES[key] = got
    return got


def hash_values(data_type: DataType, values: Any) -> Int64Array:
    """``FastHash`` of many non-null values as an ``int64`` array (vectorised when possible)."""
    r = data_type.root
    if r in _LONG_HASHED:
        return thomas_wang_hash64_array(physical_longs(data_type, values))
    if r in _BYTES_HASHED:
        return np.fromiter((hash_value(data_type, v) for v in values), dtype=np.int64)
    raise UnsupportedError(f"Paimon has no bloom-filter hash for type {data_type}")


# ---- the filter ------------------------------------------------------------------------------

class BloomFilter64:
    """Paimon's ``BloomFilter64``: ``k`` hash functions over a byte-array bit set."""

    def __init__(self, num_hash_functions: int, bits: bytes | bytearray) -> None:
        if len(bits) == 0:
            raise ValueError("a bloom filter needs at least one byte of bits")
        self.num_hash_functions = num_hash_functions
        self.bits = bytearray(bits)
        self.num_bits = len(self.bits) * 8
        self._probe_bytes: npt.NDArray[np.uint8] | None = None  # read-only copy of the bits for probing

    @classmethod
    def sized(cls, items: int, fpp: float) -> BloomFilter64:
        """An empty filter sized as ``new BloomFilter64(items, fpp)``."""
        num_bits, k = bloom_filter_sizing(items, fpp)
        return cls(k, bytearray(num_bits // 8))

    # -- scalar ---------------------------------------------------------------------------------
    def _positions(self, hash64: int) -> Iterable[int]:
        h1 = _to_int32(hash64)
        h2 = _to_int32(hash64 >> 32)
        for i in range(1, self.num_hash_functions + 1):
            c = _to_int32(h1 + i * h2)
            if c < 0:
                c = ~c
            yield c % self.num_bits

    def add_hash(self, hash64: int) -> None:
        """``addHash``: set the ``k`` bits of one hash."""
        self._probe_bytes = None
        for p in self._positions(hash64):
            self.bits[p >> 3] |= 1 << (p & 7)

    def test_hash(self, hash64: int) -> bool:
        """``testHash``: True if all ``k`` bits are set (the value may be present)."""
        return all(self.bits[p >> 3] >> (p & 7) & 1 for p in self._positions(hash64))

    # -- vectorised ------------------------------------------------------------------------------
    def _probe_chunks(self, hashes: Int64Array) -> Iterable[tuple[int, npt.NDArray[np.int32]]]:
        """For each chunk and each of the k functions: ``(chunk start, bit positions)``.

        The yielded array is reused between steps; consume it before the next one.
        """
        n = min(len(hashes), _CHUNK)
        c = np.empty(n, dtype=np.int32)
        h2 = np.empty(n, dtype=np.int32)
        pos = np.empty(n, dtype=np.int32)
        num_bits = np.int32(self.num_bits)
        for start in range(0, len(hashes), _CHUNK):
            chunk = np.ascontiguousarray(hashes[start:start + _CHUNK], dtype=np.int64)
            m = len(chunk)
            cc, hh, pp = c[:m], h2[:m], pos[:m]
            halves = chunk.view(_INT32_NATIVE)  # (low, high) pairs on little-endian
            np.copyto(cc, halves[_LOW::2])  # h1 = (int) h
            np.copyto(hh, halves[1 - _LOW::2])  # h2 = (int) (h >>> 32)
            for _ in range(self.num_hash_functions):
                np.add(cc, hh, out=cc)  # h1 + i * h2, int32 wrapping
                np.right_shift(cc, 31, out=pp)
                np.bitwise_xor(cc, pp, out=pp)  # ~c when c < 0
                np.remainder(pp, num_bits, out=pp)
                yield start, pp

    def add_hashes(self, hashes: npt.ArrayLike) -> None:
        """Vectorised :meth:`add_hash`."""
        arr = np.asarray(hashes, dtype=np.int64).reshape(-1)
        unpacked = np.unpackbits(np.frombuffer(self.bits, dtype=np.uint8), bitorder="little").view(np.bool_)
        for _, pos in self._probe_chunks(arr):
            unpacked[pos] = True
        self.bits[:] = np.packbits(unpacked, bitorder="little").tobytes()
        self._probe_bytes = None

    def test_hashes(self, hashes: npt.ArrayLike) -> BoolArray:
        """Vectorised :meth:`test_hash`: one bool per hash."""
        arr = np.asarray(hashes, dtype=np.int64).reshape(-1)
        out = np.ones(len(arr), dtype=np.bool_)
        if self.num_hash_functions <= 0 or len(arr) == 0:
            return out
        packed = self._packed()
        n = min(len(arr), _CHUNK)
        idx = np.empty(n, dtype=np.int32)
        byte = np.empty(n, dtype=np.uint8)
        shift = np.empty(n, dtype=np.uint8)
        with np.errstate(over="ignore"):
            for start, pos in self._probe_chunks(arr):
                m = len(pos)
                ii, bb, ss = idx[:m], byte[:m], shift[:m]
                np.right_shift(pos, 3, out=ii)
                np.take(packed, ii, out=bb)
                np.bitwise_and(pos, 7, out=ii)
                np.copyto(ss, ii, casting="unsafe")
                np.right_shift(bb, ss, out=bb)
                np.bitwise_and(bb, _ONE_U8, out=bb)
                res = out[start:start + m]
                np.logical_and(res, bb, out=res)
        return out

    def _packed(self) -> npt.NDArray[np.uint8]:
        if self._probe_bytes is None:
            self._probe_bytes = np.frombuffer(bytes(self.bits), dtype=np.uint8)
        return self._probe_bytes

    # -- statistics ------------------------------------------------------------------------------
    @property
    def bits_set(self) -> int:
        """Number of bits set (population count)."""
        return int.from_bytes(self.bits, "little").bit_count()


@dataclass(frozen=True)
class BloomFilterInfo(IndexSummary):
    """What one bloom-filter index holds, for display and advice (the bloom-filter summary).

    ``estimated_items`` is ``-num_bits / k * ln(1 - bits_set / num_bits)`` (infinite when every
    bit is set); ``false_positive_probability`` is ``(bits_set / num_bits) ** k``.
    """

    index_type: ClassVar[str] = INDEX_TYPE

    num_hash_functions: int
    stored_num_hash_functions: int
    num_bits: int
    size_bytes: int
    bits_set: int
    fill_ratio: float
    estimated_items: float
    false_positive_probability: float


def _estimate_items(num_bits: int, k: int, bits_set: int) -> float:
    if k <= 0:
        return math.nan
    fill = bits_set / num_bits
    if fill >= 1.0:
        return math.inf
    return -num_bits / k * math.log1p(-fill)


class BloomFilterFileIndexReader(FileIndexReader):
    """Reader of one bloom-filter index (Paimon's ``BloomFilterFileIndex.Reader``).

    Args:
        data_type: the indexed column's type (for ``col[key]``, the map's value type).
        data: the index bytes.
        path: file the bytes come from (errors only).
        base: offset of ``data[0]`` in that file.
    """

    index_type = INDEX_TYPE

    def __init__(self, data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> None:
        r = ByteReader(data, path, base)
        raw_k = r.raw(4, "num_hash_functions")
        stored_k = struct.unpack(">i", raw_k)[0]
        signed = [b - 256 if b > 127 else b for b in raw_k]
        java_k = _to_int32((signed[0] << 24) + (signed[1] << 16) + (signed[2] << 8) + signed[3])
        if java_k > MAX_HASH_FUNCTIONS:
            raise r.error("num_hash_functions", f"at most {MAX_HASH_FUNCTIONS}", java_k, at=0,
                          detail="Paimon's sizing never gives that many hash functions")
        n_bytes = r.remaining
        if n_bytes == 0:
            raise r.error("bit_set", "at least 1 byte", 0, detail="a bloom filter with no bits cannot be probed")
        if n_bytes * 8 > _INT_MAX:
            raise r.error("bit_set", f"at most {_INT_MAX // 8} bytes", n_bytes,
                          detail="Paimon's bit count is an int")
        self.data_type = data_type
        self.path = path
        self.base = base
        self.stored_num_hash_functions: int = stored_k
        self.filter = BloomFilter64(java_k, r.raw(n_bytes, "bit_set"))
        self.hashable = is_bloom_hashable(data_type)
        notes = []
        if java_k != stored_k:
            notes.append(f"Paimon's reader decodes k as {java_k} (signed-byte sum), the stored int is {stored_k}")
        if java_k <= 0:
            notes.append("k <= 0: every probe answers 'may contain'")
        if not self.hashable:
            notes.append(f"Paimon cannot hash type {data_type} for a bloom filter; every test answers REMAIN")
        self.note: str | None = "; ".join(notes) or None

    # -- model ----------------------------------------------------------------------------------
    @property
    def num_hash_functions(self) -> int:
        """``k`` as Paimon's reader uses it."""
        return self.filter.num_hash_functions

    @property
    def num_bits(self) -> int:
        """Size of the bit set in bits."""
        return self.filter.num_bits

    def summary(self) -> BloomFilterInfo:
        """Bit statistics and estimates of this filter (:meth:`info`)."""
        return self.info()

    def info(self) -> BloomFilterInfo:
        """Bit statistics and estimates of this filter."""
        f = self.filter
        bits_set = f.bits_set
        fill = bits_set / f.num_bits
        k = f.num_hash_functions
        return BloomFilterInfo(
            num_hash_functions=k,
            stored_num_hash_functions=self.stored_num_hash_functions,
            num_bits=f.num_bits,
            size_bytes=4 + len(f.bits),
            bits_set=bits_set,
            fill_ratio=fill,
            estimated_items=_estimate_items(f.num_bits, k, bits_set),
            false_positive_probability=fill**k if k > 0 else 1.0,
        )

    # -- membership -------------------------------------------------------------------------------
    def might_contain(self, value: Any) -> bool:
        """True unless the filter proves ``value`` absent (None: True)."""
        if value is None or not self.hashable:
            return True
        return self.filter.test_hash(literal_hash(self.data_type, value))

    def might_contain_many(self, values: Sequence[Any] | npt.NDArray[Any]) -> BoolArray:
        """Vectorised :meth:`might_contain`; None entries (or NaT) answer True."""
        n = len(values)
        if not self.hashable:
            return np.ones(n, dtype=np.bool_)
        if isinstance(values, np.ndarray) and values.dtype != object:
            if values.dtype.kind == "M":
                nat = np.isnat(values)
                out = self.filter.test_hashes(hash_values(self.data_type, values))
                out[nat] = True
                return out
            return self.filter.test_hashes(hash_values(self.data_type, values))
        nulls = np.fromiter((v is None for v in values), dtype=np.bool_, count=n)
        present = [v for v in values if v is not None]
        out = np.ones(n, dtype=np.bool_)
        if present:
            out[~nulls] = self.filter.test_hashes(hash_values(self.data_type, present))
        return out

    def test_hashes(self, hashes: npt.ArrayLike) -> BoolArray:
        """Probe precomputed ``FastHash`` values (see :func:`hash_values`)."""
        return self.filter.test_hashes(hashes)

    # -- FileIndexReader --------------------------------------------------------------------------
    def visit_equal(self, literal: Any) -> FileIndexResult:
        """REMAIN if ``literal`` may be present (or is null), else SKIP."""
        return REMAIN if self.might_contain(literal) else SKIP

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """OR of :meth:`visit_equal`: REMAIN if any literal may be present."""
        return super().visit_in(literals)

    def __repr__(self) -> str:
        return (f"BloomFilterFileIndexReader({self.data_type}, k={self.num_hash_functions}, "
                f"bits={self.num_bits})")


class BloomFilterFileIndexWriter:
    """Paimon's ``BloomFilterFileIndex.Writer``: a filter sized from ``items`` and ``fpp``.

    ``serialized_bytes()`` reproduces the bytes Paimon writes for the same values.
    """

    index_type = INDEX_TYPE

    def __init__(self, data_type: DataType, items: int = DEFAULT_ITEMS, fpp: float = DEFAULT_FPP) -> None:
        if not is_bloom_hashable(data_type):
            raise UnsupportedError(f"Paimon has no bloom-filter hash for type {data_type}")
        self.data_type = data_type
        self.items = items
        self.fpp = fpp
        self.filter = BloomFilter64.sized(items, fpp)

    @classmethod
    def from_options(cls, data_type: DataType, options: dict[str, str] | None = None) -> BloomFilterFileIndexWriter:
        """Sized from index options ``items`` / ``fpp`` (keys without the column prefix)."""
        opts = options or {}
        return cls(data_type, int(opts.get("items", DEFAULT_ITEMS)), float(opts.get("fpp", DEFAULT_FPP)))

    def write(self, value: Any) -> None:
        """Add one value (None is ignored, as in Paimon)."""
        if value is not None:
            self.filter.add_hash(hash_value(self.data_type, value))

    def write_many(self, values: Sequence[Any] | npt.NDArray[Any]) -> None:
        """Add many values (vectorised; None entries ignored)."""
        if isinstance(values, np.ndarray) and values.dtype != object:
            if values.dtype.kind == "M":
                values = values[~np.isnat(values)]
            self.filter.add_hashes(hash_values(self.data_type, values))
            return
        hashes = hash_present(self.data_type, values)
        if len(hashes):
            self.filter.add_hashes(hashes)

    def serialized_bytes(self) -> bytes:
        """``num_hash_functions:i32 BE`` followed by the bit set."""
        return struct.pack(">i", self.filter.num_hash_functions) + bytes(self.filter.bits)


_INTEGER_ROOTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME"})


def hash_present(data_type: DataType, values: Iterable[Any]) -> Int64Array:
    """``FastHash`` of the non-null values of a Python sequence (the writer's bulk path).

    The same hashes as :func:`hash_value` of each value, in order, computed faster: plain
    ``int`` columns (and ``float`` DOUBLE columns) through numpy in one go; strings and bytes
    hashed once per distinct value. Anything else goes through :func:`hash_values`.
    """
    present = [v for v in values if v is not None]
    if not present:
        return np.zeros(0, dtype=np.int64)
    r = data_type.root
    kinds = set(map(type, present))
    try:
        if r in _BYTES_HASHED and kinds <= {str, bytes}:
            index: dict[Any, int] = {}
            setdefault = index.setdefault
            codes = np.array([setdefault(v, len(index)) for v in present], dtype=np.int64)
            digest = xxhash.xxh64_intdigest
            distinct = np.array([digest(java_utf8(v) if isinstance(v, str) else v) for v in index],
                                dtype=np.uint64).view(np.int64)
            return distinct[codes]
        if r in _INTEGER_ROOTS and kinds <= {int}:
            return thomas_wang_hash64_array(np.array(present, dtype=np.int64))
        if r == "DOUBLE" and kinds <= {float}:
            return hash_values(data_type, np.array(present, dtype=np.float64))
    except OverflowError:  # an int beyond 64 bits: hash_value wraps it
        pass
    return hash_values(data_type, present)
