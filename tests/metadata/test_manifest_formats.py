"""``manifest.format = orc | parquet``: the same frames and answers whatever format the metadata is in.

Every fixture table written by Paimon (0.9 and 2.0) is copied and its manifest lists, manifests
and index manifests are rewritten record for record as ORC, as Parquet, or as a mix of the three
formats file by file (what a table whose ``manifest.format`` changed over time holds); every
frame and every oracle predicate's explanation must equal the original Avro table's.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import fastavro
import pandas as pd
import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from paimon_lens.metadata.meta_file import detect_format
from paimon_lens.writer.meta_file import meta_file_bytes
from tests.conftest import BytesFileIO, load_json, oracle_paths
from tests.pruning.test_truth import strip

FORMATS = ("orc", "parquet", "mixed")


def rewrite_metadata(table_dir: Path, fmt: str) -> int:
    """Rewrite every metadata file of ``table_dir`` in ``fmt`` (``mixed`` cycles avro, orc, parquet)."""
    cycle = itertools.cycle(("avro", "orc", "parquet"))
    n = 0
    sizes: dict[str, int] = {}  # manifests first: the lists then record their new sizes, as Paimon would
    for path in sorted((table_dir / "manifest").iterdir(), key=lambda p: ("-list-" in p.name, p.name)):
        with open(path, "rb") as fh:
            reader = fastavro.reader(fh)
            records = list(reader)
            schema = reader.writer_schema
        if "-list-" in path.name:
            for r in records:
                r["_FILE_SIZE"] = sizes.get(r["_FILE_NAME"], r["_FILE_SIZE"])  # type: ignore[call-overload,index]
        target = next(cycle) if fmt == "mixed" else fmt
        if target != "avro" or "-list-" in path.name:
            path.write_bytes(meta_file_bytes(schema, records, target))
            n += target != "avro"
        sizes[path.name] = path.stat().st_size
    return n


def _table_dir(oracle: Path) -> Path:
    o = load_json(oracle)
    return (oracle.parent / o["table"]["path"]).resolve()


def _frames(t: pl.Table) -> dict[str, pd.DataFrame]:
    return {"files": t.files(), "manifests": t.manifests(), "file_indexes": t.file_indexes(),
            "deletion_vectors": t.deletion_vectors(), "index_manifest": t.index_manifest(),
            "hash_index": t.hash_index()}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("oracle", oracle_paths(), ids=lambda p: p.stem[7:])
def test_same_answers_in_every_manifest_format(oracle: Path, fmt: str, tmp_path: Path) -> None:
    original = _table_dir(oracle)
    copy = tmp_path / original.name
    shutil.copytree(original, copy)
    assert rewrite_metadata(copy, fmt) > 0
    want, got = pl.open_table(str(original)), pl.open_table(str(copy))
    differ = ["manifest_list"]
    for name, frame in _frames(want).items():
        drop = differ + (["file_size"] if name == "manifests" else [])  # the manifests' own sizes changed
        pd.testing.assert_frame_equal(_frames(got)[name].drop(columns=drop, errors="ignore"),
                                      frame.drop(columns=drop, errors="ignore"), obj=name)
    for p in load_json(oracle)["predicates"][:40]:
        where = strip(p["sql"])
        a, b = want.explain(where, truth=True), got.explain(where, truth=True)
        pd.testing.assert_frame_equal(b.to_frame(), a.to_frame(), obj=where)
        assert b.funnel() == a.funnel(), where


def test_format_is_detected_from_bytes() -> None:
    schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}
    assert detect_format(meta_file_bytes(schema, [{"a": 1}], "avro")) == "avro"
    assert detect_format(meta_file_bytes(schema, [{"a": 1}], "orc")) == "orc"
    assert detect_format(meta_file_bytes(schema, [{"a": 1}], "parquet")) == "parquet"
    assert detect_format(b'{"json": 1}') is None


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_truncated_columnar_manifest_names_the_file(fmt: str, tmp_path: Path) -> None:
    oracle = next(p for p in oracle_paths() if "events_mixed" in p.name)
    copy = tmp_path / "t"
    shutil.copytree(_table_dir(oracle), copy)
    rewrite_metadata(copy, fmt)
    t = pl.open_table(str(copy))
    manifest = copy / "manifest" / t.manifest_files()[0].file_name
    data = manifest.read_bytes()
    manifest.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(copy)).files()
    assert e.value.path == str(manifest) and "manifest" in e.value.field and fmt in str(e.value).lower()


def test_orc_records_equal_avro_records() -> None:
    """The reader gives the same record dicts for each format (timestamps compared as naive UTC)."""
    from paimon_lens.metadata.meta_file import read_meta_file

    oracle = next(p for p in oracle_paths() if "events20" in p.name)
    manifest_dir = _table_dir(oracle) / "manifest"
    for path in sorted(manifest_dir.iterdir()):
        with open(path, "rb") as fh:
            reader = fastavro.reader(fh)
            records, schema = list(reader), reader.writer_schema
        for fmt in ("orc", "parquet"):
            data = meta_file_bytes(schema, records, fmt)
            back, got_fmt = read_meta_file(BytesFileIO(data), "mem", "manifest")
            assert got_fmt == fmt
            assert _naive(back) == _naive(records), (path.name, fmt)


def _naive(value: object) -> object:
    import datetime as dt

    if isinstance(value, dict):
        return {k: _naive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_naive(v) for v in value]
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value
