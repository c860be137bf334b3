"""The shadow copy: the snapshot's data with the plan's indexes, where explain answers what the plan
predicted and pypaimon reads the source's rows; the source is never touched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import paimon_lens
from paimon_lens.advisor.plan import Plan
from paimon_lens.errors import PaimonLensError
from paimon_lens.presentation.cli import main
from tests.synth.test_synth_pypaimon import _pypaimon_python

DATA = Path(__file__).resolve().parents[2] / "data"


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Plan, Path]:
    source = tmp_path_factory.mktemp("src") / "events20"
    shutil.copytree(DATA / "events20", source)
    t = paimon_lens.open_table(str(source), progress=False)
    plan = t.plan(str(DATA / "events20.workload.sql"), progress=False)
    out = tmp_path_factory.mktemp("shadow") / "events20_shadow"
    before = _digest(source)
    t.shadow(out, plan)
    assert _digest(source) == before  # the source is only read
    return source, plan, out


def test_explain_on_the_copy_is_the_plans_prediction(events: tuple[Path, Plan, Path]) -> None:
    _, plan, out = events
    copy = paimon_lens.open_table(str(out), progress=False)
    for q in plan.queries:
        s = copy.explain(q.where).summary()
        assert (s["read_files"], s["read_bytes"], s["rows_after_dv"]) == (
            q.after["read_files"], q.after["read_bytes"], q.after["rows"]), q.where
    assert sum(copy.reader.index_size(lf) or 0 for lf in copy.live_files()) == plan.index_bytes["after"]
    assert copy.schema.options["file-index.bloom-filter.columns"] == plan.options_set["file-index.bloom-filter.columns"]


def test_the_copy_links_the_data_files_and_holds_one_snapshot(events: tuple[Path, Plan, Path]) -> None:
    source, _, out = events
    src = paimon_lens.open_table(str(source), progress=False)
    copy = paimon_lens.open_table(str(out), progress=False)
    assert copy.snapshot_id == 1 and [s for s in (out / "snapshot").iterdir() if s.name != "LATEST"]
    assert sorted(lf.path for lf in copy.live_files()) == sorted(lf.path for lf in src.live_files())
    for lf in src.live_files():
        assert os.stat(source / lf.path).st_ino == os.stat(out / lf.path).st_ino  # a hard link, same bytes
    assert copy.schema.id == max(s.id for s in src.reader.schema_manager.all()) + 1


def test_a_copy_inside_the_table_or_over_files_is_refused(events: tuple[Path, Plan, Path], tmp_path: Path) -> None:
    source, plan, _ = events
    t = paimon_lens.open_table(str(source), progress=False)
    with pytest.raises(PaimonLensError, match="inside the source table"):
        t.shadow(source / "copy", plan)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    with pytest.raises(PaimonLensError, match="not an empty directory"):
        t.shadow(tmp_path / "busy", plan)


def test_a_plan_of_another_snapshot_is_refused(events: tuple[Path, Plan, Path], tmp_path: Path) -> None:
    source, plan, _ = events
    doc = plan.to_dict()
    doc["snapshot_id"] = 1
    with pytest.raises(PaimonLensError, match="make the plan again"):
        paimon_lens.open_table(str(source), progress=False).shadow(tmp_path / "out", doc)


def test_cli_shadow_from_a_plan_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = DATA / "orders_dv20"
    assert main(["plan", str(table), "--format", "json", "--no-progress"]) == 0
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(capsys.readouterr().out)
    out = tmp_path / "copy"
    assert main(["shadow", str(table), str(out), "--plan", str(plan_file), "--format", "json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["files"] == len(paimon_lens.open_table(str(table)).live_files())
    planned = json.loads(plan_file.read_text())
    copy = paimon_lens.open_table(str(out), progress=False)
    for q in planned["predicted"]["queries"]:
        s = copy.explain(q["where"]).summary()
        assert (s["read_files"], s["read_bytes"]) == (q["after"]["read_files"], q["after"]["read_bytes"]), q["where"]


READ_SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory
catalog = CatalogFactory.create({"warehouse": sys.argv[1]})
out = {}
for name in sys.argv[2:]:
    table = catalog.get_table(name)
    builder = table.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    out[name] = sorted(json.dumps(r, sort_keys=True, default=str) for r in data.to_pylist())
print(json.dumps(out))
"""


def test_pypaimon_reads_the_sources_rows_from_the_copy(tmp_path: Path) -> None:
    """Deletion vectors and all: the official client returns the same rows from both tables."""
    python = _pypaimon_python()
    warehouse = tmp_path / "warehouse"
    (warehouse / "db.db").mkdir(parents=True)
    shutil.copytree(DATA / "orders_dv20", warehouse / "db.db" / "source")
    t = paimon_lens.open_table(str(warehouse / "db.db" / "source"), progress=False)
    t.shadow(warehouse / "db.db" / "copy", t.plan(progress=False))
    script = tmp_path / "read.py"
    script.write_text(READ_SCRIPT)
    run = subprocess.run([str(python), str(script), str(warehouse), "db.source", "db.copy"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["db.source"] and got["db.copy"] == got["db.source"]


def _unchanged(t: paimon_lens.Table) -> dict[str, object]:
    """A plan document that changes no option: the copy holds the table's own indexes."""
    return {"table": t.path, "snapshot_id": t.snapshot_id, "options": {"set": {}, "unset": []}}


def test_deletion_vectors_in_the_bucket_directory_travel_with_the_copy(tmp_path: Path) -> None:
    """pypaimon writes deletion vectors beside the data (index-file-in-data-file-dir): the copy
    holds them where its options say, and deletes the same rows."""
    from tests.conftest import FIXTURES

    source = FIXTURES / "pypaimon" / "warehouse" / "db.db" / "append_dv_in_data_dir"
    t = paimon_lens.open_table(str(source), progress=False)
    t.shadow(tmp_path / "copy", _unchanged(t))
    copy = paimon_lens.open_table(str(tmp_path / "copy"), progress=False)
    want = t.deletion_vectors().set_index("data_file")["cardinality"].to_dict()
    assert want and copy.deletion_vectors().set_index("data_file")["cardinality"].to_dict() == want
    name = t.schema.fields[0].name
    every = f"{name} IS NULL OR {name} IS NOT NULL"
    assert copy.explain(every).summary()["rows_after_dv"] == t.explain(every).summary()["rows_after_dv"]


def test_a_missing_index_file_stops_the_copy(tmp_path: Path) -> None:
    src = tmp_path / "orders"
    shutil.copytree(DATA / "orders_dv20", src)
    t = paimon_lens.open_table(str(src), progress=False)
    (src / "index" / t.index_manifest()["file_name"].iloc[0]).unlink()  # a vector of the snapshot
    with pytest.raises(PaimonLensError, match=r"index file the index manifest .* names is missing"):
        t.shadow(tmp_path / "copy", _unchanged(t))
