"""Column profiles against brute force over tables written with paimon_lens.writer."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import shutil
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens import open_table
from paimon_lens.advisor import profile_table
from paimon_lens.advisor.profile import PROBE_ROWS, TableProfile
from paimon_lens.table.facade import Table
from paimon_lens.values import to_internal
from paimon_lens.writer import TableWriter

ROOT = Path(__file__).resolve().parents[2]
NAN = ("NaN",)  # NaN as a hashable key


def mixed_table(root: Path) -> Path:
    """Two partitions, files of 40 rows: sorted ids, skewed strings, NaN, nulls, every scalar type."""
    rng = np.random.default_rng(7)
    n = 240
    countries = ["DE"] * 10 + ["US"] * 5 + ["Zürich"] * 2 + ["O'Brien", "<script>x</script>", "東京"]
    schema = pa.schema([
        ("id", pa.int64()), ("val", pa.int32()), ("country", pa.string()), ("amount", pa.float64()),
        ("ratio", pa.float32()), ("price", pa.decimal128(10, 2)), ("d", pa.date32()), ("ts", pa.timestamp("us")),
        ("flag", pa.bool_()), ("payload", pa.binary()), ("part", pa.string()),
    ])
    amount = [None if i % 11 == 0 else (math.nan if i % 13 == 0 else float(rng.normal(50, 10))) for i in range(n)]
    data = pa.table({
        "id": list(range(n)),
        "val": [None if i % 7 == 0 else int(rng.integers(0, 60)) for i in range(n)],
        "country": [countries[int(rng.integers(len(countries)))] if i % 9 else None for i in range(n)],
        "amount": amount,
        "ratio": [float(rng.integers(0, 8)) / 4 for _ in range(n)],
        "price": [Decimal(int(rng.integers(0, 100_000))).scaleb(-2) for _ in range(n)],
        "d": [dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(0, 90))) for _ in range(n)],
        "ts": [dt.datetime(2024, 1, 1) + dt.timedelta(microseconds=int(rng.integers(0, 10**12))) for _ in range(n)],
        "flag": [bool(i % 3) for i in range(n)],
        "payload": [bytes(rng.integers(0, 256, int(rng.integers(0, 5))).astype(np.uint8)) for _ in range(n)],
        "part": ["a" if i % 2 else "b" for i in range(n)],
    }, schema=schema)
    w = TableWriter.create(root, schema, partition_keys=["part"])
    w.commit(data, rows_per_file=40)
    return root


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Table, TableProfile]:
    table = open_table(str(mixed_table(tmp_path_factory.mktemp("mixed") / "t")))
    return table, profile_table(table.reader)


def _key(v: Any) -> Any:
    return NAN if isinstance(v, float) and math.isnan(v) else v


def brute_file(table: Table, path: str, column: str) -> list[Any]:
    """A column of one data file, as internal values, read without paimon_lens."""
    dtype = next(f.type for f in table.schema.fields if f.name == column)
    values = pq.read_table(Path(table.path) / path, columns=[column]).column(column).to_pylist()
    return [to_internal(v, dtype) for v in values]


def brute_stats(values: list[Any], top_k: int = 10) -> dict[str, Any]:
    """Every measure computed in plain Python."""
    present = [v for v in values if v is not None]
    ordered = [v for v in present if not (isinstance(v, float) and math.isnan(v))]
    pairs = list(itertools.pairwise(present))
    counts = Counter(_key(v) for v in present)
    lengths = [len(v.encode()) if isinstance(v, str) else len(v) for v in present if isinstance(v, (str, bytes))]
    return {
        "rows": len(values), "nulls": len(values) - len(present), "nans": len(present) - len(ordered),
        "distinct": len(counts), "min": min(ordered, default=None), "max": max(ordered, default=None),
        "top": counts.most_common(top_k),
        "sorted": sum(a <= b for a, b in pairs) / len(pairs) if pairs else None,
        "strict": all(a < b for a, b in pairs),
        "lengths": (min(lengths), sum(lengths) / len(lengths), max(lengths)) if lengths else (None, None, None),
    }


def test_file_profiles_equal_brute_force(mixed: tuple[Table, TableProfile]) -> None:
    table, profile = mixed
    assert len(profile.files) == 6 and not profile.errors
    assert profile.skipped_columns == {}
    for f in profile.files:
        for c in f.columns:
            b = brute_stats(brute_file(table, f.path, c.column))
            assert (c.rows, c.null_count, c.nan_count, c.distinct_count) == (b["rows"], b["nulls"], b["nans"],
                                                                             b["distinct"]), c.column
            assert (c.min, c.max) == (b["min"], b["max"]), c.column
            assert [(_key(v), n) for v, n in c.top_values] == b["top"], c.column
            assert c.sorted_ratio == pytest.approx(b["sorted"]), c.column
            assert c.is_strictly_sorted == b["strict"]
            assert (c.min_length, c.avg_length, c.max_length) == pytest.approx(b["lengths"]), c.column
            assert c.profiled_rows == b["rows"] - b["nulls"]


def test_column_profiles_equal_brute_force(mixed: tuple[Table, TableProfile]) -> None:
    table, profile = mixed
    for c in profile.columns:
        per_file = [brute_file(table, f.path, c.name) for f in profile.files]
        everything = [v for vs in per_file for v in vs]
        b = brute_stats(everything)
        assert (c.rows, c.null_count, c.nan_count, c.distinct_count) == (b["rows"], b["nulls"], b["nans"],
                                                                         b["distinct"]), c.name
        assert c.distinct_exact and c.distinct_low == c.distinct_high == c.distinct_count
        assert c.distinct_error is None
        assert (c.min, c.max) == (b["min"], b["max"])
        assert [(_key(v), n) for v, n in c.top_values] == b["top"], c.name
        non_null = b["rows"] - b["nulls"]
        assert c.top1_ratio == pytest.approx(b["top"][0][1] / non_null)
        assert c.top10_ratio == pytest.approx(sum(n for _, n in b["top"][:10]) / non_null)
        distincts = [brute_stats(vs)["distinct"] for vs in per_file]
        assert c.mean_file_distinct == pytest.approx(sum(distincts) / len(distincts))
        assert c.max_file_distinct == max(distincts)
        assert c.null_ratio == pytest.approx(b["nulls"] / b["rows"])
        assert c.is_partition_key == (c.name == "part")
        for s in c.samples:  # drawn from rows, with their table-wide count
            assert s.count == sum(1 for v in everything if v == s.value)
        if c.absent_value is not None:
            assert c.min < c.absent_value < c.max and c.absent_value not in everything


def test_sorted_ids_and_skew(mixed: tuple[Table, TableProfile]) -> None:
    _, profile = mixed
    ids = profile.column("id")
    assert ids.sorted_ratio == 1.0 and ids.sorted_files == 6
    assert all(c.is_sorted and c.is_strictly_sorted for f in profile.files for c in f.columns if c.column == "id")
    assert ids.absent_value is None  # 0..239 are all there: no gap to find
    country = profile.column("country")
    assert country.top_values[0][0] == "DE" and country.top1_ratio > 0.4
    assert country.top10_ratio == 1.0
    assert len(profile.column("amount").quantiles) == 101
    assert profile.column("country").quantiles == ()


def _ranges_table(root: Path, files: list[list[int]]) -> Table:
    schema = pa.schema([("k", pa.int64())])
    w = TableWriter.create(root, schema)
    for values in files:  # one commit per file
        w.commit(pa.table({"k": values}, schema=schema))
    return open_table(str(root))


def _brute_lookup(files: list[list[int]]) -> float:
    ranges = [(min(f), max(f)) for f in files]
    per_file = [sum(sum(lo <= v <= hi for lo, hi in ranges) for v in f) / (len(f) * len(files)) for f in files]
    return sum(per_file) / len(per_file)


@pytest.mark.parametrize(("files", "overlap"), [
    ([[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31]], 0.0),  # disjoint: min/max prunes all but one
    ([[0, 5, 9], [9, 0, 3], [0, 9], [4, 0, 9, 9]], 1.0),  # identical ranges: min/max prunes nothing
    ([[0, 10], [5, 15], [20, 30]], 1 / 3),  # 0-1 and 1-0 overlap, 2 alone
    ([[0, 100], [10, 20], [30, 40], [50, 60]], 0.5),  # a wide file over narrow ones
])
def test_overlap_and_point_lookups(tmp_path: Path, files: list[list[int]], overlap: float) -> None:
    profile = profile_table(_ranges_table(tmp_path / "t", files).reader)
    c = profile.column("k")
    assert c.overlap_ratio == pytest.approx(overlap)
    assert c.point_lookup_files_ratio == pytest.approx(_brute_lookup(files))
    if overlap == 0:
        assert c.point_lookup_files_ratio == pytest.approx(1 / len(files))


def test_single_file_and_all_null(tmp_path: Path) -> None:
    schema = pa.schema([("k", pa.int64()), ("empty", pa.string())])
    TableWriter.create(tmp_path / "t", schema).commit(pa.table({"k": [3, 1, 2], "empty": [None] * 3}, schema=schema))
    profile = profile_table(open_table(str(tmp_path / "t")).reader)
    k, empty = profile.column("k"), profile.column("empty")
    assert k.overlap_ratio is None and k.point_lookup_files_ratio == 1.0
    assert k.sorted_ratio == 0.5 and k.absent_value is None  # 1, 2, 3: no gap
    assert empty.null_count == 3 and empty.distinct_count == 0 and empty.min is None and empty.samples == ()
    assert empty.top1_ratio is None and empty.overlap_ratio is None


def test_file_sample_reports_sampled_and_bounds(mixed: tuple[Table, TableProfile]) -> None:
    table, full = mixed
    profile = profile_table(table.reader, max_files=2, seed=3)
    assert (profile.sampled_files, profile.total_files) == (2, 6) and profile.sampled
    assert len(profile.files) == 2
    assert any("2 of 6" in n for n in profile.notes)
    assert any("GEE" in n for n in profile.notes)
    for c in profile.columns:
        truth = full.column(c.name).distinct_count
        assert not c.distinct_exact
        assert c.distinct_low <= truth <= c.distinct_high, c.name
        assert c.distinct_low <= c.distinct_count <= c.distinct_high
        assert c.distinct_error is not None and c.distinct_error > 1
    again = profile_table(table.reader, max_files=2, seed=3)
    assert [f.file_name for f in again.files] == [f.file_name for f in profile.files]
    assert again.to_dict() == profile.to_dict()


def test_row_sample_keeps_exact_file_measures(mixed: tuple[Table, TableProfile]) -> None:
    table, full = mixed
    profile = profile_table(table.reader, sample_rows_per_file=10)
    assert profile.sampled and any("at most 10" in n for n in profile.notes)
    for f, g in zip(profile.files, full.files):
        for c, d in zip(f.columns, g.columns):
            assert c.profiled_rows == min(10, d.rows - d.null_count)
            assert (c.distinct_count, c.min, c.max, c.null_count, c.sorted_ratio) == (
                d.distinct_count, d.min, d.max, d.null_count, d.sorted_ratio)
    for c in profile.columns:
        truth = full.column(c.name).distinct_count
        assert c.distinct_low <= truth <= c.distinct_high, c.name


def test_columns_argument_and_determinism(mixed: tuple[Table, TableProfile]) -> None:
    table, full = mixed
    profile = profile_table(table.reader, ["country", "id"])
    assert [c.name for c in profile.columns] == ["country", "id"]
    assert profile.column("country") == full.column("country")  # each column draws its own random stream
    with pytest.raises(Exception, match="no column 'nope'"):
        profile_table(table.reader, ["nope"])


def test_frames_and_json(mixed: tuple[Table, TableProfile]) -> None:
    _, profile = mixed
    cols = profile.columns_frame()
    assert list(cols["column"]) == [c.name for c in profile.columns]
    assert type(cols).__name__ == "LensFrame"
    files = profile.files_frame()
    assert len(files) == len(profile.files) * len(profile.columns)
    assert "<script>" not in cols._repr_html_().replace("&lt;script&gt;", "")
    text = json.dumps(profile.to_dict(), allow_nan=False)
    back = json.loads(text)
    assert back["total_files"] == 6 and len(back["columns"]) == len(profile.columns)
    country = next(c for c in back["columns"] if c["column"] == "country")
    assert country["top_values"][0] == ["DE", profile.column("country").top_values[0][1]]


def test_unreadable_file_is_recorded(mixed: tuple[Table, TableProfile], tmp_path: Path) -> None:
    table, full = mixed
    copy = tmp_path / "copy"
    shutil.copytree(table.path, copy)
    victim = full.files[2]
    (copy / victim.path).write_bytes(b"this is not a parquet file")
    profile = profile_table(open_table(str(copy)).reader)
    assert [e.file_name for e in profile.errors] == [victim.file_name]
    assert victim.file_name in profile.errors[0].message or "parquet" in profile.errors[0].message.lower()
    assert len(profile.files) == 5
    assert any("could not be read" in n for n in profile.notes)
    ids = profile.column("id")
    assert not ids.distinct_exact and ids.distinct_low <= 240 <= ids.distinct_high


def test_sample_tables() -> None:
    events = profile_table(open_table(str(ROOT / "data" / "events20")).reader)
    assert events.skipped_columns == {"attrs": "MAP columns are not profiled"}
    assert any("attrs" in n for n in events.notes)
    assert sum(f.row_count for f in events.files) == 508
    assert events.column("id").rows == 508
    tag = events.column("tag")  # added at schema 1: the older files read as all null
    assert tag.null_count > 0 and tag.distinct_count > 0
    assert events.column("dt").is_partition_key
    json.dumps(events.to_dict(), allow_nan=False)

    orders_table = open_table(str(ROOT / "data" / "orders_dv20"))
    orders = profile_table(orders_table.reader)
    assert sum(f.deleted_rows for f in orders.files) == 203
    assert any("203 rows are deleted" in n for n in orders.notes)
    assert orders.column("order_id").rows == 1677
    live = profile_table(orders_table.reader, skip_deleted=True)
    assert live.column("order_id").rows == 1677 - 203
    assert live.column("order_id").distinct_exact


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    values=st.lists(st.one_of(st.none(), st.integers(-5, 30)), min_size=1, max_size=60),
    words=st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "ä", "'q'", ""])), min_size=60, max_size=60),
    rows_per_file=st.integers(1, 25),
)
def test_property_matches_brute_force(tmp_path_factory: pytest.TempPathFactory, values: list[int | None],
                                      words: list[str | None], rows_per_file: int) -> None:
    root = tmp_path_factory.mktemp("prop") / "t"
    schema = pa.schema([("v", pa.int32()), ("w", pa.string())])
    TableWriter.create(root, schema).commit(pa.table({"v": values, "w": words[: len(values)]}, schema=schema),
                                            rows_per_file=rows_per_file)
    table = open_table(str(root))
    profile = profile_table(table.reader, top_k=3)
    for c in profile.columns:
        per_file = [brute_file(table, f.path, c.name) for f in profile.files]
        b = brute_stats([v for vs in per_file for v in vs], top_k=3)
        assert (c.rows, c.null_count, c.distinct_count, c.min, c.max) == (
            b["rows"], b["nulls"], b["distinct"], b["min"], b["max"])
        assert list(c.top_values) == b["top"]
        ranged = [(min(o), max(o)) for o in ([v for v in vs if v is not None] for vs in per_file) if o]
        if len(ranged) > 1:
            expect = sum(sum(lo <= top and hi >= bottom for bottom, top in ranged) - 1 for lo, hi in ranged)
            assert c.overlap_ratio == pytest.approx(expect / (len(ranged) * (len(ranged) - 1)))
        present = [o for o in ([v for v in vs if v is not None] for vs in per_file) if o]
        assert max(len(vs) for vs in per_file) <= PROBE_ROWS  # so the lookup ratio is exact
        if present:
            assert c.point_lookup_files_ratio == pytest.approx(_brute_lookup(present))
