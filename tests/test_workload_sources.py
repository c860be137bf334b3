"""Workloads from recorded queries: SQL history files and the event logs of real PySpark jobs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.presentation.cli import main
from paimon_lens.workload import read_workload
from paimon_lens.workload_sources import predicates_of, workload_from_sql_history, workloads_from_statements

DATA = Path(__file__).parent.parent / "data"

JOB = """
import sys
from pyspark.sql import SparkSession
logs, data = sys.argv[1], sys.argv[2]
spark = (SparkSession.builder.master("local[1]").appName("lens-eventlog")
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", "file://" + logs)
         .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.read.option("basePath", data).parquet(data + "/dt=*/bucket-*/*.parquet").createOrReplaceTempView("events20")
for q in sys.argv[3:]:
    spark.sparkContext.setJobDescription(q)  # what the Spark SQL CLI and the Thrift server record
    spark.sql(q).collect()
spark.sparkContext.setJobDescription(None)
spark.table("events20").filter("score > 1").collect()  # a DataFrame call: no statement recorded
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


def test_predicates_per_table_scan() -> None:
    assert predicates_of("SELECT * FROM db.orders o WHERE o.qty > 3 AND o.status = 'PAID'") == {
        "db.orders": ["qty > 3 AND status = 'PAID'"]}
    joined = predicates_of("SELECT * FROM a JOIN b ON a.id = b.id WHERE a.x = 1 AND b.y < 2 AND a.z = b.z")
    assert joined == {"a": ["x = 1"], "b": ["y < 2"]}  # join conditions are not scan filters
    assert predicates_of("SELECT * FROM t WHERE (a = 1 OR b = 2) AND c IS NULL") == {
        "t": ["(a = 1 OR b = 2) AND c IS NULL"]}
    assert predicates_of("SELECT * FROM t WHERE k IN (SELECT k FROM u WHERE v > 0)") == {"u": ["v > 0"]}
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


@pytest.fixture(scope="module")
def event_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event logs of a real PySpark job running the queries of each shape (one gzip copy too)."""
    pytest.importorskip("pyspark", reason="the event-log tests need pyspark (pip install -e '.[dev]')")
    logs = tmp_path_factory.mktemp("eventlogs")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    run = subprocess.run([sys.executable, "-c", JOB, str(logs), str(DATA / "events20"), *QUERIES], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return logs


def test_spark_event_logs(event_logs: Path, tmp_path: Path) -> None:
    extracted = pl.workload_from_spark_event_logs(str(event_logs))
    assert extracted.statements == len(QUERIES)
    assert any("no statement text" in s for s in extracted.skipped)  # the DataFrame call
    assert [(q.where, q.weight) for q in extracted.for_table("db.events20")] == EXPECTED
    # Spark writes zstd; a gzip-compressed plain log reads the same
    plain = tmp_path / "plain"
    plain.mkdir()
    from paimon_lens.workload_sources import _log_files, _open_log

    text = "".join(line for path in _log_files(event_logs) for line in _open_log(path))
    torn = '{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","description":"SEL'
    (plain / "app-1.gz").write_bytes(gzip.compress((text + torn).encode("utf-8")))
    again = pl.workload_from_spark_event_logs(str(plain))
    assert [(q.where, q.weight) for q in again.for_table("events20")] == EXPECTED
    assert any("1 SQL-execution events are not valid JSON" in s for s in again.skipped)  # said, not dropped


def test_advice_from_event_logs_equals_advice_from_the_same_workload_by_hand(event_logs: Path) -> None:
    table = pl.open_table(str(DATA / "events20"))
    extracted = pl.workload_from_spark_event_logs(str(event_logs)).for_table("events20")
    by_hand = pl.recommend(table, EXPECTED, progress=False)
    assert pl.recommend(table, extracted, progress=False).frame().equals(by_hand.frame())


def test_cli_workload(event_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "workload.sql"
    assert main(["workload", "--spark-event-logs", str(event_logs), "--table", "db.events20", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert [(q.where, q.weight) for q in read_workload(out)] == EXPECTED
    assert main(["workload", "--spark-event-logs", str(event_logs), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["statements"] == len(QUERIES) and list(doc["tables"]) == ["events20"]
    assert main(["workload", "--spark-event-logs", str(event_logs), "--since", "2999-01-01"]) == 2  # nothing since
    assert "none" in capsys.readouterr().err
