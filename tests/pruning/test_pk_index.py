"""Explain on a primary-key table with primary-key indexes (Paimon 2.0, ``pk-btree`` / ``pk-bitmap``).

The table is Paimon 2.0's own ``orders_dv20`` (deletion vectors; bucket 0: one compacted level-5
file; bucket 1: a compacted level-4 file and a level-5 file only moved up a level), copied and given
the primary-key index files Paimon keeps for it: per bucket and level, a btree (or bitmap) over
``status`` whose ``_SOURCE_META`` lists the level's compacted files, in a new snapshot. Expected
answers come from the rows themselves: an indexed file returns exactly its matching positions (the
index is exact for these predicates), a file that none match is dropped, the moved-up file is read
whole, and no matching row is lost.
"""

from __future__ import annotations

import json
import shutil
import struct
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import paimon_lens as pl
from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, INDEX_MANIFEST_VERSION, avro_bytes
from tests.conftest import FIXTURES
from tests.formats import global_index_bytes as enc

SOURCE = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
COMPACT = 1


def _sorted_meta(keys: list[bytes], has_nulls: bool) -> bytes:
    first, last = (keys[0], keys[-1]) if keys else (b"", b"")
    flags = 0 if keys else 3
    return (struct.pack("<i", len(first)) + first + struct.pack("<i", len(last)) + last
            + bytes([1 if has_nulls else 0, 1, flags]))


def _source_meta(level: int, files: list[tuple[str, int]]) -> bytes:
    out = struct.pack(">iii", 1, level, len(files))
    for name, rows in files:
        raw = name.encode()
        out += struct.pack(">H", len(raw)) + raw + struct.pack(">q", rows)
    return out


def with_pk_index(dst: Path, kind: str = "btree", column: str = "status", corrupt_rows: bool = False,
                  moved_to_indexed_level: bool = False) -> Path:
    """A copy of orders_dv20 at ``dst`` with primary-key indexes on ``column`` in a new snapshot
    (``moved_to_indexed_level``: the file only moved up a level lives at the level of its bucket's
    compacted file, as after a later move, so that a level's index covers some of its files only)."""
    import fastavro

    shutil.copytree(SOURCE, dst)
    t = pl.open_table(str(dst))
    if moved_to_indexed_level:
        files = t.live_files()
        moved = next(lf for lf in files if lf.file.file_source != COMPACT and lf.file.level > 0)
        compacted = next(lf for lf in files if lf.file.file_source == COMPACT and lf.entry.bucket == moved.entry.bucket
                         and lf.file.level > 0)
        _set_level(dst, moved.file.file_name, compacted.file.level)
        t = pl.open_table(str(dst))
    field = t.schema.field(column)
    by_level: dict[tuple[bytes, int, int], list[Any]] = defaultdict(list)
    for lf in t.live_files():
        f = lf.file
        if f.level > 0 and f.file_source == COMPACT:
            by_level[(lf.entry.partition, lf.entry.bucket, f.level)].append(lf)
    records = []
    with open(dst / "manifest" / t.snapshot.index_manifest, "rb") as fh:
        records = list(fastavro.reader(fh))
    for n, ((partition, bucket, level), lfs) in enumerate(sorted(by_level.items())):
        lfs.sort(key=lambda lf: lf.file.file_name)
        keys: dict[bytes, list[int]] = defaultdict(list)
        nulls: list[int] = []
        at = 0
        for lf in lfs:
            values = pq.read_table(dst / lf.path, columns=[column]).column(0).to_pylist()
            for pos, v in enumerate(values):
                (nulls.append(at + pos) if v is None else keys[v.encode()].append(at + pos))
            at += lf.file.row_count
        items = sorted(keys.items())
        data = (enc.btree if kind == "btree" else enc.bitmap)(items, nulls)
        name = f"index-{uuid.uuid4()}-{n}"
        (dst / "index" / name).write_bytes(data)
        sources = [(lf.file.file_name, lf.file.row_count + (1 if corrupt_rows else 0)) for lf in lfs]
        records.append({
            "_VERSION": INDEX_MANIFEST_VERSION, "_KIND": 0, "_PARTITION": partition, "_BUCKET": bucket,
            "_INDEX_TYPE": kind, "_FILE_NAME": name, "_FILE_SIZE": len(data), "_ROW_COUNT": at,
            "_DELETIONS_VECTORS_RANGES": None, "_EXTERNAL_PATH": None,
            "_GLOBAL_INDEX": {"_ROW_RANGE_START": 0, "_ROW_RANGE_END": at - 1, "_INDEX_FIELD_ID": field.id,
                              "_EXTRA_FIELD_IDS": None, "_INDEX_META": _sorted_meta([k for k, _ in items], bool(nulls)),
                              "_SOURCE_META": _source_meta(level, sources)},
        })
    manifest = f"index-manifest-{uuid.uuid4()}-0"
    (dst / "manifest" / manifest).write_bytes(avro_bytes(INDEX_MANIFEST_SCHEMA, records))
    schema_files = sorted((dst / "schema").iterdir(), key=lambda p: int(p.name.split("-")[1]))
    schema = json.loads(schema_files[-1].read_text())
    schema["id"] += 1
    schema["options"][f"pk-{kind}.index.columns"] = column
    (dst / "schema" / f"schema-{schema['id']}").write_text(json.dumps(schema))
    snap = json.loads((dst / "snapshot" / f"snapshot-{t.snapshot_id}").read_text())
    snap.update(id=snap["id"] + 1, schemaId=schema["id"], indexManifest=manifest, commitKind="ANALYZE")
    (dst / "snapshot" / f"snapshot-{snap['id']}").write_text(json.dumps(snap))
    (dst / "snapshot" / "LATEST").write_text(str(snap["id"]))
    return dst


