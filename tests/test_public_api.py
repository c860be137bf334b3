"""The public surface: typed (py.typed), and ``paimon_lens.open_table`` the table's own parameters."""

from __future__ import annotations

import inspect
import pathlib
import tomllib

import paimon_lens
from paimon_lens.table import facade

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_open_table_takes_the_parameters_of_the_table_facade() -> None:
    ours, theirs = inspect.signature(paimon_lens.open_table), inspect.signature(facade.open_table)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "paimon_lens" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["paimon_lens"]


def test_public_functions_return_concrete_types() -> None:
    for name in ("open_table", "open_catalog", "report", "recommend", "explore", "workload_from_sql_history",
                 "workload_from_spark_event_logs"):
        ret = inspect.signature(getattr(paimon_lens, name)).return_annotation
        assert ret not in ("Any", inspect.Signature.empty), f"paimon_lens.{name} returns {ret!r}"
