"""Round trips of paimon_lens.writer: tables written by it read back with paimon-lens."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paimon_lens
from paimon_lens.values import to_internal
from paimon_lens.writer import TableWriter
from paimon_lens.writer.file_index import build_container, java_string_hash, parse_index_options
from paimon_lens.writer.schema import paimon_type
from paimon_lens.writer.stats import truncate_max_string

FIXTURES = Path(__file__).parent.parent / "fixtures" / "tables20"
APPEND20 = FIXTURES / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
PK20 = FIXTURES / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"

XSS_COL = "<script>alert(1)</script>"
XSS_VALUE = "<img src=x onerror=alert(1)>"
NON_ASCII = ["Zürich", "東京都-渋谷区-神南一丁目-長い名前", "naïve café ☕ over sixteen chars", "😀 emoji key"]

SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("flag", pa.bool_()),
    pa.field("tiny", pa.int8()),
    pa.field("small", pa.int16()),
    pa.field("num", pa.int32()),
    pa.field("ratio", pa.float32()),
    pa.field("amount", pa.float64()),
    pa.field(XSS_COL, pa.string()),
    pa.field("blob", pa.binary()),
    pa.field("day", pa.date32()),
    pa.field("ts", pa.timestamp("ms")),
    pa.field("ts_us", pa.timestamp("us")),
    pa.field("price", pa.decimal128(10, 2)),
    pa.field("big_price", pa.decimal128(24, 4)),
    pa.field("dt", pa.string()),
    pa.field("region", pa.string()),
])

OPTIONS = {
    "file-index.bloom-filter.columns": "id,num",
    "file-index.bloom-filter.id.items": "50",
    "file-index.bloom-filter.id.fpp": "0.05",
    "file-index.bloom-filter.num.items": "30",
    "file-index.bitmap.columns": f"{XSS_COL},small",
    "file-index.bitmap.small.version": "1",
    f"file-index.bitmap.{XSS_COL}.index-block-size": "64b",
    "file-index.range-bitmap.columns": "num,ts",
    "file-index.range-bitmap.ts.chunk-size": "64b",
    "file-index.bsi.columns": "price,tiny",
    "file-index.in-manifest-threshold": "2 kb",
}


def make_rows(n: int, seed: int) -> pa.Table:
    """Rows with nulls in every nullable column, XSS strings and non-ASCII text."""
    import random

    r = random.Random(seed)
    strings = [XSS_VALUE, "<b>x</b>", *NON_ASCII, "PENDING", "a" * 40]

    def maybe(v: Any, p: float = 0.1) -> Any:
        return None if r.random() < p else v

    cols: dict[str, list[Any]] = {
        "id": [seed * 100_000 + i for i in range(n)],
        "flag": [maybe(r.random() < 0.5) for _ in range(n)],
        "tiny": [maybe(r.randint(-128, 127)) for _ in range(n)],
        "small": [maybe(r.randint(-5, 5)) for _ in range(n)],
        "num": [maybe(r.randint(-1000, 1000)) for _ in range(n)],
        "ratio": [maybe(r.choice([0.0, -0.0, 1.5, -2.25, r.random()])) for _ in range(n)],
        "amount": [maybe(r.uniform(-1e6, 1e6)) for _ in range(n)],
        XSS_COL: [maybe(r.choice(strings)) for _ in range(n)],
        "blob": [maybe(bytes(r.randrange(256) for _ in range(r.randint(0, 20)))) for _ in range(n)],
        "day": [maybe(dt.date(2025, 1, 1) + dt.timedelta(days=r.randint(0, 400))) for _ in range(n)],
        "ts": [maybe(dt.datetime(2025, 1, 1) + dt.timedelta(milliseconds=r.randint(0, 10**10))) for _ in range(n)],
        "ts_us": [maybe(dt.datetime(2024, 6, 1) + dt.timedelta(microseconds=r.randint(0, 10**13))) for _ in range(n)],
        "price": [maybe(Decimal(r.randint(-10**8, 10**8)).scaleb(-2)) for _ in range(n)],
        "big_price": [maybe(Decimal(r.randint(-10**20, 10**20)).scaleb(-4)) for _ in range(n)],
        "dt": [r.choice(["2025-01-01", "2025-01-02", "2025-01-03"]) for _ in range(n)],
        "region": [maybe(r.choice(["EU", XSS_VALUE, "東京"]), 0.05) for _ in range(n)],
    }
    return pa.table(cols, schema=SCHEMA)


def read_file(table: Any, lf: Any) -> pa.Table:
    return pq.read_table(Path(table.path) / lf.path)


def expected_stats(values: list[Any], dtype: Any) -> tuple[Any, Any, int]:
    present = [v for v in values if v is not None]
    nulls = len(values) - len(present)
    if not present:
        return None, None, nulls
    if dtype.is_binary:
        present = [bytes(v) for v in present]
    return min(present), max(present), nulls


def check_table_against_data(table: Any, options: dict[str, str]) -> None:
    """Every live file: rows, stats (bounds and exactness) and indexes against brute force."""
    fields = {f.name: f for f in table.schema.fields}
    configured = {(s.column, s.index_type) for s in parse_index_options(options)}
    frame = table.files()
    assert len(frame) == len(table.live_files())
    for lf in table.live_files():
        data = read_file(table, lf)
        assert data.num_rows == lf.entry.file.row_count
        for i, f in enumerate(table.schema.fields):
            values = [to_internal(v, f.type) for v in data.column(f.name).to_pylist()]
            lo, hi, nulls = expected_stats(values, f.type)
            st_ = lf.stats[i]
            assert st_.null_count == nulls, f.name
            if lo is None:
                assert st_.min is None and st_.max is None
                continue
            if f.type.root in ("FLOAT", "DOUBLE"):
                assert st_.min == lo and st_.max == hi, f.name
            elif f.type.is_string or f.type.is_binary:
                # truncate(16): min is a prefix, max an upper bound
                assert st_.min <= lo and st_.max >= hi, f.name
                assert lo[: len(st_.min)] == st_.min
                assert len(st_.min) <= 16 and len(st_.max) <= 16
            else:
                assert (st_.min, st_.max) == (lo, hi), f.name
        # partition values are the file's
        for k in table.schema.partition_keys:
            assert set(data.column(k).to_pylist()) == {lf.partition[k]}
        assert fields  # keep the name used
    if configured:
        idx = table.file_indexes()
        per_file = idx.groupby("file_name").apply(lambda g: set(zip(g["column"], g["index_type"])))
        for name in frame["file_name"]:
            assert per_file[name] == configured


PREDICATES = [
    "id = 100005", "id IN (3, 100007, 200001)", "num > 500", "num BETWEEN -10 AND 10", "num IS NULL",
    f"`{XSS_COL}` = '{XSS_VALUE}'", f"`{XSS_COL}` = 'Zürich'", f"`{XSS_COL}` IS NULL", "small = 3",
    "small <> 2", "tiny < -100", "price > 500000.00", "ts >= TIMESTAMP '2025-03-01 00:00:00'",
    "dt = '2025-01-02' AND num < 0", "region = '東京'", "flag = true", "day < DATE '2025-02-01'",
]


def check_explain(table: Any, predicates: list[str]) -> None:
    for where in predicates:
        report = table.explain(where, truth=True)
        assert not report.notes, report.notes
        for v in report.files:
            matched = len(v.matching_positions)
            assert not (matched and not v.read), f"{where}: {v.file_name} skipped at {v.stage}"
            if v.index_result == "SKIP":
                assert matched == 0
            positions = v.index_positions
            if positions is not None:
                assert v.matching_positions.issubset(positions), where


@pytest.fixture(scope="module")
def append_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[pa.Table]]:
    root = tmp_path_factory.mktemp("w") / "append"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt", "region"], options=OPTIONS)
    batches = [make_rows(120, 1), make_rows(7, 2)]
    assert w.commit(batches[0], rows_per_file=25) == 1
    assert TableWriter.open(root).commit(batches[1]) == 2
    return root, batches


def test_schema_file(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table
    obj = json.loads((root / "schema" / "schema-0").read_text(encoding="utf-8"))
    types = {f["name"]: f["type"] for f in obj["fields"]}
    assert [f["id"] for f in obj["fields"]] == list(range(len(SCHEMA)))
    assert types["ts"] == "TIMESTAMP(3)" and types["ts_us"] == "TIMESTAMP(6)"
    assert types["price"] == "DECIMAL(10, 2)" and types["blob"] == "BYTES" and types[XSS_COL] == "STRING"
    assert types["tiny"] == "TINYINT" and types["small"] == "SMALLINT" and types["day"] == "DATE"
    assert obj["partitionKeys"] == ["dt", "region"] and obj["primaryKeys"] == []
    assert obj["options"]["bucket"] == "-1" and obj["highestFieldId"] == len(SCHEMA) - 1
    assert (root / "schema" / "schema-0").read_text(encoding="utf-8").startswith('{\n  "version" : 3,')


def test_snapshots_and_counts(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table
    table = paimon_lens.open_table(str(root))
    snaps = table.snapshot_manager.all()
    assert [s.id for s in snaps] == [1, 2]
    assert (root / "snapshot" / "LATEST").read_text() == "2"
    raw = [json.loads((root / "snapshot" / f"snapshot-{i}").read_text()) for i in (1, 2)]
    assert [r["totalRecordCount"] for r in raw] == [120, 127]
    assert [r["deltaRecordCount"] for r in raw] == [120, 7]
    assert all(r["commitKind"] == "APPEND" for r in raw)
    assert sum(lf.entry.file.row_count for lf in table.live_files()) == 127
    first = table.at(1)
    assert sum(lf.entry.file.row_count for lf in first.live_files()) == 120
    assert all(lf.entry.file.row_count <= 25 for lf in first.live_files())
    # base list of snapshot 2 = manifests of snapshot 1
    assert len(table.manifest_files()) == 2 and len(first.manifest_files()) == 1


def test_files_stats_and_indexes(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table
    table = paimon_lens.open_table(str(root))
    check_table_against_data(table, OPTIONS)
    locations = {lf.index_location for lf in table.live_files()}
    assert locations == {"embedded", "external"}  # the threshold splits them
    for lf in table.live_files():
        f = lf.entry.file
        if f.embedded_index is not None:
            assert len(f.embedded_index) <= 2048 and not f.extra_files
        else:
            assert list(f.extra_files) == [f.file_name + ".index"]
            assert (root / lf.index_file_path).stat().st_size > 2048
        assert f.level == 0 and f.schema_id == 0 and lf.entry.bucket == 0
        assert f.value_stats_cols is None  # every column has stats


def test_all_rows_round_trip(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, batches = append_table
    table = paimon_lens.open_table(str(root))
    got = pa.concat_tables([read_file(table, lf).select(SCHEMA.names) for lf in table.live_files()])
    want = pa.concat_tables(batches)

    def key(t: pa.Table) -> list[Any]:
        return sorted(t.to_pylist(), key=lambda r: r["id"])

    assert key(got.cast(SCHEMA)) == key(want)


def test_explain_never_skips_matches(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table
    check_explain(paimon_lens.open_table(str(root)), PREDICATES)


def test_xss_and_non_ascii_partitions(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table
    table = paimon_lens.open_table(str(root))
    regions = {lf.partition["region"] for lf in table.live_files()}
    assert XSS_VALUE in regions and "東京" in regions and None in regions
    frame = table.files()
    assert frame.to_string()  # renders
    assert XSS_COL in set(table.file_indexes()["column"])
    assert any(p.name.startswith("region=__DEFAULT_PARTITION__") for p in (root / "dt=2025-01-01").iterdir())


def test_manifest_structure_matches_paimon_fixture(append_table: tuple[Path, list[pa.Table]]) -> None:
    root, _ = append_table

    def schema_of(path: Path) -> Any:
        with open(path, "rb") as fh:
            r = fastavro.reader(fh)
            return r.writer_schema, r.codec

    mine = sorted((root / "manifest").glob("manifest-*"))
    theirs = sorted((APPEND20 / "manifest").glob("manifest-*"))
    for is_list in (True, False):
        a = schema_of(next(p for p in mine if ("manifest-list-" in p.name) == is_list))
        b = schema_of(next(p for p in theirs if ("manifest-list-" in p.name) == is_list))
        assert a == b
    # entries carry the same kinds of values as Paimon's for an append table
    with open(next(p for p in mine if "list" not in p.name), "rb") as fh:
        rec = next(iter(fastavro.reader(fh)))
    with open(next(p for p in theirs if "list" not in p.name), "rb") as fh:
        ref = next(iter(fastavro.reader(fh)))
    assert rec["_VERSION"] == ref["_VERSION"] and rec["_TOTAL_BUCKETS"] == ref["_TOTAL_BUCKETS"] == -1
    for k in ("_MIN_KEY", "_MAX_KEY", "_KEY_STATS", "_LEVEL", "_FILE_SOURCE", "_DELETE_ROW_COUNT"):
        assert rec["_FILE"][k] == ref["_FILE"][k], k
    assert rec["_FILE"]["_MIN_SEQUENCE_NUMBER"] == 0
    data = next(root.glob("dt=*/region=*/bucket-0/*.parquet"))
    meta = pq.ParquetFile(data)
    ref_meta = pq.ParquetFile(next(APPEND20.glob("dt=*/bucket-0/*.parquet")))
    assert meta.metadata.metadata == ref_meta.metadata.metadata  # no Arrow schema in the footer
    assert meta.schema_arrow.field("price").metadata == {b"PARQUET:field_id": b"12"}
    assert meta.metadata.row_group(0).column(0).compression == "ZSTD"


def test_container_bytes_equal_paimon_fixture() -> None:
    """Rebuild the embedded container of a Paimon-written file from its rows: same bytes."""
    from paimon_lens.io.fileio import LocalFileIO
    from paimon_lens.metadata.schema import SchemaManager

    schema = SchemaManager(LocalFileIO(), str(PK20)).schema(0)
    specs = parse_index_options(schema.options)
    table = paimon_lens.open_table(str(PK20))
    checked = 0
    for lf in table.live_files():
        f = lf.entry.file
        if f.embedded_index is None:
            continue
        data = pq.read_table(PK20 / lf.path)
        values = {fd.name: [to_internal(v, fd.type) for v in data.column(fd.name).to_pylist()]
                  for fd in schema.fields}
        assert build_container(specs, schema.fields, values) == f.embedded_index.read()
        checked += 1
    assert checked


def test_java_string_hash() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == -2147483648
    assert java_string_hash("😀") == 0xD83D * 31 + 0xDE00


def test_truncate_max_string() -> None:
    assert truncate_max_string("abc", 16) == "abc"
    assert truncate_max_string("abcdef", 3) == "abd"
    assert truncate_max_string("ab\U0010ffffz", 3) == "ac"
    assert truncate_max_string("\U0010ffff" * 3, 2) is None


def test_stats_modes_and_dense_store(tmp_path: Path) -> None:
    schema = pa.schema([("a", pa.string()), ("b", pa.int32()), ("c", pa.string()), ("d", pa.float64())])
    opts = {"metadata.stats-mode": "full", "fields.b.stats-mode": "none", "fields.c.stats-mode": "counts",
            "fields.a.stats-mode": "truncate(4)"}
    w = TableWriter.create(tmp_path / "t", schema, options=opts)
    w.commit(pa.table({"a": ["héllo wörld", "zz"], "b": [1, 2], "c": ["x", None], "d": [float("nan"), 1.0]},
                      schema=schema))
    table = paimon_lens.open_table(str(tmp_path / "t"))
    (lf,) = table.live_files()
    assert list(lf.entry.file.value_stats_cols) == ["a", "c", "d"]
    a, b, c, d = lf.stats
    assert (a.min, a.max, a.null_count) == ("héll", "zz", 0)
    assert (b.min, b.max, b.null_count) == (None, None, None)
    assert (c.min, c.max, c.null_count) == (None, None, 1)
    assert (d.min, d.max, d.null_count) == (None, None, 0)  # NaN: no bounds


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_manifest_format_option(tmp_path: Path, fmt: str) -> None:
    """``manifest.format`` writes every metadata file in that format; the table reads back the same."""
    from paimon_lens.metadata.meta_file import detect_format

    schema = pa.schema([("k", pa.string()), ("v", pa.int32())])
    batches = [pa.table({"k": ["a", "b", None], "v": [1, 2, 3]}, schema=schema),
               pa.table({"k": ["c"], "v": [None]}, schema=schema)]
    tables = {}
    for name, opts in (("avro", {}), (fmt, {"manifest.format": fmt})):
        w = TableWriter.create(tmp_path / name, schema, partition_keys=["k"], options=opts)
        for b in batches:
            w.commit(b)
        tables[name] = paimon_lens.open_table(str(tmp_path / name))
        kinds = {detect_format((tmp_path / name / "manifest" / m).read_bytes())
                 for m in (tmp_path / name / "manifest").iterdir()}
        assert kinds == {name}
    want, got = tables["avro"], tables[fmt]
    assert got.snapshot_id == 2
    cols = ["partition", "bucket", "row_count", "min(v)", "max(v)", "null_count(v)"]
    import pandas as pd

    pd.testing.assert_frame_equal(got.files()[cols], want.files()[cols])
    assert got.explain("v > 1", truth=True).funnel() == want.explain("v > 1", truth=True).funnel()


def test_fixed_buckets_match_paimon_bucket_function(tmp_path: Path) -> None:
    from paimon_lens.metadata.bucket import bucket_of

    schema = pa.schema([("k", pa.int32()), ("s", pa.string()), ("p", pa.string())])
    w = TableWriter.create(tmp_path / "t", schema, partition_keys=["p"], bucket=4, bucket_key="k,s",
                           options={"file-index.bitmap.columns": "s"})
    rows = pa.table({"k": list(range(200)), "s": [f"v{i % 7}" for i in range(200)],
                     "p": ["x" if i % 2 else "y" for i in range(200)]}, schema=schema)
    w.commit(rows, rows_per_file=10)
    w.commit(rows)
    table = paimon_lens.open_table(str(tmp_path / "t"))
    kf, sf = table.schema.field("k"), table.schema.field("s")
    buckets = set()
    seqs: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for lf in table.live_files():
        assert lf.entry.total_buckets == 4
        buckets.add(lf.entry.bucket)
        for r in read_file(table, lf).to_pylist():
            assert bucket_of([r["k"], r["s"]], [kf, sf], 4) == lf.entry.bucket
        f = lf.entry.file
        seqs.setdefault((lf.partition["p"], lf.entry.bucket), []).append(
            (f.min_sequence_number, f.max_sequence_number))
    assert buckets == {0, 1, 2, 3}
    for ranges in seqs.values():  # sequence numbers continue across commits, never overlap
        ranges.sort()
        assert ranges[0][0] == 0
        assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(ranges))
    check_explain(table, ["k = 17", "s = 'v3'", "k IN (1, 2) AND s = 'v1'"])


def test_primary_key_table(tmp_path: Path) -> None:
    schema = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()), ("v", pa.int32())])
    w = TableWriter.create(tmp_path / "pk", schema, partition_keys=["dt"], primary_keys=["dt", "id"], bucket=2,
                           options={"file-index.bloom-filter.columns": "name"})
    first = pa.table({"dt": ["a"] * 6 + ["b"] * 2, "id": [5, 3, 5, 1, 9, 3, 1, 2],
                      "name": ["x", "y", "x2", "z", "w", "y2", "q", "r"], "v": [1, 2, 3, 4, 5, 6, 7, 8]},
                     schema=schema)
    w.commit(first, rows_per_file=2)
    w.commit(pa.table({"dt": ["a"], "id": [5], "name": ["x3"], "v": [9]}, schema=schema))
    table = paimon_lens.open_table(str(tmp_path / "pk"))
    obj = json.loads((tmp_path / "pk" / "schema" / "schema-0").read_text())
    assert [f["type"] for f in obj["fields"]][:2] == ["STRING NOT NULL", "BIGINT NOT NULL"]
    from paimon_lens.metadata.binary_row import decode_binary_row

    idf = table.schema.field("id")
    total = 0
    for lf in table.live_files():
        f = lf.entry.file
        data = read_file(table, lf)
        assert data.column_names[:3] == ["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND"]
        ids = data.column("id").to_pylist()
        assert ids == sorted(set(ids)) == data.column("_KEY_id").to_pylist()
        assert set(data.column("_VALUE_KIND").to_pylist()) == {0}
        seq = data.column("_SEQUENCE_NUMBER").to_pylist()
        assert (f.min_sequence_number, f.max_sequence_number) == (min(seq), max(seq))
        assert decode_binary_row(f.min_key, [idf.type]) == [ids[0]]
        assert decode_binary_row(f.max_key, [idf.type]) == [ids[-1]]
        ks = f.key_stats
        assert decode_binary_row(ks.min_values, [idf.type]) == [min(ids)]
        assert list(ks.null_counts) == [0]
        assert f.level == 0
        total += f.row_count
    assert total == 6 + 1  # duplicates within a commit merged: a:{1,3,5,9}, b:{1,2}; then one more row
    kept = {(r["dt"], r["id"]): r["name"] for lf in table.at(1).live_files() for r in read_file(table, lf).to_pylist()}
    assert kept[("a", 5)] == "x2" and kept[("a", 3)] == "y2"


def test_refuses_existing_and_foreign_tables(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(FileExistsError):
        TableWriter.create(tmp_path / "full", SCHEMA)
    foreign = tmp_path / "foreign"
    shutil.copytree(APPEND20, foreign)
    with pytest.raises(ValueError):
        TableWriter.open(foreign)
    with pytest.raises(FileExistsError):
        TableWriter.create(foreign, SCHEMA)


@pytest.mark.parametrize("kwargs, error", [
    ({"primary_keys": ["id"]}, NotImplementedError),  # needs fixed buckets
    ({"bucket": 2}, ValueError),  # append with buckets needs a bucket key
    ({"options": {"file-index.bloom-filter.nope.fpp": "0.1"}}, ValueError),
    ({"options": {"file-index.bloom-filter.columns": "flag"}}, Exception),  # no bloom hash for BOOLEAN
    ({"options": {"metadata.stats-mode": "truncate(0)"}}, ValueError),
    ({"partition_keys": ["missing"]}, ValueError),
    ({"file_format": "orc"}, NotImplementedError),
])
def test_bad_definitions(tmp_path: Path, kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        TableWriter.create(tmp_path / "t", SCHEMA, **kwargs)
    assert not (tmp_path / "t" / "schema").exists()


def test_type_mapping() -> None:
    assert str(paimon_type(pa.timestamp("ns", tz="UTC"))) == "TIMESTAMP(9) WITH LOCAL TIME ZONE"
    assert str(paimon_type(pa.binary(4), nullable=False)) == "BINARY(4) NOT NULL"
    assert str(paimon_type(pa.time32("ms"))) == "TIME(3)"
    with pytest.raises(ValueError):
        paimon_type(pa.list_(pa.int32()))
    with pytest.raises(ValueError):
        paimon_type(pa.uint32())


_values = st.one_of(st.none(), st.integers(-50, 50))
_texts = st.one_of(st.none(), st.text(alphabet=st.sampled_from(list("ab<>é東😀 ")), max_size=24))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_values, _texts, st.sampled_from(["p", "q", XSS_VALUE])), min_size=1, max_size=60),
       commits=st.integers(1, 3), rows_per_file=st.one_of(st.none(), st.integers(1, 20)),
       bucket=st.sampled_from([-1, 3]))
def test_round_trip_property(tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[Any, Any, str]],
                             commits: int, rows_per_file: int | None, bucket: int) -> None:
    schema = pa.schema([("n", pa.int32()), ("s", pa.string()), ("part", pa.string())])
    root = tmp_path_factory.mktemp("prop") / "t"
    opts = {"file-index.bitmap.columns": "s", "file-index.range-bitmap.columns": "n",
            "file-index.bloom-filter.columns": "s", "file-index.bloom-filter.s.items": "20"}
    w = TableWriter.create(root, schema, partition_keys=["part"], bucket=bucket,
                           bucket_key="n" if bucket > 0 else None, options=opts)
    data = pa.table({name: list(col) for name, col in zip(schema.names, zip(*rows))}, schema=schema)
    for c in range(commits):
        assert w.commit(data, rows_per_file=rows_per_file) == c + 1
    table = paimon_lens.open_table(str(root))
    assert table.snapshot_id == commits
    assert sum(lf.entry.file.row_count for lf in table.live_files()) == len(rows) * commits
    check_table_against_data(table, opts)
    got = sorted((r["n"] is None, r["n"] or 0, r["s"] or "", r["part"]) for lf in table.live_files()
                 for r in read_file(table, lf).to_pylist())
    want = sorted((n is None, n or 0, s or "", p) for n, s, p in rows * commits)
    assert got == want
    check_explain(table, ["n = 3", "n > 10", "s = 'ab'", "s IS NULL", f"part = '{XSS_VALUE}' AND n < 0"])


def test_expiry_deletes_the_files_only_expired_snapshots_use(tmp_path: Path) -> None:
    """``expire_snapshots(delete_files=True)``: the data files a compaction replaced (with their
    ``.index`` files) and the deletion-vector files a later delete replaced are deleted, as Paimon's
    expiration does; a tag keeps its snapshot's files; the retained snapshots read without an error."""
    import pyarrow.compute as pc

    import paimon_lens as pl
    from tests.live_writer import batch, create

    path = tmp_path / "t"
    w = create(path)
    for k in range(3):
        w.commit(batch(k, ["id", "country"]), rows_per_file=10)
    first = {lf.path for lf in pl.open_table(str(path)).live_files()}
    w.delete(lambda rows: pc.less(rows["id"], 5))
    w.tag("before", w.compact(min_files=2))
    tagged = {lf.path for lf in pl.open_table(str(path), tag="before").live_files()}
    w.commit(batch(3, ["id", "country"]), rows_per_file=10)
    w.delete(lambda rows: pc.less(rows["id"], 40))
    assert w.compact(min_files=2) is not None
    w.commit(batch(4, ["id", "country"]))
    live = pl.open_table(str(path))
    now = {lf.path for lf in live.live_files()}
    w.expire_snapshots(retain_last=1, delete_files=True)
    on_disk = {str(p.relative_to(path)) for p in path.rglob("data-*") if not p.name.endswith(".index")}
    assert first - tagged - now and now | tagged <= on_disk and not (first - tagged - now) & on_disk
    for t in (pl.open_table(str(path)), pl.open_table(str(path), tag="before")):
        r = t.explain("id >= 0", truth=True)
        assert r.summary()["files_with_errors"] == 0 and not t.deletion_vectors()["error"].notna().any()
    index_files = {p.name for p in (path / "index").iterdir()}
    used = {e.file_name for t in (live, pl.open_table(str(path), tag="before")) for e in t.index_entries()}
    assert index_files == used
