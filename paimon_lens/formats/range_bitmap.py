"""Paimon 2.0's range-bitmap file index (``RangeBitmapFileIndex``, ``RangeBitmap``).

One column's index bytes (big-endian)::

    headerLength:i32
    header:      version:u8 (= 1) | rowCount:i32 | cardinality:i32
                 | min:key | max:key          (both absent when cardinality is 0)
                 | dictionaryLength:i32
    dictionary:  dictionaryLength bytes       (see range_bitmap_dictionary)
    bsi:         the bit-slice index of codes (see bit_slice)

``rowCount`` counts every row written (nulls included); ``cardinality`` is the number of distinct
non-null values; keys are encoded as in the dictionary (strings ``length:i32`` + UTF-8, numbers
fixed-width, DECIMAL as the unscaled long, TIMESTAMP as millis/micros). Supported types: CHAR,
VARCHAR, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DATE, TIME, DECIMAL (precision
<= 18, although the documentation omits it) and TIMESTAMP(_LTZ) (precision <= 6).

Answers follow ``RangeBitmap`` in release-2.0.0, always as a bitmap result:

* with cardinality 0 (no rows, or only nulls) every comparison, ``IN``/``NOT IN`` and
  ``IS NOT NULL`` give an empty bitmap, and ``IS NULL`` gives the rows ``{0, rowCount - 1}``
  only (2.0.0 builds it with ``bitmapOf(0, rid - 1)``; later versions use the full range);
* otherwise min/max short-cut first, then the dictionary code and the bit-slice index;
  ``<>``/``NOT IN``/``<=``/``<`` are complements within the non-null rows.

Where Java would throw instead of answering (a null literal when cardinality > 0) paimon-lens
answers REMAIN, as it does for a literal it cannot convert to the column type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from pyroaring import BitMap

from ..errors import CorruptFileError
from ..io.byte_reader import ByteReader
from ..metadata.options import parse_memory_size
from ..types import DataType
from .bit_slice import BitSliceIndexBitmap, max_code, read_bit_slice, write_bit_slice_codes
from .grouping import CodedRows, first_occurrence_codes, write_batch
from .index_reader import FileIndexReader
from .range_bitmap_dictionary import (
    ChunkedDictionary,
    Key,
    KeyCodec,
    key_codec,
    read_dictionary,
    write_dictionary_bulk,
)
from .result import REMAIN, BitmapIndexResult, FileIndexResult
from .summary import IndexSummary

VERSION = 1
INDEX_TYPE = "range-bitmap"

_NULLS_FIRST = {"NULLS FIRST", "NULLS_FIRST", "FIRST"}
_NULLS_LAST = {"NULLS LAST", "NULLS_LAST", "LAST"}
_ASC = {"ASC", "ASCENDING"}
_DESC = {"DESC", "DESCENDING"}


@dataclass(frozen=True)
class RangeBitmapSummary(IndexSummary):
    """What one range-bitmap index holds: rows, nulls, distinct values and range, and its byte split
    into header, dictionary (chunks of keys) and the bit-slice index of the dictionary codes."""

    index_type: ClassVar[str] = INDEX_TYPE

    version: int
    row_count: int
    null_count: int
    cardinality: int
    min: Any
    max: Any
    dictionary_chunks: int
    dictionary_chunk_sizes: tuple[int, ...]
    slice_count: int
    header_bytes: int
    dictionary_bytes: int
    bsi_bytes: int
    total_bytes: int


@dataclass(frozen=True, eq=False)
class RangeBitmap:
    """A decoded range-bitmap index with Paimon's query operations (all return new BitMaps).

    ``min_key``/``max_key`` are sort keys (see :mod:`.range_bitmap_dictionary`); :attr:`min` and
    :attr:`max` give them as internal values. Byte counts are of the parts as stored.
    """

    data_type: DataType
    codec: KeyCodec
    version: int
    row_count: int
    cardinality: int
    min_key: Key | None
    max_key: Key | None
    header_length: int
    dictionary_length: int
    dictionary: ChunkedDictionary
    bsi: BitSliceIndexBitmap
    length: int

    # -- values ---------------------------------------------------------------------------------
    @property
    def min(self) -> Any:
        """Smallest non-null value (internal form), None when there is none."""
        return None if self.min_key is None else self.codec.to_value(self.min_key)

    @property
    def max(self) -> Any:
        """Largest non-null value (internal form), None when there is none."""
        return None if self.max_key is None else self.codec.to_value(self.max_key)

    def value_at(self, position: int) -> Any:
        """The value of one row (Java ``RangeBitmap.get``); None for a null row or a bad position."""
        if position < 0 or position >= self.row_count:
            return None
        code = self.bsi.get(position)
        if code is None:
            return None
        return self.codec.to_value(self.dictionary.key_of(code))

    # -- predicates on sort keys -----------------------------------------------------------------
    def _cmp(self, key: Key, other: Key | None) -> int:
        assert other is not None
        return (key > other) - (key < other)  # type: ignore[operator]

    def _not(self, bitmap: BitMap) -> BitMap:
        bitmap.flip_inplace(0, self.row_count)
        bitmap &= self.bsi.ebm
        return bitmap

    def is_not_null(self) -> BitMap:
        """Rows with a value."""
        return BitMap() if self.cardinality <= 0 else self.bsi.is_not_null()

    def is_null(self, found: BitMap | None = None) -> BitMap:
        """Null rows (within ``found``); the release-2.0.0 all-null quirk included."""
        if self.cardinality <= 0:
            return BitMap([0, self.row_count - 1]) if self.row_count > 0 else BitMap()
        if found is not None and not found:
            return BitMap(found)
        bitmap = self.is_not_null()
        bitmap.flip_inplace(0, self.row_count)
        if found is not None:
            bitmap &= found
        return bitmap

    def eq(self, key: Key) -> BitMap:
        """Rows equal to ``key``."""
        if self.cardinality <= 0:
            return BitMap()
        cmin, cmax = self._cmp(key, self.min_key), self._cmp(key, self.max_key)
        if cmin == 0 and cmax == 0:
            return self.is_not_null()
        if cmin < 0 or cmax > 0:
            return BitMap()
        code = self.dictionary.find(key)
        return BitMap() if code < 0 else self.bsi.eq(code)

    def neq(self, key: Key) -> BitMap:
        """Non-null rows not equal to ``key``."""
        if self.cardinality <= 0:
            return BitMap()
        return self._not(self.eq(key))

    def lte(self, key: Key) -> BitMap:
        """Rows ``<= key``."""
        if self.cardinality <= 0:
            return BitMap()
        cmin, cmax = self._cmp(key, self.min_key), self._cmp(key, self.max_key)
        if cmax >= 0:
            return self.is_not_null()
        if cmin < 0:
            return BitMap()
        return self._not(self.gt(key))

    def lt(self, key: Key) -> BitMap:
        """Rows ``< key``."""
        if self.cardinality <= 0:
            return BitMap()
        cmin, cmax = self._cmp(key, self.min_key), self._cmp(key, self.max_key)
        if cmax > 0:
            return self.is_not_null()
        if cmin <= 0:
            return BitMap()
        return self._not(self.gte(key))

    def gte(self, key: Key) -> BitMap:
        """Rows ``>= key``."""
        if self.cardinality <= 0:
            return BitMap()
        cmin, cmax = self._cmp(key, self.min_key), self._cmp(key, self.max_key)
        if cmin <= 0:
            return self.is_not_null()
        if cmax > 0:
            return BitMap()
        code = self.dictionary.find(key)
        return self.bsi.gte(-code - 1) if code < 0 else self.bsi.gte(code)

    def gt(self, key: Key) -> BitMap:
        """Rows ``> key``."""
        if self.cardinality <= 0:
            return BitMap()
        cmin, cmax = self._cmp(key, self.min_key), self._cmp(key, self.max_key)
        if cmin < 0:
            return self.is_not_null()
        if cmax >= 0:
            return BitMap()
        code = self.dictionary.find(key)
        return self.bsi.gte(-code - 1) if code < 0 else self.bsi.gt(code)

    def in_(self, keys: Sequence[Key]) -> BitMap:
        """Rows equal to any of ``keys``."""
        out = BitMap()
        if self.cardinality <= 0:
            return out
        for k in keys:
            out |= self.eq(k)
        return out

    def not_in(self, keys: Sequence[Key]) -> BitMap:
        """Non-null rows equal to none of ``keys``."""
        if self.cardinality <= 0:
            return BitMap()
        return self._not(self.in_(keys))

    # -- TopN ---------------------------------------------------------------------------------------
    def top_k(self, k: int, null_ordering: str, found: BitMap | None = None, strict: bool = True) -> BitMap:
        """Rows of the ``k`` largest values (Java ``RangeBitmap.topK``), nulls per ``null_ordering``."""
        return self._fill_nulls(k, null_ordering, found, lambda n, f: self.bsi.top_k(n, f, strict))

    def bottom_k(self, k: int, null_ordering: str, found: BitMap | None = None, strict: bool = True) -> BitMap:
        """Rows of the ``k`` smallest values (Java ``RangeBitmap.bottomK``)."""
        return self._fill_nulls(k, null_ordering, found, lambda n, f: self.bsi.bottom_k(n, f, strict))

    def _fill_nulls(self, k: int, null_ordering: str, found: BitMap | None,
                    fn: Callable[[int, BitMap | None], BitMap]) -> BitMap:
        nulls_last = _null_ordering(null_ordering)
        if k < 0:
            raise ValueError(f"the limit of a TopN can not be negative, k={k}")
        if self.cardinality <= 0:
            return BitMap([0, self.row_count - 1]) if self.row_count > 0 else BitMap()
        if nulls_last:
            bitmap = fn(k, found)
            n = len(bitmap)
            if n >= k:
                return bitmap
            bitmap |= _limit(self.is_null(found), k - n)
        else:
            bitmap = self.is_null(found)
            n = len(bitmap)
            if n >= k:
                return _limit(bitmap, k)
            bitmap |= fn(k - n, found)
        return bitmap

    # -- summary --------------------------------------------------------------------------------------
    def summary(self) -> RangeBitmapSummary:
        """What the index holds, for a ``file_indexes()`` frame (values in internal form)."""
        d = self.dictionary
        return RangeBitmapSummary(
            version=self.version,
            row_count=self.row_count,
            null_count=self.row_count - len(self.bsi.ebm),
            cardinality=self.cardinality,
            min=self.min,
            max=self.max,
            dictionary_chunks=d.chunk_count,
            dictionary_chunk_sizes=tuple(c.key_count for c in d.chunks),
            slice_count=self.bsi.slice_count,
            header_bytes=4 + self.header_length,
            dictionary_bytes=self.dictionary_length,
            bsi_bytes=self.bsi.length,
            total_bytes=self.length,
        )


def _limit(bitmap: BitMap, k: int) -> BitMap:
    """The ``k`` smallest positions (Java ``RoaringBitmap.limit``)."""
    if k >= len(bitmap):
        return BitMap(bitmap)
    out: BitMap = bitmap[:k]
    return out


def _null_ordering(value: str) -> bool:
    """True for NULLS LAST, False for NULLS FIRST."""
    v = value.strip().upper()
    if v in _NULLS_LAST:
        return True
    if v in _NULLS_FIRST:
        return False
    raise ValueError(f"null ordering must be NULLS FIRST or NULLS LAST, not {value!r}")


def _direction(value: str) -> bool:
    """True for ascending, False for descending."""
    v = value.strip().upper()
    if v in _ASC:
        return True
    if v in _DESC:
        return False
    raise ValueError(f"sort direction must be ASC or DESC, not {value!r}")


# ---- reading ------------------------------------------------------------------------------------

def read_range_bitmap(data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> RangeBitmap:
    """Decode and validate one column's range-bitmap index bytes.

    Raises :class:`~paimon_lens.errors.CorruptFileError` (path, offset, field) for bytes that do
    not form a valid index, and :class:`~paimon_lens.errors.UnsupportedError` for a column type
    range-bitmap does not support.
    """
    codec = key_codec(data_type)
    r = ByteReader(data, path, base)
    header_length = r.i32("header_length")
    if header_length < 13 or header_length > len(r) - 4:
        raise r.error("header_length", f"13..{len(r) - 4}", header_length, at=0,
                      detail=None if header_length < 13 else "truncated")
    h = r.sub(4, header_length, "header")
    version = h.u8("version")
    if version != VERSION:
        raise h.error("version", VERSION, version, at=0)
    row_count = h.i32("row_count")
    if row_count < 0:
        raise h.error("row_count", "a non-negative count", row_count, at=h.pos - 4)
    cardinality = h.i32("cardinality")
    if cardinality < 0 or cardinality > row_count:
        raise h.error("cardinality", f"0..{row_count}", cardinality, at=h.pos - 4)
    min_key = max_key = None
    min_at = max_at = h.base + h.pos
    if cardinality > 0:
        min_key = codec.decode(h, "min")
        max_at = h.base + h.pos
        max_key = codec.decode(h, "max")
    at = h.pos
    dictionary_length = h.i32("dictionary_length")
    if h.remaining:
        raise h.error("header_length", header_length - h.remaining, header_length, at=-4,
                      detail="unexpected bytes after the header")
    dict_start = 4 + header_length
    if dictionary_length < 0 or dict_start + dictionary_length > len(r):
        raise h.error("dictionary_length", f"0..{len(r) - dict_start}", dictionary_length, at=at)
    dictionary = read_dictionary(r, dict_start, dictionary_length, codec, cardinality)
    if cardinality > 0:
        assert min_key is not None and max_key is not None
        keys = dictionary.keys
        if keys[0] != min_key:
            raise CorruptFileError(path, min_at, "min", codec.describe(keys[0]), codec.describe(min_key),
                                   detail="header min differs from the first dictionary key")
        if keys[-1] != max_key:
            raise CorruptFileError(path, max_at, "max", codec.describe(keys[-1]), codec.describe(max_key),
                                   detail="header max differs from the last dictionary key")
    bsi_start = dict_start + dictionary_length
    bsi = read_bit_slice(r, bsi_start, "bsi")
    ebm = bsi.ebm
    if ebm and ebm.max() >= row_count:
        raise CorruptFileError(path, base + bsi_start, "bsi.ebm", f"rows below {row_count}", ebm.max())
    if (cardinality == 0) != (not ebm):
        raise CorruptFileError(path, base + bsi_start, "bsi.ebm",
                               "rows exactly when cardinality > 0", f"{len(ebm)} rows, cardinality {cardinality}")
    top = max_code(bsi)
    if top is not None and top >= cardinality:
        raise CorruptFileError(path, base + bsi_start, "bsi.slices", f"codes below {cardinality}", top)
    return RangeBitmap(data_type, codec, version, row_count, cardinality, min_key, max_key, header_length,
                       dictionary_length, dictionary, bsi, bsi_start + bsi.length)


class RangeBitmapFileIndexReader(FileIndexReader):
    """Paimon 2.0's range-bitmap reader over one column's index bytes.

    Args:
        data_type: the column type.
        data: the index bytes of the column (what the container's entry points at).
        path: file the bytes come from, for error messages.
        base: offset of ``data[0]`` in that file.
    """

    def __init__(self, data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> None:
        self.data_type = data_type
        self.index = read_range_bitmap(data_type, data, path, base)

    def summary(self) -> RangeBitmapSummary:
        """See :meth:`RangeBitmap.summary`."""
        return self.index.summary()

    def _key(self, literal: Any) -> Key | None:
        if literal is None:
            return None
        try:
            return self.index.codec.from_value(literal)
        except (TypeError, ValueError, ArithmeticError):
            return None

    def _unary(self, literal: Any, op: Callable[[Key], BitMap]) -> FileIndexResult:
        if self.index.cardinality <= 0:
            return BitmapIndexResult(BitMap())
        key = self._key(literal)
        return REMAIN if key is None else BitmapIndexResult(op(key))

    def _keys(self, literals: Sequence[Any]) -> list[Key] | None:
        keys = [self._key(lit) for lit in literals]
        return None if any(k is None for k in keys) else [k for k in keys if k is not None]

    def visit_is_null(self) -> FileIndexResult:
        """Null rows."""
        return BitmapIndexResult(self.index.is_null())

    def visit_is_not_null(self) -> FileIndexResult:
        """Non-null rows."""
        return BitmapIndexResult(self.index.is_not_null())

    def visit_equal(self, literal: Any) -> FileIndexResult:
        """``= literal``."""
        return self._unary(literal, self.index.eq)

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        """``<> literal`` (non-null rows only)."""
        return self._unary(literal, self.index.neq)

    def visit_less_than(self, literal: Any) -> FileIndexResult:
        """``< literal``."""
        return self._unary(literal, self.index.lt)

    def visit_less_or_equal(self, literal: Any) -> FileIndexResult:
        """``<= literal``."""
        return self._unary(literal, self.index.lte)

    def visit_greater_than(self, literal: Any) -> FileIndexResult:
        """``> literal``."""
        return self._unary(literal, self.index.gt)

    def visit_greater_or_equal(self, literal: Any) -> FileIndexResult:
        """``>= literal``."""
        return self._unary(literal, self.index.gte)

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``IN (literals)``."""
        if self.index.cardinality <= 0:
            return BitmapIndexResult(BitMap())
        keys = self._keys(literals)
        return REMAIN if keys is None else BitmapIndexResult(self.index.in_(keys))

    def visit_not_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``NOT IN (literals)`` (non-null rows only)."""
        if self.index.cardinality <= 0:
            return BitmapIndexResult(BitMap())
        keys = self._keys(literals)
        return REMAIN if keys is None else BitmapIndexResult(self.index.not_in(keys))

    def visit_between(self, low: Any, high: Any) -> FileIndexResult:
        """``BETWEEN low AND high``: ``>= low`` and ``<= high``."""
        if self.index.cardinality <= 0:
            return BitmapIndexResult(BitMap())
        lo, hi = self._key(low), self._key(high)
        if lo is None or hi is None:
            return REMAIN
        return BitmapIndexResult(self.index.gte(lo) & self.index.lte(hi))

    def visit_top_n(self, direction: str, null_ordering: str, limit: int,
                    result: FileIndexResult = REMAIN, strict: bool = True) -> FileIndexResult:
        """Java ``visitTopN``: the rows of the first ``limit`` in ``ORDER BY col direction nulls``.

        ``result`` is the selection so far (a bitmap result restricts the candidates); ``strict``
        is Java's "the sort has a single key" flag that trims ties to exactly ``limit`` rows.
        """
        found = result.bitmap if isinstance(result, BitmapIndexResult) else None
        if _direction(direction):
            return BitmapIndexResult(self.index.bottom_k(limit, null_ordering, found, strict))
        return BitmapIndexResult(self.index.top_k(limit, null_ordering, found, strict))

    def top_n(self, direction: str, null_ordering: str, limit: int) -> list[int]:
        """Positions for ``FileIndexPredicate.evaluateTopN(TopN(col, direction, nulls, limit), REMAIN)``."""
        res = self.visit_top_n(direction, null_ordering, limit)
        assert isinstance(res, BitmapIndexResult)
        return res.positions()


# ---- writing ------------------------------------------------------------------------------------

class RangeBitmapWriter:
    """Builds range-bitmap bytes, byte-identical to Paimon's writer (:meth:`write` row by row or
    :meth:`write_many` in bulk: the same bytes).

    Either way the rows are kept as dictionary codes
    (:class:`~paimon_lens.formats.grouping.CodedRows`); :meth:`serialized_bytes` writes the
    dictionary and the bit-slice index from them vectorised
    (:func:`~.range_bitmap_dictionary.write_dictionary_bulk`,
    :func:`~.bit_slice.write_bit_slice_codes`).

    Args:
        data_type: the column type.
        chunk_size: dictionary chunk size in bytes, or a Paimon memory size string (``"16kb"``);
            default: Paimon's (16 KB, or 0 bytes for BOOLEAN, TINYINT, SMALLINT).
    """

    def __init__(self, data_type: DataType, chunk_size: int | str | None = None) -> None:
        self.codec = key_codec(data_type)
        if chunk_size is None:
            chunk_size = self.codec.default_chunk_size
        self.chunk_size = parse_memory_size(chunk_size) if isinstance(chunk_size, str) else int(chunk_size)
        if self.chunk_size < 0:
            raise ValueError(f"chunk size must be non-negative, not {chunk_size}")
        self._coded = CodedRows()
        self._bulk: _BulkRows | None = None  # the rows' sorted keys and bit slices, until more rows come
        self._check_fit = self.codec.kind in _INT_RANGES
        self._string_keys = self.codec.kind == "str"

    @property
    def row_count(self) -> int:
        """Rows written so far."""
        return self._coded.rows

    def write_many(self, values: Iterable[Any]) -> None:
        """Append many rows: the same bytes as :meth:`write` of each value, much faster.

        The values are grouped at once (distinct keys in a dict, each row's key code in a numpy
        array). A value :meth:`write` would reject makes this write them one at a time (the same
        error after the same rows).
        """
        def group(vals: list[Any]) -> bool:
            self._coded.add_grouped(*_group_keys(self.codec, vals))
            return True

        write_batch(values, group, self.write)
        self._bulk = None

    def write(self, value: Any) -> None:
        """Append one row's value (None for null)."""
        key = None
        if value is not None:
            key = self.codec.from_value(value)
            # range check: encode() fails for integers outside the key width and strings of 2 GiB
            # or more; float and boolean keys always fit
            if self._check_fit or (self._string_keys and len(key) > _MAX_I32):  # type: ignore[arg-type]
                self.codec.encode(key)
        self._coded.add(key)
        self._bulk = None

    def serialized_bytes(self) -> bytes:
        """The index bytes."""
        bulk = self._bulk
        if bulk is None:
            bulk = self._bulk = _BulkRows(cast(list[Key], self._coded.keys()), self._coded.codes())
        keys = bulk.sorted_keys()
        header = bytes([VERSION]) + _i32(self.row_count) + _i32(len(keys))
        if keys:
            header += self.codec.encode(keys[0]) + self.codec.encode(keys[-1])
        dictionary = write_dictionary_bulk(keys, self.codec, self.chunk_size)
        header += _i32(len(dictionary))
        return _i32(len(header)) + header + dictionary + bulk.bit_slice()


