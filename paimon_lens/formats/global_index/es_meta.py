"""``_INDEX_META`` of the ``es-index`` global index (Paimon 2.0 ``paimon-eslib``, ``ESIndexFileMeta``).

Each ``es-index`` index file is an archive of the Lucene files of one index build; the index
manifest entry's ``_GLOBAL_INDEX._INDEX_META`` (``GlobalIndexMeta.indexMeta``) holds these bytes:
the per-field index configuration the build used and where each Lucene file sits in the archive.

Big-endian, as Java's ``DataOutputStream`` writes. ``string`` is ``i32 byte_length | UTF-8 bytes``
(standard UTF-8 from ``String.getBytes(UTF_8)``, *not* ``writeUTF``'s u16 + modified UTF-8);
``string?`` is ``u8 present (0 = null, anything else = present) | string`` if present::

    i32 magic = 0x45534D31 ("ESM1") | i32 version = 2
    i32 indexed_field_count
    indexed_field_count x (string name | string type)      the indexed columns in schema order;
                                                           type: the column's SQL type, nullable
    i32 config_count
    config_count x (string field_name | string index_type | string? algorithm | i32 dimension
                    | string? metric | string? analyzer | string? scalar_type
                    | i32 param_count | param_count x (string key | string value))
    i32 file_count
    file_count x (string file_name | i64 offset | i64 length)

``index_type`` and the three nullable enums are Java enum names (``FieldIndexConfig.IndexType``,
``VectorAlgorithm``, ``BuiltinAnalyzer``, ``ScalarFieldType`` of eslib 1.0.7, case-sensitive); an
unknown name is refused. The configs are the indexed columns plus generated sub-fields
(``<f>.keyword`` after a FULLTEXT text column, ``<f>.fulltext`` after a KEYWORD one,
``<f>.__paimon_array_present`` after an array column); every indexed column has a config.
``offset`` is where the file's *data* starts in the archive and ``length`` its size; the archive is
``i32 file_count`` then per file ``i32 name_length | name | i64 length | data``.

Version 1 ("config only") has no indexed-field list: ``magic | i32 version = 1 | config_count |
configs | file_count | files``. Its indexed columns are inferred from the config order: each
config is a column, except that a ``.keyword`` config right after a FULLTEXT column, a
``.fulltext`` config right after a KEYWORD column, and then an ``.__paimon_array_present`` config,
belong to the column before them. Column types are unknown (None).

Legacy (before the magic): only the file table, ``i32 file_count | file_count x (string | i64 |
i64)``; the first int is the count. Empty bytes mean no meta at all.

Java's reader refuses: a version other than 1 or 2, negative counts, a string longer than the bytes
left, duplicate indexed fields / configs / parameters / files, an empty config name, a negative
dimension or a VECTOR dimension of 0, a negative offset or length or ``offset + length`` beyond
``2^63 - 1``, bytes after the file table, and an indexed field without a config. Invalid UTF-8 is
not refused: Java decodes it to U+FFFD, and so does this reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ...errors import CorruptFileError
from ...io.byte_reader import ByteReader

MAGIC = 0x45534D31
VERSION = 2
CONFIG_ONLY_VERSION = 1
#: the index type of es-index files in the index manifest (``ESIndexGlobalIndexerFactory.IDENTIFIER``)
INDEX_TYPE = "es-index"

KEYWORD_SUFFIX = ".keyword"
FULLTEXT_SUFFIX = ".fulltext"
ARRAY_PRESENCE_SUFFIX = ".__paimon_array_present"

#: Java enum constants (eslib 1.0.7, the version Paimon 2.0 builds against)
INDEX_TYPES = ("VECTOR", "FULLTEXT", "SCALAR", "KEYWORD", "GEO_POINT", "DATE")
VECTOR_ALGORITHMS = ("DISKBBQ", "HNSW", "INT8_HNSW", "NATIVE")
ANALYZERS = ("STANDARD", "WHITESPACE", "SIMPLE", "KEYWORD", "IK_SMART", "IK_MAX_WORD")
SCALAR_TYPES = ("INT", "LONG", "FLOAT", "DOUBLE", "KEYWORD", "DATE", "GEO_POINT")

_F = "_INDEX_META"
_I64_MAX = (1 << 63) - 1
# fewest bytes one item of each counted list can take (used to refuse counts before allocating)
_MIN_FIELD = 8            # two empty strings
_MIN_CONFIG = 20          # 2 strings, 4 absent nullables, dimension, param count
_MIN_PARAM = 8
_MIN_FILE = 20            # empty name, offset, length

__all__ = ["INDEX_TYPE", "MAGIC", "ArchiveEntry", "ESFieldConfig", "ESIndexMeta", "read_es_index_meta"]


class ArchiveEntry(NamedTuple):
    """Where one Lucene file's bytes lie in the es-index archive file."""

    offset: int
    """Byte offset of the file's data (after its name and length header) in the archive."""
    length: int
    """The file's size in bytes."""


