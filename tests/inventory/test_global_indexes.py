"""The global index inventory of a snapshot: files, coverage, keys, and the ``indexes`` command,
against the tables pypaimon 2.1 wrote with global indexes (``tests/fixtures/pypaimon_global``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import paimon_lens as pl
from paimon_lens.presentation.cli import main
from tests.conftest import FIXTURES, load_json
from tests.presentation.test_frame_columns import check_frame

GLOBAL = FIXTURES / "pypaimon_global"
ORACLES = sorted(GLOBAL.glob("oracle_*.json"))


def _table(name: str) -> pl.Table:
    return pl.open_table(str(GLOBAL / "warehouse" / "db.db" / name))


@pytest.mark.parametrize("oracle_path", ORACLES, ids=lambda p: p.stem[len("oracle_"):])
def test_inventory_lists_every_index_file(oracle_path: Path) -> None:
    o = load_json(oracle_path)
    t = _table(o["table"])
    frame = t.global_indexes()
    from paimon_lens.presentation import frame_columns as fc
    check_frame(frame, fc.GLOBAL_INDEX_COLUMNS, "global_indexes")
    want = {e["file_name"]: e for e in o["index_files"]["entries"] if e["global_index"]}
    assert set(frame["file_name"]) == set(want)
    for row in frame.to_dict("records"):
        e = want[row["file_name"]]
        g = e["global_index"]
        assert (row["index_type"], row["column"], row["field_id"]) == (e["index_type"], g["index_field_name"],
                                                                      g["index_field_id"])
        assert (row["first_row_id"], row["last_row_id"], row["row_count"]) == (g["row_range_start"],
                                                                              g["row_range_end"], e["row_count"])
        assert row["kind"] == "global" and row["payload"] == "decoded" and row["error"] is None
        assert row["min_key"] == g["decoded_meta"]["first_key"] and row["has_nulls"] == g["decoded_meta"]["has_nulls"]
        built = [h["snapshot_id"] for h in o["history"] if row["file_name"] in (h.get("index_files") or [])
                 or (h.get("index_files_added") and h["index_manifest"] and row["file_name"] in json.dumps(h))]
        assert row["added_snapshot"] >= 1 and (not built or row["added_snapshot"] == built[0])
    check_frame(t.global_index_coverage(), fc.GLOBAL_INDEX_COVERAGE_COLUMNS, "coverage")
    check_frame(t.global_index_keys(), fc.GLOBAL_INDEX_KEY_COLUMNS, "keys")


def test_added_snapshot_is_the_build() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    builds = [h["snapshot_id"] for h in o["history"] if "create_global_index" in h["action"]]
    frame = _table("gi_basic").global_indexes()
    assert sorted(frame["added_snapshot"]) == builds and not frame["added_at_or_before"].any()


def test_rows_appended_after_the_build_are_uncovered() -> None:
    o = load_json(GLOBAL / "oracle_gi_basic.json")
    cov = _table("gi_basic").global_index_coverage()
    last = max(o["files"], key=lambda f: f["first_row_id"])
    rows = cov[cov["data_file"] == last["file_name"]]
    assert set(rows["status"]) == {"uncovered"} and set(rows["uncovered_rows"]) == {last["row_count"]}
    assert (cov[cov["data_file"] != last["file_name"]]["status"] == "covered").all()


def test_rewritten_column_is_stale_and_dropped_index_is_gone() -> None:
    cov = _table("gi_update_ignore").global_index_coverage()
    stale = cov[cov["status"] == "stale"]
    assert len(stale) == 2 and set(stale["column"]) == {"k"}
    assert all("rewritten" in r or "after the index was built" in r for r in stale["reason"])
    dropped = _table("gi_update_drop").global_indexes()
    assert list(dropped["column"]) == ["color"]  # DROP_PARTITION_INDEX took k's index out of the manifest


def test_keys_frame_has_global_row_ids() -> None:
    o = load_json(GLOBAL / "oracle_gi_two_builds.json")
    keys = _table("gi_two_builds").global_index_keys("k")
    case = next(c for c in o["index_contents"] if c["column"] == "k" and c["row_range"][0] > 0)
    mine = keys[keys["file_name"] == case["file_name"]]
    first = next(k for k in case["keys"])
    row = mine[mine["value"] == first["key"]].iloc[0]
    assert row["rows"] == len(first["row_ids"]) and list(row["first_row_ids"]) == sorted(first["row_ids"])[:8]


def test_cli_indexes_lists_global_indexes(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(GLOBAL / "warehouse" / "db.db" / "gi_basic")
    assert main(["indexes", path, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {g["index_type"] for g in doc["global_indexes"]} == {"btree", "bitmap"}
    assert {c["status"] for c in doc["global_index_coverage"]} == {"covered", "uncovered"}
    assert "files" in doc  # the file-index document is unchanged
    assert main(["indexes", path]) == 0
    text = capsys.readouterr().out
    assert "global and primary-key indexes" in text and "uncovered" in text


def test_missing_index_file_is_an_error_on_its_row(tmp_path: Path) -> None:
    import shutil

    dst = tmp_path / "gi_basic"
    shutil.copytree(GLOBAL / "warehouse" / "db.db" / "gi_basic", dst)
    victim = next((dst / "index").glob("btree-*"))
    victim.unlink()
    frame = pl.open_table(str(dst)).global_indexes()
    row = frame[frame["index_type"] == "btree"].iloc[0]
    assert row["error"] and victim.name in row["error"] and pd.isna(row["keys"]) and row["payload"] == "not decoded"
    assert main(["indexes", str(dst)]) == 1


def test_report_and_explorer_show_global_indexes() -> None:
    from paimon_lens.presentation.report import build_report, global_indexes_section

    t = _table("gi_partitioned")
    html = build_report(t).html
    assert "Global and primary-key indexes" in html and "bitmap-global-index-" in html
    section = global_indexes_section(t)
    assert section is not None and not section.errors
    o = load_json(GLOBAL / "oracle_gi_partitioned.json")
    covered: dict[tuple[int, str], set[int]] = {}
    for e in o["index_files"]["entries"]:
        g = e["global_index"]
        covered.setdefault((g["index_field_id"], e["index_type"]), set()).update(
            range(g["row_range_start"], g["row_range_end"] + 1))
    gaps = [f for f in o["files"] if any(not set(range(f["first_row_id"], f["first_row_id"] + f["row_count"])) <= ids
                                         for ids in covered.values())]
    assert dict(section.facts)["data files not fully covered"] == str(len(gaps)) and gaps
    plain = pl.open_table(str(Path(__file__).parent.parent.parent / "data" / "events20"))
    assert global_indexes_section(plain) is None
    assert "Global and primary-key indexes" not in build_report(plain).html


def test_expired_build_snapshot_is_said_not_guessed(tmp_path: Path) -> None:
    """With the snapshots up to the build expired, the build snapshot and a rewrite are not guessed."""
    import shutil

    dst = tmp_path / "gi_update_ignore"
    shutil.copytree(GLOBAL / "warehouse" / "db.db" / "gi_update_ignore", dst)
    for sid in (1, 2, 3):
        (dst / "snapshot" / f"snapshot-{sid}").unlink()
    (dst / "snapshot" / "EARLIEST").write_text("4")
    t = pl.open_table(str(dst))
    frame = t.global_indexes()
    btree = frame[frame["index_type"] == "btree"].iloc[0]
    assert btree["added_snapshot"] == 4 and btree["added_at_or_before"]  # the oldest retained snapshot
    cov = t.global_index_coverage()
    assert set(cov[cov["column"] == "k"]["status"]) == {"covered", "stale"}  # the rewrites came after 4
    snap4 = json.loads((dst / "snapshot" / "snapshot-4").read_text())
    (dst / "manifest" / snap4["baseManifestList"]).unlink()  # snapshot 4's files can no longer be listed
    k = pl.open_table(str(dst)).global_index_coverage()
    k = k[k["column"] == "k"]
    assert "stale" not in set(k["status"]) and k["reason"].str.contains("is unknown").sum() == 2


def test_es_index_meta_is_in_the_inventory(tmp_path: Path) -> None:
    """An ``es-index`` file (Lucene archive, Paimon 2.0) shows what its ``_INDEX_META`` says: the indexed
    columns, their configurations and the archive's files; its payload is not decoded; a meta that
    does not parse is an error on its row naming the field."""
    import shutil

    import fastavro

    from paimon_lens.formats.global_index.es_meta import ESFieldConfig
    from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, avro_bytes
    from tests.formats.test_es_meta import encode

    dst = tmp_path / "gi_basic"
    shutil.copytree(GLOBAL / "warehouse" / "db.db" / "gi_basic", dst)
    t = pl.open_table(str(dst))
    snap_path = dst / "snapshot" / f"snapshot-{t.snapshot_id}"
    snap = json.loads(snap_path.read_text())
    with open(dst / "manifest" / snap["indexManifest"], "rb") as fh:
        records = list(fastavro.reader(fh))
    name = t.schema.field("name")
    configs = {"name": ESFieldConfig("FULLTEXT", None, 0, None, "STANDARD", None, {}),
               "name.keyword": ESFieldConfig("KEYWORD", None, 0, None, None, None, {})}
    meta = encode(2, [("name", "STRING")], configs, {"_0.cfs": (26, 300), "segments_1": (340, 120)})
    template = next(r for r in records if r["_GLOBAL_INDEX"] is not None)
    for file_name, index_meta in (("es-index-good.index", meta), ("es-index-bad.index", meta[:-3])):
        (dst / "index" / file_name).write_bytes(b"\0" * 500)
        records.append({**template, "_INDEX_TYPE": "es-index", "_FILE_NAME": file_name, "_FILE_SIZE": 500,
                        "_GLOBAL_INDEX": {**template["_GLOBAL_INDEX"], "_INDEX_FIELD_ID": name.id,
                                          "_INDEX_META": index_meta}})
    (dst / "manifest" / snap["indexManifest"]).write_bytes(avro_bytes(INDEX_MANIFEST_SCHEMA, records))
    frame = pl.open_table(str(dst)).global_indexes().set_index("file_name")
    good, bad = frame.loc["es-index-good.index"], frame.loc["es-index-bad.index"]
    assert good["column"] == "name" and good["payload"] == "not decoded" and not isinstance(good["error"], str)
    options = good["index_options"]
    assert options["indexed_fields"] == [{"name": "name", "type": "STRING"}]
    assert options["field_configs"]["name"]["analyzer"] == "STANDARD"
    assert set(options["field_configs"]) == {"name", "name.keyword"}
    assert options["lucene_files"] == 2 and options["lucene_bytes"] == 420
    assert bad["index_options"] is None and "es-index-bad.index" in bad["error"]
    assert "at byte 169: bad _INDEX_META.files[1].length" in bad["error"]  # the file, the offset, the field
