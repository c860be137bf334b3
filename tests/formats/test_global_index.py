"""Btree and bitmap global index files, their keys and their manifest metadata.

Golden: every index file pypaimon 2.1 wrote in ``tests/fixtures/pypaimon_global`` decodes to the
keys, row ids and null rows pypaimon's own readers list in the oracles. Property-based: files
encoded from the layouts (``global_index_bytes``) decode to what was encoded. Corruption: an error
names the file, the byte offset and the field.
"""

from __future__ import annotations

import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.global_index.bitmap import BitmapGlobalIndex
from paimon_lens.formats.global_index.btree import BTreeIndex
from paimon_lens.formats.global_index.keys import KeyCodec
from paimon_lens.formats.global_index.meta import read_json_meta, read_sorted_meta, read_source_meta
from paimon_lens.formats.global_index.native import read_native_header
from paimon_lens.types import Timestamp, parse_type
from tests.conftest import FIXTURES, load_json
from tests.formats import global_index_bytes as enc

GLOBAL = FIXTURES / "pypaimon_global"
ORACLES = sorted(GLOBAL.glob("oracle_*.json"))
CASES = [(o, c["file_name"]) for o in ORACLES for c in load_json(o)["index_contents"]]


def _types(oracle: dict) -> dict[str, str]:
    return {f["name"]: f["type"] for f in oracle["schema"]["fields"]}


def test_every_fixture_index_is_a_case() -> None:
    assert len(CASES) >= 20
    assert {load_json(o)["table"] for o in ORACLES} >= {"gi_basic", "gi_partitioned", "gi_two_builds"}


@pytest.mark.parametrize(("oracle_path", "file_name"), CASES, ids=lambda v: getattr(v, "stem", str(v)[:24]))
def test_decodes_as_pypaimon_reads(oracle_path, file_name) -> None:
    o = load_json(oracle_path)
    case = next(c for c in o["index_contents"] if c["file_name"] == file_name)
    path = GLOBAL / "warehouse" / "db.db" / o["table"] / "index" / file_name
    dtype = parse_type(_types(o)[case["column"]])
    cls = BTreeIndex if case["index_type"] == "btree" else BitmapGlobalIndex
    idx = cls(path.read_bytes(), dtype, str(path))
    assert [str(k) for k in idx.keys] == [str(k["key"]) for k in case["keys"]]
    assert [sorted(r) for r in idx.rows] == [sorted(k["local_row_ids"]) for k in case["keys"]]
    assert sorted(idx.nulls) == sorted(case["null_local_row_ids"])
    assert idx.file_order_sorted
    entry = next(e for e in o["index_files"]["entries"] if e["file_name"] == file_name)
    meta = read_sorted_meta(bytes.fromhex(entry["global_index"]["index_meta_hex"]), dtype, "meta")
    decoded = entry["global_index"]["decoded_meta"]
    assert (meta.first_key, meta.last_key, meta.has_nulls) == (decoded["first_key"], decoded["last_key"],
                                                               decoded["has_nulls"])
    if idx.keys:
        assert (idx.keys[0], idx.keys[-1]) == (meta.first_key, meta.last_key)
    assert bool(len(idx.nulls)) == meta.has_nulls


def test_btree_blocks_of_the_small_block_build() -> None:
    """gi_two_builds' second build used tiny blocks: several data blocks, each listed with its keys."""
    o = load_json(GLOBAL / "oracle_gi_two_builds.json")
    case = next(c for c in o["index_contents"] if c["index_type"] == "btree" and c["footer"]["data_blocks"] > 1)
    path = GLOBAL / "warehouse" / "db.db" / o["table"] / "index" / case["file_name"]
    idx = BTreeIndex(path.read_bytes(), parse_type("INT"), str(path))
    assert len(idx.blocks) == case["footer"]["data_blocks"]
    assert sum(b.entries for b in idx.blocks) == len(idx.keys)
    assert [b.last_key for b in idx.blocks] == sorted(b.last_key for b in idx.blocks)


# ---- questions -------------------------------------------------------------------------------------
def _index(kind: str) -> BTreeIndex | BitmapGlobalIndex:
    keys = [(struct.pack("<i", k), rows) for k, rows in ((-5, [3]), (1, [0, 7]), (2, [1]), (40, [2, 5]), (300, [4]))]
    data = (enc.btree if kind == "btree" else enc.bitmap)(keys, nulls=[6, 8], per_block=2)
    return (BTreeIndex if kind == "btree" else BitmapGlobalIndex)(data, parse_type("INT"), "f.index")


