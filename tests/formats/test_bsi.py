"""Legacy bsi index: golden results from Paimon 2.0.0, writer byte identity, properties, fuzz."""

from __future__ import annotations

import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from paimon_lens import types, values
from paimon_lens.errors import CorruptFileError, UnsupportedError
from paimon_lens.formats.bsi import BsiFileIndexReader, BsiWriter, read_bsi, to_long, write_bsi
from paimon_lens.formats.result import REMAIN, BitmapIndexResult
from paimon_lens.predicate.model import LeafPredicate
from paimon_lens.pruning.file_index_predicate import index_answer
from paimon_lens.types import DataType, Timestamp
from tests.conftest import FIXTURES, load_json
from tests.formats.blob_cases import blob_columns, column_ids, kind_positions, leaf_from_tree, select_rows

INDEX = "bsi"
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


COLUMNS = blob_columns(INDEX, "bsi*")
COLUMN_IDS = column_ids(COLUMNS)
_leaf = leaf_from_tree
_kind_positions = kind_positions


def test_fixture_inventory() -> None:
    """Every bsi blob of the fixtures is covered."""
    assert len(list(FIXTURES.glob("blobs/bsi*/**/columns/*.bsi.bin"))) + 2 == len(COLUMNS)


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_golden_predicates(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Each leaf predicate answers exactly what Paimon 2.0.0's reader answered."""
    case = load_json(case_path)
    dtype = types.parse_type(col["type"])
    blob = case_path.parent / ix["file"]
    reader = BsiFileIndexReader(dtype, blob.read_bytes(), str(blob))
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
def test_writer_byte_identical(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Our writer reproduces Paimon's bytes."""
    dtype = types.parse_type(col["type"])
    rows = [values.from_json(v, dtype) for v in col["values"]]
    data = (case_path.parent / ix["file"]).read_bytes()
    assert len(data) == ix["size"]
    assert write_bsi(dtype, rows) == data


@pytest.mark.parametrize(("case_path", "col", "ix"), COLUMNS, ids=COLUMN_IDS)
def test_summary_vs_brute_force(case_path: Path, col: dict[str, Any], ix: dict[str, Any]) -> None:
    """Row count, nulls, min, max and the positive/negative split agree with the values."""
    dtype = types.parse_type(col["type"])
    rows = [values.from_json(v, dtype) for v in col["values"]]
    data = (case_path.parent / ix["file"]).read_bytes()
    s = BsiFileIndexReader(dtype, data).summary()
    longs = [to_long(dtype, v) for v in rows if v is not None]
    assert s["index_type"] == INDEX
    assert s["row_count"] == len(rows)
    assert s["null_count"] == len(rows) - len(longs)
    if longs:
        assert (s["min"], s["max"]) == (min(v for v in rows if v is not None), max(v for v in rows if v is not None))
    else:
        assert s["min"] is None and s["max"] is None
    pos = [v for v in longs if v >= 0]
    neg = [-v for v in longs if v < 0]
    assert (s["positive_rows"], s["negative_rows"]) == (len(pos), len(neg))
    assert s["positive_slices"] == (max(pos).bit_length() if pos else 0)
    assert s["negative_slices"] == (max(neg).bit_length() if neg else 0)
    assert s["total_bytes"] == len(data)
    assert 1 + 4 + 2 + s["positive_bytes"] + s["negative_bytes"] == len(data)
    index = read_bsi(dtype, data)
    if pos:
        assert index.positive.min == 0 and index.positive.max == max(pos)


def test_container_slice_with_base() -> None:
    """The mixed container's bsi entries decode the same with a base offset."""
    path = FIXTURES / "blobs" / "mixed_container" / "case.json"
    case = load_json(path)
    container = (path.parent / "container.index").read_bytes()
    seen = 0
    for entry in case["container"]["layout"]["columns"]:
        col = next(c for c in case["columns"] if c["name"] == entry["column"])
        for ix in entry["indexes"]:
            if ix["index_type"] != INDEX:
                continue
            start, length = ix["start"], ix["length"]
            blob = (path.parent / "columns" / f"{entry['column']}.{INDEX}.bin").read_bytes()
            assert container[start:start + length] == blob
            dtype = types.parse_type(col["type"])
            a = BsiFileIndexReader(dtype, container[start:start + length], "container.index", start)
            assert a.summary() == BsiFileIndexReader(dtype, blob).summary()
            with pytest.raises(CorruptFileError) as err:
                BsiFileIndexReader(dtype, container[start:start + 30], "container.index", start)
            assert err.value.offset is not None and start <= err.value.offset <= start + 30
            seen += 1
    assert seen == 2


# ---- brute force --------------------------------------------------------------------------------

def brute_force(op: str, rows: list[Any], lits: tuple[Any, ...]) -> list[int]:
    """Rows a leaf predicate selects (SQL null semantics; exact comparisons of internal values)."""
    return select_rows(op, rows, lits)


ELEMENTS: dict[str, st.SearchStrategy[Any]] = {
    "INT": st.integers(-(1 << 31), (1 << 31) - 1),
    "BIGINT": st.integers(I64_MIN + 1, I64_MAX),
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-(1 << 15), (1 << 15) - 1),
    "DATE": st.integers(-(1 << 31), (1 << 31) - 1),
    "TIME(3)": st.integers(0, 86_399_999),
    "DECIMAL(10, 2)": st.integers(-(10 ** 10) + 1, 10 ** 10 - 1).map(lambda u: Decimal(u).scaleb(-2)),
    "DECIMAL(38, 4)": st.integers(I64_MIN + 1, I64_MAX).map(lambda u: Decimal(u).scaleb(-4)),
    "TIMESTAMP(3)": st.integers(-(1 << 45), 1 << 45).map(Timestamp.from_millis),
    "TIMESTAMP(6)": st.integers(-(1 << 55), 1 << 55).map(Timestamp.from_micros),
    "TIMESTAMP(3) WITH LOCAL TIME ZONE": st.integers(-(1 << 45), 1 << 45).map(Timestamp.from_millis),
}

OPS = ("Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "In", "NotIn", "Between")


@st.composite
def columns(draw: st.DrawFn) -> tuple[DataType, list[Any], list[Any]]:
    """A type, rows from a small pool with nulls (duplicates, negatives, extremes) and literals."""
    type_text = draw(st.sampled_from(sorted(ELEMENTS)))
    elem = ELEMENTS[type_text]
    pool = draw(st.lists(elem, min_size=1, max_size=9))
    rows = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=70))
    lits = draw(st.lists(st.one_of(st.sampled_from(pool), elem), min_size=3, max_size=5))
    return types.parse_type(type_text), rows, lits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(columns())
