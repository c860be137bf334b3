"""The legacy ``bsi`` file index (``BitSliceIndexBitmapFileIndex``, ``BitSliceIndexRoaringBitmap``).

Values are mapped to a signed 64-bit long (integers, DATE/TIME as int, DECIMAL as the unscaled
long, TIMESTAMP as epoch millis for precision <= 3 else micros). Non-negative values go to a
"positive" bit-slice index, negative ones to a "negative" one as their absolute value.

Layout (big-endian; bitmaps are portable Roaring serialisations **without length prefixes**, so
each one's end is found from its own header)::

    version:u8 (= 1) | rowCount:i32
    hasPositive:bool | [BSI]
    hasNegative:bool | [BSI]

    BSI:  version:u8 (= 1) | min:i64 | max:i64 | ebm (roaring) | sliceCount:i32
          | sliceCount x slice (roaring)

A stored value is ``min + sum(2^i for slices i holding the row)``; the EBM holds the rows with a
value. Paimon's writer always stores ``min = 0`` (its running minimum starts at 0) and
``bitLength(max - min)`` slices; ``Long.MIN_VALUE`` cannot be written (its absolute value
overflows), and the reader treats such a literal specially (``=``/``<``/``<=`` match nothing,
``>``/``>=`` match every non-null row).

Answers follow release-2.0.0: ``=`` is ``IN`` of one literal, ``<>``/``NOT IN`` are complements
within the non-null rows, ``IS NULL`` flips the non-null rows over ``[0, rowCount)``,
``BETWEEN`` is ``>= low`` AND ``<= high``; each BSI first short-cuts on its stored min/max, then
runs O'Neil's bit-sliced comparison on ``literal - min``. A null literal (Java would throw) or one
that cannot be mapped to a long answers REMAIN.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pyroaring import BitMap, FrozenBitMap

from ..errors import CorruptFileError, UnsupportedError
from ..io.byte_reader import ByteReader
from ..types import DataType
from . import roaring
from .bit_slice import rows_bitmap, serialize_bitmap
from .grouping import write_batch
from .index_reader import FileIndexReader
from .range_bitmap_dictionary import INT64_MAX, INT64_MIN, decimal_unscaled, long_to_value, timestamp_long
from .result import REMAIN, BitmapIndexResult, FileIndexResult
from .summary import IndexSummary

VERSION = 1
INDEX_TYPE = "bsi"
MAX_SLICES = 64

_SUPPORTED = frozenset({"DECIMAL", "TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME",
                        "TIMESTAMP", "TIMESTAMP_LTZ"})


def _wrap64(v: int) -> int:
    return ((v + (1 << 63)) % (1 << 64)) - (1 << 63)


def check_type(dtype: DataType) -> None:
    """Raise UnsupportedError unless Paimon's bsi index accepts ``dtype``."""
    if dtype.root not in _SUPPORTED:
        raise UnsupportedError(f"{dtype} type is not supported by the bsi index")


def to_long(dtype: DataType, value: Any) -> int:
    """Paimon's bsi value mapper: internal value -> long. TypeError/ValueError when impossible."""
    r = dtype.root
    if r == "DECIMAL":
        v = decimal_unscaled(value, dtype.scale or 0)
    elif dtype.is_timestamp:
        v = timestamp_long(value, 6 if dtype.precision is None else dtype.precision)
    elif r == "DATE" and isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        v = (value - _dt.date(1970, 1, 1)).days
    elif isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not a value of {dtype}: {value!r}")
    else:
        v = value
    if v < INT64_MIN or v > INT64_MAX:
        raise ValueError(f"{value!r} does not fit in a 64-bit long")
    return v