@pytest.mark.parametrize("kind", ["btree", "bitmap"])
def test_questions(kind: str) -> None:
    idx = _index(kind)
    assert list(idx.equal(1)) == [0, 7] and list(idx.equal(3)) == [] and list(idx.equal(None)) == []
    assert sorted(idx.in_([2, 300, 9])) == [1, 4]
    assert sorted(idx.not_equal(1)) == [1, 2, 3, 4, 5]  # null rows are not "<> 1"
    assert sorted(idx.not_in([1, 2])) == [2, 3, 4, 5] and list(idx.not_in([1, None])) == []
    assert sorted(idx.range(low=2, high=40)) == [1, 2, 5]
    assert sorted(idx.range(low=2, low_inclusive=False, high=300, high_inclusive=False)) == [2, 5]
    assert sorted(idx.range(high=1)) == [0, 3, 7]
    assert sorted(idx.is_null()) == [6, 8] and len(idx.is_not_null()) == 7
    assert idx.keys == [-5, 1, 2, 40, 300]  # ordered by value, not by little-endian bytes


# ---- round trips ----------------------------------------------------------------------------------
_ROWS = st.lists(st.integers(0, 2**40), min_size=1, max_size=6, unique=True)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(-2**63, 2**63 - 1), _ROWS, max_size=30), st.lists(st.integers(0, 2**40), max_size=5),
       st.integers(1, 5), st.sampled_from(["btree", "bitmap"]))
def test_bigint_round_trip(keys: dict[int, list[int]], nulls: list[int], per_block: int, kind: str) -> None:
    items = [(struct.pack("<q", k), keys[k]) for k in sorted(keys)]
    if kind == "btree" and not items and not nulls:
        return  # Paimon never writes an empty btree file
    data = (enc.btree if kind == "btree" else enc.bitmap)(items, nulls, per_block)
    idx = (BTreeIndex if kind == "btree" else BitmapGlobalIndex)(data, parse_type("BIGINT"), "x")
    assert idx.keys == sorted(keys)
    assert [sorted(r) for r in idx.rows] == [sorted(keys[k]) for k in sorted(keys)]
    assert sorted(idx.nulls) == sorted(set(nulls))


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _ROWS, min_size=1, max_size=20))
def test_string_round_trip(keys: dict[str, list[int]]) -> None:
    order = sorted(keys, key=lambda s: s.encode())
    data = enc.btree([(k.encode(), keys[k]) for k in order], per_block=4)
    idx = BTreeIndex(data, parse_type("STRING"), "x")
    assert idx.keys == order and all(sorted(idx.equal(k)) == sorted(keys[k]) for k in keys)


@pytest.mark.parametrize(("type_text", "raw", "value"), [
    ("TINYINT", b"\xff", -1), ("SMALLINT", struct.pack("<h", -300), -300), ("DATE", struct.pack("<i", 19000), 19000),
    ("BOOLEAN", b"\x01", True), ("FLOAT", struct.pack("<f", 1.5), 1.5), ("DOUBLE", struct.pack("<d", -0.0), -0.0),
    ("DECIMAL(10, 2)", struct.pack("<q", -12345), Decimal("-123.45")),
    ("DECIMAL(38, 3)", (-(10**30)).to_bytes(13, "big", signed=True), Decimal(-(10**30)).scaleb(-3)),
    ("TIMESTAMP(3)", struct.pack("<q", 1_700_000_000_123), Timestamp(1_700_000_000_123, 0)),
    ("TIMESTAMP(6)", struct.pack("<q", 5) + enc.varint(456_000), Timestamp(5, 456_000)),
    ("TIMESTAMP(9) WITH LOCAL TIME ZONE", struct.pack("<q", -1) + enc.varint(999_999), Timestamp(-1, 999_999)),
])
def test_key_encodings(type_text: str, raw: bytes, value: object) -> None:
    assert KeyCodec(parse_type(type_text)).decode(raw, "k") == value


def test_float_keys_order_as_java() -> None:
    sk = KeyCodec(parse_type("DOUBLE")).sort_key
    assert sorted([float("nan"), 0.0, -0.0, -1.0, float("inf")], key=sk)[:3] == [-1.0, -0.0, 0.0]


