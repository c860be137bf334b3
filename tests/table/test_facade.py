"""The table's public surface (table/facade.py): one explain for one predicate or many, on this
branch alone or following the fallback branch."""

from __future__ import annotations

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.predicate.parser import parse_where

WHERES = ["country = 'DE'", "score BETWEEN 80 AND 95", "id = 3000"]


@pytest.fixture(scope="module")
def table() -> pl.table.Table:  # type: ignore[name-defined]
    return pl.open_table("data/events20")


def test_one_predicate_gives_one_report_and_a_list_a_list(table: object) -> None:
    one = table.explain(WHERES[0], truth=True)  # type: ignore[attr-defined]
    many = table.explain(WHERES, truth=True)  # type: ignore[attr-defined]
    assert isinstance(many, list) and len(many) == 3
    assert many[0].to_dict() == one.to_dict()
    assert [r.to_dict() for r in many] == [r.to_dict() for r in table.explain_many(WHERES, truth=True)]  # type: ignore[attr-defined]


def test_a_bound_predicate_explains_as_its_text(table: object) -> None:
    bound = parse_where(WHERES[1], table.schema.fields)  # type: ignore[attr-defined]
    assert table.explain(bound).summary() == table.explain(WHERES[1]).summary()  # type: ignore[attr-defined]


def test_this_branch_alone_is_explain_branch(table: object) -> None:
    got = table.explain(WHERES[0], follow_fallback=False)  # type: ignore[attr-defined]
    assert got.summary() == table.explain_branch(WHERES[0]).summary()  # type: ignore[attr-defined]


def test_topn_and_refusals(table: object) -> None:
    topn = table.explain(None, order_by="score DESC", limit=3)  # type: ignore[attr-defined]
    assert topn.summary()["files"] > 0
    with pytest.raises(PaimonLensError, match="go together"):
        table.explain(WHERES[0], order_by="score")  # type: ignore[attr-defined]
    with pytest.raises(PaimonLensError, match="needs a WHERE condition"):
        table.explain(None)  # type: ignore[attr-defined]
    with pytest.raises(PaimonLensError, match="without distributed=True"):
        table.explain(WHERES[0], output="dataframe")  # type: ignore[attr-defined]
