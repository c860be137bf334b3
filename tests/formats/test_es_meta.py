"""The es-index ``_INDEX_META`` (``ESIndexFileMeta``): version 2, version 1, legacy and empty forms.

Bytes are built here from the layout in :mod:`paimon_lens.formats.global_index.es_meta` (big-endian,
``i32 length | UTF-8`` strings, ``u8`` presence flags). The cases follow Paimon 2.0's
``ESIndexFileMetaTest``; a property test round-trips a small encoder, and every error names the
byte offset and the field.
"""

from __future__ import annotations

import string
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError
from paimon_lens.formats.global_index.es_meta import (
    ANALYZERS,
    INDEX_TYPES,
    MAGIC,
    SCALAR_TYPES,
    VECTOR_ALGORITHMS,
    ArchiveEntry,
    ESFieldConfig,
    ESIndexMeta,
    read_es_index_meta,
)

# -- a test-local encoder following the layout ------------------------------------------------


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def i64(v: int) -> bytes:
    return struct.pack(">q", v)


def s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return i32(len(raw)) + raw


def ns(text: str | None) -> bytes:
    return b"\x00" if text is None else b"\x01" + s(text)


def config(name: str, c: ESFieldConfig) -> bytes:
    out = s(name) + s(c.index_type) + ns(c.algorithm) + i32(c.dimension) + ns(c.metric)
    out += ns(c.analyzer) + ns(c.scalar_type) + i32(len(c.algorithm_params))
    return out + b"".join(s(k) + s(v) for k, v in c.algorithm_params.items())


def files_table(files: dict[str, tuple[int, int]]) -> bytes:
    return i32(len(files)) + b"".join(s(n) + i64(o) + i64(ln) for n, (o, ln) in files.items())


def encode(version: int, indexed: list[tuple[str, str]], configs: dict[str, ESFieldConfig],
           files: dict[str, tuple[int, int]]) -> bytes:
    out = i32(MAGIC) + i32(version)
    if version == 2:
        out += i32(len(indexed)) + b"".join(s(n) + s(t) for n, t in indexed)
    out += i32(len(configs)) + b"".join(config(n, c) for n, c in configs.items())
    return out + files_table(files)


def vector(dim: int = 4, params: dict[str, str] | None = None) -> ESFieldConfig:
    return ESFieldConfig("VECTOR", "HNSW", dim, "cosine", None, None, params or {})


def text(kind: str = "FULLTEXT") -> ESFieldConfig:
    if kind == "FULLTEXT":
        return ESFieldConfig("FULLTEXT", None, 0, "l2", "STANDARD", None)
    return ESFieldConfig(kind, None, 0, "l2", None, "KEYWORD" if kind == "KEYWORD" else "INT")


FILES = {"segments_1": (17, 23)}


def corrupt(data: bytes, path: str | None = "t/index/es-index-1.index") -> CorruptFileError:
    with pytest.raises(CorruptFileError) as info:
        read_es_index_meta(data, path)
    return info.value


# -- the three forms ------------------------------------------------------------------------------


def test_version_2_with_archive_offsets_as_the_writer_computes_them() -> None:
    first = 4 + 4 + len("segments_1") + 8          # archive: count, then name length, name, data length
    second = first + 3 + 4 + len("_0.cfs") + 8
    params = {"m": "32", "ef_construction": "200"}
    data = encode(2, [("embedding", "ARRAY<FLOAT>")], {"embedding": vector(4, params)},
                  {"segments_1": (first, 3), "_0.cfs": (second, 2)})
    meta = read_es_index_meta(data, "x.index")
    assert meta.version == 2 and meta.has_field_configs
    assert meta.indexed_fields == (("embedding", "ARRAY<FLOAT>"),)
    c = meta.field_configs["embedding"]
    assert (c.index_type, c.algorithm, c.dimension, c.metric, c.analyzer, c.scalar_type) == \
        ("VECTOR", "HNSW", 4, "cosine", None, None)
    assert list(c.algorithm_params.items()) == [("m", "32"), ("ef_construction", "200")]
    assert meta.files == {"segments_1": ArchiveEntry(26, 3), "_0.cfs": ArchiveEntry(47, 2)}
    assert list(meta.files) == ["segments_1", "_0.cfs"]


