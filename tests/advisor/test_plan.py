"""The tuning plan: one configuration, ordered steps, and a predicted effect that Paimon's planning
of a table written with the planned options confirms."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import paimon_lens
from paimon_lens.advisor.finding import Procedure
from paimon_lens.advisor.plan import Plan
from paimon_lens.presentation.cli import main
from paimon_lens.writer.table_writer import TableWriter

DATA = Path(__file__).resolve().parents[2] / "data"
EVENTS = DATA / "events20"
WORKLOAD = DATA / "events20.workload.sql"

#: indexes the workload does not need (bsi on price, bloom on user_id) and one it needs (country)
OPTIONS = {"file-index.bsi.columns": "price", "file-index.bloom-filter.columns": "user_id",
           "file-index.in-manifest-threshold": "0 b"}
QUERIES = ["country = 'C03'", "country IN ('C01', 'C07')", "score > 950", "user_id = 5"]


def _rows(n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    # file k (300 rows each) holds two countries five apart: min/max keep it for the three between,
    # which only an index rules out
    country = [f"C{(i // 300) % 5 + 5 * (i % 2):02d}" for i in range(n)]
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "user_id": pa.array(rng.integers(0, 3000, n).astype(np.int32)),
        "country": pa.array(country).cast(pa.string()),
        "score": pa.array(rng.integers(0, 1000, n).astype(np.int32)),
        "price": pa.array(rng.integers(0, 100, n).astype(np.int64)),
    })


def _write(root: Path, options: dict[str, str]) -> paimon_lens.Table:
    w = TableWriter.create(root, _rows(3000).schema, options=options)
    w.commit(_rows(3000), rows_per_file=300)
    return paimon_lens.open_table(str(root), progress=False)


@pytest.fixture(scope="module")
def events_plan() -> Plan:
    return paimon_lens.open_table(str(EVENTS), progress=False).plan(str(WORKLOAD), progress=False)


def _keys(statement: str) -> list[str]:
    """The option keys an ALTER TABLE statement sets (``'k' = 'v'``) or unsets (``'k'``)."""
    inside = statement[statement.index("(") + 1:statement.rindex(")")]
    if " SET " in statement:
        return re.findall(r"'([^']+)'\s*=", inside)
    return re.findall(r"'([^']+)'", inside)


def test_no_option_is_set_twice_and_the_steps_are_ordered(events_plan: Plan) -> None:
    kinds = [s.kind for s in events_plan.steps]
    assert kinds == ["options", "rewrite-file-index", "compact"]
    assert not set(events_plan.options_set) & set(events_plan.options_unset)
    spark = events_plan.statements("spark")
    alters = [s for s in spark if s.startswith("ALTER TABLE")]
    assert len(alters) == 2  # one SET, one UNSET
    keys = [k for s in alters for k in _keys(s)]
    assert len(keys) == len(set(keys)) == len(events_plan.options_set) + len(events_plan.options_unset)
    assert len(events_plan.statements("flink")) == len(spark)


def test_one_compaction_names_every_partition_a_finding_wants_compacted(events_plan: Plan) -> None:
    (compact,) = [s for s in events_plan.steps if s.kind == "compact"]
    assert compact.estimated and len(compact.statements["spark"]) == 1
    assert compact.statements["spark"][0] == (
        "CALL sys.compact(table => 'events20', partitions => 'dt=2025-01-01;dt=2025-01-02;dt=2025-01-03')")
    assert compact.statements["flink"][0].startswith("CALL sys.compact(`table` => 'events20'")
    assert events_plan.estimates["compaction"]["estimated"] is True


def test_every_finding_fix_is_taken_or_declined_with_a_reason(events_plan: Plan) -> None:
    t = paimon_lens.open_table(str(EVENTS), progress=False)
    found = t.find(str(WORKLOAD))
    taken = {s for step in events_plan.steps for s in step.sources}
    declined = {d.source for d in events_plan.declined}
    for f in found:
        assert f"finding {f.kind}: {f.title}" in taken | declined, f.title
    # the unused map-key bloom filter, which no recommendation covers, is dropped by the plan
    assert "file-index.bloom-filter.attrs[color].items" in events_plan.options_unset
    assert "attrs[color]" not in events_plan.options_set.get("file-index.bloom-filter.columns", "")


def test_before_is_what_explain_reads_today(events_plan: Plan) -> None:
    t = paimon_lens.open_table(str(EVENTS), progress=False)
    for q in events_plan.queries:
        s = t.explain(q.where).summary()
        assert (q.before["read_files"], q.before["read_bytes"]) == (s["read_files"], s["read_bytes"]), q.where


def test_after_is_what_paimon_plans_on_a_table_written_with_the_planned_options(tmp_path: Path) -> None:
    source = _write(tmp_path / "source", OPTIONS)
    planned = source.plan(QUERIES, progress=False)
    assert planned.options_set or planned.options_unset
    target = dict(source.schema.options)
    target.update(planned.options_set)
    for key in planned.options_unset:
        target.pop(key)
    rewritten = _write(tmp_path / "rewritten", target)  # the same rows and files, the plan's indexes
    for q in planned.queries:
        s = rewritten.explain(q.where).summary()
        assert (q.after["read_files"], q.after["read_bytes"]) == (s["read_files"], s["read_bytes"]), q.where
    assert planned.index_bytes["after"] == sum(rewritten.reader.index_size(lf) or 0 for lf in rewritten.live_files())
    assert any(q.after["read_files"] < q.before["read_files"] for q in planned.queries)  # it helps


def test_procedures_quote_for_each_dialect() -> None:
    p = Procedure("compact", (("table", "db.t"), ("partitions", "p=it's")))
    assert p.sql("spark") == "CALL sys.compact(table => 'db.t', partitions => 'p=it''s')"
    assert p.sql("flink") == "CALL sys.compact(`table` => 'db.t', partitions => 'p=it''s')"


def test_cli_plan_json_has_the_contract_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(EVENTS), "--workload", str(WORKLOAD), "--format", "json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"table", "snapshot_id", "steps", "statements", "predicted"} <= doc.keys()
    assert set(doc["statements"]) == {"spark", "flink"}
    q = doc["predicted"]["queries"][0]
    assert {"where", "weight", "before", "after"} <= q.keys()
    assert {"read_files", "read_bytes", "rows"} == q["before"].keys() == q["after"].keys()
    assert {"before", "after"} <= doc["predicted"]["index_bytes"].keys()
    assert "compaction" in doc["predicted"]["estimates"]


def test_the_plan_shows_as_a_frame_and_html(events_plan: Plan) -> None:
    frame = events_plan.frame()
    assert list(frame["where"]) == [q.where for q in events_plan.queries]
    html = events_plan._repr_html_()
    assert html is not None and "rewrite_file_index" in html and "<script" not in html


def test_a_table_without_problems_gets_an_empty_plan(tmp_path: Path) -> None:
    """Stats already answer the workload, no index to drop, files few and unbroken: nothing to run."""
    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    w = TableWriter.create(tmp_path / "clean", schema)
    w.commit(pa.table({"id": list(range(1000)), "v": ["x"] * 1000}, schema=schema), rows_per_file=250)
    planned = paimon_lens.open_table(str(tmp_path / "clean"), progress=False).plan(["id = 10", "id > 990"],
                                                                                   progress=False)
    assert [s.kind for s in planned.steps] == [] and planned.statements("spark") == []
    assert all(q.before == q.after for q in planned.queries)


def test_deleted_rows_and_level_0_runs_become_one_compaction(tmp_path: Path) -> None:
    dv = paimon_lens.open_table(str(DATA / "orders_dv20"), progress=False).plan(progress=False)
    (compact,) = [s for s in dv.steps if s.kind == "compact"]
    assert any(src.startswith("finding dv-bloat") for src in compact.sources)
    root = tmp_path / "pk"
    w = TableWriter.create(root, pa.schema([("k", pa.int64()), ("v", pa.string())]), primary_keys=["k"], bucket=1)
    for i in range(6):
        (w if i == 0 else TableWriter.open(root)).commit(pa.table({"k": list(range(i * 10, i * 10 + 10)),
                                                                  "v": ["x"] * 10}))
    runs = paimon_lens.open_table(str(root), progress=False).plan(["k = 3"], progress=False)
    (compact,) = [s for s in runs.steps if s.kind == "compact"]
    assert any(src.startswith("finding uncompacted-bucket") for src in compact.sources)
    assert compact.statements["spark"] == ("CALL sys.compact(table => 'pk')",)


def test_a_finding_without_statements_is_named_among_the_declined() -> None:
    from paimon_lens.advisor.finding import Finding
    from paimon_lens.advisor.plan import _target

    t = paimon_lens.open_table(str(EVENTS), progress=False)
    advice = paimon_lens.recommend(t, str(WORKLOAD))
    advice_only = Finding("read-for-nothing", "query 1 reads files without a match", "q", "e", "i", 1.0,
                          "a bloom filter with a lower fpp would (recommend measures them)")
    target = _target(advice, [advice_only])  # type: ignore[arg-type]
    assert [d.reason for d in target.declined] == ["no statement carries it out"]
