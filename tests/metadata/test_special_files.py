"""Files that are not regular files in place of a table's files: never opened, never block, never
read whole; the file that names them carries an error and the rest of the answer goes on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


@pytest.fixture()
def events(tmp_path: Path) -> Path:
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    return copy


@pytest.mark.timeout(60)
def test_data_file_symlinked_to_dev_zero(events: Path) -> None:
    t = pl.open_table(str(events))
    lf = max(t.live_files(), key=lambda f: f.entry.file.row_count)
    target = events / lf.path
    target.unlink()
    os.symlink("/dev/zero", target)
    r = pl.open_table(str(events)).explain("id > 0", truth=True)
    bad = next(f for f in r.files if f.file_name == lf.entry.file.file_name)
    assert bad.error and "a device" in bad.error and bad.matching_rows is None
    assert sum(1 for f in r.files if f.error) == 1 and r.summary()["matching_rows"] > 0


@pytest.mark.timeout(60)
def test_fifo_in_place_of_an_index_file(events: Path) -> None:
    t = pl.open_table(str(events))
    lf = next(f for f in t.live_files() if f.index_location == "external")
    index = events / lf.index_file_path
    index.unlink()
    os.mkfifo(index)
    fresh = pl.open_table(str(events))
    idx = fresh.file_indexes()
    rows = idx[idx["file_name"] == lf.entry.file.file_name]
    assert len(rows) and all("a FIFO" in e for e in rows["error"])
    r = fresh.explain("id > 0 AND country IS NOT NULL")  # planned: the reader consults its external index
    verdict = next(f for f in r.files if f.file_name == lf.entry.file.file_name)
    assert verdict.planned and verdict.error and "a FIFO" in verdict.error


@pytest.mark.timeout(60)
def test_directory_in_place_of_a_data_file(events: Path) -> None:
    t = pl.open_table(str(events))
    lf = t.live_files()[0]
    target = events / lf.path
    target.unlink()
    target.mkdir()
    r = pl.open_table(str(events)).explain("id > 0", truth=True)
    bad = next(f for f in r.files if f.file_name == lf.entry.file.file_name)
    assert bad.error and "a directory" in bad.error


def test_bitmap_index_claiming_too_many_rows(events: Path) -> None:
    """A bitmap index whose header claims 2^31 - 1 rows (the file has a few): a NOT EQUAL flips over
    the claimed rows. The selection is refused as corrupt, not believed (no 2-billion-row funnel)."""
    import struct

    from paimon_lens.formats.file_index_format import FileIndexFormatReader
    from tests.conftest import rewrite_avro

    t = pl.open_table(str(events))
    lf = next(f for f in t.live_files() if f.entry.file.embedded_index is not None)
    layout = FileIndexFormatReader(lf.entry.file.embedded_index.read(), "test").layout
    start = next(i.start for c in layout.columns if c.column == "country" for i in c.indexes
                 if i.index_type == "bitmap")
    data = bytearray(lf.entry.file.embedded_index.read())
    assert data[start] in (1, 2)  # bitmap version byte, then the row count
    data[start + 1:start + 5] = struct.pack(">i", 2**31 - 1)

    def change(r: dict) -> None:  # type: ignore[type-arg]
        if r["_FILE"]["_FILE_NAME"] == lf.entry.file.file_name:
            r["_FILE"]["_EMBEDDED_FILE_INDEX"] = bytes(data)

    for m in (events / "manifest").glob("manifest-*"):
        if not m.name.startswith("manifest-list"):
            rewrite_avro(m, change)
    r = pl.open_table(str(events)).explain("country <> 'XX'")
    assert r.summary()["rows_after_dv"] <= sum(f.row_count for f in r.files)
    verdict = next(f for f in r.files if f.file_name == lf.entry.file.file_name)
    assert verdict.read and verdict.error and "corrupt index" in verdict.error
    doc = r.to_dict(positions=True)
    rec = next(x for x in doc["files"] if x["file_name"] == lf.entry.file.file_name)
    assert rec["index_positions"] is None and rec["error"]
