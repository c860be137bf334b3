"""The report's memory between sections: a hook after each section, and the CLI's use of it."""

from __future__ import annotations

from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.presentation import cli
from paimon_lens.presentation.report import build_report
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


def test_after_section_is_called_once_per_section_built() -> None:
    calls: list[int] = []
    report = build_report(pl.open_table(str(EVENTS20)), after_section=lambda: calls.append(1))
    assert len(calls) == 10  # workload, findings, recommendations, plan, history, overview, files, indexes,
    # global indexes, deletion vectors: every one built, shown or not
    assert [s.key for s in report.sections][:2] == ["overview", "findings"]  # no recommendations: no plan


def test_cli_report_gives_freed_memory_back_after_each_section(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = cli._give_back_freed_memory
    monkeypatch.setattr(cli, "_give_back_freed_memory", lambda: (calls.append(1), real())[1])
    assert cli.main(["report", str(EVENTS20), "-o", str(tmp_path / "r.html"), "--no-progress"]) == 0
    assert len(calls) == 11 and (tmp_path / "r.html").stat().st_size > 10_000  # and once before writing


def test_release_lets_go_and_the_table_reads_again() -> None:
    t = pl.open_table(str(EVENTS20))
    before = t.explain("id = 3").summary()
    assert t.reader.memoized("index_facts") or t.live_files()
    t.release()
    assert not t.reader._memo and t.reader._files is None and not t.reader._cache.manifests
    assert t.explain("id = 3").summary() == before  # read again, the same answer


def test_save_writes_the_whole_document_or_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paimon_lens.presentation import report as report_module

    report = build_report(pl.open_table(str(EVENTS20)))
    out = tmp_path / "r.html"
    report.save(out)
    assert out.read_text(encoding="utf-8") == report.html and [p.name for p in tmp_path.iterdir()] == ["r.html"]

    def broken(*args: object, **kwargs: object) -> object:
        yield "<!doctype html><html>"
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(report_module, "_generate", broken)
    with pytest.raises(RuntimeError):
        report.save(out)
    assert out.read_text(encoding="utf-8") != "<!doctype html><html>"  # the earlier report stays whole
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no partial file left