@dataclass(frozen=True, eq=False)
class BsiHalf:
    """One decoded ``BitSliceIndexRoaringBitmap`` (the positive or the negative part).

    An absent part (``present`` False) is Java's ``EMPTY``: min 0, max 0, no rows, no slices.
    ``offset``/``length`` locate it in the file (``base`` included).
    """

    present: bool
    offset: int
    length: int
    version: int
    min: int
    max: int
    ebm: FrozenBitMap
    slices: tuple[FrozenBitMap, ...]

    @property
    def slice_count(self) -> int:
        """Number of bit slices."""
        return len(self.slices)

    def is_not_null(self) -> BitMap:
        """Rows stored in this part."""
        return BitMap(self.ebm)

    def value_bounds(self) -> tuple[int, int] | None:
        """The smallest and largest stored values (``min`` + slice values), None if empty."""
        if not self.ebm:
            return None
        lo = hi = 0
        e_lo, e_hi = BitMap(self.ebm), BitMap(self.ebm)
        for i in range(len(self.slices) - 1, -1, -1):
            s = self.slices[i]
            zero = e_lo - s
            if zero:
                e_lo = zero
            else:
                lo |= 1 << i
            one = e_hi & s
            if one:
                e_hi = one
                hi |= 1 << i
        return _wrap64(self.min + _signed64(lo)), _wrap64(self.min + _signed64(hi))

    def compare(self, op: str, predicate: int) -> BitMap:
        """Rows whose value ``op`` ``predicate`` (``op`` in ``EQ NEQ LT LTE GT GTE``)."""
        quick = self._min_max(op, predicate)
        if quick is not None:
            return quick
        return self._oneil(op, _wrap64(predicate - self.min))

    def eq(self, v: int) -> BitMap:
        """Rows equal to ``v``."""
        return self.compare("EQ", v)

    def lt(self, v: int) -> BitMap:
        """Rows below ``v``."""
        return self.compare("LT", v)

    def lte(self, v: int) -> BitMap:
        """Rows at most ``v``."""
        return self.compare("LTE", v)

    def gt(self, v: int) -> BitMap:
        """Rows above ``v``."""
        return self.compare("GT", v)

    def gte(self, v: int) -> BitMap:
        """Rows at least ``v``."""
        return self.compare("GTE", v)

    def _min_max(self, op: str, p: int) -> BitMap | None:
        lo, hi = self.min, self.max
        every, none = (lambda: BitMap(self.ebm)), BitMap
        if op == "EQ":
            if lo == hi == p:
                return every()
            if p < lo or p > hi:
                return none()
        elif op == "NEQ":
            if lo == hi == p:
                return none()
            if p < lo or p > hi:
                return every()
        elif op == "GTE":
            if p <= lo:
                return every()
            if p > hi:
                return none()
        elif op == "GT":
            if p < lo:
                return every()
            if p >= hi:
                return none()
        elif op == "LTE":
            if p >= hi:
                return every()
            if p < lo:
                return none()
        elif op == "LT":
            if p > hi:
                return every()
            if p <= lo:
                return none()
        else:
            raise ValueError(f"not a bsi operation: {op}")
        return None

    def _oneil(self, op: str, p: int) -> BitMap:
        gt, lt, eq = BitMap(), BitMap(), BitMap(self.ebm)
        for i in range(len(self.slices) - 1, -1, -1):
            s = self.slices[i]
            if (p >> i) & 1:
                lt |= eq - s
                eq &= s
            else:
                gt |= eq & s
                eq -= s
        ebm = self.ebm
        eq &= ebm
        if op == "EQ":
            return eq
        if op == "NEQ":
            return BitMap(ebm - eq)
        if op == "GT":
            return gt & ebm
        if op == "LT":
            return lt & ebm
        if op == "LTE":
            return (lt | eq) & ebm
        return (gt | eq) & ebm


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


_EMPTY_EBM = FrozenBitMap()


def _empty_half() -> BsiHalf:
    return BsiHalf(False, -1, 0, VERSION, 0, 0, _EMPTY_EBM, ())


@dataclass(frozen=True, eq=False)
class BsiIndex:
    """A decoded bsi index: row count and the positive and negative parts."""

    data_type: DataType
    version: int
    row_count: int
    positive: BsiHalf
    negative: BsiHalf
    length: int

    def is_not_null(self) -> BitMap:
        """Rows with a value."""
        return BitMap(self.positive.ebm | self.negative.ebm)

    def value_bounds(self) -> tuple[int, int] | None:
        """Smallest and largest stored longs, None when every row is null."""
        neg, pos = self.negative.value_bounds(), self.positive.value_bounds()
        if neg is None and pos is None:
            return None
        if neg is not None:
            lo = -neg[1]
            hi = pos[1] if pos is not None else -neg[0]
        else:
            assert pos is not None
            lo, hi = pos
        return lo, hi

    def summary(self) -> BsiSummary:
        """What the index holds, for a ``file_indexes()`` frame (min/max as internal values)."""
        bounds = self.value_bounds()
        dt = self.data_type
        return BsiSummary(
            version=self.version,
            row_count=self.row_count,
            null_count=self.row_count - len(self.positive.ebm | self.negative.ebm),
            min=None if bounds is None else long_to_value(dt, bounds[0]),
            max=None if bounds is None else long_to_value(dt, bounds[1]),
            positive_rows=len(self.positive.ebm),
            negative_rows=len(self.negative.ebm),
            positive_slices=self.positive.slice_count,
            negative_slices=self.negative.slice_count,
            positive_bytes=self.positive.length,
            negative_bytes=self.negative.length,
            total_bytes=self.length,
        )


