"""Deletion vectors: golden bytes written by Paimon, writer round trips, corruption handling."""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.deletion_vector import (
    MAGIC_32,
    MAGIC_64,
    MAX_POSITION_32,
    MAX_POSITION_64,
    read_deletion_vector,
    read_dv_index_file,
    read_serialized_deletion_vector,
    serialize_deletion_vector,
    write_dv_index_file,
)
from tests.conftest import FIXTURES, load_json, oracle_paths

# -- fixtures ----------------------------------------------------------------------------------

DV_CASES = sorted(p for p in FIXTURES.glob("blobs/dv_*/case.json"))


def _dv_vectors() -> list[Any]:
    out = []
    for case_path in DV_CASES:
        case = load_json(case_path)
        for v in case["deletion_vectors"]:
            out.append(pytest.param(case_path, case, v, id=f"{case_path.parent.name}-{v['serialized_file']}"))
    return out


def _oracle_dv_entries() -> list[Any]:
    out = []
    for oracle_path in oracle_paths():
        oracle = load_json(oracle_path)
        table_dir = os.path.join(os.path.dirname(oracle_path), oracle["table"]["path"])
        for entry in oracle.get("index_manifest_entries") or []:
            if entry["index_type"] != "DELETION_VECTORS":
                continue
            out.append(pytest.param(Path(table_dir) / entry["path"], entry,
                                    id=f"{oracle_path.parent.name}-{entry['file_name']}"))
    return out


ORACLE_DV_ENTRIES = _oracle_dv_entries()


def test_fixtures_present() -> None:
    assert len(DV_CASES) == 2
    assert len(ORACLE_DV_ENTRIES) >= 6


# -- golden: blob cases ------------------------------------------------------------------------


@pytest.mark.parametrize(("case_path", "case", "vec"), _dv_vectors())
def test_blob_case_vector(case_path: Path, case: dict[str, Any], vec: dict[str, Any]) -> None:
    d = case_path.parent
    data = (d / case["index_file"]).read_bytes()
    kind = "64" if case["bitmap64"] else "32"

    # via the index file, at the offset/length the index manifest records
    for bitmap64 in (case["bitmap64"], None):
        dv = read_deletion_vector(data, vec["index_file_offset"], vec["index_file_length"], bitmap64,
                                  case["index_file"])
        assert dv.kind == kind
        assert dv.cardinality == vec["cardinality"] == len(vec["positions"])
        assert list(dv.positions) == vec["positions"]
        assert dv.crc_ok and dv.crc_stored == dv.crc_computed
        assert dv.offset == vec["index_file_offset"]
        assert dv.length == vec["index_file_length"]
        assert dv.blob_size == vec["serialized_size"]
        assert isinstance(dv.positions, BitMap64 if case["bitmap64"] else BitMap)

    # via its own serialized file
    blob = (d / vec["serialized_file"]).read_bytes()
    assert len(blob) == vec["serialized_size"]
    assert hashlib.sha256(blob).hexdigest() == vec["sha256"]
    single = read_serialized_deletion_vector(blob, vec["serialized_file"])
    assert single.kind == kind
    assert list(single.positions) == vec["positions"]
    assert single.cardinality == vec["cardinality"]
    assert single.crc_ok
    assert single.offset == 0
    # the serialized file is exactly the blob's bytes in the index file
    start = vec["index_file_offset"]
    assert data[start:start + len(blob)] == blob

    # writer: identical bytes
    written = serialize_deletion_vector(vec["positions"], case["bitmap64"])
    assert written == blob
    assert hashlib.sha256(written).hexdigest() == vec["sha256"]


