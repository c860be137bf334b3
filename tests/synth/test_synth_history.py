"""``synth_history``: long table histories whose appended data files are written by Spark tasks (or in
process), committed in order by paimon-lens' writer; read back with paimon-lens."""

from __future__ import annotations

import argparse
import io
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.synth import add_synth_parser, synth_history
from paimon_lens.synth.history_job import APPEND, COMPACT, DELETE, FULL_COMPACT, plan_history
from tests.history.test_history import brute_force
from tests.writer.test_history_commits import indexed, live_rows, positions_by_file

#: 30 snapshots over 5 days: partial compactions every 7th, deletes every 5th, the full compaction at 27
LOCAL: dict[str, Any] = {"commits": 30, "files_per_commit": 4, "rows_per_file": 40, "partitions": 5,
                         "compact_every": 7, "delete_every": 5, "seed": 3}
#: the Spark run and its local twin
SPARK: dict[str, Any] = {"commits": 20, "files_per_commit": 3, "rows_per_file": 30, "partitions": 4,
                         "compact_every": 6, "delete_every": 4, "seed": 5}
PLAN_DEFAULTS: dict[str, Any] = {"index_at": 0.3, "column_at": 0.6, "full_compaction_at": 0.9}
TIMES = ("path", "engine", "seconds", "task_seconds")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return synth_history(tmp_path_factory.mktemp("long") / "orders", engine="local", **LOCAL)


def _open(doc: dict[str, Any]) -> Any:
    return pl.open_table(doc["path"], progress=False)


def _same(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in TIMES}


def _live_rows(table: Any) -> list[dict[str, Any]]:
    """The rows a reader returns: live files' rows minus their deletion vectors, by order_id."""
    return live_rows(table, "order_id")


def _expected_rows(kwargs: dict[str, Any]) -> dict[int, int]:
    """Rows a reader returns after every snapshot: appended so far minus deleted so far (the plan)."""
    plan = plan_history(**{**PLAN_DEFAULTS, **kwargs})
    out, total = {}, 0
    for step in plan.steps:
        total += sum(f.rows for f in step.files) - sum(len(p) for _, p in step.deletes)
        out[step.snapshot] = total
    return out


def test_kinds_schemas_and_tags(history: dict[str, Any]) -> None:
    h = history
    t = _open(h)
    snaps = t.snapshots()
    kinds = dict(zip(snaps["snapshot_id"], snaps["commit_kind"]))
    schema_of = dict(zip(snaps["snapshot_id"], snaps["schema_id"]))
    assert len(kinds) == h["latest"] == h["commits"] == 30
    assert all(kinds[s] == "APPEND" for s in h["appends"]) and len(h["appends"]) >= 15
    assert h["compactions"] and all(kinds[s] == "COMPACT" for s in h["compactions"])
    assert h["full_compaction"] == 27 and kinds[27] == "COMPACT"
    assert h["deletes"] and all(kinds[s] == "OVERWRITE" for s in h["deletes"])
    every = h["appends"] + h["compactions"] + [h["full_compaction"]] + h["deletes"]
    assert sorted(every) == list(range(1, 31))
    assert all(s % 7 == 0 for s in h["compactions"]) and all(s % 5 == 0 for s in h["deletes"])
    assert set(h["compaction_partitions"].values()) <= set(h["days"])
    # the index is added after 30 % of the snapshots (schema 1), the column after 60 % (schema 2)
    assert h["schema_ids"] == [0, 1, 2] and h["index_schema"] == 1 and h["column_schema"] == 2
    assert [schema_of[s] for s in range(1, 31)] == [0] * 9 + [1] * 9 + [2] * 12
    assert h["index_added"] == min(s for s in h["appends"] if s > 9)
    assert h["column_added"] == min(s for s in h["appends"] if s > 18)
    assert t.schema.field_names[-1] == h["added_column"] == "channel"
    # a tag every tenth of the snapshots
    assert h["tags"] == {f"checkpoint-{k}": 3 * k for k in range(1, 11)}
    for name, sid in h["tags"].items():
        assert t.snapshot_manager.tag(name).id == sid
    # the counts returned are the table's
    assert h["files_per_snapshot"] == [len(t.at(s).live_files()) for s in range(1, 31)]
    live = t.live_files()
    assert h["live_files"] == len(live) and h["files_written"] == LOCAL["files_per_commit"] * len(h["appends"])
    # after the full compaction
    assert h["indexed_live_files"] == len(indexed(t, "bitmap", "status")) == len(live)
    assert h["dv_live_files"] == len(positions_by_file(t))