def test_version_2_keeps_generated_sub_fields_as_configs_only() -> None:
    configs = {"title": text(), "title.keyword": text("KEYWORD"), "tags": text("KEYWORD"),
               "tags.fulltext": text(), "tags.__paimon_array_present": text("SCALAR")}
    data = encode(2, [("title", "STRING"), ("tags", "ARRAY<STRING>")], configs, FILES)
    meta = read_es_index_meta(data)
    assert meta.indexed_field_names == ("title", "tags")
    assert list(meta.field_configs) == list(configs)


def test_version_1_infers_primary_fields_as_java_test() -> None:
    configs = {"title": text(), "title.keyword": text("KEYWORD"), "price": text("SCALAR")}
    meta = read_es_index_meta(encode(1, [], configs, FILES))
    assert meta.version == 1
    assert meta.indexed_fields == (("title", None), ("price", None))
    assert meta.field_configs == configs
    assert meta.files == {"segments_1": (17, 23)}


@pytest.mark.parametrize(("configs", "expected"), [
    # KEYWORD column: its .fulltext sub-field follows; an array column: its presence field last
    ({"k": text("KEYWORD"), "k.fulltext": text(), "k.__paimon_array_present": text("SCALAR")}, ["k"]),
    ({"a": vector(), "a.__paimon_array_present": text("SCALAR")}, ["a"]),
    # the pairing depends on the type: a FULLTEXT column does not own ".fulltext", KEYWORD not ".keyword"
    ({"t": text(), "t.fulltext": text()}, ["t", "t.fulltext"]),
    ({"k": text("KEYWORD"), "k.keyword": text("KEYWORD")}, ["k", "k.keyword"]),
    ({"n": text("SCALAR"), "n.keyword": text("KEYWORD")}, ["n", "n.keyword"]),
    # only right after its column
    ({"t": text(), "u": text("SCALAR"), "t.keyword": text("KEYWORD")}, ["t", "u", "t.keyword"]),
    # presence after the sub-field, not before it
    ({"t": text(), "t.__paimon_array_present": text("SCALAR"), "t.keyword": text("KEYWORD")},
     ["t", "t.keyword"]),
    ({}, []),
])
def test_version_1_sub_field_rule(configs: dict[str, ESFieldConfig], expected: list[str]) -> None:
    assert list(read_es_index_meta(encode(1, [], configs, FILES)).indexed_field_names) == expected


def test_legacy_offsets_only() -> None:
    meta = read_es_index_meta(files_table({"segments_1": (17, 23)}))
    assert meta.version is None and not meta.has_field_configs
    assert meta.indexed_fields == () and meta.field_configs == {}
    assert meta.files == {"segments_1": ArchiveEntry(17, 23)}


def test_legacy_without_files_parses() -> None:
    assert read_es_index_meta(i32(0)) == ESIndexMeta(None)


def test_empty_bytes_are_an_empty_parse() -> None:
    meta = read_es_index_meta(b"")
    assert meta == ESIndexMeta(None, (), {}, {}) and not meta.has_field_configs


def test_any_non_zero_presence_byte_is_true_and_bad_utf8_is_replaced() -> None:
    body = (s("f") + s("SCALAR") + b"\x00" + i32(0) + b"\x07" + i32(1) + b"\xff"
            + b"\x00" + b"\x02" + s("INT") + i32(0))
    meta = read_es_index_meta(i32(MAGIC) + i32(1) + i32(1) + body + files_table({}))
    assert meta.field_configs["f"] == ESFieldConfig("SCALAR", None, 0, "\ufffd", None, "INT")