@pytest.mark.parametrize("case_path", DV_CASES, ids=lambda p: p.parent.name)
def test_blob_case_index_file(case_path: Path) -> None:
    case = load_json(case_path)
    data = (case_path.parent / case["index_file"]).read_bytes()
    assert len(data) == case["index_file_size"]
    assert hashlib.sha256(data).hexdigest() == case["index_file_sha256"]
    assert data[0] == case["index_file_version_byte"] == 1

    vectors = read_dv_index_file(data, case["index_file"])
    assert len(vectors) == len(case["deletion_vectors"])
    for dv, vec in zip(vectors, case["deletion_vectors"], strict=True):
        assert dv.offset == vec["index_file_offset"]
        assert dv.length == vec["index_file_length"]
        assert list(dv.positions) == vec["positions"]
        assert dv.crc_ok
    assert vectors[-1].end == len(data)

    written, metas = write_dv_index_file(
        [(v["data_file"], v["positions"]) for v in case["deletion_vectors"]], case["bitmap64"])
    assert written == data
    assert hashlib.sha256(written).hexdigest() == case["index_file_sha256"]
    assert [(m.data_file, m.offset, m.length, m.cardinality) for m in metas] == [
        (v["data_file"], v["index_file_offset"], v["index_file_length"], v["cardinality"])
        for v in case["deletion_vectors"]]


@pytest.mark.parametrize("case_path", DV_CASES, ids=lambda p: p.parent.name)
def test_crc_coverage_and_length_semantics(case_path: Path) -> None:
    """CRC-32 covers exactly the size-prefix bytes after the prefix (magic + bitmap), stored BE."""
    case = load_json(case_path)
    for vec in case["deletion_vectors"]:
        blob = (case_path.parent / vec["serialized_file"]).read_bytes()
        size = struct.unpack(">i", blob[:4])[0]
        assert len(blob) == 4 + size + 4
        assert struct.unpack(">I", blob[-4:])[0] == zlib.crc32(blob[4:4 + size])
        if case["bitmap64"]:
            assert blob[4:8] == struct.pack("<i", MAGIC_64) == bytes.fromhex("d1d33964")
            assert vec["index_file_length"] == len(blob)
        else:
            assert blob[4:8] == struct.pack(">i", MAGIC_32) == bytes.fromhex("5e43f2d0")
            assert vec["index_file_length"] == size


def test_bitmap64_gaps_are_dense_empty_bitmaps() -> None:
    """Paimon writes every key from 0 to the highest one; gaps are empty 8-byte bitmaps."""
    d = FIXTURES / "blobs" / "dv_bitmap64"
    blob = (d / "dv_5.bin").read_bytes()
    count = struct.unpack("<q", blob[8:16])[0]
    assert count == (max(load_json(d / "case.json")["deletion_vectors"][5]["positions"]) >> 32) + 1 == 257


# -- golden: Paimon's compatibility files ------------------------------------------------------


def test_dv_compat() -> None:
    compat = load_json(FIXTURES / "dv_compat" / "dv_compat.json")
    for f in compat["files"]:
        data = (FIXTURES / "dv_compat" / f["file"]).read_bytes()
        assert len(data) == f["size"] and data[0] == f["version_byte"]
        vectors = read_dv_index_file(data, f["file"])
        assert len(vectors) == len(f["deletion_vectors"])
        for dv, exp in zip(vectors, f["deletion_vectors"], strict=True):
            kind = "64" if exp["class"] == "Bitmap64DeletionVector" else "32"
            assert dv.kind == kind
            assert dv.offset == exp["offset"]
            assert dv.stored_size == exp["length_prefix"]
            assert dv.length == exp["meta_length"]
            assert dv.blob_size == exp["bytes_consumed"]
            assert dv.cardinality == exp["cardinality"]
            assert list(dv.positions) == exp["positions"]
            assert dv.crc_ok
            again = read_deletion_vector(data, exp["offset"], exp["meta_length"], kind == "64", f["file"])
            assert list(again.positions) == exp["positions"]
            assert serialize_deletion_vector(exp["positions"], kind == "64") == data[dv.offset:dv.end]


# -- golden: table oracles ---------------------------------------------------------------------


