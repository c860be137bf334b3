"""Range-bitmap index: golden results from Paimon 2.0.0, writer byte identity, properties, fuzz."""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens import types, values
from paimon_lens.errors import CorruptFileError, UnsupportedError
from paimon_lens.formats.range_bitmap import (
    RangeBitmapFileIndexReader,
    RangeBitmapWriter,
    read_range_bitmap,
    write_range_bitmap,
)
from paimon_lens.formats.result import REMAIN, BitmapIndexResult
from paimon_lens.metadata.options import parse_memory_size
from paimon_lens.predicate.model import LeafPredicate
from paimon_lens.pruning.file_index_predicate import index_answer
from paimon_lens.types import DataType, Timestamp
from tests.conftest import FIXTURES, load_json
from tests.formats.blob_cases import blob_columns, column_ids, kind_positions, leaf_from_tree, select_rows

INDEX = "range-bitmap"


# ---- fixtures -----------------------------------------------------------------------------------

COLUMNS = blob_columns(INDEX, "range_bitmap*")
COLUMN_IDS = column_ids(COLUMNS)
_leaf = leaf_from_tree
_kind_positions = kind_positions


def test_fixture_inventory() -> None:
    """Every range-bitmap blob of the fixtures is covered."""
    assert len(COLUMNS) >= 30
    assert len(list(FIXTURES.glob("blobs/range_bitmap*/**/columns/*.range-bitmap.bin"))) + 2 == len(COLUMNS)


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_golden_predicates(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Each leaf predicate answers exactly what Paimon 2.0.0's reader answered (kind and rows)."""
    case = load_json(case_path)
    dtype = types.parse_type(col["type"])
    blob = case_path.parent / ix["file"]
    reader = RangeBitmapFileIndexReader(dtype, blob.read_bytes(), str(blob))
    checked = 0
    mismatches = []
    for pred in case["predicates"]:
        tree = pred["tree"]
        expected = pred.get("per_index", {}).get(INDEX)
        if expected is None or tree.get("field") != col["name"]:
            continue
        result = index_answer(reader, _leaf(tree, dtype))
        kind, positions = _kind_positions(result)
        checked += 1
        if kind != expected["result"] or result.remain() != expected["remain"] or (
                positions is not None and positions != expected["positions"]):
            mismatches.append((pred["java"], kind, positions, expected))
    assert checked > 0
    assert not mismatches


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_golden_top_n(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """TopN (evaluateTopN with REMAIN) gives Paimon's positions."""
    case = load_json(case_path)
    dtype = types.parse_type(col["type"])
    reader = RangeBitmapFileIndexReader(dtype, (case_path.parent / ix["file"]).read_bytes())
    for t in case.get("topn", []):
        if t["column"] != col["name"]:
            continue
        assert t["result"] == "BITMAP"
        assert reader.top_n(t["direction"], t["null_ordering"], t["limit"]) == t["positions"], t["java"]


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_writer_byte_identical(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Our writer reproduces Paimon's bytes for the same rows and chunk size."""
    dtype = types.parse_type(col["type"])
    rows = [values.from_json(v, dtype) for v in col["values"]]
    data = (case_path.parent / ix["file"]).read_bytes()
    assert len(data) == ix["size"]
    assert write_range_bitmap(dtype, rows, ix["options"].get("chunk-size")) == data


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_summary_vs_brute_force(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Row count, nulls, cardinality, min and max agree with the case's values."""
    dtype = types.parse_type(col["type"])
    rows = [values.from_json(v, dtype) for v in col["values"]]
    data = (case_path.parent / ix["file"]).read_bytes()
    s = RangeBitmapFileIndexReader(dtype, data).summary()
    non_null = [v for v in rows if v is not None]
    distinct = {java_key(dtype, v) for v in non_null}
    assert s["index_type"] == INDEX
    assert s["row_count"] == len(rows)
    assert s["null_count"] == len(rows) - len(non_null)
    assert s["cardinality"] == len(distinct)
    if non_null:
        assert java_key(dtype, s["min"]) == min(distinct)
        assert java_key(dtype, s["max"]) == max(distinct)
    else:
        assert s["min"] is None and s["max"] is None
    assert sum(s["dictionary_chunk_sizes"]) == len(distinct)
    assert len(s["dictionary_chunk_sizes"]) == s["dictionary_chunks"]
    assert s["header_bytes"] + s["dictionary_bytes"] + s["bsi_bytes"] == s["total_bytes"] == len(data)
    chunk = parse_memory_size(ix["options"].get("chunk-size", "16kb"))
    if chunk == 16 and dtype.root in ("INT", "DATE"):
        assert all(n <= 1 + 16 // 4 for n in s["dictionary_chunk_sizes"])
    expected_slices = 64 if not distinct else max((len(distinct) - 1).bit_length(), 1)
    assert s["slice_count"] == expected_slices


def test_container_slice_with_base() -> None:
    """The column bytes inside container.index decode the same, and errors report file offsets."""
    path = FIXTURES / "blobs" / "range_bitmap_basic" / "case.json"
    case = load_json(path)
    container = (path.parent / "container.index").read_bytes()
    for entry in case["container"]["layout"]["columns"]:
        for ix in entry["indexes"]:
            col = next(c for c in case["columns"] if c["name"] == entry["column"])
            blob = (path.parent / "columns" / f"{entry['column']}.{INDEX}.bin").read_bytes()
            start, length = ix["start"], ix["length"]
            assert container[start:start + length] == blob
            dtype = types.parse_type(col["type"])
            a = RangeBitmapFileIndexReader(dtype, container[start:start + length], "container.index", start)
            assert a.summary() == RangeBitmapFileIndexReader(dtype, blob).summary()
            with pytest.raises(CorruptFileError) as err:
                RangeBitmapFileIndexReader(dtype, container[start:start + 20], "container.index", start)
            assert err.value.path == "container.index"
            assert err.value.offset is not None and err.value.offset >= start


# ---- Java semantics -----------------------------------------------------------------------------

def java_key(dtype: DataType, v: Any) -> Any:
    """An ordering key that behaves like Paimon's range-bitmap comparators (independent of the code)."""
    if dtype.root in ("FLOAT", "DOUBLE"):
        if math.isnan(v):
            return (1, 0.0, 0)
        return (0, v, math.copysign(1.0, v) if v == 0 else 0)
    if dtype.is_string:
        return v.encode("utf-8")
    if dtype.root == "BOOLEAN":
        return int(v)
    return v


def brute_force(op: str, dtype: DataType, rows: list[Any], lits: tuple[Any, ...]) -> list[int]:
    """Rows a leaf predicate selects, with SQL null semantics (nulls never match a comparison)."""
    keys = [None if v is None else java_key(dtype, v) for v in rows]
    return select_rows(op, keys, [java_key(dtype, x) for x in lits])


def brute_force_top_n(dtype: DataType, rows: list[Any], ascending: bool, nulls_last: bool, k: int) -> list[int]:
    """Java's TopN answer: the k best rows; ties at the boundary keep their highest positions."""
    nulls = [i for i, v in enumerate(rows) if v is None]
    non_null = [i for i, v in enumerate(rows) if v is not None]
    if not non_null:
        return sorted({0, len(rows) - 1}) if rows else []

    def best(n: int) -> list[int]:
        if n == 0:
            return []
        if len(non_null) <= n:
            return list(non_null)
        order = sorted(non_null, key=lambda i: java_key(dtype, rows[i]), reverse=not ascending)
        boundary = java_key(dtype, rows[order[n - 1]])
        better = [i for i in non_null if (java_key(dtype, rows[i]) < boundary if ascending
                                          else java_key(dtype, rows[i]) > boundary)]
        ties = [i for i in non_null if java_key(dtype, rows[i]) == boundary]
        return better + ties[len(ties) - (n - len(better)):]

    if nulls_last:
        got = best(k)
        if len(got) < k:
            got += nulls[:k - len(got)]
    elif len(nulls) >= k:
        got = nulls[:k]
    else:
        got = nulls + best(k - len(nulls))
    return sorted(got)


# ---- properties ---------------------------------------------------------------------------------

_F32 = struct.Struct("<f")
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

ELEMENTS: dict[str, st.SearchStrategy[Any]] = {
    "INT": st.integers(-(1 << 31), (1 << 31) - 1),
    "BIGINT": st.integers(_I64_MIN, _I64_MAX),
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-(1 << 15), (1 << 15) - 1),
    "DATE": st.integers(-(1 << 31), (1 << 31) - 1),
    "TIME(3)": st.integers(0, 86_399_999),
    "DECIMAL(10, 2)": st.integers(-(10 ** 10) + 1, 10 ** 10 - 1).map(lambda u: Decimal(u).scaleb(-2)),
    "DECIMAL(18, 0)": st.integers(-(10 ** 18) + 1, 10 ** 18 - 1).map(Decimal),
    "TIMESTAMP(3)": st.integers(-(1 << 45), 1 << 45).map(Timestamp.from_millis),
    "TIMESTAMP(6)": st.integers(-(1 << 55), 1 << 55).map(Timestamp.from_micros),
    "TIMESTAMP(0) WITH LOCAL TIME ZONE": st.integers(-(1 << 40), 1 << 40).map(
        lambda s: Timestamp.from_millis(s * 1000)),
    "FLOAT": st.floats(width=32),
    "DOUBLE": st.floats(),
    "STRING": st.text(max_size=10),
    "VARCHAR(5)": st.text(alphabet="ab\u00dfz\U0001d11e", max_size=5),
    "CHAR(3)": st.text(max_size=3),
    "BOOLEAN": st.booleans(),
}

OPS = ("Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "In", "NotIn", "Between")


@st.composite
def columns(draw: st.DrawFn) -> tuple[DataType, list[Any], list[Any], int]:
    """A type, rows drawn from a small pool (duplicates) with nulls, literals and a chunk size."""
    type_text = draw(st.sampled_from(sorted(ELEMENTS)))
    elem = ELEMENTS[type_text]
    pool = draw(st.lists(elem, min_size=1, max_size=9))
    rows = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=70))
    lits = draw(st.lists(st.one_of(st.sampled_from(pool), elem), min_size=3, max_size=5))
    chunk = draw(st.sampled_from([0, 1, 4, 7, 9, 16, 33, 16384]))
    return types.parse_type(type_text), rows, lits, chunk


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(columns())
def test_property_round_trip(col: tuple[DataType, list[Any], list[Any], int]) -> None:
    """Writer -> reader: every predicate equals brute force; summary and TopN agree."""
    dtype, rows, lits, chunk = col
    data = write_range_bitmap(dtype, rows, chunk)
    reader = RangeBitmapFileIndexReader(dtype, data)
    non_null = [v for v in rows if v is not None]
    for op in OPS:
        for i in range(len(lits) - 1):
            args: tuple[Any, ...]
            if op in ("In", "NotIn"):
                args = tuple(lits[i:])
            elif op == "Between":
                args = (lits[i], lits[i + 1])
            else:
                args = (lits[i],)
            res = index_answer(reader, LeafPredicate(op, "c", 0, dtype, args))
            assert isinstance(res, BitmapIndexResult)
            assert res.positions() == brute_force(op, dtype, rows, args), (op, args)
    nulls = index_answer(reader, LeafPredicate("IsNull", "c", 0, dtype))
    assert isinstance(nulls, BitmapIndexResult)
    if non_null:
        assert nulls.positions() == brute_force("IsNull", dtype, rows, ())
    else:  # release-2.0.0 quirk: only rows 0 and rowCount - 1
        assert nulls.positions() == (sorted({0, len(rows) - 1}) if rows else [])
    not_nulls = index_answer(reader, LeafPredicate("IsNotNull", "c", 0, dtype))
    assert isinstance(not_nulls, BitmapIndexResult)
    assert not_nulls.positions() == brute_force("IsNotNull", dtype, rows, ())
    for asc in (True, False):
        for nulls_last in (True, False):
            for k in (0, 1, 3, 10):
                got = reader.top_n("ASC" if asc else "DESC", "NULLS LAST" if nulls_last else "NULLS FIRST", k)
                assert got == brute_force_top_n(dtype, rows, asc, nulls_last, k), (asc, nulls_last, k)
    s = reader.summary()
    distinct = {java_key(dtype, v) for v in non_null}
    assert (s["row_count"], s["cardinality"], s["total_bytes"]) == (len(rows), len(distinct), len(data))
    if non_null:
        assert java_key(dtype, s["min"]) == min(distinct)
        assert java_key(dtype, s["max"]) == max(distinct)
    index = read_range_bitmap(dtype, data)
    for pos in range(len(rows)):
        v = index.value_at(pos)
        assert (v is None) == (rows[pos] is None)
        if v is not None:
            assert java_key(dtype, v) == java_key(dtype, rows[pos])


# ---- literals, types and options ----------------------------------------------------------------

def test_null_and_foreign_literals() -> None:
    """Java throws on a null literal (cardinality > 0); paimon-lens answers REMAIN, or empty when
    the index has no value (Java returns before looking at the literal)."""
    dtype = types.parse_type("INT")
    reader = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, [1, None, 3]))
    assert reader.visit_equal(None) is REMAIN
    assert reader.visit_in([1, None]) is REMAIN
    assert reader.visit_between(None, 3) is REMAIN
    assert reader.visit_less_than("not a number") is REMAIN
    empty = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, [None, None]))
    for res in (empty.visit_equal(None), empty.visit_not_in([None]), empty.visit_between(None, None)):
        assert isinstance(res, BitmapIndexResult) and not res.remain()
    assert index_answer(reader, LeafPredicate("NotBetween", "c", 0, dtype, (1, 2))) is REMAIN
    assert index_answer(reader, LeafPredicate("StartsWith", "c", 0, dtype, (1,))) is REMAIN


