"""Table histories written by paimon_lens.writer: schema changes, compactions, deletes by deletion
vectors and tags (``TableWriter.alter/compact/delete/tag``) and the scenario of
``paimon_lens.synth.history``, read back with paimon-lens (and with pypaimon when it can be
installed)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import paimon_lens
from paimon_lens.synth.history import RARE_STATUS, write_history
from paimon_lens.writer import TableWriter
from tests.synth.test_synth_pypaimon import _pypaimon_python

PK20 = Path(__file__).parent.parent / "fixtures" / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
SCHEMA = pa.schema([("id", pa.int64()), ("status", pa.string()), ("score", pa.int32()), ("dt", pa.string())])
DV = {"deletion-vectors.enabled": "true"}


# ---- helpers ----------------------------------------------------------------------------------
def rows(start: int, n: int, dts: tuple[str, ...] = ("a", "b"), **extra: list[Any]) -> pa.Table:
    ids = list(range(start, start + n))
    cols: dict[str, Any] = {"id": pa.array(ids, pa.int64()), "status": [("x", "y", "z")[i % 3] for i in ids],
                            "score": pa.array([i % 7 for i in ids], pa.int32()),
                            "dt": [dts[i % len(dts)] for i in ids]}
    cols.update(extra)
    return pa.table(cols)


def positions_by_file(table: Any) -> dict[str, set[int]]:
    return {dv.data_file: set(dv.positions) for dv in table.deletion_vector_infos()}


def file_rows(table: Any, lf: Any) -> pa.Table:
    """The rows of a live file as the table schema's columns (by field id; missing columns null)."""
    data = pq.ParquetFile(Path(table.path) / lf.path).read()
    by_id = {int(f.metadata[b"PARQUET:field_id"]): i for i, f in enumerate(data.schema)}
    cols = {}
    for f in table.schema.fields:
        i = by_id.get(f.id)
        cols[f.name] = [None] * data.num_rows if i is None else data.column(i).to_pylist()
    return pa.table(cols) if cols else data


def live_rows(table: Any, key: str = "id") -> list[dict[str, Any]]:
    """Every live row of the snapshot: the live files' rows minus their deletion vectors, by ``key``."""
    deleted = positions_by_file(table)
    out: list[dict[str, Any]] = []
    for lf in table.live_files():
        gone = deleted.get(lf.file.file_name, set())
        out.extend(r for i, r in enumerate(file_rows(table, lf).to_pylist()) if i not in gone)
    return sorted(out, key=lambda r: r[key])


def raw_snapshot(root: Path, sid: int) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((root / "snapshot" / f"snapshot-{sid}").read_text(encoding="utf-8"))
    return result


def indexed(table: Any, index_type: str, column: str) -> set[str]:
    frame = table.file_indexes()
    if frame.empty:
        return set()
    hit = frame[(frame["index_type"] == index_type) & (frame["column"] == column)]
    return set(hit["file_name"])


def check_counts(table: Any) -> None:
    """totalRecordCount counts the rows of the live files (deletion vectors not subtracted)."""
    assert table.snapshot.total_record_count == sum(lf.file.row_count for lf in table.live_files())


