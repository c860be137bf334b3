"""The advisor on tables built for the test: the index each kind of column and workload should get."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import paimon_lens
from paimon_lens.advisor.advise import Advice, recommend
from paimon_lens.presentation.cli import main
from paimon_lens.writer import TableWriter

FILES, ROWS = 16, 1500
WORKLOAD = [("id = 17", 5), ("id = 20000", 5), ("id = 999999", 5),  # point lookups: present, present, absent
            ("status = 'void'", 3), ("status IN ('new', 'paid')", 1),  # low cardinality, equality
            ("amount BETWEEN 1000 AND 1500", 2), ("amount > 99000", 2),  # numeric ranges
            ("seq = 12000", 2), ("seq BETWEEN 100 AND 300", 2)]  # sorted: files disjoint by min/max


def _orders(root: Path, options: dict[str, str] | None = None, seed: int = 1, amount_step: int = 500) -> Path:
    """16 files of orders; ``amount`` in steps of ``amount_step`` (500: 200 values, whose range
    bitmap is small; 1: as many values as rows, whose range bitmap outweighs the data)."""
    rnd = random.Random(seed)
    n = FILES * ROWS
    ids = list(range(1, n + 1))
    rnd.shuffle(ids)
    schema = pa.schema([("id", pa.int64()), ("status", pa.string()), ("amount", pa.int32()), ("seq", pa.int64()),
                        ("note", pa.string())])
    w = TableWriter.create(root, schema, options=options or {})
    w.commit(pa.table({
        "id": ids,
        "status": [rnd.choice(["new", "paid", "shipped", "done", "void"]) for _ in range(n)],
        "amount": [rnd.randrange(0, 100_000, amount_step) for _ in range(n)],
        "seq": list(range(n)),
        # the payload of a real table: the indexes stay a small share of the data bytes
        "note": ["".join(rnd.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=40)) for _ in range(n)],
    }, schema=schema), rows_per_file=ROWS)
    return root


@pytest.fixture(scope="module")
def advice(tmp_path_factory: pytest.TempPathFactory) -> Advice:
    table = paimon_lens.open_table(str(_orders(tmp_path_factory.mktemp("adv") / "orders")))
    return recommend(table.reader, WORKLOAD)


def _rec(advice: Advice, column: str) -> Any:
    return next(r for r in advice.recommendations if r.column == column)


def test_high_cardinality_id_gets_a_right_sized_bloom_filter(advice: Advice) -> None:
    r = _rec(advice, "id")
    assert r.action == "add" and r.index_type == "bloom-filter"
    assert int(r.options["items"]) <= 2 * ROWS  # sized from the per-file distinct count, not 1,000,000
    # it skips nearly every file min/max stats leave but one that holds the id (fpp and the match)
    assert r.bytes_avoided_per_query > 0.75 * r.baseline_bytes_per_query
    default = next(t for t in advice.tradeoffs if t["column"] == "id" and "(default)" in t["label"])
    assert r.index_bytes < default["index_bytes"] / 50
    assert "skips" in r.reason


def test_low_cardinality_equality_gets_a_bitmap(advice: Advice) -> None:
    r = _rec(advice, "status")
    assert r.index_type == "bitmap"
    assert r.options["index-block-size"] == "16kb"  # five values: one block whatever its size -> default
    assert r.rows_avoided_per_query > 0.5 * r.baseline_rows_per_query
    assert "rows" in r.reason


def test_numeric_ranges_get_a_range_bitmap(advice: Advice) -> None:
    r = _rec(advice, "amount")
    assert r.index_type == "range-bitmap"
    assert r.rows_avoided_per_query > 0.9 * r.baseline_rows_per_query


def test_an_index_bigger_than_a_quarter_of_the_data_is_never_proposed(tmp_path: Path) -> None:
    table = paimon_lens.open_table(str(_orders(tmp_path / "wide", amount_step=1)))
    advice = recommend(table.reader, WORKLOAD, progress=False)
    r = _rec(advice, "amount")
    data = sum(lf.entry.file.file_size for lf in table.live_files())
    biggest = max(t["index_bytes"] for t in advice.tradeoffs if t["column"] == "amount")
    assert biggest > 0.25 * data  # measured: every range bitmap of amount outweighs a quarter of the data
    assert r.action == "none" and r.index_type is None
    assert "more than 25% of the table's data bytes" in r.reason
    assert all(x.index_bytes <= 0.25 * data for x in advice.recommendations if x.action in ("add", "change"))


def test_column_disjoint_by_min_max_gets_no_index(advice: Advice) -> None:
    r = _rec(advice, "seq")
    assert r.action == "none" and r.index_type is None
    assert "min/max stats already prune seq" in r.reason


def test_statements_apply_the_advice(advice: Advice) -> None:
    spark = advice.statements("spark")
    assert spark[0].startswith("ALTER TABLE orders SET TBLPROPERTIES (")
    assert "'file-index.bloom-filter.columns' = 'id'" in spark[0]
    assert "'file-index.bitmap.columns' = 'status'" in spark[0]
    assert "'file-index.range-bitmap.columns' = 'amount'" in spark[0]
    assert spark[-1] == "CALL sys.rewrite_file_index(table => 'orders')"
    flink = advice.statements("flink")
    assert flink[0].startswith("ALTER TABLE orders SET (") and flink[-1] == "CALL sys.rewrite_file_index('orders')"
    doc = advice.to_dict()
    json.dumps(doc, allow_nan=False)
    for rec in doc["recommendations"]:
        assert {"column", "index_type", "options", "index_bytes", "files_skipped_per_query",
                "bytes_avoided_per_query", "reason"} <= set(rec)
    assert doc["statements"] == spark + flink


def test_frames_and_pareto(advice: Advice) -> None:
    assert len(advice.frame()) == 4
    trade = advice.tradeoff_frame()
    assert trade["chosen"].sum() == 3
    pareto = advice.pareto_frame()
    assert len(pareto) >= 2
    assert "<pre>" in advice._repr_html_()


def _size_choice(tmp: Path, index_type: str, distinct: int, query_runs: int, in_lists: bool = False) -> str:
    """The block/chunk size advised for ``index_type`` on a column with ``distinct`` values in every file."""
    schema = pa.schema([("code", pa.string()), ("n", pa.int32()), ("payload", pa.string())])
    if not tmp.exists():
        w = TableWriter.create(tmp, schema)
        n = 6 * 4000
        rnd = random.Random(distinct)  # a real table's payload: the index stays a small share of the data
        payload = ["".join(rnd.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=120)) for _ in range(n)]
        w.commit(pa.table({"code": [f"c{i % distinct:06d}" for i in range(n)], "n": list(range(n)),
                           "payload": payload}, schema=schema), rows_per_file=4000)
    table = paimon_lens.open_table(str(tmp))
    workload = [(f"code = 'c{i * 7 % distinct:06d}'", 1.0) for i in range(6)]
    if in_lists:  # IN lists of 300 values: each query reads most blocks/chunks whatever their size
        workload = [("code IN (" + ", ".join(f"'c{(i * 997 + j * 13) % distinct:06d}'" for j in range(300)) + ")", 1.0)
                    for i in range(3)]
    advice = recommend(table.reader, workload, index_types=[index_type], query_runs=query_runs)
    rec = _rec(advice, "code")
    assert rec.index_type == index_type, rec
    assert rec.files_skipped_per_query == 0 and "rows" in rec.reason  # every value is in every file
    key = "index-block-size" if index_type == "bitmap" else "chunk-size"
    shown = [t for t in advice.tradeoffs if t["column"] == "code" and t["index_type"] == index_type]
    assert len(shown) >= 3 and sum(t["chosen"] for t in shown) == 1  # the trade-off is shown
    return str(rec.options[key])


def _kib(size: str) -> int:
    return int(size.removesuffix("kb"))


@pytest.mark.parametrize("index_type", ["bitmap", "range-bitmap"])
def test_block_and_chunk_sizes_move_with_dictionary_size_and_workload(tmp_path: Path, index_type: str) -> None:
    small = _size_choice(tmp_path / "small", index_type, distinct=12, query_runs=1000)
    large = _size_choice(tmp_path / "large", index_type, distinct=4000, query_runs=1000)
    wide = _size_choice(tmp_path / "large", index_type, distinct=4000, query_runs=1000, in_lists=True)
    assert small == "16kb"  # a dozen values fit in any block or chunk: Paimon's default
    assert _kib(large) < 16  # point lookups read one block/chunk of a big dictionary: smaller reads less
    assert _kib(wide) >= 16  # 300-value IN lists touch most blocks anyway: small ones buy nothing


def test_existing_useless_index_is_dropped(tmp_path: Path) -> None:
    root = _orders(tmp_path / "t", {"file-index.bloom-filter.columns": "seq", "file-index.bitmap.columns": "status"})
    table = paimon_lens.open_table(str(root))
    advice = recommend(table.reader, [("seq = 12000", 1.0), ("status = 'void'", 1.0)])
    seq = _rec(advice, "seq")
    assert seq.action == "drop" and seq.index_type == "bloom-filter"
    status = _rec(advice, "status")
    assert status.action == "keep" or (status.action == "change" and status.index_type == "bitmap")
    _, to_unset = advice.option_changes()
    assert "file-index.bloom-filter.columns" in to_unset
    assert "seq: drop bloom-filter" in repr(advice) and "drop drop" not in repr(advice)


def test_derived_workload_is_said(tmp_path: Path) -> None:
    table = paimon_lens.open_table(str(_orders(tmp_path / "d")))
    advice = recommend(table.reader, None, max_files=8)
    assert advice.workload_derived and advice.to_dict()["workload"]["derived"]
    assert any("derived" in n for n in advice.notes)
    assert all(r.confidence in ("low", "medium") for r in advice.recommendations)


def test_cli_recommend_json_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _orders(tmp_path / "c")
    wl = tmp_path / "w.sql"
    wl.write_text("\n".join(f"{w} -- weight: {n}" for w, n in WORKLOAD[:4]) + "\n", encoding="utf-8")
    assert main(["recommend", str(root), "--workload", str(wl), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["column"] for r in doc["recommendations"]] == ["id", "status"]
    assert doc["recommendations"][0]["index_type"] == "bloom-filter"
    assert doc["statements"]
    assert main(["recommend", str(root), "--workload", str(wl)]) == 0
    assert "-- Spark SQL" in capsys.readouterr().out
    out = tmp_path / "r.html"
    assert main(["report", str(root), "--workload", str(wl), "--recommend", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "Index recommendations" in html and "rewrite_file_index" in html