def test_float_semantics() -> None:
    """-0.0 and 0.0 are distinct keys, NaN equals NaN and sorts above +Infinity."""
    dtype = types.parse_type("FLOAT")
    rows = [0.0, -0.0, math.nan, math.inf, -1.5, None]
    reader = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, rows))
    assert reader.visit_equal(-0.0) == BitmapIndexResult(_bm([1]))
    assert reader.visit_equal(0.0) == BitmapIndexResult(_bm([0]))
    assert reader.visit_equal(math.nan) == BitmapIndexResult(_bm([2]))
    assert reader.visit_greater_than(math.inf) == BitmapIndexResult(_bm([2]))
    assert reader.visit_less_than(0.0) == BitmapIndexResult(_bm([1, 4]))
    assert reader.summary()["max"] != reader.summary()["max"]  # NaN


def test_decimal_literal_rescaled() -> None:
    """A DECIMAL literal is compared by its unscaled value at the column's scale."""
    dtype = types.parse_type("DECIMAL(10, 2)")
    reader = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, [Decimal("1.50"), Decimal("2")]))
    assert reader.visit_equal(Decimal("1.5")) == BitmapIndexResult(_bm([0]))
    assert reader.visit_equal(2) == BitmapIndexResult(_bm([1]))


@pytest.mark.parametrize("type_text", ["BYTES", "DECIMAL(19, 2)", "TIMESTAMP(9)", "ARRAY<INT>", "MAP<INT, INT>"])
def test_unsupported_types(type_text: str) -> None:
    """Types Paimon's KeyFactory rejects are rejected."""
    with pytest.raises(UnsupportedError):
        RangeBitmapWriter(types.parse_type(type_text))
    with pytest.raises(UnsupportedError):
        RangeBitmapFileIndexReader(types.parse_type(type_text), b"")


