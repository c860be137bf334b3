"""The report as data (presentation/blocks.py): typed blocks with an HTML and a JSON rendering."""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paimon_lens
from paimon_lens.presentation import blocks as b
from paimon_lens.presentation.cli import main

HOSTILE = "<script>alert('x')</script>&\"'"

ALL_BLOCKS = [
    b.paragraph(HOSTILE, b.Code(HOSTILE), small=True),
    b.heading(HOSTILE, b.Code(HOSTILE)),
    b.Frame(pd.DataFrame({HOSTILE: [HOSTILE, None], "n": [1, 2]})),
    b.Definitions(((HOSTILE, HOSTILE),)),
    b.Statements((f"ALTER TABLE t SET ('x' = '{HOSTILE}')",)),
    b.Details(HOSTILE, (b.paragraph(HOSTILE),)),
    b.Findings((b.FindingItem(HOSTILE, HOSTILE, HOSTILE, HOSTILE, (HOSTILE,), HOSTILE),)),
    b.Causes((b.Cause(HOSTILE, HOSTILE, (HOSTILE,)),)),
]


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda x: type(x).__name__)
def test_every_block_escapes_what_it_shows(block: object) -> None:
    html = b.block_html(block)
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda x: type(x).__name__)
def test_every_block_has_a_json_form_with_its_text(block: object) -> None:
    data = b.block_dict(block)
    assert data["type"] and json.loads(json.dumps(data)) == data

    def strings(x: object) -> list[str]:
        if isinstance(x, str):
            return [x]
        if isinstance(x, dict):
            return [t for v in x.values() for t in strings(v)]
        if isinstance(x, list):
            return [t for v in x for t in strings(v)]
        return []

    assert any(HOSTILE in t for t in strings(data)), "the data form keeps the text as it is (no escaping)"


def test_a_table_block_gives_columns_rows_and_the_total() -> None:
    frame = pd.DataFrame({"a": range(5), "b": [1.5, math.nan, None, 2.0, 3.0]})
    data = b.block_dict(b.Frame(frame, max_rows=3))
    assert data == {"type": "table", "columns": ["a", "b"], "rows": [[0, 1.5], [1, None], [2, None]], "total_rows": 5}


def test_inline_code_is_marked_in_runs() -> None:
    data = b.block_dict(b.paragraph("pass ", b.Code("--workload FILE"), " to see"))
    assert data["text"] == "pass --workload FILE to see"
    assert [r["code"] for r in data["runs"]] == [False, True, False]


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=3)))
def test_cells_become_json_values(value: object) -> None:
    got = b.json_cell(value)
    json.dumps(got, allow_nan=False)
    if isinstance(value, float) and math.isnan(value):
        assert got is None


def test_numpy_and_time_cells() -> None:
    assert b.json_cell(np.int64(3)) == 3 and type(b.json_cell(np.int64(3))) is int
    assert b.json_cell(np.float32(0.5)) == 0.5 and b.json_cell(np.bool_(True)) is True
    assert b.json_cell(pd.Timestamp("2025-01-02 03:04:05")) == "2025-01-02T03:04:05"
    assert b.json_cell(pd.NaT) is None


@pytest.fixture(scope="module")
def events_report() -> paimon_lens.presentation.report.TuningReport:  # type: ignore[name-defined]
    return paimon_lens.report("data/events20", "data/events20.workload.sql", recommend=False)


def test_sections_hold_data_not_html(events_report: object) -> None:
    for section in events_report.sections:  # type: ignore[attr-defined]
        for block in section.blocks:
            assert not isinstance(block, str), f"{section.key}: a block of HTML text"
            b.block_dict(block)


def test_the_report_as_data_matches_its_html(events_report: object) -> None:
    data = events_report.to_dict()  # type: ignore[attr-defined]
    html = events_report.html  # type: ignore[attr-defined]
    assert json.loads(json.dumps(data)) == data
    assert [s["key"] for s in data["sections"]] == [s.key for s in events_report.sections]  # type: ignore[attr-defined]
    assert data["snapshot_id"] == events_report.table.snapshot_id  # type: ignore[attr-defined]
    workload = next(s for s in data["sections"] if s["key"] == "workload")
    headings = [blk["text"] for blk in workload["blocks"] if blk["type"] == "heading"]
    assert len(headings) == 5 and all(escape(h.split(". ", 1)[1]) in html for h in headings)
    findings = next(s for s in data["sections"] if s["key"] == "findings")
    items = [i for blk in findings["blocks"] if blk["type"] == "findings" for i in blk["items"]]
    assert items and all(escape(i["title"]) in html for i in items)


def test_cli_writes_the_report_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    assert main(["report", "data/events20", "--no-recommend", "-o", str(out), "--format", "json",
                 "--no-progress"]) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert printed["output"] == str(out) and printed["bytes"] == out.stat().st_size
    assert saved["sections"] and [s["key"] for s in saved["sections"]] == printed["sections"]
    assert printed["report"]["sections"][0]["key"] == saved["sections"][0]["key"]