@pytest.mark.parametrize(("index_path", "entry"), ORACLE_DV_ENTRIES)
def test_table_oracle_deletion_vectors(index_path: Path, entry: dict[str, Any]) -> None:
    data = index_path.read_bytes()
    assert len(data) == entry["file_size"]
    vectors = read_dv_index_file(data, entry["path"])
    assert len(vectors) == entry["row_count"] == len(entry["deletion_vectors"] or [])
    by_offset = {dv.offset: dv for dv in vectors}
    for exp in entry["deletion_vectors"] or []:
        dv = read_deletion_vector(data, exp["offset"], exp["length"], None, entry["path"])
        assert dv.cardinality == exp["cardinality"] == len(exp["deleted_positions"])
        if "stored_cardinality" in exp:
            assert dv.cardinality == exp["stored_cardinality"]
        if "class" in exp:
            assert dv.kind == ("64" if exp["class"] == "Bitmap64DeletionVector" else "32")
        assert list(dv.positions) == exp["deleted_positions"]
        assert dv.crc_ok
        assert list(by_offset[exp["offset"]].positions) == exp["deleted_positions"]
        assert serialize_deletion_vector(exp["deleted_positions"], dv.kind == "64") == data[dv.offset:dv.end]


def test_one_byte_file_holds_no_vectors() -> None:
    assert read_dv_index_file(b"\x01", "empty") == []
    assert write_dv_index_file({}) == (b"\x01", [])


# -- errors ------------------------------------------------------------------------------------

BLOB32 = serialize_deletion_vector([1, 5, 70000])
BLOB64 = serialize_deletion_vector([1, 5, 1 << 33], bitmap64=True)
FILE32 = b"\x01" + BLOB32
FILE64 = b"\x01" + BLOB64


def _err(fn: Any, *args: Any, **kwargs: Any) -> CorruptFileError:
    with pytest.raises(CorruptFileError) as ei:
        fn(*args, **kwargs)
    return ei.value


def test_truncated_blob() -> None:
    for data in (FILE32, FILE64):
        for cut in range(2, len(data)):
            e = _err(read_dv_index_file, data[:cut], "f")
            assert e.path == "f" and e.offset is not None and e.field.startswith("deletion_vector[0]")
        e = _err(read_serialized_deletion_vector, data[1:-1], "blob")
        assert e.path == "blob"
        assert "crc" in e.field or "bitmap" in e.field


def test_bad_magic() -> None:
    bad = bytearray(FILE32)
    bad[5:9] = b"\x00\x00\x00\x07"
    e = _err(read_deletion_vector, bytes(bad), 1, None, None, "f")
    assert (e.path, e.offset, e.field) == ("f", 5, "deletion_vector.magic")
    e = _err(read_dv_index_file, bytes(bad), "f")
    assert (e.offset, e.field) == (5, "deletion_vector[0].magic")


def test_kind_mismatch() -> None:
    e = _err(read_deletion_vector, FILE32, 1, None, True, "f")
    assert e.field == "deletion_vector.magic" and e.offset == 5
    e = _err(read_deletion_vector, FILE64, 1, None, False, "f")
    assert e.field == "deletion_vector.magic"


def test_length_semantics_and_mismatch() -> None:
    size32 = struct.unpack(">i", BLOB32[:4])[0]
    size64 = struct.unpack(">i", BLOB64[:4])[0]
    assert read_deletion_vector(FILE32, 1, size32).length == size32
    assert read_deletion_vector(FILE64, 1, size64 + 8).length == size64 + 8
    # the other kind's convention is rejected
    e = _err(read_deletion_vector, FILE32, 1, size32 + 8, None, "f")
    assert (e.field, e.offset) == ("deletion_vector.size", 1)
    e = _err(read_deletion_vector, FILE64, 1, size64, None, "f")
    assert (e.field, e.offset) == ("deletion_vector.size", 1)


def test_size_prefix_disagrees_with_bitmap() -> None:
    for blob in (BLOB32, BLOB64):
        size = struct.unpack(">i", blob[:4])[0]
        for new in (size - 1, size + 1, 3, 0, -5, 1 << 30):
            bad = struct.pack(">i", new) + blob[4:]
            with pytest.raises(CorruptFileError):
                read_serialized_deletion_vector(bad, "blob")
        # bytes inside the declared size that no bitmap uses
        padded = blob[4:-4] + b"\x00\x00"
        bad = struct.pack(">i", size + 2) + padded + struct.pack(">I", zlib.crc32(padded))
        e = _err(read_serialized_deletion_vector, bad, "blob")
        assert "bitmap" in e.field


