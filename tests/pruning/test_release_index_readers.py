"""An index the modelled Paimon release cannot read fails the query in that release: the file says
so (an error, counted as REMAIN) instead of pruning as a newer release would."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import paimon_lens as pl
from paimon_lens.pruning.versions import rules_for
from paimon_lens.writer import TableWriter


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("release_indexes") / "t"
    w = TableWriter.create(path, pa.schema([("id", pa.int64()), ("status", pa.string()), ("score", pa.int32()),
                                            ("tag", pa.string())]), options={
        "file-index.bitmap.columns": "status", "file-index.range-bitmap.columns": "score",
        "file-index.bloom-filter.columns": "id", "file-index.bsi.columns": "id"})
    w.commit(pa.table({"id": pa.array(range(40), pa.int64()), "status": [("a", "b")[i % 2] for i in range(40)],
                       "score": pa.array([i % 9 for i in range(40)], pa.int32()),
                       "tag": ["x"] * 40}), rows_per_file=10)
    return path


@pytest.mark.parametrize(("version", "where", "unreadable"), [
    ("0.9", "status = 'a'", "bitmap"),  # bitmap V2 (written by default from 1.1) is read from 1.0
    ("1.0", "status = 'a'", None),
    ("1.1", "status = 'a'", None),
    ("1.2", "score = 4", "range-bitmap"),  # from 1.3
    ("1.3", "score = 4", None),
    ("0.9", "id = 5", "bsi"),  # from 1.0
    ("1.0", "id = 5", None),
    ("0.9", "tag = 'x'", None),  # no index on the column: nothing to read
])
def test_an_index_the_release_cannot_read(indexed: Path, version: str, where: str, unreadable: str | None) -> None:
    report = pl.open_table(str(indexed), progress=False, paimon_version=version).explain(where)
    newest = pl.open_table(str(indexed), progress=False).explain(where)
    reached = [(f, g) for f, g in zip(report.files, newest.files) if f.stage != "stats"]  # the stats prune first
    assert reached
    for f, g in reached:
        if unreadable is None:
            assert f.error is None
            continue
        assert f.error is not None and f"Paimon {version}" in f.error and unreadable in f.error
        assert f.index_result == "REMAIN"
        assert "fails the query" in f.error
        assert g.error is None  # the newest release reads it
    assert rules_for("2.0").unreadable_index("bitmap", 2) is None
    assert rules_for("0.9").unreadable_index("bitmap", 1) is None
