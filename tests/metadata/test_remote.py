"""Remote tables through fsspec: the in-memory file system stands in for s3/hdfs/oss."""

from __future__ import annotations

import os

import fsspec

import paimon_lens as pl
from tests.conftest import FIXTURES

EVENTS = FIXTURES / "tables20/a20_append_indexed/warehouse/db.db/events20"


def test_open_table_through_fsspec() -> None:
    fs = fsspec.filesystem("memory")
    root = "/lens-test/events20"
    for dirpath, _dirs, files in os.walk(EVENTS):
        for name in files:
            src = os.path.join(dirpath, name)
            rel = os.path.relpath(src, EVENTS).replace(os.sep, "/")
            with open(src, "rb") as f:
                fs.pipe_file(f"{root}/{rel}", f.read())
    remote = pl.open_table(f"memory://{root}")
    local = pl.open_table(str(EVENTS))
    assert remote.snapshot_id == local.snapshot_id == 6
    r, lo = remote.files(), local.files()
    assert list(r.file_name) == list(lo.file_name)
    assert list(r.index_size) == list(lo.index_size)
    assert r["min(price)"].tolist() == lo["min(price)"].tolist()
    assert remote.at("earliest").snapshot_id == 1
