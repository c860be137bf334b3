"""Smoke test: ``python -m benchmarks.bench_anchors --quick`` runs and prints every target's RESULT line.

No timing is asserted. The run uses a fresh cache directory, so the Paimon Java anchor is skipped
(its jar is never downloaded by a quick run); pypaimon runs only if its environment already exists.
Neither the network nor Java is needed, and ``results_anchors.md`` is left alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.bench_anchors import Pred, predicates

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results_anchors.md"


def test_predicates_render_the_same_conjunction_for_every_tool() -> None:
    """One predicate, three spellings: paimon-lens SQL, PlanBench's spec, pypaimon's terms."""
    p = Pred("x", (("eq", "dt", ("2025-01-03",)), ("between", "score", (300, 400))))
    assert p.sql() == "dt = '2025-01-03' AND score BETWEEN 300 AND 400"
    assert p.java() == "x|eq:dt:2025-01-03;between:score:300:400"
    assert p.as_json() == {"name": "x", "terms": [["eq", "dt", ["2025-01-03"]], ["between", "score", [300, 400]]]}
    assert [q.sql() for q in predicates(7)][2:4] == ["status = 'pending'", "id = 7"]


def test_bench_anchors_quick_runs(tmp_path: Path) -> None:
    """The quick run exits 0, prints the RESULT line of each target and agrees on planned files."""
    before = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else None
    env = {k: v for k, v in os.environ.items() if k != "PAIMON_LENS_BRIDGE_JAR"}
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_anchors", "--quick", "--cache-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=180, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-4000:]
    lines = [line for line in r.stdout.splitlines() if line.startswith("RESULT anchors")]
    assert sum(line.startswith("RESULT anchors (a)") for line in lines) == 2, r.stdout[-3000:]
    assert sum(line.startswith("RESULT anchors (b)") for line in lines) == 1
    assert sum(line.startswith("RESULT anchors (c)") for line in lines) == 10  # 2 tables x 5 predicates
    assert sum(line.startswith("RESULT anchors (d)") for line in lines) == 1
    assert "Java anchor skipped" in r.stdout  # a fresh cache has no jar, and --quick never fetches one
    assert "planned-file counts: all " in r.stdout or "planned-file counts: none compared" in r.stdout
    assert (RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else None) == before
