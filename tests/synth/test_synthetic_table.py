"""The synthetic table generator of the benchmarks writes tables paimon-lens reads consistently.

Small tables (60 files of 50 rows): the layout is Paimon's, the manifest stats are those of the
data files, every index decodes, deletion vectors pass their CRC, rows sit in the bucket Paimon's
bucket function gives them, and ``explain(..., truth=True)`` never skips a file that holds a match.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import paimon_lens as pl
from benchmarks.synthetic_table import COLUMNS, make_table, paimon_bucket
from paimon_lens.pruning.explain import explain
from paimon_lens.table.facade import Table
from paimon_lens.values import to_internal
from tests.conftest import FIXTURES

FILES = 60
ROWS = 50
DATA_NAME = re.compile(r"^dt=2025-01-0[1-3]/bucket-[01]/data-[0-9a-f-]{36}-0\.parquet$")


def _make(root: Path, primary_key: bool, seed: int) -> Path:
    return make_table(root, files=FILES, partitions=3, buckets=2, rows_per_file=ROWS,
                      primary_key=primary_key, seed=seed)


@pytest.fixture(scope="module", params=[False, True], ids=["append", "pk"])
def table_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _make(tmp_path_factory.mktemp("synthetic") / "t", request.param, seed=7)


@pytest.fixture(scope="module")
def table(table_dir: Path) -> Table:
    return pl.open_table(str(table_dir))


def _rel(root: Path, paths: Any) -> set[str]:
    return {p.relative_to(root).as_posix() for p in paths}


def test_layout(table_dir: Path) -> None:
    names = {p.name for p in (table_dir / "manifest").iterdir()}
    assert len([n for n in names if n.startswith("manifest-list-")]) == 2  # base and delta
    assert len([n for n in names if n.startswith("manifest-") and "list" not in n]) >= 1
    assert (table_dir / "schema" / "schema-0").is_file()
    assert (table_dir / "snapshot" / "LATEST").read_text() == "1"
    assert (table_dir / "snapshot" / "EARLIEST").read_text() == "1"
    data = _rel(table_dir, table_dir.glob("dt=*/bucket-*/*.parquet"))
    assert len(data) == FILES and all(DATA_NAME.match(p) for p in data)


def test_files_carry_the_stats_of_the_data(table_dir: Path) -> None:
    t = pl.open_table(str(table_dir))
    frame = t.files()
    assert len(frame) == FILES
    assert set(frame["file_path"]) == _rel(table_dir, table_dir.glob("dt=*/bucket-*/*.parquet"))
    indexed = _rel(table_dir, table_dir.glob("dt=*/bucket-*/*.index"))
    assert set(frame["index_file"].dropna()) == indexed and indexed
    assert set(frame["index_location"]) == {"embedded", "external"}
    fields = t.schema.fields
    bucket_key = "id" if t.is_primary_key_table else "user_id"
    for lf in t.live_files():
        path = table_dir / lf.path
        arrow = pq.read_table(path)
        assert lf.entry.file.row_count == arrow.num_rows == ROWS
        assert lf.entry.file.file_size == path.stat().st_size
        assert lf.stats_error is None
        for f, st in zip(fields, lf.stats):
            values = [to_internal(v, f.type) for v in arrow.column(f.name).to_pylist()]
            present = [v for v in values if v is not None]
            assert (st.min, st.max, st.null_count) == (min(present), max(present), len(values) - len(present)), f.name
        keys = arrow.column(bucket_key).to_numpy()
        root = "BIGINT" if bucket_key == "id" else "INT"
        assert set(paimon_bucket(keys, root, 2).tolist()) == {lf.entry.bucket}
        assert lf.partition == {"dt": arrow.column("dt")[0].as_py()}


def test_every_index_decodes(table_dir: Path) -> None:
    t = pl.open_table(str(table_dir))
    frame = t.file_indexes()
    assert len(frame) == FILES * 4
    assert frame["error"].isna().all()
    assert sorted(set(zip(frame["column"], frame["index_type"]))) == [
        ("country", "bitmap"), ("id", "bloom-filter"), ("score", "range-bitmap"), ("status", "bitmap")]


def _some_value(table_dir: Path, column: str) -> Any:
    first = sorted(table_dir.glob("dt=2025-01-02/bucket-1/*.parquet"))[0]
    return pq.read_table(first, columns=[column]).column(column)[7].as_py()


PREDICATES = [
    "country = 'DE'",
    "score BETWEEN 400 AND 450",
    "dt = '2025-01-02' AND status = 'banned'",
    "status = 'pending'",
    "status IS NULL OR country IN ('FR', 'JP')",
    "country = 'US' AND score < 300 AND dt >= '2025-01-02'",
    "amount > 990 OR price < 1.5",
    "id = {id}",
    "user_id = {user_id} AND dt = '2025-01-02'",
    "id IN ({id}, 5, 17) AND status <> 'closed'",
]


@pytest.mark.parametrize("template", PREDICATES)
def test_explain_never_skips_a_match(table_dir: Path, table: Table, template: str) -> None:
    t = table
    where = template.format(id=_some_value(table_dir, "id"), user_id=_some_value(table_dir, "user_id"))
    report = explain(t.reader, where, truth=True)
    assert not report.notes, report.notes
    assert len(report.files) == FILES
    for f in report.files:
        assert not any(flag.startswith("PAIMON SKIPPED") for flag in f.flags), (where, f.file_name, f.flags)
        assert f.matching_positions is not None
        if f.matching_rows:
            assert f.planned and f.read, (where, f.file_name, f.stage, f.reason)
        if f.read:
            assert f.planned
    s = report.summary()
    assert s["skipped_files_with_match"] == 0
    assert s["read_files"] <= s["planned_files"] <= s["files"]
    assert s["matching_files"] <= s["read_files"]
    if "{" in template:  # the value was taken from a data file of dt=2025-01-02
        assert sum(len(f.matching_positions or ()) for f in report.files) >= 1


def test_deletion_vectors_decode(table: Table) -> None:
    t = table
    dv = t.deletion_vectors()
    if not t.is_primary_key_table:
        assert len(dv) == 0 and t.snapshot is not None and t.snapshot.index_manifest is None
        return
    assert len(dv) > 0
    assert dv["crc_ok"].all() and dv["error"].isna().all()
    assert (dv["cardinality"] == dv["stored_cardinality"]).all()
    assert (dv["cardinality"] < dv["row_count"]).all()
    live = {lf.entry.file.file_name for lf in t.live_files()}
    assert set(dv["data_file"]) <= live
    assert all(lf.entry.file.level == 5 for lf in t.live_files())


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = make_table(tmp_path / "a", files=6, partitions=2, buckets=2, rows_per_file=10, primary_key=True, seed=5)
    b = make_table(tmp_path / "b", files=6, partitions=2, buckets=2, rows_per_file=10, primary_key=True, seed=5)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_bucket_function_matches_paimon() -> None:
    """Rows of a table written by Paimon 2.0 (bucket = 2, key order_id BIGINT) sit in our buckets."""
    table = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
    seen = 0
    for path in table.glob("bucket-*/*.parquet"):
        bucket = int(path.parent.name.split("-")[1])
        ids = pq.read_table(path, columns=["order_id"]).column("order_id").to_numpy()
        assert set(paimon_bucket(ids, "BIGINT", 2).tolist()) == {bucket}
        seen += 1
    assert seen > 0


def test_columns_are_the_schema(table_dir: Path) -> None:
    t = pl.open_table(str(table_dir))
    assert [(f.id, f.name) for f in t.schema.fields] == [(i, n) for i, n, _ in COLUMNS]
    assert t.schema.partition_keys == ("dt",)