class _BulkRows:
    """The rows of a :class:`RangeBitmapWriter`: distinct keys and each row's key code.

    ``keys`` are the distinct non-null sort keys in first-occurrence order, ``codes[row]`` the
    index of the row's key (-1 for a null). The sorted keys and the bit-slice index do not depend
    on the chunk size: they are computed once and shared by copies of the writer.
    """

    __slots__ = ("_bsi", "_sorted", "codes", "keys")

    def __init__(self, keys: list[Key], codes: Any) -> None:
        self.keys = keys
        self.codes = codes
        self._sorted: tuple[list[Key], Any] | None = None
        self._bsi: bytes | None = None

    def _sort(self) -> tuple[list[Key], Any]:
        import numpy as np

        if self._sorted is None:
            keys = self.keys
            if keys and isinstance(keys[0], bytes):
                order = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
            else:
                order = np.argsort(np.array(keys, dtype=np.int64), kind="stable")
            self._sorted = ([keys[i] for i in order.tolist()], order)
        return self._sorted

    def sorted_keys(self) -> list[Key]:
        """The distinct keys in Java's order (the dictionary; code = position)."""
        return self._sort()[0]

    def bit_slice(self) -> bytes:
        """The bit-slice index of the rows' dictionary codes."""
        import numpy as np

        if self._bsi is None:
            order = self._sort()[1]
            rank = np.empty(len(order) + 1, dtype=np.int64)
            rank[order] = np.arange(len(order))
            rank[-1] = -1  # codes of -1 (nulls) index the last element
            self._bsi = write_bit_slice_codes(rank[self.codes], len(order))
        return self._bsi