def test_property_round_trip(col: tuple[DataType, list[Any], list[Any]]) -> None:
    """Writer -> reader: every predicate equals brute force; summary min/max agree."""
    dtype, rows, lits = col
    data = write_bsi(dtype, rows)
    reader = BsiFileIndexReader(dtype, data)
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
            assert res.positions() == brute_force(op, rows, args), (op, args)
    for op in ("IsNull", "IsNotNull"):
        res = index_answer(reader, LeafPredicate(op, "c", 0, dtype))
        assert isinstance(res, BitmapIndexResult)
        assert res.positions() == brute_force(op, rows, ())
    s = reader.summary()
    non_null = [v for v in rows if v is not None]
    assert (s["row_count"], s["null_count"], s["total_bytes"]) == (len(rows), len(rows) - len(non_null), len(data))
    if non_null:
        assert (s["min"], s["max"]) == (min(non_null), max(non_null))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(I64_MIN + 1, I64_MAX)), max_size=30),
       st.sampled_from([I64_MIN, I64_MIN + 1, -1, 0, 1, I64_MAX]))
def test_long_extremes(rows: list[int | None], lit: int) -> None:
    """Long.MIN_VALUE literals get Java's special answers; the other extremes are exact."""
    dtype = types.parse_type("BIGINT")
    reader = BsiFileIndexReader(dtype, write_bsi(dtype, rows))
    for op in ("Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual"):
        res = index_answer(reader, LeafPredicate(op, "c", 0, dtype, (lit,)))
        assert isinstance(res, BitmapIndexResult)
        assert res.positions() == brute_force(op, rows, (lit,)), op


def test_null_and_foreign_literals() -> None:
    """Java throws on a null literal; paimon-lens answers REMAIN (also for unconvertible ones)."""
    dtype = types.parse_type("INT")
    reader = BsiFileIndexReader(dtype, write_bsi(dtype, [1, None, -3]))
    assert reader.visit_equal(None) is REMAIN
    assert reader.visit_not_in([1, None]) is REMAIN
    assert reader.visit_between(1, None) is REMAIN
    assert reader.visit_greater_than("x") is REMAIN
    assert reader.visit_less_than(1 << 70) is REMAIN
    assert index_answer(reader, LeafPredicate("NotBetween", "c", 0, dtype, (1, 2))) is REMAIN
    assert reader.visit_in([]) == BitmapIndexResult(BitMap())
    assert reader.visit_not_in([]) == BitmapIndexResult(BitMap([0, 2]))


