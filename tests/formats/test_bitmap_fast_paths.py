"""The bitmap index's fast paths: row counts read from Roaring headers, lazy numpy import.

:func:`paimon_lens.formats.roaring.portable_cardinalities` lets ``summary()`` count rows without
deserialising each bitmap. It must agree with ``len(BitMap.deserialize(...))`` to the row, and it
must never vouch for bytes pyroaring (or the reader's row check) would reject: what it declines
is decoded the old way, which raises the same ``CorruptFileError`` as before.
"""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

import paimon_lens.formats.bitmap as bitmap_module
from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.bitmap import BitmapFileIndexReader, write_bitmap_index
from paimon_lens.formats.roaring import portable_cardinalities
from paimon_lens.types import parse_type

LIMIT = 1 << 32


# ---- strategies ----------------------------------------------------------------------------------

@st.composite
def bitmaps(draw: st.DrawFn) -> BitMap:
    """Bitmaps with array, run and bitset containers (or none), optionally run-optimised."""
    values: set[int] = set()
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["sparse", "run", "dense", "edge"]))
        base = draw(st.integers(0, 40)) << 16
        if kind == "sparse":
            values.update(draw(st.lists(st.integers(0, (1 << 22) - 1), max_size=40)))
        elif kind == "run":
            start = base + draw(st.integers(0, 65535))
            values.update(range(start, start + draw(st.integers(1, 70000))))
        elif kind == "dense":  # > 4096 values in one chunk: a bitset container unless runs win
            rnd = random.Random(draw(st.integers(0, 2**32)))
            values.update(base + v for v in rnd.sample(range(65536), draw(st.integers(4097, 9000))))
        else:  # chunk ends and the largest positions
            values.update(draw(st.lists(st.sampled_from([0, 65535, 65536, 131071, (1 << 32) - 1,
                                                         (1 << 32) - 2, (1 << 31) - 1]), max_size=4)))
    bm = BitMap(values)
    if draw(st.booleans()):
        bm.run_optimize()
    return bm


def layout(serialized: list[bytes], gaps: list[int]) -> tuple[bytes, np.ndarray, np.ndarray]:
    """The bitmaps in one buffer with junk between them; their starts and lengths."""
    out = bytearray(b"\xAB" * gaps[0])
    starts, lengths = [], []
    for raw, gap in zip(serialized, gaps[1:]):
        starts.append(len(out))
        lengths.append(len(raw))
        out += raw
        out += b"\xCD" * gap
    return bytes(out), np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64)


def has_bitset(bm: BitMap) -> bool:
    return bool(bm.get_statistics()["n_bitset_containers"])


# ---- header counts equal pyroaring's -------------------------------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(bitmaps(), min_size=1, max_size=12), st.data())
def test_header_counts_equal_deserialized_lengths(bms: list[BitMap], data: st.DataObject) -> None:
    serialized = [bm.serialize() for bm in bms]
    gaps = data.draw(st.lists(st.integers(0, 3), min_size=len(bms) + 1, max_size=len(bms) + 1))
    buf, starts, lengths = layout(serialized, gaps)
    counts, ok = portable_cardinalities(buf, starts, lengths, LIMIT)
    for bm, raw, count, vouched in zip(bms, serialized, counts.tolist(), ok.tolist()):
        assert len(BitMap.deserialize(raw)) == len(bm)
        if vouched:
            assert count == len(bm)
        # Everything without bitset containers is counted from the header (the fast path is used).
        assert vouched == (not has_bitset(bm) and (len(bm.serialize()) >= 8)), (bm.get_statistics(), raw[:16].hex())
    # The row limit: a bitmap holding row `limit` or beyond is not vouched for.
    for i, bm in enumerate(bms):
        if bm and ok[i]:
            c, k = portable_cardinalities(buf, starts[i:i + 1], lengths[i:i + 1], bm.max())
            assert not k[0]
            c, k = portable_cardinalities(buf, starts[i:i + 1], lengths[i:i + 1], bm.max() + 1)
            assert k[0] and c[0] == len(bm)


