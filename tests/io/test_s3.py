"""Tables on object storage for real: a local S3-compatible server (moto's server mode on 127.0.0.1),
read through s3fs with ``storage_options``; every answer equals the local one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl

moto_server = pytest.importorskip("moto.server", reason="the S3 tests need moto[server] (pip install -e '.[dev]')")
pytest.importorskip("s3fs", reason="the S3 tests need s3fs (pip install -e '.[dev]')")

DATA = Path(__file__).parent.parent.parent / "data"
TABLES = ("events20", "orders_dv20", "demo_orders")
BUCKET = "lens-warehouse"


@pytest.fixture(scope="module")
def s3(monkeypatch_module: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A moto S3 server with the shipped tables in ``s3://lens-warehouse/demo.db/``; the storage options."""
    import boto3

    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for key, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint}.items():
        monkeypatch_module.setenv(key, value)  # the CLI has no storage options: s3fs takes these
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    for name in TABLES:
        for p in (DATA / name).rglob("*"):
            if p.is_file():
                client.upload_file(str(p), BUCKET, f"demo.db/{name}/{p.relative_to(DATA / name)}")
    try:
        yield {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"}}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _pair(s3: dict[str, Any], name: str) -> tuple[Any, Any]:
    return (pl.open_table(f"s3://{BUCKET}/demo.db/{name}", storage_options=s3), pl.open_table(str(DATA / name)))


@pytest.mark.parametrize("name", TABLES)
def test_metadata_indexes_and_deletion_vectors_equal_local(s3: dict[str, Any], name: str) -> None:
    remote, local = _pair(s3, name)
    assert remote.snapshot_id == local.snapshot_id
    for frame in ("files", "manifests", "index_manifest"):
        r, lo = getattr(remote, frame)(), getattr(local, frame)()
        assert r.drop(columns=[c for c in r.columns if "path" in c]).equals(
            lo.drop(columns=[c for c in lo.columns if "path" in c])), frame
    assert remote.file_indexes().equals(local.file_indexes())
    rd, ld = remote.deletion_vectors(), local.deletion_vectors()
    assert rd.drop(columns=["index_file"]).equals(ld.drop(columns=["index_file"]))


@pytest.mark.parametrize(("name", "where"), [("events20", "country = 'DE' AND score > 50"),
                                             ("orders_dv20", "status = 'PAID' AND qty > 3"),
                                             ("demo_orders", "customer_id = 17")])
def test_explain_with_truth_equals_local(s3: dict[str, Any], name: str, where: str) -> None:
    remote, local = _pair(s3, name)
    r = remote.explain(where, truth=True).to_dict(positions=True)
    lo = local.explain(where, truth=True).to_dict(positions=True)
    assert [dict(f, path=None) for f in r["files"]] == [dict(f, path=None) for f in lo["files"]]
    assert r["summary"] == lo["summary"]


def test_report_recommend_and_health_through_s3(s3: dict[str, Any], tmp_path: Path) -> None:
    remote, local = _pair(s3, "events20")
    workload = str(DATA / "events20.workload.sql")
    assert pl.recommend(remote, workload, progress=False).frame().equals(
        pl.recommend(local, workload, progress=False).frame())
    report = pl.report(remote, workload)
    assert not [e for s in report.sections for e in s.errors]
    assert report.save(tmp_path / "report.html").stat().st_size > 50_000
    catalog = pl.open_catalog(f"s3://{BUCKET}", storage_options=s3)
    assert catalog.identifiers() == [f"demo.{t}" for t in sorted(TABLES)]
    health = {t.table: t for t in catalog.health().tables}
    assert all(t.error is None for t in health.values())
    assert health["demo.events20"].findings == len(local.find())


def test_cli_reads_s3_with_the_environment(s3: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from paimon_lens.presentation.cli import main

    assert main(["files", "demo.orders_dv20", "--warehouse", f"s3://{BUCKET}", "--format", "json"]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert main(["files", str(DATA / "orders_dv20"), "--format", "json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert [f["file_name"] for f in remote["files"]] == [f["file_name"] for f in local["files"]]


def test_requests_are_counted_and_reported(s3: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from paimon_lens.io.fileio import remote_reads
    from paimon_lens.presentation.cli import main

    before = remote_reads()
    pl.open_table(f"s3://{BUCKET}/demo.db/events20", storage_options=s3).file_indexes()
    after = remote_reads()
    assert after["requests"] > before["requests"] and after["bytes"] - before["bytes"] > 10_000
    assert main(["findings", "demo.events20", "--warehouse", f"s3://{BUCKET}", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "requests to remote storage" in err and "read" in err


class _Flaky:
    """A file system whose reads fail ``failures`` times with ``error`` before they answer."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures, self.error, self.calls = failures, error, 0

    def cat_file(self, path: str, start: int | None = None, end: int | None = None) -> bytes:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return b"payload"


def test_transient_errors_are_retried_with_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    import paimon_lens.io.fileio as fileio

    monkeypatch.setattr(fileio, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    io = object.__new__(fileio.FsspecFileIO)
    io.fs = _Flaky(2, OSError("503 Service Unavailable (SlowDown)"))
    before = fileio.remote_reads()["retries"]
    assert io.read_bytes("s3://b/k") == b"payload" and io.fs.calls == 3
    assert fileio.remote_reads()["retries"] == before + 2
    io.fs = _Flaky(9, TimeoutError("read timed out"))
    with pytest.raises(fileio.RemoteReadError, match=r"s3://b/k: TimeoutError: read timed out \(after 4 attempts\)"):
        io.read_bytes("s3://b/k")
    assert io.fs.calls == 4  # one try and len(RETRY_DELAYS) retries
    io.fs = _Flaky(1, FileNotFoundError("s3://b/k"))
    with pytest.raises(FileNotFoundError):
        io.read_bytes("s3://b/k")
    assert io.fs.calls == 1  # a missing file is never retried
    assert not fileio.transient(PermissionError("403 Forbidden")) and fileio.transient(ConnectionResetError())


@pytest.mark.parametrize("error", [
    type("ResponseStreamingError", (Exception,), {})("An error occurred while reading from response stream"),
    type("FlexibleChecksumError", (ValueError,), {})("Expected checksum x did not match calculated checksum y"),
    type("IncompleteRead", (Exception,), {})("IncompleteRead(10 bytes read, 90 more expected)"),
    type("ClientPayloadError", (Exception,), {})("Response payload is not completed"),
    KeyError("ETag"),
    OSError(16, "Please reduce your request rate."),  # s3fs's SlowDown: errno EBUSY
    OSError(16, "Device or resource busy"),
    OSError("An error occurred (503) when calling the GetObject operation"),
])
def test_every_spelling_of_a_dropped_connection_cut_body_or_throttling_is_retried(
        error: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    from paimon_lens.io import fileio

    monkeypatch.setattr(fileio, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    assert fileio.transient(error)
    io = fileio.FsspecFileIO.__new__(fileio.FsspecFileIO)
    io.fs = _Flaky(2, error)
    assert io.read_bytes("s3://b/k") == b"payload" and io.fs.calls == 3


@pytest.mark.parametrize("error", [KeyError("Body"), ValueError("bad argument"), PermissionError("403 Forbidden")])
def test_what_is_not_transient_fails_at_once_as_a_typed_error(error: Exception) -> None:
    from paimon_lens.io import fileio

    io = fileio.FsspecFileIO.__new__(fileio.FsspecFileIO)
    io.fs = _Flaky(9, error)
    with pytest.raises(PermissionError if isinstance(error, PermissionError) else fileio.RemoteReadError):
        io.read_bytes("s3://b/k")
    assert io.fs.calls == 1


def test_spark_executors_read_the_same_bucket(s3: dict[str, Any], spark: Any) -> None:
    """Tasks rebuild the table in the Spark workers from its handle (storage options included) and
    read the bucket themselves; the answers equal the local engine's on the local copy."""
    remote = pl.open_table(f"s3://{BUCKET}/demo.db/demo_orders", storage_options=s3, engine="spark", spark=spark)
    local = pl.open_table(str(DATA / "demo_orders"))
    where = "customer_id = 17"
    r = remote.explain(where, truth=True).to_dict(positions=True)
    lo = local.explain(where, truth=True).to_dict(positions=True)
    assert [dict(f, path=None) for f in r["files"]] == [dict(f, path=None) for f in lo["files"]]
    assert remote.file_indexes().equals(local.file_indexes())
    # warehouse health with the tables as Spark tasks reading the bucket
    from paimon_lens.engines.spark import SparkEngine

    catalog = pl.open_catalog(f"s3://{BUCKET}", storage_options=s3)
    on_spark = {t.table: t.to_dict() for t in catalog.health(engine=SparkEngine(spark)).tables}
    in_driver = {t.table: t.to_dict() for t in catalog.health().tables}
    assert on_spark == in_driver and all(t["error"] is None for t in on_spark.values())


def test_done_when_flow_health_on_s3_workload_from_spark_report(
        s3: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], spark_event_logs: Path) -> None:
    """Issue 16's flow from the command line: health of the S3 warehouse, a workload from Spark's event
    logs, the report with advice for the table the Spark job queried; the same answers as on the local disk."""
    import shutil

    from paimon_lens.presentation.cli import main

    assert main(["health", f"s3://{BUCKET}", "--format", "json", "--no-progress"]) == 0
    ranked = json.loads(capsys.readouterr().out)["tables"]
    local_catalog = tmp_path / "wh"
    for name in TABLES:
        shutil.copytree(DATA / name, local_catalog / "demo.db" / name)
    assert main(["health", str(local_catalog), "--format", "json", "--no-progress"]) == 0
    local_ranked = json.loads(capsys.readouterr().out)["tables"]
    assert [(t["table"], t["findings"], t["savings_score"]) for t in ranked] == \
        [(t["table"], t["findings"], t["savings_score"]) for t in local_ranked]
    assert ranked[0]["table"] == "demo.demo_orders"  # its range-bitmap index stores 65% of its data
    worst = "demo.events20"  # the table the Spark job of the event logs queried
    workload = tmp_path / "workload.sql"  # from the event logs of a real PySpark job (conftest)
    assert main(["workload", "--spark-event-logs", str(spark_event_logs), "--table", worst, "-o",
                 str(workload)]) == 0
    capsys.readouterr()
    remote_out, local_out = tmp_path / "remote.html", tmp_path / "local.html"
    assert main(["report", worst, "--warehouse", f"s3://{BUCKET}", "--workload", str(workload), "-o",
                 str(remote_out), "--format", "json", "--no-progress"]) == 0
    remote_doc = json.loads(capsys.readouterr().out)
    assert main(["report", worst, "--warehouse", str(local_catalog), "--workload", str(workload), "-o",
                 str(local_out), "--format", "json", "--no-progress"]) == 0
    local_doc = json.loads(capsys.readouterr().out)
    assert remote_doc["sections"] == local_doc["sections"] and "recommendations" in remote_doc["sections"]
    assert remote_doc["problems"] == local_doc["problems"] == []


# ---- faults: the same server behind a proxy that drops, cuts, throttles and delays -----------------

def _faulty(s3: dict[str, Any], proxy: Any) -> dict[str, Any]:
    """The storage options of the proxied endpoint (a fresh s3fs instance: no cached connection)."""
    kwargs = dict(s3["client_kwargs"], endpoint_url=proxy.endpoint)
    return {**s3, "client_kwargs": kwargs, "skip_instance_cache": True,
            "config_kwargs": {"retries": {"max_attempts": 1}}}  # botocore's own retries off: ours are tested


@pytest.mark.parametrize("kind", ["drop", "cut", "throttle", "delay"])
def test_each_fault_is_retried_and_the_answer_is_the_local_one(s3: dict[str, Any], kind: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A quarter of the requests fail one way: every read is retried until it answers; the answers
    (files, file indexes, deletion vectors, explain with truth) equal the local ones, and the retries
    are counted."""
    from paimon_lens.io import fileio
    from tests.fault_proxy import FaultProxy

    monkeypatch.setattr(fileio, "RETRY_DELAYS", (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    monkeypatch.setattr("s3fs.S3FileSystem.retries", 1)  # s3fs's own retries off: ours are what is tested
    upstream = s3["client_kwargs"]["endpoint_url"].removeprefix("http://")
    with FaultProxy(upstream, rate=0.25, kinds=(kind,), seed=3) as proxy:
        before = fileio.remote_reads()["retries"]
        remote = pl.open_table(f"s3://{BUCKET}/demo.db/orders_dv20", storage_options=_faulty(s3, proxy))
        local = pl.open_table(str(DATA / "orders_dv20"))
        rf, lf = remote.files(), local.files()
        assert rf.drop(columns=[c for c in rf.columns if "path" in c]).equals(
            lf.drop(columns=[c for c in lf.columns if "path" in c]))
        assert remote.file_indexes().equals(local.file_indexes())
        rd, ld = remote.deletion_vectors(), local.deletion_vectors()
        assert rd.drop(columns=["index_file"]).equals(ld.drop(columns=["index_file"]))
        where = "status = 'PAID' AND qty > 3"
        r = remote.explain(where, truth=True).to_dict(positions=True)
        lo = local.explain(where, truth=True).to_dict(positions=True)
        assert [dict(f, path=None) for f in r["files"]] == [dict(f, path=None) for f in lo["files"]]
        assert r["summary"] == lo["summary"]
    assert proxy.faults[kind] > 0
    if kind == "throttle":  # reaches paimon-lens's retries (s3fs's and botocore's are off); a dropped
        # connection or a cut body may be retried by the HTTP client below already
        assert fileio.remote_reads()["retries"] > before


def test_a_store_that_keeps_failing_gives_typed_errors_and_exit_codes(s3: dict[str, Any], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Nearly every request fails: the API raises a typed error naming the object (or marks the files
    it could not read); the CLI exits 2 with one line, or 1 with its partial answer: never a traceback."""
    import os
    import subprocess
    import sys

    from paimon_lens.errors import PaimonLensError
    from paimon_lens.io import fileio
    from tests.fault_proxy import FaultProxy

    monkeypatch.setattr(fileio, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    monkeypatch.setattr("s3fs.S3FileSystem.retries", 1)
    upstream = s3["client_kwargs"]["endpoint_url"].removeprefix("http://")
    with FaultProxy(upstream, rate=0.97, kinds=("drop", "cut", "throttle"), seed=5) as proxy:
        with pytest.raises((OSError, PaimonLensError)) as raised:
            pl.open_table(f"s3://{BUCKET}/demo.db/events20", storage_options=_faulty(s3, proxy)).files()
        assert isinstance(raised.value, (fileio.RemoteReadError, PaimonLensError)), repr(raised.value)
        env = {**os.environ, "AWS_ENDPOINT_URL": proxy.endpoint, "AWS_MAX_ATTEMPTS": "1"}
        for args in (["files", "demo.events20"], ["indexes", "demo.orders_dv20", "--format", "json"],
                     ["explain", "demo.orders_dv20", "--where", "qty > 3", "--truth", "--format", "json"]):
            run = subprocess.run([sys.executable, "-m", "paimon_lens", *args, "--warehouse", f"s3://{BUCKET}"],
                                 capture_output=True, text=True, env=env, timeout=300)
            assert "Traceback" not in run.stderr, (args, run.stderr[-3000:])
            assert run.returncode in (1, 2), (args, run.returncode, run.stderr[-500:])
            assert "paimon-lens:" in run.stderr, (args, run.stderr[-500:])


def test_json_answers_count_the_requests_and_retries_they_cost(s3: dict[str, Any], tmp_path: Path) -> None:
    """``files``, ``indexes`` and ``explain`` (one predicate or a file of them) through a proxy that
    throttles a quarter of the requests: each answer is complete and says what it cost
    (``remote_reads``: requests, bytes, retries); the retries are counted in the answers."""
    import os
    import subprocess
    import sys

    from tests.fault_proxy import FaultProxy

    where_file = tmp_path / "where.sql"
    where_file.write_text("qty > 3\nstatus = 'PAID'\n")
    upstream = s3["client_kwargs"]["endpoint_url"].removeprefix("http://")
    retried = 0
    with FaultProxy(upstream, rate=0.25, kinds=("throttle",), seed=7) as proxy:
        env = {**os.environ, "AWS_ENDPOINT_URL": proxy.endpoint, "AWS_MAX_ATTEMPTS": "1"}
        for args in (["files", "demo.orders_dv20"], ["indexes", "demo.events20"],
                     ["explain", "demo.orders_dv20", "--where", "qty > 3", "--truth"],
                     ["explain", "demo.orders_dv20", "--where-file", str(where_file)]):
            run = subprocess.run([sys.executable, "-m", "paimon_lens", *args, "--warehouse", f"s3://{BUCKET}",
                                  "--format", "json", "--no-progress"],
                                 capture_output=True, text=True, env=env, timeout=300)
            assert run.returncode == 0, (args, run.stderr[-2000:])
            cost = json.loads(run.stdout)["remote_reads"]
            assert cost["requests"] > 0 and cost["bytes"] > 0 and cost["retries"] >= 0, (args, cost)
            retried += cost["retries"]
    assert proxy.faults["throttle"] > 0 and retried > 0
    local = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(DATA / "orders_dv20"), "--format",
                            "json"], capture_output=True, text=True, timeout=300)
    assert json.loads(local.stdout)["remote_reads"] == {"requests": 0, "bytes": 0, "retries": 0}