def test_offsets_beyond_file() -> None:
    for off in (len(FILE32), len(FILE32) + 100, 10**12, -1):
        e = _err(read_deletion_vector, FILE32, off, None, None, "f")
        assert e.path == "f" and "offset" in e.field
    e = _err(read_deletion_vector, FILE32, 0, None, None, "f")
    assert e.field == "offset"
    e = _err(read_deletion_vector, FILE32[:len(FILE32) - 2], 1, None, None, "f")
    assert e.offset is not None


def test_bad_version() -> None:
    e = _err(read_dv_index_file, b"\x02" + BLOB32, "f")
    assert (e.field, e.offset, e.found) == ("version", 0, 2)
    e = _err(read_dv_index_file, b"", "f")
    assert e.field == "version"
    e = _err(read_deletion_vector, b"\x00" + BLOB32, 1, None, None, "f")
    assert e.field == "version"


def test_non_roaring_bytes() -> None:
    body = struct.pack(">i", MAGIC_32) + b"\xff" * 16
    blob = struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    e = _err(read_serialized_deletion_vector, blob, "blob")
    assert e.field.startswith("deletion_vector.bitmap") and e.offset == 8
    # valid framing, array values not increasing: pyroaring's validation via roaring.deserialize
    roar = bytes.fromhex("3a300000" "01000000" "00000100" "10000000" "05000300")
    body = struct.pack(">i", MAGIC_32) + roar
    blob = struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    e = _err(read_serialized_deletion_vector, blob, "blob")
    assert e.field.startswith("deletion_vector.bitmap")


def _blob64(body_after_magic: bytes) -> bytes:
    body = struct.pack("<i", MAGIC_64) + body_after_magic
    return struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def test_bitmap64_count_is_validated_before_allocating() -> None:
    empty = BitMap().serialize()
    for count in (1 << 30, (1 << 31) - 1, 1 << 31, 1 << 40, -1, 2):
        blob = _blob64(struct.pack("<q", count) + struct.pack("<i", 0) + empty)
        e = _err(read_serialized_deletion_vector, blob, "blob")
        assert e.field.startswith("deletion_vector.bitmap.count")
        assert e.offset == 8


def test_bitmap64_keys_validated() -> None:
    one = BitMap([1]).serialize()
    cases = {
        "descending": struct.pack("<q", 2) + struct.pack("<i", 3) + one + struct.pack("<i", 1) + one,
        "duplicate": struct.pack("<q", 2) + struct.pack("<i", 1) + one + struct.pack("<i", 1) + one,
        "negative": struct.pack("<q", 1) + struct.pack("<i", -1) + one,
        "too large": struct.pack("<q", 1) + struct.pack("<i", (1 << 31) - 1) + one,
    }
    for name, body in cases.items():
        e = _err(read_serialized_deletion_vector, _blob64(body), "blob")
        assert "key" in e.field, name


def test_bitmap64_sparse_keys_accepted() -> None:
    """Paimon writes dense keys but reads sparse ones (gaps filled with empty bitmaps)."""
    body = struct.pack("<q", 2) + struct.pack("<i", 0) + BitMap([7]).serialize() \
        + struct.pack("<i", 5) + BitMap([9]).serialize()
    dv = read_serialized_deletion_vector(_blob64(body))
    assert list(dv.positions) == [7, (5 << 32) | 9]
    assert dv.crc_ok
    # the writer re-emits them densely
    assert serialize_deletion_vector(dv.positions, bitmap64=True) != _blob64(body)
    assert list(read_serialized_deletion_vector(serialize_deletion_vector(dv.positions, True)).positions) \
        == [7, (5 << 32) | 9]


