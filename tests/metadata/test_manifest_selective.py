"""Selective manifest reads (``read_manifest_where``) are the whole read filtered, exactly.

For real manifests (Paimon 0.9 and 2.0 Java, pypaimon, the synthetic benchmark table), the same
manifests rewritten with every codec fastavro writes here, in blocks of a few records and with
many partitions, and corrupted copies: the entries of the kept partitions, their order, and the
error of a corrupt manifest are those of ``read_manifest`` followed by a partition filter.
"""

from __future__ import annotations

import datetime as _dt
import io
import random
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens.io.fileio import LocalFileIO
from paimon_lens.metadata import avro
from paimon_lens.metadata.avro import decode_avro
from paimon_lens.metadata.manifest import ManifestEntry, read_manifest, read_manifest_where

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIO = LocalFileIO()
CODECS = ["null", "deflate", "bzip2", "xz", "zstandard"]


def _manifests() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("**/manifest/manifest-*") if "-list-" not in p.name)


MANIFESTS = _manifests()


def _full(path: Path) -> list[ManifestEntry]:
    return read_manifest(FIO, str(path.parent), path.name)


def _partitions(entries: list[ManifestEntry]) -> list[bytes]:
    return list(dict.fromkeys(e.partition for e in entries))


def _outcome(read: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("entries", read())
    except Exception as e:
        return ("error", type(e).__name__, str(e))


def _assert_selects(path: Path, kept: set[bytes], size: int | None = None, selective: bool = True) -> None:
    """The selective read of ``path`` for ``kept`` is the whole read filtered (and was selective)."""
    full = _full(path)
    asked: list[bytes] = []

    def keep(p: bytes) -> bool:
        asked.append(p)
        return p in kept

    sel = read_manifest_where(FIO, str(path.parent), path.name, size, keep)
    assert sel.entries == [e for e in full if e.partition in kept]
    assert list(sel.partitions) == _partitions(full)
    assert len(asked) == len(set(asked))  # once per partition
    if selective:
        assert sel.whole is None, "the manifest was read whole"


def test_there_are_manifests() -> None:
    assert len([p for p in MANIFESTS if "tables20" in p.parts]) > 10
    assert len([p for p in MANIFESTS if "tables" in p.parts]) > 10


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: "/".join(p.parts[-4:]))
def test_each_partition_none_and_all(path: Path) -> None:
    parts = _partitions(_full(path))
    for kept in [set(), set(parts), *({p} for p in parts)]:
        _assert_selects(path, kept)
    _assert_selects(path, set(parts[:1]), size=path.stat().st_size)


MULTI = [p for p in MANIFESTS if len(_partitions(_full(p))) > 1]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_partition_subsets(data: st.DataObject) -> None:
    assert MULTI
    path = data.draw(st.sampled_from(MULTI))
    parts = _partitions(_full(path))
    kept = data.draw(st.sets(st.sampled_from(parts)))
    _assert_selects(path, kept)


# ---- rewritten manifests: every codec, small blocks, many partitions ---------------------------
def _rewrite(path: Path, out: Path, codec: str, sync_interval: int, partitions: list[bytes] | None,
             seed: int, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """``path``'s records written to ``out`` with ``codec`` in blocks of about ``sync_interval``
    bytes, shuffled and (given ``partitions``) moved to partitions drawn from those."""
    records, schema = decode_avro(path.read_bytes(), str(path))
    rng = random.Random(seed)
    many = records * (1 + 40 // max(1, len(records)))
    rng.shuffle(many)
    out_records = []
    for r in many:
        r = dict(r)
        if partitions is not None:
            r["_PARTITION"] = rng.choice(partitions)
        if edit is not None:
            edit(r)
        out_records.append(r)
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), out_records, codec=codec, sync_interval=sync_interval)
    out.write_bytes(buf.getvalue())
    return out


#: partitions of every length class: short, 63/64 bytes (one- and two-byte lengths), long
SYNTHETIC_PARTITIONS = [b"", b"\x00" * 8, b"a" * 63, b"b" * 64, b"c" * 300, *(bytes([i]) * 16 for i in range(12))]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), codec=st.sampled_from(CODECS), sync_interval=st.integers(1, 6000),
       n_parts=st.integers(1, len(SYNTHETIC_PARTITIONS)), seed=st.integers(0, 2**16))
