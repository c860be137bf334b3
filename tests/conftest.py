"""Shared test helpers: where the Paimon-written fixtures live."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-slow", action="store_true",
                     help="rewrite tests/slow_tests.txt from this run's durations (see tests/slow_lane.py)")


def pytest_configure(config: pytest.Config) -> None:
    from tests.slow_lane import SlowLane

    config.pluginmanager.register(SlowLane(bool(config.getoption("--record-slow"))), "paimon-lens-slow-lane")


def load_json(path: Path) -> Any:
    """Read a JSON fixture."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rewrite_avro(path: Path, change: Any) -> None:
    """Rewrite an Avro metadata file in place, calling ``change(record)`` on each record (its own
    writer schema kept): how tests alter a Paimon-written table the way a feature or an attack would."""
    import fastavro

    with open(path, "rb") as fh:
        reader = fastavro.reader(fh)
        schema, records = reader.writer_schema, list(reader)
    for r in records:
        change(r)
    with open(path, "wb") as fh:
        fastavro.writer(fh, fastavro.parse_schema(schema), records, codec="zstandard")
    if path.parent.name == "manifest" and path.name.startswith("manifest-") and "-list-" not in path.name:
        record_manifest_size(path)


def record_manifest_size(manifest: Path) -> None:
    """As Paimon would after writing ``manifest``: the (Avro) manifest lists naming it record its size."""
    import fastavro

    size = manifest.stat().st_size
    for lst in sorted(manifest.parent.glob("manifest-list-*")):
        if lst.read_bytes()[:4] != b"Obj\x01":
            continue
        with open(lst, "rb") as fh:
            names = [r["_FILE_NAME"] for r in fastavro.reader(fh)]  # type: ignore[call-overload,index]
        if manifest.name in names:
            rewrite_avro(lst, lambda r: r.update(_FILE_SIZE=size) if r["_FILE_NAME"] == manifest.name else None)


class BytesFileIO:
    """A FileIO whose every path holds the same in-memory bytes (decoding one file's bytes)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read_bytes(self, path: str) -> bytes:
        return self.data

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        return self.data[offset:offset + length]

    def size(self, path: str) -> int:
        return len(self.data)

    def join(self, *parts: str) -> str:
        return "/".join(parts)


def oracle_paths() -> list[Path]:
    """Every table oracle (Paimon 0.9 and 2.0 tables)."""
    return sorted(FIXTURES.glob("tables*/*/oracle_*.json"))


def blob_cases() -> list[Path]:
    """Every blob ``case.json`` (file-index blobs and deletion vectors)."""
    return sorted(FIXTURES.glob("blobs/**/case.json"))


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for the whole run: ``local[2]``, no UI, loopback, this interpreter.

    Skips where pyspark is not installed (the ``spark`` extra, which the ``dev`` extra and CI include).
    """
    pytest.importorskip("pyspark", reason="the Spark tests need pyspark (pip install 'paimon-lens[spark]')")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("paimon-lens-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()



@pytest.fixture(scope="session")
def spark_event_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event logs of one real PySpark job running the queries of each shape (see
    :data:`tests.workload.test_sources.QUERIES`), run once per test session."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pyspark", reason="the event-log tests need pyspark (pip install -e '.[dev]')")
    from tests.workload.test_sources import DATA, JOB, QUERIES

    logs = tmp_path_factory.mktemp("eventlogs")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    run = subprocess.run([sys.executable, "-c", JOB, str(logs), str(DATA / "events20"), *QUERIES], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return logs
