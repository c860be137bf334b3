"""Answers' frames come from their records through one converter, and agree with their JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.presentation.frame_columns import EXPLAIN_COLUMNS
from paimon_lens.presentation.lens_frame import LensFrame, records_frame

ROOT = Path(__file__).parents[2]


def test_records_frame_keeps_the_declared_columns_in_order() -> None:
    frame = records_frame([{"b": 1, "a": 2, "extra": 3}, {"a": 4}], {"a": "first", "b": "second"})
    assert isinstance(frame, LensFrame)
    assert list(frame.columns) == ["a", "b"]
    assert frame["a"].tolist() == [2, 4]
    assert records_frame([], ["a"]).columns.tolist() == ["a"]  # no records: the columns still


def test_records_frame_refuses_a_column_no_record_has() -> None:
    with pytest.raises(PaimonLensError, match=r"\['c'\]"):
        records_frame([{"a": 1}], ["a", "c"])


def test_the_explain_frame_and_json_are_one_record() -> None:
    t = pl.open_table(str(ROOT / "data" / "orders_dv20"), progress=False)
    report = t.explain("qty > 5", truth=True)
    frame = report.to_frame()
    assert list(frame.columns) == list(EXPLAIN_COLUMNS)
    doc = report.to_dict()
    assert len(frame) == len(doc["files"])
    for (_, row), rec in zip(frame.iterrows(), doc["files"]):
        for name in ("file_name", "bucket", "row_count", "file_size", "planned", "read", "reason", "rows_after_dv",
                     "matching_rows", "dv_removed_rows", "index_result"):
            assert row[name] == rec[name], name
        assert row["index_kind"] == rec["index_result_kind"]
        assert row["stage"] == (rec["stage"] or "")
        assert row["flags"] == ", ".join(rec["flags"])
