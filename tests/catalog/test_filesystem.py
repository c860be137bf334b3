"""The filesystem catalog: databases, tables and db.table identifiers over a warehouse directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.catalog.filesystem import split_identifier
from paimon_lens.errors import PaimonLensError, TableNotFoundError
from paimon_lens.presentation.cli import main
from tests.conftest import FIXTURES

PYPAIMON = FIXTURES / "pypaimon" / "warehouse"
JAVA = FIXTURES / "tables" / "a_append_indexed" / "warehouse"


def test_databases_tables_and_identifiers() -> None:
    catalog = pl.open_catalog(str(PYPAIMON))
    assert catalog.databases() == ["db"]
    tables = catalog.tables("db")
    assert "pk_dv_in_data_dir" in tables and "type_evolution" in tables
    assert all((PYPAIMON / "db.db" / t / "schema").is_dir() for t in tables)
    assert catalog.identifiers() == [f"db.{t}" for t in tables]
    assert pl.open_catalog(str(JAVA)).identifiers() == ["db.events_external", "db.events_mixed"]


def test_a_table_opens_as_by_its_path() -> None:
    catalog = pl.open_catalog(str(JAVA))
    by_name = catalog.table("db.events_mixed", snapshot=2)
    by_path = pl.open_table(str(JAVA / "db.db" / "events_mixed"), snapshot=2)
    assert by_name.snapshot_id == by_path.snapshot_id == 2
    assert by_name.files().equals(by_path.files())


def test_what_is_not_there_is_named(tmp_path: Path) -> None:
    catalog = pl.open_catalog(str(PYPAIMON))
    with pytest.raises(TableNotFoundError, match="databases are db"):
        catalog.tables("nope")
    with pytest.raises(TableNotFoundError, match="tables are append_dv_in_data_dir"):
        catalog.table("db.nope")
    with pytest.raises(TableNotFoundError, match="does not exist"):
        pl.open_catalog(str(tmp_path / "missing"))
    with pytest.raises(PaimonLensError, match=r"expected database\.table"):
        catalog.table("just_a_name")
    (tmp_path / "db.db" / "not_a_table").mkdir(parents=True)  # a directory without schema files
    shutil.copytree(JAVA / "db.db" / "events_mixed", tmp_path / "db.db" / "events")
    assert pl.open_catalog(str(tmp_path)).tables("db") == ["events"]


def test_identifiers_with_quoted_dots() -> None:
    assert split_identifier("db.t") == ("db", "t")
    assert split_identifier("`my.db`.`t.1`") == ("my.db", "t.1")
    for bad in ("a.b.c", ".t", "db.", "`db.t"):
        with pytest.raises(PaimonLensError):
            split_identifier(bad)


def test_cli_takes_db_table_with_a_warehouse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["files", "db.events_mixed", "--warehouse", str(JAVA), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["table"].endswith("db.db/events_mixed") and doc["files"]
    assert main(["explain", "db.events_mixed", "--warehouse", str(JAVA), "--where", "id = 3", "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["files"] == len(doc["files"])
    assert main(["findings", "db.nope", "--warehouse", str(JAVA)]) == 2
    assert "no table 'nope'" in capsys.readouterr().err


def test_open_table_takes_a_path_object_as_a_string() -> None:
    """``pathlib.Path`` is how notebooks name directories: it opens the same table as its string."""
    from paimon_lens import open_table

    here = Path(__file__).resolve().parents[2] / "data" / "events20"
    by_path, by_str = open_table(here), open_table(str(here))
    assert by_path.path == by_str.path and by_path.snapshot_id == by_str.snapshot_id
    assert len(by_path.files()) == len(by_str.files())
