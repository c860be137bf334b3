"""LensFrame and the human units of paimon-lens frames."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paimon_lens
from paimon_lens.presentation.lens_frame import (
    LensFrame,
    column_unit,
    format_cell,
    frame_html,
    frame_text,
    human_bytes,
    human_count,
    human_percent,
    lens_frame,
)

DATA = "data"


@pytest.mark.parametrize(("n", "text"), [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
                                         (5 * 1024**3, "5.0 GiB"), (None, "-"), (math.nan, "-")])
def test_human_bytes(n: float | None, text: str) -> None:
    assert human_bytes(n) == text


def test_human_count_and_percent() -> None:
    assert human_count(1234567) == "1,234,567"
    assert human_count(2.5) == "2.50"
    assert human_percent(0.0123) == "1.23 %"
    assert human_percent(1e-6) == "0.0001 %"
    assert human_percent(0) == "0 %"
    assert human_percent(None) == "-"


@pytest.mark.parametrize(("name", "unit"), [
    ("file_size", "bytes"), ("bytes", "bytes"), ("bitmap_bytes", "bytes"), ("index_size", "bytes"),
    ("fill_ratio", "percent"), ("deleted_ratio", "percent"), ("false_positive_probability", "percent"),
    ("row_count", "count"), ("rows_after_dv", "count"), ("matching_rows", "count"), ("cardinality", "count"),
    ("file_name", None), ("partition", None), ("bucket", None), ("value_stats_cols", None),
    ("bytes_avoided_per_query", "bytes"), ("index_bytes_read_per_query", "bytes"), ("bytes_avoided_ratio", "percent"),
    ("files_skipped_per_query", "count"), ("rows_avoided_per_query", "count"), ("index_selected_rows", "count"),
    ("value", "value"), ("min", "value"), ("min(score)", "value"), ("max(dt)", "value"),
    ("null_count(score)", "count"),
])
def test_column_units(name: str, unit: str | None) -> None:
    assert column_unit(name) == unit


def test_nulls_of_table_values_show_as_null_and_ints_stay_ints() -> None:
    from paimon_lens.units import format_cell

    assert format_cell(None, "value") == "NULL" and format_cell(float("nan"), "value") == "NULL"
    assert format_cell(None, "count") == "" and format_cell(24, "value") == "24"
    t = paimon_lens.open_table(f"{DATA}/events20")
    indexes = t.file_indexes()
    int_column = next(c for c in indexes.loc[indexes["index_type"] == "bitmap", "column"].unique()
                      if t.schema.field(c).type.root in ("INT", "BIGINT"))
    values = t.bitmap_values(int_column)
    assert all(v is None or type(v) is int for v in values["value"]), values["value"].head()
    html = values._repr_html_()
    assert ".0<" not in html


def test_caption_totals_only_rows_that_are_files() -> None:
    report = paimon_lens.open_table(f"{DATA}/events20").explain("country = 'DE'")
    funnel = lens_frame(pd.DataFrame(report.funnel()))
    assert " in bytes" not in funnel._repr_html_()  # a sum over funnel stages means nothing
    files = report.to_frame()
    assert " in file_size" in files._repr_html_()


def test_frames_of_a_table_are_lens_frames_with_raw_numbers() -> None:
    t = paimon_lens.open_table(f"{DATA}/events20")
    for frame in (t.files(), t.snapshots(), t.file_indexes(), t.bloom_filters(), t.bitmap_values("country"),
                  t.manifests(), t.schemas()):
        assert isinstance(frame, LensFrame)
        assert isinstance(frame, pd.DataFrame)
    files = t.files()
    assert files["file_size"].dtype.kind == "i"  # display never changes the data
    filtered = files[files["row_count"] > 10]
    assert isinstance(filtered, LensFrame)
    assert type(files.to_pandas()) is pd.DataFrame
    html = files._repr_html_()
    assert "KiB" in html and "dt=2025-01-01" in html
    assert f"{len(files):,} rows" in html
    text = repr(files)
    assert "KiB" in text and "file_name" in text


def test_html_is_escaped_and_long_frames_are_cut() -> None:
    payload = "<script>alert(1)</script>"
    frame = lens_frame(pd.DataFrame({payload: [payload] * 100, "bytes": range(100)}))
    html = frame._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "more rows" in html
    assert html.count("<tr>") < 50


def test_format_cell() -> None:
    assert format_cell(None) == ""
    assert format_cell(math.nan, "bytes") == ""
    assert format_cell(b"\x01\xff") == "0x01ff"
    assert format_cell({"dt": "2025-01-01", "h": 3}) == "dt=2025-01-01, h=3"
    assert format_cell(True, "count") == "True"
    assert format_cell("x" * 500).endswith("…")
    assert len(format_cell("x" * 500)) == 120


def test_empty_frame_renders() -> None:
    frame = LensFrame(columns=["a", "bytes"])
    assert "0 rows" in frame_html(frame)
    assert "0 rows" in frame_text(frame)
    assert "Empty" in repr(LensFrame())


@given(st.lists(st.tuples(st.text(max_size=30), st.integers(-10**12, 10**12) | st.none()), max_size=60))
def test_any_values_render_escaped(rows: list[tuple[str, int | None]]) -> None:
    frame = LensFrame(rows, columns=["name", "file_size"])
    html = frame_html(frame)
    assert "<script" not in html.lower().replace("<style>", "")
    frame_text(frame)
