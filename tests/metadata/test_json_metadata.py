"""Snapshot and schema JSON that is not what Paimon writes: a CorruptFileError naming the file and
the field, never a RecursionError, OverflowError, TypeError or an OS error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    return copy


def _latest_snapshot(table: Path) -> Path:
    return table / "snapshot" / f"snapshot-{pl.open_table(str(table)).snapshot_id}"


@pytest.mark.parametrize(("key", "value", "field"), [
    ("baseManifestList", ["a", "b"], "snapshot field baseManifestList"),
    ("indexManifest", 5, "snapshot field indexManifest"),
    ("id", "7", "snapshot field id"),
    ("schemaId", True, "snapshot field schemaId"),
    ("timeMillis", None, "snapshot field timeMillis"),
    ("nextRowId", {"x": 1}, "snapshot field nextRowId"),
])
def test_snapshot_field_of_another_type(table: Path, key: str, value: Any, field: str) -> None:
    snap = _latest_snapshot(table)
    obj = json.loads(snap.read_text())
    obj[key] = value
    snap.write_text(json.dumps(obj))
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(snap) and e.value.field == field


def test_nul_in_a_manifest_list_name(table: Path) -> None:
    snap = _latest_snapshot(table)
    obj = json.loads(snap.read_text())
    obj["baseManifestList"] = "manifest-list-\x00-0"
    snap.write_text(json.dumps(obj))
    with pytest.raises(CorruptFileError, match="NUL character"):
        pl.open_table(str(table)).files()


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"id": ' + "[" * 50_000 + "]" * 50_000 + "}",
                                  "\udcff".encode("utf-8", "surrogatepass").decode("latin-1"), "[]", ""])
def test_snapshot_that_is_not_an_object(table: Path, text: str) -> None:
    snap = _latest_snapshot(table)
    snap.write_bytes(text.encode("utf-8", "surrogatepass"))
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(snap) and "snapshot" in e.value.field


@pytest.mark.parametrize("mutate", [
    lambda o: o["fields"][0].update(id=1e999),  # written as Infinity: a float that is no id
    lambda o: o.update(fields="[" * 60_000),
    lambda o: o["fields"][0].update(type={"type": "ARRAY", "element": None}),
])
def test_schema_json_that_is_not_paimon(table: Path, mutate: Any) -> None:
    schema = sorted((table / "schema").glob("schema-*"), key=lambda p: int(p.name[7:]))[-1]
    obj = json.loads(schema.read_text())
    mutate(obj)
    schema.write_text(json.dumps(obj))
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(schema) and "schema" in e.value.field


def test_lone_surrogate_in_a_snapshot_field(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``"\\ud800"`` is JSON a Java writer can produce (found by fuzz_long: type_evolution_py/snapshot#928):
    frames, the CLI's JSON and HTML show it as that escape text instead of failing to encode it."""
    from paimon_lens.presentation.cli import main

    snap = _latest_snapshot(table)
    text = snap.read_text()
    obj = json.loads(text)
    obj["commitUser"] = "writer-\ud800"
    snap.write_text(json.dumps(obj))  # json.dumps escapes the surrogate as \ud800
    assert "\\ud800" in snap.read_text()
    t = pl.open_table(str(table))
    frame = t.snapshots()
    assert frame.loc[frame["snapshot_id"] == t.snapshot_id, "commit_user"].iloc[0] == "writer-\\ud800"
    assert "writer-\\ud800" in frame._repr_html_()
    assert main(["files", str(table), "--format", "json"]) == 0
    json.loads(capsys.readouterr().out)
