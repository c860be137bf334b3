"""explain() against Paimon's own decisions for every fixture table and predicate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.pruning.explain import explain
from tests.conftest import load_json, oracle_paths
from tests.pruning.test_truth import digest, strip

ORACLES = [p for p in oracle_paths() if load_json(p)["predicates"]]


def _want_digest(f: dict[str, Any], kind: str) -> tuple[int, int] | None:
    if f"{kind}_positions" in f:
        return digest(f[f"{kind}_positions"])
    if f"{kind}_positions_count" in f:
        return f[f"{kind}_positions_count"], f.get(f"{kind}_positions_crc32", 0)
    return None


def _fixed_09_bug(f: dict[str, Any]) -> bool:
    """Paimon 0.9's bitmap-OR bug: the oracle says SKIP although rows match (README section 1)."""
    return bool(f.get("index_false_negative"))


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_explain_matches_paimon(oracle: Path) -> None:
    o = load_json(oracle)
    table = pl.open_table(str(oracle.parent / o["table"]["path"]))
    for p in o["predicates"]:
        report = explain(table.reader, strip(p["sql"]), truth=True)
        got = {f.file_name: f for f in report.files}
        plan = set(p["plan_files"])
        assert set(got) == {f["file_name"] for f in p["files"]}
        for w in p["files"]:
            h = got[w["file_name"]]
            ctx = (p["id"], p["sql"], w["file_name"])
            assert h.stats_keep == w["stats_keep"], ctx
            bug = _fixed_09_bug(w)
            if bug:  # we model current Paimon: the file is kept, and it does hold matches
                assert w["index_result"] == "SKIP" and h.index_result == "REMAIN" and h.matching_rows, ctx
            else:
                assert h.index_result == w["index_result"], ctx
                assert h.planned == (w["file_name"] in plan), ctx
            if w.get("index_result_kind") == "BITMAP" and not bug and not w.get("index_order_dependent"):
                assert h.index_positions is not None, ctx
                assert digest(list(h.index_positions)) == _want_digest(w, "bitmap"), ctx
            truth = _want_digest(w, "matching")
            if truth is not None:
                assert digest(list(h.matching_positions or [])) == truth, ctx
            live = _want_digest(w, "matching_live")
            if live is not None:
                have = h.matching_live_positions if h.matching_live_positions is not None else h.matching_positions
                assert digest(list(have or [])) == live, ctx
            assert not any(flag.startswith("PAIMON SKIPPED") for flag in h.flags) or bug, ctx


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_explain_with_the_oracles_paimon_version(oracle: Path) -> None:
    """With the rules of the release that wrote the oracle, every decision equals Paimon's own,
    0.9's bitmap-OR bug included (no exception for it here)."""
    o = load_json(oracle)
    version = o["paimon_version"]
    table = pl.open_table(str(oracle.parent / o["table"]["path"]), paimon_version=version)
    assert table.paimon_version == version[:3]
    for p in o["predicates"]:
        report = table.explain(strip(p["sql"]))
        assert report.paimon_version == version[:3] and report.to_dict()["paimon_version"] == version[:3]
        got = {f.file_name: f for f in report.files}
        plan = set(p["plan_files"])
        for w in p["files"]:
            h = got[w["file_name"]]
            ctx = (version, p["id"], p["sql"], w["file_name"])
            assert h.stats_keep == w["stats_keep"], ctx
            assert h.index_result == w["index_result"], ctx
            assert h.planned == (w["file_name"] in plan), ctx
            if w.get("index_result_kind") == "BITMAP" and not w.get("index_order_dependent"):
                assert digest(list(h.index_positions or [])) == _want_digest(w, "bitmap"), ctx
        no_index = pl.open_table(str(oracle.parent / o["table"]["path"]), paimon_version=version)
        planned = {f.file_name for f in no_index.explain(strip(p["sql"]), index_enabled=False).files if f.planned}
        assert planned == set(p["plan_files_index_disabled"]), (version, p["id"], p["sql"])


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_plan_without_indexes(oracle: Path) -> None:
    o = load_json(oracle)
    table = pl.open_table(str(oracle.parent / o["table"]["path"]))
    for p in o["predicates"]:
        report = explain(table.reader, strip(p["sql"]), index_enabled=False)
        planned = {f.file_name for f in report.files if f.planned}
        assert planned == set(p["plan_files_index_disabled"]), (p["id"], p["sql"])


def test_cli_explain_where_file(tmp_path: Path) -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_events20")
    o = load_json(oracle)
    wf = tmp_path / "w.sql"
    wf.write_text("\n".join(strip(p["sql"]) for p in o["predicates"][:5]) + "\n")
    r = subprocess.run([sys.executable, "-m", "paimon_lens", "explain", str(oracle.parent / o["table"]["path"]),
                        "--where-file", str(wf), "--truth", "--positions", "--format", "json"],
                       capture_output=True, text=True, check=True)
    doc = json.loads(r.stdout)
    assert len(doc["predicates"]) == 5
    for pr, want in zip(doc["predicates"], o["predicates"][:5]):
        assert {f["file_name"] for f in pr["files"] if f["planned"]} == set(want["plan_files"])
        for f in pr["files"]:
            for key in ("file_name", "partition", "bucket", "row_count", "partition_keep", "stats_keep",
                        "index_result", "index_positions", "planned", "read", "rows_after_dv",
                        "matching_positions", "reason"):
                assert key in f
        assert pr["summary"]["files"] == len(pr["files"])
