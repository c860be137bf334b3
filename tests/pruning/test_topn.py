"""ORDER BY ... LIMIT pushed into a scan (TopN): splits by min/max stats, rows by range-bitmap indexes.

The truth is the answer itself: the first ``limit`` matching rows in the order asked (read from the
data files). Paimon 2.0 keeps it (split pruning only without a data filter); Paimon 1.3/1.4 pruned
splits by their unfiltered min/max under a filter and could lose rows of the answer, which the
explanation shows.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.pruning.topn import TopN, select_splits

EVENTS20 = Path(__file__).parent.parent.parent / "data" / "events20"
ORDERS = ["score", "score DESC", "id", "id DESC NULLS FIRST", "user_id ASC NULLS LAST", "amount DESC"]


def test_parse() -> None:
    assert TopN.parse("score", 3) == TopN("score", False, True, 3)
    assert TopN.parse("`score` DESC", 3) == TopN("score", True, False, 3)
    assert TopN.parse("score asc nulls last", 1) == TopN("score", False, False, 1)
    with pytest.raises(PaimonLensError, match="ORDER BY"):
        TopN.parse("score sideways", 1)
    with pytest.raises(PaimonLensError, match="negative"):
        TopN.parse("score", -1)


@pytest.mark.parametrize("column", ["v", "attrs"])
def test_a_column_without_order_is_refused_by_name(column: str) -> None:
    """VARIANT, MAP, ARRAY, ROW columns have no order: the error names the column and its type."""
    fixtures = Path(__file__).parent.parent / "fixtures" / "pypaimon" / "warehouse" / "db.db"
    path = fixtures / "variant_table" if column == "v" else EVENTS20
    t = pl.open_table(path)
    with pytest.raises(PaimonLensError, match=f"ORDER BY {column}: a column of type (VARIANT|MAP<STRING, STRING>) "):
        t.explain(None, order_by=f"{column} DESC", limit=3, truth=True)


@pytest.mark.parametrize("order_by", ORDERS)
@pytest.mark.parametrize("limit", [1, 2, 5, 101])
def test_paimon_2_0_never_loses_a_row_of_the_answer(order_by: str, limit: int) -> None:
    t = pl.open_table(str(EVENTS20))
    r = t.explain(None, order_by=order_by, limit=limit, truth=True)
    topn = r.summary()["topn"]
    assert topn["truth_rows_not_returned"] == 0
    if limit > 100:
        assert topn["split_pruning"] and "limit above 100" in topn["split_pruning"]
    elif order_by.startswith("amount"):
        assert topn["split_pruning"] is None  # DOUBLE has trusted min/max
    if topn["splits"] is not None and limit > topn["splits"]:
        assert topn["splits_kept"] == topn["splits"] and topn["files_dropped"] == 0


def test_split_pruning_drops_whole_splits_and_says_why() -> None:
    r = pl.open_table(str(EVENTS20)).explain(None, order_by="id", limit=1)
    topn = r.summary()["topn"]
    assert topn["splits"] == 3 and topn["splits_kept"] == 1 and topn["files_dropped"] > 0
    dropped = [v for v in r.files if v.stage == "topn"]
    assert dropped and all("ranks" in v.reason and "min(id)" in v.reason for v in dropped)
    assert any(row["stage"] == "after topn" for row in r.funnel())


def test_a_data_filter_disables_split_pruning_in_2_0_but_not_in_1_4() -> None:
    where = "country = 'DE'"
    r20 = pl.open_table(str(EVENTS20)).explain(where, order_by="score DESC", limit=1, truth=True)
    assert "filter on non-partition columns" in r20.summary()["topn"]["split_pruning"]
    assert r20.summary()["topn"]["truth_rows_not_returned"] == 0
    r14 = pl.open_table(str(EVENTS20), paimon_version="1.4").explain(where, order_by="score DESC", limit=1,
                                                                      truth=True)
    assert r14.summary()["topn"]["split_pruning"] is None
    lost = r14.summary()["topn"]["truth_rows_not_returned"]
    assert lost >= 1  # the best matching row lies in a split ranked out by its unfiltered max
    flagged = [v for v in r14.files if any("true ORDER BY" in f for f in v.flags)]
    assert flagged and all(v.stage == "topn" for v in flagged)


def test_range_bitmap_selects_the_rows_of_each_file() -> None:
    t = pl.open_table(str(EVENTS20))
    assert "range-bitmap" in set(t.file_indexes()["index_type"])
    column = t.file_indexes().query("index_type == 'range-bitmap'")["column"].iloc[0]
    r = t.explain(None, order_by=column, limit=2)
    chosen = [v for v in r.files if v.read and v.index_selected_rows is not None]
    assert r.summary()["topn"]["files_with_index_selection"] == len(chosen) > 0
    assert all(v.index_selected_rows <= 2 for v in chosen)
    with_filter = t.explain(f"{column} > 0", order_by=column, limit=2)
    assert with_filter.summary()["topn"]["files_with_index_selection"] == 0  # only without a data filter


def test_primary_key_tables_and_old_releases() -> None:
    pk = pl.open_table(str(EVENTS20.parent / "orders_dv20")).explain(None, order_by="qty", limit=1)
    assert "primary-key" in pk.summary()["topn"]["split_pruning"]
    old = pl.open_table(str(EVENTS20), paimon_version="1.2").explain(None, order_by="id", limit=1)
    assert "pushes no TopN" in old.summary()["topn"]["split_pruning"]


def _split(name: str, lo: int | None, hi: int | None, nulls: int = 0) -> tuple[list, tuple]:
    lf = SimpleNamespace(file=SimpleNamespace(file_name=name))
    return [lf], (lo, hi, nulls)


def test_select_splits_orders_as_java() -> None:
    parts = [_split("a", 5, 9), _split("b", 1, 3), _split("c", None, None, 4), _split("d", 2, 20)]
    splits = [p[0] for p in parts]
    stats = {p[0][0].file.file_name: p[1] for p in parts}
    keep, reasons = select_splits(splits, TopN("x", False, True, 2), stats, lambda v: v)
    assert keep == {"c", "b"}  # nulls first: the all-null split leads, then the smallest min
    keep, _ = select_splits(splits, TopN("x", False, False, 2), stats, lambda v: v)
    assert keep == {"c", "b"}  # a null min sorts first either way (Java's ascCompare)
    keep, _ = select_splits(splits, TopN("x", True, False, 1), stats, lambda v: v)
    assert keep == {"c"}
    stats["d"] = None  # no usable bounds: always kept
    keep, reasons = select_splits(splits, TopN("x", True, False, 1), stats, lambda v: v)
    assert "d" in keep and "a" in reasons