@dataclass(frozen=True)
class BsiSummary(IndexSummary):
    """What one bsi index holds: rows, nulls, the value range, and each half's rows, slices and bytes."""

    index_type: ClassVar[str] = INDEX_TYPE

    version: int
    row_count: int
    null_count: int
    min: Any
    max: Any
    positive_rows: int
    negative_rows: int
    positive_slices: int
    negative_slices: int
    positive_bytes: int
    negative_bytes: int
    total_bytes: int


def _read_half(r: ByteReader, name: str, row_count: int) -> BsiHalf:
    start = r.pos
    version = r.u8(name + ".version")
    if version != VERSION:
        raise r.error(name + ".version", VERSION, version, at=start)
    at = r.pos
    lo = r.i64(name + ".min")
    hi = r.i64(name + ".max")
    if lo < 0 or lo > hi:
        raise r.error(name + ".min", f"0..{hi} (non-negative, at most max)", lo, at=at)
    ebm, n = roaring.deserialize(r, r.pos, None, name + ".ebm")
    if ebm and ebm.max() >= row_count:
        raise r.error(name + ".ebm", f"rows below {row_count}", ebm.max())
    r.seek(r.pos + n)
    at = r.pos
    count = r.i32(name + ".slice_count")
    if count < 0 or count > MAX_SLICES:
        raise r.error(name + ".slice_count", f"0..{MAX_SLICES}", count, at=at)
    r.check_count(count, 8, name + ".slice_count")
    slices: list[FrozenBitMap] = []
    for i in range(count):
        at = r.pos
        bm, n = roaring.deserialize(r, at, None, f"{name}.slice[{i}]")
        if not bm.issubset(ebm):
            raise r.error(f"{name}.slice[{i}]", "a subset of the existence bitmap", "rows without a value", at=at)
        slices.append(FrozenBitMap(bm))
        r.seek(at + n)
    half = BsiHalf(True, r.base + start, r.pos - start, version, lo, hi, FrozenBitMap(ebm), tuple(slices))
    bounds = half.value_bounds()
    if bounds is not None and not (lo <= bounds[0] <= bounds[1] <= hi):
        raise r.error(name + ".slices", f"values in [{lo}, {hi}]", f"[{bounds[0]}, {bounds[1]}]", at=start,
                      detail="slices hold a value outside the stored min/max")
    return half