def test_writer_rules() -> None:
    """Long.MIN_VALUE cannot be written (Java fails too); unsupported types are rejected."""
    with pytest.raises(ValueError):
        BsiWriter(types.parse_type("BIGINT")).write(I64_MIN)
    with pytest.raises(ValueError):
        BsiWriter(types.parse_type("DECIMAL(38, 0)")).write(Decimal(10) ** 30)
    for type_text in ("FLOAT", "DOUBLE", "STRING", "BOOLEAN", "BYTES", "ARRAY<INT>"):
        with pytest.raises(UnsupportedError):
            BsiWriter(types.parse_type(type_text))
        with pytest.raises(UnsupportedError):
            BsiFileIndexReader(types.parse_type(type_text), b"\x01\x00\x00\x00\x00\x00\x00")


def test_empty_and_layout() -> None:
    """Zero rows: version, row count and two false flags; a single positive row: min 0, max value."""
    dtype = types.parse_type("INT")
    assert write_bsi(dtype, []) == b"\x01\x00\x00\x00\x00\x00\x00"
    data = write_bsi(dtype, [42])
    assert data[:6] == b"\x01\x00\x00\x00\x01\x01"
    assert data[6] == 1 and struct.unpack(">qq", data[7:23]) == (0, 42)
    idx = read_bsi(dtype, data)
    assert idx.positive.slice_count == 6 and not idx.negative.present


# ---- corruption ---------------------------------------------------------------------------------

BLOBS = [(types.parse_type(c["type"]), (p.parent / ix["file"]).read_bytes()) for p, c, ix in COLUMNS]


def _exercise(dtype: DataType, data: bytes) -> None:
    try:
        reader = BsiFileIndexReader(dtype, data, "fuzz.index")
    except CorruptFileError as e:
        assert e.path == "fuzz.index" and e.field and e.offset is not None
        return
    s = reader.summary()
    lits = [s["min"], s["max"]] if s["min"] is not None else [values.from_json(0, dtype)]
    for lit in lits:
        for method in (reader.visit_equal, reader.visit_not_equal, reader.visit_less_than,
                       reader.visit_less_or_equal, reader.visit_greater_than, reader.visit_greater_or_equal):
            method(lit)
        reader.visit_in(lits)
        reader.visit_not_in(lits)
        reader.visit_between(lit, lit)
    reader.visit_is_null()
    reader.visit_is_not_null()


def test_truncation_raises_corrupt_file_error() -> None:
    """Every prefix is corrupt (the writer's bytes end exactly after the last flag or slice)."""
    for dtype, data in BLOBS:
        for cut in [*range(min(len(data), 80)), *range(80, len(data), 7)]:
            with pytest.raises(CorruptFileError) as err:
                BsiFileIndexReader(dtype, data[:cut], "cut.index", 500)
            assert err.value.path == "cut.index"
            assert err.value.offset is not None and 500 <= err.value.offset <= 500 + len(data)


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


def test_specific_corruptions() -> None:
    """Bad version, slice counts, min/max and non-Roaring bytes name their field and offset."""
    dtype = types.parse_type("BIGINT")
    good = write_bsi(dtype, [5, -3, None, 9])

    def err(data: bytes) -> CorruptFileError:
        with pytest.raises(CorruptFileError) as e:
            read_bsi(dtype, data, "b.index")
        return e.value

    e = err(b"\x02" + good[1:])
    assert (e.field, e.offset) == ("version", 0)
    e = err(good[:1] + struct.pack(">i", -1) + good[5:])
    assert (e.field, e.offset) == ("row_count", 1)
    e = err(good[:6] + b"\x07" + good[7:])
    assert (e.field, e.offset) == ("positive.version", 6)
    e = err(good[:7] + struct.pack(">q", -1) + good[15:])
    assert (e.field, e.offset) == ("positive.min", 7)
    e = err(good[:23] + b"\x00\x00\x00\x00" + good[27:])
    assert (e.field, e.offset) == ("positive.ebm.cookie", 23)
    # a positive max below the stored values
    e = err(good[:15] + struct.pack(">q", 2) + good[23:])
    assert e.field == "positive.slices"
    # slice count: huge, negative and above 64
    count_at = _slice_count_offset(good)
    for bad in (0x7FFFFFFF, -5, 65):
        e = err(good[:count_at] + struct.pack(">i", bad) + good[count_at + 4:])
        assert (e.field, e.offset) == ("positive.slice_count", count_at)
    # rows beyond the row count
    e = err(good[:1] + struct.pack(">i", 2) + good[5:])
    assert e.field in ("positive.ebm", "negative.ebm")


def _slice_count_offset(data: bytes) -> int:
    """Offset of the positive part's slice count (after version, min, max and the EBM)."""
    from paimon_lens.formats.roaring import serialized_size
    from paimon_lens.io.byte_reader import ByteReader

    return 23 + serialized_size(ByteReader(data), 23)