def _set_level(table_dir: Path, file_name: str, level: int) -> None:
    """Rewrite the copy's manifests so that ``file_name`` lives at ``level`` (sizes in the manifest
    lists and the snapshot follow)."""
    import fastavro

    def rewrite(path: Path, change: Any) -> bool:
        with open(path, "rb") as fh:
            reader = fastavro.reader(fh)
            schema, records = reader.writer_schema, list(reader)
        if not any([change(r) for r in records]):  # every record is changed, not only the first
            return False
        with open(path, "wb") as fh:
            fastavro.writer(fh, schema, records)
        return True

    def move(rec: dict[str, Any]) -> bool:
        hit = rec["_FILE"]["_FILE_NAME"] == file_name
        if hit:
            rec["_FILE"]["_LEVEL"] = level
        return bool(hit)

    manifests = table_dir / "manifest"
    sizes = {p.name: p.stat().st_size for p in manifests.glob("manifest-*")
             if not p.name.startswith("manifest-list") and rewrite(p, move)}
    assert sizes, file_name

    def resize(rec: dict[str, Any]) -> bool:
        size = sizes.get(rec["_FILE_NAME"])
        if size is not None:
            rec["_FILE_SIZE"] = size
        return size is not None

    lists = {p.name: p.stat().st_size for p in manifests.glob("manifest-list-*") if rewrite(p, resize)}
    for snap_path in (table_dir / "snapshot").glob("snapshot-*"):
        snap = json.loads(snap_path.read_text())
        for key in ("baseManifestList", "deltaManifestList", "changelogManifestList"):
            if snap.get(key) in lists and f"{key}Size" in snap:
                snap[f"{key}Size"] = lists[snap[key]]
        snap_path.write_text(json.dumps(snap))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return with_pk_index(tmp_path_factory.mktemp("pk") / "orders")


@pytest.mark.parametrize("where", ["status = 'SHIPPED'", "status = 'NO-SUCH'", "status IN ('CANCELLED', 'PAID')",
                                   "status <> 'SHIPPED'", "status IS NULL", "status >= 'P'",
                                   "status = 'SHIPPED' AND qty > 3", "status = 'NEW' OR customer = 7"])
