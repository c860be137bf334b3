"""Names in a table's metadata never make paimon-lens read outside the table.

A manifest ``_FILE_NAME``, an ``_EXTRA_FILES`` index name or an index-manifest DV file name with
``../``, an absolute path or another scheme is refused (a per-file error naming the location),
and an ``_EXTERNAL_PATH`` must lie under an external root the table's options declare. Each test
alters a Paimon-written table that way and puts a decoy next to it that must never be read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from paimon_lens.io.fileio import LocalFileIO, TableFileIO
from tests.conftest import FIXTURES, rewrite_avro

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
ORDERS_DV20 = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"


def _manifests(table: Path) -> list[Path]:
    return [p for p in (table / "manifest").iterdir() if p.name.startswith("manifest-")
            and not p.name.startswith("manifest-list")]


@pytest.fixture()
def events(tmp_path: Path) -> Path:
    copy = tmp_path / "warehouse" / "events20"
    shutil.copytree(EVENTS20, copy)
    return copy


def _plant_decoy(events: Path) -> tuple[str, Path]:
    """Move one data file out of the table (its copy outside is the decoy) and return its name."""
    lf = pl.open_table(str(events)).live_files()[-1]
    inside = events / lf.path
    decoy = events.parent / "elsewhere" / lf.entry.file.file_name
    decoy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(inside, decoy)
    return lf.entry.file.file_name, decoy


def test_data_file_name_with_dotdot_is_refused(events: Path) -> None:
    name, _ = _plant_decoy(events)
    hostile = f"../../../elsewhere/{name}"  # bucket-0 -> dt=... -> table -> warehouse

    def change(r: dict[str, Any]) -> None:
        if r["_FILE"]["_FILE_NAME"] == name:
            r["_FILE"]["_FILE_NAME"] = hostile
            r["_FILE"]["_EXTRA_FILES"] = []
            r["_FILE"]["_EMBEDDED_FILE_INDEX"] = None

    for m in _manifests(events):
        rewrite_avro(m, change)
    (events / pl.open_table(str(EVENTS20)).live_files()[-1].path).unlink()
    t = pl.open_table(str(events))
    r = t.explain("id > 0", truth=True)
    bad = [f for f in r.files if f.file_name == hostile]
    assert len(bad) == 1 and bad[0].error and "outside the table" in bad[0].error
    assert bad[0].matching_rows is None  # never counted from the decoy
    assert any("outside the table" in n for n in r.notes)


def test_extra_index_file_with_dotdot_is_refused(events: Path) -> None:
    t = pl.open_table(str(events))
    target = next(lf for lf in t.live_files() if lf.index_location == "external")
    real_index = events / target.index_file_path
    decoy = events.parent / "elsewhere" / real_index.name
    decoy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(real_index, decoy)

    def change(r: dict[str, Any]) -> None:
        if r["_FILE"]["_FILE_NAME"] == target.entry.file.file_name:
            r["_FILE"]["_EXTRA_FILES"] = [f"../../../elsewhere/{real_index.name}"]

    for m in _manifests(events):
        rewrite_avro(m, change)
    idx = pl.open_table(str(events)).file_indexes()
    rows = idx[idx["file_name"] == target.entry.file.file_name]
    assert len(rows) and rows["error"].notna().all() and all("outside the table" in e for e in rows["error"])


def test_deletion_vector_file_with_dotdot_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "warehouse" / "orders"
    shutil.copytree(ORDERS_DV20, copy)
    t = pl.open_table(str(copy))
    entry = next(e for e in t.index_entries() if e.index_type == "DELETION_VECTORS" and e.deletion_vectors)
    decoy = tmp_path / "warehouse" / "elsewhere" / entry.file_name
    decoy.parent.mkdir(parents=True)
    shutil.copy(copy / "index" / entry.file_name, decoy)
    index_manifest = copy / "manifest" / t.snapshot.index_manifest

    def change(r: dict[str, Any]) -> None:
        if r["_FILE_NAME"] == entry.file_name:
            r["_FILE_NAME"] = f"../../elsewhere/{entry.file_name}"

    rewrite_avro(index_manifest, change)
    dvs = pl.open_table(str(copy)).deletion_vectors()
    assert len(dvs) and dvs["error"].notna().all() and all("outside the table" in e for e in dvs["error"])
    r = pl.open_table(str(copy)).explain("qty > 0", truth=True)
    assert any(f.error and "deletion vector could not be read" in f.error for f in r.files if f.read)


def test_external_path_outside_the_declared_roots_is_refused(events: Path) -> None:
    name, decoy = _plant_decoy(events)

    def change(r: dict[str, Any]) -> None:
        if r["_FILE"]["_FILE_NAME"] == name:
            r["_FILE"]["_EXTERNAL_PATH"] = "file:" + str(decoy)

    for m in _manifests(events):
        rewrite_avro(m, change)
    t = pl.open_table(str(events))  # no data-file.external-paths option: no external root at all
    files = t.files()
    row = files[files["file_name"] == name].iloc[0]
    assert row["error"] and "outside the table" in row["error"]
    r = t.explain("id > 0", truth=True)
    assert next(f for f in r.files if f.file_name == name).error
    # declared: the same path is read
    for schema_file in (events / "schema").iterdir():
        doc = json.loads(schema_file.read_text())
        doc["options"]["data-file.external-paths"] = "file://" + str(decoy.parent)
        schema_file.write_text(json.dumps(doc))
    t = pl.open_table(str(events))
    r = t.explain("id > 0", truth=True)
    assert not next(f for f in r.files if f.file_name == name).error


def test_resolver_rules(tmp_path: Path) -> None:
    fio = TableFileIO(LocalFileIO())
    fio.confine([str(tmp_path / "t"), "oss://bucket/ext"])
    assert fio.check(str(tmp_path / "t" / "a" / ".." / "b")) == str(tmp_path / "t" / "b")
    assert fio.check("OSS://bucket/ext/x/y") == "oss://bucket/ext/x/y"
    for bad in (str(tmp_path / "t" / ".." / "u"), str(tmp_path / "t2" / "x"), "oss://bucket/extra/x",
                "oss://other/ext/x", "s3://bucket/ext/x", "/etc/passwd", "FILE:/etc/passwd"):
        with pytest.raises(CorruptFileError, match="outside the table"):
            fio.check(bad)


def test_recommend_and_report_go_on_past_a_refused_file(events: Path) -> None:
    name, _ = _plant_decoy(events)

    def change(r: dict[str, Any]) -> None:
        if r["_FILE"]["_FILE_NAME"] == name:
            r["_FILE"]["_FILE_NAME"] = f"../../../elsewhere/{name}"

    for m in _manifests(events):
        rewrite_avro(m, change)
    t = pl.open_table(str(events))
    advice = pl.recommend(t, ["country = 'DE'", "score > 90"])
    errors = [e for m in advice.whatif.measures for e in m.errors]
    assert errors and all("outside the table" in e for e in errors)
    report = pl.report(t, workload=["country = 'DE'"])
    assert report.sections