def test_every_java_enum_name_is_accepted() -> None:
    configs = {f"f{i}": ESFieldConfig(t, VECTOR_ALGORITHMS[i % 4], 1, None, ANALYZERS[i % 6],
                                      SCALAR_TYPES[i % 7]) for i, t in enumerate(INDEX_TYPES * 2)}
    assert read_es_index_meta(encode(1, [], configs, FILES)).field_configs == configs


# -- errors: path, offset, field -------------------------------------------------------------------


def _at(e: CorruptFileError, offset: int, field: str) -> None:
    assert (e.offset, e.field) == (offset, field), str(e)
    assert e.path == "t/index/es-index-1.index" and f"at byte {offset}" in str(e)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_fewer_than_four_bytes(n: int) -> None:
    _at(corrupt(i32(MAGIC)[:n]), 0, "_INDEX_META.magic")


def test_bad_version() -> None:
    e = corrupt(i32(MAGIC) + i32(3) + i32(0) + i32(0))
    _at(e, 4, "_INDEX_META.version")
    assert e.found == 3


def test_truncated_version() -> None:
    _at(corrupt(i32(MAGIC) + b"\x00\x00"), 4, "_INDEX_META.version")


def test_negative_legacy_file_count() -> None:
    _at(corrupt(i32(-1)), 0, "_INDEX_META.file_count")


def test_legacy_count_beyond_the_bytes() -> None:
    e = corrupt(i32(2) + s("a") + i64(0) + i64(1))
    _at(e, 0, "_INDEX_META.file_count")
    assert "remaining" in str(e)


def test_duplicate_legacy_file() -> None:
    entry = s("segments_1") + i64(17) + i64(23)
    e = corrupt(i32(2) + entry + entry)
    _at(e, 4 + len(entry), "_INDEX_META.files[1].name")
    assert "duplicate file offset" in str(e) and "segments_1" in str(e)


@pytest.mark.parametrize(("offset", "length"), [(-1, 1), (0, -1), (2**62, 2**62)])
def test_invalid_file_range(offset: int, length: int) -> None:
    e = corrupt(i32(1) + s("seg") + i64(offset) + i64(length))
    _at(e, 11, "_INDEX_META.files[0].offset")


def test_trailing_bytes_as_java_test() -> None:
    e = corrupt(i32(0) + b"\x01")
    _at(e, 4, "_INDEX_META")
    assert "trailing bytes" in str(e)


def test_trailing_bytes_after_version_2() -> None:
    data = encode(2, [("e", "INT")], {"e": text("SCALAR")}, FILES)
    _at(corrupt(data + b"\x00\x00"), len(data), "_INDEX_META")


HEAD2 = i32(MAGIC) + i32(2)


def test_negative_indexed_field_count() -> None:
    _at(corrupt(HEAD2 + i32(-5)), 8, "_INDEX_META.indexed_field_count")


def test_string_length_beyond_the_bytes() -> None:
    e = corrupt(HEAD2 + i32(1) + i32(100) + b"abcdefgh")
    _at(e, 12, "_INDEX_META.indexed_fields[0].name.length")
    assert (e.found, e.detail) == (100, "truncated")


def test_negative_string_length() -> None:
    _at(corrupt(HEAD2 + i32(1) + i32(-1) + b"\x00" * 8), 12, "_INDEX_META.indexed_fields[0].name.length")


def test_duplicate_indexed_field() -> None:
    first = s("a") + s("INT")
    e = corrupt(HEAD2 + i32(2) + first + s("a") + s("BIGINT") + i32(0) + i32(0))
    _at(e, 12 + len(first), "_INDEX_META.indexed_fields[1].name")
    assert "duplicate indexed field" in str(e)


def test_missing_primary_field_config() -> None:
    data = encode(2, [("a", "INT"), ("b", "INT")], {"a": text("SCALAR")}, FILES)
    e = corrupt(data)
    _at(e, 12 + len(s("a") + s("INT")), "_INDEX_META.indexed_fields[1].name")
    assert "missing primary field config" in str(e)


CFG_AT = 4 + 4 + 4  # version 1: magic, version, config count


