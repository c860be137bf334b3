"""User-supplied paths on the command line: one line on stderr, exit code 2, no traceback; the
report's output is checked before any work and is never written inside the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


@pytest.mark.parametrize("args", [
    ["dv", "/nonexistent/index-1"], ["dv", "{tmp}"],
    ["probe", "/nonexistent/x.index", "--schema", "a INT", "--where", "a = 1"], ["probe", "{tmp}", "--schema", "a INT",
                                                                                 "--where", "a = 1"],
    ["report", str(EVENTS20), "-o", "/nonexistent/dir/r.html"], ["report", str(EVENTS20), "-o", "{tmp}"],
    ["report", str(EVENTS20), "-o", str(EVENTS20 / "report.html")],
])
def test_bad_paths_are_one_line_errors(args: list[str], tmp_path: Path) -> None:
    run = _cli(*[a.replace("{tmp}", str(tmp_path)) for a in args], cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1
    assert run.stderr.startswith("paimon-lens: error: ")
    assert not (EVENTS20 / "report.html").exists()


def test_report_save_refuses_the_table_directory(tmp_path: Path) -> None:
    t = pl.open_table(str(EVENTS20))
    report = pl.report(t)
    with pytest.raises(PaimonLensError, match="never writes into a table"):
        report.save(EVENTS20 / "dt=2025-01-01" / "r.html")
    assert report.save(tmp_path / "r.html").exists()


def test_partial_explain_exits_1(tmp_path: Path) -> None:
    """A batch with a failing line, or a file whose index cannot be read: the answer is printed and
    the exit code says it is partial."""
    import json
    import shutil

    wf = tmp_path / "w.sql"
    wf.write_text("country = 'DE'\nnot valid sql ((\n")
    run = _cli("explain", str(EVENTS20), "--where-file", str(wf), "--format", "json", cwd=tmp_path)
    assert run.returncode == 1 and "partial answer: 1 predicate(s) failed" in run.stderr
    doc = json.loads(run.stdout)
    assert "error" in doc["predicates"][1] and doc["predicates"][0]["files"]
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    for p in copy.rglob("*.index"):
        p.unlink()
    run = _cli("explain", str(copy), "--where", "country = 'DE'", cwd=tmp_path)
    assert run.returncode == 1 and "file verdict(s) with errors" in run.stderr
    assert "note: " in run.stdout and "index could not be read" in run.stdout
    ok = _cli("explain", str(EVENTS20), "--where", "country = 'DE'", "--format", "json", cwd=tmp_path)
    assert ok.returncode == 0 and json.loads(ok.stdout)["summary"]["files_with_errors"] == 0