def test_rewritten_manifests(data: st.DataObject, codec: str, sync_interval: int, n_parts: int, seed: int) -> None:
    path = data.draw(st.sampled_from(MANIFESTS))
    pool = random.Random(seed).sample(SYNTHETIC_PARTITIONS, n_parts)
    with tempfile.TemporaryDirectory() as tmp:
        out = _rewrite(path, Path(tmp) / "manifest-rewritten-0", codec, sync_interval, pool, seed)
        parts = _partitions(_full(out))
        kept = data.draw(st.sets(st.sampled_from(parts)))
        _assert_selects(out, kept)


def test_blocks_without_a_kept_partition_are_not_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _rewrite(MANIFESTS[0], tmp_path / "manifest-x-0", "deflate", 1, SYNTHETIC_PARTITIONS[:4], 1)
    decoded: list[int] = []
    real = avro.decode_avro

    def counting(data: bytes, path: str, field: str = "avro") -> Any:
        records, schema = real(data, path, field)
        decoded.append(len(records))
        return records, schema

    monkeypatch.setattr(avro, "decode_avro", counting)
    full = read_manifest(FIO, str(tmp_path), out.name)
    decoded.clear()
    kept = {SYNTHETIC_PARTITIONS[2]}
    sel = read_manifest_where(FIO, str(tmp_path), out.name, None, lambda p: p in kept)
    assert sel.whole is None and sel.entries == [e for e in full if e.partition in kept]
    assert decoded == [len(sel.entries)]  # one record a block: only the kept ones decoded


@pytest.mark.parametrize("when", [_dt.datetime(1, 1, 3, tzinfo=_dt.UTC),
                                  _dt.datetime(9999, 12, 29, tzinfo=_dt.UTC),
                                  _dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=_dt.UTC),
                                  None])
def test_creation_time_extremes(tmp_path: Path, when: _dt.datetime | None) -> None:
    def edit(r: dict[str, Any]) -> None:
        r["_FILE"] = dict(r["_FILE"], _CREATION_TIME=when)

    out = _rewrite(MANIFESTS[0], tmp_path / "manifest-t-0", "null", 100, SYNTHETIC_PARTITIONS[:3], 2, edit)
    _assert_selects(out, {SYNTHETIC_PARTITIONS[1]})


def test_unsupported_schema_reads_whole(tmp_path: Path) -> None:
    """A schema the scan does not handle (here: a nullable ``_FILE_NAME``) is read whole, with the
    same answer."""
    records, schema = decode_avro(MANIFESTS[0].read_bytes(), str(MANIFESTS[0]))
    for f in schema["fields"]:
        if f["name"] == "_FILE":
            for g in f["type"]["fields"]:
                if g["name"] == "_FILE_NAME":
                    g["type"] = ["null", "string"]
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec="null")
    out = tmp_path / "manifest-u-0"
    out.write_bytes(buf.getvalue())
    sel = read_manifest_where(FIO, str(tmp_path), out.name, None, lambda p: True)
    assert sel.whole is not None and sel.entries == _full(out)


# ---- corrupt manifests: the whole read's error, whatever is asked ------------------------------
def _corrupt_cases(tmp: Path) -> list[Path]:
    """Small manifests: two Paimon-written ones, and one rewritten in small blocks with each of
    three codecs (the large benchmark manifest is corrupted in :func:`test_large_manifest_corrupted`)."""
    multi = max(MULTI, key=lambda p: p.stat().st_size)
    out = [MANIFESTS[0], multi]
    for i, codec in enumerate(["null", "deflate", "zstandard"]):
        out.append(_rewrite(multi, tmp / f"manifest-c{i}-0", codec, 300, SYNTHETIC_PARTITIONS[:5], i))
    return out


def _selected(path: Path, size: int | None, kept: set[bytes]) -> list[ManifestEntry]:
    return read_manifest_where(FIO, str(path.parent), path.name, size, kept.__contains__).entries


