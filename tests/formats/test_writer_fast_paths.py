"""The writers' bulk paths (``write_many``) write exactly the bytes of their per-value paths.

Every writer keeps its per-value path (``write(v)`` then ``serialized_bytes()``), which the
fixture tests pin to Paimon's bytes; ``write_many`` (and ``write_bitmap_index`` /
``write_range_bitmap`` / ``write_bsi``, which now use it, so the fixture tests cover it too)
groups the values at once and lays the index out with numpy. These properties compare the two
for random columns of every supported type (nulls, NaN, -0.0, duplicates, empty input, non-ASCII
and unpaired-surrogate strings, values that fill many HashMap bins) under every option, and the
vectorised helpers against their one-by-one counterparts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from paimon_lens.advisor.whatif import IndexBuilder
from paimon_lens.formats.bit_slice import write_bit_slice, write_bit_slice_codes
from paimon_lens.formats.bitmap import BitmapIndexWriter, write_bitmap_index
from paimon_lens.formats.bitmap_meta import (
    JavaHashMapOrder,
    binary_string_hash,
    binary_string_hashes,
    hashmap_order,
    java_hashes,
    key_codec,
)
from paimon_lens.formats.bloom import BloomFilterFileIndexWriter, hash_present, hash_value
from paimon_lens.formats.bsi import BsiWriter, write_bsi
from paimon_lens.formats.file_index_format import write_file_index
from paimon_lens.formats.range_bitmap import RangeBitmapWriter, write_range_bitmap
from paimon_lens.formats.range_bitmap_dictionary import key_codec as range_key_codec
from paimon_lens.formats.range_bitmap_dictionary import write_dictionary, write_dictionary_bulk
from paimon_lens.types import DataField, DataType, Timestamp, parse_type
from paimon_lens.writer.file_index import IndexSpec, build_container

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BITMAP_TYPES = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(6)",
                "FLOAT", "DOUBLE", "BOOLEAN", "STRING", "VARCHAR(10)"]
RANGE_TYPES = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(6)",
               "FLOAT", "DOUBLE", "BOOLEAN", "STRING", "DECIMAL(10, 2)"]
BSI_TYPES = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(6)",
             "DECIMAL(10, 2)"]
BLOOM_TYPES = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(6)",
               "FLOAT", "DOUBLE", "STRING", "BINARY(4)", "VARBINARY(8)"]

_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "DATE": 32, "TIME": 32, "BIGINT": 64}


def values_of(dtype: DataType) -> st.SearchStrategy[Any]:
    """Internal values of a type, edge cases included."""
    r = dtype.root
    if r in _BITS:
        b = _BITS[r]
        lo, hi = -(1 << (b - 1)), (1 << (b - 1)) - 1
        if r == "TIME":
            lo, hi = 0, 86_399_999
        # multiples of 2^16 and 2^20 collide in HashMap bins (tree bins, early resizes)
        return st.one_of(st.integers(lo, hi), st.integers(-3, 3),
                         st.integers(0, min(2000, hi >> 16)).map(lambda v: v << 16),
                         st.sampled_from([lo, hi, 0, -1]))
    if dtype.is_timestamp:
        return st.one_of(st.integers(-(2**50), 2**50).map(Timestamp.from_micros),
                         st.integers(-5, 5).map(Timestamp.from_millis))
    if r == "FLOAT":
        return st.one_of(st.floats(width=32), st.sampled_from([0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf]))
    if r == "DOUBLE":
        return st.one_of(st.floats(), st.sampled_from([0.0, -0.0, math.nan, -math.nan, 5e-324, math.inf]))
    if r == "BOOLEAN":
        return st.booleans()
    if r == "DECIMAL":
        return st.integers(-(10**10) + 1, 10**10 - 1).map(lambda v: Decimal(v).scaleb(-2))
    if r in ("BINARY", "VARBINARY"):
        return st.binary(max_size=8)
    assert dtype.is_string
    return st.one_of(st.text(max_size=8), st.sampled_from(["", "a", "ß", "😀", "\x00", "é", "?", "\ud800",
                                                           "\udfff", "a\ud800b", "x" * 300]))


@st.composite
def columns(draw: st.DrawFn, dtype: DataType, max_size: int = 300) -> list[Any]:
    """A column: nulls, repeats of a small pool (duplicates) and fresh values; sometimes empty."""
    value = values_of(dtype)
    pool = draw(st.lists(value, min_size=1, max_size=8))
    return draw(st.lists(st.one_of(st.none(), st.sampled_from(pool), value), max_size=max_size))


def outcome(fn: Callable[[], bytes]) -> bytes | type[BaseException]:
    """The bytes, or the type of the error raised."""
    try:
        return fn()
    except (ValueError, TypeError) as e:
        return type(e)


def per_value(make: Callable[[], Any], values: list[Any]) -> Callable[[], bytes]:
    """Build through ``write`` one value at a time."""
    def run() -> bytes:
        w = make()
        for v in values:
            w.write(v)
        data: bytes = w.serialized_bytes()
        return data
    return run


def bulk(make: Callable[[], Any], values: list[Any]) -> Callable[[], bytes]:
    """Build through ``write_many``."""
    def run() -> bytes:
        w = make()
        w.write_many(values)
        data: bytes = w.serialized_bytes()
        return data
    return run


# ---- writers: bulk == per value -----------------------------------------------------------------

@pytest.mark.parametrize("type_text", BITMAP_TYPES)
@SETTINGS
@given(data=st.data())
def test_bitmap_bulk_is_byte_identical(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    values = data.draw(columns(dtype), label="values")
    version = data.draw(st.sampled_from([1, 2]), label="version")
    block = data.draw(st.sampled_from([16 * 1024, 1024, 64, 24, 20, 8]), label="index_block_size")

    def make() -> BitmapIndexWriter:
        return BitmapIndexWriter(dtype, version, block)

    expected = outcome(per_value(make, values))
    assert outcome(bulk(make, values)) == expected
    assert outcome(lambda: write_bitmap_index(dtype, values, version, block)) == expected


@pytest.mark.parametrize("type_text", RANGE_TYPES)
@SETTINGS
@given(data=st.data())
def test_range_bitmap_bulk_is_byte_identical(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    values = data.draw(columns(dtype), label="values")
    chunk = data.draw(st.sampled_from([None, "0b", "3b", "4b", "9b", "64b", "1kb", "16kb"]), label="chunk_size")

    def make() -> RangeBitmapWriter:
        return RangeBitmapWriter(dtype, chunk)

    expected = outcome(per_value(make, values))
    assert outcome(bulk(make, values)) == expected
    assert outcome(lambda: write_range_bitmap(dtype, values, chunk)) == expected


@pytest.mark.parametrize("type_text", BSI_TYPES)
@SETTINGS
@given(data=st.data())
def test_bsi_bulk_is_byte_identical(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    values = data.draw(columns(dtype), label="values")
    expected = outcome(per_value(lambda: BsiWriter(dtype), values))
    assert outcome(bulk(lambda: BsiWriter(dtype), values)) == expected
    assert outcome(lambda: write_bsi(dtype, values)) == expected


@pytest.mark.parametrize("type_text", BLOOM_TYPES)
@SETTINGS
@given(data=st.data())
def test_bloom_bulk_is_byte_identical(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    values = data.draw(columns(dtype), label="values")
    items = data.draw(st.sampled_from([1, 10, 300, 1_000_000]), label="items")
    fpp = data.draw(st.sampled_from([0.5, 0.1, 0.01, 0.001]), label="fpp")

    def make() -> BloomFilterFileIndexWriter:
        return BloomFilterFileIndexWriter(dtype, items, fpp)

    assert bulk(make, values)() == per_value(make, values)()
    assert hash_present(dtype, values).tolist() == [hash_value(dtype, v) for v in values if v is not None]


@pytest.mark.parametrize("index_type", ["bitmap-v1", "bitmap-v2", "range-bitmap", "bsi"])
@settings(max_examples=40, deadline=None)
@given(first=st.lists(st.one_of(st.none(), st.integers(-40, 40)), max_size=60),
       middle=st.lists(st.one_of(st.none(), st.integers(-40, 40)), max_size=5),
       last=st.lists(st.one_of(st.none(), st.integers(-40, 40)), max_size=60))
def test_mixing_write_and_write_many(index_type: str, first: list[int | None], middle: list[int | None],
                                     last: list[int | None]) -> None:
    dtype = parse_type("INT")
    make: Callable[[], Any] = {
        "bitmap-v1": lambda: BitmapIndexWriter(dtype, 1), "bitmap-v2": lambda: BitmapIndexWriter(dtype, 2, 64),
        "range-bitmap": lambda: RangeBitmapWriter(dtype, "8b"), "bsi": lambda: BsiWriter(dtype),
    }[index_type]
    w = make()
    w.write_many(first)
    for v in middle:
        w.write(v)
    w.write_many(last)
    assert w.serialized_bytes() == per_value(make, first + middle + last)()


def test_bad_values_raise_what_write_raises_after_the_same_rows() -> None:
    tiny = parse_type("TINYINT")
    for make in (lambda: BitmapIndexWriter(tiny), lambda: RangeBitmapWriter(tiny)):
        with pytest.raises(ValueError):
            make().write_many([1, None, 300])
        with pytest.raises(TypeError):
            make().write_many([1, "x"])
        w = make()
        with pytest.raises(ValueError):
            w.write_many([1, 2, 300, 4])
        w.write(5)  # like write(): the rows before the bad one were written
        assert w.serialized_bytes() == per_value(make, [1, 2, 5])()
    with pytest.raises(ValueError):
        BsiWriter(parse_type("BIGINT")).write_many([1, -(2**63)])
    with pytest.raises(ValueError):
        BsiWriter(parse_type("BIGINT")).write_many([1, 2**63])
    with pytest.raises(TypeError):
        BsiWriter(parse_type("INT")).write_many([True])
    with pytest.raises(TypeError):
        BitmapIndexWriter(parse_type("INT")).write_many([1, True])
    with pytest.raises(ValueError):
        write_bitmap_index(parse_type("STRING"), ["a-long-string"], 2, "16b")


def test_large_columns_with_tree_bins_and_many_blocks() -> None:
    rng = np.random.default_rng(7)
    dtype = parse_type("BIGINT")
    # Long.hashCode(k << 44) = k << 12: 16 keys per bin, HashMap tree bins (the bulk path replays)
    colliding = (rng.integers(0, 3000, 20_000) << 44).tolist()
    spread = rng.integers(-(2**63), 2**63 - 1, 20_000).tolist()
    for values in (colliding, spread, [None] * 5 + spread[:100] + [None]):
        for version, block in ((1, 16384), (2, 16384), (2, 256)):
            make = partial(BitmapIndexWriter, dtype, version, block)
            assert bulk(make, values)() == per_value(make, values)()
        assert bulk(lambda: RangeBitmapWriter(dtype, "64b"), values)() == \
            per_value(lambda: RangeBitmapWriter(dtype, "64b"), values)()
        assert bulk(lambda: BsiWriter(dtype), values)() == per_value(lambda: BsiWriter(dtype), values)()


# ---- vectorised helpers == one by one ------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=40), st.binary(min_size=250, max_size=300)), max_size=40))
def test_binary_string_hashes(keys: list[bytes]) -> None:
    assert binary_string_hashes(keys).tolist() == [binary_string_hash(k) for k in keys]


@settings(max_examples=300, deadline=None)
@given(keys=st.one_of(st.lists(st.integers(0, 2**32 - 1), unique=True, max_size=400),
                      st.lists(st.integers(0, 4000).map(lambda v: v << 16), unique=True, max_size=400),
                      st.lists(st.integers(0, 300).map(lambda v: v * 64), unique=True, max_size=200)),
       trailing=st.booleans())
def test_hashmap_order_closed_form(keys: list[int], trailing: bool) -> None:
    order = JavaHashMapOrder()
    for k in keys:
        order.insert(k, k)
    if trailing:
        order.access()
    got = hashmap_order(np.array(keys, dtype=np.uint32), trailing)
    if got is not None:  # None: a bin reached 8 nodes, the caller replays JavaHashMapOrder
        assert [keys[i] for i in got.tolist()] == order.order()


@pytest.mark.parametrize("type_text", BITMAP_TYPES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_java_hashes(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    codec = key_codec(dtype)
    keys = list(dict.fromkeys(codec.literal_key(v) for v in data.draw(columns(dtype, 60)) if v is not None))
    assert java_hashes(codec, keys).tolist() == [codec.java_hash(k) for k in keys]


@pytest.mark.parametrize("type_text", RANGE_TYPES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_write_dictionary_bulk(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    codec = range_key_codec(dtype)
    keys = sorted({codec.from_value(v) for v in data.draw(columns(dtype, 120)) if v is not None})
    chunk = data.draw(st.sampled_from([0, 1, 4, 7, 8, 9, 40, 1024]))
    assert write_dictionary_bulk(keys, codec, chunk) == write_dictionary(keys, codec, chunk)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-1, 40), max_size=200), st.integers(0, 60))
def test_write_bit_slice_codes(codes: list[int], extra: int) -> None:
    cardinality = max(codes, default=-1) + 1 + extra
    rows: list[BitMap] = [BitMap() for _ in range(cardinality)]
    for row, code in enumerate(codes):
        if code >= 0:
            rows[code].add(row)
    assert write_bit_slice_codes(np.array(codes, dtype=np.int64), cardinality) == write_bit_slice(rows)


# ---- the what-if builder --------------------------------------------------------------------------

@pytest.mark.parametrize("type_text", ["STRING", "BIGINT", "DOUBLE", "TIMESTAMP(6)"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_index_builder_matches_build_container(type_text: str, data: st.DataObject) -> None:
    dtype = parse_type(type_text)
    values = data.draw(columns(dtype, 200))
    fields = [DataField(0, "v", dtype)]
    builder = IndexBuilder(dtype, values)
    specs = [IndexSpec("v", "bloom-filter", {"fpp": "0.01", "items": "50"}),
             IndexSpec("v", "bitmap", {"version": "1"}),
             IndexSpec("v", "bitmap", {"index-block-size": "1kb"}),
             IndexSpec("v", "bitmap", {"index-block-size": "64b"}),
             IndexSpec("v", "range-bitmap", {"chunk-size": "64b"}),
             IndexSpec("v", "range-bitmap", {})]
    if dtype.root in ("BIGINT", "TIMESTAMP"):
        specs.append(IndexSpec("v", "bsi", {}))
    for spec in specs:
        try:
            expected = build_container([spec], fields, {"v": values})
        except ValueError:
            with pytest.raises(ValueError):
                builder.index_bytes(spec)
            continue
        assert write_file_index({"v": {spec.index_type: builder.index_bytes(spec)}}) == expected
