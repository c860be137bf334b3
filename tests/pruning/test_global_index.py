"""Explain on data-evolution tables with global indexes, against pypaimon 2.1's plans and reads.

For every predicate of ``tests/fixtures/pypaimon_global`` and each ``scalar-index.search-mode``,
the files explain plans are the files of pypaimon's plan, the row ids its global index selects are
the row ranges of pypaimon's ``IndexedSplit``s, and (with the ground truth) the matching rows explain
says the reader does not return are exactly those pypaimon's read misses. pypaimon's planner agrees
with Java 2.0's for these predicates (it differs in the coverage of ``full``/``detail`` for fields the
index did not answer, where pypaimon follows later Java code: no predicate here tells them apart).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import paimon_lens as pl
from paimon_lens.formats.global_index.sorted_index import SortedIndex
from paimon_lens.predicate.model import leaves
from tests.conftest import FIXTURES, load_json

GLOBAL = FIXTURES / "pypaimon_global"
ORACLES = sorted(GLOBAL.glob("oracle_*.json"))
MODES = ("fast", "full", "detail")


def _cases() -> list[tuple[Path, str, str]]:
    out = []
    for o in ORACLES:
        for p in load_json(o)["predicates"]:
            out.extend((o, p["sql"], m) for m in MODES)
    return out


CASES = _cases()


def _table(o: dict[str, Any], **kw: Any) -> pl.Table:
    return pl.open_table(str(GLOBAL / "warehouse" / "db.db" / o["table"]), **kw)


def test_cases_cover_every_table() -> None:
    assert len(CASES) >= 250


@pytest.mark.parametrize(("oracle_path", "sql", "mode"), CASES,
                         ids=[f"{o.stem[7:]}-{m}-{s}" for o, s, m in CASES])
def test_plan_and_rows_as_pypaimon(oracle_path: Path, sql: str, mode: str) -> None:
    o = load_json(oracle_path)
    p = next(x for x in o["predicates"] if x["sql"] == sql)
    files = {f["file_name"]: f for f in o["files"]}
    r = _table(o).explain(sql, search_mode=mode, truth=True)
    want_files: set[str] = set()
    want_rows: set[int] = set()  # the row ranges of IndexedSplits
    read_rows: set[int] = set()  # every row id the splits read
    for split in p["plan"][mode]:
        want_files |= set(split["files"])
        for a, b in split.get("row_ranges") or []:
            want_rows |= set(range(a, b + 1))
        if not split.get("row_ranges"):
            for name in split["files"]:
                read_rows |= set(range(files[name]["first_row_id"], files[name]["first_row_id"]
                                       + files[name]["row_count"]))
    read_rows |= want_rows
    assert {v.file_name for v in r.files if v.planned} == want_files
    s = r.summary()
    used = p["global_index"]["index_used"]
    if "_ROW_ID" in sql and not used:  # row-id ranges, or nothing pushed: the pushed ranges are what is read
        assert "global_index" not in s
        for v in r.files:
            if v.read:  # the rows of the file pypaimon's splits read, no more
                first = files[v.file_name]["first_row_id"]
                selected = v.row_count if v.index_selected_rows is None else v.index_selected_rows
                assert selected == len(set(range(first, first + v.row_count)) & read_rows), v.file_name
        assert s["matching_rows"] == len(p["rows_truth"])
        return
    if not used:
        assert "global_index" not in s or not s["global_index"]["used"]
        return
    assert s["global_index"]["used"] and s["global_index"]["search_mode"] == mode
    got_rows = set(r.global_index.rows) if r.global_index.rows is not None else set()
    indexed = {e["global_index"]["index_field_name"] for e in o["index_files"]["entries"] if e["global_index"]}
    if mode != "fast" and not {leaf.field for leaf in leaves(r.predicate)} <= indexed:
        # Java 2.0.0 adds back every row when a referenced column has no index; pypaimon 2.1 (as
        # later Java) only the rows the answering columns' indexes do not cover: a superset here
        assert got_rows & _live_ids({n: files[n] for n in want_files}) >= want_rows
    else:
        assert got_rows & _live_ids({n: files[n] for n in want_files}) == want_rows
    truth, returned = set(p["rows_truth"]), set(p["read"][mode]["row_ids"])
    assert set(s["global_index"]["not_returned_row_ids"]) == truth - returned
    assert s["matching_rows"] == len(truth)


def _live_ids(files: dict[str, dict[str, Any]]) -> set[int]:
    out: set[int] = set()
    for f in files.values():
        out |= set(range(f["first_row_id"], f["first_row_id"] + f["row_count"]))
    return out


def test_funnel_and_reasons_name_the_index() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    r = _table(o).explain("idx = 44")
    # fast search: the file appended after the build is not searched either: every file is dropped
    assert r.summary()["read_files"] == 0 and r.summary()["skipped_by"]["global index"] == 4
    assert any(row["stage"] == "after global index" and row["files"] == 0 for row in r.funnel())
    dropped = [v for v in r.files if v.stage == "global index"]
    assert dropped and all("btree-global-index" in v.reason for v in dropped)
    assert any("no index covers" in n or "not searched" in n for n in r.notes)


def test_fast_search_misses_rows_appended_after_the_build() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    t = _table(o)
    fast = t.explain("idx = 120", truth=True)
    full = t.explain("idx = 120", truth=True, search_mode="full")
    assert fast.summary()["global_index"]["matching_rows_not_returned"] == 2
    assert full.summary()["global_index"]["matching_rows_not_returned"] == 0
    flagged = [v for v in fast.files if any("PAIMON SKIPPED" in f for f in v.flags)]
    assert len(flagged) == 1 and flagged[0].stage == "global index"


def test_paimon_1_4_has_no_search_mode_and_0_9_no_global_index() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    r14 = _table(o, paimon_version="1.4").explain("idx = 120", search_mode="full")
    assert r14.summary()["global_index"]["search_mode"] == "fast"
    r13 = _table(o, paimon_version="1.3").explain("idx = 120")
    assert "global_index" not in r13.summary() and not any(v.stage == "global index" for v in r13.files)


def test_or_with_an_unindexed_column_is_not_answered() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    r = _table(o).explain("idx = 120 OR name = 'n7'")
    assert not r.summary()["global_index"]["used"]
    assert any("not answered" in n for n in r.notes)
    assert not any(v.stage == "global index" for v in r.files)


def copy_with_options(tmp_path: Path, options: dict[str, str]) -> Path:
    """A copy of gi_basic whose latest schema also sets ``options``."""
    import json
    import shutil

    dst = tmp_path / "gi_basic"
    shutil.copytree(GLOBAL / "warehouse" / "db.db" / "gi_basic", dst)
    schema = max((dst / "schema").iterdir(), key=lambda p: int(p.name.split("-")[1]))
    doc = json.loads(schema.read_text())
    doc["options"].update(options)
    schema.write_text(json.dumps(doc))
    return dst


def test_range_gate(tmp_path: Path) -> None:
    """A range leaf is answered only when the candidate files fit btree-index.fallback-scan-max-size."""
    dst = copy_with_options(tmp_path, {"btree-index.fallback-scan-max-size": "10 b"})
    t = pl.open_table(str(dst))
    assert not t.explain("idx > 400").summary()["global_index"]["used"]
    assert t.explain("idx = 120").summary()["global_index"]["used"]  # equality is never gated
    assert pl.open_table(str(dst), paimon_version="1.4").explain("idx > 400").summary()["global_index"]["used"]


def test_decoded_index_answers_match_brute_force() -> None:
    """Every key of every btree / bitmap file selects exactly the rows holding it (table rows)."""
    from paimon_lens.inventory.global_indexes import global_index_files, open_global_index

    for oracle_path in ORACLES:
        o = load_json(oracle_path)
        if o["table"] in ("gi_update_ignore",):
            continue  # its index is stale on purpose
        t = _table(o)
        rows = {r["_ROW_ID"]: r for r in o["rows"]}
        for g in global_index_files(t.reader):
            idx = open_global_index(t.reader, g)
            assert isinstance(idx, SortedIndex)
            for key, ids in zip(idx.keys, idx.rows):
                for local in ids:
                    assert rows[g.row_range_start + local][g.column] == key


def test_distributed_explain_refuses_what_it_does_not_apply() -> None:
    from paimon_lens.errors import PaimonLensError

    t = _table(load_json(GLOBAL / "oracle_gi_basic.json"))
    with pytest.raises(PaimonLensError, match="global or primary-key indexes"):
        t.explain_distributed("idx = 120")


def test_a_malformed_gate_option_is_named(tmp_path: Path) -> None:
    from paimon_lens.errors import PaimonLensError

    dst = copy_with_options(tmp_path, {"btree-index.fallback-scan-max-size": "lots"})
    with pytest.raises(PaimonLensError, match=r"btree-index\.fallback-scan-max-size = 'lots'"):
        pl.open_table(str(dst)).explain("idx > 400")


def test_row_id_in_an_or_by_release() -> None:
    """2.0 pushes nothing of an OR naming _ROW_ID; 1.4 dropped the _ROW_ID leaf from the OR, which
    narrows the filter and loses the rows it named."""
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    where = "_ROW_ID = 1 OR idx = 120"
    truth = sum(1 for row in o["rows"] if row["_ROW_ID"] == 1 or row["idx"] == 120)
    r20 = _table(o).explain(where, truth=True)
    s20 = r20.summary()
    assert s20["matching_rows"] == truth and "row_id_ranges" not in s20 and "global_index" not in s20
    assert s20["read_files"] == 4 and s20["skipped_files_with_match"] == 0
    r14 = _table(o, paimon_version="1.4").explain(where, truth=True)
    s14 = r14.summary()
    assert s14["global_index"]["used"]  # idx = 120 alone goes to the global index
    assert s14["global_index"]["matching_rows_not_returned"] >= 1  # row 1 (and the rows after the build)
    assert 1 in s14["global_index"]["not_returned_row_ids"]


def test_row_id_needs_row_tracking() -> None:
    from paimon_lens.errors import PaimonLensError

    plain = pl.open_table(str(Path(__file__).parent.parent.parent / "data" / "events20"))
    with pytest.raises(PaimonLensError, match="_ROW_ID"):
        plain.explain("_ROW_ID = 3")


def _with_legacy_bitmap(tmp_path: Path) -> Path:
    """A copy of gi_basic whose bitmap global index is in Paimon 1.4's layout (the file-index
    bitmap, written by paimon-lens's byte-identical writer over the same rows, no _INDEX_META)."""
    import fastavro

    from paimon_lens.formats.bitmap import BitmapIndexWriter
    from paimon_lens.types import parse_type
    from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, avro_bytes

    o = load_json(GLOBAL / "oracle_gi_basic.json")
    dst = copy_with_options(tmp_path, {})
    entry = next(e for e in o["index_files"]["entries"] if e["index_type"] == "bitmap")
    rows = sorted(o["rows"], key=lambda r: r["_ROW_ID"])
    start, end = entry["global_index"]["row_range_start"], entry["global_index"]["row_range_end"]
    writer = BitmapIndexWriter(parse_type("STRING"))
    writer.write_all([r["category"] for r in rows if start <= r["_ROW_ID"] <= end])
    data = writer.serialized_bytes()
    (dst / "index" / entry["file_name"]).write_bytes(data)
    manifest = dst / "manifest" / o["index_files"]["index_manifest"]
    with open(manifest, "rb") as fh:
        records = list(fastavro.reader(fh))
    for r in records:
        if r["_FILE_NAME"] == entry["file_name"]:
            r["_FILE_SIZE"] = len(data)
            r["_GLOBAL_INDEX"]["_INDEX_META"] = None
    manifest.write_bytes(avro_bytes(INDEX_MANIFEST_SCHEMA, records))
    return dst