def _v1(*config_bytes: bytes) -> bytes:
    return i32(MAGIC) + i32(1) + i32(len(config_bytes)) + b"".join(config_bytes) + files_table({})


def test_unknown_index_type_is_refused_case_sensitively() -> None:
    e = corrupt(_v1(config("f", ESFieldConfig("vector", None, 1, None, None, None))))
    _at(e, CFG_AT + len(s("f")), "_INDEX_META.field_configs[0].index_type")
    assert e.found == "'vector'"


# offset of the enum's string after name and index type: flags and the dimension come before it
@pytest.mark.parametrize(("attr", "at"), [("algorithm", 1), ("analyzer", 1 + 4 + 1 + 1),
                                          ("scalar_type", 1 + 4 + 1 + 1 + 1)])
def test_unknown_nullable_enum_is_refused(attr: str, at: int) -> None:
    values = {"algorithm": None, "analyzer": None, "scalar_type": None, attr: "NOPE"}
    c = ESFieldConfig("SCALAR", values["algorithm"], 0, None, values["analyzer"], values["scalar_type"])
    e = corrupt(_v1(config("f", c)))
    _at(e, CFG_AT + len(s("f") + s("SCALAR")) + at, f"_INDEX_META.field_configs[0].{attr}")


@pytest.mark.parametrize(("kind", "dim"), [("VECTOR", 0), ("VECTOR", -3), ("SCALAR", -1)])
def test_invalid_dimension(kind: str, dim: int) -> None:
    e = corrupt(_v1(config("f", ESFieldConfig(kind, None, dim, None, None, None))))
    _at(e, CFG_AT + len(s("f") + s(kind)) + 1, "_INDEX_META.field_configs[0].dimension")
    assert "invalid field config" in str(e)


def test_empty_config_name() -> None:
    _at(corrupt(_v1(config("", text("SCALAR")))), CFG_AT, "_INDEX_META.field_configs[0].field_name")


def test_duplicate_algorithm_parameter_as_java_test() -> None:
    body = (s("embedding") + s("VECTOR") + ns("HNSW") + i32(4) + ns("cosine") + ns(None) + ns(None)
            + i32(2) + s("m") + s("16") + s("m") + s("32"))
    e = corrupt(i32(MAGIC) + i32(1) + i32(1) + body + i32(0))
    second = CFG_AT + len(body) - len(s("m") + s("32"))
    _at(e, second, "_INDEX_META.field_configs[0].algorithm_params[1].key")
    assert "duplicate algorithm parameter" in str(e) and "'m'" in str(e)


def test_negative_param_count() -> None:
    body = s("f") + s("SCALAR") + ns(None) + i32(0) + ns(None) + ns(None) + ns(None)
    e = corrupt(i32(MAGIC) + i32(1) + i32(1) + body + i32(-1) + b"\x00" * 20)
    _at(e, CFG_AT + len(body), "_INDEX_META.field_configs[0].param_count")


def test_duplicate_field_config() -> None:
    one = config("f", text("SCALAR"))
    e = corrupt(_v1(one, one))
    _at(e, CFG_AT + len(one), "_INDEX_META.field_configs[1].field_name")
    assert "duplicate field config" in str(e)


def test_config_count_beyond_the_bytes() -> None:
    _at(corrupt(i32(MAGIC) + i32(1) + i32(1_000_000) + i32(0)), 8, "_INDEX_META.config_count")


def test_versioned_file_count() -> None:
    data = encode(1, [], {}, {})
    _at(corrupt(data[:-4] + i32(-2)), len(data) - 4, "_INDEX_META.file_count")


def test_path_is_optional() -> None:
    e = corrupt(i32(-1), None)
    assert e.path is None and str(e).startswith("<bytes> at byte 0")


# -- properties -------------------------------------------------------------------------------------

_names = st.text(min_size=1, max_size=8)
_primary = st.text(string.ascii_letters + string.digits + "_", min_size=1, max_size=6)