def test_timeline_equals_brute_force(history: dict[str, Any]) -> None:
    h = history
    t = _open(h)
    timeline = t.history()
    assert not timeline.problems
    assert [f.snapshot_id for f in timeline] == list(range(1, 31))
    assert [f.files for f in timeline] == h["files_per_snapshot"]
    facts = {f.snapshot_id: f for f in timeline}
    sample = {1, h["index_added"] - 1, h["index_added"], h["compactions"][0], h["compactions"][-1], h["deletes"][0],
              h["deletes"][2], h["column_added"], h["full_compaction"], h["latest"]}
    for sid in sorted(sample):
        expected = brute_force(t, sid)
        got = {k: getattr(facts[sid], k) for k in expected}
        if got["dv_max_bucket_ratio"] is not None:
            got["dv_max_bucket_ratio"] = pytest.approx(got["dv_max_bucket_ratio"])
        assert got == expected, sid


def test_indexes_follow_the_schema_and_the_compactions(history: dict[str, Any]) -> None:
    h = history
    t = _open(h)

    def coverage(sid: int, dt: str | None = None) -> tuple[int, int, int]:
        at = t.at(sid)
        names = {lf.file.file_name for lf in at.live_files() if dt is None or lf.partition["dt"] == dt}
        return (len(indexed(at, "bitmap", "status") & names),
                len(indexed(at, "bloom-filter", "customer_id") & names), len(names))

    assert coverage(h["index_added"] - 1)[:2] == (0, 0)
    bitmap, bloom, files = coverage(h["index_added"])
    assert bitmap == bloom == LOCAL["files_per_commit"] < files  # only the files written after the alter
    later = [s for s in h["compactions"] if s > h["index_added"]]
    assert later
    for sid in later:  # a compaction rewrites its partition with the indexes
        bitmap, bloom, files = coverage(sid, h["compaction_partitions"][sid])
        assert bitmap == bloom == files == 1
    bitmap, bloom, files = coverage(h["full_compaction"])
    assert bitmap == bloom == files == len(h["days"])
    assert t.at(h["full_compaction"]).deletion_vectors().empty


def test_rows_read_back(history: dict[str, Any]) -> None:
    h = history
    t = _open(h)
    expected = _expected_rows(LOCAL)
    assert expected[30] == h["live_rows"] == h["rows"] - h["deleted_rows"]
    for sid in range(1, 31):
        at = t.at(sid)
        stored = sum(lf.file.row_count for lf in at.live_files())
        deleted = sum(len(p) for p in positions_by_file(at).values())
        assert stored - deleted == expected[sid], sid
        assert at.snapshot.total_record_count == stored
    for sid in (h["deletes"][1], h["latest"]):
        rows = _live_rows(t.at(sid))
        ids = [r["order_id"] for r in rows]
        assert len(rows) == expected[sid] and len(set(ids)) == len(ids)
    rows = _live_rows(t)
    assert {r["dt"] for r in rows} == set(h["days"])
    older = {r["order_id"] for r in _live_rows(t.at(h["column_added"] - 1))}
    assert older and all(r["channel"] is None for r in rows if r["order_id"] in older)  # null before the column
    newer = [r["channel"] for r in rows if r["order_id"] not in older]
    assert newer and sum(c is not None for c in newer) > 0.8 * len(newer)  # 5 % of the channels are null


def test_spark_history_has_the_shape_of_the_local_one(spark: Any, tmp_path: Path) -> None:
    on_spark = synth_history(tmp_path / "spark", engine="spark", spark=spark, **SPARK)
    local = synth_history(tmp_path / "local", engine="local", **SPARK)
    assert on_spark["engine"] == "spark" and _same(on_spark) == _same(local)
    ts, tl = _open(on_spark), _open(local)
    shape = ["snapshot_id", "commit_kind", "schema_id", "total_record_count"]
    assert ts.snapshots()[shape].equals(tl.snapshots()[shape])
    for sid in range(1, SPARK["commits"] + 1):
        a, b = ts.at(sid).live_files(), tl.at(sid).live_files()
        assert len(a) == len(b), sid
        assert sorted((lf.partition["dt"], lf.file.row_count, lf.file.schema_id) for lf in a) == \
            sorted((lf.partition["dt"], lf.file.row_count, lf.file.schema_id) for lf in b), sid
    assert {lf.file.file_name for lf in ts.at(3).live_files()} == {lf.file.file_name for lf in tl.at(3).live_files()}
    assert _live_rows(ts) == _live_rows(tl)
    assert ts.history().problems == []


