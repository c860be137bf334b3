"""Values a manifest's schema allows but no reader can use (a negative row count or size, a negative
deletion-vector offset), commit times beyond the calendar, and data that does not fit its schema's
types: each is said, naming the file and the field, never a crash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from tests.conftest import FIXTURES, rewrite_avro

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
ORDERS_DV = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize(("field", "value"), [("_ROW_COUNT", -5), ("_FILE_SIZE", -1), ("_LEVEL", -2),
                                              ("_SCHEMA_ID", -1)])
def test_negative_manifest_values(tmp_path: Path, field: str, value: int) -> None:
    table = _copy(EVENTS20, tmp_path)
    manifest = table / "manifest" / pl.open_table(str(table)).manifest_files()[0].file_name
    rewrite_avro(manifest, lambda r: r["_FILE"].update({field: value}))
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(manifest) and e.value.field == f"manifest entry 0 _FILE {field}"
    assert ">= 0" in str(e.value)


def test_negative_deletion_vector_offset(tmp_path: Path) -> None:
    table = _copy(ORDERS_DV, tmp_path)
    name = pl.open_table(str(table)).snapshot.index_manifest  # type: ignore[union-attr]

    def bad(r: dict[str, Any]) -> None:
        for rng in r.get("_DELETIONS_VECTORS_RANGES") or ():
            rng["f1"] = -7

    rewrite_avro(table / "manifest" / name, bad)
    with pytest.raises(CorruptFileError, match=r"_DELETIONS_VECTORS_RANGES\[0\] f1"):
        pl.open_table(str(table)).deletion_vectors()


def test_bucket_option_that_is_no_number(tmp_path: Path) -> None:
    table = _copy(EVENTS20, tmp_path)
    schema = sorted((table / "schema").glob("schema-*"), key=lambda p: int(p.name[7:]))[-1]
    obj = json.loads(schema.read_text())
    obj["options"]["bucket"] = "../-1"
    schema.write_text(json.dumps(obj))
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table))
    assert e.value.path == str(schema) and e.value.field == "schema option bucket"


def test_commit_time_beyond_the_calendar(tmp_path: Path) -> None:
    table = _copy(EVENTS20, tmp_path)
    t = pl.open_table(str(table))
    snap = table / "snapshot" / f"snapshot-{t.snapshot_id}"
    obj = json.loads(snap.read_text())
    obj["timeMillis"] = 2**63 - 1  # a valid Java long
    snap.write_text(json.dumps(obj))
    t = pl.open_table(str(table))
    frame = t.snapshots()
    assert frame.loc[frame["snapshot_id"] == t.snapshot_id, "commit_time"].isna().all()
    assert "beyond the calendar" in t._repr_html_()


def test_data_that_does_not_fit_the_schema_type(tmp_path: Path) -> None:
    """The schema says ``country`` is a DATE, its data files hold strings: an error on each file read
    for the truth, not a crash."""
    table = _copy(EVENTS20, tmp_path)
    for schema in (table / "schema").glob("schema-*"):
        obj = json.loads(schema.read_text())
        for f in obj["fields"]:
            if f["name"] == "country":
                f["type"] = "DATE"
        schema.write_text(json.dumps(obj))
    r = pl.open_table(str(table)).explain("country = DATE '2024-01-01'", truth=True)
    assert r.files and all(f.error and "bad column country (DATE)" in f.error for f in r.files)
    assert all(f.matching_rows is None for f in r.files)  # the truth of every file (read or skipped) is unknown
    assert r.summary()["files_with_errors"] == len(r.files)