# ---- schema changes ---------------------------------------------------------------------------
def test_alter_writes_schemas_and_later_commits_use_them(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], bucket=2, bucket_key="id")
    assert w.commit(rows(0, 20)) == 1
    assert w.alter(set_options={"file-index.bitmap.columns": "status", "metadata.stats-mode": "counts"}) == 1
    one = json.loads((root / "schema" / "schema-1").read_text(encoding="utf-8"))
    zero = json.loads((root / "schema" / "schema-0").read_text(encoding="utf-8"))
    assert one["id"] == 1 and one["fields"] == zero["fields"] and one["highestFieldId"] == 3
    assert one["options"]["file-index.bitmap.columns"] == "status" and one["options"]["bucket"] == "2"
    assert list(one) == list(zero)  # the same layout as schema-0
    assert (root / "schema" / "schema-1").read_text(encoding="utf-8").startswith('{\n  "version" : 3,')
    assert w.commit(rows(20, 10)) == 2
    assert w.alter(add_columns=pa.schema([("note", pa.string()), ("weight", pa.float64())]),
                   reset_options=["metadata.stats-mode"]) == 2
    two = json.loads((root / "schema" / "schema-2").read_text(encoding="utf-8"))
    assert [(f["id"], f["name"], f["type"]) for f in two["fields"][4:]] == [(4, "note", "STRING"),
                                                                            (5, "weight", "DOUBLE")]
    assert two["highestFieldId"] == 5 and "metadata.stats-mode" not in two["options"]
    # a table with several schemas opens with the latest one
    w = TableWriter.open(root)
    assert w.schema.id == 2 and w.arrow_schema().names == [*SCHEMA.names, "note", "weight"]
    assert w.commit(rows(30, 6, note=["n"] * 6, weight=[1.5] * 6)) == 3

    t = paimon_lens.open_table(str(root))
    assert list(t.snapshots()["schema_id"]) == [0, 1, 2]
    assert [raw_snapshot(root, i)["schemaId"] for i in (1, 2, 3)] == [0, 1, 2]
    by_snapshot = {sid: {lf.file.file_name for lf in t.at(sid).live_files()} for sid in (1, 2, 3)}
    for lf in t.live_files():
        first = min(sid for sid, names in by_snapshot.items() if lf.file.file_name in names)
        assert lf.file.schema_id == first - 1
    manifests = t.manifests()
    assert sorted(manifests["schema_id"]) == [0, 1, 2]
    assert set(indexed(t, "bitmap", "status")) == by_snapshot[3] - by_snapshot[1]
    got = live_rows(t)
    assert [r["id"] for r in got] == list(range(36))
    assert all(r["note"] is None for r in got[:30]) and all(r["note"] == "n" for r in got[30:])
    assert t.schema.id == 2 and t.at(1).schema.id == 0