def _assert_same_outcome(path: Path, size: int | None = None) -> None:
    full = _outcome(lambda: read_manifest(FIO, str(path.parent), path.name, size))
    parts = _partitions(full[1]) if full[0] == "entries" else SYNTHETIC_PARTITIONS[:5]
    for kept in [set(), set(parts), {parts[0]}, {parts[-1]}]:
        got = _outcome(partial(_selected, path, size, kept))
        if full[0] == "entries":
            assert got == ("entries", [e for e in full[1] if e.partition in kept])
        else:
            assert got == full


@pytest.fixture(scope="module")
def corrupt_sources() -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        yield [(p, p.read_bytes()) for p in _corrupt_cases(Path(tmp))]


def test_truncated(corrupt_sources: list[tuple[Path, bytes]], tmp_path: Path) -> None:
    rng = random.Random(7)
    for i, (_, data) in enumerate(corrupt_sources):
        cuts = {0, 3, 4, 100, len(data) - 1, len(data) - 16, len(data) - 17, *rng.sample(range(len(data)), 12)}
        for cut in sorted(cuts):
            out = tmp_path / f"manifest-trunc{i}-{cut}"
            out.write_bytes(data[:cut])
            _assert_same_outcome(out)
            _assert_same_outcome(out, size=len(data))


def test_bit_flips(corrupt_sources: list[tuple[Path, bytes]], tmp_path: Path) -> None:
    rng = random.Random(11)
    for i, (_, data) in enumerate(corrupt_sources):
        for _ in range(40):
            at, bit = rng.randrange(len(data)), rng.randrange(8)
            flipped = bytearray(data)
            flipped[at] ^= 1 << bit
            out = tmp_path / f"manifest-flip{i}-{at}-{bit}"
            out.write_bytes(bytes(flipped))
            _assert_same_outcome(out)


