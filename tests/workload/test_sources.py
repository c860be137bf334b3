"""Workloads from recorded queries: SQL history files and the event logs of real PySpark jobs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.presentation.cli import main
from paimon_lens.workload.model import read_workload
from paimon_lens.workload.sources import predicates_of, workload_from_sql_history, workloads_from_statements

DATA = Path(__file__).parent.parent.parent / "data"

JOB = """
import sys
from pyspark.sql import SparkSession
logs, data = sys.argv[1], sys.argv[2]
PARAMETERISED = "SELECT * FROM events20 WHERE id = :id AND status = 'active'"
spark = (SparkSession.builder.master("local[1]").appName("lens-eventlog")
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", "file://" + logs)
         .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.read.option("basePath", data).parquet(data + "/dt=*/bucket-*/*.parquet").createOrReplaceTempView("events20")
for q in sys.argv[3:]:
    spark.sparkContext.setJobDescription(q)  # what the Spark SQL CLI and the Thrift server record
    spark.sql(q).collect()
spark.sparkContext.setJobDescription(PARAMETERISED)  # parameter markers: the values are in the plan
spark.sql(PARAMETERISED, args={"id": 5}).collect()
spark.sparkContext.setJobDescription(None)
spark.table("events20").filter("score > 1").collect()  # DataFrame calls: no statement, a plan
spark.table("events20").filter("upper(country) = 'DE' AND score > 50").select("id").collect()
spark.stop()
"""

QUERIES = [
    "SELECT * FROM events20 WHERE country = 'DE'",
    "SELECT * FROM events20 WHERE country = 'FR'",
    "SELECT * FROM events20 WHERE country = 'DE'",
    "SELECT e.id FROM events20 e JOIN events20 f ON e.id = f.id "
    "WHERE e.status IN ('active', 'banned') AND f.score > 50",
    "SELECT * FROM events20 WHERE id IN (SELECT id FROM events20 WHERE score < 10)",
    "WITH t AS (SELECT * FROM events20 WHERE dt = '2025-01-02') SELECT count(*) FROM t",
]
EXPECTED = [("country = 'DE'", 3.0), ("status IN ('active', 'banned')", 1.0), ("score > 50", 1.0),
            ("score < 10", 1.0), ("dt = '2025-01-02'", 1.0)]
"""The statements' workload."""
EXPECTED_ALL = [("country = 'DE'", 3.0), ("score > 50", 3.0), ("status IN ('active', 'banned')", 1.0),
                ("score < 10", 1.0), ("dt = '2025-01-02'", 1.0), ("id = 5 AND status = 'active'", 1.0)]
"""The whole log's: the statements, the parameterised statement's plan, the DataFrame calls' plans."""


def test_predicates_per_table_scan() -> None:
    assert predicates_of("SELECT * FROM db.orders o WHERE o.qty > 3 AND o.status = 'PAID'") == {
        "db.orders": ["qty > 3 AND status = 'PAID'"]}
    joined = predicates_of("SELECT * FROM a JOIN b ON a.id = b.id WHERE a.x = 1 AND b.y < 2 AND a.z = b.z")
    assert joined == {"a": ["x = 1"], "b": ["y < 2"]}  # join conditions are not scan filters
    assert predicates_of("SELECT * FROM t WHERE (a = 1 OR b = 2) AND c IS NULL") == {
        "t": ["(a = 1 OR b = 2) AND c IS NULL"]}
    assert predicates_of("SELECT * FROM t WHERE k IN (SELECT k FROM u WHERE v > 0)") == {"u": ["v > 0"]}
    # CTEs and derived tables Spark pushes filters through: followed to the table, aliases mapped back
    assert predicates_of("WITH a AS (SELECT * FROM db.e WHERE x = 1), b AS (SELECT x, y AS z FROM a WHERE y = 2) "
                         "SELECT * FROM b WHERE z = 3 UNION ALL SELECT * FROM b b2 WHERE b2.x > 0") == {
        "db.e": ["x = 1 AND y = 2 AND y = 3", "x = 1 AND y = 2 AND x > 0"]}  # one scan per reference
    assert predicates_of("SELECT * FROM (SELECT id AS k, upper(c) AS u FROM e WHERE d = 1) s "
                         "WHERE s.k > 3 AND u = 'X'") == {"e": ["d = 1 AND id > 3"]}  # u is computed
    assert predicates_of("WITH g AS (SELECT k, count(*) AS n FROM e WHERE d = 1 GROUP BY k) "
                         "SELECT * FROM g WHERE n > 3") == {"e": ["d = 1"]}  # not through an aggregate
    assert predicates_of("WITH unused AS (SELECT * FROM e WHERE d = 1) SELECT * FROM f") == {}  # never scanned
    # parameter markers: left out (and counted by the workload)
    assert predicates_of("SELECT * FROM t WHERE a = :a AND b = ? AND c = ${v} AND d = 4") == {"t": ["d = 4"]}
    found = workloads_from_statements(["SELECT * FROM t WHERE a = :a AND d = 4"])
    assert any("1 conditions with parameter markers" in s for s in found.skipped)
    with pytest.raises(PaimonLensError, match="does not parse"):
        predicates_of("SELECT FROM WHERE")


def test_templates_count_statements_and_keep_the_most_frequent_literals(tmp_path: Path) -> None:
    found = workloads_from_statements(["select * from t where id = 1", "select * from t where id = 2",
                                       "select * from t where id = 2", "select count(*) from t where c = 'x'",
                                       "not sql at all ("])
    assert [(q.where, q.weight) for q in found.for_table("db.t")] == [("id = 2", 3.0), ("c = 'x'", 1.0)]
    assert found.statements == 5 and len(found.skipped) == 1
    history = tmp_path / "history.sql"
    history.write_text("select * from t where id = 1;\nselect *\nfrom t where id = 5;\n", encoding="utf-8")
    assert [q.weight for q in workload_from_sql_history(history).for_table("t")] == [2.0]
    lines = tmp_path / "lines.sql"
    lines.write_text("select * from t where a = 1\n-- a comment\nselect * from t where b > 2\n", encoding="utf-8")
    assert [q.where for q in workload_from_sql_history(lines).for_table("t")] == ["a = 1", "b > 2"]
    with pytest.raises(PaimonLensError, match="read t"):
        found.for_table("nope")
    # one table written with more or fewer qualifiers is one workload; two databases' tables are not
    named = workloads_from_statements(["select * from t where a = 1", "select * from db.t where a = 2",
                                       "select * from spark_catalog.db.t where a = 2", "select * from x.t where b = 1"])
    assert [(q.where, q.weight) for q in named.for_table("db.t")] == [("a = 2", 2.0)]  # 't' may be x.t
    assert [(q.where, q.weight) for q in named.for_table("x.t")] == [("b = 1", 1.0)]
    one_db = workloads_from_statements(["select * from t where a = 1", "select * from db.t where a = 2",
                                        "select * from spark_catalog.db.t where a = 2"])
    assert [(q.where, q.weight) for q in one_db.for_table("db.t")] == [("a = 2", 2.0), ("a = 1", 1.0)]
    with pytest.raises(PaimonLensError, match="ambiguous"):
        named.for_table("t")


@pytest.fixture()
def event_logs(spark_event_logs: Path) -> Path:
    """The event logs of a real PySpark job running the queries of each shape (conftest, run once)."""
    return spark_event_logs


def test_spark_event_logs(event_logs: Path, tmp_path: Path) -> None:
    extracted = pl.workload_from_spark_event_logs(str(event_logs))
    assert extracted.statements == len(QUERIES) and extracted.plans == 3  # parameterised + 2 DataFrame calls
    assert [(q.where, q.weight) for q in extracted.for_table("db.events20")] == EXPECTED_ALL
    assert any("1 scan conditions of recorded plans" in s for s in extracted.skipped)  # upper(country) = 'DE'
    assert any("neither statement text nor a filtered table scan" in s for s in extracted.skipped)  # the view
    # Spark writes zstd; a gzip-compressed plain log reads the same
    plain = tmp_path / "plain"
    plain.mkdir()
    from paimon_lens.workload.sources import _log_files, _open_log

    text = "".join(line for path in _log_files(event_logs) for line in _open_log(path))
    torn = '{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","description":"SEL'
    (plain / "app-1.gz").write_bytes(gzip.compress((text + torn).encode("utf-8")))
    again = pl.workload_from_spark_event_logs(str(plain))
    assert [(q.where, q.weight) for q in again.for_table("events20")] == EXPECTED_ALL
    assert any("1 SQL-execution events are not valid JSON" in s for s in again.skipped)  # said, not dropped


def test_plans_give_the_statements_predicates(event_logs: Path) -> None:
    """Each statement's recorded plan (its scans' Spark filters turned back into SQL) gives the same
    workload as its text: joins, self-joins, subqueries and CTEs included."""
    from paimon_lens.workload.sources import _scan_predicates, _workloads, spark_sql_executions

    executions, malformed = spark_sql_executions(str(event_logs))
    with_text = [ex for ex in executions if ex.statement in QUERIES]
    assert len(with_text) == len(QUERIES) and malformed == 0
    from_plans = []
    for ex in with_text:
        per_table: dict[str, list[str]] = {}
        for scan in ex.scans:
            if scan.where is not None:
                per_table.setdefault(scan.table, []).append(scan.where)
            assert scan.unsupported == 0
        from_plans.append(per_table)
    from_text = [_scan_predicates(ex.statement or "", "spark")[0] for ex in with_text]
    as_pairs = {t: [(q.where, q.weight) for q in w] for t, w in _workloads(from_plans, "x").items()}
    assert as_pairs == {t: [(q.where, q.weight) for q in w] for t, w in _workloads(from_text, "x").items()}
    assert as_pairs == {"events20": EXPECTED}


def test_spark_plan_conditions_to_sql() -> None:
    from paimon_lens.workload.spark_plan_filters import conjuncts_sql, read_schema_types, table_of_location

    types = read_schema_types("struct<a:string,ts:timestamp,d:date,m:map<string,int>,p:decimal(10,2),n:int>")
    assert types == {"a": "string", "ts": "timestamp", "d": "date", "m": "map<string,int>",
                     "p": "decimal(10,2)", "n": "int"}
    sql, bad = conjuncts_sql(["((isnotnull(a#1) AND (a#1 = it's)) AND upper(a#1) = Y)",
                              "NOT (n#3 INSET 1, 2)", "(ts#4 >= 2020-01-01 00:00:00)", "(d#5 < 2020-01-02)",
                              "(cast(n#3 as double) > 3.5)", "StartsWith(a#1, a_b)", "(dt#9 = 2025-01-02)",
                              "(isnull(a#1) OR (p#6 <= 10.50))", "(a#1 = b#2)"], types)
    assert sql == ["a = 'it''s'", "NOT (n IN (1, 2))", "ts >= TIMESTAMP '2020-01-01 00:00:00'",
                   "d < DATE '2020-01-02'", "n > 3.5", "a LIKE 'a\\_b%'", "dt = '2025-01-02'",
                   "(a IS NULL OR p <= 10.50)"]
    assert bad == 2  # upper(a) = Y, a = b
    assert table_of_location("InMemoryFileIndex(3 paths)[s3a://bucket/wh/sales.db/orders/dt=1/bucket-0/data-1.orc, ...]"
                             ) == "sales.orders"
    assert table_of_location("InMemoryFileIndex[file:/data/events20]") == "events20"


def test_advice_from_event_logs_equals_advice_from_the_same_workload_by_hand(event_logs: Path) -> None:
    table = pl.open_table(str(DATA / "events20"))
    extracted = pl.workload_from_spark_event_logs(str(event_logs)).for_table("events20")
    by_hand = pl.recommend(table, EXPECTED_ALL, progress=False)
    assert pl.recommend(table, extracted, progress=False).frame().equals(by_hand.frame())


def test_cli_workload(event_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "workload.sql"
    assert main(["workload", "--spark-event-logs", str(event_logs), "--table", "db.events20", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert [(q.where, q.weight) for q in read_workload(out)] == EXPECTED_ALL
    assert main(["workload", "--spark-event-logs", str(event_logs), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["statements"] == len(QUERIES) and doc["plans"] == 3 and list(doc["tables"]) == ["events20"]
    assert main(["workload", "--spark-event-logs", str(event_logs), "--since", "2999-01-01"]) == 2  # nothing since
    assert "none" in capsys.readouterr().err
