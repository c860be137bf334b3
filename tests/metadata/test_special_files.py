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