def test_indexed_files_return_their_matching_rows(indexed: Path, where: str) -> None:
    t = pl.open_table(str(indexed))
    plain = pl.open_table(str(SOURCE)).explain(where, truth=True)
    r = t.explain(where, truth=True)
    s = r.summary()
    assert s["matching_rows"] == plain.summary()["matching_rows"]
    assert s["skipped_files_with_match"] == 0
    coverage = {(c["data_file"]): c["status"] for c in t.global_index_coverage().to_dict("records")}
    answered = "customer" not in where  # an OR with an unindexed column is not answered
    if not answered:
        assert "primary_key_index" not in s or s["primary_key_index"]["files_indexed"] == 0
    for v in r.files:
        if coverage.get(v.file_name) != "covered" or not answered:
            assert v.stage != "primary-key index"
            continue
        live = v.matching_positions
        if "AND qty" in where:
            continue  # the qty conjunct is not indexed: the index answers the status conjunct (a superset)
        if not live:
            assert v.stage in ("primary-key index", "stats", "index", "whole_bucket") and not v.read
        elif v.read:
            assert v.index_selected_rows == len(live)


def test_moved_up_file_is_read_whole_and_named(indexed: Path) -> None:
    t = pl.open_table(str(indexed))
    cov = t.global_index_coverage()
    moved = cov[cov["status"] == "uncovered"]
    assert len(moved) == 1 and "only moved up a level" in moved.iloc[0]["reason"]
    r = t.explain("status = 'NEW'")  # the moved-up file holds NEW rows (its stats keep it)
    v = next(x for x in r.files if x.file_name == moved.iloc[0]["data_file"])
    assert v.planned
    assert v.stage != "primary-key index"  # its own file index (bitmap on status) may still skip it
    assert any(v.file_name in n and "only moved up a level" in n for n in r.notes)
    assert r.summary()["primary_key_index"]["files_indexed"] == 2
    assert any(row["stage"] == "after primary-key index" for row in r.funnel())


def test_index_of_other_files_is_not_used(tmp_path: Path) -> None:
    """A payload whose sources differ from the level's files (here: row counts) is not used."""
    t = pl.open_table(str(with_pk_index(tmp_path / "orders", corrupt_rows=True)))
    r = t.explain("status = 'SHIPPED'")
    assert r.summary()["primary_key_index"]["files_indexed"] == 0
    assert all(c != "covered" for c in t.global_index_coverage()["status"])


def test_bitmap_kind_and_older_releases(tmp_path: Path) -> None:
    t = pl.open_table(str(with_pk_index(tmp_path / "orders", kind="bitmap")))
    assert set(t.global_indexes()["kind"]) == {"primary-key"}
    assert t.explain("status = 'SHIPPED'").summary()["primary_key_index"]["files_indexed"] == 2
    old = pl.open_table(str(tmp_path / "orders"), paimon_version="1.4").explain("status = 'SHIPPED'")
    assert "primary_key_index" not in old.summary()


@pytest.mark.parametrize("where", ["status = 'NEW'", "status IN ('CANCELLED', 'PAID')", "status IS NOT NULL"])
def test_file_moved_up_to_an_indexed_level_is_read_whole(tmp_path: Path, where: str) -> None:
    """A level's index covers the files it was built from; a file that reached the level later
    without a compaction (APPEND source) is not among its sources and is read whole, whatever the
    index says of the row ordinals it would map to (paimon-cpp's primary-key sorted index scan keys
    the payloads by source file name)."""
    t = pl.open_table(str(with_pk_index(tmp_path / "orders", moved_to_indexed_level=True)))
    levels = {(lf.entry.bucket, lf.file.level) for lf in t.live_files() if lf.file.file_source != COMPACT}
    assert len(levels) == 1 and next(iter(levels))[1] == 4  # beside the compacted level-4 file
    cov = t.global_index_coverage()
    moved = cov[cov["status"] == "uncovered"]
    assert len(moved) == 1 and "only moved up a level" in moved.iloc[0]["reason"]
    r = t.explain(where, truth=True)
    s = r.summary()
    assert s["skipped_files_with_match"] == 0
    assert s["matching_rows"] == pl.open_table(str(SOURCE)).explain(where, truth=True).summary()["matching_rows"]
    v = next(x for x in r.files if x.file_name == moved.iloc[0]["data_file"])
    assert v.stage != "primary-key index" and v.index_selected_rows != 0
    assert s["primary_key_index"]["files_indexed"] == 2 and s["primary_key_index"]["files_read_whole"] >= 1