def test_run_containers_keep_their_cardinality_in_the_header() -> None:
    """The portable format stores cardinality - 1 for run containers too (CRoaring ignores it)."""
    bm = BitMap(range(100, 200)) | BitMap(range(70000, 70010))
    bm.run_optimize()
    raw = bm.serialize()
    assert raw[:2] == (12347).to_bytes(2, "little")
    # cookie, size - 1, one byte of run flags, then (key, cardinality - 1) per container
    assert raw[4] == 0b11 and raw[5:13] == bytes([0, 0, 99, 0, 1, 0, 9, 0])
    counts, ok = portable_cardinalities(raw, np.array([0]), np.array([len(raw)]), LIMIT)
    assert ok[0] and counts[0] == 110
    wrong = bytearray(raw)
    wrong[7:9] = (5).to_bytes(2, "little")  # pyroaring still reads 110 rows: not vouched for
    assert len(BitMap.deserialize(bytes(wrong))) == 110
    assert not portable_cardinalities(bytes(wrong), np.array([0]), np.array([len(raw)]), LIMIT)[1][0]


@pytest.mark.parametrize("raw", [
    BitMap().serialize(),
    BitMap([7]).serialize(),
    BitMap(range(0, 300000, 30)).serialize(),  # array containers
])
def test_exact_length_is_required(raw: bytes) -> None:
    buf = raw + b"\x00\x00\x00\x00"
    ok = portable_cardinalities(buf, np.array([0, 0, 0]), np.array([len(raw), len(raw) + 2, len(raw) - 2]), LIMIT)[1]
    assert ok.tolist() == [True, False, False]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(bitmaps(), st.data())
def test_mutated_bytes_are_never_vouched_for_wrongly(bm: BitMap, data: st.DataObject) -> None:
    """Whatever the header path accepts, pyroaring accepts with the same count and the rows fit."""
    raw = bytearray(bm.serialize())
    for _ in range(data.draw(st.integers(1, 4))):
        what = data.draw(st.sampled_from(["flip", "set", "cut", "grow", "word"]))
        if not raw:
            break
        i = data.draw(st.integers(0, len(raw) - 1))
        if what == "flip":
            raw[i] ^= 1 << data.draw(st.integers(0, 7))
        elif what == "set":
            raw[i] = data.draw(st.sampled_from([0, 1, 0x0F, 0x10, 0x7F, 0x80, 0xFF]))
        elif what == "cut":
            del raw[i:i + data.draw(st.integers(1, 6))]
        elif what == "grow":
            raw[i:i] = bytes(data.draw(st.integers(1, 6)))
        else:  # a 16-bit field (a key, a count, a value) set to an edge value
            raw[i:i + 2] = data.draw(st.sampled_from([0, 1, 0xFFFF, 0x1000, 0x0FFF])).to_bytes(2, "little")
    buf = b"\x11" * 3 + bytes(raw) + b"\x22" * 3
    limit = data.draw(st.sampled_from([LIMIT, 1 << 20, 70000]))
    counts, ok = portable_cardinalities(buf, np.array([3]), np.array([len(raw)]), limit)
    if ok[0]:
        decoded = BitMap.deserialize(bytes(raw))
        assert len(decoded) == counts[0]
        assert not decoded or decoded.max() < limit
        # "exactly len(raw) bytes": a byte less is not a bitmap. (Re-serialising is no test of that:
        # a valid run-cookie serialisation without run containers comes back in the longer no-run form.)
        with pytest.raises(ValueError):
            BitMap.deserialize(bytes(raw[:-1]))


def test_declined_bitmaps_and_empty_input() -> None:
    counts, ok = portable_cardinalities(b"", np.array([], dtype=np.int64), np.array([], dtype=np.int64), 10)
    assert len(counts) == len(ok) == 0
    dense = BitMap(range(0, 20000, 2)).serialize()  # a bitset container
    big = BitMap(range(0, 5000, 3)).serialize()
    buf = dense + big
    counts, ok = portable_cardinalities(buf, np.array([0, len(dense)]), np.array([len(dense), len(big)]), LIMIT,
                                        max_length=1000)
    assert ok.tolist() == [False, False]  # a bitset, and longer than max_length
    counts, ok = portable_cardinalities(buf, np.array([len(dense)]), np.array([len(big)]), LIMIT)
    assert ok[0] and counts[0] == len(BitMap(range(0, 5000, 3)))