@pytest.mark.parametrize("kwargs", [
    {},
    {"set_options": {"bucket": "3"}},
    {"reset_options": ["bucket-key"]},
    {"set_options": {"file-index.bloom-filter.nope.fpp": "0.1"}},
    {"set_options": {"metadata.stats-mode": "truncate(0)"}},
    {"set_options": {"manifest.format": "json"}},
    {"add_columns": pa.schema([pa.field("id", pa.int32())])},
    {"add_columns": pa.schema([pa.field("must", pa.int32(), nullable=False)])},
    {"add_columns": pa.schema([pa.field("_SEQUENCE_NUMBER", pa.int64())])},
])
def test_alter_refuses_invalid_changes(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    w = TableWriter.create(tmp_path / "t", SCHEMA, partition_keys=["dt"], bucket=2, bucket_key="id")
    with pytest.raises(ValueError):
        w.alter(**kwargs)
    assert sorted(p.name for p in (tmp_path / "t" / "schema").iterdir()) == ["schema-0"]
    assert w.schema.id == 0


def test_open_still_refuses_foreign_snapshots(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"])
    w.commit(rows(0, 4))
    w.alter(set_options={"file-index.bitmap.columns": "status"})
    snap = raw_snapshot(root, 1)
    snap["commitUser"] = "someone-else"
    (root / "snapshot" / "snapshot-1").write_text(json.dumps(snap), encoding="utf-8")
    with pytest.raises(ValueError, match="not by paimon-lens"):
        TableWriter.open(root)
    (root / "schema" / "schema-7").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="schema"):
        TableWriter.open(root)


# ---- compaction -------------------------------------------------------------------------------
def test_compaction_rewrites_buckets_drops_deleted_rows_and_follows_the_current_options(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], bucket=2, bucket_key="id", options=DV)
    for k in range(3):
        w.commit(rows(k * 30, 30))
    w.alter(set_options={"file-index.bitmap.columns": "status"})
    w.commit(rows(90, 30))
    deleted = w.delete(lambda t: pc.equal(t["score"], 3))
    assert deleted == 5
    before = paimon_lens.open_table(str(root))
    want = live_rows(before)
    assert len(want) < 120 and before.deletion_vectors()["cardinality"].sum() == 120 - len(want)
    inputs_a = [lf for lf in before.live_files() if lf.partition == {"dt": "a"}]

    assert w.compact({"dt": "a"}, min_files=100) is None  # nothing qualifies: no snapshot
    assert w.compact({"dt": "a"}, rows_per_file=20) == 6
    t = paimon_lens.open_table(str(root))
    assert t.snapshot.commit_kind == "COMPACT" and list(t.snapshots()["commit_kind"])[-2:] == ["OVERWRITE",
                                                                                               "COMPACT"]
    assert live_rows(t) == want
    check_counts(t)
    delta = t.reader.delta_entries()
    removed = [e for e in delta if e.kind == 1]
    added = [e for e in delta if e.kind == 0]
    assert delta[:len(removed)] == removed  # DELETEs first, then ADDs
    assert {e.file.file_name for e in removed} == {lf.file.file_name for lf in inputs_a}
    for e in removed:  # the DELETE entry is the ADD entry with another kind
        (same,) = [lf.entry for lf in inputs_a if lf.file.file_name == e.file.file_name]
        assert e.identifier() == same.identifier() and e.file == same.file and e.total_buckets == 2
    rows_a = sum(1 for r in want if r["dt"] == "a")
    assert sum(e.file.row_count for e in added) == rows_a
    assert all(e.file.row_count <= 20 and e.file.level == 0 and e.file.file_source == 1 and e.file.schema_id == 1
               for e in added)
    for bucket in (0, 1):
        ins = [lf.file for lf in inputs_a if lf.entry.bucket == bucket]
        outs = sorted((e.file for e in added if e.bucket == bucket), key=lambda f: f.min_sequence_number)
        assert outs[0].min_sequence_number == min(f.min_sequence_number for f in ins)
        assert {e.partition for e in added} == {lf.entry.partition for lf in inputs_a}
    snap = raw_snapshot(root, 6)
    assert snap["deltaRecordCount"] == rows_a - sum(lf.file.row_count for lf in inputs_a)
    assert snap["totalRecordCount"] == raw_snapshot(root, 5)["totalRecordCount"] + snap["deltaRecordCount"]
    delta_meta = t.manifests()[t.manifests()["list_kind"] == "delta"].iloc[0]
    assert (delta_meta["num_added_files"], delta_meta["num_deleted_files"]) == (len(added), len(removed))
    # the deletion vectors of the compacted files are gone, the others stay
    dvs = t.deletion_vectors()
    assert {p["dt"] for p in dvs["partition"]} == {"b"}
    assert snap["indexManifest"] != raw_snapshot(root, 5)["indexManifest"]
    # the new files carry the index configured since; the uncompacted old ones still lack it
    with_bitmap = indexed(t, "bitmap", "status")
    assert {e.file.file_name for e in added} <= with_bitmap
    assert not any(lf.file.file_name in with_bitmap for lf in t.live_files()
                   if lf.partition == {"dt": "b"} and lf.file.schema_id == 0)
    # resetting the index option, then compacting everything: no file has the index any more
    w.alter(reset_options=["file-index.bitmap.columns"])
    assert w.compact(min_files=1) == 7
    t = paimon_lens.open_table(str(root))
    assert live_rows(t) == want and indexed(t, "bitmap", "status") == set()
    assert t.deletion_vectors().empty and len(t.live_files()) == 4
    check_counts(t)
    assert t.at(5).deletion_vectors()["cardinality"].sum() == 120 - len(want)  # the past is unchanged


def test_compaction_fills_added_columns_and_handles_fully_deleted_buckets(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], options={**DV, "deletion-vectors.bitmap64": "true"})
    w.commit(rows(0, 6, dts=("a",)))
    w.commit(rows(6, 6, dts=("b",)))
    w.alter(add_columns=pa.schema([("extra", pa.int64())]))
    w.commit(rows(12, 4, dts=("a",), extra=[7, None, 8, 9]))
    w.delete(lambda t: pc.equal(t["dt"], "b"))  # every row of b
    assert set(paimon_lens.open_table(str(root)).deletion_vectors()["kind"]) == {"64"}
    assert w.compact(min_files=1) == 5
    t = paimon_lens.open_table(str(root))
    assert [lf.partition["dt"] for lf in t.live_files()] == ["a"]  # b: only DELETE entries
    got = live_rows(t)
    assert [r["id"] for r in got] == list(range(6)) + list(range(12, 16))
    assert [r["extra"] for r in got] == [None] * 6 + [7, None, 8, 9]
    assert raw_snapshot(root, 5)["totalRecordCount"] == 10 and t.deletion_vectors().empty
    assert t.index_entries() == []  # an empty index manifest: no index file is live


def test_compaction_of_a_primary_key_table_is_not_written(tmp_path: Path) -> None:
    w = TableWriter.create(tmp_path / "t", SCHEMA, primary_keys=["id"], bucket=1)
    w.commit(rows(0, 3))
    with pytest.raises(NotImplementedError):
        w.compact()
    with pytest.raises(ValueError):
        w.delete({"x": [0]})


