"""Snapshot selection (latest, earliest, id, tag, time) and the errors a user can hit."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError, SnapshotNotFoundError, TableNotFoundError
from paimon_lens.metadata.manifest import merge_entries
from tests.conftest import FIXTURES

EVENTS = FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_mixed"
ORDERS = FIXTURES / "tables/c_pk_deletion_vectors/warehouse/db.db/orders_dv"


@pytest.fixture()
def events_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "events_mixed"
    shutil.copytree(EVENTS, dst)
    return dst


def _time(table_dir: Path, sid: int) -> int:
    return int(json.loads((table_dir / "snapshot" / f"snapshot-{sid}").read_text())["timeMillis"])


def test_latest_and_earliest() -> None:
    assert pl.open_table(str(EVENTS)).snapshot_id == 6
    assert pl.open_table(str(EVENTS), "latest").snapshot_id == 6
    assert pl.open_table(str(EVENTS), "earliest").snapshot_id == 1
    assert pl.open_table(str(EVENTS), 3).snapshot_id == 3
    assert pl.open_table(str(EVENTS), "3").snapshot_id == 3
    # orders_dv has an EARLIEST hint
    assert pl.open_table(str(ORDERS), "earliest").snapshot_id == 1


def test_latest_hint_stale_falls_back_to_listing(events_copy: Path) -> None:
    (events_copy / "snapshot" / "LATEST").write_text("2")
    assert pl.open_table(str(events_copy)).snapshot_id == 6
    (events_copy / "snapshot" / "LATEST").unlink()
    assert pl.open_table(str(events_copy)).snapshot_id == 6


def test_by_time() -> None:
    t4 = _time(EVENTS, 4)
    assert pl.open_table(str(EVENTS), timestamp_ms=t4).snapshot_id == 4
    assert pl.open_table(str(EVENTS), timestamp_ms=t4 - 1).snapshot_id == 3
    assert pl.open_table(str(EVENTS), timestamp_ms=10**15).snapshot_id == 6
    when = dt.datetime.fromtimestamp(t4 / 1000, dt.UTC)
    assert pl.open_table(str(EVENTS), when).snapshot_id == 4
    with pytest.raises(SnapshotNotFoundError, match="no snapshot at or before"):
        pl.open_table(str(EVENTS), timestamp_ms=_time(EVENTS, 1) - 1)


def test_by_tag(events_copy: Path) -> None:
    # A tag file is the snapshot's JSON (plus tag fields) under tag/tag-NAME, as Paimon writes it.
    snap = json.loads((events_copy / "snapshot" / "snapshot-2").read_text())
    snap["tagCreateTime"] = [2026, 11, 22, 3, 0, 0]
    (events_copy / "tag").mkdir()
    (events_copy / "tag" / "tag-nightly").write_text(json.dumps(snap))
    t = pl.open_table(str(events_copy), tag="nightly")
    assert t.snapshot_id == 2 and t.snapshot is not None and t.snapshot.tag == "nightly"
    assert pl.open_table(str(events_copy), "tag:nightly").snapshot_id == 2
    assert len(t.files()) == 2
    with pytest.raises(SnapshotNotFoundError, match=r"tag 'nope' not found.*tags: nightly"):
        pl.open_table(str(events_copy), tag="nope")


def test_time_travel_sees_fewer_files() -> None:
    t = pl.open_table(str(EVENTS))
    assert [len(t.at(i).live_files()) for i in range(1, 7)] == [1, 2, 3, 4, 5, 6]


def test_missing_table(tmp_path: Path) -> None:
    with pytest.raises(TableNotFoundError, match="no such directory"):
        pl.open_table(str(tmp_path / "nope"))
    with pytest.raises(TableNotFoundError, match="not a Paimon table"):
        pl.open_table(str(tmp_path))


def test_expired_snapshot(events_copy: Path) -> None:
    (events_copy / "snapshot" / "snapshot-1").unlink()
    with pytest.raises(SnapshotNotFoundError, match=r"snapshot 1 not found \(expired\).*snapshot-1.*2\.\.6"):
        pl.open_table(str(events_copy), 1)
    with pytest.raises(SnapshotNotFoundError, match="snapshot 9 not found"):
        pl.open_table(str(events_copy), 9)


def _a_manifest(table_dir: Path) -> Path:
    t = pl.open_table(str(table_dir))
    return table_dir / "manifest" / t.manifest_files()[0].file_name


def test_truncated_manifest(events_copy: Path) -> None:
    m = _a_manifest(events_copy)
    m.write_bytes(m.read_bytes()[: len(m.read_bytes()) // 2])
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(events_copy)).files()
    assert e.value.path == str(m) and e.value.offset is not None and "manifest" in e.value.field
    assert m.name in str(e.value)


def test_non_avro_manifest(events_copy: Path) -> None:
    m = _a_manifest(events_copy)
    m.write_bytes(b'{"this": "is json"}')
    match = r"at byte 0: bad manifest header.*not an Avro, ORC or Parquet file"
    with pytest.raises(CorruptFileError, match=match) as e:
        pl.open_table(str(events_copy)).files()
    assert e.value.path == str(m)


def test_corrupt_snapshot_json(events_copy: Path) -> None:
    (events_copy / "snapshot" / "snapshot-6").write_text("{not json")
    with pytest.raises(CorruptFileError, match="snapshot-6"):
        pl.open_table(str(events_copy))


def test_merge_add_delete_on_compacted_table() -> None:
    """orders_dv was compacted: DELETE entries cancel ADDs across manifests."""
    t = pl.open_table(str(ORDERS))
    entries = t.reader.manifest_entries()
    assert any(e.kind == 1 for e in entries)
    live = merge_entries(entries)
    assert len(live) == 4 < len([e for e in entries if e.kind == 0])
    # DELETE entries alone never make a live file
    deletes = [e for e in entries if e.kind == 1]
    assert merge_entries(deletes) == []


def test_frames_have_documented_columns() -> None:
    from paimon_lens.presentation import frames

    t = pl.open_table(str(EVENTS))
    assert list(t.snapshots().columns) == list(frames.SNAPSHOT_COLUMNS)
    assert list(t.schemas().columns) == list(frames.SCHEMA_COLUMNS)
    assert list(t.manifests().columns) == list(frames.MANIFEST_COLUMNS)
    assert list(t.index_manifest().columns) == list(frames.INDEX_MANIFEST_COLUMNS)
    files = t.files()
    assert list(files.columns[: len(frames.FILE_COLUMNS)]) == list(frames.FILE_COLUMNS)
    assert "min(score)" in files.columns and "null_count(country)" in files.columns