def test_paimon_1_4_bitmap_global_index_layout(tmp_path: Path) -> None:
    t14 = pl.open_table(str(_with_legacy_bitmap(tmp_path)), paimon_version="1.4")
    frame = t14.global_indexes()
    row = frame[frame["index_type"] == "bitmap"].iloc[0]
    assert row["payload"] == "decoded" and pd.isna(row["error"]) and row["keys"] == 4
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    beta = [r["_ROW_ID"] for r in o["rows"] if r["category"] == "beta" and r["_ROW_ID"] < 100]
    r = t14.explain("category = 'beta'")
    assert sorted(r.global_index.rows) == sorted(beta)
    covered = [r for r in o["rows"] if r["_ROW_ID"] < 100]
    not_beta = [x["_ROW_ID"] for x in covered if x["category"] != "beta"]  # nulls included: 1.4 flips
    assert sorted(t14.explain("category <> 'beta'").global_index.rows) == sorted(not_beta)
    assert not t14.explain("category > 'b'").summary()["global_index"]["used"]  # ranges: not answered


def test_unreadable_index_meta_is_said_and_the_file_still_searched(tmp_path: Path) -> None:
    import fastavro

    from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, avro_bytes

    o = load_json(GLOBAL / "oracle_gi_basic.json")
    dst = copy_with_options(tmp_path, {})
    manifest = dst / "manifest" / o["index_files"]["index_manifest"]
    with open(manifest, "rb") as fh:
        records = list(fastavro.reader(fh))
    for r in records:
        if r["_INDEX_TYPE"] == "btree":
            r["_GLOBAL_INDEX"]["_INDEX_META"] = b"\xff\xff\xff\x7f"  # a first-key length past the end
    manifest.write_bytes(avro_bytes(INDEX_MANIFEST_SCHEMA, records))
    t = pl.open_table(str(dst))
    frame = t.global_indexes()
    assert "first_key_length" in frame[frame["index_type"] == "btree"].iloc[0]["error"]
    r = t.explain("idx = 120")
    assert sorted(r.global_index.rows) == sorted(_table(o).explain("idx = 120").global_index.rows)
    assert any("searched without its key range" in n for n in r.notes)
