"""Golden tests: the live files of every fixture table equal what Paimon itself reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.presentation.frames import file_record
from tests.conftest import load_json, oracle_paths

ORACLES = oracle_paths()


def _table_dir(oracle: Path) -> Path:
    return oracle.parent / load_json(oracle)["table"]["path"]


def _norm(v: Any) -> Any:
    """Oracle and CLI agree on JSON encodings; compare floats with a tolerance for printing."""
    if isinstance(v, float):
        return round(v, 9)
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_files_match_oracle(oracle: Path) -> None:
    o = load_json(oracle)
    table = pl.open_table(str(_table_dir(oracle)))
    assert table.snapshot_id == o["latest_snapshot_id"]
    got = {r["file_name"]: r for r in (file_record(table.reader, lf, as_json=True) for lf in table.live_files())}
    want = {f["file_name"]: f for f in o["files"]}
    assert set(got) == set(want)
    for name, w in want.items():
        g = got[name]
        for key in ("path", "partition", "bucket", "level", "row_count", "file_size", "schema_id",
                    "min_sequence_number", "max_sequence_number", "file_source", "delete_row_count",
                    "extra_files", "file_format"):
            assert g[key] == w[key], (name, key)
        for key in ("external_path", "first_row_id", "write_cols", "value_stats_cols"):
            if key in w:
                assert g.get(key) == w[key], (name, key)
        # 2.0 oracles give the stats mapped to the latest schema; 0.9 ones the stored stats.
        stats_want = w.get("value_stats_evolved", w["value_stats"])
        assert _norm(g["value_stats"]) == _norm(stats_want), name
        assert g["file_index"]["location"] == w["file_index"]["location"], name
        assert g["file_index"]["size"] == (w["file_index"].get("size") or 0), name
        assert g["file_index"]["file"] == w["file_index"].get("file"), name
        if w.get("min_key") is not None:
            assert g["min_key"] == w["min_key"] and g["max_key"] == w["max_key"], name
            assert _norm(g["key_stats"]) == _norm(w["key_stats"]), name


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_every_snapshot_opens(oracle: Path) -> None:
    """Each snapshot of the oracle opens; its live row count equals Paimon's totalRecordCount."""
    o = load_json(oracle)
    base = pl.open_table(str(_table_dir(oracle)))
    frame = base.snapshots().set_index("snapshot_id")
    for s in o["snapshots"]:
        t = base.at(s["id"])
        assert t.snapshot_id == s["id"]
        assert t.snapshot is not None and t.snapshot.schema_id == s["schema_id"]
        assert sum(lf.entry.file.row_count for lf in t.live_files()) == s["total_record_count"]
        row = frame.loc[s["id"]]
        assert row["commit_kind"] == s["commit_kind"]
        assert row["base_manifest_list"] == s["base_manifest_list"]
        assert row["delta_manifest_list"] == s["delta_manifest_list"]
        have_index = row["index_manifest"] if isinstance(row["index_manifest"], str) else None
        assert have_index == s["index_manifest"]


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_index_manifest_matches_oracle(oracle: Path) -> None:
    o = load_json(oracle)
    table = pl.open_table(str(_table_dir(oracle)))
    frame = table.index_manifest()
    want = sorted((e["index_type"], e["file_name"], e["bucket"], e["file_size"], e["row_count"], e["path"])
                  for e in o["index_manifest_entries"])
    got = sorted(zip(frame.index_type, frame.file_name, frame.bucket, frame.file_size, frame.row_count,
                     frame.file_path))
    assert got == want
    ranges = {(dv["data_file"], dv["offset"], dv["length"])
              for e in o["index_manifest_entries"] for dv in e.get("deletion_vectors") or []}
    have = {(dv.data_file, dv.offset, dv.length)
            for e in table.index_entries() for dv in e.deletion_vectors or []}
    assert have == ranges


def test_cli_files_json(tmp_path: Path) -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_sales")
    out = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(_table_dir(oracle)), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert doc["snapshot_id"] == 3 and len(doc["files"]) == 16
    first = doc["files"][0]
    for key in ("file_name", "path", "partition", "bucket", "level", "row_count", "file_size", "schema_id",
                "min_sequence_number", "max_sequence_number", "file_source", "delete_row_count", "value_stats",
                "file_index"):
        assert key in first
    assert set(first["value_stats"]) == {"min", "max", "null_counts"}
    assert set(first["file_index"]) >= {"location", "size", "file"}


def test_cli_files_readable() -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_events_mixed")
    out = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(_table_dir(oracle))],
                         capture_output=True, text=True, check=True).stdout
    assert "6 live files" in out and "embedded" in out and "external" in out
