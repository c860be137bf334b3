"""Warehouse health: every table of a catalog in one row, ranked; broken tables are rows with an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.presentation.cli import main
from paimon_lens.presentation.frame_columns import HEALTH_COLUMNS
from tests.presentation.test_frame_columns import check_frame

ROOT = Path(__file__).parent.parent.parent


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wh = tmp_path_factory.mktemp("wh")
    for name in ("events20", "demo_orders", "orders_dv20"):
        shutil.copytree(ROOT / "data" / name, wh / "demo.db" / name)
    shutil.copytree(ROOT / "data" / "events20", wh / "broken.db" / "events")
    for snap in (wh / "broken.db" / "events" / "snapshot").glob("snapshot-*"):
        snap.write_text("{ not json", encoding="utf-8")
    workloads = wh.parent / f"{wh.name}-workloads"
    workloads.mkdir()
    shutil.copy(ROOT / "data" / "events20.workload.sql", workloads / "demo.events20.sql")
    return wh


def test_every_table_ranked_with_its_findings(warehouse: Path) -> None:
    health = pl.open_catalog(str(warehouse)).health(str(warehouse.parent / f"{warehouse.name}-workloads"))
    rows = {t.table: t for t in health.tables}
    assert set(rows) == {"demo.events20", "demo.demo_orders", "demo.orders_dv20", "broken.events"}
    assert health.tables[0].table == "broken.events" and "snapshot" in (health.tables[0].error or "")
    scores = [t.savings_score for t in health.tables[1:]]
    assert scores == sorted(scores, reverse=True)  # the most to save first
    demo = rows["demo.demo_orders"]
    assert demo.files == 16 and demo.index_data_ratio is not None and demo.index_data_ratio > 0.9
    assert demo.top_finding is not None and demo.findings >= 2 and demo.error is None
    dv = rows["demo.orders_dv20"]
    assert dv.dv_max_bucket_ratio is not None and 0.2 < dv.dv_max_bucket_ratio < 0.25
    events = rows["demo.events20"]
    assert events.workload is not None and events.workload.endswith("demo.events20.sql")
    assert events.read_for_nothing_bytes is not None and events.snapshots == 6 and events.schemas == 2
    assert rows["demo.orders_dv20"].read_for_nothing_bytes is None  # no workload for it
    check_frame(health.frame(), HEALTH_COLUMNS, "health")


def test_cli_health_json_html_and_exit_code(warehouse: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "health.html"
    assert main(["health", str(warehouse), "--format", "json", "-o", str(out)]) == 1  # a broken table
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["warehouse"] == str(warehouse) and len(doc["tables"]) == 4
    assert "broken.events" in captured.err
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "Warehouse health" in html and "demo.demo_orders" in html
    assert "ALTER TABLE demo.demo_orders" in html


def _rows(health: object) -> list[dict[str, object]]:
    return [t.to_dict() for t in health.tables]  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["process", "spark"])
def test_tables_as_tasks_give_the_local_rows(warehouse: Path, engine: str, request: pytest.FixtureRequest) -> None:
    """On a distributed engine each table is a task; the rows (errors, workload checks, ranking) equal local."""
    workloads = str(warehouse.parent / f"{warehouse.name}-workloads")
    catalog = pl.open_catalog(str(warehouse))
    local = catalog.health(workloads)
    if engine == "spark":
        from paimon_lens.engines.spark import SparkEngine

        runner: object = SparkEngine(request.getfixturevalue("spark"))
    else:
        runner = engine
    assert _rows(catalog.health(workloads, engine=runner)) == _rows(local)


def test_cli_health_on_the_process_engine(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", str(warehouse), "--format", "json", "--no-progress"]) == 1
    local = json.loads(capsys.readouterr().out)
    assert main(["health", str(warehouse), "--format", "json", "--no-progress", "--engine", "process"]) == 1
    assert json.loads(capsys.readouterr().out) == local


def test_an_unreadable_index_size_is_unknown_not_zero(tmp_path: Path) -> None:
    """A table whose external ``.index`` file is gone: its index bytes and index/data ratio are
    unknown (None), not a total that counts the missing container as 0 bytes."""
    src = Path(__file__).parent.parent / "fixtures/tables/a_append_indexed/warehouse/db.db/events_external"
    db = tmp_path / "wh" / "db.db"
    shutil.copytree(src, db / "events_external")
    sizes = {p: p.stat().st_size for p in (db / "events_external").rglob("*.index")}
    whole = pl.open_catalog(str(tmp_path / "wh")).health().tables[0]
    assert whole.index_bytes is not None and whole.index_bytes >= sum(sizes.values())
    next(iter(sizes)).unlink()
    row = pl.open_catalog(str(tmp_path / "wh")).health().tables[0]
    assert row.index_bytes is None and row.index_data_ratio is None
