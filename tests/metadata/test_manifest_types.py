"""A manifest whose fields have the right names but the wrong types (or an impossible ``_KIND``)
is a ``CorruptFileError`` naming the file and the field, whatever the manifest format."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import fastavro
import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from paimon_lens.writer.meta_file import meta_file_bytes
from tests.conftest import FIXTURES, record_manifest_size

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"

MUTATIONS = [
    (["_PARTITION"], "string", "abc"), (["_BUCKET"], "string", "x"), (["_KIND"], "string", "ADD"),
    (["_FILE", "_FILE_NAME"], "long", 5), (["_FILE", "_ROW_COUNT"], "string", "5"),
    (["_FILE", "_EXTRA_FILES"], "string", "a.index"), (["_FILE", "_LEVEL"], "string", "0"),
    (["_FILE", "_SCHEMA_ID"], "double", 0.5), (["_FILE", "_EMBEDDED_FILE_INDEX"], ["null", "string"], "xx"),
    (["_FILE", "_VALUE_STATS_COLS"], ["null", "string"], "abc"),
]


def _mutated(tmp_path: Path, field_path: list[str], new_type: Any, value: Any, fmt: str = "avro") -> tuple[Path, Path]:
    copy_dir = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy_dir)
    manifest = copy_dir / "manifest" / pl.open_table(str(copy_dir)).manifest_files()[0].file_name
    with open(manifest, "rb") as fh:
        reader = fastavro.reader(fh)
        schema, records = copy.deepcopy(reader.writer_schema), list(reader)
    fields = schema["fields"]
    *parents, leaf = field_path
    for p in parents:
        fields = next(f for f in fields if f["name"] == p)["type"]["fields"]
    next(f for f in fields if f["name"] == leaf)["type"] = new_type
    for r in records:
        target = r
        for p in parents:
            target = target[p]
        target[leaf] = value
    manifest.write_bytes(meta_file_bytes(schema, records, fmt))
    record_manifest_size(manifest)
    return copy_dir, manifest


@pytest.mark.parametrize(("field_path", "new_type", "value"), MUTATIONS, ids=lambda v: str(v))
def test_wrong_field_type_names_file_and_field(field_path: list[str], new_type: Any, value: Any,
                                               tmp_path: Path) -> None:
    table, manifest = _mutated(tmp_path, field_path, new_type, value)
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(manifest) and field_path[-1] in e.value.field
    assert "wrong type" in str(e.value)


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_wrong_field_type_in_columnar_manifests(fmt: str, tmp_path: Path) -> None:
    table, manifest = _mutated(tmp_path, ["_FILE", "_ROW_COUNT"], "string", "5", fmt)
    with pytest.raises(CorruptFileError, match="_ROW_COUNT") as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(manifest)


def test_impossible_kind(tmp_path: Path) -> None:
    table, manifest = _mutated(tmp_path, ["_KIND"], "int", 7)
    with pytest.raises(CorruptFileError, match=r"_KIND \(expected 0 \(ADD\) or 1 \(DELETE\), found 7\)") as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(manifest)


@pytest.mark.parametrize("key", ["partitionKeys", "primaryKeys"])
def test_schema_key_naming_no_field(key: str, tmp_path: Path) -> None:
    import json

    copy_dir = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy_dir)
    target = copy_dir / "schema" / "schema-1"
    doc = json.loads(target.read_text())
    doc[key] = ["nope"]
    target.write_text(json.dumps(doc))
    with pytest.raises(CorruptFileError, match=rf"schema {key} \(expected names of fields .*found nope\)") as e:
        pl.open_table(str(copy_dir)).files()
    assert e.value.path == str(target)
