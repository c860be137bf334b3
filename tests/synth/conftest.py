"""Fixtures of the synth tests: a local Spark session and two tables generated on it.

The tables are small (a few thousand rows) so the whole folder runs in about a minute; Spark
is started once per test run (the ``spark`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paimon_lens.synth.job import SynthResult, synth_table

#: the append table: partitioned, every index kind, a threshold that embeds the smaller containers
APPEND = {"rows": 6000, "files": 8, "partitions": 2, "seed": 11,
          "indexes": "bloom-filter:customer_id,order_id bitmap:status,country range-bitmap:amount,created_at "
                     "bsi:quantity",
          "options": {"file-index.in-manifest-threshold": "28kb", "file-index.bitmap.status.version": "1"}}
#: the primary-key table with deletion vectors: 2 partitions x 2 buckets
PK = {"rows": 6000, "files": 10, "partitions": 2, "primary_key": True, "buckets": 2, "deletion_vectors": True,
      "seed": 5, "indexes": "bitmap:status,country bloom-filter:customer_id bsi:quantity range-bitmap:amount",
      "options": {"file-index.in-manifest-threshold": "15kb"}}


@pytest.fixture(scope="session")
def append_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return synth_table(tmp_path_factory.mktemp("synth") / "orders_append", spark=spark, **APPEND)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def pk_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return synth_table(tmp_path_factory.mktemp("synth") / "orders_pk", spark=spark, **PK)  # type: ignore[arg-type]


@pytest.fixture(scope="session", params=["append", "pk"])
def synth(request: pytest.FixtureRequest) -> SynthResult:
    result: SynthResult = request.getfixturevalue(f"{request.param}_table")
    return result


def table_dir(result: SynthResult) -> Path:
    return Path(result.path)