def test_writer_rejects_out_of_range_values() -> None:
    """A value that does not fit the column type cannot be written."""
    w = RangeBitmapWriter(types.parse_type("TINYINT"))
    with pytest.raises(ValueError):
        w.write(300)
    with pytest.raises(TypeError):
        RangeBitmapWriter(types.parse_type("INT")).write("x")


def test_default_chunk_sizes() -> None:
    """Default chunk-size: 16kb, 0b (one key per chunk) for BOOLEAN, TINYINT, SMALLINT."""
    for type_text, one_per_chunk in (("TINYINT", True), ("SMALLINT", True), ("INT", False), ("STRING", False)):
        dtype = types.parse_type(type_text)
        rows: list[Any] = [str(i) for i in range(20)] if dtype.is_string else list(range(20))
        s = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, rows)).summary()
        assert s["dictionary_chunks"] == (20 if one_per_chunk else 1)
    assert parse_memory_size("16kb") == 16384
    assert parse_memory_size(" 2 MB ") == 2 << 20
    assert parse_memory_size("7") == 7
    with pytest.raises(ValueError):
        parse_memory_size("12 parsecs")


def test_top_n_arguments() -> None:
    """Direction and null ordering are validated; a bitmap result restricts the candidates."""
    dtype = types.parse_type("INT")
    reader = RangeBitmapFileIndexReader(dtype, write_range_bitmap(dtype, [5, 1, None, 9, 3, None]))
    assert reader.top_n("DESC", "NULLS LAST", 2) == [0, 3]
    restricted = reader.visit_top_n("ASC", "NULLS LAST", 2, BitmapIndexResult(_bm([0, 3, 5])))
    assert restricted == BitmapIndexResult(_bm([0, 3]))
    with pytest.raises(ValueError):
        reader.top_n("UP", "NULLS LAST", 1)
    with pytest.raises(ValueError):
        reader.top_n("ASC", "NULLS MIDDLE", 1)
    with pytest.raises(ValueError):
        reader.top_n("ASC", "NULLS LAST", -1)


