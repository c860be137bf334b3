"""Findings, recommendations and history that see global and primary-key indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.advisor.global_findings import global_index_findings
from tests.conftest import FIXTURES, load_json
from tests.pruning.test_pk_index import with_pk_index

GLOBAL = FIXTURES / "pypaimon_global" / "warehouse" / "db.db"


def oracle_coverage(name: str) -> tuple[dict[str, int], int]:
    """From the oracle's index-manifest entries: rows each ``type(column)`` covers, and nextRowId."""
    o = load_json(FIXTURES / "pypaimon_global" / f"oracle_{name}.json")
    ids: dict[str, set[int]] = {}
    for e in o["index_files"]["entries"]:
        g = e["global_index"]
        label = f"{e['index_type']}({g['index_field_name']})"
        ids.setdefault(label, set()).update(range(g["row_range_start"], g["row_range_end"] + 1))
    return {k: len(v) for k, v in sorted(ids.items())}, o["next_row_id"]


def test_uncovered_rows_are_one_finding_per_index_with_the_build_statement() -> None:
    t = pl.open_table(str(GLOBAL / "gi_partitioned"))
    found = global_index_findings(t.reader)
    kinds = {(f.kind, f.details["column"]) for f in found}
    assert kinds == {("global-index-coverage", "tag"), ("global-index-coverage", "amount"),
                     ("global-index-coverage", "code")}
    tag = next(f for f in found if f.details["column"] == "tag")
    covered, next_row_id = oracle_coverage("gi_partitioned")
    assert tag.details["rows"] == next_row_id - covered["bitmap(tag)"] and tag.score > 0
    assert tag.statements == ("CALL sys.create_global_index(table => 'db.gi_partitioned', index_column => 'tag', "
                              "index_type => 'bitmap', partitions => 'dt=2024-01-01;dt=2024-01-02;dt=2024-01-03')",)
    assert list(t.findings()["kind"]).count("global-index-coverage") == 3


def test_stale_index_is_dropped_and_built_again() -> None:
    found = global_index_findings(pl.open_table(str(GLOBAL / "gi_update_ignore")).reader)
    assert [f.kind for f in found] == ["global-index-stale"]
    assert found[0].statements[0].startswith("CALL sys.drop_global_index(") and "index_column => 'k'" in \
        found[0].statements[0]
    assert found[0].statements[1].startswith("CALL sys.create_global_index(")


def test_covered_table_has_no_global_index_finding() -> None:
    assert global_index_findings(pl.open_table(str(GLOBAL / "gi_update_drop")).reader) == []


def test_primary_key_files_outside_the_index_are_one_finding(tmp_path: Path) -> None:
    t = pl.open_table(str(with_pk_index(tmp_path / "orders")))
    found = global_index_findings(t.reader)
    assert [f.kind for f in found] == ["pk-index-coverage"]
    assert found[0].details["files"] == 1 and "compact_strategy => 'full'" in found[0].statements[0]


def test_recommend_never_adds_a_file_index_a_global_index_serves(tmp_path: Path) -> None:
    wl = tmp_path / "wl.sql"
    wl.write_text("idx = 44\nidx = 120\ncategory = 'beta'\nname = 'n7'\n")
    advice = pl.recommend(pl.open_table(str(GLOBAL / "gi_basic")), str(wl))
    by_col = {r.column: r for r in advice.recommendations}
    assert by_col["idx"].action == "none" and by_col["category"].action == "none"
    assert "global index of idx already serves" in by_col["idx"].reason
    assert by_col["name"].action == "add"  # no global index on name: a file index still pays
    statements = " ".join(advice.statements())
    assert "'idx'" not in statements and "category" not in statements


def test_history_shows_global_index_coverage_per_snapshot() -> None:
    h = pl.open_table(str(GLOBAL / "gi_partitioned")).history().frame()
    last = h.iloc[-1]
    covered, next_row_id = oracle_coverage("gi_partitioned")
    assert last["global_index_coverage"] == covered
    assert last["global_index_uncovered_rows"] == {k: next_row_id - n for k, n in covered.items()}
    assert h.iloc[0]["global_index_coverage"] == {}


def test_recommend_proposes_a_global_index_where_it_prunes_more(tmp_path: Path) -> None:
    """On a data-evolution table, a btree global index replaces a column's file-index advice when it
    avoids clearly more bytes; its gain is the bytes of the files the query reads that hold no match."""
    wl = tmp_path / "wl.sql"
    wl.write_text("name = 'n7'\nname = 'n99'\nidx = 120\n")
    t = pl.open_table(str(GLOBAL / "gi_basic"))
    file_only = {r.column: r for r in pl.recommend(t, str(wl)).recommendations}
    assert file_only["name"].scope == "file"  # a bloom filter prunes as much here: no global index
    advice = pl.recommend(t, str(wl), index_types=["btree"])  # size a btree global index only
    by_col = {r.column: r for r in advice.recommendations}
    name = by_col["name"]
    assert (name.scope, name.action, name.index_type) == ("global", "add", "btree")
    expected = []
    for where in ("name = 'n7'", "name = 'n99'"):
        r = t.explain(where, index_enabled=False, truth=True)
        expected.append(sum(v.file_size for v in r.files if v.read and not v.matching_rows))
    assert name.bytes_avoided_per_query == pytest.approx(sum(expected) / 2)
    assert by_col["idx"].scope == "file"  # it has a global index already
    assert "CALL sys.create_global_index(table => 'db.gi_basic', index_column => 'name', index_type => 'btree')" \
        in advice.statements()
    assert not any("file-index.bloom-filter.columns" in s and "name" in s for s in advice.statements())
    assert advice.to_dict()["recommendations"][0]["scope"] in ("file", "global")


def test_no_global_index_advice_without_data_evolution() -> None:
    advice = pl.recommend(pl.open_table(str(Path(__file__).parent.parent.parent / "data" / "events20")),
                          str(Path(__file__).parent.parent.parent / "data" / "events20.workload.sql"))
    assert all(r.scope == "file" for r in advice.recommendations)
    assert not any("create_global_index" in s for s in advice.statements())