@pytest.fixture(scope="module")
def large_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A manifest of 1,000 entries over 10 partitions in many Avro blocks (the benchmarks' synthetic table)."""
    from benchmarks.synthetic_table import make_table

    root = make_table(tmp_path_factory.mktemp("large") / "t", files=1000, partitions=10, buckets=4,
                      rows_per_file=20, data_files=False)
    return min(p for p in (root / "manifest").glob("manifest-*") if "-list-" not in p.name)


def test_large_manifest_read_in_part(large_manifest: Path) -> None:
    """Every partition of a many-block manifest alone, and half of them, as the whole read filtered."""
    full = _full(large_manifest)
    parts = _partitions(full)
    assert len(full) >= 500 and len(parts) >= 5
    for keep in [{p} for p in parts] + [set(parts[::2])]:
        got = read_manifest_where(FIO, str(large_manifest.parent), large_manifest.name, None, keep.__contains__)
        assert got.entries == [e for e in full if e.partition in keep]


def test_large_manifest_corrupted(large_manifest: Path, tmp_path: Path) -> None:
    data = large_manifest.read_bytes()
    rng = random.Random(5)
    for i in range(4):
        out = tmp_path / f"manifest-big-trunc{i}"
        out.write_bytes(data[:rng.randrange(len(data))])
        _assert_same_outcome(out)
        flipped = bytearray(data)
        flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        out = tmp_path / f"manifest-big-flip{i}"
        out.write_bytes(bytes(flipped))
        _assert_same_outcome(out)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_bit_flips_anywhere(corrupt_sources: list[tuple[Path, bytes]], data: st.DataObject) -> None:
    _, original = data.draw(st.sampled_from(corrupt_sources))
    flipped = bytearray(original)
    for _ in range(data.draw(st.integers(1, 3))):
        flipped[data.draw(st.integers(0, len(original) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "manifest-flipped-0"
        out.write_bytes(bytes(flipped))
        _assert_same_outcome(out)


def test_bad_value_in_an_entry_not_asked_for(tmp_path: Path) -> None:
    """A negative ``_FILE_SIZE`` or a ``_KIND`` of 7 in another partition's entry: the whole read's
    error, not the kept partition's entries."""
    for field, value in (("_FILE_SIZE", -5), ("_KIND", 7), ("_LEVEL", -1)):
        def edit(r: dict[str, Any], field: str = field, value: int = value) -> None:
            if r["_PARTITION"] == SYNTHETIC_PARTITIONS[0]:
                if field == "_KIND":
                    r["_KIND"] = value
                else:
                    r["_FILE"] = dict(r["_FILE"], **{field: value})

        out = _rewrite(MULTI[0], tmp_path / f"manifest-v-{field}", "zstandard", 500, SYNTHETIC_PARTITIONS[:3], 3,
                       edit)
        full = _outcome(partial(read_manifest, FIO, str(tmp_path), out.name))
        assert full[0] == "error" and full[1] == "CorruptFileError"
        got = _outcome(partial(_selected, out, None, {SYNTHETIC_PARTITIONS[1]}))
        assert got == full


def test_missing_manifest_is_the_whole_reads_error(tmp_path: Path) -> None:
    full = _outcome(lambda: read_manifest(FIO, str(tmp_path), "manifest-gone-0", 10))
    got = _outcome(lambda: read_manifest_where(FIO, str(tmp_path), "manifest-gone-0", 10, lambda p: True))
    assert full[0] == "error" and got == full


# ---- the snapshot reader: live_files_where, its caches ------------------------------------------
@pytest.fixture(scope="module")
def synth_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An append table of 2,400 files over 10 partitions: 3 manifests in blocks of ~10 entries."""
    from benchmarks.synthetic_table import make_table

    return make_table(tmp_path_factory.mktemp("selective") / "t", files=2400, partitions=10, buckets=2,
                      data_files=False)


def _manifest_keep(reader: Any, kept: set[bytes]) -> Callable[[Any], bool]:
    """``keep(manifest)``: whether it holds a kept partition (what valid partition stats say)."""
    holds = {m.file_name: any(e.partition in kept for e in _full(Path(reader.manifest_dir) / m.file_name))
             for m in reader.manifest_files()}
    return lambda m: holds[m.file_name]


def _listing(files: list[Any]) -> list[tuple[Any, ...]]:
    return [(f.path, f.entry, f.partition) for f in files]


def test_live_files_where_is_the_listing_filtered(synth_table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paimon_lens.metadata import snapshot_reader
    from paimon_lens.metadata.snapshot_reader import open_reader

    everything = open_reader(str(synth_table), progress=False).live_files()
    partitions = list(dict.fromkeys(f.entry.partition for f in everything))
    assert len(partitions) == 10
    calls: list[str] = []
    real = snapshot_reader.read_manifest_where

    def counting(file_io: Any, manifest_dir: str, name: str, *args: Any) -> Any:
        calls.append(name)
        return real(file_io, manifest_dir, name, *args)

    monkeypatch.setattr(snapshot_reader, "read_manifest_where", counting)
    for kept in ({partitions[3]}, {partitions[0], partitions[9]}, set(partitions[:7])):
        reader = open_reader(str(synth_table), progress=False)
        keep = _manifest_keep(reader, kept)
        files, skipped = reader.live_files_where(lambda p, kept=kept: p in kept, keep)
        assert skipped and _listing(files) == _listing([f for f in everything if f.entry.partition in kept])
        read = [m.file_name for m in reader.manifest_files() if keep(m)]
        assert calls == read
        assert reader._cache.manifest_parts  # read in part
        # only whole manifests are cached as such
        for name, entries in reader._cache.manifests.items():
            assert entries == _full(Path(reader.manifest_dir) / name)
        # the same partitions again, on a reader sharing the caches: nothing is read
        calls.clear()
        again = reader.at(reader.snapshot_id)
        assert _listing(again.live_files_where(lambda p, kept=kept: p in kept, keep)[0]) == _listing(files)
        assert calls == []
        # then the whole listing
        assert _listing(again.live_files()) == _listing(everything)
        assert set(again._cache.manifests) == {m.file_name for m in again.manifest_files()}
        for name, entries in again._cache.manifests.items():
            assert entries == _full(Path(again.manifest_dir) / name)
        calls.clear()


def test_explain_is_the_same_read_selectively_or_whole(synth_table: Path) -> None:
    import paimon_lens

    for where in ("dt = '2025-01-03'", "dt IN ('2025-01-01', '2025-01-10')", "dt >= '2025-01-08'"):
        selective = paimon_lens.open_table(str(synth_table), progress=False)
        whole = paimon_lens.open_table(str(synth_table), progress=False)
        whole.live_files()
        a = selective.explain(where)
        assert a.skipped_manifests, where  # the manifest-level pruning ran (and the selective read)
        assert a.to_dict() == whole.explain(where).to_dict()