def _bm(xs: list[int]) -> Any:
    from pyroaring import BitMap
    return BitMap(xs)


# ---- corruption ---------------------------------------------------------------------------------

def _blobs() -> list[tuple[DataType, bytes]]:
    return [(types.parse_type(c["type"]), (p.parent / ix["file"]).read_bytes()) for p, c, ix in COLUMNS]


BLOBS = _blobs()


def _exercise(dtype: DataType, data: bytes) -> None:
    """Decode and run every kind of question; only CorruptFileError may escape."""
    try:
        reader = RangeBitmapFileIndexReader(dtype, data, "fuzz.index")
    except CorruptFileError as e:
        assert e.path == "fuzz.index" and e.field and e.offset is not None
        return
    index = reader.index
    lits = [index.min, index.max] if index.min is not None else [None]
    for lit in lits:
        for method in (reader.visit_equal, reader.visit_not_equal, reader.visit_less_than,
                       reader.visit_less_or_equal, reader.visit_greater_than, reader.visit_greater_or_equal):
            method(lit)
        reader.visit_in(lits)
        reader.visit_not_in(lits)
        reader.visit_between(lit, lit)
    reader.visit_is_null()
    reader.visit_is_not_null()
    reader.summary()
    for d in ("ASC", "DESC"):
        for n in ("NULLS FIRST", "NULLS LAST"):
            reader.top_n(d, n, 3)


