"""Reads bounded by what the metadata records, and decoded counts checked against it.

Each case alters a copy of a Paimon-written table (``tests/fixtures``): a file larger than the
``_FILE_SIZE`` its metadata records is refused without being read, a deletion vector is read by
its range alone, a deletion vector that deletes another number of rows than recorded or rows the
data file does not have is an error on that file (never a silent count), 64-bit deletion vectors
count in explain like 32-bit ones, and row positions are listed lazily up to a cap.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyroaring import BitMap

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.deletion_vector import read_dv_index_file, serialize_deletion_vector, write_dv_index_file
from paimon_lens.io.fileio import LocalFileIO
from paimon_lens.presentation.cli import main
from tests.conftest import FIXTURES, load_json, rewrite_avro

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
ORDERS_DV = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
ORDERS_ORACLE = FIXTURES / "tables20" / "b20_pk_dv" / "oracle_orders_dv20.json"


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


@pytest.fixture()
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """Every local read as (path, bytes returned)."""
    seen: list[tuple[str, int]] = []
    read_bytes, read_range = LocalFileIO.read_bytes, LocalFileIO.read_range

    def rb(self: LocalFileIO, path: str) -> bytes:
        data = read_bytes(self, path)
        seen.append((path, len(data)))
        return data

    def rr(self: LocalFileIO, path: str, offset: int, length: int) -> bytes:
        data = read_range(self, path, offset, length)
        seen.append((path, len(data)))
        return data

    monkeypatch.setattr(LocalFileIO, "read_bytes", rb)
    monkeypatch.setattr(LocalFileIO, "read_range", rr)
    yield seen


def _grow(path: Path, extra: int) -> None:
    with open(path, "ab") as fh:
        fh.write(b"\0" * extra)


# ---- files larger than recorded ---------------------------------------------------------------

def test_manifest_larger_than_recorded_is_refused_unread(tmp_path: Path, reads: list[tuple[str, int]]) -> None:
    table = _copy(EVENTS20, tmp_path)
    manifest = table / "manifest" / pl.open_table(str(table)).manifest_files()[0].file_name
    _grow(manifest, 1 << 20)
    reads.clear()
    with pytest.raises(CorruptFileError) as e:
        pl.open_table(str(table)).files()
    assert e.value.path == str(manifest) and e.value.field == "_FILE_SIZE"
    assert "larger than its metadata records" in str(e.value)
    assert not [p for p, _ in reads if p == str(manifest)]


def test_data_file_larger_than_recorded_is_an_error_on_that_file(tmp_path: Path) -> None:
    table = _copy(EVENTS20, tmp_path)
    t = pl.open_table(str(table))
    want = t.explain("id > 0", truth=True)
    lf = max(t.live_files(), key=lambda f: f.entry.file.row_count)
    _grow(table / lf.path, 4096)
    got = pl.open_table(str(table)).explain("id > 0", truth=True)
    bad = next(f for f in got.files if f.file_name == lf.entry.file.file_name)
    assert bad.error and "_FILE_SIZE" in bad.error and bad.matching_rows is None
    others = {f.file_name: f.matching_rows for f in want.files if f.file_name != bad.file_name}
    assert {f.file_name: f.matching_rows for f in got.files if f.file_name != bad.file_name} == others
    assert got.summary()["files_with_errors"] == 1


def test_dv_index_file_larger_than_recorded(tmp_path: Path) -> None:
    table = _copy(ORDERS_DV, tmp_path)
    t = pl.open_table(str(table))
    entry = next(e for e in t.index_entries() if e.deletion_vectors)
    _grow(table / "index" / entry.file_name, 100)
    fresh = pl.open_table(str(table))
    dvs = fresh.deletion_vectors()
    hit = dvs[dvs["index_file"] == f"index/{entry.file_name}"]
    assert len(hit) == len(entry.deletion_vectors) and all("_FILE_SIZE" in e for e in hit["error"])
    data_file = entry.deletion_vectors[0].data_file
    r = fresh.explain("order_id > 0", truth=True)
    verdict = next(f for f in r.files if f.file_name == data_file)
    assert verdict.error and "deletion vector could not be read" in verdict.error


def test_oversized_snapshot_json_is_refused_unread(tmp_path: Path, reads: list[tuple[str, int]]) -> None:
    table = _copy(EVENTS20, tmp_path)
    snap = table / "snapshot" / f"snapshot-{pl.open_table(str(table)).snapshot_id}"
    with open(snap, "r+b") as fh:
        fh.truncate(100 << 20)  # sparse: nothing is written to disk
    reads.clear()
    with pytest.raises(CorruptFileError, match="larger than any such file can be"):
        pl.open_table(str(table)).files()
    assert not [p for p, _ in reads if p == str(snap)]


# ---- dv FILE --offset --length reads the blob only -------------------------------------------------

def test_cli_dv_range_reads_only_the_blob(tmp_path: Path, reads: list[tuple[str, int]],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    data, metas = write_dv_index_file({"a": [1, 5, 9], "b": range(0, 5000, 7)})
    path = tmp_path / "index-big"
    path.write_bytes(data + b"\0" * (8 << 20))  # 8 MiB after the blobs: never read
    m = metas[1]
    assert main(["dv", str(path), "--offset", str(m.offset), "--length", str(m.length), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cardinality"] == m.cardinality and doc["positions"] == list(range(0, 5000, 7))
    assert sum(n for _, n in reads) <= 1 + m.length + 8


def test_cli_dv_range_offset_past_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = write_dv_index_file({"a": [1]})
    path = tmp_path / "index-x"
    path.write_bytes(data)
    assert main(["dv", str(path), "--offset", str(len(data) + 10), "--length", "100"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "deletion_vector.offset" in err and "offset outside the file" in err


# ---- decoded counts checked against the metadata -------------------------------------------------

def _rewrite_dv_file(table: Path, change: Any, bitmap64: bool = False) -> tuple[str, dict[str, BitMap]]:
    """Re-write the DV index file holding the most vectors with ``change(vectors)`` applied, and the
    index manifest entries naming it (offsets, lengths, cardinalities, file size), as Paimon would."""
    t = pl.open_table(str(table))
    entry = max(t.index_entries(), key=lambda e: len(e.deletion_vectors or ()))
    path = table / "index" / entry.file_name
    vectors = {m.data_file: BitMap(v.positions)
               for m, v in zip(entry.deletion_vectors or (), read_dv_index_file(path.read_bytes()))}
    change(vectors)
    data, metas = write_dv_index_file(vectors, bitmap64=bitmap64)
    path.write_bytes(data)
    by_file = {m.data_file: m for m in metas}

    def fix(r: dict[str, Any]) -> None:
        if r["_FILE_NAME"] != entry.file_name:
            return
        r["_FILE_SIZE"] = len(data)
        for rng in r["_DELETIONS_VECTORS_RANGES"]:
            m = by_file[rng["f0"]]
            rng["f1"], rng["f2"], rng["_CARDINALITY"] = m.offset, m.length, m.cardinality

    for im in sorted((table / "manifest").glob("index-manifest-*")):
        rewrite_avro(im, fix)
    return entry.file_name, vectors


def _answers(table: Path) -> list[tuple[str, Any]]:
    t = pl.open_table(str(table))
    out = []
    for p in load_json(ORDERS_ORACLE)["predicates"][:25]:
        r = t.explain(p["sql"], truth=True)
        out.append((p["sql"], r.to_frame().to_dict("records"), r.funnel()))
    return out


def test_64_bit_deletion_vectors_count_in_explain(tmp_path: Path) -> None:
    """The same deletions written as 64-bit vectors (``deletion-vectors.bitmap64``) give the same answers."""
    original = _copy(ORDERS_DV, tmp_path / "a")
    want = _answers(original)
    table = _copy(ORDERS_DV, tmp_path / "b")
    _rewrite_dv_file(table, lambda v: None, bitmap64=True)
    dvs = pl.open_table(str(table)).deletion_vectors()
    assert "64" in set(dvs["kind"]) and dvs["error"].isna().all()
    assert _answers(table) == want


def test_cardinality_differs_from_index_manifest(tmp_path: Path) -> None:
    table = _copy(ORDERS_DV, tmp_path)
    name, vectors = _rewrite_dv_file(table, lambda v: None)
    victim = next(iter(vectors))

    def lie(r: dict[str, Any]) -> None:
        for rng in r.get("_DELETIONS_VECTORS_RANGES") or ():
            if rng["f0"] == victim and r["_FILE_NAME"] == name:
                rng["_CARDINALITY"] += 1

    for im in sorted((table / "manifest").glob("index-manifest-*")):
        rewrite_avro(im, lie)
    t = pl.open_table(str(table))
    dvs = t.deletion_vectors()
    row = dvs[dvs["data_file"] == victim].iloc[0]
    assert "deletion_vector cardinality" in row["error"] and "index manifest" in row["error"]
    verdict = next(f for f in t.explain("order_id > 0", truth=True).files if f.file_name == victim)
    assert verdict.error and "deletion vector could not be read" in verdict.error


def test_deleted_positions_beyond_the_file(tmp_path: Path) -> None:
    table = _copy(ORDERS_DV, tmp_path)
    rows = {lf.entry.file.file_name: lf.entry.file.row_count for lf in pl.open_table(str(table)).live_files()}
    victim: list[str] = []

    def beyond(v: dict[str, BitMap]) -> None:
        victim.append(next(f for f in v if f in rows))
        v[victim[0]].add(rows[victim[0]] + 10)

    _rewrite_dv_file(table, beyond)
    t = pl.open_table(str(table))
    dvs = t.deletion_vectors()
    row = dvs[dvs["data_file"] == victim[0]].iloc[0]
    assert "deletes rows the data file does not have" in row["error"]
    r = t.explain("order_id > 0", truth=True)
    verdict = next(f for f in r.files if f.file_name == victim[0])
    assert verdict.error and r.summary()["files_with_errors"] == 1


# ---- positions listed lazily, up to a cap --------------------------------------------------------

def _huge_dv(tmp_path: Path, bitmap64: bool) -> Path:
    bm = BitMap()
    bm.add_range(0, (1 << 31) - 1)  # two billion deleted rows, a few hundred bytes run-encoded
    path = tmp_path / "index-huge"
    blob = serialize_deletion_vector(bm, bitmap64=bitmap64)
    path.write_bytes(b"\x01" + blob)
    assert os.path.getsize(path) < 1 << 20
    return path


@pytest.mark.timeout(60)
@pytest.mark.parametrize("bitmap64", [False, True])
def test_cli_dv_positions_are_capped(tmp_path: Path, bitmap64: bool, capsys: pytest.CaptureFixture[str]) -> None:
    path = _huge_dv(tmp_path, bitmap64)
    main(["dv", str(path), "--format", "json", "--max-positions", "5"])
    v = json.loads(capsys.readouterr().out)["deletion_vectors"][0]
    assert v["positions"] == [0, 1, 2, 3, 4] and v["positions_truncated"] is True
    assert v["positions_count"] == v["cardinality"] == (1 << 31) - 1
    main(["dv", str(path), "--format", "json"])  # the default cap
    v = json.loads(capsys.readouterr().out)["deletion_vectors"][0]
    assert len(v["positions"]) == 1_000_000 and v["positions_truncated"] is True


def test_explain_positions_cap_flags_cut_lists() -> None:
    table = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
    r = pl.open_table(str(table)).explain("id > 0", truth=True)
    full = r.to_dict(positions=True)
    capped = r.to_dict(positions=True, max_positions=3)
    for a, b in zip(full["files"], capped["files"]):
        assert b["matching_positions"] == a["matching_positions"][:3]
        assert ("matching_positions" in b.get("positions_truncated", [])) == (len(a["matching_positions"]) > 3)
        assert "positions_truncated" not in a


# ---- a manifest row count the data file does not have ---------------------------------------------

def test_manifest_row_count_beyond_the_data_file(tmp_path: Path) -> None:
    """A ``_ROW_COUNT`` of 2^63 - 1 (found by fuzz_long: append_dv_py/manifest#888) sizes no row mask:
    the data file's own row count is checked first, and the file carries the error."""
    table = _copy(EVENTS20, tmp_path)
    victim = pl.open_table(str(table)).live_files()[0].entry.file.file_name

    def inflate(r: dict[str, Any]) -> None:
        if r["_FILE"]["_FILE_NAME"] == victim:
            r["_FILE"]["_ROW_COUNT"] = (1 << 63) - 1

    for m in sorted((table / "manifest").glob("manifest-*")):
        if not m.name.startswith("manifest-list"):
            rewrite_avro(m, inflate)
    t = pl.open_table(str(table))
    assert next(lf for lf in t.live_files() if lf.entry.file.file_name == victim).entry.file.row_count == (1 << 63) - 1
    for where in ("id > 0", "tag = 'x'", "id > 0 OR tag IS NULL"):
        report = t.explain(where, truth=True)
        verdict = next(f for f in report.files if f.file_name == victim)
        assert verdict.error and "manifest _ROW_COUNT" in verdict.error, where
        assert report.summary()["files_with_errors"] == 1


@pytest.mark.parametrize("where", ["order_id > 0", "order_id < 0"])
def test_unreadable_deletion_vector_is_never_counted_as_nothing_deleted(tmp_path: Path, where: str) -> None:
    """A file whose deletion vector cannot be read keeps the deleted-row count the index manifest
    records (not 0), has no ground truth (not every row counted as a match), is named in the notes
    whether it is read or skipped, and the summary says it is partial. A vector no answer needs (no
    truth, its file not planned) is not read, and its file is no error."""
    table = _copy(ORDERS_DV, tmp_path)
    t = pl.open_table(str(table))
    entry = next(e for e in t.index_entries() if e.deletion_vectors)
    recorded = {dv.data_file: dv.cardinality for dv in entry.deletion_vectors}
    plain = {f.file_name: f for f in t.explain(where, truth=True).files}
    _grow(table / "index" / entry.file_name, 100)
    for truth in (False, True):
        r = pl.open_table(str(table)).explain(where, truth=truth)
        s = r.summary()
        for f in r.files:
            if f.file_name not in recorded:
                continue
            assert f.deleted_rows == recorded[f.file_name] > 0, f.file_name
            if not (truth or f.planned):
                assert f.error is None
                continue
            assert f.error and "deletion vector could not be read" in f.error
            assert any(n.startswith(f.file_name) and "deletion vector could not be read" in n for n in r.notes)
            if truth:
                assert f.matching_rows is None and f.matching_positions is None
        needed = truth or any(f.planned for f in r.files if f.file_name in recorded)
        assert s["partial"] == needed and (s["files_with_errors"] >= len(recorded)) == needed
        if truth:
            unread = [n for n in recorded if n in plain]
            assert s["truth_unavailable_files"] == len(unread)
            assert s["matching_rows"] == sum(f.matching_rows or 0 for n, f in plain.items() if n not in recorded)
    assert not pl.open_table(str(ORDERS_DV)).explain(where).summary()["partial"]