def read_bsi(data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> BsiIndex:
    """Decode and validate one column's bsi index bytes.

    Raises :class:`~paimon_lens.errors.CorruptFileError` for invalid bytes and
    :class:`~paimon_lens.errors.UnsupportedError` for a type the bsi index does not support.
    """
    check_type(data_type)
    r = ByteReader(data, path, base)
    version = r.u8("version")
    if version != VERSION:
        raise r.error("version", VERSION, version, at=0)
    row_count = r.i32("row_count")
    if row_count < 0:
        raise r.error("row_count", "a non-negative count", row_count, at=1)
    positive = _read_half(r, "positive", row_count) if r.boolean("has_positive") else _empty_half()
    negative = _read_half(r, "negative", row_count) if r.boolean("has_negative") else _empty_half()
    if positive.ebm & negative.ebm:
        raise CorruptFileError(path, negative.offset, "negative.ebm",
                               "rows disjoint from the positive part", len(positive.ebm & negative.ebm))
    return BsiIndex(data_type, version, row_count, positive, negative, r.pos)


class BsiFileIndexReader(FileIndexReader):
    """Paimon 2.0's bsi reader over one column's index bytes.

    Args:
        data_type: the column type.
        data: the index bytes of the column.
        path: file the bytes come from, for error messages.
        base: offset of ``data[0]`` in that file.
    """

    def __init__(self, data_type: DataType, data: bytes, path: str | None = None, base: int = 0) -> None:
        self.data_type = data_type
        self.index = read_bsi(data_type, data, path, base)

    def summary(self) -> BsiSummary:
        """See :meth:`BsiIndex.summary`."""
        return self.index.summary()

    def _long(self, literal: Any) -> int | None:
        if literal is None:
            return None
        try:
            return to_long(self.data_type, literal)
        except (TypeError, ValueError, ArithmeticError):
            return None

    def _eq_any(self, values: Sequence[int]) -> BitMap:
        out = BitMap()
        pos, neg = self.index.positive, self.index.negative
        for v in values:
            if v == INT64_MIN:
                continue
            out |= neg.eq(-v) if v < 0 else pos.eq(v)
        return out

    def _longs(self, literals: Sequence[Any]) -> list[int] | None:
        vals = [self._long(lit) for lit in literals]
        return None if any(v is None for v in vals) else [v for v in vals if v is not None]

    def visit_is_null(self) -> FileIndexResult:
        """Rows of ``[0, rowCount)`` without a value."""
        bm = self.index.is_not_null()
        bm.flip_inplace(0, self.index.row_count)
        return BitmapIndexResult(bm)

    def visit_is_not_null(self) -> FileIndexResult:
        """Rows with a value."""
        return BitmapIndexResult(self.index.is_not_null())

    def visit_equal(self, literal: Any) -> FileIndexResult:
        """``= literal`` (``IN`` of one literal)."""
        return self.visit_in([literal])

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        """``<> literal`` (``NOT IN`` of one literal)."""
        return self.visit_not_in([literal])

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``IN (literals)``."""
        vals = self._longs(literals)
        return REMAIN if vals is None else BitmapIndexResult(self._eq_any(vals))

    def visit_not_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``NOT IN (literals)``: non-null rows minus the ``IN`` rows."""
        vals = self._longs(literals)
        if vals is None:
            return REMAIN
        return BitmapIndexResult(self.index.is_not_null() - self._eq_any(vals))

    def _range(self, literal: Any, op: str) -> BitMap | None:
        v = self._long(literal)
        if v is None:
            return None
        pos, neg = self.index.positive, self.index.negative
        if op == "LT":
            if v == INT64_MIN:
                return BitMap()
            return neg.gt(-v) if v < 0 else pos.lt(v) | neg.ebm
        if op == "LTE":
            if v == INT64_MIN:
                return BitMap()
            return neg.gte(-v) if v < 0 else pos.lte(v) | neg.ebm
        if op == "GT":
            if v == INT64_MIN:
                return self.index.is_not_null()
            return BitMap(pos.ebm | neg.lt(-v)) if v < 0 else pos.gt(v)
        if v == INT64_MIN:
            return self.index.is_not_null()
        return BitMap(pos.ebm | neg.lte(-v)) if v < 0 else pos.gte(v)

    def _range_result(self, literal: Any, op: str) -> FileIndexResult:
        bm = self._range(literal, op)
        return REMAIN if bm is None else BitmapIndexResult(bm)

    def visit_less_than(self, literal: Any) -> FileIndexResult:
        """``< literal``."""
        return self._range_result(literal, "LT")

    def visit_less_or_equal(self, literal: Any) -> FileIndexResult:
        """``<= literal``."""
        return self._range_result(literal, "LTE")

    def visit_greater_than(self, literal: Any) -> FileIndexResult:
        """``> literal``."""
        return self._range_result(literal, "GT")

    def visit_greater_or_equal(self, literal: Any) -> FileIndexResult:
        """``>= literal``."""
        return self._range_result(literal, "GTE")

    def visit_between(self, low: Any, high: Any) -> FileIndexResult:
        """``BETWEEN low AND high``."""
        lo, hi = self._range(low, "GTE"), self._range(high, "LTE")
        if lo is None or hi is None:
            return REMAIN
        return BitmapIndexResult(lo & hi)


# ---- writing ------------------------------------------------------------------------------------

class BsiWriter:
    """Builds bsi bytes, byte-identical to Paimon's writer (:meth:`write` row by row or
    :meth:`write_many` in bulk: the same bytes).

    Either way every row's long and whether it is non-null are kept (numpy arrays, a batch at a
    time); :meth:`serialized_bytes` builds every slice from them in one vectorised pass.
    """

    def __init__(self, data_type: DataType) -> None:
        check_type(data_type)
        self.data_type = data_type
        self._batches: list[tuple[Any, Any]] = []  # (longs, non-null mask) per write_many batch
        self._pending: list[int | None] = []  # rows written one at a time since the last batch

    def write_many(self, values: Iterable[Any]) -> None:
        """Append many rows: the same bytes as :meth:`write` of each value, much faster.

        The longs are converted at once (plain ``int`` columns in one numpy call). A value
        :meth:`write` would reject makes this write them one at a time (the same error after the
        same rows).
        """
        write_batch(values, self._add_longs, self.write)

    def _add_longs(self, vals: list[Any]) -> bool:
        """Append ``vals`` as one batch; False if one is ``Long.MIN_VALUE`` (:meth:`write` raises).

        Raises what :meth:`write` raises for a value it rejects.
        """
        import numpy as np

        kinds = set(map(type, vals))
        kinds.discard(type(None))
        present = [v for v in vals if v is not None]
        if not (kinds <= {int} and self.data_type.root in _PLAIN_INTS):
            present = [to_long(self.data_type, v) for v in present]
        longs = np.array(present, dtype=np.int64)
        if (longs == INT64_MIN).any():
            return False
        mask = np.fromiter((v is not None for v in vals), dtype=bool, count=len(vals))
        full = np.zeros(len(vals), dtype=np.int64)
        full[mask] = longs
        self._flush()
        self._batches.append((full, mask))
        return True

    def _flush(self) -> None:
        if self._pending:
            import numpy as np

            rows = self._pending
            mask = np.array([v is not None for v in rows], dtype=bool)
            self._batches.append((np.array([0 if v is None else v for v in rows], dtype=np.int64), mask))
            self._pending = []

    def write(self, value: Any) -> None:
        """Append one row's value (None for null). ValueError for ``Long.MIN_VALUE`` (Java fails too)."""
        if value is None:
            self._pending.append(None)
            return
        v = to_long(self.data_type, value)
        if v == INT64_MIN:
            raise ValueError("the bsi index cannot store Long.MIN_VALUE")
        self._pending.append(v)

    def serialized_bytes(self) -> bytes:
        """The index bytes."""
        import numpy as np

        self._flush()
        if len(self._batches) != 1:
            longs = np.concatenate([b[0] for b in self._batches]) if self._batches else np.zeros(0, dtype=np.int64)
            mask = np.concatenate([b[1] for b in self._batches]) if self._batches else np.zeros(0, dtype=bool)
            self._batches = [(longs, mask)]
        return _bulk_bytes(*self._batches[0])


_PLAIN_INTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME"})


def _bulk_bytes(longs: Any, mask: Any) -> bytes:
    """:meth:`BsiWriter.serialized_bytes` from every row's long and the non-null mask (numpy)."""
    import numpy as np

    out = bytearray([VERSION]) + len(longs).to_bytes(4, "big", signed=True)
    negative = longs < 0
    for rows in (np.flatnonzero(mask & ~negative), np.flatnonzero(mask & negative)):
        if len(rows):
            values = np.abs(longs[rows])
            out += b"\x01" + _serialize_half_rows(rows, values)
        else:
            out += b"\x00"
    return bytes(out)


def _serialize_half_rows(rows: Any, values: Any) -> bytes:
    """One half of the bsi (the non-negative values, or the negated negative ones): the existence
    bitmap and the bit slices, from sorted row positions and their values (numpy)."""
    hi = int(values.max())
    count = hi.bit_length()
    out = bytearray([VERSION]) + (0).to_bytes(8, "big", signed=True) + hi.to_bytes(8, "big", signed=True)
    out += serialize_bitmap(rows_bitmap(rows)) + count.to_bytes(4, "big", signed=True)
    for i in range(count):
        out += serialize_bitmap(rows_bitmap(rows[(values >> i) & 1 == 1]))
    return bytes(out)


def write_bsi(data_type: DataType, values: Iterable[Any]) -> bytes:
    """bsi bytes for ``values`` (internal form, None = null), one per row."""
    w = BsiWriter(data_type)
    w.write_many(values)
    return w.serialized_bytes()