# ---- through the reader --------------------------------------------------------------------------

def columns() -> dict[str, list[object]]:
    rnd = random.Random(5)
    sparse = [rnd.randrange(3000) for _ in range(30000)]
    clustered = sorted(sparse)  # each value's rows are consecutive: run containers
    mixed: list[object] = [rnd.choice([None, 1, 2, 3]) for _ in range(20000)] + sparse[:20000]
    return {"sparse": sparse, "clustered": clustered, "mixed": mixed,
            "singletons": list(range(5000)), "wide": [rnd.randrange(40) for _ in range(300000)]}


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("name", ["sparse", "clustered", "mixed", "singletons", "wide"])
def test_summary_counts_equal_deserializing(monkeypatch: pytest.MonkeyPatch, name: str, version: int) -> None:
    dtype = parse_type("INT")
    data = write_bitmap_index(dtype, columns()[name], version, 1024)
    fast = BitmapFileIndexReader(dtype, data).summary()
    with monkeypatch.context() as m:
        m.setattr(bitmap_module, "_COUNT_MAX_BYTES", -1)  # every bitmap deserialised
        slow = BitmapFileIndexReader(dtype, data).summary()
    with monkeypatch.context() as m:
        m.setattr(bitmap_module, "_SMALL", 10**9)  # entry by entry
        one = BitmapFileIndexReader(dtype, data).summary()
    assert fast == slow == one
    assert list(fast.values.row_counts) == [len(bm) for _, bm in BitmapFileIndexReader(dtype, data).iter_bitmaps()]


def test_corrupt_small_bitmaps_raise_like_entry_by_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = parse_type("INT")
    rows = columns()["sparse"]
    blob = write_bitmap_index(dtype, rows, 2, 1024)
    reader = BitmapFileIndexReader(dtype, blob)
    body = reader.body_start
    rnd = random.Random(3)
    raised = 0
    for _ in range(60):
        data = bytearray(blob)
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(body, len(data) - 1)
            data[i] = rnd.choice([0x00, 0x01, 0x3A, 0x3B, 0xFF, data[i] ^ 0x10])
        outcomes = []
        for constants in ({}, {"_COUNT_MAX_BYTES": -1}, {"_SMALL": 10**9}, {"_COUNT_BATCH": 1}):
            with monkeypatch.context() as m:
                for k, v in constants.items():
                    m.setattr(bitmap_module, k, v)
                try:
                    outcomes.append(repr(BitmapFileIndexReader(dtype, bytes(data), "x.index", 7).summary()))
                except CorruptFileError as e:
                    assert e.path == "x.index" and e.offset is not None and e.field
                    outcomes.append(("corrupt", str(e)))
        assert outcomes[0] == outcomes[1] == outcomes[2] == outcomes[3]
        raised += isinstance(outcomes[0], tuple)
    assert raised > 10


# ---- lazy numpy ----------------------------------------------------------------------------------

def test_importing_the_bitmap_module_does_not_import_numpy() -> None:
    code = ("import sys, paimon_lens\n"
            "if 'numpy' in sys.modules: print('skip')\n"
            "else:\n"
            "    import paimon_lens.formats.bitmap\n"
            "    print('numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    if out == "skip":
        pytest.skip("the package itself imports numpy")
    assert out == "False"


def test_run_cookie_without_run_containers_is_counted() -> None:
    """A valid serialisation pyroaring would never write (run cookie, no run container) is still one."""
    raw = b";0\x00\x00\x00\x03\x00\x01\x00\x00\x00\x03\x00"  # 1 container, key 3, array [0, 3]
    counts, ok = portable_cardinalities(raw, np.array([0]), np.array([len(raw)]), LIMIT)
    assert ok.tolist() == [True] and counts.tolist() == [2]
    assert list(BitMap.deserialize(raw)) == [196608, 196611]