# ---- corruption --------------------------------------------------------------------------------------
def _btree_bytes() -> bytes:
    return enc.btree([(struct.pack("<i", k), [k]) for k in range(6)], nulls=[9], per_block=2)


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda b: b[:-4] + b"XXXX", "footer.magic"),
    (lambda b: b[:-8] + struct.pack("<i", 2) + b[-4:], "footer.version"),
    (lambda b: b[:3] + bytes([b[3] ^ 0xFF]) + b[4:], "data block 0.crc32"),
    (lambda b: b[10:], "footer.index"),
    (lambda b: b[:20], "file size"),
])
def test_btree_corruption_is_named(mutate, field: str) -> None:
    with pytest.raises(CorruptFileError) as e:
        BTreeIndex(mutate(_btree_bytes()), parse_type("INT"), "idx/btree.index")
    assert e.value.field.startswith(field) and e.value.path == "idx/btree.index" and e.value.offset is not None


def test_bitmap_corruption_is_named() -> None:
    data = enc.bitmap([(b"a", [1]), (b"b", [2, 3])], nulls=[0])
    with pytest.raises(CorruptFileError, match="BGIX") as e:
        BitmapGlobalIndex(data[:-1] + b"Y", parse_type("STRING"), "bitmap.index")
    assert e.value.offset == len(data) - 4
    count_at = len(data) - 12
    bad = data[:count_at] + struct.pack(">i", 5) + data[count_at + 4:]
    with pytest.raises(CorruptFileError, match="value_count"):
        BitmapGlobalIndex(bad, parse_type("STRING"), "bitmap.index")


# ---- metadata --------------------------------------------------------------------------------------
def test_sorted_meta_forms() -> None:
    two = struct.pack("<i", 0) + struct.pack("<i", 1) + b"z" + b"\x01\x01\x01"  # first key null, '' not needed
    m = read_sorted_meta(two, parse_type("STRING"), "m")
    assert (m.first_key, m.last_key, m.has_nulls, m.format_version) == (None, "z", True, 1)
    empty_key = struct.pack("<i", 0) + struct.pack("<i", 0) + b"\x00\x01\x00"
    assert read_sorted_meta(empty_key, parse_type("STRING"), "m").first_key == ""  # 2.0: '' is a key
    legacy = struct.pack("<i", 4) + struct.pack("<i", 7) + struct.pack("<i", 4) + struct.pack("<i", 9) + b"\x00"
    m = read_sorted_meta(legacy, parse_type("INT"), "m")
    assert (m.first_key, m.last_key, m.format_version) == (7, 9, None)  # Paimon 1.4's BTreeIndexMeta
    with pytest.raises(CorruptFileError, match="first_key_length"):
        read_sorted_meta(struct.pack("<i", 99), parse_type("INT"), "m")


def test_source_meta() -> None:
    name = b"data-1.parquet"
    raw = struct.pack(">iii", 1, 3, 2) + struct.pack(">H", len(name)) + name + struct.pack(">q", 10) \
        + struct.pack(">H", 1) + b"b" + struct.pack(">q", 4)
    m = read_source_meta(raw, "s")
    assert m.data_level == 3 and [f.file_name for f in m.files] == ["data-1.parquet", "b"] and m.row_count == 14
    assert m.locate(11) == ("b", 1) and m.locate(14) is None
    with pytest.raises(CorruptFileError, match="data_level"):
        read_source_meta(struct.pack(">iii", 1, 0, 1), "s")


def test_native_headers() -> None:
    ivf = struct.pack("<IIiiIqI", 0x4956464C, 1, 8, 2, 2, 100, 0) + bytes(32)
    h = read_native_header(ivf, "ivf-flat", "v")
    assert h is not None and (h.dimension, h.metric, h.vectors, h.decoded) == (8, "cosine", 100, False)
    with pytest.raises(CorruptFileError, match="magic"):
        read_native_header(ivf, "ivf-pq", "v")
    header = b'{"metadata": {"document_count": 3, "config": {}}, "files": []}'
    ft = b"PFTIDX01" + struct.pack(">II", 1, len(header)) + header
    assert read_native_header(ft, "full-text", "f").documents == 3  # type: ignore[union-attr]
    assert read_native_header(b"", "lumina", "l") is None
    assert read_json_meta(b"{}", "m") == {}
    assert read_json_meta(b'{"index.dimension": "4"}', "m")["index.dimension"] == "4"
