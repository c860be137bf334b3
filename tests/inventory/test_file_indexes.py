"""Table-level file indexes: every fixture table's indexes as Paimon lists them, decoded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.inventory.file_indexes import table_file_indexes
from tests.conftest import FIXTURES, load_json, oracle_paths

ORACLES = oracle_paths()


def _dir(oracle: Path) -> Path:
    return oracle.parent / load_json(oracle)["table"]["path"]


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_index_types_and_sizes_match_oracle(oracle: Path) -> None:
    o = load_json(oracle)
    infos = table_file_indexes(pl.open_table(str(_dir(oracle))).reader)
    assert not [i.error for i in infos if i.error]
    got: dict[str, dict[str, dict[str, int]]] = {}
    for i in infos:
        got.setdefault(i.file.entry.file.file_name, {}).setdefault(i.column, {})[i.index_type] = i.bytes
    for f in o["files"]:
        assert got.get(f["file_name"], {}) == (f["file_index"].get("columns") or {}), f["file_name"]


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda p: p.stem[7:])
def test_summaries_agree_with_the_data(oracle: Path) -> None:
    """Row counts in every decoded index equal the data file's row count."""
    infos = table_file_indexes(pl.open_table(str(_dir(oracle))).reader)
    for i in infos:
        s = i.summary()
        if "row_count" in s:
            assert s["row_count"] == i.file.entry.file.row_count, (i.file.entry.file.file_name, i.column)


def test_frames() -> None:
    t = pl.open_table(str(FIXTURES / "tables20/a20_append_indexed/warehouse/db.db/events20"))
    frame = t.file_indexes()
    assert set(frame.index_type) == {"bloom-filter", "bitmap", "range-bitmap", "bsi"}
    assert set(frame.storage) == {"embedded", "external"}
    blooms = t.bloom_filters()
    assert set(blooms.index_type) == {"bloom-filter"} and (blooms.fill_ratio > 0).all()
    assert {"num_hash_functions", "estimated_items", "false_positive_probability"} <= set(blooms.columns)
    ranges = t.range_bitmaps()
    assert set(ranges.column) == {"score", "ts"} and (ranges["min"] <= ranges["max"]).all()
    values = t.bitmap_values("country")
    # every row of every file is counted once: values (incl. null rows) sum to the file's rows
    rows = t.files().set_index("file_name").row_count
    per_file = values.groupby("file_name").rows.sum()
    assert (per_file == rows[per_file.index]).all()
    with pytest.raises(pl.PaimonLensError, match="no column 'nope'"):
        t.bitmap_values("nope")


def test_bitmap_values_match_parquet() -> None:
    import pyarrow.parquet as pq

    tdir = FIXTURES / "tables/d_type_zoo/warehouse/db.db/types_bitmap"
    t = pl.open_table(str(tdir))
    values = t.bitmap_values("c_string")
    for lf in t.live_files():
        col = pq.read_table(tdir / lf.path, columns=["c_string"]).column(0).to_pylist()
        mine = values[values.file_name == lf.entry.file.file_name]
        want: dict[object, int] = {}
        for v in col:
            want[v] = want.get(v, 0) + 1
        have = {None if v is None or (isinstance(v, float) and v != v) else v: n for v, n in zip(mine.value, mine.rows)}
        assert have == want


def test_corrupt_external_index_is_reported_and_the_rest_goes_on(tmp_path: Path) -> None:
    src = FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_external"
    dst = tmp_path / "events_external"
    shutil.copytree(src, dst)
    victim = sorted(dst.glob("bucket-0/*.index"))[0]
    victim.write_bytes(b"\x00" * 40)
    infos = table_file_indexes(pl.open_table(str(dst)).reader)
    bad = [i for i in infos if i.error]
    assert len(bad) == 1 and "bad magic" in (bad[0].error or "") and str(victim) in (bad[0].error or "")
    assert len({i.file.entry.file.file_name for i in infos if not i.error}) == 5
    r = subprocess.run([sys.executable, "-m", "paimon_lens", "indexes", str(dst), "--format", "json"],
                       capture_output=True, text=True)
    doc = json.loads(r.stdout)
    assert sum(1 for f in doc["files"] if "error" in f) == 1 and len(doc["files"]) == 6
    assert r.returncode == 1 and "partial answer: 1 index file" in r.stderr  # as the text format: partial