def test_empty_vectors() -> None:
    for bitmap64 in (False, True):
        blob = serialize_deletion_vector([], bitmap64)
        dv = read_serialized_deletion_vector(blob)
        assert dv.cardinality == 0 and dv.crc_ok and dv.stored_size == 12


def test_crc_mismatch_reported_not_raised() -> None:
    for data in (FILE32, FILE64):
        bad = bytearray(data)
        bad[-1] ^= 0x01
        dv = read_deletion_vector(bytes(bad), 1, None, None, "f")
        assert not dv.crc_ok and dv.crc_stored != dv.crc_computed
        assert dv.crc_computed == zlib.crc32(data[5:-4])
        assert [v.crc_ok for v in read_dv_index_file(bytes(bad), "f")] == [False]
        e = _err(read_deletion_vector, bytes(bad), 1, None, None, "f", strict_crc=True)
        assert e.field == "deletion_vector.crc" and e.offset == len(data) - 4
        e = _err(read_dv_index_file, bytes(bad), "f", strict_crc=True)
        assert e.field == "deletion_vector[0].crc"
        e = _err(read_serialized_deletion_vector, bytes(bad[1:]), "b", strict_crc=True)
        assert e.offset == len(data) - 5


def test_trailing_bytes_after_standalone_blob() -> None:
    e = _err(read_serialized_deletion_vector, BLOB32 + b"\x00", "blob")
    assert e.offset == len(BLOB32)


def test_writer_rejects_out_of_range_positions() -> None:
    for bad in ([-1], [MAX_POSITION_32 + 1]):
        with pytest.raises(ValueError):
            serialize_deletion_vector(bad)
    for bad in ([-1], [MAX_POSITION_64 + 1]):
        with pytest.raises(ValueError):
            serialize_deletion_vector(bad, bitmap64=True)
    assert read_serialized_deletion_vector(serialize_deletion_vector([MAX_POSITION_32])).to_list() \
        == [MAX_POSITION_32]
    # the highest position needs 2^31 - 1 dense keys: refused (> 2 GiB), as Paimon does
    with pytest.raises(ValueError, match="2 GiB"):
        serialize_deletion_vector([MAX_POSITION_64], bitmap64=True)
    assert read_serialized_deletion_vector(serialize_deletion_vector([(1000 << 32) | 0xFFFFFFFF], True)).to_list() \
        == [(1000 << 32) | 0xFFFFFFFF]


def test_is_deleted() -> None:
    dv = read_serialized_deletion_vector(BLOB64)
    assert dv.is_deleted(1 << 33) and not dv.is_deleted(2) and not dv.is_deleted(-1)
    assert not dv.is_deleted(1 << 70)
    dv32 = read_serialized_deletion_vector(BLOB32)
    assert dv32.is_deleted(70000) and not dv32.is_deleted(1 << 40)


# -- property tests ----------------------------------------------------------------------------

positions32 = st.lists(st.one_of(st.integers(0, 200_000), st.integers(0, MAX_POSITION_32)), max_size=300)
ranges32 = st.lists(st.tuples(st.integers(0, 300_000), st.integers(0, 70_000)), max_size=3)


@st.composite
def positions32_with_runs(draw: st.DrawFn) -> list[int]:
    values = set(draw(positions32))
    for start, n in draw(ranges32):
        values.update(range(start, start + n))
    return sorted(values)


positions64 = st.lists(
    st.builds(lambda key, low: (key << 32) | low, st.integers(0, 40),
              st.one_of(st.integers(0, 100_000), st.integers(0, 0xFFFFFFFF))),
    max_size=200)