@st.composite
def _configs(draw: st.DrawFn) -> ESFieldConfig:
    kind = draw(st.sampled_from(INDEX_TYPES))
    low = 1 if kind == "VECTOR" else 0
    return ESFieldConfig(
        kind,
        draw(st.none() | st.sampled_from(VECTOR_ALGORITHMS)),
        draw(st.integers(low, 2**31 - 1)),
        draw(st.none() | st.text(max_size=6)),
        draw(st.none() | st.sampled_from(ANALYZERS)),
        draw(st.none() | st.sampled_from(SCALAR_TYPES)),
        draw(st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3)),
    )


@st.composite
def _files(draw: st.DrawFn) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for name in draw(st.lists(st.text(max_size=8), unique=True, max_size=4)):
        offset = draw(st.integers(0, 2**63 - 1))
        out[name] = (offset, draw(st.integers(0, 2**63 - 1 - offset)))
    return out


@st.composite
def _v2(draw: st.DrawFn) -> tuple[list[tuple[str, str]], dict[str, ESFieldConfig], dict[str, tuple[int, int]]]:
    configs = draw(st.dictionaries(_names, _configs(), max_size=4))
    names = draw(st.lists(st.sampled_from(sorted(configs)), unique=True)) if configs else []
    indexed = [(n, draw(st.text(max_size=12))) for n in names]
    return indexed, configs, draw(_files())


@settings(max_examples=150, deadline=None)
@given(_v2())
def test_version_2_round_trip(case: tuple[list[tuple[str, str]], dict[str, ESFieldConfig],
                                          dict[str, tuple[int, int]]]) -> None:
    indexed, configs, files = case
    data = encode(2, indexed, configs, files)
    meta = read_es_index_meta(data)
    assert meta == ESIndexMeta(2, tuple(indexed), configs, {n: ArchiveEntry(*v) for n, v in files.items()})
    assert list(meta.field_configs) == list(configs) and list(meta.files) == list(files)
    for cut in range(1, len(data)):           # every strict prefix is truncated
        with pytest.raises(CorruptFileError):
            read_es_index_meta(data[:cut])


@st.composite
def _v1_case(draw: st.DrawFn) -> tuple[dict[str, ESFieldConfig], list[str]]:
    """Primary columns (names without '.') each followed by the sub-fields a writer generates."""
    configs: dict[str, ESFieldConfig] = {}
    primaries = draw(st.lists(_primary, unique=True, max_size=5))
    for name in primaries:
        c = draw(_configs())
        configs[name] = c
        sub = {"FULLTEXT": ".keyword", "KEYWORD": ".fulltext"}.get(c.index_type)
        if sub and draw(st.booleans()):
            configs[name + sub] = draw(_configs())
        if draw(st.booleans()):
            configs[name + ".__paimon_array_present"] = draw(_configs())
    return configs, primaries


@settings(max_examples=150, deadline=None)
@given(_v1_case(), _files())
def test_version_1_round_trip_infers_the_primaries(case: tuple[dict[str, ESFieldConfig], list[str]],
                                                   files: dict[str, tuple[int, int]]) -> None:
    configs, primaries = case
    meta = read_es_index_meta(encode(1, [], configs, files))
    assert meta.field_configs == configs and meta.files == files
    assert meta.indexed_fields == tuple((n, None) for n in primaries)


@settings(max_examples=100, deadline=None)
@given(_files())
def test_legacy_round_trip(files: dict[str, tuple[int, int]]) -> None:
    expected = {n: ArchiveEntry(*v) for n, v in files.items()}
    assert read_es_index_meta(files_table(files)) == ESIndexMeta(None, files=expected)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80), st.sampled_from([b"", i32(MAGIC) + i32(1), i32(MAGIC) + i32(2)]))
def test_arbitrary_bytes_decode_or_raise_corrupt_file_error(tail: bytes, head: bytes) -> None:
    try:
        read_es_index_meta(head + tail, "p")
    except CorruptFileError as e:
        assert e.path == "p" and e.offset is not None and 0 <= e.offset <= len(head + tail)
