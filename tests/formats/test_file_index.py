"""The file-index container (FileIndexFormat): Paimon-written fixtures, round trips, corruption."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.file_index_format import (
    EMPTY_INDEX_FLAG,
    MAGIC,
    FileIndexFormatReader,
    encode_modified_utf8,
    read_layout,
    split_map_key,
    write_file_index,
)
from paimon_lens.formats.index_reader import EmptyFileIndexReader
from paimon_lens.formats.registry import UnsupportedIndexReader
from paimon_lens.io.byte_reader import ByteReader, decode_modified_utf8
from paimon_lens.types import parse_type
from tests.conftest import FIXTURES, blob_cases, load_json, oracle_paths
from tests.formats.oracle_tree import OracleTable

CONTAINER_CASES = [p for p in blob_cases() if "container" in load_json(p)]


# ---- (a) blobs written by Paimon 2.0.0 ----------------------------------------------------------

@pytest.mark.parametrize("case_path", CONTAINER_CASES, ids=lambda p: str(p.parent.relative_to(FIXTURES / "blobs")))
def test_blob_container_layout(case_path: Path) -> None:
    case = load_json(case_path)
    data = (case_path.parent / case["container"]["file"]).read_bytes()
    assert len(data) == case["container"]["size"]
    reader = FileIndexFormatReader(data, str(case_path.parent / "container.index"))
    assert reader.layout.to_json() == case["container"]["layout"]
    assert reader.layout.size == len(data)
    # every column blob is exactly the bytes the container holds for it
    for col in case.get("columns", []):
        for idx in col["indexes"]:
            got = reader.read_index_bytes(col["name"], idx["index_type"])
            if got is not None:
                assert got == (case_path.parent / idx["file"]).read_bytes(), (col["name"], idx["index_type"])
                assert len(got) == idx["size"]


@pytest.mark.parametrize("case_path", CONTAINER_CASES, ids=lambda p: str(p.parent.relative_to(FIXTURES / "blobs")))
def test_blob_container_rewrite_is_byte_identical(case_path: Path) -> None:
    data = (case_path.parent / "container.index").read_bytes()
    assert write_file_index(FileIndexFormatReader(data).read_all()) == data


def test_empty_index_flag_entry() -> None:
    d = FIXTURES / "blobs" / "container_empty_index_flag"
    reader = FileIndexFormatReader((d / "container.index").read_bytes())
    ghost = reader.index_entries("ghost")["bitmap"]
    assert ghost.empty and ghost.start == EMPTY_INDEX_FLAG and ghost.length == 0
    assert reader.read_entry(ghost) is None
    assert reader.read_index_bytes("ghost", "bitmap") is None
    readers = reader.create_readers("ghost", parse_type("STRING"))
    assert [t for t, _ in readers] == ["bitmap"]
    assert isinstance(readers[0][1], EmptyFileIndexReader)
    assert reader.read_all()["ghost"] == {"bitmap": None}


def test_open_reads_file_lazily(tmp_path: Path) -> None:
    d = FIXTURES / "blobs" / "mixed_container"
    case = load_json(d / "case.json")
    reader = FileIndexFormatReader.open(str(d / "container.index"))
    assert reader.layout.to_json() == case["container"]["layout"]
    assert reader.path == str(d / "container.index")
    whole = FileIndexFormatReader((d / "container.index").read_bytes())
    assert reader.read_all() == whole.read_all()
    # a truncated file names its path
    cut = tmp_path / "cut.index"
    cut.write_bytes((d / "container.index").read_bytes()[:200])
    with pytest.raises(CorruptFileError) as e:
        FileIndexFormatReader.open(str(cut))
    assert e.value.path == str(cut)
    assert e.value.field.startswith("columns[")


# ---- (b) containers of Paimon-written tables -------------------------------------------------------

@pytest.mark.parametrize("oracle_path", oracle_paths(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_table_containers_match_oracle(oracle_path: Path) -> None:
    table = OracleTable(oracle_path)
    checked = 0
    for file in table.oracle["files"]:
        fi = file["file_index"]
        got = table.container(file)
        if got is None:
            assert fi["location"] == "none"
            continue
        data, path = got
        assert len(data) == fi["size"], path
        reader = FileIndexFormatReader(data, path)
        columns = {c: {t: e.length for t, e in reader.index_entries(c).items()} for c in reader.column_names()}
        assert columns == fi["columns"], path
        assert write_file_index(reader.read_all()) == data, path
        row_type = {f.name: f.type for f in table.row_type(file)}
        for column in reader.column_names():
            top, key = split_map_key(column)
            assert top in row_type, (path, column)
            if key is not None:
                assert row_type[top].root == "MAP"
        checked += 1
    expected = sum(1 for f in table.oracle["files"] if f["file_index"]["location"] != "none")
    assert checked == expected


def test_embedded_and_external_locations_are_both_covered() -> None:
    seen = set()
    for p in oracle_paths():
        for f in load_json(p)["files"]:
            seen.add(f["file_index"]["location"])
    assert {"embedded", "external"} <= seen


# ---- errors ------------------------------------------------------------------------------------

def _sample() -> bytes:
    return write_file_index({"a": {"bloom-filter": b"\x00\x00\x00\x01\xff"}, "b[k]": {"bitmap": None, "bsi": b"xyz"}})


def test_bad_magic() -> None:
    data = bytearray(_sample())
    data[0] ^= 1
    with pytest.raises(CorruptFileError) as e:
        FileIndexFormatReader(bytes(data), "x.index")
    assert (e.value.path, e.value.offset, e.value.field) == ("x.index", 0, "magic")
    assert e.value.expected == MAGIC


def test_bad_version() -> None:
    data = bytearray(_sample())
    data[11] = 2
    with pytest.raises(CorruptFileError) as e:
        read_layout(bytes(data), "x.index")
    assert (e.value.offset, e.value.field, e.value.found) == (8, "version", 2)


@pytest.mark.parametrize("head_length", [0, 23, 10_000, -5])
def test_bad_head_length(head_length: int) -> None:
    data = bytearray(_sample())
    data[12:16] = struct.pack(">i", head_length)
    with pytest.raises(CorruptFileError) as e:
        read_layout(bytes(data), "x.index")
    assert (e.value.offset, e.value.field) == (12, "head_length")


def test_offsets_outside_the_body() -> None:
    data = _sample()
    layout = read_layout(data)
    # locate the start field of column 0 / index 0 in the head
    pos = 16 + 4 + 2 + 1 + 4 + 2 + len("bloom-filter")
    assert struct.unpack(">i", data[pos:pos + 4])[0] == layout.columns[0].indexes[0].start
    for bad_start in (5, len(data) + 1, -2):
        bad = data[:pos] + struct.pack(">i", bad_start) + data[pos + 4:]
        with pytest.raises(CorruptFileError) as e:
            read_layout(bad, "x.index")
        assert (e.value.field, e.value.offset) == ("columns[0].indexes[0].start", pos)
    for bad_length in (-1, len(data)):
        bad = data[:pos + 4] + struct.pack(">i", bad_length) + data[pos + 8:]
        with pytest.raises(CorruptFileError) as e:
            read_layout(bad, "x.index")
        assert (e.value.field, e.value.offset) == ("columns[0].indexes[0].length", pos + 4)


def test_every_truncation_is_reported() -> None:
    data = _sample()
    head_length = read_layout(data).head_length
    for n in range(len(data)):
        with pytest.raises(CorruptFileError) as e:
            FileIndexFormatReader(data[:n], "t.index")
        assert e.value.path == "t.index"
        assert e.value.offset is not None and 0 <= e.value.offset <= max(n, 16)
        if n < 16:
            assert e.value.field in ("magic", "version", "head_length")
        elif n < head_length:
            assert e.value.field == "head_length"
        # n >= head_length: an entry no longer fits in the container


def test_huge_counts_do_not_allocate() -> None:
    data = bytearray(_sample())
    data[16:20] = struct.pack(">i", 2**31 - 1)
    with pytest.raises(CorruptFileError) as e:
        read_layout(bytes(data))
    assert e.value.field == "column_count"


def test_unknown_index_type_is_a_remain_reader() -> None:
    data = write_file_index({"c": {"zorder-magic": b"abc"}})
    reader = FileIndexFormatReader(data)
    [(t, r)] = reader.create_readers("c", parse_type("INT"))
    assert t == "zorder-magic"
    assert isinstance(r, UnsupportedIndexReader)
    assert r.note and "unknown index type" in r.note
    assert r.visit_equal(1).remain()


def test_duplicate_names_merge_like_java_hashmap() -> None:
    # Hand-built head: column "a" twice, index type "x" twice -> last wins
    body = b"11223344"
    entries = [("a", [("x", 0, 2), ("y", 2, 2)]), ("a", [("x", 4, 4)])]
    names = sum(2 + len(c) + sum(2 + len(t) for t, _, _ in idx) for c, idx in entries)
    head_length = 24 + 8 * 3 + 4 * 2 + names
    out = struct.pack(">qiii", MAGIC, 1, head_length, len(entries))
    for c, idx in entries:
        out += struct.pack(">H", len(c)) + c.encode() + struct.pack(">i", len(idx))
        for t, s, n in idx:
            out += struct.pack(">H", len(t)) + t.encode() + struct.pack(">ii", s + head_length, n)
    out += struct.pack(">i", 0) + body
    reader = FileIndexFormatReader(out)
    assert reader.column_names() == ["a"]
    assert {t: e.length for t, e in reader.index_entries("a").items()} == {"x": 4, "y": 2}
    assert reader.read_index_bytes("a", "x") == b"3344"


# ---- modified UTF-8 ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,raw", [
    ("abc", b"abc"),
    ("a\x00b", b"a\xc0\x80b"),
    ("é", "é".encode()),
    ("東京", "東京".encode()),
    ("𝄞", b"\xed\xa0\xb4\xed\xb4\x9e"),
])
def test_modified_utf8(text: str, raw: bytes) -> None:
    assert encode_modified_utf8(text) == raw
    assert decode_modified_utf8(raw) == text


def test_name_too_long() -> None:
    with pytest.raises(ValueError):
        write_file_index({"x" * 70000: {"bitmap": b""}})


# ---- (d) properties ------------------------------------------------------------------------------

_names = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_containers = st.dictionaries(
    _names,
    st.dictionaries(st.sampled_from(["bloom-filter", "bitmap", "bsi", "range-bitmap", "other"]),
                    st.one_of(st.none(), st.binary(max_size=40)), max_size=4),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(_containers)
def test_writer_reader_round_trip(indexes: dict[str, dict[str, bytes | None]]) -> None:
    data = write_file_index(indexes)
    reader = FileIndexFormatReader(data)
    layout = reader.layout
    assert layout.magic == MAGIC and layout.version == 1 and layout.redundant_length == 0
    assert reader.read_all() == indexes
    assert [c.column for c in layout.columns] == list(indexes)
    assert layout.head_length + layout.body_length == len(data)
    for column, by_type in indexes.items():
        for t, blob in by_type.items():
            assert reader.index_entries(column)[t].empty == (blob is None)
    # names survive the Java-compatible UTF encoding
    r = ByteReader(data)
    r.seek(20)
    for column in indexes:
        assert r.utf("name") == column
        n = r.i32("count")
        for _ in range(n):
            r.utf("type")
            r.i64("start+length")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_containers, st.data())
def test_mutated_or_truncated_containers_only_raise_corrupt_file_error(
        indexes: dict[str, dict[str, bytes | None]], data: st.DataObject) -> None:
    blob = bytearray(write_file_index(indexes))
    n_mut = data.draw(st.integers(0, 4))
    for _ in range(n_mut):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(blob)))
    blob = blob[:cut]
    try:
        reader = FileIndexFormatReader(bytes(blob), "m.index")
        reader.read_all()
        for column in reader.column_names():
            # only the readers this module owns (bloom filter, unknown types, empty entries)
            if set(reader.index_entries(column)) <= {"bloom-filter", "other"}:
                for _, r in reader.create_readers(column, parse_type("STRING")):
                    r.visit_equal("x")
    except CorruptFileError as e:
        assert e.path == "m.index"
        assert e.offset is None or 0 <= e.offset <= len(blob)
