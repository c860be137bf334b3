"""The explain report object: funnel, frame, dict, HTML (escaped)."""

from __future__ import annotations

import paimon_lens as pl
from paimon_lens.presentation.frame_columns import EXPLAIN_COLUMNS
from tests.conftest import FIXTURES

EVENTS = FIXTURES / "tables20/a20_append_indexed/warehouse/db.db/events20"
ORDERS = FIXTURES / "tables20/b20_pk_dv/warehouse/db.db/orders_dv20"


def test_funnel_is_monotonic_and_consistent() -> None:
    t = pl.open_table(str(EVENTS))
    r = t.explain("dt = '2025-01-02' AND country = 'US' AND score > 50", truth=True)
    funnel = r.funnel()
    files = [row["files"] for row in funnel]
    assert files == sorted(files, reverse=True) and files[0] == len(t.live_files())
    s = r.summary()
    assert funnel[-1]["files"] == s["read_files"]
    assert s["skipped_by"]["partition"] == sum(1 for f in r.files if not f.partition_keep)
    assert s["matching_rows"] == sum(f.matching_rows or 0 for f in r.files)
    assert s["skipped_files_with_match"] == 0
    frame = r.to_frame()
    assert list(frame.columns) == list(EXPLAIN_COLUMNS) and len(frame) == len(r.files)
    assert all(reason for reason in frame[~frame.read].reason)


def test_deletion_vectors_reduce_rows() -> None:
    t = pl.open_table(str(ORDERS))
    r = t.explain("status = 'DONE'", truth=True)
    dv_files = [f for f in r.files if f.deleted_rows]
    assert dv_files and all(f.rows_after_dv <= f.row_count - f.deleted_rows for f in dv_files if f.read)
    for f in r.files:
        if f.matching_live_positions is not None and f.matching_positions is not None:
            assert f.matching_live_positions <= f.matching_positions


def test_html_escapes_table_and_query_text() -> None:
    t = pl.open_table(str(EVENTS))
    r = t.explain("country = '<script>alert(1)</script>' OR status = '<img src=x onerror=alert(2)>'")
    html = r._repr_html_()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;" in html
    assert "files" in html and "after stats" in html


def test_repr_mentions_the_funnel() -> None:
    r = pl.open_table(str(EVENTS)).explain("id = 1003")
    assert "planned" in repr(r) and "read" in repr(r)