def _check_roundtrip(positions: list[int], bitmap64: bool) -> None:
    expected = sorted(set(positions))
    blob = serialize_deletion_vector(positions, bitmap64)
    dv = read_serialized_deletion_vector(blob)
    assert dv.kind == ("64" if bitmap64 else "32")
    assert dv.to_list() == expected and dv.cardinality == len(expected) and dv.crc_ok
    data, metas = write_dv_index_file({"a": positions, "b": expected[:3]}, bitmap64)
    for meta, exp in zip(metas, (expected, expected[:3]), strict=True):
        got = read_deletion_vector(data, meta.offset, meta.length, bitmap64)
        assert got.to_list() == exp and got.cardinality == meta.cardinality
    assert [v.to_list() for v in read_dv_index_file(data)] == [expected, expected[:3]]
    # a bitmap input serializes the same way as the list
    bm: BitMap | BitMap64 = BitMap64(expected) if bitmap64 else BitMap(expected)
    assert serialize_deletion_vector(bm, bitmap64) == blob


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(positions32_with_runs())
def test_roundtrip_32(positions: list[int]) -> None:
    _check_roundtrip(positions, False)


@settings(deadline=None, max_examples=150)
@given(positions64)
def test_roundtrip_64(positions: list[int]) -> None:
    _check_roundtrip(positions, True)


@settings(deadline=None, max_examples=300)
@given(st.data())
def test_mutation_fuzz(data: st.DataObject) -> None:
    """Flipped, replaced, inserted or cut bytes: CorruptFileError or crc_ok False, nothing else."""
    bitmap64 = data.draw(st.booleans())
    positions = data.draw(positions64 if bitmap64 else positions32)
    original, metas = write_dv_index_file({"a": positions, "b": [3, 4]}, bitmap64)
    mutated = bytearray(original)
    action = data.draw(st.sampled_from(["flip", "set", "truncate", "splice"]))
    if action == "flip":
        i = data.draw(st.integers(0, len(mutated) - 1))
        mutated[i] ^= 1 << data.draw(st.integers(0, 7))
    elif action == "set":
        i = data.draw(st.integers(0, len(mutated) - 1))
        mutated[i] = data.draw(st.integers(0, 255).filter(lambda b: b != mutated[i]))
    elif action == "truncate":
        del mutated[data.draw(st.integers(0, len(mutated) - 1)):]
    else:
        i = data.draw(st.integers(0, len(mutated) - 1))
        mutated[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    bad = bytes(mutated)

    # whole-file walk
    try:
        vectors = read_dv_index_file(bad, "mut")
    except CorruptFileError as e:
        assert e.path == "mut" and e.field
    else:
        if action == "truncate":  # cut exactly at a blob boundary: a shorter valid file
            assert all(v.crc_ok for v in vectors) and len(vectors) < len(metas)
        else:
            assert not all(v.crc_ok for v in vectors) or len(vectors) != len(metas)

    # manifest-directed reads
    for meta in metas:
        try:
            dv = read_deletion_vector(bad, meta.offset, meta.length, bitmap64, "mut")
        except CorruptFileError as e:
            assert e.path == "mut"
        else:
            original_dv = read_deletion_vector(original, meta.offset, meta.length, bitmap64)
            if bad[meta.offset:original_dv.end] != original[meta.offset:original_dv.end]:
                assert not dv.crc_ok
            else:
                assert dv.crc_ok and dv.to_list() == original_dv.to_list()

    # strict mode never returns a bad CRC
    try:
        for meta in metas:
            assert read_deletion_vector(bad, meta.offset, meta.length, None, "mut", strict_crc=True).crc_ok
    except CorruptFileError:
        pass


@settings(deadline=None, max_examples=200)
@given(st.binary(max_size=64), st.sampled_from([MAGIC_32, MAGIC_64]))
def test_random_bodies(body: bytes, magic: int) -> None:
    """Arbitrary bytes behind a valid frame: CorruptFileError or a decoded vector, never a crash."""
    head = struct.pack(">i", magic) if magic == MAGIC_32 else struct.pack("<i", magic)
    payload = head + body
    blob = struct.pack(">i", len(payload)) + payload + struct.pack(">I", zlib.crc32(payload))
    try:
        dv = read_serialized_deletion_vector(blob, "rand")
    except CorruptFileError as e:
        assert e.path == "rand"
    else:
        assert dv.crc_ok and dv.cardinality == len(dv.positions)
