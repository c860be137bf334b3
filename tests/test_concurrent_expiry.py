"""A table that changes while it is read: commits and snapshot expirations during reads.

Every answer is either the answer for the snapshot it names or a clear SnapshotNotFoundError
("snapshot N expired while it was read"); a table opened at the latest snapshot retries (a few times) on
the newest. The writer is the project's own (``TableWriter``): each commit adds ``ROWS`` rows
(ids ``ROWS * (k - 1)`` .. ``ROWS * k - 1`` in commit ``k``), so the right answer for any snapshot
is known, and manifests are merged every few commits so that expirations delete manifests that
older snapshots use.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute  # pa.compute
import pytest

import paimon_lens as pl
from paimon_lens.errors import SnapshotNotFoundError
from paimon_lens.metadata.consistency import SnapshotMovedWarning
from paimon_lens.writer import TableWriter

ROWS = 40
FILES_PER_COMMIT = 2
WHERE = "id >= 0 AND country <> 'XX'"


def _rows(k: int) -> pa.Table:
    ids = list(range(ROWS * (k - 1), ROWS * k))
    return pa.table({"id": pa.array(ids, pa.int64()), "country": [("DE", "FR", "US")[i % 3] for i in ids]})


def _create(path: Path, **options: str) -> TableWriter:
    schema = pa.schema([("id", pa.int64()), ("country", pa.string())])
    return TableWriter.create(path, schema, options={"file-index.bitmap.columns": "country",
                                                     "manifest.merge-min-count": "3", **options})


def _commit(w: TableWriter, k: int) -> None:
    assert w.commit(_rows(k), rows_per_file=ROWS // FILES_PER_COMMIT) == k


def _check(report: object, table: pl.Table) -> int:
    """The explanation agrees with the snapshot it names; returns that snapshot id."""
    sid = report.snapshot_id  # type: ignore[attr-defined]
    assert sid == table.snapshot_id
    summary = report.summary()  # type: ignore[attr-defined]
    assert summary["files"] == FILES_PER_COMMIT * sid, (sid, summary)
    assert summary["matching_rows"] == ROWS * sid, (sid, summary)
    assert summary["files_with_errors"] == 0 and not report.notes  # type: ignore[attr-defined]
    return int(sid)


def test_latest_table_moves_on_when_its_snapshot_expires(tmp_path: Path) -> None:
    path = tmp_path / "t"
    w = _create(path)
    for k in range(1, 4):
        _commit(w, k)
    t = pl.open_table(str(path))  # snapshot 3, nothing of it read yet but the snapshot file
    assert t.snapshot_id == 3 and t.reader.follows_latest
    for k in range(4, 8):
        _commit(w, k)
    assert w.expire_snapshots(retain_last=2) == [1, 2, 3, 4, 5]
    with pytest.warns(SnapshotMovedWarning, match="snapshot 3 expired while it was read.*reading snapshot 7"):
        files = t.files()
    assert t.snapshot_id == 7 and len(files) == FILES_PER_COMMIT * 7
    _check(t.explain(WHERE, truth=True), t)


def test_pinned_snapshot_that_expires_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "t"
    w = _create(path)
    for k in range(1, 5):
        _commit(w, k)
    t = pl.open_table(str(path), snapshot=2)
    t.manifest_files()  # its lists are read; its manifests are not yet
    for k in range(5, 8):
        _commit(w, k)
    w.expire_snapshots(retain_last=1)
    with pytest.raises(SnapshotNotFoundError, match=r"snapshot 2 expired while it was read: .* is gone; "
                                                    r"the newest snapshot is 7"):
        t.explain(WHERE)


def test_expiry_between_manifests_and_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Manifests read, then the snapshot expires: the answer is not a mix of two snapshots."""
    from paimon_lens.metadata import embedded_index

    # a small table's embedded indexes are kept with its entries (the process holds no others)
    monkeypatch.setattr(embedded_index._RESIDENT, "budget", embedded_index._RESIDENT.held + (1 << 20))
    path = tmp_path / "t"
    w = _create(path)
    for k in range(1, 4):
        _commit(w, k)
    t = pl.open_table(str(path))
    assert len(t.live_files()) == FILES_PER_COMMIT * 3
    for k in range(4, 7):
        _commit(w, k)
    w.expire_snapshots(retain_last=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SnapshotMovedWarning)
        r = t.explain(WHERE, truth=True)  # data files all still exist (append-only): snapshot 3 is answered
    assert _check(r, t) == 3