@dataclass(frozen=True)
class ESFieldConfig:
    """How one (indexed or generated) field was indexed: ``FieldIndexConfig`` as stored."""

    index_type: str
    algorithm: str | None
    dimension: int
    metric: str | None
    analyzer: str | None
    scalar_type: str | None
    algorithm_params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ESIndexMeta:
    """A decoded es-index ``_INDEX_META``.

    Attributes:
        version: 2, 1 (config only), or None (legacy offsets-only form, or empty bytes).
        indexed_fields: (column name, SQL type) in schema order; the type is None in version 1.
        field_configs: per field name (indexed columns and generated sub-fields), in stored order.
        files: per Lucene file name, where it lies in the archive, in stored order.
    """

    version: int | None
    indexed_fields: tuple[tuple[str, str | None], ...] = ()
    field_configs: dict[str, ESFieldConfig] = field(default_factory=dict)
    files: dict[str, ArchiveEntry] = field(default_factory=dict)

    @property
    def has_field_configs(self) -> bool:
        """The meta carries the build's field configs (versions 1 and 2)."""
        return self.version is not None

    @property
    def indexed_field_names(self) -> tuple[str, ...]:
        """The indexed columns' names, in schema order."""
        return tuple(name for name, _ in self.indexed_fields)


def read_es_index_meta(data: bytes, path: str | None = None) -> ESIndexMeta:
    """Decode an es-index ``_INDEX_META`` (version 2, version 1, legacy or empty) as Java reads it.

    Raises:
        CorruptFileError: naming ``path``, the byte offset and the field, where Java's reader fails.
    """
    if not data:
        return ESIndexMeta(None)
    r = ByteReader(data, path)
    first = r.i32(f"{_F}.magic")
    if first != MAGIC:
        files = _read_files(r, first, 0)
        _require_consumed(r)
        return ESIndexMeta(None, files=files)
    version = r.i32(f"{_F}.version")
    if version not in (CONFIG_ONLY_VERSION, VERSION):
        raise r.error(f"{_F}.version", f"{CONFIG_ONLY_VERSION} or {VERSION}", version, at=4)
    indexed = _read_indexed_fields(r) if version == VERSION else []
    configs = _read_configs(r)
    count_at = r.pos
    files = _read_files(r, _read_count(r, "file_count", _MIN_FILE), count_at)
    _require_consumed(r)
    if version == CONFIG_ONLY_VERSION:
        return ESIndexMeta(version, tuple((n, None) for n in infer_indexed_fields(configs)), configs, files)
    _require_configs(indexed, configs, path)
    return ESIndexMeta(version, tuple((n, t) for n, t, _ in indexed), configs, files)


def infer_indexed_fields(configs: dict[str, ESFieldConfig]) -> list[str]:
    """Version 1's indexed columns: the configs in order, less the sub-fields generated after each."""
    names = list(configs)
    out: list[str] = []
    i = 0
    while i < len(names):
        name = names[i]
        out.append(name)
        i += 1
        paired = {"FULLTEXT": KEYWORD_SUFFIX, "KEYWORD": FULLTEXT_SUFFIX}.get(configs[name].index_type)
        if paired is not None and i < len(names) and names[i] == name + paired:
            i += 1
        if i < len(names) and names[i] == name + ARRAY_PRESENCE_SUFFIX:
            i += 1
    return out


# -- sections ------------------------------------------------------------------------------------

def _read_indexed_fields(r: ByteReader) -> list[tuple[str, str, int]]:
    """(name, type, offset of the entry) of each indexed column; names must be distinct."""
    count = _read_count(r, "indexed_field_count", _MIN_FIELD)
    out: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for i in range(count):
        at = r.pos
        name = _string(r, f"{_F}.indexed_fields[{i}].name")
        if name in seen:
            raise r.error(f"{_F}.indexed_fields[{i}].name", "a name not seen before", repr(name),
                          detail="duplicate indexed field", at=at)
        seen.add(name)
        out.append((name, _string(r, f"{_F}.indexed_fields[{i}].type"), at))
    return out


def _read_configs(r: ByteReader) -> dict[str, ESFieldConfig]:
    count = _read_count(r, "config_count", _MIN_CONFIG)
    configs: dict[str, ESFieldConfig] = {}
    for i in range(count):
        at = r.pos
        name, config = _read_config(r, f"{_F}.field_configs[{i}]")
        if name in configs:
            raise r.error(f"{_F}.field_configs[{i}].field_name", "a name not seen before", repr(name),
                          detail="duplicate field config", at=at)
        configs[name] = config
    return configs


