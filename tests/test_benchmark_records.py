"""benchmarks/records.py: one section per benchmark in benchmarks/RESULTS.md, rewritten alone and deterministically."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import records as rec

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
FACTS = {"machine": "nproc 2, Test CPU, Linux 6.0 x86_64, Python 3.11.7", "commit": "abc1234",
         "date": "2026-01-02 03:04 UTC"}


def _update(path: Path, name: str, records: list[rec.Record], **kwargs: str) -> str:
    return rec.update_results(name, f"python -m benchmarks.{name}", records, summary="What it measures.", path=path,
                              **{**FACTS, **kwargs})


@pytest.fixture
def results_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "RESULTS.md"
    shutil.copyfile(RESULTS, copy)
    return copy


def test_new_section_is_appended_and_the_rest_kept(results_copy: Path) -> None:
    """A benchmark without a section gets one at the end; the header and every other section stay byte for byte."""
    before = results_copy.read_text(encoding="utf-8")
    section = _update(results_copy, "bench_example", [rec.Record("x >= 1", "x = 2", 2.0, rec.verdict(True))])
    after = results_copy.read_text(encoding="utf-8")
    assert after == before.rstrip("\n") + "\n\n" + section + "\n"
    assert rec.sections(after)["bench_example"] == section
    assert {k: v for k, v in rec.sections(after).items() if k != "bench_example"} == rec.sections(before)
    assert section.splitlines() == [
        "<!-- bench_example:begin -->", "## bench_example", "", "What it measures.", "",
        "| target | result | ratio | verdict |", "| --- | --- | --- | --- |", "| x >= 1 | x = 2 | 2.00 | MET |", "",
        f"- machine: {FACTS['machine']}", "- command: `python -m benchmarks.bench_example`",
        f"- commit: `{FACTS['commit']}`", f"- date: {FACTS['date']}", "<!-- bench_example:end -->"]


def test_existing_section_is_replaced_in_place(results_copy: Path) -> None:
    """Replacing a section in the middle of the file changes nothing before or after it."""
    before = results_copy.read_text(encoding="utf-8")
    old_sections = rec.sections(before)
    name = list(old_sections)[1]
    section = _update(results_copy, name, [rec.Record("t", "r | with a pipe", None, rec.verdict(None))],
                      details="results_example.md")
    after = results_copy.read_text(encoding="utf-8")
    start = before.index(old_sections[name])
    assert after == before[:start] + section + before[start + len(old_sections[name]):]
    assert list(rec.sections(after)) == list(old_sections)
    assert "| t | r \\| with a pipe | - | no target |" in section
    assert section.splitlines()[-2] == "- details: [results_example.md](results_example.md)"


def test_update_is_idempotent(results_copy: Path) -> None:
    """The same call twice writes the same bytes (and the second one does not rewrite the file)."""
    records = [rec.Record("a", "b", "3x the baseline", "MISSED")]
    _update(results_copy, "bench_parse", records)
    once = results_copy.read_bytes()
    mtime = results_copy.stat().st_mtime_ns
    _update(results_copy, "bench_parse", records)
    assert results_copy.read_bytes() == once
    assert results_copy.stat().st_mtime_ns == mtime


def test_missing_file_starts_with_the_header(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    section = _update(path, "bench_one", [rec.Record("t", "r")])
    assert path.read_text(encoding="utf-8") == rec.HEADER + "\n" + section + "\n"


def test_bad_calls_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="name"):
        _update(tmp_path / "R.md", "bench one", [rec.Record("t", "r")])
    with pytest.raises(ValueError, match="no records"):
        _update(tmp_path / "R.md", "bench_one", [])
    assert not (tmp_path / "R.md").exists()


def test_committed_results_have_every_required_line() -> None:
    """Every section of the committed RESULTS.md: heading, one sentence, one table, machine/command/commit/date."""
    text = RESULTS.read_text(encoding="utf-8")
    assert text.startswith(rec.HEADER)
    found = rec.sections(text)
    assert {"bench_formats", "bench_explain", "bench_scale", "bench_s3", "bench_history", "bench_parse",
            "bench_recommend", "bench_writers", "fuzz_long", "bench_anchors", "bench_million"} <= set(found)
    assert text.count(":begin -->") == text.count(":end -->") == len(found)
    for name, section in found.items():
        lines = section.splitlines()
        assert lines[1] == f"## {name}" and lines[2] == "" and lines[3] and lines[4] == "", name
        header = [c.strip() for c in lines[5].strip("|").split("|")]
        assert header[0] == "target" and header[1] == "result" and header[3] == "verdict", name
        assert lines[6] == "| --- | --- | --- | --- |", name
        rows = [line for line in lines[7:] if line.startswith("| ")]
        assert rows and all(re.fullmatch(r"\|( .+ \|){4}", row) for row in rows), name
        facts = [line.split(":", 1)[0][2:] for line in lines[8 + len(rows):-1]]
        assert facts[:4] == list(rec.LINES) and set(facts[4:]) <= {"details"}, name
        commit = next(line for line in lines if line.startswith("- commit: "))
        assert re.fullmatch(r"- commit: `[0-9a-f]{7,}(\+dirty)?`", commit), name
        date = next(line for line in lines if line.startswith("- date: "))
        assert re.fullmatch(r"- date: \d{4}-\d\d-\d\d \d\d:\d\d UTC", date), name
        for link in re.findall(r"\]\(([^)]+)\)", section):
            assert (RESULTS.parent / link).is_file(), f"{name}: {link}"


def test_bench_formats_section_is_what_its_output_gives() -> None:
    """The committed bench_formats section is exactly what the script writes from the output in results_formats.md."""
    from benchmarks import bench_formats

    section = rec.sections(RESULTS.read_text(encoding="utf-8"))["bench_formats"]
    facts = dict(line[2:].split(": ", 1) for line in section.splitlines() if line.startswith("- "))
    details = (RESULTS.parent / "results_formats.md").read_text(encoding="utf-8")
    output = details.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert section == rec.render_section("bench_formats", bench_formats.SUMMARY, facts["command"].strip("`"),
                                         bench_formats.records(output.splitlines()), facts["machine"],
                                         facts["commit"].strip("`"), facts["date"], "results_formats.md")


def test_write_details_keeps_the_text_outside_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "results_x.md"
    rec.write_details(page, "first", "Title")
    assert page.read_text(encoding="utf-8") == "# Title\n\n<!-- results:begin -->\nfirst\n<!-- results:end -->\n"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Method\n\nkept\n", encoding="utf-8")
    rec.write_details(page, "second", "Title")
    assert page.read_text(encoding="utf-8") == ("# Title\n\n<!-- results:begin -->\nsecond\n<!-- results:end -->\n"
                                                "\n## Method\n\nkept\n")


def test_command_line_and_machine_facts() -> None:
    assert rec.command_line("bench_x", ["--files", "10", "--cache-dir", "/tmp/c", "--where", "a = 'b c'"]) == (
        "python -m benchmarks.bench_x --files 10 --where 'a = '\"'\"'b c'\"'\"''")
    assert rec.command_line("bench_x", ["--cache-dir=/tmp/c", "--quick"]) == "python -m benchmarks.bench_x --quick"
    facts = rec.machine_facts(("numpy", "no-such-package-here"))
    assert facts.python == ".".join(map(str, sys.version_info[:3]))
    assert facts.line().endswith(f"; numpy {__import__('numpy').__version__}, no-such-package-here -")
    assert rec.MachineFacts(None, "", "", "3.11").line() == "Python 3.11"
    assert re.fullmatch(r"[0-9a-f]{7,}(\+dirty)?|unknown", rec.git_commit())


def test_quick_runs_write_nothing() -> None:
    """``--quick`` prints only: RESULTS.md and the details page stay as they were."""
    before = RESULTS.read_bytes(), (RESULTS.parent / "results_parse.md").read_bytes()
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_parse", "--quick"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (RESULTS.read_bytes(), (RESULTS.parent / "results_parse.md").read_bytes()) == before