def test_cli_indexes_json_shape() -> None:
    oracle = next(p for p in ORACLES if p.stem == "oracle_events20")
    r = subprocess.run([sys.executable, "-m", "paimon_lens", "indexes", str(_dir(oracle)), "--format", "json"],
                       capture_output=True, text=True, check=True)
    doc = json.loads(r.stdout)
    f = doc["files"][0]
    assert {"file_name", "columns"} <= set(f)
    for types in f["columns"].values():
        for entry in types.values():
            assert isinstance(entry["bytes"], int)


def _one_index_gone(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A copy of the table with external indexes, one ``.index`` file removed: (table, copy, removed)."""
    src = FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_external"
    dst = tmp_path / "events_external"
    shutil.copytree(src, dst)
    victim = sorted(dst.glob("bucket-0/*.index"))[0]
    victim.unlink()
    return src, dst, victim


def test_missing_external_index_has_no_size_not_zero(tmp_path: Path) -> None:
    """An ``.index`` file that is gone: its size is unknown (null in ``indexes --format json``, never 0),
    the file's entry says why, and the command exits 1 (a partial answer)."""
    _, dst, victim = _one_index_gone(tmp_path)
    r = subprocess.run([sys.executable, "-m", "paimon_lens", "indexes", str(dst), "--format", "json"],
                       capture_output=True, text=True)
    doc = json.loads(r.stdout)
    gone = [f for f in doc["files"] if victim.name.startswith(f["file_name"])]
    assert len(gone) == 1 and gone[0]["index_size"] is None and "error" in gone[0]
    assert all(isinstance(f["index_size"], int) for f in doc["files"] if f is not gone[0])
    assert r.returncode == 1


def test_files_says_which_index_size_it_could_not_read(tmp_path: Path) -> None:
    """``files``: the file whose ``.index`` file is gone has a null index size and an error naming it,
    the others are complete, and the command exits 1 (a partial answer), in JSON and in text."""
    src, dst, victim = _one_index_gone(tmp_path)
    r = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(dst), "--format", "json"],
                       capture_output=True, text=True)
    doc = json.loads(r.stdout)
    gone = [f for f in doc["files"] if victim.name.startswith(f["file_name"])]
    assert len(gone) == 1 and gone[0]["file_index"]["size"] is None and victim.name in gone[0]["error"]
    assert all(f["error"] is None for f in doc["files"] if f is not gone[0])
    assert r.returncode == 1 and "partial answer: 1 file(s)" in r.stderr
    text = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(dst)], capture_output=True, text=True)
    assert text.returncode == 1 and gone[0]["file_name"] in text.stdout
    whole = subprocess.run([sys.executable, "-m", "paimon_lens", "files", str(src), "--format", "json"],
                           capture_output=True, text=True)
    assert whole.returncode == 0 and whole.stderr == ""


def test_probe_exits_1_when_a_predicate_of_its_file_fails(tmp_path: Path) -> None:
    """``probe --where-file``: a line that cannot be evaluated is its ``ERROR`` record, the others are
    answered, and the command exits 1 (a partial answer); every line answered: exit 0."""
    container = FIXTURES / "blobs/bitmap_v2_basic/container.index"
    case = json.loads((container.parent / "case.json").read_text())
    schema = ", ".join(f"{f['name']} {f['type']}" for f in case["row_type"])
    good = case["predicates"][0]["sql"]
    for lines, code in (([good, "no_such_column = 1"], 1), ([good], 0)):
        where = tmp_path / "where.sql"
        where.write_text("\n".join(lines) + "\n")
        r = subprocess.run([sys.executable, "-m", "paimon_lens", "probe", str(container), "--schema", schema,
                            "--where-file", str(where), "--format", "json"], capture_output=True, text=True)
        got = json.loads(r.stdout)["predicates"]
        assert r.returncode == code, r.stderr
        assert got[0]["result"] == case["predicates"][0]["result"]
        assert [p["result"] == "ERROR" for p in got] == [False, True][:len(lines)]
        assert ("partial answer: 1 predicate(s) failed" in r.stderr) == (code == 1)


