"""``recommend`` and ``report`` go on past a bad workload line or an unreadable data file, say which
(by workload line and file name) and exit 1; nothing usable at all is exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.presentation.cli import main
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"

WORKLOAD = "id = 5\nnosuchcol = 3   -- weight: 2\n\n" + "(" * 400 + "id = 1" + ")" * 400 + "\ncountry = 'DE'\n"


@pytest.fixture()
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "workload.sql"
    path.write_text(WORKLOAD, encoding="utf-8")
    return path


def test_recommend_skips_bad_workload_lines(workload: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["recommend", str(EVENTS20), "--workload", str(workload), "--max-files", "4", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 1
    doc = json.loads(captured.out)
    assert [q["where"] for q in doc["workload"]["queries"]] == ["id = 5", "country = 'DE'"]
    skipped = doc["skipped_queries"]
    assert [q["line"] for q in skipped] == [2, 4]
    assert "unknown column 'nosuchcol'" in skipped[0]["error"] and "nested too deeply" in skipped[1]["error"]
    assert len(doc["problems"]) == 2 and all(p.startswith("workload line ") for p in doc["problems"])
    assert "partial answer: workload line 2 skipped" in captured.err
    assert doc["recommendations"]


def test_recommend_with_no_usable_line_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.sql"
    path.write_text("nosuchcol = 1\nid = = 2\n", encoding="utf-8")
    assert main(["recommend", str(EVENTS20), "--workload", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no query of the workload can be used: line 1" in err and "(and 1 more)" in err


def test_recommend_names_an_unreadable_data_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "events20"
    shutil.copytree(EVENTS20, table)
    lf = max(pl.open_table(str(table)).live_files(), key=lambda f: f.entry.file.row_count)
    (table / lf.path).write_bytes(b"PAR1 not really parquet PAR1")
    code = main(["recommend", str(table), "--workload", str(EVENTS20.parent / "nope.sql"), "--format", "json"])
    assert code == 2 and "cannot read workload file" in capsys.readouterr().err
    wl = tmp_path / "w.sql"
    wl.write_text("id = 5\ncountry = 'DE'\n", encoding="utf-8")
    code = main(["recommend", str(table), "--workload", str(wl), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 1
    doc = json.loads(captured.out)
    assert any(lf.entry.file.file_name in p for p in doc["problems"])
    assert lf.entry.file.file_name in captured.err and doc["recommendations"]


def test_report_exits_1_and_names_workload_lines(workload: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    code = main(["report", str(EVENTS20), "--workload", str(workload), "-o", str(out), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 1 and out.exists()
    problems = json.loads(captured.out)["problems"]
    assert any("workload line 2 (nosuchcol = 3)" in p for p in problems)
    assert any("workload line 4" in p and "nested too deeply" in p for p in problems)
    assert "partial report: 2 problem(s)" in captured.err


def test_report_without_problems_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text("id = 5\n", encoding="utf-8")
    assert main(["report", str(EVENTS20), "--workload", str(wl), "-o", str(tmp_path / "r.html")]) == 0
    assert "  problem:" not in capsys.readouterr().out


def test_report_with_an_empty_workload_file_says_so_and_exits_1(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    wl = tmp_path / "empty.sql"
    wl.write_text("# only a comment\n\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", str(EVENTS20), "--workload", str(wl), "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert f"the workload {wl} holds no query" in captured.out and "partial report: 1 problem(s)" in captured.err
    assert "No workload was given" not in out.read_text(encoding="utf-8")