# ---- deletes ----------------------------------------------------------------------------------
def test_deletes_union_vectors_per_bucket_and_commit_overwrite(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], bucket=2, bucket_key="id", options=DV)
    w.commit(rows(0, 40))
    w.commit(rows(40, 40))
    t = paimon_lens.open_table(str(root))
    files = t.live_files()
    first, other = files[0], next(lf for lf in files if (lf.partition, lf.entry.bucket)
                                  != (files[0].partition, files[0].entry.bucket))
    same_bucket = next(lf for lf in files[1:] if (lf.partition, lf.entry.bucket)
                       == (first.partition, first.entry.bucket))
    name = first.file.file_name
    assert w.delete({name: [1, 3]}) == 3
    assert w.delete({name: [3, 5], other.file.file_name: [0]}) == 4
    assert w.delete({name: [1, 5]}) is None  # nothing new
    assert w.delete(lambda t: pc.equal(t["id"], -1)) is None
    assert w.delete({same_bucket.file.file_name: [2]}) == 5
    t = paimon_lens.open_table(str(root))
    assert positions_by_file(t) == {name: {1, 3, 5}, other.file.file_name: {0}, same_bucket.file.file_name: {2}}
    assert list(t.snapshots()["commit_kind"]) == ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE"]
    for sid in (3, 4, 5):
        snap = raw_snapshot(root, sid)
        assert snap["deltaRecordCount"] == 0 and snap["totalRecordCount"] == 80
        assert t.at(sid).reader.delta_entries() == []
    check_counts(t)
    # one DV index file per partition and bucket holding the vectors of all its files
    entries = t.index_entries()
    assert len(entries) == 2 and all(e.kind == 0 and e.index_type == "DELETION_VECTORS" for e in entries)
    by_bucket = {(e.partition, e.bucket): e for e in entries}
    mine = by_bucket[(first.entry.partition, first.entry.bucket)]
    assert mine.row_count == 2 and {d.data_file for d in mine.deletion_vectors or ()} == {
        name, same_bucket.file.file_name}
    assert [d.cardinality for d in mine.deletion_vectors or ()] == [3, 1]
    # the untouched bucket's index file is carried over unchanged
    previous = {(e.partition, e.bucket): e for e in t.at(4).index_entries()}
    key = (other.entry.partition, other.entry.bucket)
    assert by_bucket[key].file_name == previous[key].file_name
    assert (root / "index" / mine.file_name).is_file()
    assert live_rows(t) == [r for r in live_rows(t.at(2)) if r["id"] not in {
        file_rows(t, first).column("id")[p].as_py() for p in (1, 3, 5)} | {
        file_rows(t, other).column("id")[0].as_py(), file_rows(t, same_bucket).column("id")[2].as_py()}]
    # the index manifest is written with the Avro schema Paimon 2.0 writes
    with open(root / "manifest" / t.snapshot.index_manifest, "rb") as fh:
        ours = fastavro.reader(fh)
        ours_schema, ours_codec = ours.writer_schema, ours.codec
        records: list[Any] = list(ours)
    paimons = sorted((PK20 / "manifest").glob("index-manifest-*"))[0]
    with open(paimons, "rb") as fh:
        theirs = fastavro.reader(fh)
        assert (ours_schema, ours_codec) == (theirs.writer_schema, theirs.codec)
    assert {r["_VERSION"] for r in records} == {1} and all(r["_GLOBAL_INDEX"] is None for r in records)
    # later commits carry the index manifest forward
    assert w.commit(rows(80, 2)) == 6
    assert raw_snapshot(root, 6)["indexManifest"] == t.snapshot.index_manifest


def test_delete_refusals(tmp_path: Path) -> None:
    plain = TableWriter.create(tmp_path / "plain", SCHEMA, partition_keys=["dt"])
    plain.commit(rows(0, 4))
    with pytest.raises(ValueError, match=r"deletion-vectors\.enabled"):
        plain.delete(lambda t: pc.equal(t["id"], 1))
    w = TableWriter.create(tmp_path / "dv", SCHEMA, partition_keys=["dt"], options=DV)
    assert w.delete(lambda t: pc.equal(t["id"], 1)) is None  # no snapshot yet
    w.commit(rows(0, 4))
    name = paimon_lens.open_table(str(tmp_path / "dv")).live_files()[0].file.file_name
    with pytest.raises(ValueError, match="not a live data file"):
        w.delete({"data-nope.parquet": [0]})
    with pytest.raises(ValueError, match="must lie in"):
        w.delete({name: [2]})
    with pytest.raises(ValueError, match="values for the"):
        w.delete(lambda t: pa.array([True]))


