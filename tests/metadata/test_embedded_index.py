"""Embedded index containers kept as length and digest, read from their manifest again on use."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import fastavro
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paimon_lens as pl
from paimon_lens.errors import CorruptFileError, PaimonLensError
from paimon_lens.metadata import embedded_index as ei
from paimon_lens.metadata.embedded_index import EmbeddedIndex
from tests.conftest import FIXTURES, rewrite_avro
from tests.metadata.test_manifest_formats import rewrite_metadata

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


@pytest.fixture(autouse=True)
def read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """No container kept in its entry: every one read from its manifest again."""
    monkeypatch.setattr(ei._RESIDENT, "budget", 0)
    ei.clear_cache()


@pytest.fixture()
def events(tmp_path: Path) -> Path:
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    return copy


def _written(table_dir: Path) -> dict[str, bytes]:
    """Every embedded container the table's manifests hold, by data file name, read with fastavro."""
    out: dict[str, bytes] = {}
    for m in (table_dir / "manifest").glob("manifest-*"):
        if "-list-" in m.name:
            continue
        with open(m, "rb") as fh:
            for r in fastavro.reader(fh):
                f = r["_FILE"]  # type: ignore[call-overload,index]
                if f["_EMBEDDED_FILE_INDEX"] is not None:
                    out[f["_FILE_NAME"]] = f["_EMBEDDED_FILE_INDEX"]
    return out


def _embedded(t: pl.Table) -> list[tuple[str, EmbeddedIndex]]:
    return [(lf.entry.file.file_name, lf.entry.file.embedded_index) for lf in t.live_files()
            if lf.entry.file.embedded_index is not None]


def test_every_container_read_again_is_the_written_one() -> None:
    written = _written(EVENTS20)
    got = _embedded(pl.open_table(str(EVENTS20)))
    assert len(got) == 9  # the README: 9 files embedded
    for name, e in got:
        assert e.read() == written[name] and e.length == len(written[name])
        assert e._data is None and e.source is not None  # kept as length and digest only


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_columnar_manifests_read_again(events: Path, fmt: str) -> None:
    written = _written(events)
    rewrite_metadata(events, fmt)
    got = _embedded(pl.open_table(str(events)))
    assert {name: e.read() for name, e in got} == {name: written[name] for name, _ in got} and got


def test_avro_read_falls_back_to_the_whole_read(events: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(data: bytes) -> dict[str, list[bytes]]:
        raise ValueError("no projection")

    monkeypatch.setattr(ei, "_avro_containers", fail)
    written = _written(events)
    assert all(e.read() == written[name] for name, e in _embedded(pl.open_table(str(events))))


def test_a_manifest_changed_since_it_was_read_is_an_error(events: Path) -> None:
    t = pl.open_table(str(events))
    name, e = _embedded(t)[0]

    def change(r: dict) -> None:  # type: ignore[type-arg]
        if r["_FILE"]["_FILE_NAME"] == name:
            r["_FILE"]["_EMBEDDED_FILE_INDEX"] = b"\x00" * e.length  # same length, other bytes

    for m in (events / "manifest").glob("manifest-*"):
        if "-list-" not in m.name:
            rewrite_avro(m, change)
    e.source.size = None  # as if the list recorded no size: the bytes are what must be checked  # type: ignore[union-attr]
    with pytest.raises(CorruptFileError) as err:
        e.read()
    assert "_EMBEDDED_FILE_INDEX" in str(err.value) and name in str(err.value)
    assert e.source is not None and e.source.path in str(err.value)


def test_a_cached_read_is_read_again_when_it_lacks_the_bytes(events: Path) -> None:
    t = pl.open_table(str(events))
    name, e = _embedded(t)[0]
    e.read()  # cached now
    assert e.source is not None
    key = (e.source.path, e.source.size)
    _, size = ei._CACHE._entries[key]
    ei._CACHE._entries[key] = ({}, size)  # a stale cached value
    assert e.read() == _written(events)[name]


def test_a_manifest_removed_by_expiry_says_so(events: Path) -> None:
    t = pl.open_table(str(events))
    ei.clear_cache()
    _, e = _embedded(t)[0]
    assert e.source is not None
    Path(e.source.path).unlink()
    with pytest.raises(PaimonLensError, match="does not exist"):
        e.read()
    assert e.source.path in t.reader.file_io_missing  # what the consistency check looks at


def test_the_cache_is_bounded_by_bytes(events: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ei._CACHE, "budget", 1)
    for _, e in _embedded(pl.open_table(str(events))):
        e.read()
        assert len(ei._CACHE) == 1  # the manifest read last, whatever its size
    ei.clear_cache()
    assert not len(ei._CACHE) and ei._CACHE.size == 0


def test_equal_as_paimon_compares_the_bytes_and_pickled_whole() -> None:
    got = _embedded(pl.open_table(str(EVENTS20)))
    (_, a), (_, b) = got[0], got[1]
    again = dict(_embedded(pl.open_table(str(EVENTS20))))
    assert a == again[got[0][0]] and hash(a) == hash(again[got[0][0]]) and a != b
    copy = pickle.loads(pickle.dumps(a))
    assert copy == a and copy.read() == a.read() and len(copy) == len(a)


@given(st.binary(max_size=4096), st.binary(max_size=4096))
def test_kept_bytes_round_trip(x: bytes, y: bytes) -> None:
    a, b = EmbeddedIndex(x, "f", None), EmbeddedIndex(y, "f", None)
    assert a.read() == x and len(a) == len(x)
    assert (a == b) == (x == y)
    assert pickle.loads(pickle.dumps(a)).read() == x


def test_a_small_tables_containers_are_kept(events: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    monkeypatch.setattr(ei._RESIDENT, "budget", ei._RESIDENT.held + (1 << 20))
    gc.collect()  # other tests' entries given back first
    held = ei._RESIDENT.held
    t = pl.open_table(str(events))
    got = _embedded(t)
    assert all(e._data is not None for _, e in got)
    assert ei._RESIDENT.held == held + sum(e.length for _, e in got)
    for m in (events / "manifest").glob("manifest-*"):
        m.unlink()  # read from the entries, not the manifests
    written = _written(EVENTS20)
    assert all(e.read() == written[name] for name, e in got)
    del t, got
    gc.collect()
    assert ei._RESIDENT.held == held  # given back with the entries


def test_the_budget_keeps_the_first_containers() -> None:
    import gc

    gc.collect()
    budget = ei._RESIDENT.held + 3000  # two of events20's 1235-1680 B containers, not three
    ei._RESIDENT.budget = budget
    got = _embedded(pl.open_table(str(EVENTS20)))
    kept = [e for _, e in got if e._data is not None]
    assert 1 <= len(kept) <= 2 and sum(e.length for e in kept) <= 3000
    written = _written(EVENTS20)
    assert all(e.read() == written[name] for name, e in got)
