"""The recommender on a distributed engine: profiles, what-if measures and advice equal the local ones.

Column profiling and what-if index building run per data file in tasks (Spark, a process pool)
whose partial results the driver merges; these tests hold them to the in-process answers on the
fixture tables (append, primary key with deletion vectors, schema evolution, type zoo), with and
without sampling, on the demo table with a derived workload, and with a corrupt data file.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.advisor.candidates import CURRENT, candidate_grid
from paimon_lens.advisor.profile import profile_table
from paimon_lens.advisor.whatif import WhatIfResult, measure
from paimon_lens.engines.local import ProcessEngine
from paimon_lens.engines.spark import SparkEngine
from tests.conftest import FIXTURES, load_json, oracle_paths
from tests.pruning.test_truth import strip

ORACLES = oracle_paths()
REPO = FIXTURES.parents[1]
TIMED = ("build_seconds", "seconds")


def _table_path(oracle: Path) -> str:
    return str(oracle.parent / load_json(oracle)["table"]["path"])


def _wheres(oracle: Path, n: int = 6) -> list[str]:
    return [strip(p["sql"]) for p in load_json(oracle)["predicates"]][:n]


def _untimed(obj: Any) -> Any:
    """``obj`` without wall-clock fields (build seconds differ between runs, as timings do)."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in TIMED}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def _whatif(result: WhatIfResult) -> dict[str, Any]:
    """Everything a what-if result says, but its timings."""
    return {
        "records": _untimed(result.records()),
        "queries": result.query_frame().to_dict("records"),
        "thresholds": result.threshold_frame().to_dict("records"),
        "sizes": [m.sizes for m in result.measures],
        "embedded": [m.embedded for m in result.measures],
        "errors": [m.errors for m in result.measures],
        "tallies": [[(t.evaluated_files, t.files_skipped, t.bytes_avoided, t.rows_avoided, t.index_bytes_read,
                      t.head_bytes_read, t.skipped_file_names) for t in row] for row in result.tallies],
        "notes": result.notes,
        "files": (result.files, result.sampled_files),
    }


def _candidates(table: Any, wheres: list[str]) -> list[Any]:
    from paimon_lens.predicate.parser import parse_where
    from paimon_lens.pruning.evolution import field_names

    columns = sorted({c for w in wheres for c in field_names(parse_where(w, table.schema.fields))}
                     - set(table.schema.partition_keys))
    types = {f.name: f.type for f in table.schema.fields}
    cands = [CURRENT]
    for col in columns:
        cands.extend(candidate_grid(col, types[col], [100, 1000]))
    return cands


@pytest.fixture(scope="module", params=["spark", "process"])
def engine(request: pytest.FixtureRequest) -> Any:
    if request.param == "spark":
        return SparkEngine(request.getfixturevalue("spark"), min_items=1, min_manifests=1)
    return ProcessEngine(2, min_manifests=1)


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_profile_same_as_local(oracle: Path, engine: Any) -> None:
    path = _table_path(oracle)
    local, remote = pl.open_table(path), pl.open_table(path, engine=engine)
    assert remote.engine.distributed
    assert (profile_table(remote.reader, engine=remote.engine).to_dict()
            == profile_table(local.reader, engine=local.engine).to_dict())
    got, want = (profile_table(t.reader, max_files=2, sample_rows_per_file=5, seed=3, skip_deleted=True,
                               engine=t.engine) for t in (remote, local))
    assert got.to_dict() == want.to_dict()


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_whatif_same_as_local(oracle: Path, engine: Any) -> None:
    path = _table_path(oracle)
    local, remote = pl.open_table(path), pl.open_table(path, engine=engine)
    wheres = _wheres(oracle)
    cands = _candidates(local, wheres)
    assert (_whatif(measure(remote.reader, wheres, cands, engine=remote.engine))
            == _whatif(measure(local.reader, wheres, cands, engine=local.engine)))
    assert (_whatif(measure(remote.reader, wheres, cands, max_files=2, seed=5, engine=remote.engine))
            == _whatif(measure(local.reader, wheres, cands, max_files=2, seed=5, engine=local.engine)))


def test_recommend_same_as_local(engine: Any) -> None:
    """The whole advice, on the demo table with a derived workload and on events20 with its workload file."""
    demo = str(REPO / "data" / "demo_orders")
    local, remote = pl.open_table(demo), pl.open_table(demo, engine=engine)
    want = pl.recommend(local, max_files=8, sample_rows_per_file=2000).to_dict()
    assert _untimed(pl.recommend(remote, max_files=8, sample_rows_per_file=2000).to_dict()) == _untimed(want)
    events = str(REPO / "data" / "events20")
    workload = str(REPO / "data" / "events20.workload.sql")
    local, remote = pl.open_table(events), pl.open_table(events, engine=engine)
    assert (_untimed(pl.recommend(remote, workload).to_dict())
            == _untimed(pl.recommend(local, workload).to_dict()))


def test_unreadable_data_file_is_reported_the_same(tmp_path: Path, engine: Any) -> None:
    src = Path(_table_path(next(p for p in ORACLES if p.stem == "oracle_events20")))
    copy = tmp_path / src.name
    shutil.copytree(src, copy)
    local = pl.open_table(str(copy))
    victim = copy / local.live_files()[1].path
    victim.write_bytes(b"PAR1 not a parquet file PAR1")
    remote = pl.open_table(str(copy), engine=engine)
    got, want = profile_table(remote.reader, engine=remote.engine), profile_table(local.reader, engine=local.engine)
    assert [e.file_name for e in got.errors] == [local.live_files()[1].entry.file.file_name]
    assert got.to_dict() == want.to_dict()