def test_truncation_raises_corrupt_file_error() -> None:
    """Every prefix of the header area, and a sample of the rest, is reported as corrupt."""
    for dtype, data in BLOBS:
        cuts = [*range(min(len(data), 80)), *range(80, len(data), 11)]
        for cut in cuts:
            with pytest.raises(CorruptFileError) as err:
                RangeBitmapFileIndexReader(dtype, data[:cut], "cut.index", 1000)
            assert err.value.path == "cut.index"
            assert err.value.offset is not None and 1000 <= err.value.offset <= 1000 + len(data)


@settings(max_examples=400, deadline=2000)
@given(st.data())
def test_mutation_fuzz(data: st.DataObject) -> None:
    """Random byte changes decode, answer, or raise CorruptFileError: nothing else, no hang."""
    dtype, blob = data.draw(st.sampled_from(BLOBS))
    buf = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(buf) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    _exercise(dtype, bytes(buf))


def _header(version: int = 1, rows: int = 3, card: int = 0, dict_len: int = 17) -> bytes:
    body = bytes([version]) + struct.pack(">ii", rows, card) + struct.pack(">i", dict_len)
    return struct.pack(">i", len(body)) + body


def test_specific_corruptions() -> None:
    """Bad version, lengths, slice counts and non-Roaring bytes name their field and offset."""
    dtype = types.parse_type("INT")
    good = write_range_bitmap(dtype, [None, 4, 4, 7])
    hl = struct.unpack(">i", good[:4])[0]

    def err(data: bytes) -> CorruptFileError:
        with pytest.raises(CorruptFileError) as e:
            read_range_bitmap(dtype, data, "x.index")
        return e.value

    e = err(bytes([0, 0, 0, hl, 2]) + good[5:])
    assert (e.field, e.offset) == ("version", 4)
    e = err(struct.pack(">i", 0x7FFFFFFF) + good[4:])
    assert (e.field, e.offset) == ("header_length", 0)
    # dictionary length pointing past the end
    dl_at = 4 + hl - 4
    e = err(good[:dl_at] + struct.pack(">i", 10_000) + good[dl_at + 4:])
    assert (e.field, e.offset) == ("dictionary_length", dl_at)
    # slice count of the bit-slice index (one byte) above 64
    dict_len = struct.unpack(">i", good[dl_at:dl_at + 4])[0]
    bsi = 4 + hl + dict_len
    e = err(good[:bsi + 5] + bytes([200]) + good[bsi + 6:])
    assert (e.field, e.offset) == ("bsi.slice_count", bsi + 5)
    # existence bitmap replaced by non-Roaring bytes
    ebm = bsi + 4 + struct.unpack(">i", good[bsi:bsi + 4])[0]
    e = err(good[:ebm] + b"\xde\xad\xbe\xef" + good[ebm + 4:])
    assert (e.field, e.offset) == ("bsi.ebm.cookie", ebm)
    # an all-null index with rows claimed but a dictionary of the wrong length
    e = err(_header(dict_len=3) + b"\x00" * 3)
    assert e.field.startswith("dictionary")
    # an unknown dictionary version
    d_at = 4 + hl
    e = err(good[:d_at + 4] + b"\x09" + good[d_at + 5:])
    assert (e.field, e.offset) == ("dictionary.version", d_at + 4)
    # a header min that is not the smallest dictionary key
    e = err(good[:13] + struct.pack(">i", 5) + good[17:])
    assert (e.field, e.offset) == ("min", 13)