def test_index_files_in_the_data_directory(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], options={**DV, "index-file-in-data-file-dir": "true"})
    w.commit(rows(0, 10))
    w.delete(lambda t: pc.less(t["id"], 3))
    w.delete(lambda t: pc.equal(t["id"], 8))  # reads the vectors back from the bucket directory
    t = paimon_lens.open_table(str(root))
    assert sorted(r["id"] for r in live_rows(t)) == [3, 4, 5, 6, 7, 9]
    assert not (root / "index").exists() and len(list(root.glob("dt=*/bucket-0/index-*"))) == 3


# ---- tags -------------------------------------------------------------------------------------
def test_tags(tmp_path: Path) -> None:
    root = tmp_path / "t"
    w = TableWriter.create(root, SCHEMA, partition_keys=["dt"], options=DV)
    for k in range(4):
        w.commit(rows(k * 5, 5))
    w.delete(lambda t: pc.equal(t["id"], 0))
    path = w.tag("first", 1)
    assert path == root / "tag" / "tag-first"
    assert w.tag("latest") == root / "tag" / "tag-latest"
    tag = json.loads(path.read_text(encoding="utf-8"))
    created = tag.pop("tagCreateTime")
    assert tag == raw_snapshot(root, 1)
    assert 5 <= len(created) <= 7 and created[0] >= 2024 and all(isinstance(v, int) for v in created)
    t = paimon_lens.open_table(str(root))
    assert sorted(t.snapshot_manager.tag_names()) == ["first", "latest"]
    assert t.snapshot_manager.tag("latest").index_manifest == t.snapshot.index_manifest
    tagged = paimon_lens.open_table(str(root), tag="first")
    assert tagged.snapshot_id == 1 and [r["id"] for r in live_rows(tagged)] == list(range(5))
    with pytest.raises(ValueError, match="already exists"):
        w.tag("first", 2)
    with pytest.raises(ValueError, match="does not exist"):
        w.tag("nope", 99)
    with pytest.raises(ValueError):
        w.tag("a/b")
    # expiring keeps the manifests a tag uses
    assert w.expire_snapshots(retain_last=1) == [1, 2, 3, 4]
    tagged = paimon_lens.open_table(str(root), tag="first")
    assert [r["id"] for r in live_rows(tagged)] == list(range(5))
    assert [r["id"] for r in live_rows(paimon_lens.open_table(str(root)))] == list(range(1, 20))


