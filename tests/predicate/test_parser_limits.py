"""Hostile conditions: deep nesting is a PredicateError (never a RecursionError), long flat
conditions parse in linear time, and a workload with such a line still gives its report."""

from __future__ import annotations

import pytest

import paimon_lens as pl
from paimon_lens.predicate.parser import MAX_DEPTH, PredicateError, parse_where
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


def _nested(n: int) -> str:
    return "".join(f"(id = {i} {'AND' if i % 2 else 'OR'} " for i in range(n)) + "id = 1" + ")" * n


@pytest.mark.parametrize("text", ["(" * 300 + "id = 1" + ")" * 300, "NOT " * 1000 + "id = 1", _nested(2000),
                                  _nested(MAX_DEPTH + 5)])
def test_deep_nesting_is_a_predicate_error(text: str) -> None:
    t = pl.open_table(str(EVENTS20))
    with pytest.raises(PredicateError, match="nested too deeply"):
        parse_where(text, t.schema.fields)


def test_nesting_below_the_limit_explains() -> None:
    """``(c AND (c OR (c AND ...)))`` is ``c``: the deep form explains with the same answer."""
    t = pl.open_table(str(EVENTS20))
    n = MAX_DEPTH - 5
    deep = "".join(f"(country = 'DE' {'AND' if i % 2 else 'OR'} " for i in range(n)) + "country = 'DE'" + ")" * n
    want = t.explain("country = 'DE'", truth=True).summary()
    got = t.explain(deep, truth=True).summary()
    assert got["matching_rows"] == want["matching_rows"] > 0


def test_report_goes_on_past_a_hostile_workload_line() -> None:
    t = pl.open_table(str(EVENTS20))
    report = pl.report(t, workload=["country = 'DE'", "NOT " * 1000 + "id = 1"])
    errors = [e for s in report.sections for e in s.errors]
    assert any("nested too deeply" in e for e in errors)
    assert report.sections


@pytest.mark.parametrize("text", ["country = '\ud800'", "country IN ('DE',\n '\udc00x')", "country LIKE '\ud800%'",
                                  "country > '\udfff'"])
def test_lone_surrogate_is_a_predicate_error(text: str) -> None:
    """A lone surrogate has no UTF-8 bytes: a PredicateError pointing at it, never a UnicodeEncodeError
    (from the Python API, the CLI's JSON or a rendered report)."""
    t = pl.open_table(str(EVENTS20))
    with pytest.raises(PredicateError, match=r"lone surrogate U\+D[8-F]") as e:
        t.explain(text, truth=True)
    str(e.value).encode("utf-8")  # the message itself is printable
    assert e.value.start is not None and text[e.value.start] == e.value.fragment
    assert e.value.line == text.count("\n", 0, e.value.start) + 1


def test_lone_surrogate_in_a_builder_literal() -> None:
    from paimon_lens.predicate.builder import col

    with pytest.raises(PredicateError, match=r"lone surrogate U\+DC00"):
        col("country") == "a\udc00"  # noqa: B015
