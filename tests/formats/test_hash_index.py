"""HASH (dynamic bucket) index files against the Paimon-written table and round trips."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.hash_index import HASH_INDEX, read_hash_index, write_hash_index
from tests.conftest import FIXTURES, load_json, oracle_paths

DYN_ORACLE = FIXTURES / "tables" / "c_pk_deletion_vectors" / "oracle_orders_dyn.json"


def _hash_entries() -> list[Any]:
    out = []
    for oracle_path in oracle_paths():
        oracle = load_json(oracle_path)
        table_dir = os.path.join(os.path.dirname(oracle_path), oracle["table"]["path"])
        for entry in oracle.get("index_manifest_entries") or []:
            if entry["index_type"] == HASH_INDEX:
                out.append(pytest.param(Path(table_dir) / entry["path"], entry,
                                        id=f"{oracle_path.stem}-bucket{entry['bucket']}"))
    return out


HASH_ENTRIES = _hash_entries()


def test_dynamic_bucket_oracle_has_hash_entries() -> None:
    oracle = load_json(DYN_ORACLE)
    n = sum(1 for e in oracle["index_manifest_entries"] if e["index_type"] == HASH_INDEX)
    assert n >= 1 and len(HASH_ENTRIES) == n


@pytest.mark.parametrize(("path", "entry"), HASH_ENTRIES)
def test_hash_index_matches_oracle(path: Path, entry: dict[str, Any]) -> None:
    data = path.read_bytes()
    assert len(data) == entry["file_size"]
    idx = read_hash_index(data, entry["path"], expected_count=entry["row_count"])
    assert idx.count == entry["row_count"] == len(entry["hashes"])
    assert idx.to_list() == entry["hashes"]
    assert idx.hashes.dtype == np.int32
    assert idx.distinct_count == len(set(entry["hashes"]))
    assert idx.duplicate_count == idx.count - idx.distinct_count
    assert entry["hashes"][0] in idx and (1 << 40) not in idx
    assert write_hash_index(entry["hashes"]) == data


def test_hash_codes_are_big_endian_int32() -> None:
    idx = read_hash_index(bytes.fromhex("80000000" "7fffffff" "ffffffff" "00000001" "00000001"))
    assert idx.to_list() == [-(1 << 31), (1 << 31) - 1, -1, 1, 1]
    assert (idx.count, idx.distinct_count, idx.duplicate_count) == (5, 4, 1)
    assert not idx.hashes.flags.writeable


def test_empty_file() -> None:
    idx = read_hash_index(b"", "empty", expected_count=0)
    assert (idx.count, idx.distinct_count, idx.to_list()) == (0, 0, [])
    assert write_hash_index([]) == b""


@pytest.mark.parametrize("extra", [1, 2, 3])
def test_trailing_partial_int(extra: int) -> None:
    data = write_hash_index([1, 2, 3]) + b"\x00" * extra
    with pytest.raises(CorruptFileError) as ei:
        read_hash_index(data, "idx")
    e = ei.value
    assert (e.path, e.offset, e.field) == ("idx", 12, "hash[3]")


def test_row_count_mismatch() -> None:
    with pytest.raises(CorruptFileError) as ei:
        read_hash_index(write_hash_index([1, 2, 3]), "idx", expected_count=4)
    assert ei.value.path == "idx" and ei.value.field == "row_count"


def test_writer_rejects_non_int32() -> None:
    for bad in ([1 << 31], [-(1 << 31) - 1]):
        with pytest.raises(ValueError):
            write_hash_index(bad)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.integers(-(1 << 31), (1 << 31) - 1), max_size=500))
def test_roundtrip(hashes: list[int]) -> None:
    data = write_hash_index(hashes)
    assert len(data) == 4 * len(hashes)
    idx = read_hash_index(data, expected_count=len(hashes))
    assert idx.to_list() == hashes
    assert idx.distinct_count == len(set(hashes))


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=64))
def test_arbitrary_bytes(data: bytes) -> None:
    try:
        idx = read_hash_index(data, "rand")
    except CorruptFileError as e:
        assert len(data) % 4 and e.path == "rand"
    else:
        assert idx.count == len(data) // 4 and write_hash_index(idx.to_list()) == data
