"""The HTML tuning report: sections, self-containment, escaping, resilience, CLI."""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from pathlib import Path

import markupsafe
import pytest

import paimon_lens
from paimon_lens.presentation.blocks import block_dict
from paimon_lens.presentation.cli import main
from paimon_lens.presentation.report import CSP, TuningReport

WORKLOAD = "data/events20.workload.sql"


@pytest.fixture(scope="module")
def events_report() -> TuningReport:
    return paimon_lens.report("data/events20", WORKLOAD)


def test_sections_and_content(events_report: TuningReport) -> None:
    assert [s.key for s in events_report.sections] == ["overview", "plan", "findings", "recommendations", "workload",
                                                       "history", "files", "indexes", "dv", "terms"]
    html = events_report.html
    assert html.startswith("<!DOCTYPE html>")
    for title in ("Table overview", "Data files", "File indexes", "Deletion vectors", "Workload"):
        assert title in html
    assert len(events_report.explains) == 5
    for q in paimon_lens.workload.read_workload(WORKLOAD):  # type: ignore[attr-defined]
        assert html_escape(q.where) in html
    assert all(not s.errors for s in events_report.sections)


def test_self_contained(events_report: TuningReport) -> None:
    html = events_report.html
    assert str(markupsafe.escape(CSP)) in html
    assert "<script" not in html.lower()
    srcs = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert srcs and all(s.startswith(("data:image/svg+xml;base64,", "#")) for s in srcs)
    assert len(re.findall(r'<img class="plot"', html)) >= 8
    assert "http://" not in html.replace("http://www.w3.org", "")


def test_notebook_fragment(events_report: TuningReport) -> None:
    fragment = events_report._repr_html_()
    assert "<html" not in fragment and "paimon-lens-report" in fragment
    assert "TuningReport" in repr(events_report)


def test_pk_table_dv_section(tmp_path: Path) -> None:
    report = paimon_lens.report(paimon_lens.open_table("data/orders_dv20"))
    dv = next(s for s in report.sections if s.key == "dv")
    facts = dict(dv.facts)
    assert facts["files with a DV"] == "1" and facts["CRC mismatches"] == "0"
    assert dv.plots
    workload = next(s for s in report.sections if s.key == "workload")
    assert "No workload was given" in block_dict(workload.blocks[0])["text"]
    out = report.save(tmp_path / "r.html")
    assert out.read_text(encoding="utf-8") == report.html


def test_bad_predicate_is_reported_and_the_rest_goes_on() -> None:
    report = paimon_lens.report("data/events20", ["nope = 1", "country = 'DE'", "id = 'x'"])
    workload = next(s for s in report.sections if s.key == "workload")
    assert len(workload.errors) == 2
    assert "unknown column 'nope'" in workload.errors[0]
    assert len(report.explains) == 1


def test_corrupt_index_is_reported(tmp_path: Path) -> None:
    import shutil

    table = tmp_path / "events20"
    shutil.copytree("data/events20", table)
    index_file = next(table.rglob("*.index"))
    index_file.write_bytes(b"\x00" * 16)  # a copy: the original table is never touched
    report = paimon_lens.report(str(table), ["country = 'DE'"])
    indexes = next(s for s in report.sections if s.key == "indexes")
    assert any(index_file.name.removesuffix(".index") in e for e in indexes.errors)
    assert any(s.key == "workload" and not s.errors for s in report.sections)
    assert "Problems found" in report.html


def test_cli_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert main(["report", "data/events20", "--workload", WORKLOAD, "-o", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["output"] == str(out) and doc["snapshot_id"] == 6 and doc["problems"] == []
    # the README command: the overview and the plan first, then findings and recommendations, the inventory
    # after them (folded)
    assert doc["sections"] == ["overview", "plan", "findings", "recommendations", "workload", "history", "files",
                               "indexes", "dv", "terms"]
    assert out.stat().st_size == doc["bytes"]
    html = out.read_text(encoding="utf-8")
    overview, plan, first, advice, inventory = (html.index(t) for t in (
        "Table overview", "The plan: what to run", "Findings: what", "Index recommendations", "Data files"))
    assert overview < plan < first < advice < inventory
    assert "Apply with Spark SQL:" in html and "Apply with Flink SQL:" in html  # one block per dialect
    assert "(then Flink SQL)" not in html
    assert "ALTER TABLE" in html and "<details><summary><h2>Data files</h2></summary>" in html  # folded inventory
    assert "<details><summary><h2>Table overview" not in html  # the overview is open, first
    assert main(["report", "data/events20", "--workload", WORKLOAD, "--no-recommend", "-o", str(out),
                 "--format", "json"]) == 0
    assert "recommendations" not in json.loads(capsys.readouterr().out)["sections"]
    assert main(["report", "data/events20", "--snapshot", "2", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert "snapshot 2" in out.read_text(encoding="utf-8")
    assert main(["report", "no/such/table", "-o", str(out)]) == 2


def test_bucket_modes_are_explained() -> None:
    from paimon_lens.presentation.report import _bucket_text

    assert "bucket-unaware" in _bucket_text("-1", False) and "dynamic bucket" in _bucket_text("-1", True)
    assert "postpone" in _bucket_text("-2", True) and _bucket_text("4", True).startswith("4 fixed buckets")
    overview = next(s for s in paimon_lens.report("data/events20").sections if s.key == "overview")
    assert ("bucket", "-1: bucket-unaware append table (no bucket key; every file in bucket 0)") in overview.facts


def test_the_findings_are_found_once_for_their_section_and_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    import paimon_lens.advisor.findings as findings_module

    calls: list[object] = []
    real = findings_module.find

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(findings_module, "find", counting)
    report = paimon_lens.report("data/events20", WORKLOAD)
    assert [s.key for s in report.sections][:3] == ["overview", "plan", "findings"]
    assert len(calls) == 1