def test_decoded_indexes_are_let_go_once_summarised() -> None:
    """The snapshot's list of file indexes keeps summaries, not decoded indexes: every reader stands
    for one (decoded again on use, let go on release), and summaries need no decoding."""
    import gc

    from paimon_lens.formats.index_reader import FileIndexReader
    from paimon_lens.inventory.file_indexes import DeferredReader, table_file_indexes

    def held() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, FileIndexReader))

    before = held()  # what other tests of this process may still hold
    table = pl.open_table(str(FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_external"))
    infos = table_file_indexes(table.reader)
    decoded = [i for i in infos if i.reader is not None]
    assert decoded and all(isinstance(i.reader, DeferredReader) and i.reader._real is None for i in decoded)
    assert all(i.summary() for i in decoded)  # from what was kept
    assert held() == before  # nothing decoded is held
    one = decoded[0].reader
    assert one.summary() is not None and one._real is not None  # type: ignore[union-attr]
    one.release()  # type: ignore[union-attr]
    assert one._real is None  # type: ignore[union-attr]


def test_files_json_decodes_each_files_stats_without_keeping_them(capsys: pytest.CaptureFixture[str]) -> None:
    """``files --format json`` reads every file's stats once and keeps none of them on the files."""
    from paimon_lens.metadata.stats import FileStats
    from paimon_lens.presentation import cli

    path = str(FIXTURES / "tables/a_append_indexed/warehouse/db.db/events_external")
    opened: list[Any] = []
    real_open = cli._open

    def spy(args: Any) -> Any:
        opened.append(real_open(args))
        return opened[-1]

    with pytest.MonkeyPatch.context() as m:
        m.setattr(cli, "_open", spy)
        assert cli.main(["files", path, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    files = opened[0].live_files()
    assert len(doc["files"]) == len(files) and doc["files"][0]["value_stats"]["min"]
    assert all(isinstance(lf.stats, FileStats) and lf.stats._cache is None for lf in files)
    local = pl.open_table(path).files()
    assert list(local["file_name"]) == [f["file_name"] for f in doc["files"]]


@pytest.mark.parametrize("table_dir", ["tables/a_append_indexed/warehouse/db.db/events_external",
                                       "tables20/a20_append_indexed/warehouse/db.db/events20"])
def test_index_facts_are_the_decoded_indexes_facts(table_dir: str) -> None:
    """The snapshot's index facts (one pass, nothing decoded kept) say what the decoded indexes say:
    the same rows, and per bitmap column the rows of each value that ``bitmap_values`` sums."""
    from paimon_lens.inventory.file_indexes import index_facts

    facts = index_facts(pl.open_table(str(FIXTURES / table_dir)).reader)
    table = pl.open_table(str(FIXTURES / table_dir))
    infos = table_file_indexes(table.reader)
    assert [(f.file.path, f.column, f.index_type, f.storage, f.bytes, f.decoded, f.error) for f in facts.facts] == \
        [(i.file.path, i.column, i.index_type, i.storage, i.bytes, i.reader is not None, i.error) for i in infos]
    for f, i in zip(facts.facts, infos):
        s = i.summary() if i.index_type == "bloom-filter" else {}
        want = (s.get("fill_ratio"), s.get("false_positive_probability"))
        assert (f.fill_ratio, f.false_positive_probability) == want
    bitmap_columns = sorted({i.column for i in infos if i.index_type == "bitmap" and i.reader is not None})
    assert bitmap_columns and sorted(facts.bitmap_rows) == bitmap_columns
    for column in bitmap_columns:
        frame = table.bitmap_values(column)
        keys = frame["value"].map(lambda v: "NULL" if v is None else repr(v) if isinstance(v, str) else str(v))
        expected = {k: int(n) for k, n in frame.assign(key=keys).groupby("key")["rows"].sum().items()}
        assert facts.bitmap_rows[column] == expected
