"""Engine selection, the process-pool engine, task errors, and a light import."""

from __future__ import annotations

import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pandas.testing as pdt
import pytest

import paimon_lens as pl
from paimon_lens.engines import get_engine
from paimon_lens.engines.base import TaskError
from paimon_lens.engines.local import LOCAL, LocalEngine, ProcessEngine
from paimon_lens.errors import CorruptFileError, PaimonLensError
from tests.conftest import load_json, oracle_paths
from tests.pruning.test_truth import strip


def test_get_engine() -> None:
    assert get_engine() is LOCAL and get_engine("local") is LOCAL
    assert isinstance(get_engine("process", workers=2), ProcessEngine)
    engine = LocalEngine(threads=3)
    assert get_engine(engine) is engine
    assert engine.map(abs, [-1, 2, -3]) == [1, 2, 3]
    with pytest.raises(PaimonLensError, match="unknown engine"):
        get_engine("flink")


def _fail(n: int) -> int:
    if n == 2:
        raise CorruptFileError("/x", 7, "magic", "1", "2")
    return n


def test_task_errors_come_back_as_paimon_lens_errors() -> None:
    engine = ProcessEngine(2)
    assert engine.map(_fail, [0, 1]) == [0, 1]
    with pytest.raises(TaskError, match="/x") as e:
        engine.map(_fail, [0, 1, 2, 3])
    assert e.value.kind == "CorruptFileError"


def _add(a: int, b: int) -> int:
    return a + b


def test_process_engine_maps_partials_in_order() -> None:
    assert ProcessEngine(2).map(partial(_add, 10), list(range(6))) == list(range(10, 16))


@pytest.mark.parametrize("oracle", [p for p in oracle_paths() if p.stem in ("oracle_sales", "oracle_orders_dv")],
                         ids=lambda p: p.stem[7:])
def test_process_engine_same_answers(oracle: Path) -> None:
    o = load_json(oracle)
    path = str(oracle.parent / o["table"]["path"])
    local, remote = pl.open_table(path), pl.open_table(path, engine=ProcessEngine(2, min_manifests=1))
    assert remote.at(remote.snapshot_id).engine is remote.engine
    pdt.assert_frame_equal(local.files(), remote.files())
    pdt.assert_frame_equal(local.file_indexes(), remote.file_indexes())
    pdt.assert_frame_equal(local.deletion_vectors(), remote.deletion_vectors())
    wheres = [strip(p["sql"]) for p in o["predicates"]]
    for where, report in zip(wheres, remote.explain_many(wheres, truth=True), strict=True):
        assert report.to_dict(positions=True) == local.explain(where, truth=True).to_dict(positions=True), where


def test_engines_do_not_import_pyspark() -> None:
    code = ("import sys, paimon_lens.engines, paimon_lens.engines.files, paimon_lens.pruning.run, paimon_lens.table; "
            "print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


class _Recording:
    """A distributed engine that runs tasks in process and records what it was given."""

    name = "recording"
    distributed = True
    parallelism = 2

    def __init__(self, min_manifests: int) -> None:
        self.min_manifests = min_manifests
        self.calls: list[tuple[str, int]] = []

    def map(self, fn: Any, items: Any) -> list[Any]:
        target = fn.func if isinstance(fn, partial) else fn
        self.calls.append((target.__name__, len(items)))
        # the function, items and results cross a process boundary on a real distributed engine
        remote = pickle.loads(pickle.dumps(fn))
        return [pickle.loads(pickle.dumps(remote(pickle.loads(pickle.dumps(x))))) for x in items]


def test_manifests_go_to_tasks_from_min_manifests_on() -> None:
    oracle = next(p for p in oracle_paths() if p.stem == "oracle_events20")
    path = str(oracle.parent / load_json(oracle)["table"]["path"])
    manifests = len(pl.open_table(path).manifest_files())
    assert manifests > 1
    few = _Recording(min_manifests=manifests + 1)
    pl.open_table(path, engine=few).live_files()
    assert few.calls == []  # read in the driver
    many = _Recording(min_manifests=manifests)
    files = pl.open_table(path, engine=many).live_files()
    assert many.calls == [("_read_manifest", manifests)]
    assert [f.entry for f in files] == [f.entry for f in pl.open_table(path).live_files()]


def test_index_answers_no_task_needed_are_computed_in_the_driver_on_demand() -> None:
    """Tasks send back only the index answers planning needed; the rest are computed lazily here,
    and equal the local answers."""
    oracle = next(p for p in oracle_paths() if p.stem == "oracle_events20")
    path = str(oracle.parent / load_json(oracle)["table"]["path"])
    where = "dt = '2025-01-01' AND price > 40"  # other partitions' indexed files are never evaluated
    local = pl.open_table(path).explain(where)
    remote = pl.open_table(path, engine=_Recording(min_manifests=1)).explain(where)
    pending = [v for v in remote.files if v.index_location != "none" and "_index_cache" not in v.decision.__dict__]
    assert pending and any(not v.partition_keep for v in pending)
    # what planning computed travels back: files it asked (planned ones, the index stage) are not pending
    assert not [v for v in pending if v.planned or v.stage == "index"]
    assert remote.to_dict(positions=True) == local.to_dict(positions=True)
    for index_enabled in (True, False):  # without index reading, the reasons of planned files ask too
        wheres = [strip(p["sql"]) for p in load_json(oracle)["predicates"]]
        for where, report in zip(wheres, pl.open_table(path, engine=_Recording(1)).explain_many(
                wheres, index_enabled=index_enabled), strict=True):
            assert not [v for v in report.files if v.planned and "_index_cache" not in v.decision.__dict__
                        and v.index_location != "none"], where
            assert report.to_dict(positions=True) == pl.open_table(path).explain(
                where, index_enabled=index_enabled).to_dict(positions=True), where
