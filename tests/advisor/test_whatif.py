"""What-if measurement: real index bytes on the table's files, pruning checked against the truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paimon_lens
from paimon_lens.advisor.candidates import CURRENT, Candidate, candidate_grid, no_index
from paimon_lens.advisor.whatif import IndexBuilder, WhatIfResult, evaluate_container, measure
from paimon_lens.formats.file_index_format import FileIndexFormatReader
from paimon_lens.predicate.parser import parse_where
from paimon_lens.pruning.truth import read_columns
from paimon_lens.table.facade import Table
from paimon_lens.types import DataType
from paimon_lens.writer.file_index import IndexSpec, build_container
from paimon_lens.writer.table_writer import TableWriter

DATA = Path(__file__).resolve().parents[2] / "data"
COUNTRIES = [f"C{i:02d}" for i in range(12)]
QUERIES = [
    "country = 'C03'", "country IN ('C01', 'C07') AND dt = '2025-01-02'", "country <> 'C05'",
    "user_id = 1234", "user_id IN (17, 2999, 40000)", "user_id = 77 OR country = 'C11'",
    "score BETWEEN 100 AND 120", "score > 990", "name IS NULL", "id = 1500",
]


def _rows(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    names = [None if i % 7 == 0 else f"n{i % 50}" for i in range(n)]
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "user_id": pa.array(rng.integers(0, 3000, n).astype(np.int32)),
        "country": pa.array(rng.choice(COUNTRIES[:-1], n)).cast(pa.string()),
        "score": pa.array(rng.integers(0, 1000, n).astype(np.int32)),
        "name": pa.array(names, pa.string()),
        "dt": pa.array(["2025-01-01" if i % 2 else "2025-01-02" for i in range(n)]),
    })


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    root = tmp_path_factory.mktemp("whatif") / "t"
    data = _rows(4000, 1)
    w = TableWriter.create(root, data.schema, partition_keys=["dt"])
    w.commit(data, rows_per_file=400)
    return paimon_lens.open_table(str(root))


def _fields(table: Table) -> dict[str, DataType]:
    return {f.name: f.type for f in table.schema.fields}


def _distinct(table: Table, column: str) -> list[int]:
    fid = next(f.id for f in table.schema.fields if f.name == column)
    return [len({v for v in read_columns(table.reader, lf, [fid])[fid] if v is not None}) for lf in table.live_files()]


@pytest.fixture(scope="module")
def candidates(table: Table) -> list[Candidate]:
    types = _fields(table)
    out: list[Candidate] = [CURRENT]
    for col in ("country", "user_id", "score", "name"):
        out += candidate_grid(col, types[col], _distinct(table, col), fpps=(0.1, 0.001))
    return out


@pytest.fixture(scope="module")
def result(table: Table, candidates: list[Candidate]) -> WhatIfResult:
    return measure(table.reader, QUERIES, candidates)


def _truth(table: Table) -> dict[str, dict[str, int]]:
    """where -> file name -> matching rows."""
    out = {}
    for q in QUERIES:
        report = table.explain(q, truth=True, index_enabled=False)
        out[q] = {f.file_name: f.matching_rows or 0 for f in report.files}
    return out


def test_skips_never_drop_a_matching_file(table: Table, result: WhatIfResult) -> None:
    truth = _truth(table)
    skipped_any = 0
    for cand, tallies in zip(result.candidates, result.tallies):
        for q, t in zip(result.queries, tallies):
            for name in t.skipped_file_names:
                assert truth[q.where][name] == 0, (cand.label, q.where, name)
            skipped_any += t.files_skipped
            assert t.files_skipped == len(t.skipped_file_names) <= q.read_files
    assert skipped_any > 0


def test_no_index_and_current_without_indexes(result: WhatIfResult) -> None:
    for cand, tallies in zip(result.candidates, result.tallies):
        if cand.index_type is None:  # "no index" and CURRENT (the table has no index)
            assert all(t.files_skipped == t.rows_avoided == t.index_bytes_read == 0 for t in tallies)
    rows = result.frame()
    assert len(rows) == len(result.candidates)
    assert (rows.loc[rows["index_type"] == "none", "index_bytes"] == 0).all()


def test_bitmap_row_selection_is_exact(table: Table, result: WhatIfResult) -> None:
    truth = _truth(table)
    for ci, cand in enumerate(result.candidates):
        if cand.column != "country" or cand.index_type not in ("bitmap", "range-bitmap"):
            continue
        for qi, q in enumerate(result.queries):
            if q.columns != {"country"}:
                continue
            t = result.tallies[ci][qi]
            matching = sum(truth[q.where].values())
            assert t.rows_avoided == q.read_rows - matching, (cand.label, q.where)


def test_smaller_fpp_skips_at_least_as_much(table: Table, result: WhatIfResult) -> None:
    skipped: dict[tuple[str, str], int] = {}
    for cand, tallies in zip(result.candidates, result.tallies):
        if cand.index_type == "bloom-filter" and cand.column == "user_id":
            skipped[(cand.options["items"], cand.options["fpp"])] = sum(t.files_skipped for t in tallies)
    pairs = {items for items, _ in skipped}
    assert pairs
    for items in pairs:
        assert skipped[(items, "0.001")] >= skipped[(items, "0.1")]
    # 40 point lookups, items sized to the files: fpp 0.1 leaves false positives that 0.001 removes
    items = str(max(_distinct(table, "user_id")))
    cands = [Candidate("user_id", "bloom-filter", {"fpp": fpp, "items": items}, fpp) for fpp in ("0.1", "0.001")]
    r = measure(table.reader, [f"user_id = {v}" for v in range(5, 3000, 75)], cands)
    loose, tight = (sum(t.files_skipped for t in tallies) for tallies in r.tallies)
    assert tight > loose > 0


def test_index_bytes_are_the_containers(table: Table, result: WhatIfResult) -> None:
    by_name = {f.name: f for f in table.schema.fields}
    frame = result.frame().set_index(["column", "label"])
    for cand, m in zip(result.candidates, result.measures):
        if not cand.specs:
            continue
        f = by_name[cand.column]
        expected = []
        for lf in table.live_files():
            values = read_columns(table.reader, lf, [f.id])[f.id]
            expected.append(len(build_container(list(cand.specs), table.schema.fields, {f.name: values}) or b""))
        assert m.sizes == expected, cand.label
        assert frame.loc[(cand.column, cand.label), "index_bytes"] == sum(expected)
        assert frame.loc[(cand.column, cand.label), "sampled_index_bytes"] == sum(expected)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-50, 50)), min_size=0, max_size=300),
       st.sampled_from(["bloom-filter", "bitmap", "range-bitmap", "bsi"]), st.sampled_from(["1kb", "0b", "64kb"]))
def test_builder_is_byte_identical(values: list[int | None], index_type: str, size: str) -> None:
    from paimon_lens.formats.file_index_format import write_file_index
    from paimon_lens.types import DataField

    dtype = DataType("INT")
    fields = [DataField(0, "v", dtype)]
    opts = {"bloom-filter": {"fpp": "0.01", "items": str(max(1, len(values)))},
            "bitmap": {"index-block-size": size}, "range-bitmap": {"chunk-size": size}, "bsi": {}}[index_type]
    builder = IndexBuilder(dtype, values)
    for spec in (IndexSpec("v", index_type, opts), IndexSpec("v", index_type, {})):
        try:
            expected = build_container([spec], fields, {"v": values})
        except ValueError:  # e.g. a bitmap index-block-size of 0b: Paimon fails too
            with pytest.raises(ValueError):
                builder.index_bytes(spec)
            continue
        assert write_file_index({"v": {index_type: builder.index_bytes(spec)}}) == expected


def test_bloom_sized_to_files_is_much_smaller(result: WhatIfResult) -> None:
    frame = result.frame()
    blooms = frame[(frame["column"] == "user_id") & (frame["index_type"] == "bloom-filter") & (frame["options"]
                                                                                                 .str.contains("fpp=0.1,"))]
    sizes = {int(o.split("items=")[1]): b for o, b in zip(blooms["options"], blooms["index_bytes"])}
    default = sizes.pop(1_000_000)
    assert sizes and all(s * 100 < default for s in sizes.values())


def test_bitmap_v2_bytes_read_shrink_with_the_block_size(tmp_path: Path) -> None:
    n = 6000
    data = pa.table({"k": pa.array(np.arange(n, dtype=np.int32) * 7)})
    w = TableWriter.create(tmp_path / "t", data.schema)
    w.commit(data, rows_per_file=n)
    table = paimon_lens.open_table(str(tmp_path / "t"))
    sizes = ("1kb", "4kb", "16kb", "64kb")
    cands = [Candidate("k", "bitmap", {"version": "2", "index-block-size": s}, s) for s in sizes]
    r = measure(table.reader, ["k = 700", "k = 41993", "k IN (7, 14)"], cands)
    read = dict(zip(r.frame()["label"], r.frame()["index_bytes_read_per_query"]))
    assert read["1kb"] < read["4kb"] < read["16kb"] < read["64kb"]
    stored = dict(zip(r.frame()["label"], r.frame()["index_bytes"]))
    assert all(read[s] < stored[s] for s in sizes)  # a lookup never reads the whole index here


def test_bytes_read_by_index_type(table: Table) -> None:
    """Bloom and bsi read the whole entry; a bitmap lookup does not; a range-bitmap min/max short-cut
    reads only its header."""
    f = next(x for x in table.schema.fields if x.name == "score")
    lf = table.live_files()[0]
    values = read_columns(table.reader, lf, [f.id])[f.id]
    for index_type in ("bloom-filter", "bsi", "bitmap", "range-bitmap"):
        data = build_container([IndexSpec("score", index_type, {})], table.schema.fields, {"score": values})
        assert data is not None
        container = FileIndexFormatReader(data)
        entry = container.index_entries("score")[index_type]
        head = container.layout.head_length
        _, read = evaluate_container(container, table.schema.fields, parse_where("score = 5", table.schema.fields))
        if index_type in ("bloom-filter", "bsi"):
            assert read == head + entry.length
        else:
            assert head < read < head + entry.length
        _, read = evaluate_container(container, table.schema.fields,
                                     parse_where("id = 5", table.schema.fields))  # another column
        assert read == head
    data = build_container([IndexSpec("score", "range-bitmap", {})], table.schema.fields, {"score": values})
    assert data is not None
    container = FileIndexFormatReader(data)
    result, read = evaluate_container(container, table.schema.fields, parse_where("score > 5000", table.schema.fields))
    header = int.from_bytes(container.read_index_bytes("score", "range-bitmap")[:4], "big")  # type: ignore[index]
    assert not result.remain() and read == container.layout.head_length + 4 + header


@pytest.mark.parametrize("name", ["events20", "orders_dv20"])
def test_current_matches_explain_with_indexes(name: str) -> None:
    table = paimon_lens.open_table(str(DATA / name))
    if name == "events20":
        queries = [q.where for q in paimon_lens.workload.read_workload(DATA / "events20.workload.sql")]
        queries += ["user_id = 7", "status = 'active'", "score < 10", "tag IS NULL"]
    else:
        cols = [f.name for f in table.schema.fields]
        queries = [f"{cols[0]} = 5", f"{cols[0]} < 100", f"{cols[0]} IN (1, 2, 3)"]
    r = measure(table.reader, queries, [CURRENT])
    for q, t in zip(r.queries, r.tallies[0]):
        without = table.explain(q.where, index_enabled=False).summary()
        with_index = table.explain(q.where).summary()
        assert t.files_skipped == without["read_files"] - with_index["read_files"], q.where
        assert t.rows_avoided == without["rows_after_dv"] - with_index["rows_after_dv"], q.where
        assert t.bytes_avoided == without["read_bytes"] - with_index["read_bytes"], q.where
    row = r.frame().iloc[0]
    expected = sum(table.reader.index_size(lf) or 0 for lf in table.live_files())
    assert row["index_bytes"] == expected > 0
    assert row["embedded_files"] == sum(lf.index_location == "embedded" for lf in table.live_files())


def test_sampling_scales_and_says_so(table: Table) -> None:
    cands = [no_index("country"), Candidate("country", "bitmap", {}, "bitmap")]
    full = measure(table.reader, QUERIES[:3], cands)
    a = measure(table.reader, QUERIES[:3], cands, max_files=4, seed=3)
    b = measure(table.reader, QUERIES[:3], cands, max_files=4, seed=3)
    assert a.sampled_files == 4 and a.files == full.files == 10
    assert a.frame().drop(columns="build_seconds").equals(b.frame().drop(columns="build_seconds"))
    assert any("sampled 4 of 10" in n for n in a.notes)
    assert a.frame().loc[1, "index_bytes"] == pytest.approx(a.frame().loc[1, "sampled_index_bytes"] * 10 / 4)
    assert abs(a.frame().loc[1, "index_bytes"] - full.frame().loc[1, "index_bytes"]) < 0.3 * full.frame().loc[
        1, "index_bytes"]


def test_thresholds_and_frames(result: WhatIfResult) -> None:
    th = result.threshold_frame()
    for _, group in th.groupby(["column", "label"]):
        growth = list(group.sort_values("threshold")["manifest_growth_bytes"])
        assert growth == sorted(growth)  # a higher threshold embeds more
        top = group.sort_values("threshold").iloc[-1]
        assert top["external_files"] == 0  # the largest choice embeds every container
    assert th["is_table_threshold"].any()
    q = result.query_frame()
    assert len(q) == len(result.candidates) * len(result.queries)
    assert set(result.frame().columns) >= {"index_bytes", "files_skipped_per_query", "bytes_avoided_per_query",
                                           "rows_avoided_per_query", "index_bytes_read_per_query", "build_seconds",
                                           "embedded_files", "manifest_growth_bytes"}
    assert "<table" in result._repr_html_() and "candidates" in repr(result)


def test_unknown_column_is_an_error(table: Table) -> None:
    with pytest.raises(paimon_lens.errors.PaimonLensError, match="nope"):
        measure(table.reader, QUERIES[:1], [no_index("nope")])