def _read_config(r: ByteReader, f: str) -> tuple[str, ESFieldConfig]:
    name_at = r.pos
    name = _string(r, f"{f}.field_name")
    index_type = _enum(r, f"{f}.index_type", INDEX_TYPES)
    algorithm = _nullable_enum(r, f"{f}.algorithm", VECTOR_ALGORITHMS)
    dim_at = r.pos
    dimension = r.i32(f"{f}.dimension")
    metric = _nullable_string(r, f"{f}.metric")
    analyzer = _nullable_enum(r, f"{f}.analyzer", ANALYZERS)
    scalar_type = _nullable_enum(r, f"{f}.scalar_type", SCALAR_TYPES)
    params = _read_params(r, f)
    if not name:
        raise r.error(f"{f}.field_name", "a non-empty name", "''", detail="invalid field config", at=name_at)
    if dimension < 0 or (index_type == "VECTOR" and dimension == 0):
        expected = "> 0 (a VECTOR field)" if index_type == "VECTOR" else ">= 0"
        raise r.error(f"{f}.dimension", expected, dimension, detail=f"invalid field config of {name!r}", at=dim_at)
    return name, ESFieldConfig(index_type, algorithm, dimension, metric, analyzer, scalar_type, params)


def _read_params(r: ByteReader, f: str) -> dict[str, str]:
    count = _read_count(r, "param_count", _MIN_PARAM, f)
    params: dict[str, str] = {}
    for j in range(count):
        at = r.pos
        key = _string(r, f"{f}.algorithm_params[{j}].key")
        if key in params:
            raise r.error(f"{f}.algorithm_params[{j}].key", "a key not seen before", repr(key),
                          detail="duplicate algorithm parameter", at=at)
        params[key] = _string(r, f"{f}.algorithm_params[{j}].value")
    return params


def _read_files(r: ByteReader, count: int, count_at: int) -> dict[str, ArchiveEntry]:
    """The file table after its count (read at ``count_at``)."""
    _check_count(r, count, _MIN_FILE, f"{_F}.file_count", count_at)
    files: dict[str, ArchiveEntry] = {}
    for i in range(count):
        at = r.pos
        name = _string(r, f"{_F}.files[{i}].name")
        pos_at = r.pos
        offset = r.i64(f"{_F}.files[{i}].offset")
        length = r.i64(f"{_F}.files[{i}].length")
        if offset < 0 or length < 0 or offset > _I64_MAX - length:
            raise r.error(f"{_F}.files[{i}].offset", "offset >= 0, length >= 0, offset + length < 2^63",
                          f"offset {offset}, length {length}", detail=f"invalid range of {name!r}", at=pos_at)
        if name in files:
            raise r.error(f"{_F}.files[{i}].name", "a name not seen before", repr(name),
                          detail="duplicate file offset", at=at)
        files[name] = ArchiveEntry(offset, length)
    return files


def _require_consumed(r: ByteReader) -> None:
    if r.remaining:
        raise r.error(_F, "nothing after the file table", f"{r.remaining} more bytes", detail="trailing bytes")


def _require_configs(indexed: list[tuple[str, str, int]], configs: dict[str, ESFieldConfig], path: str | None) -> None:
    for i, (name, _, at) in enumerate(indexed):
        if name not in configs:
            raise CorruptFileError(path, at, f"{_F}.indexed_fields[{i}].name", "a field with a config", repr(name),
                                   detail="missing primary field config")


# -- primitives ----------------------------------------------------------------------------------

def _read_count(r: ByteReader, name: str, min_item: int, prefix: str = _F) -> int:
    at = r.pos
    count = r.i32(f"{prefix}.{name}")
    _check_count(r, count, min_item, f"{prefix}.{name}", at)
    return count


def _check_count(r: ByteReader, count: int, min_item: int, f: str, at: int) -> None:
    """Refuse a negative count, or one whose items cannot fit in the bytes left."""
    if count < 0:
        raise r.error(f, "a non-negative count", count, at=at)
    if count * min_item > r.remaining:
        raise r.error(f, f"at most {r.remaining // min_item} items", count,
                      detail="count larger than the remaining bytes", at=at)


def _string(r: ByteReader, f: str) -> str:
    """``i32 length | UTF-8``; invalid UTF-8 becomes U+FFFD as in Java's ``new String(bytes, UTF_8)``."""
    at = r.pos
    n = r.i32(f"{f}.length")
    if n < 0 or n > r.remaining:
        raise r.error(f"{f}.length", f"0..{r.remaining}", n, detail="truncated" if n > 0 else None, at=at)
    return r.raw(n, f).decode("utf-8", "replace")


def _nullable_string(r: ByteReader, f: str) -> str | None:
    return _string(r, f) if r.boolean(f"{f}.present") else None


def _enum(r: ByteReader, f: str, names: tuple[str, ...]) -> str:
    at = r.pos
    value = _string(r, f)
    if value not in names:
        raise r.error(f, f"one of {', '.join(names)}", repr(value), detail="unknown enum name", at=at)
    return value


def _nullable_enum(r: ByteReader, f: str, names: tuple[str, ...]) -> str | None:
    return _enum(r, f, names) if r.boolean(f"{f}.present") else None
