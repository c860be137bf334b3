"""The Spark engine answers exactly as the local engine on every fixture table and oracle predicate."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pandas.testing as pdt
import pytest

import paimon_lens as pl
from paimon_lens.engines.spark import SparkEngine
from paimon_lens.presentation.cli import main
from tests.conftest import load_json, oracle_paths
from tests.pruning.test_truth import strip

ORACLES = oracle_paths()


def _tables(oracle: Path, spark: Any) -> tuple[Any, Any, list[str]]:
    o = load_json(oracle)
    path = str(oracle.parent / o["table"]["path"])
    # min_items=1, min_manifests=1: every list goes to Spark, even a single manifest or DV file
    remote = pl.open_table(path, engine=SparkEngine(spark, min_items=1, min_manifests=1))
    return pl.open_table(path), remote, [strip(p["sql"]) for p in o["predicates"]]


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_same_answers_as_local(oracle: Path, spark: Any) -> None:
    local, remote, wheres = _tables(oracle, spark)
    assert remote.engine.distributed and not local.engine.distributed
    pdt.assert_frame_equal(local.manifests(), remote.manifests())
    pdt.assert_frame_equal(local.files(), remote.files())
    pdt.assert_frame_equal(local.file_indexes(), remote.file_indexes())
    pdt.assert_frame_equal(local.deletion_vectors(), remote.deletion_vectors())
    # every predicate of the oracle in one Spark job, with ground truth and index positions
    for where, report in zip(wheres, remote.explain_many(wheres, truth=True), strict=True):
        want = local.explain(where, truth=True)
        assert report.to_dict(positions=True) == want.to_dict(positions=True), where
        assert report.notes == want.notes, where
    for where, report in zip(wheres, remote.explain_many(wheres, index_enabled=False), strict=True):
        assert report.to_dict() == local.explain(where, index_enabled=False).to_dict(), where


def test_explain_one_predicate_and_bitmap_values(spark: Any) -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_events20")
    local, _, wheres = _tables(oracle, spark)
    remote = pl.open_table(local.path, engine="spark", spark=spark)
    assert isinstance(remote.engine, SparkEngine)
    got = remote.explain(wheres[0], truth=True)
    pdt.assert_frame_equal(got.to_frame(), local.explain(wheres[0], truth=True).to_frame())
    bitmap_columns = sorted(set(local.file_indexes("bitmap")["column"]))
    assert bitmap_columns
    for column in bitmap_columns:  # needs the full reader: decoded again in the driver, on demand
        pdt.assert_frame_equal(local.bitmap_values(column), remote.bitmap_values(column))


def test_to_spark(spark: Any) -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_events20")
    _, remote, _ = _tables(oracle, spark)
    files = remote.files()
    df = remote.engine.to_spark(files)
    assert df.count() == len(files)
    assert df.columns == [str(c) for c in files.columns]
    types = dict(df.dtypes)
    assert types["row_count"] == "bigint" and types["partition"] == "string"
    rows = {r["file_name"]: r for r in df.collect()}
    for _, want in files.iterrows():
        got = rows[want["file_name"]]
        assert got["partition"] == json.dumps(want["partition"], default=str, ensure_ascii=False)
        assert got["row_count"] == int(want["row_count"])
    indexes = pl.engines.to_spark(remote.file_indexes(), spark)
    assert indexes.count() == len(remote.file_indexes())


def _cli(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(args)
    return code, out.getvalue()


@pytest.mark.parametrize("command", ["files", "indexes", "explain", "recommend", "report"])
def test_cli_engine_spark_prints_the_same(command: str, spark: Any, tmp_path: Path) -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_orders_dv20")
    o = load_json(oracle)
    path = str(oracle.parent / o["table"]["path"])
    extra: list[str] = []
    if command == "explain":
        where_file = tmp_path / "w.sql"
        where_file.write_text("\n".join(strip(p["sql"]) for p in o["predicates"][:4]) + "\n")
        extra = ["--where-file", str(where_file), "--truth", "--positions"]
    elif command == "recommend":
        extra = ["--max-files", "3"]
    results = []
    for engine in (["--engine", "local"], ["--engine", "spark", "--spark-master", "local[2]"]):
        if command == "report":
            extra = ["-o", str(tmp_path / f"{engine[1]}.html")]
        code, text = _cli([command, path, "--format", "json", *engine, *extra])
        doc = json.loads(text)
        doc.pop("output", None)
        doc.pop("bytes", None)
        if "report" in doc:  # the report as data, plots included; only the minute it was made may differ
            doc["report"].pop("generated_at")
        results.append((code, doc))
    assert results[0] == results[1]


@pytest.mark.parametrize("name", ["oracle_events20", "oracle_orders_dv20"])
def test_executors_read_through_fsspec(name: str, spark: Any) -> None:
    """A table behind an fsspec file system (``dir://``, standing in for s3/oss/hdfs): the executors
    get the pickled file system and read manifests, indexes, DVs and data files through it."""
    oracle = next(p for p in ORACLES if p.stem == name)
    local, _, wheres = _tables(oracle, spark)
    root = Path(local.path)
    remote = pl.open_table(f"dir://{root.name}", storage_options={"path": str(root.parent), "target_protocol": "file"},
                           engine=SparkEngine(spark, min_items=1, min_manifests=1))
    assert type(remote.file_io.base).__name__ == "FsspecFileIO"  # the table's own file system, under the resolver
    for frame in ("files", "file_indexes", "deletion_vectors"):
        got, want = getattr(remote, frame)(), getattr(local, frame)()
        assert got.drop(columns=["path"], errors="ignore").equals(want.drop(columns=["path"], errors="ignore")), frame
    for where, report in zip(wheres, remote.explain_many(wheres, truth=True), strict=True):
        assert report.to_dict()["files"] == local.explain(where, truth=True).to_dict()["files"], where
    got_advice = pl.recommend(remote, wheres[:4]).frame()
    assert got_advice.equals(pl.recommend(local, wheres[:4]).frame())


def test_cli_spark_from_a_virtualenv_that_is_not_activated(tmp_path: Path) -> None:
    """The console script run by its path, with neither the virtualenv's bin on PATH nor
    PYSPARK_PYTHON set: Spark's workers must still run paimon-lens's interpreter."""
    import os
    import shutil
    import subprocess

    pytest.importorskip("pyspark", reason="the Spark tests need pyspark (pip install 'paimon-lens[spark]')")
    script = Path(sys.executable).parent / "paimon-lens"
    assert script.exists()
    bin_dir = str(script.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "VIRTUAL_ENV", "SPARK_HOME"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    python3 = shutil.which("python3", path=env["PATH"])
    if python3 is not None:  # the python3 Spark would pick must not be able to import paimon_lens
        probe = subprocess.run([python3, "-c", "import paimon_lens"], capture_output=True, env=env, cwd=tmp_path)
        assert probe.returncode != 0
    table = (Path(__file__).resolve().parents[1] / "fixtures" / "tables20" / "a20_append_indexed" / "warehouse"
             / "db.db" / "events20")
    run = subprocess.run([str(script), "explain", str(table), "--where", "country = 'DE'", "--truth",
                          "--engine", "spark", "--spark-master", "local[1]", "--format", "json"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    local = subprocess.run([str(script), "explain", str(table), "--where", "country = 'DE'", "--truth",
                            "--format", "json"], capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert json.loads(run.stdout)["summary"] == json.loads(local.stdout)["summary"]
