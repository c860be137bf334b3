"""Ground truth: rows that really match, against the rows Paimon's own reader returned."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.predicate import parse_where
from paimon_lens.pruning.truth import matching_positions
from tests.conftest import load_json, oracle_paths

ORACLES = [p for p in oracle_paths()
           if any("matching_positions" in f or "matching_positions_count" in f
                  for pr in load_json(p)["predicates"] for f in pr["files"])]


def digest(positions: list[int]) -> tuple[int, int]:
    """(count, crc32 of sorted little-endian int32) as the README defines for PK oracles."""
    pos = sorted(positions)
    return len(pos), (zlib.crc32(struct.pack(f"<{len(pos)}i", *pos)) if pos else 0)


def strip(sql: str) -> str:
    return re.sub(r"\s*--.*$", "", sql).strip()


def test_oracles_with_truth() -> None:
    assert len(ORACLES) >= 9


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_matching_positions_match_oracle(oracle: Path) -> None:
    o = load_json(oracle)
    table = pl.open_table(str(oracle.parent / o["table"]["path"]))
    files = {lf.entry.file.file_name: lf for lf in table.live_files()}
    checked = 0
    for p in o["predicates"]:
        pred = parse_where(strip(p["sql"]), table.schema.fields)
        for f in p["files"]:
            got = list(matching_positions(table, files[f["file_name"]], pred))
            if "matching_positions" in f:
                assert got == f["matching_positions"], (p["id"], p["sql"], f["file_name"])
            elif "matching_positions_count" in f:
                want = (f["matching_positions_count"], f.get("matching_positions_crc32", 0))
                assert digest(got) == want, (p["id"], p["sql"], f["file_name"])
            else:
                continue
            checked += 1
    assert checked > 0


def test_values_of_another_type_than_the_file_schema_says(tmp_path: Path) -> None:
    """A file schema that says STRING for a column whose data file holds timestamps (found by
    fuzz_long: type_evolution_py/schema#948): casting them to the table's TIMESTAMP is that file's
    CorruptFileError, not an AttributeError; the other files are still answered."""
    import json
    import shutil

    from tests.conftest import FIXTURES

    table = tmp_path / "type_evolution"
    shutil.copytree(FIXTURES / "pypaimon" / "warehouse" / "db.db" / "type_evolution", table)
    schema0 = table / "schema" / "schema-0"
    obj = json.loads(schema0.read_text())
    next(f for f in obj["fields"] if f["name"] == "ts")["type"] = "STRING"
    schema0.write_text(json.dumps(obj))
    t = pl.open_table(str(table))
    report = t.explain("ts IS NOT NULL", truth=True)
    broken = [f for f in report.files if f.error]
    assert [t.schema_manager.schema(lf.entry.file.schema_id).id for lf in t.live_files()
            if lf.entry.file.file_name in {f.file_name for f in broken}] == [0]
    assert "column ts (STRING -> TIMESTAMP(6))" in (broken[0].error or "")
    assert "do not fit the type" in (broken[0].error or "")
    assert all(f.matching_rows is not None for f in report.files if not f.error)
