"""Types paimon-lens does not model (VECTOR, future types): the table opens, the column is listed
with its raw type and no stats, a comparison on it is a clear error, every other column works."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.types import UNKNOWN, type_from_json
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


@pytest.fixture()
def vector_table(tmp_path: Path) -> Path:
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    schema = json.loads((copy / "schema" / "schema-1").read_text())  # ALTER TABLE ADD COLUMN: schema-2
    schema["id"] = 2
    schema["fields"] += [{"id": 99, "name": "emb", "type": "VECTOR<FLOAT, 3>"},
                         {"id": 98, "name": "emb2", "type": {"type": "VECTOR", "element": "FLOAT", "length": 4}}]
    (copy / "schema" / "schema-2").write_text(json.dumps(schema))
    return copy


def test_table_with_an_unknown_type_opens(vector_table: Path) -> None:
    want = pl.open_table(str(EVENTS20))
    t = pl.open_table(str(vector_table))
    emb = t.schema.field("emb")
    assert emb.type.root == UNKNOWN and str(emb.type) == "VECTOR<FLOAT, 3>" and emb.type.nullable
    assert type_from_json("VECTOR<FLOAT, 3> NOT NULL").nullable is False
    schemas = t.schemas()
    assert "VECTOR<FLOAT, 3>" in set(schemas["field_type"])
    files = t.files()
    assert files["min(emb)"].isna().all() and files["max(emb)"].isna().all()
    assert list(files["file_name"]) == list(want.files()["file_name"])
    assert t.explain("country = 'DE'", truth=True).funnel() == want.explain("country = 'DE'", truth=True).funnel()
    assert t.explain("emb IS NULL", truth=True).summary()["matching_rows"] == sum(files["row_count"])
    with pytest.raises(PaimonLensError, match=r"column 'emb' \(VECTOR<FLOAT, 3>\) cannot be compared"):
        t.explain("emb = 1")


def test_type_from_json_keeps_unknown_text() -> None:
    t = type_from_json("FANCY_FUTURE_TYPE(7)")
    assert t.root == UNKNOWN and str(t) == "FANCY_FUTURE_TYPE(7)"
    assert type_from_json("INT NOT NULL").root == "INT"
    with pytest.raises(PaimonLensError):
        type_from_json("DECIMAL(10,")  # a known type spelled wrong is still an error
