"""File indexes of a data file, built from table options exactly as Paimon's writer reads them.

Options (``FileIndexOptions``; names and defaults from Paimon 2.0):

====================================================  ==========================================
``file-index.<type>.columns``                          comma-separated columns to index with
                                                       ``<type>`` = ``bloom-filter``, ``bitmap``,
                                                       ``bsi`` or ``range-bitmap``
``file-index.bloom-filter.<col>.items`` / ``.fpp``     bloom sizing (default 1,000,000 / 0.1)
``file-index.bitmap.<col>.version``                    1 or 2 (default 2)
``file-index.bitmap.<col>.index-block-size``           V2 block size (default 16 kb)
``file-index.range-bitmap.<col>.chunk-size``           dictionary chunk size (default 16 kb)
``file-index.in-manifest-threshold``                   default 500 b: a container of at most this
                                                       many bytes is embedded in the manifest
                                                       entry (``_EMBEDDED_FILE_INDEX``), a larger one
                                                       is written to ``<data file>.index`` next to
                                                       the data file and listed in ``_EXTRA_FILES``
====================================================  ==========================================

An option ``file-index.<type>.<col>.<key>`` for a column not listed in ``<type>.columns`` is an
error, as in Paimon; keys with another number of dots are ignored. Map-key indexes
(``col[key]``) are not supported by this writer.

The container (:func:`paimon_lens.formats.file_index_format.write_file_index`) lists columns and, per
column, index types in ``java.util.HashMap`` iteration order, which is what
``DataFileIndexWriter.serializeMaintainers`` produces; the index bytes come from paimon-lens'
writers, which are byte-identical to Paimon's.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..formats.bitmap import BitmapIndexWriter
from ..formats.bitmap_meta import JavaHashMapOrder
from ..formats.bloom import BloomFilterFileIndexWriter
from ..formats.bsi import BsiWriter
from ..formats.file_index_format import write_file_index
from ..formats.range_bitmap import RangeBitmapWriter
from ..metadata.options import parse_memory_size
from ..types import DataField, DataType

PREFIX = "file-index."
INDEX_TYPES = ("bloom-filter", "bitmap", "bsi", "range-bitmap")
DEFAULT_IN_MANIFEST_THRESHOLD = 500


def java_string_hash(text: str) -> int:
    """``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as int32."""
    raw = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for (unit,) in struct.iter_unpack(">H", raw):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def java_hashmap_put_order(keys: Sequence[str]) -> list[str]:
    """Iteration order of a ``HashMap<String, ?>`` filled with ``put`` in ``keys`` order."""
    n = len(set(keys))
    cap = 16
    while n > cap * 3 // 4:
        cap *= 2
    seen: dict[str, int] = {}
    for k in keys:
        if k not in seen:
            h = java_string_hash(k) & 0xFFFFFFFF
            seen[k] = (h ^ (h >> 16)) & (cap - 1)
    order = list(seen)
    return sorted(order, key=lambda k: (seen[k], order.index(k)))  # stable: insertion order in a bin


@dataclass(frozen=True)
class IndexSpec:
    """One index to build: a column, an index type and its options (keys without the prefix)."""

    column: str
    index_type: str
    options: dict[str, str] = field(default_factory=dict)


def parse_index_options(options: dict[str, str]) -> list[IndexSpec]:
    """Indexes configured by table options, in option order (``FileIndexOptions.setupOptions``)."""
    declared: dict[tuple[str, str], dict[str, str]] = {}
    for key, value in options.items():
        if key.startswith(PREFIX) and key.endswith(".columns"):
            index_type = key[len(PREFIX):-len(".columns")]
            for name in value.split(","):
                if not name.strip():
                    raise ValueError(f"wrong option in {key}: should not have an empty column")
                declared.setdefault((name.strip(), index_type), {})
    for key, value in options.items():
        if not key.startswith(PREFIX) or key.endswith(".columns"):
            continue
        parts = key[len(PREFIX):].split(".")
        if len(parts) != 3:
            continue
        index_type, column, opt = parts
        if (column, index_type) not in declared:
            raise ValueError(f"wrong file index option {key!r}: column {column!r} is not declared in "
                             f"'{PREFIX}{index_type}.columns'")
        declared[(column, index_type)][opt] = value
    return [IndexSpec(c, t, o) for (c, t), o in declared.items()]


def in_manifest_threshold(options: dict[str, str]) -> int:
    """``file-index.in-manifest-threshold`` in bytes."""
    raw = options.get("file-index.in-manifest-threshold")
    return DEFAULT_IN_MANIFEST_THRESHOLD if raw is None else parse_memory_size(raw)


def make_index_writer(spec: IndexSpec, dtype: DataType) -> Any:
    """A fresh paimon-lens writer for one index (``FileIndexer.create(...).createWriter()``)."""
    t, o = spec.index_type, spec.options
    if t == "bloom-filter":
        return BloomFilterFileIndexWriter.from_options(dtype, o)
    if t == "bitmap":
        return BitmapIndexWriter(dtype, int(o.get("version", "2")), o.get("index-block-size", "16kb"))
    if t == "range-bitmap":
        return RangeBitmapWriter(dtype, o.get("chunk-size"))
    if t == "bsi":
        return BsiWriter(dtype)
    raise ValueError(f"unknown file index type {t!r} (Paimon knows {', '.join(INDEX_TYPES)})")


def validate_index_specs(specs: Sequence[IndexSpec], fields: Sequence[DataField]) -> None:
    """Fail early, as Paimon's writer would on the first file, for bad columns, types or options."""
    by_name = {f.name: f for f in fields}
    for spec in specs:
        if spec.column.endswith("]") and "[" in spec.column:
            raise NotImplementedError(f"map-key file indexes ({spec.column}) are not supported by this writer")
        f = by_name.get(spec.column)
        if f is None:
            raise ValueError(f"{spec.column} does not exist in column fields")
        make_index_writer(spec, f.type)


def build_container(specs: Sequence[IndexSpec], fields: Sequence[DataField],
                    columns: Mapping[str, Sequence[Any]]) -> bytes | None:
    """The file-index container of one data file (None when no index is configured).

    ``columns`` maps a column name to its internal values in file row order.
    """
    if not specs:
        return None
    by_name = {f.name: f for f in fields}
    built: dict[tuple[str, str], bytes] = {}
    for spec in specs:
        writer = make_index_writer(spec, by_name[spec.column].type)
        writer.write_many(list(columns[spec.column]))  # bulk paths: the same bytes as write() per value
        built[(spec.column, spec.index_type)] = writer.serialized_bytes()
    # indexMaintainers: HashMap<type, HashMap<column, maintainer>>; serializeMaintainers walks it and
    # fills HashMap<column, HashMap<type, bytes>> (computeIfAbsent outside, put inside)
    types = java_hashmap_put_order([s.index_type for s in specs])
    outer = JavaHashMapOrder()
    inner: dict[str, list[str]] = {}
    for t in types:
        for c in java_hashmap_put_order([s.column for s in specs if s.index_type == t]):
            if c in inner:
                outer.access()
            else:
                outer.insert(c, java_string_hash(c))
                inner[c] = []
            inner[c].append(t)
    return write_file_index({c: {t: built[(c, t)] for t in java_hashmap_put_order(inner[c])}
                             for c in outer.order()})