_PLAIN_INTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME"})
_MAX_I32 = (1 << 31) - 1
_INT_RANGES = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}


def _group_keys(codec: KeyCodec, values: list[Any]) -> tuple[list[Key], Any]:
    """The distinct sort keys of ``values`` in first-occurrence order, and each row's key code (-1: null).

    Raises what :meth:`RangeBitmapWriter.write` raises for a value it rejects (TypeError,
    ValueError, ArithmeticError) or OverflowError. Plain ``str`` and ``int`` values are grouped by
    value first (only the distinct ones are converted); anything else key by key.
    """

    kinds = set(map(type, values))
    kinds.discard(type(None))
    k = codec.kind
    by_value = (k == "str" and kinds <= {str}) or (k in _INT_RANGES and codec.data_type.root in _PLAIN_INTS
                                                   and kinds <= {int})
    from_value = codec.from_value
    distinct, codes = first_occurrence_codes(
        values if by_value else (None if v is None else from_value(v) for v in values))
    if k == "str":
        if by_value:
            distinct = [v.encode("utf-8", "surrogatepass") for v in distinct]
        return distinct, codes
    if distinct:
        lo, hi = min(distinct), max(distinct)
        bits = _INT_RANGES.get(k, 64)
        if lo < -(1 << (bits - 1)) or hi >= 1 << (bits - 1):  # encode() would fail on some key
            raise ValueError(f"a value does not fit {codec.data_type}")
    return distinct, codes


def write_range_bitmap(data_type: DataType, values: Iterable[Any], chunk_size: int | str | None = None) -> bytes:
    """Range-bitmap bytes for ``values`` (internal form, None = null), one per row."""
    w = RangeBitmapWriter(data_type, chunk_size)
    w.write_many(values)
    return w.serialized_bytes()


def _i32(v: int) -> bytes:
    return v.to_bytes(4, "big", signed=True)