def test_embedded_indexes_read_again_from_expired_manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Embedded indexes kept as digests (a large table's) are read from their manifests again: when
    those expired, the answer moves whole to the newest snapshot and says so; a pinned table raises."""
    from paimon_lens.metadata import embedded_index

    monkeypatch.setattr(embedded_index._RESIDENT, "budget", 0)
    embedded_index.clear_cache()
    path = tmp_path / "t"
    w = _create(path)
    for k in range(1, 4):
        _commit(w, k)
    t, pinned = pl.open_table(str(path)), pl.open_table(str(path), snapshot=3)
    for table in (t, pinned):
        assert all(lf.entry.file.embedded_index is not None and lf.entry.file.embedded_index._data is None
                   for lf in table.live_files())
    for k in range(4, 7):
        _commit(w, k)
    w.expire_snapshots(retain_last=1)
    with pytest.warns(SnapshotMovedWarning, match="snapshot 3 expired while it was read"):
        r = t.explain(WHERE, truth=True)
    assert _check(r, t) == 6
    with pytest.raises(SnapshotNotFoundError, match="snapshot 3 expired"):
        pinned.explain(WHERE, truth=True)


WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from tests.test_concurrent_expiry import _commit
    from paimon_lens.writer import TableWriter

    w = TableWriter.open({path!r})
    k = {start}
    deadline = time.monotonic() + {seconds}
    while time.monotonic() < deadline:
        k += 1
        _commit(w, k)
        w.expire_snapshots(retain_last=2)
    print(k)
""")


