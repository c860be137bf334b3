"""The planner as stages: each step one class, the chain a plan has chosen by the table, the query
and the release, and the funnel built from the ordered steps."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pyroaring import BitMap

import paimon_lens as pl
from paimon_lens.formats.result import REMAIN, SKIP, BitmapIndexResult
from paimon_lens.predicate.parser import parse_where
from paimon_lens.pruning import scan
from paimon_lens.pruning.pipeline import STAGES, STEPS
from paimon_lens.pruning.plan_stages import (
    PLAN_STAGES,
    GlobalIndexStage,
    PrimaryKeyIndexStage,
    Query,
    RowIdStage,
    TopNStage,
)
from paimon_lens.pruning.read_stages import DeletionVectorStage, IndexRowsStage, ReadIndexStage, read_file
from paimon_lens.pruning.scan_stages import (
    BucketStage,
    EmbeddedIndexStage,
    KeyStatsStage,
    LevelStage,
    PartitionStage,
    RowRangeStatsStage,
    WholeBucketStage,
)
from paimon_lens.pruning.stage import Stage
from paimon_lens.pruning.topn import TopN
from paimon_lens.pruning.versions import rules_for

ROOT = Path(__file__).resolve().parents[2]
GLOBAL = ROOT / "tests/fixtures/pypaimon_global/warehouse/db.db"


def _planner(table: Any, where: str | None, version: str = "2.0") -> Any:
    predicate = parse_where(where, table.schema.fields) if where else None
    return scan._Planner(table, predicate, True, False, rules_for(version))


def _chain(planner: Any) -> list[type[Stage]]:
    stages = [*planner.place_stages, planner.value_stats, planner.embedded_index, planner.key_stage,
              *planner.group_stages]
    return [type(s) for s in stages if s is not None]


def test_steps_are_in_paimons_order_with_unique_names() -> None:
    assert STAGES == ("partition", "bucket", "row ids", "global index", "level", "stats", "index", "whole_bucket",
                      "primary-key index", "topn", "read index", "index rows", "deletion vector")
    assert [s.phase for s in STEPS].count("read") == 3 and [s.phase for s in STEPS].count("plan") == 4
    assert tuple(PLAN_STAGES) == (RowIdStage, GlobalIndexStage, PrimaryKeyIndexStage, TopNStage)
    # stages of one step share its name
    assert KeyStatsStage.name == RowRangeStatsStage.name == "stats"


def test_funnel_labels() -> None:
    assert LevelStage.funnel_label() == "after level-0 rule"
    assert WholeBucketStage.funnel_label() == "after whole-bucket rule"
    assert IndexRowsStage.funnel_label() == "after index row selection"
    assert PartitionStage.funnel_label() == "after partition"


def test_shown_hides_primary_key_steps_and_steps_not_consulted() -> None:
    report = SimpleNamespace(global_index=None, row_id_ranges=[(0, 3)], pk_index=None, topn=None)
    assert not LevelStage.shown(report, primary_key_table=False) and LevelStage.shown(report, True)
    assert LevelStage.consulted(report)  # counted in skipped_by on every table
    assert not GlobalIndexStage.consulted(report) and RowIdStage.consulted(report)
    assert not GlobalIndexStage.shown(report, True) and RowIdStage.shown(report, False)


def test_append_table_chain_follows_the_predicate() -> None:
    t = pl.open_table(ROOT / "data/events20")
    assert _chain(_planner(t.reader, "dt = '2025-01-01' AND score > 50")) == [
        PartitionStage, scan.ValueStatsStage, EmbeddedIndexStage]
    planner = _planner(t.reader, None)
    assert _chain(planner) == [PartitionStage, scan.ValueStatsStage, EmbeddedIndexStage]
    assert planner.data_filter is None  # no value filter to test: evaluate never reaches the value stages


def test_primary_key_table_chain_by_release() -> None:
    t = pl.open_table(ROOT / "data/orders_dv20")
    new = _chain(_planner(t.reader, "order_id = 7 AND status = 'PAID'"))
    assert new == [PartitionStage, BucketStage, LevelStage, scan.ValueStatsStage, EmbeddedIndexStage,
                   KeyStatsStage, WholeBucketStage]
    # Paimon 0.9: no file index on primary-key tables, and the value filter replaces the key filter
    old = _chain(_planner(t.reader, "order_id = 7 AND status = 'PAID'", "0.9"))
    assert old == [PartitionStage, BucketStage, LevelStage, scan.ValueStatsStage, WholeBucketStage]


def test_data_evolution_table_decides_row_range_groups() -> None:
    t = pl.open_table(GLOBAL / "gi_basic")
    assert RowRangeStatsStage in _chain(_planner(t.reader, "idx = 120"))


def test_place_stages_agree_with_the_decisions() -> None:
    t = pl.open_table(ROOT / "data/orders_dv20")
    planner = _planner(t.reader, "order_id = 7")
    for lf in t.live_files():
        ev = planner.evaluate(lf)
        kept = ev.stage not in ("partition", "bucket", "level")
        assert planner.reaches_stats(lf) == kept, lf.file.file_name
        if ev.stage in ("bucket", "level"):
            assert ev.reason == next(s for s in planner.place_stages if s.name == ev.stage).why(ev)


def test_plan_stages_apply_by_table_query_and_release() -> None:
    gi = pl.open_table(GLOBAL / "gi_basic")
    p = parse_where("idx = 120", gi.schema.fields)
    plain = Query(p, p)
    assert GlobalIndexStage.applies(gi, rules_for("2.0"), plain)
    assert not GlobalIndexStage.applies(gi, rules_for("2.0"), Query(p, p, row_ranges=[(0, 5)]))
    verdicts = gi.explain("idx = 120").files
    assert GlobalIndexStage.run(gi.reader, rules_for("0.9"), plain, verdicts) is None  # 0.9 has no global index
    out = GlobalIndexStage.run(gi.reader, rules_for("2.0"), plain, verdicts)
    assert out is not None and out.fields["global_index"] is not None
    assert not TopNStage.applies(gi, rules_for("2.0"), plain)
    assert TopNStage.applies(gi, rules_for("2.0"), Query(p, p, topn=TopN.parse("idx", 3)))
    events = pl.open_table(ROOT / "data/events20")
    assert not PrimaryKeyIndexStage.applies(events, rules_for("2.0"), plain)
    assert not RowIdStage.applies(events, rules_for("2.0"), plain)


def _decision(location: str = "embedded", reason: str = "") -> Any:
    return SimpleNamespace(index_location=location, reason=reason)


def _lf(rows: int) -> Any:
    return SimpleNamespace(entry=SimpleNamespace(file=SimpleNamespace(row_count=rows)))


def test_read_index_drops_a_file_its_external_index_skips() -> None:
    assert read_file(_decision("external", "x"), _lf(10), SKIP, None) == (False, 0, "read index", "x", None, 0)
    assert ReadIndexStage.drops(_decision("embedded"), SKIP) is None  # embedded: decided while planning
    assert ReadIndexStage.drops(_decision("external"), REMAIN) is None


def test_index_rows_then_deletion_vector() -> None:
    sel = BitmapIndexResult(BitMap([1, 2, 3]))
    assert read_file(_decision(), _lf(10), BitmapIndexResult(BitMap()), None) == (
        False, 0, "index rows", IndexRowsStage.REASON, 0, 0)
    assert read_file(_decision(), _lf(10), sel, BitMap([2, 7])) == (True, 2, "", "", 3, 1)
    assert read_file(_decision(), _lf(10), sel, BitMap([1, 2, 3])) == (
        False, 0, "deletion vector", DeletionVectorStage.REASON, 3, 3)
    # before Paimon 1.0 the bitmap does not select rows: the whole file, less its deleted rows
    assert read_file(_decision(), _lf(10), sel, BitMap([2, 7]), bitmap_selection=False) == (True, 8, "", "", None, 2)
    assert read_file(_decision(), _lf(4), None, None) == (True, 4, "", "", None, 0)


@pytest.mark.parametrize("where", ["status = 'PAID'", "order_id > 10 AND qty > 1", "customer = 3"])
def test_every_verdict_names_a_step(where: str) -> None:
    report = pl.open_table(ROOT / "data/orders_dv20").explain(where)
    assert {f.stage for f in report.files} <= {"", *STAGES}
    assert set(report.summary()["skipped_by"]) == {s.name for s in STEPS if s.report_field is None}
