"""The %paimon_explain magic on a real IPython shell."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.testing.globalipapp import get_ipython

import paimon_lens
from paimon_lens.presentation.magic import split_select, split_where
from paimon_lens.pruning.explain import ExplainReport


@pytest.fixture(scope="module")
def ip() -> Any:
    shell = get_ipython()
    shell.run_line_magic("load_ext", "paimon_lens")
    return shell


def test_line_magic_path_and_options(ip: Any) -> None:
    report = ip.run_line_magic("paimon_explain", "--truth data/events20 WHERE country = 'DE' AND score > 50")
    assert isinstance(report, ExplainReport)
    assert report.truth
    expected = paimon_lens.open_table("data/events20").explain("country = 'DE' AND score > 50")
    assert [f.read for f in report.files] == [f.read for f in expected.files]


def test_line_magic_variable_snapshot_and_out(ip: Any) -> None:
    ip.user_ns["events"] = paimon_lens.open_table("data/events20")
    report = ip.run_line_magic("paimon_explain", "-s 2 -o rep events where id = 1000")
    assert ip.user_ns["rep"] is report
    assert report.table.snapshot_id == 2
    ip.user_ns["events_path"] = "data/events20"
    assert ip.run_line_magic("paimon_explain", "events_path WHERE id = 1000").table.snapshot_id == 6


def test_line_magic_no_index(ip: Any) -> None:
    on = ip.run_line_magic("paimon_explain", "data/events20 WHERE country = 'DE'")
    off = ip.run_line_magic("paimon_explain", "--no-index data/events20 WHERE country = 'DE'")
    assert off.summary()["read_files"] >= on.summary()["read_files"]
    # with file-index.read.enabled = false only partition and stats prune (append table, no DVs)
    assert all(f.read == bool(f.stats_keep) for f in off.files)


def test_cell_magic(ip: Any) -> None:
    report = ip.run_cell_magic("paimon_explain", "--truth -o cell_rep",
                               "SELECT order_id, qty\nFROM `data/orders_dv20`\n"
                               "WHERE status = 'pending' AND qty > 3\nORDER BY order_id LIMIT 10;")
    assert isinstance(report, ExplainReport)
    assert report.where == "status = 'pending' AND qty > 3"
    assert ip.user_ns["cell_rep"] is report


def test_magic_result_displays_as_html(ip: Any) -> None:
    result = ip.run_cell("%paimon_explain data/events20 WHERE country = 'DE'")
    assert result.success
    html = ip.display_formatter.formatters["text/html"]
    enabled, html.enabled = html.enabled, True  # a terminal shell has HTML output switched off
    try:
        data, _ = ip.display_formatter.format(result.result)
    finally:
        html.enabled = enabled
    assert "text/html" in data and "after stats" in data["text/html"]


@pytest.mark.parametrize(("line", "message"), [
    ("data/events20 country = 'DE'", "no WHERE"),
    ("WHERE id = 1", "no table before WHERE"),
    ("no/such/table WHERE id = 1", "cannot open table"),
    ("data/events20 WHERE nope = 1", "unknown column 'nope'"),
    ("data/events20 WHERE ", "WHERE clause is empty"),
    ("data/events20 WHERE id = ", "id ="),
    ("-s 99 data/events20 WHERE id = 1", "99"),
    ("-o 1x data/events20 WHERE id = 1", "variable name"),
])
def test_line_magic_errors(ip: Any, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        ip.run_line_magic("paimon_explain", line)


def test_magic_error_on_non_table_variable(ip: Any) -> None:
    ip.user_ns["number"] = 42
    with pytest.raises(UsageError, match="not a paimon_lens Table"):
        ip.run_line_magic("paimon_explain", "number WHERE id = 1")


@pytest.mark.parametrize(("cell", "message"), [
    ("SELECT * FROM t", "no WHERE clause"),
    ("DELETE FROM t WHERE a = 1", "SELECT"),
    ("SELECT 1 WHERE a = 1", "no FROM"),
    ("SELECT * FROM 'unterminated WHERE a = 1", "cannot read"),
])
def test_cell_magic_errors(ip: Any, cell: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("paimon_explain", "", cell)
    with pytest.raises(UsageError, match="options only"):
        ip.run_cell_magic("paimon_explain", "data/events20", "SELECT * FROM t WHERE a = 1")


def test_split_where() -> None:
    assert split_where("t WHERE a = 1") == ("t ", " a = 1")
    assert split_where("`where x` where b = 'WHERE'") == ("`where x` ", " b = 'WHERE'")
    assert split_where("nowhere = 1") is None
    assert split_where("t wherever") is None


def test_split_select() -> None:
    assert split_select("SELECT a FROM `x y/t` WHERE (a IN (SELECT 1)) AND b = 2 GROUP BY a") == (
        "x y/t", "(a IN (SELECT 1)) AND b = 2")
    assert split_select("select * from db.t where a = 'ORDER BY' limit 3") == ("db.t", "a = 'ORDER BY'")