@pytest.mark.timeout(180)
def test_reader_while_a_writer_commits_and_expires(tmp_path: Path) -> None:
    """A writer process commits and expires (retaining 2 snapshots) in a loop; the reader explains
    repeatedly, with new table objects and one long-lived one: no raw error, every answer right."""
    path = tmp_path / "t"
    w = _create(path)
    for k in range(1, 4):
        _commit(w, k)
    root = str(Path(__file__).resolve().parent.parent)
    writer = subprocess.Popen([sys.executable, "-c", WRITER.format(root=root, path=str(path), start=3, seconds=15)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    long_lived = pl.open_table(str(path))
    rng = random.Random(7)
    answers, clean_errors, moves = 0, 0, 0
    try:
        while writer.poll() is None:
            opened = pl.open_table(str(path))
            time.sleep(rng.uniform(0, 0.4))  # opened, then explained a moment later (as in a notebook)
            for table in (opened, long_lived):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", SnapshotMovedWarning)
                    try:
                        report = table.explain(WHERE, truth=True)
                        frame = table.files()
                    except SnapshotNotFoundError as e:
                        assert "expired while it was read" in str(e) or "not found" in str(e), e
                        clean_errors += 1
                        continue
                moves += sum(1 for c in caught if issubclass(c.category, SnapshotMovedWarning))
                _check(report, table)
                assert len(frame) == FILES_PER_COMMIT * table.snapshot_id
                answers += 1
    finally:
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err[-3000:]
    last = int(out.strip())
    assert last > 10, f"the writer made only {last} commits"
    assert answers > 5, (answers, clean_errors, moves)
    assert moves > 0, "no read was overtaken by an expiry: the race this test is about did not happen"
    print(f"{last} commits; {answers} answers, {moves} moves to a newer snapshot, {clean_errors} clean errors")


def _dv_files(path: Path, snapshot_id: int) -> set[str]:
    """The deletion-vector index files snapshot ``snapshot_id`` uses."""
    t = pl.open_table(str(path), snapshot=snapshot_id)
    return {e.file_name for e in t.index_entries() if e.deletion_vectors}


def test_pinned_snapshot_never_answers_from_what_was_read_before_it_expired(tmp_path: Path) -> None:
    """A pinned table whose snapshot expires (its deletion-vector file deleted as Paimon's expiry
    deletes what no retained snapshot uses) raises, and raises again: the second call does not answer
    from the first one's partial reads (deletion vectors that "could not be read")."""
    import pyarrow.compute as pc

    path = tmp_path / "t"
    w = _create(path, **{"deletion-vectors.enabled": "true"})
    for k in range(1, 4):
        _commit(w, k)
    deleted_at = w.delete(lambda rows: pc.less(rows["id"], 30))
    assert deleted_at == 4
    t = pl.open_table(str(path), snapshot=4)
    assert len(t.live_files()) == FILES_PER_COMMIT * 3  # its manifests are read
    old = _dv_files(path, 4)
    w.delete(lambda rows: pc.less(rows["id"], 50))  # a new deletion-vector file replaces the old one
    _commit(w, 6)
    w.expire_snapshots(retain_last=1)
    for name in old - _dv_files(path, 6):
        (path / "index" / name).unlink()
    for _ in range(2):
        with pytest.raises(SnapshotNotFoundError, match="snapshot 4 expired while it was read"):
            t.explain(WHERE, truth=True)
    with pytest.raises(SnapshotNotFoundError, match="snapshot 4 expired"):
        t.deletion_vectors()
    latest = pl.open_table(str(path))
    rows = ROWS * 4 - 50  # commits 1-3 and 6, ids below 50 deleted
    assert latest.snapshot_id == 6 and latest.explain(WHERE, truth=True).summary()["matching_rows"] == rows


def _partitioned(path: Path) -> TableWriter:
    schema = pa.schema([("id", pa.int64()), ("country", pa.string())])
    return TableWriter.create(path, schema, partition_keys=["country"], options={"manifest.merge-min-count": "3"})


@pytest.mark.parametrize("moved_first", [False, True])
def test_lazily_listed_files_are_of_the_explanations_snapshot(tmp_path: Path, moved_first: bool) -> None:
    """An explanation with a partition filter lists the other partitions' files on first use: at its
    own snapshot, or not at all (its snapshot expired), never at the snapshot the table moved to."""
    path = tmp_path / "t"
    w = _partitioned(path)
    for k, country in enumerate(("DE", "FR", "US"), 1):  # a manifest per partition: DE's alone is read
        assert w.commit(_rows(k).filter(pa.compute.equal(_rows(k)["country"], country))) == k
    t = pl.open_table(str(path))
    r = t.explain("country = 'DE'")
    assert r.snapshot_id == 3 and not r.complete and r.skipped_manifests
    for k in range(4, 8):
        _commit(w, k)
    w.expire_snapshots(retain_last=1)
    if moved_first:
        with pytest.warns(SnapshotMovedWarning):
            t.files()
        assert t.snapshot_id == 7
    with pytest.raises(SnapshotNotFoundError, match="snapshot 3"):
        r.files  # noqa: B018
    with pytest.raises(SnapshotNotFoundError, match="snapshot 3"):
        r.to_dict()
    assert t.reader.follows_latest  # the explanation answered at its snapshot or not at all; the table still follows
    again = t.explain("country = 'DE'")  # a new explanation answers at the newest snapshot
    assert again.snapshot_id == 7 == t.snapshot_id and len(again.files) == len(pl.open_table(str(path)).files())


def test_lazily_listed_files_of_a_live_snapshot_are_listed_after_the_table_moved(tmp_path: Path) -> None:
    """The table moved on (its snapshot expired) but the explanation's snapshot is still readable
    through a tag: the other partitions' files are listed at the explanation's snapshot."""
    path = tmp_path / "t"
    w = _partitioned(path)
    for k in range(1, 4):
        _commit(w, k)
    t = pl.open_table(str(path))
    r = t.explain("country = 'DE'")
    want = [f.file_name for f in pl.open_table(str(path), snapshot=3).explain("country = 'DE'").files]
    w.tag("keep", 3)
    for k in range(4, 8):
        _commit(w, k)
    w.expire_snapshots(retain_last=1)
    t.reader.move_to_latest()
    assert t.snapshot_id == 7
    assert [f.file_name for f in r.files] == want and r.snapshot_id == 3


def test_where_file_answers_every_line_at_one_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``explain --where-file``: the table's snapshot expires after the first line is explained; the
    document's lines are all answered at the newest snapshot (the whole file again), and a note says so."""
    import json

    from paimon_lens.presentation.cli import main
    from paimon_lens.table.facade import Table

    path = tmp_path / "t"
    w = _partitioned(path)
    for k, country in enumerate(("DE", "FR", "US"), 1):
        assert w.commit(_rows(k).filter(pa.compute.equal(_rows(k)["country"], country))) == k
    lines = tmp_path / "where.sql"
    lines.write_text("country = 'DE'\nid >= 0\ncountry = 'US' AND id > 5\n")
    explain = Table.explain
    calls: list[int] = []

    def explain_then_expire(self: Table, *args: object, **kwargs: object) -> object:
        report = explain(self, *args, **kwargs)  # type: ignore[arg-type]
        calls.append(self.snapshot_id or 0)
        if len(calls) == 1:  # a streaming job commits and expires while the file is explained
            for k in range(4, 8):
                _commit(w, k)
            w.expire_snapshots(retain_last=1)
        return report

    monkeypatch.setattr(Table, "explain", explain_then_expire)
    # without --truth the first line reads DE's manifest only: its document needs the others, expired by then
    code = main(["explain", str(path), "--where-file", str(lines), "--format", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 0, err
    assert doc["snapshot_id"] == 7 and [p["snapshot_id"] for p in doc["predicates"]] == [7, 7, 7]
    assert "note: snapshot 3 expired while it was read" in err and "reading snapshot 7" in err
    assert calls == [3, 7, 7, 7]  # the first line at snapshot 3, then the whole file again at 7
    fresh = pl.open_table(str(path))
    for p in doc["predicates"]:
        assert p["summary"] == fresh.explain(p["where"]).summary()


def test_index_file_removed_by_expiry_is_an_expiry_not_a_file_error(tmp_path: Path) -> None:
    """The report's ``.index`` files are deleted by an expiry (as Paimon deletes what no retained
    snapshot uses) before its document is written: the document raises SnapshotNotFoundError, it does
    not show those files' index answers as read errors; the table then answers at the newest snapshot."""
    path = tmp_path / "t"
    w = _create(path, **{"file-index.in-manifest-threshold": "1 b"})  # every index in its own .index file
    for k in range(1, 4):
        _commit(w, k)
    t = pl.open_table(str(path))
    r = t.explain("country = 'ZZ'")  # the stats remove every file: no index answer is needed to plan
    assert all(f.index_location == "external" for f in r.files)
    for k in range(4, 7):
        _commit(w, k)
    assert w.compact(min_files=2) == 7  # every file rewritten: snapshot 3's files are used by none retained
    w.expire_snapshots(retain_last=1)
    latest = {lf.entry.file.file_name for lf in pl.open_table(str(path)).live_files()}
    gone = [f for f in r.files if f.file_name not in latest]
    assert len(gone) == len(r.files) and latest
    for f in gone:  # as Paimon's expiry deletes the data and index files no retained snapshot uses
        (path / f.path).with_name(f.file_name + ".index").unlink()
        (path / f.path).unlink()
    with pytest.raises(SnapshotNotFoundError, match="snapshot 3 expired"):
        r.to_dict()
    with pytest.warns(SnapshotMovedWarning):
        again = t.explain("country = 'DE'")
    assert again.snapshot_id == 7 and not any(f.error for f in again.files)


def test_data_file_deleted_while_opened_in_place_is_noted_as_missing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A local data file is opened in place after its size is checked: deleted in between (an expiry
    racing the read), it is noted as missing like every read of the table's file system, so that the
    expiry is recognised (not left as a per-file error), and the error says the file is gone."""
    from paimon_lens.errors import CorruptFileError
    from paimon_lens.formats import data_file

    path = tmp_path / "t"
    w = _create(path)
    _commit(w, 1)
    t = pl.open_table(str(path))
    lf = t.live_files()[0]
    check = data_file.check_size

    def check_then_delete(file_io: Any, where: str, *args: Any, **kwargs: Any) -> Any:
        size = check(file_io, where, *args, **kwargs)
        Path(where).unlink()
        return size

    monkeypatch.setattr(data_file, "check_size", check_then_delete)
    with pytest.raises(CorruptFileError, match="the file is gone"):
        data_file.read_stored_columns(t.reader, lf, [0])
    assert t.reader.file_io_missing == [str(path / lf.path)]


def test_a_health_row_is_read_at_one_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's snapshot expires (and its compacted-away files with it) while its health row is
    measured: the row is measured again, whole, at the newest snapshot, and says which one."""
    import paimon_lens.presentation.health as health
    from paimon_lens.catalog.filesystem import open_catalog

    path = tmp_path / "wh" / "db.db" / "t"
    w = _create(path, **{"file-index.in-manifest-threshold": "1 b"})  # .index files: read by findings
    for k in range(1, 4):
        _commit(w, k)
    real, fired = health.deleted_rows, []

    def expiring(table: Any, engine: Any) -> Any:
        if not fired:  # after the files were listed at snapshot 3, before the findings read the indexes
            fired.append(table.snapshot_id)
            assert w.compact() is not None
            w.commit(_rows(9), rows_per_file=ROWS)
            w.expire_snapshots(retain_last=1, delete_files=True)
        return real(table, engine)

    monkeypatch.setattr(health, "deleted_rows", expiring)
    with pytest.warns(SnapshotMovedWarning):
        row = open_catalog(str(tmp_path / "wh")).health().tables[0]
    latest = pl.open_table(str(path))
    assert fired == [3] and row.error is None, row.error
    assert row.snapshot_id == latest.snapshot_id == 5 and row.files == len(latest.live_files())
    assert row.to_dict()["snapshot_id"] == 5


def test_files_cli_answers_at_one_snapshot_when_index_files_expire_while_it_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``files`` reads each file's index size as it writes the file's record: when an expiry deletes
    those ``.index`` files meanwhile, the answer starts afresh at the newest snapshot (nothing of the
    first attempt in the output, no per-file error) and the CLI says it moved."""
    import json

    import paimon_lens.presentation.frames as frames
    from paimon_lens.presentation.cli import main

    path = tmp_path / "t"
    w = _create(path, **{"file-index.in-manifest-threshold": "1 b"})
    for k in range(1, 4):
        _commit(w, k)
    real, fired = frames.file_record, []

    def expiring(table: Any, lf: Any, as_json: bool) -> Any:
        if not fired:  # the first record: the table compacts and expires what snapshot 3 had
            fired.append(table.snapshot_id)
            assert w.compact() is not None
            w.commit(_rows(9), rows_per_file=ROWS)
            w.expire_snapshots(retain_last=1, delete_files=True)
        return real(table, lf, as_json)

    monkeypatch.setattr(frames, "file_record", expiring)
    assert main(["files", str(path), "--format", "json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    latest = pl.open_table(str(path))
    assert fired == [3] and doc["snapshot_id"] == latest.snapshot_id == 5
    assert [f["file_name"] for f in doc["files"]] == [lf.entry.file.file_name for lf in latest.live_files()]
    assert all(f["error"] is None and f["file_index"]["size"] for f in doc["files"])
    assert "snapshot 3 expired" in err
