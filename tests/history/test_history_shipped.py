"""Issue 17's 'done when' on the shipped history table: the report names the snapshot that made a
workload query slower and why, in its History section right after the findings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.presentation.cli import main

DATA = Path(__file__).parent.parent.parent / "data"
TABLE = DATA / "history_events"
STORY = json.loads((DATA / "history_events.story.json").read_text(encoding="utf-8"))


def test_the_story_is_what_the_table_holds() -> None:
    table = pl.open_table(str(TABLE), progress=False)
    kinds = {s.snapshot_id: s.commit_kind for s in table.history()}
    assert kinds[STORY["mishap_compaction"]] == kinds[STORY["full_compaction"]] == "COMPACT"
    assert all(kinds[d] == "OVERWRITE" for d in STORY["deletes"])
    assert sorted(table.snapshot_manager.tag_names()) == sorted(STORY["tags"])
    assert table.snapshot_id == STORY["latest"] and table.schema.id == STORY["schemas"] - 1


def test_report_says_which_snapshot_made_the_query_slower_and_why(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(TABLE), "--workload", str(DATA / "history_events.workload.sql"), "--no-recommend",
                 "-o", str(out), "--format", "json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sections"][:3] == ["overview", "findings", "history"]  # one screen: right after the findings
    html = out.read_text(encoding="utf-8")
    history = html[html.index("History: what changed"):]
    mishap = STORY["mishap_compaction"]
    assert re.search(rf"compaction at snapshot {mishap} merged 12 files .*without the bitmap index on "
                     r"(`|&#x27;|&#96;)status", history)
    # the biggest cause of the rare query's change is that compaction, with the bytes it added
    table = pl.open_table(str(TABLE), progress=False)
    result = table.explain_diff(STORY["rare_query"], 1)
    top = result.causes[0]
    assert top.snapshot_id == mishap and top.kind == "compaction" and top.read_bytes_delta > 0
    assert f"at snapshot {mishap}" in history[:history.index("timeline")]


def test_cli_compare_from_before_the_mishap(capsys: pytest.CaptureFixture[str]) -> None:
    before = str(STORY["before_mishap"])
    assert main(["explain", str(TABLE), "--where", STORY["rare_query"], "--compare", before]) == 0
    text = capsys.readouterr().out
    assert f"compaction at snapshot {STORY['mishap_compaction']}" in text and "bitmap index on `status`" in text