def test_the_plan_is_deterministic_and_keeps_its_counts() -> None:
    kwargs = {**PLAN_DEFAULTS, "commits": 1000, "files_per_commit": 11, "rows_per_file": 20, "partitions": 200,
              "compact_every": 50, "delete_every": 0, "seed": 0, "index_at": 0.0, "column_at": None,
              "full_compaction_at": None}
    plan = plan_history(**kwargs)
    assert plan == plan_history(**kwargs) and plan != plan_history(**{**kwargs, "seed": 1})
    kinds = [s.kind for s in plan.steps]
    assert len(kinds) == 1000 and kinds.count(COMPACT) == 20 and kinds.count(APPEND) == 980
    assert FULL_COMPACT not in kinds and DELETE not in kinds and plan.alters == ((0, "index"),)
    names = [f.file_name for s in plan.steps for f in s.files]
    assert len(names) == len(set(names)) == 980 * 11
    keys = [(f.key_start, f.key_start + f.key_span) for s in plan.steps for f in s.files]
    assert all(a[1] <= b[0] for a, b in pairwise(keys))  # order_id ranges increase, never overlap
    # a compaction rewrites a day the stream has left (the one with the most files)
    for s in plan.steps:
        if s.kind == COMPACT:
            current = (s.snapshot - 1) * 200 // 1000
            assert s.partition is not None and s.partition < plan.days[current]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"commits": 0}, "commits must be"),
    ({"files_per_commit": 0}, "files_per_commit"),
    ({"rows_per_file": 1}, "rows_per_file"),
    ({"partitions": 0}, "partitions"),
    ({"compact_every": -1}, "compact_every"),
    ({"index_at": 1.5}, "index_at"),
    ({"engine": "ray"}, "engine must be"),
    ({"options": {"bucket": "2"}}, "set by synth_history"),
])
def test_bad_arguments(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        synth_history(tmp_path / "t", **{"engine": "local", "commits": 3, **kwargs})
    assert not (tmp_path / "t").exists()


def test_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "keep").write_text("x")
    with pytest.raises(FileExistsError):
        synth_history(tmp_path / "t", engine="local", commits=3)
    assert [p.name for p in (tmp_path / "t").iterdir()] == ["keep"]


def _cli(argv: list[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="paimon-lens")
    add_synth_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    out = io.StringIO()
    code: int = args.func(args, out)
    return code, out.getvalue()


def test_cli_long_history(tmp_path: Path) -> None:
    code, text = _cli(["synth", str(tmp_path / "h"), "--history", "--commits", "12", "--files-per-commit", "2",
                       "--rows-per-file", "20", "--partitions", "3", "--compact-every", "5", "--delete-every", "4",
                       "--seed", "2", "--engine", "local", "--format", "json"])
    assert code == 0
    doc = json.loads(text)
    assert doc["latest"] == 12 and doc["engine"] == "local" and len(doc["days"]) == 3 and doc["deletes"]
    t = _open(doc)
    assert t.snapshot_id == 12 and len(t.live_files()) == doc["live_files"]
    code, text = _cli(["synth", str(tmp_path / "t"), "--history", "--commits", "6", "--local"])
    assert code == 0 and "6 snapshots" in text and "live files" in text
    code, text = _cli(["synth", str(tmp_path / "x"), "--commits", "6", "--local"])
    assert code == 2 and "add --history" in text
    code, text = _cli(["synth", str(tmp_path / "x"), "--history", "--commits", "6", "--local", "--engine", "spark"])
    assert code == 2 and "contradicts" in text
    code, text = _cli(["synth", str(tmp_path / "x"), "--history", "--commits", "0", "--local"])
    assert code == 2 and "commits must be" in text and not (tmp_path / "x").exists()