# ---- random histories against a model ---------------------------------------------------------
_ops = st.lists(st.one_of(
    st.tuples(st.just("append"), st.lists(st.sampled_from(["p", "q"]), min_size=1, max_size=8)),
    st.tuples(st.just("compact"), st.sampled_from([None, "p", "q"]), st.integers(1, 3)),
    st.tuples(st.just("delete"), st.integers(2, 5), st.integers(0, 4)),
    st.tuples(st.just("delete_at"), st.integers(0, 10_000)),
    st.tuples(st.just("alter"), st.booleans()),
), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(ops=_ops, bucket=st.sampled_from([-1, 2]), bitmap64=st.booleans())
def test_random_histories_match_a_model(tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[Any, ...]],
                                        bucket: int, bitmap64: bool) -> None:
    root = tmp_path_factory.mktemp("history") / "t"
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("part", pa.string())])
    w = TableWriter.create(root, schema, partition_keys=["part"], bucket=bucket,
                           bucket_key="id" if bucket > 0 else None,
                           options={**DV, "deletion-vectors.bitmap64": str(bitmap64).lower(),
                                    "file-index.bloom-filter.columns": "s", "file-index.bloom-filter.s.items": "10"})
    model: dict[int, dict[str, Any]] = {}
    columns = list(schema.names)
    next_id, last = 0, 0
    for op in [("append", ["p", "q", "p", "q", "p"]), *ops]:
        sid: int | None
        if op[0] == "append":
            parts = op[1]
            batch = [{"id": next_id + i, "s": f"v{(next_id + i) % 4}", "part": p} for i, p in enumerate(parts)]
            for r in batch:
                for c in columns[3:]:
                    r[c] = None if r["id"] % 3 == 0 else r["id"] * 10
            next_id += len(parts)
            data = pa.Table.from_pylist(batch, schema=w.arrow_schema())
            sid = w.commit(data)
            model.update({r["id"]: r for r in batch})
        elif op[0] == "compact":
            _, part, min_files = op
            sid = w.compact(None if part is None else {"part": part}, min_files=min_files)
        elif op[0] == "delete":
            _, m, r = op
            def hit(t: pa.Table, m: int = m, r: int = r) -> list[bool]:
                return [v % m == r for v in t["id"].to_pylist()]

            sid = w.delete(hit)
            gone = [i for i in model if i % m == r]
            assert (sid is None) == (not gone)
            for i in gone:
                del model[i]
        elif op[0] == "delete_at":
            if last == 0:
                continue
            t = paimon_lens.open_table(str(root))
            files = t.live_files()
            if not files:
                continue
            lf = files[op[1] % len(files)]
            pos = op[1] % lf.file.row_count
            victim = file_rows(t, lf).column("id")[pos].as_py()
            sid = w.delete({lf.file.file_name: [pos]})
            assert (sid is None) == (victim not in model)
            model.pop(victim, None)
        else:
            if op[1]:
                name = f"c{len(columns)}"
                assert w.alter(add_columns=pa.schema([(name, pa.int64())])) == w.schema.id
                columns.append(name)
                for r in model.values():
                    r[name] = None
            elif "file-index.bitmap.columns" in w.schema.options:
                w.alter(reset_options=["file-index.bitmap.columns"])
            else:
                w.alter(set_options={"file-index.bitmap.columns": "s"})
            continue
        event(f"{op[0]} {'committed' if sid is not None else 'nothing to commit'}")
        if sid is not None:
            assert sid == last + 1
            last = sid
        if last:
            t = paimon_lens.open_table(str(root))
            assert t.snapshot_id == last
            assert live_rows(t) == sorted(model.values(), key=lambda r: r["id"])
            check_counts(t)
            names = {lf.file.file_name for lf in t.live_files()}
            assert set(positions_by_file(t)) <= names


# ---- the history scenario ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    start = time.perf_counter()
    doc = write_history(tmp_path_factory.mktemp("scenario") / "orders")
    doc["seconds"] = time.perf_counter() - start
    return doc


def test_history_scenario_snapshots(history: dict[str, Any]) -> None:
    h = history
    assert h["seconds"] < 15  # about 2 s; generous for slow CI machines
    t = paimon_lens.open_table(h["path"])
    kinds = dict(zip(t.snapshots()["snapshot_id"], t.snapshots()["commit_kind"]))
    assert len(kinds) == h["latest"] == max(kinds) and len(h["appends"]) == 24
    assert all(kinds[s] == "APPEND" for s in h["appends"])
    compactions = [h["partial_compaction"], h["full_compaction"], h["mishap_compaction"]]
    assert [kinds[s] for s in compactions] == ["COMPACT"] * 3 and all(kinds[s] == "OVERWRITE" for s in h["deletes"])
    assert kinds[h["late_delete"]] == "OVERWRITE"
    assert sorted(h["appends"] + compactions + h["deletes"] + [h["late_delete"]]) == list(range(1, h["latest"] + 1))
    assert h["before_mishap"] == h["mishap_compaction"] - 1 and h["schemas"] == 4
    schema_of = dict(zip(t.snapshots()["snapshot_id"], t.snapshots()["schema_id"]))
    assert schema_of[h["index_added"] - 1] == 0 and schema_of[h["index_added"]] == h["index_schema"] == 1
    assert schema_of[h["column_added"]] == h["column_schema"] == 2 and schema_of[h["column_added"] - 1] == 1
    assert schema_of[h["mishap_compaction"]] == h["mishap_schema"] == 3
    assert sorted(h["tags"]) == [f"daily-{d}" for d in h["days"]]
    for name, sid in h["tags"].items():
        assert t.snapshot_manager.tag(name).id == sid
    check_counts(t)


