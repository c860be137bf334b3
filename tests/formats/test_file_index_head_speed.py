"""The fast head parser of the file-index container agrees with the bounds-checked slow one.

:meth:`FileIndexFormatReader._parse_head` reads the head with ``struct`` (a remembered head
*shape*, or a field-by-field walk) and falls back to :meth:`FileIndexFormatReader._parse_head_slow`
on anything amiss. These properties check that, for valid and corrupt containers alike, the
result is the slow path's: equal layouts, or the same exception with the same message.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats import file_index_format as fif
from paimon_lens.formats.file_index_format import (
    MAGIC,
    FileIndexFormatReader,
    FileIndexLayout,
    _parse_head_fast,
    _read_layout_slow,
    encode_modified_utf8,
    write_file_index,
)
from paimon_lens.io.byte_reader import ByteReader
from tests.conftest import FIXTURES, blob_cases, load_json, oracle_paths
from tests.formats.oracle_tree import OracleTable

_names = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_types = st.sampled_from(["bloom-filter", "bitmap", "bsi", "range-bitmap", "other", ""])
_containers = st.dictionaries(
    _names,
    st.dictionaries(_types, st.one_of(st.none(), st.binary(max_size=40)), max_size=4),
    max_size=6,
)
_INTERESTING_I32 = st.one_of(
    st.sampled_from([-(2**31), -2, -1, 0, 1, 5, 16, 20, 23, 24, 2**31 - 1]),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-4, 400),
)


# ---- helpers -------------------------------------------------------------------------------------

def _outcome(parse: Callable[[], FileIndexLayout]) -> tuple[str, Any]:
    """``("ok", layout)`` or ``("error", everything the exception says)``."""
    try:
        return "ok", parse()
    except Exception as e:  # any type: both paths must raise the same one
        facts: tuple[Any, ...] = (type(e), str(e))
        if isinstance(e, CorruptFileError):
            facts += (e.path, e.offset, e.field, e.expected, e.found, e.detail)
        return "error", facts


def _same_layout(fast: FileIndexLayout, slow: FileIndexLayout) -> None:
    """Equal values, classes and container types, attribute by attribute."""
    assert fast == slow
    assert type(fast) is type(slow) is FileIndexLayout
    fields = [k for k in vars(slow) if k != "_by_column"]  # the cached property, once used
    assert [k for k in vars(fast) if k != "_by_column"] == fields
    assert all(getattr(fast, k) == getattr(slow, k) for k in fields)
    assert type(fast.columns) is tuple and type(fast.redundant) is type(slow.redundant) is bytes
    for cf, cs in zip(fast.columns, slow.columns, strict=True):
        assert type(cf) is type(cs) and vars(cf) == vars(cs) and list(vars(cf)) == list(vars(cs))
        assert type(cf.column) is str and type(cf.indexes) is tuple
        for ef, es in zip(cf.indexes, cs.indexes, strict=True):
            assert type(ef) is type(es) and vars(ef) == vars(es) and list(vars(ef)) == list(vars(es))
    assert fast.to_json() == slow.to_json()
    assert fast.column_names() == slow.column_names()
    for c in slow.column_names():
        assert fast.indexes(c) == slow.indexes(c)


def _check(data: bytes | bytearray, path: str | None = "c.index", base: int = 0) -> tuple[str, Any]:
    """Parse ``data`` with the slow path, then the fast one with no shape known and with its own
    shape known; all must agree. The slow outcome is returned."""
    slow = _outcome(lambda: _read_layout_slow(data, path, base))
    fif._SHAPES.clear()
    cold = _outcome(lambda: FileIndexFormatReader(data, path, base).layout)
    again = _outcome(lambda: FileIndexFormatReader(data, path, base).layout)  # the walk records a shape
    warm = _outcome(lambda: FileIndexFormatReader(data, path, base).layout)  # read by that shape, if any
    for got in (cold, again, warm):
        assert got[0] == slow[0], (got, slow)
        if slow[0] == "ok":
            _same_layout(got[1], slow[1])
        else:
            assert got[1] == slow[1]
    return slow


def _check_after(primer: bytes, data: bytes, path: str | None = "c.index") -> None:
    """Parse ``data`` while the shape of ``primer`` (a valid container) is known."""
    slow = _outcome(lambda: _read_layout_slow(data, path))
    fif._SHAPES.clear()
    FileIndexFormatReader(primer)
    FileIndexFormatReader(primer)  # the second head of a length records its shape
    assert fif._SHAPES[fif.read_layout(primer).head_length]
    got = _outcome(lambda: FileIndexFormatReader(data, path).layout)
    assert got[0] == slow[0], (got, slow)
    if slow[0] == "ok":
        _same_layout(got[1], slow[1])
    else:
        assert got[1] == slow[1]


def _head_fields(data: bytes) -> Iterator[tuple[str, int]]:
    """``(kind, offset)`` of every i32 field of a valid head (``count``, ``start``, ``length``,
    ``redundant_length``) and of every u16 name length (``utf``)."""
    r = ByteReader(data)
    r.seek(16)
    yield "count", 16
    for _ in range(r.i32("column_count")):
        yield "utf", r.pos
        r.utf("name")
        yield "count", r.pos
        for _ in range(r.i32("index_count")):
            yield "utf", r.pos
            r.utf("type")
            yield "start", r.pos
            yield "length", r.pos + 4
            r.i64("start+length")
    yield "redundant_length", r.pos
    yield "head_length", 12


def _raw_container(columns: list[tuple[bytes, list[tuple[bytes, int | None, int]]]],
                   body: bytes, redundant: bytes = b"", padding: bytes = b"") -> bytes:
    """A container built by hand: raw name bytes, entries ``(type, start in body or None, length)``,
    and ``padding`` after the redundant bytes (counted in head_length, ignored by readers)."""
    table = bytearray(struct.pack(">i", len(columns)))
    fixups = []
    for name, entries in columns:
        table += struct.pack(">H", len(name)) + name + struct.pack(">i", len(entries))
        for t, start, length in entries:
            table += struct.pack(">H", len(t)) + t
            fixups.append((len(table), start))
            table += struct.pack(">ii", -1 if start is None else start, length)
    table += struct.pack(">i", len(redundant)) + redundant + padding
    head_length = 16 + len(table)
    for at, start in fixups:
        if start is not None:
            table[at:at + 4] = struct.pack(">i", start + head_length)
    return struct.pack(">qii", MAGIC, 1, head_length) + bytes(table) + body


# ---- valid containers ----------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(_containers, st.binary(max_size=6))
def test_valid_containers_parse_the_same(indexes: dict[str, dict[str, bytes | None]], redundant: bytes) -> None:
    data = write_file_index(indexes, redundant)
    fif._SHAPES.clear()
    assert _parse_head_fast(data, len(data)) is not None  # the walk reads it (no fallback)
    assert _parse_head_fast(data, len(data)) is not None  # and records its shape
    assert len(fif._SHAPES[len(data) - sum(len(b) for t in indexes.values() for b in t.values() if b)]) == 1
    assert _parse_head_fast(data, len(data)) is not None  # which reads it the third time
    kind, layout = _check(data)
    assert kind == "ok"
    assert [c.column for c in layout.columns] == list(indexes)


@settings(max_examples=200, deadline=None)
@given(_containers, st.data())
def test_a_known_shape_reads_other_offsets(indexes: dict[str, dict[str, bytes | None]], data: st.DataObject) -> None:
    # same names and counts, other index bytes: the shape of the first applies to the second
    other = {c: {t: None if b is None else data.draw(st.binary(max_size=40)) for t, b in by_type.items()}
             for c, by_type in indexes.items()}
    first, second = write_file_index(indexes), write_file_index(other)
    _check_after(first, second)
    _check_after(second, first)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=8),
                          st.lists(st.tuples(st.binary(max_size=8), st.one_of(st.none(), st.integers(0, 30)),
                                             st.integers(0, 10)), max_size=3)), max_size=4),
       st.binary(max_size=4), st.binary(max_size=4))
def test_hand_built_heads(columns: list[tuple[bytes, list[tuple[bytes, int | None, int]]]],
                          redundant: bytes, padding: bytes) -> None:
    # raw names (invalid UTF-8 too), repeated columns and types, offsets anywhere, trailing head bytes
    _check(_raw_container(columns, bytes(40), redundant, padding))


def test_shapes_of_the_same_head_length_do_not_mix() -> None:
    a = write_file_index({"ab": {"bitmap": b"123"}, "c": {"bsi": None}})
    b = write_file_index({"cd": {"bitmap": b"456"}, "e": {"bsi": None}})
    c = write_file_index({"ab": {"bitmap": b"789"}, "c": {"bsx": None}})
    assert len({read.head_length for read in map(fif.read_layout, (a, b, c))}) == 1
    fif._SHAPES.clear()
    layouts = [FileIndexFormatReader(x).layout for x in (a, b, c, a, b, c)]
    for x, layout in zip((a, b, c) * 2, layouts):
        _same_layout(layout, _read_layout_slow(x))
    assert len(fif._SHAPES[layouts[0].head_length]) == 3


def test_a_padded_head_matches_the_unpadded_shape() -> None:
    # trailing head bytes after the redundant section: the shape of the column table still fits
    cols: list[tuple[bytes, list[tuple[bytes, int | None, int]]]] = [(b"a", [(b"bitmap", 0, 3)])]
    plain = _raw_container(cols, b"xyz")
    padded = _raw_container(cols, b"xyz", padding=b"\x00" * 7)
    fif._SHAPES.clear()
    FileIndexFormatReader(plain)
    FileIndexFormatReader(plain)
    hl = fif.read_layout(padded).head_length
    fif._SHAPES[hl] = fif._SHAPES.pop(fif.read_layout(plain).head_length)  # file it under the padded length
    _same_layout(FileIndexFormatReader(padded).layout, _read_layout_slow(padded))


def test_many_shapes_per_length_and_many_lengths() -> None:
    fif._SHAPES.clear()
    for i in range(fif._MAX_SHAPE_LENGTHS + 20):
        data = write_file_index({f"c{i:04d}" + "x" * (i % 300): {"bitmap": b"1"}})
        _same_layout(FileIndexFormatReader(data).layout, _read_layout_slow(data))
    assert len(fif._SHAPES) <= fif._MAX_SHAPE_LENGTHS
    for i in range(2 * fif._MAX_SHAPES_PER_LENGTH):
        data = write_file_index({f"d{i:04d}": {"bsi": b"22"}})
        _same_layout(FileIndexFormatReader(data).layout, _read_layout_slow(data))
    assert all(len(v) <= fif._MAX_SHAPES_PER_LENGTH for v in fif._SHAPES.values())


def test_a_head_beyond_the_first_read_uses_the_slow_path() -> None:
    indexes: dict[str, dict[str, bytes | None]] = {f"column_{i:05d}": {"bitmap": b"ab"} for i in range(6000)}
    data = write_file_index(indexes)
    assert fif.read_layout(data).head_length > fif._FIRST_READ
    assert _parse_head_fast(data[:fif._FIRST_READ], len(data)) is None
    _check(data)
    _check(data[:-1])


def test_paimon_written_containers() -> None:
    blobs = [p.parent / load_json(p)["container"]["file"] for p in blob_cases() if "container" in load_json(p)]
    checked = 0
    for blob in blobs:
        data = blob.read_bytes()
        assert _check(data)[0] == "ok"
        fif._SHAPES.clear()
        _same_layout(FileIndexFormatReader.open(str(blob)).layout, _read_layout_slow(data))
        checked += 1
    for oracle_path in oracle_paths():
        table = OracleTable(oracle_path)
        for file in table.oracle["files"]:
            got = table.container(file)
            if got is not None:
                assert _check(got[0], got[1])[0] == "ok"
                checked += 1
    assert checked > 0
    assert (FIXTURES / "blobs").is_dir()


# ---- corrupt containers --------------------------------------------------------------------------

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_containers, st.data())
def test_truncations_and_byte_flips_fail_the_same(indexes: dict[str, dict[str, bytes | None]],
                                                  data: st.DataObject) -> None:
    original = write_file_index(indexes)
    blob = bytearray(original)
    for _ in range(data.draw(st.integers(0, 4))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    blob = blob[:data.draw(st.integers(0, len(blob)))]
    base = data.draw(st.sampled_from([0, 0, 4096]))
    _check(bytes(blob), "m.index", base)
    _check_after(original, bytes(blob), "m.index")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_containers.filter(bool), st.data())
def test_bad_fields_fail_the_same(indexes: dict[str, dict[str, bytes | None]], data: st.DataObject) -> None:
    # overwrite one field (a count, name length, start, length, redundant_length or head_length)
    original = write_file_index(indexes)
    kind, at = data.draw(st.sampled_from(list(_head_fields(original))))
    blob = bytearray(original)
    if kind == "utf":
        blob[at:at + 2] = struct.pack(">H", data.draw(st.integers(0, 0xFFFF)))
    else:
        blob[at:at + 4] = struct.pack(">i", data.draw(_INTERESTING_I32))
    if data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    _check(bytes(blob), "f.index")
    _check_after(original, bytes(blob), "f.index")


@pytest.mark.parametrize("raw", [b"\xff", b"a\xc0", b"\xed\xa0", b"\xc0\x80", "é".encode(),
                                 encode_modified_utf8("𝄞"), "𝄞".encode()])
def test_names_in_any_encoding_fail_or_decode_the_same(raw: bytes) -> None:
    # invalid UTF-8 is reported by the slow path; modified and plain UTF-8 decode alike
    for data in (_raw_container([(raw, [(b"bitmap", 0, 1)])], b"z"),
                 _raw_container([(b"c", [(raw, None, 0)])], b"")):
        _check(data, "u.index")


def test_empty_and_tiny_inputs_fail_the_same() -> None:
    for n in range(30):
        _check(write_file_index({"a": {"bitmap": b"1"}})[:n], "t.index")
    _check(b"", None)
    _check(bytearray(write_file_index({"a": {"bitmap": b"1"}})), "t.index")  # not bytes: still equal


def _samples() -> list[bytes]:
    return [
        write_file_index({"a": {"bloom-filter": b"\x00\x00\x00\x01\xff"}, "b[k]": {"bitmap": None, "bsi": b"xyz"}}),
        write_file_index({"id": {"bitmap": b"12", "bsi": b""}, "": {}, "名前": {"range-bitmap": b"q" * 9}},
                         redundant=b"rr"),
        write_file_index({}),
    ]


@pytest.mark.parametrize("sample", range(3))
def test_every_field_at_its_bounds(sample: int) -> None:
    # each field of the head set to the values around every bound a reader checks
    original = _samples()[sample]
    size = len(original)
    head_length = fif.read_layout(original).head_length
    for kind, at in _head_fields(original):
        if kind == "utf":
            n = struct.unpack_from(">H", original, at)[0]
            values = {0, 1, n - 1, n + 1, n + 2, 0xFFFF, head_length - at, head_length - at - 2}
            packed = [struct.pack(">H", v) for v in values if 0 <= v <= 0xFFFF]
        else:
            v0 = struct.unpack_from(">i", original, at)[0]
            near = {-(2**31), -2, -1, 0, 1, 2, 2**31 - 1, head_length, size, size - v0, head_length - at - 4,
                    (head_length - at) // 10, (head_length - at) // 6, fif.MIN_HEAD_LENGTH}
            values = {x + d for x in near | {v0} for d in (-1, 0, 1)}
            packed = [struct.pack(">i", v) for v in values if -(2**31) <= v < 2**31]
        for raw in packed:
            blob = original[:at] + raw + original[at + len(raw):]
            _check(blob, "b.index")
            _check_after(original, blob, "b.index")
            if kind == "start":  # the same start with its length at the bounds
                start = struct.unpack_from(">i", raw)[0]
                for length in {-1, 0, 1, size - start - 1, size - start, size - start + 1}:
                    if -(2**31) <= length < 2**31:
                        blob2 = blob[:at + 4] + struct.pack(">i", length) + blob[at + 8:]
                        _check(blob2, "b.index")
                        _check_after(original, blob2, "b.index")
