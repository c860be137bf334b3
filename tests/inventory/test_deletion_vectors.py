"""Deletion vectors and HASH index files of every fixture table equal Paimon's own decoding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.inventory.deletion_vectors import table_deletion_vectors, table_hash_index
from paimon_lens.table.facade import Table
from tests.conftest import load_json, oracle_paths

WITH_INDEX = [p for p in oracle_paths() if load_json(p)["index_manifest_entries"]]


def _table(oracle: Path) -> Table:
    return pl.open_table(str(oracle.parent / load_json(oracle)["table"]["path"]))


def test_fixtures_have_deletion_vectors() -> None:
    assert len(WITH_INDEX) >= 3


@pytest.mark.parametrize("oracle", WITH_INDEX, ids=lambda p: p.stem[7:])
def test_deletion_vectors_match_oracle(oracle: Path) -> None:
    o = load_json(oracle)
    table = _table(oracle)
    want = {dv["data_file"]: (e, dv) for e in o["index_manifest_entries"] for dv in e.get("deletion_vectors") or []}
    got = {d.data_file: d for d in table_deletion_vectors(table.reader)}
    assert set(got) == set(want)
    for name, (entry, dv) in want.items():
        d = got[name]
        assert d.error is None and d.crc_ok is True
        assert d.index_file == entry["path"] and (d.offset, d.length) == (dv["offset"], dv["length"])
        assert d.positions is not None and list(d.positions) == dv["deleted_positions"]
        assert d.cardinality == dv["cardinality"]
        if "stored_cardinality" in dv:
            assert d.stored_cardinality == dv["stored_cardinality"]
    frame = table.deletion_vectors()
    assert len(frame) == len(want)
    files = {f["file_name"]: f for f in o["files"]}
    for row in frame.itertuples():
        assert row.row_count == files[row.data_file]["row_count"]
        assert row.deleted_ratio == pytest.approx(row.cardinality / row.row_count)


def test_hash_index_matches_oracle() -> None:
    oracle = next(p for p in WITH_INDEX if p.stem == "oracle_orders_dyn")
    o = load_json(oracle)
    want = {e["path"]: e["hashes"] for e in o["index_manifest_entries"] if e["index_type"] == "HASH"}
    got = {h.index_file: h for h in table_hash_index(_table(oracle).reader)}
    assert set(got) == set(want)
    for path, hashes in want.items():
        idx = got[path].index
        assert idx is not None and idx.to_list() == hashes
    assert len(_table(oracle).hash_index()) == len(want)


def test_corrupt_index_file_is_reported_not_raised(tmp_path: Path) -> None:
    import shutil

    oracle = next(p for p in WITH_INDEX if p.stem == "oracle_orders_dv")
    src = oracle.parent / load_json(oracle)["table"]["path"]
    dst = tmp_path / "t"
    shutil.copytree(src, dst)
    o = load_json(oracle)
    entry = next(e for e in o["index_manifest_entries"] if e.get("deletion_vectors"))
    f = dst / entry["path"]
    data = bytearray(f.read_bytes())
    dv = entry["deletion_vectors"][0]
    data[dv["offset"] + 4] ^= 0xFF  # break the magic of the first blob
    f.write_bytes(bytes(data))
    rows = table_deletion_vectors(pl.open_table(str(dst)).reader)
    broken = [r for r in rows if r.error]
    assert len(broken) == 1 and "magic" in broken[0].error and str(f) in broken[0].error
    assert all(r.crc_ok for r in rows if not r.error)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paimon_lens", *args], capture_output=True, text=True)


def test_cli_dv_json() -> None:
    oracle = next(p for p in WITH_INDEX if p.stem == "oracle_orders_dv20")
    o = load_json(oracle)
    tdir = oracle.parent / o["table"]["path"]
    for e in o["index_manifest_entries"]:
        for dv in e.get("deletion_vectors") or []:
            r = _cli("dv", str(tdir / e["path"]), "--offset", str(dv["offset"]), "--length", str(dv["length"]),
                     "--format", "json")
            assert r.returncode == 0, r.stderr
            doc = json.loads(r.stdout)
            assert doc["positions"] == dv["deleted_positions"] and doc["crc_ok"] is True
            assert doc["cardinality"] == dv["cardinality"]
            whole = json.loads(_cli("dv", str(tdir / e["path"]), "--format", "json").stdout)
            assert [v["positions"] for v in whole["deletion_vectors"]] == [dv["deleted_positions"]]


def test_cli_dv_bad_length_names_file_offset_field() -> None:
    f = Path(__file__).parent.parent / "fixtures/blobs/dv_bitmap64/index-dv64-0"
    r = _cli("dv", str(f), "--offset", "1", "--length", "100", "--format", "json")
    assert r.returncode == 2
    assert str(f) in r.stderr and "at byte 1" in r.stderr and "deletion_vector.size" in r.stderr