def test_history_scenario_indexes_deletes_and_the_mishap(history: dict[str, Any]) -> None:
    h = history
    t = paimon_lens.open_table(h["path"])

    def bitmap_coverage(sid: int, dt: str | None = None) -> tuple[int, int]:
        at = t.at(sid)
        names = {lf.file.file_name for lf in at.live_files() if dt is None or lf.partition["dt"] == dt}
        return len(indexed(at, "bitmap", "status") & names), len(names)

    covered, files = bitmap_coverage(h["index_added"])
    assert 0 < covered < files  # files written before the alter have no index
    covered, files = bitmap_coverage(h["partial_compaction"], h["partial_compaction_partition"])
    assert covered == files  # the compaction rebuilt the first day with the index
    covered, files = bitmap_coverage(h["full_compaction"])
    assert covered == files and t.at(h["full_compaction"]).deletion_vectors().empty
    deletes = t.at(h["deletes"][-1]).deletion_vectors()
    assert not deletes.empty and {p["dt"] for p in deletes["partition"]} == {h["delete_partition"]}
    assert (deletes["cardinality"] > 0).all()
    covered, files = bitmap_coverage(h["before_mishap"], h["mishap_partition"])
    assert covered == files > 2
    assert bitmap_coverage(h["mishap_compaction"], h["mishap_partition"])[0] == 0
    assert indexed(t.at(h["mishap_compaction"]), "bloom-filter", "id")  # only the bitmap was reset
    # the rare status: almost every file skipped before the mishap, the whole partition read after
    before = t.at(h["before_mishap"]).explain(h["rare_query"]).to_dict()["summary"]
    after = t.at(h["mishap_compaction"]).explain(h["rare_query"]).to_dict()["summary"]
    assert before["read_files"] <= 2 < before["files"] and after["read_bytes"] > before["read_bytes"]
    rare = [r for r in live_rows(t) if r["status"] == RARE_STATUS]
    assert len(rare) == 2 and {r["dt"] for r in rare} <= set(h["days"][:2])
    late = t.deletion_vectors()
    assert {p["dt"] for p in late["partition"]} == {h["late_delete_partition"]}


def test_history_is_deterministic(history: dict[str, Any], tmp_path: Path) -> None:
    again = write_history(tmp_path / "again")
    same = {k: v for k, v in history.items() if k not in ("path", "seconds")}
    assert {k: v for k, v in again.items() if k != "path"} == same
    ours = live_rows(paimon_lens.open_table(history["path"]))
    assert live_rows(paimon_lens.open_table(again["path"])) == ours
    assert write_history(tmp_path / "other", seed=8)["rows"] == history["rows"]
    with pytest.raises(ValueError):
        write_history(tmp_path / "short", appends=5)


READ_SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory
catalog = CatalogFactory.create({"warehouse": sys.argv[1]})
table = catalog.get_table(sys.argv[2])
builder = table.new_read_builder()
data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
print(json.dumps({"rows": data.num_rows, "ids": sorted(data.column("id").to_pylist()), "columns": data.column_names}))
"""


@pytest.fixture(scope="module")
def pypaimon_python() -> Path:
    return _pypaimon_python()


def test_pypaimon_reads_the_history(pypaimon_python: Path, history: dict[str, Any], tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    (warehouse / "h.db").mkdir(parents=True)
    (warehouse / "h.db" / "orders").symlink_to(history["path"], target_is_directory=True)
    script = tmp_path / "read.py"
    script.write_text(READ_SCRIPT)
    run = subprocess.run([str(pypaimon_python), str(script), str(warehouse), "h.orders"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    t = paimon_lens.open_table(history["path"])
    ours = live_rows(t)
    deleted = int(t.deletion_vectors()["cardinality"].sum())
    assert deleted > 0 and got["rows"] == len(ours) == sum(lf.file.row_count for lf in t.live_files()) - deleted
    assert got["ids"] == [r["id"] for r in ours]
    assert got["columns"] == t.schema.field_names


def test_synth_cli_history(tmp_path: Path) -> None:
    import argparse
    import io

    from paimon_lens.synth import add_synth_parser

    parser = argparse.ArgumentParser(prog="paimon-lens")
    add_synth_parser(parser.add_subparsers(dest="command", required=True))
    out = io.StringIO()
    args = parser.parse_args(["synth", str(tmp_path / "h"), "--history", "--seed", "3", "--format", "json"])
    assert args.func(args, out) == 0
    doc = json.loads(out.getvalue())
    assert doc["seed"] == 3 and paimon_lens.open_table(doc["path"]).snapshot_id == doc["latest"]
    out = io.StringIO()
    args = parser.parse_args(["synth", str(tmp_path / "x")])
    assert args.func(args, out) == 2 and "--rows and --files are required" in out.getvalue()
