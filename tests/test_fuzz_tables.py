"""Whole-table mutation fuzzing: one file of a real table is mutated, then the public API runs end to end.

:mod:`tests.test_fuzz` fuzzes standalone blobs; this fuzzes the metadata readers on real tables as
a user reaches them. For a selection of fixture tables (append with embedded and external
``.index`` files, partitioned with fixed buckets, primary key with deletion vectors, dynamic
bucket with HASH index files, Paimon 2.0 with several index types, row tracking, data evolution
with deletion vectors in the data directory, type evolution, a fallback branch, and the
append table with its data files converted to ORC) the table is copied once per case (table x
file kind), then, per iteration, one file of that kind is replaced by a mutation and restored
afterwards:

``snapshot``        the latest ``snapshot/snapshot-N`` (sometimes a ``LATEST``/``EARLIEST`` hint,
                    a tag or a branch's latest snapshot)
``schema``          a ``schema/schema-N``
``manifest-list``   the base, delta or changelog manifest list of the snapshot
``manifest``        a manifest the snapshot lists
``index-manifest``  the snapshot's index manifest
``index-file``      an external ``<data file>.index`` container
``dv-file``         a deletion-vector index file
``hash-file``       a HASH (dynamic bucket) index file
``data-file``       a live data file (parquet, or ORC in the ``*_orc`` table)

JSON files get structured mutations (a key deleted; a value replaced by another type, a huge or
negative number, NaN, a long or odd string, deep nesting; ids made negative; options and column
types replaced; list items duplicated or swapped) or the byte mutations of
:func:`tests.test_fuzz.mutate`. Avro metadata files get record mutations (values of the declared
type: extremes, empty or mutated bytes, odd strings, records dropped or duplicated), schema
mutations (a field dropped, renamed, made nullable and null, or given another type), byte
mutations of the Paimon-written (zstd) bytes and of an uncompressed re-encoding, or a re-encoding
as ORC / Parquet (``manifest.format``). Data files get byte mutations or a rewrite with a column
dropped, renamed, retyped or nulled, or rows cut or added. Any file may also become empty,
disappear, become a directory or take another file's bytes.

Then :func:`paimon_lens.open_table` and every reader run: ``snapshots``, ``schemas``,
``manifests``, ``files``, ``index_manifest``, ``file_indexes``, ``deletion_vectors``,
``hash_index``, the table's HTML, ``explain(<an oracle predicate>, truth=True)`` with ``summary``,
``to_dict`` (JSON-dumped), ``to_frame``, ``repr`` and its HTML. The only exception allowed is
:class:`~paimon_lens.errors.PaimonLensError`, and each call must finish within
:data:`CALL_SECONDS`. A test collects every distinct bug of its case (exception type and innermost
paimon-lens frame) and fails listing them, each with the case id and iteration that reproduce it.

Every iteration is seeded from ``"<case id>:<iteration>"``, so one mutation is reproduced alone:
``python -m benchmarks.fuzz_long --repro 'events20/manifest#17'``.

``PAIMON_LENS_FUZZ_TABLES=N`` sets the mutations per case (default 8, the whole file in well under
a minute on 2 cores); ``python -m benchmarks.fuzz_long --mutations 100000`` is the long run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from paimon_lens import open_table
from paimon_lens.errors import PaimonLensError
from tests.conftest import FIXTURES, load_json
from tests.test_fuzz import mutate

ITERATIONS = int(os.environ.get("PAIMON_LENS_FUZZ_TABLES", "8"))
CALL_SECONDS = 5.0
"""A single API call on a mutated table taking longer than this is a bug (a hang)."""

TABLES: dict[str, str] = {
    "events_mixed": "tables/a_append_indexed/oracle_events_mixed.json",  # embedded + external .index
    "sales": "tables/b_partitioned_append/oracle_sales.json",  # partitioned, fixed buckets
    "orders_dv": "tables/c_pk_deletion_vectors/oracle_orders_dv.json",  # PK + deletion vectors
    "orders_dyn": "tables/c_pk_deletion_vectors/oracle_orders_dyn.json",  # dynamic bucket, HASH + DV
    "events20": "tables20/a20_append_indexed/oracle_events20.json",  # 2.0: bitmap/bsi/range-bitmap/bloom
    "orders_dv20": "tables20/b20_pk_dv/oracle_orders_dv20.json",  # 2.0 PK + DV + file indexes
    "row_tracking20": "tables20/d20_stats_modes/oracle_stats_row_tracking.json",  # 2.0 row tracking
    "append_dv_py": "pypaimon/oracle_append_dv_in_data_dir.json",  # data evolution, DV in data dir
    "type_evolution_py": "pypaimon/oracle_type_evolution.json",  # six schemas, casts
    "branch_fallback_py": "pypaimon/oracle_branch_fallback.json",  # scan.fallback-branch, tags
}
ORC_TABLES = {"events_mixed_orc": "events_mixed"}
"""Tables derived in the copy: the named table with every data file rewritten as ORC (``.orc``)."""

KINDS = ("snapshot", "schema", "manifest-list", "manifest", "index-manifest", "index-file", "dv-file",
         "hash-file", "data-file")

AVRO_MAGIC = b"Obj\x01"
SYNC = b"paimon-lens-fuzz"  # fixed Avro sync marker: re-encodings are byte-for-byte reproducible


# ---- the tables and their files ------------------------------------------------------------------------

def _table_dir(oracle: Path) -> Path:
    o = load_json(oracle)
    if isinstance(o["table"], str):  # pypaimon oracles name the table in warehouse/db.db
        return oracle.parent / "warehouse" / "db.db" / o["table"]
    return oracle.parent / o["table"]["path"]


def _predicates(oracle: Path) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p["sql"] for p in load_json(oracle).get("predicates", []) if p.get("sql")))


@dataclass
class FuzzTable:
    """One fixture table: where it is, how to prepare a copy, its files by kind and its predicates."""

    name: str
    source: Path
    predicates: tuple[str, ...]
    orc: bool = False
    _targets: dict[str, list[str]] | None = field(default=None, repr=False)
    _parents: dict[str, list[str]] | None = field(default=None, repr=False)

    def copy_to(self, dest: Path) -> Path:
        """A private copy of the table (``dest`` must not exist), ORC-converted if asked."""
        shutil.copytree(self.source, dest, symlinks=True)
        if self.orc:
            _convert_to_orc(dest)
        return dest

    def _scan(self) -> None:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="paimon-lens-fuzz-") as tmp:
            table = self.copy_to(Path(tmp) / self.name)
            self._targets = _discover(table)
            self._parents = _size_parents(table)

    @property
    def targets(self) -> dict[str, list[str]]:
        """Paths (relative to the table) of the files of every kind, found on a pristine copy."""
        if self._targets is None:
            self._scan()
        assert self._targets is not None
        return self._targets

    @property
    def parents(self) -> dict[str, list[str]]:
        """File name -> the metadata files (relative paths) that record its size."""
        if self._parents is None:
            self._scan()
        assert self._parents is not None
        return self._parents


def _discover(table: Path) -> dict[str, list[str]]:
    t = open_table(str(table))
    snap = t.snapshot
    assert snap is not None
    out: dict[str, list[str]] = {k: [] for k in KINDS}
    # the latest snapshot three times as likely as a hint, a tag or a branch's latest snapshot
    out["snapshot"] += [f"snapshot/snapshot-{snap.id}"] * 3
    out["snapshot"] += [f"snapshot/{h}" for h in ("LATEST", "EARLIEST") if (table / "snapshot" / h).is_file()]
    out["snapshot"] += sorted(str(p.relative_to(table)) for p in (table / "tag").glob("tag-*"))
    for branch in t.branches():
        bt = t.on_branch(branch)
        if bt.snapshot is not None:
            out["snapshot"].append(f"branch/branch-{branch}/snapshot/snapshot-{bt.snapshot.id}")
    out["schema"] = [f"schema/schema-{i}" for i in t.schema_manager.list_ids()]
    lists = [snap.base_manifest_list, snap.delta_manifest_list, snap.changelog_manifest_list]
    out["manifest-list"] = [f"manifest/{n}" for n in lists if n]
    out["manifest"] = [f"manifest/{n}" for n in dict.fromkeys(m.file_name for m in t.manifest_files())]
    if snap.index_manifest:
        out["index-manifest"] = [f"manifest/{snap.index_manifest}"]
    for lf in t.live_files():
        if lf.index_file_path and (table / lf.index_file_path).is_file():
            out["index-file"].append(lf.index_file_path)
        if (table / lf.path).is_file():
            out["data-file"].append(lf.path)
    im = t.index_manifest()
    for index_type, path in zip(im["index_type"], im["file_path"]):
        kind = {"DELETION_VECTORS": "dv-file", "HASH": "hash-file"}.get(index_type)
        if kind and path and (table / path).is_file():
            out[kind].append(path)
    return {k: sorted(set(v), key=v.index) if k != "snapshot" else v for k, v in out.items() if v}


# -- sizes recorded in metadata ----------------------------------------------------------------------------
# Manifest lists record each manifest's _FILE_SIZE, manifests each data file's, index manifests each
# index file's, 1.x+ snapshots their manifest lists' (baseManifestListSize ...). A mutated file of
# another size is usually given its new size there too (the parents re-encoded, recursively), so
# that the mutation reaches the decoder instead of stopping at the size check.

def _metadata_files(table: Path) -> list[Path]:
    return sorted([*(table / "manifest").glob("*"), *table.glob("snapshot/snapshot-*"), *table.glob("tag/tag-*"),
                   *table.glob("branch/branch-*/snapshot/snapshot-*")])


def _recorded_names(data: bytes) -> set[str]:
    """Names of the files whose size ``data`` (a snapshot JSON or an Avro metadata file) records."""
    if data.startswith(b"{"):
        doc = json.loads(data)
        return {v for k, v in doc.items() if isinstance(v, str) and f"{k}Size" in doc}
    if data.startswith(AVRO_MAGIC):
        _, records, _ = _read_avro(data)
        return {rec["_FILE_NAME"] for r in records for rec in (r, r.get("_FILE"))
                if isinstance(rec, dict) and "_FILE_SIZE" in rec and isinstance(rec.get("_FILE_NAME"), str)}
    return set()


def _size_parents(table: Path) -> dict[str, list[str]]:
    parents: dict[str, list[str]] = {}
    for f in _metadata_files(table):
        for name in _recorded_names(f.read_bytes()):
            parents.setdefault(name, []).append(str(f.relative_to(table)))
    return parents


def _with_sizes(data: bytes, sizes: dict[str, int], rename: dict[str, str] | None = None) -> bytes | None:
    """``data`` (snapshot JSON or Avro metadata) recording ``sizes`` (and renamed files); None if unchanged."""
    if data.startswith(b"{"):
        doc = json.loads(data)
        hits = [k for k, v in doc.items() if isinstance(v, str) and v in sizes and f"{k}Size" in doc]
        for k in hits:
            doc[f"{k}Size"] = sizes[doc[k]]
        return json.dumps(doc, indent=2).encode() if hits else None
    schema, records, codec = _read_avro(data)
    changed = False
    for r in records:
        for rec in (r, r.get("_FILE")):
            if isinstance(rec, dict) and isinstance(rec.get("_FILE_NAME"), str) and rec["_FILE_NAME"] in sizes:
                name = rec["_FILE_NAME"]
                rec["_FILE_SIZE"] = sizes[name]
                if rename and name in rename:
                    rec["_FILE_NAME"] = rename[name]
                changed = True
    return _avro(schema, records, codec) if changed else None


def record_sizes(changes: dict[str, Any], sizes: dict[str, int], parents: dict[str, list[str]],
                 read: Callable[[str], bytes], rename: dict[str, str] | None = None) -> list[str]:
    """Record new ``sizes`` (by file name) in every metadata file that records them, recursively up
    to the snapshot; the rewritten files go into ``changes`` (relative path -> bytes). Returns them."""
    touched: list[str] = []
    for _ in range(4):  # data file -> manifest -> manifest list -> snapshot
        by_parent: dict[str, dict[str, int]] = {}
        for name, size in sizes.items():
            for p in parents.get(name, []):
                by_parent.setdefault(p, {})[name] = size
        sizes = {}
        for p, sz in sorted(by_parent.items()):
            current = changes[p] if isinstance(changes.get(p), bytes) else read(p)
            try:
                new = _with_sizes(current, sz, rename)
            except Exception:
                continue
            if new is not None:
                changes[p] = new
                touched.append(p)
                if len(new) != len(current):
                    sizes[p.rsplit("/", 1)[-1]] = len(new)
        if not sizes:
            break
    return touched


def _convert_to_orc(table: Path) -> None:
    """Every ``.parquet`` data file as ORC under a ``.orc`` name, with the metadata naming it and
    recording its size rewritten."""
    import pyarrow.orc as orc
    import pyarrow.parquet as pq

    sizes: dict[str, int] = {}
    rename: dict[str, str] = {}
    for p in sorted(table.rglob("*.parquet")):
        orc_path = p.with_suffix(".orc")
        orc.write_table(pq.read_table(p), str(orc_path))
        p.unlink()
        sizes[p.name] = orc_path.stat().st_size
        rename[p.name] = orc_path.name
    changes: dict[str, Any] = {}
    record_sizes(changes, sizes, _size_parents(table), lambda rel: (table / rel).read_bytes(), rename)
    for rel, data in changes.items():
        (table / rel).write_bytes(data)


def _load_tables() -> dict[str, FuzzTable]:
    tables = {name: FuzzTable(name, _table_dir(FIXTURES / rel), _predicates(FIXTURES / rel))
              for name, rel in TABLES.items()}
    for name, base in ORC_TABLES.items():
        tables[name] = FuzzTable(name, tables[base].source, tables[base].predicates, orc=True)
    return tables


FUZZ_TABLES = _load_tables()


@dataclass(frozen=True)
class TableCase:
    """One table and one kind of file to mutate."""

    table: FuzzTable
    kind: str

    @property
    def id(self) -> str:
        return f"{self.table.name}/{self.kind}"


def table_cases() -> list[TableCase]:
    """Every (table, kind) with at least one file of that kind."""
    return [TableCase(t, k) for t in FUZZ_TABLES.values() for k in KINDS if k in t.targets]


# ---- mutations -----------------------------------------------------------------------------------------

DIRECTORY = object()
"""A mutation result: the file becomes an (empty) directory."""

Mutated = bytes | None | object
"""New bytes, None (the file is deleted) or :data:`DIRECTORY`."""

HUGE = [2**31, 2**31 - 1, -(2**31), -(2**31) - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1,
        2**64, 10**30, -(10**30), 10**400]
TYPES: list[Any] = [
    "INT", "BIGINT", "STRING", "BOOLEAN", "DOUBLE", "FLOAT", "TINYINT", "SMALLINT", "DATE", "TIME(3)", "TIME(-1)",
    "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP(99)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP WITH TIME ZONE",
    "DECIMAL(10, 2)", "DECIMAL(38, 10)", "DECIMAL(39, 0)", "DECIMAL(0, 0)", "DECIMAL(5, 10)", "DECIMAL(-1, 2)",
    "DECIMAL(99999999999999999999, 2)", "DECIMAL", "CHAR(0)", "CHAR(5)", "VARCHAR(2147483647)", "VARCHAR(-1)",
    "BINARY(3)", "VARBINARY(10)", "BYTES", "INT NOT NULL", "STRING NOT NULL NOT NULL", "ARRAY<INT>", "ARRAY<INT",
    "MAP<STRING, STRING>", "MAP<INT>", "MULTISET<STRING>", "ROW<a INT>", "ROW<>", "ROW(a INT, b STRING)", "VARIANT",
    "BLOB", "VECTOR<FLOAT, 3>", "", "  ", "FOO", "INT(3)", "`INT`", "INT NULL", "\u00e9",
    {"type": "ARRAY", "element": "INT"}, {"type": "ARRAY"}, {"type": "ROW", "fields": []}, {"type": "ROW"},
    {"type": "MAP", "key": "STRING", "value": None}, {"type": "ROW", "fields": [{"id": 0, "name": "x", "type": "INT"}]},
    {"type": "ROW", "fields": [None]}, {"type": "MULTISET NOT NULL", "element": "STRING"}, {}, [], None, 7,
]
OPTIONS: dict[str, list[str]] = {
    "bucket": ["-1", "0", "1", "2", "-2", "abc", "2147483648", "", "1.5"],
    "bucket-key": ["nope", "", ",", "id,id", "dt"],
    "bucket-function.type": ["mod", "default", "nope"],
    "file.format": ["orc", "avro", "parquet", "csv", ""],
    "manifest.format": ["orc", "parquet", "avro", "nope"],
    "file-index.bitmap.columns": ["nope", "", "id,nope", "attrs[color]", "[", "a[b"],
    "file-index.bloom-filter.columns": ["nope", "", "id"],
    "file-index.in-manifest-threshold": ["garbage", "-1 B", "0", "1 PB", "99999999999999999999 kb", ""],
    "file-index.read.enabled": ["false", "nope"],
    "file-index.bloom-filter.id.items": ["-1", "0", "x"],
    "file-index.bloom-filter.id.fpp": ["0", "1", "-0.5", "nan", "x"],
    "data-file.path-directory": ["..", "../..", "/", "x", "a/../..", ""],
    "data-file.prefix": ["", "x-", "../"],
    "data-file.external-paths": ["/", "/nonexistent", "file:/tmp", "s3://b/p", ",", "::"],
    "partition.default-name": ["", "/", "..", "__DEFAULT_PARTITION__"],
    "partition.legacy-name": ["false", "true", "nope"],
    "scan.fallback-branch": ["nope", "main", "b", "", "../x"],
    "deletion-vectors.enabled": ["true", "false", "nope"],
    "deletion-vectors.bitmap64": ["true", "false"],
    "deletion-vectors.merge-on-read": ["true", "false"],
    "index-file-in-data-file-dir": ["true", "false"],
    "row-tracking.enabled": ["true", "false"],
    "data-evolution.enabled": ["true", "false"],
    "merge-engine": ["partial-update", "aggregation", "first-row", "nope"],
    "sequence.field": ["nope", "id"],
    "metadata.stats-mode": ["none", "counts", "full", "truncate(0)", "truncate(-1)", "truncate(x)", "nope"],
    "metadata.stats-keep-first-n-columns": ["-3", "0", "99", "x"],
    "metadata.stats-dense-store": ["true", "false", "nope"],
    "fields.id.stats-mode": ["none", "truncate(1)", "x"],
    "changelog-producer": ["input", "lookup"],
    "global-index.external-path": ["/", "x"],
}
STRINGS = ["", " ", "x", "-1", "0", "NaN", "null", "true", "..", "../..", "/", "/etc/passwd", "a/b", "\x00",
           "\u00e9\u0301", "\ud800", "\U0001f600", "%2e%2e", "file:///etc", "s3://bucket/x", "a" * 5000,
           "snapshot-1", "manifest-list-x", "data-x.parquet", "bucket-0"]


def _weird_value(old: Any, rng: random.Random) -> Any:
    """A JSON value to put where ``old`` was: another type, an extreme, an odd string, deep nesting."""
    pool: list[Callable[[], Any]] = [
        lambda: None, lambda: True, lambda: False, lambda: 0, lambda: -1, lambda: rng.choice(HUGE),
        lambda: 1.5, lambda: -0.0, lambda: 1e308, lambda: float("nan"), lambda: float("inf"), lambda: -float("inf"),
        lambda: rng.choice(STRINGS), lambda: str(old), lambda: [], lambda: [old], lambda: {}, lambda: {"k": old},
        lambda: [None, old, {}], lambda: _DEEP,
    ]
    if isinstance(old, bool):
        pool.append(lambda: not old)
    elif isinstance(old, int):
        pool += [lambda: old + 1, lambda: old - 1, lambda: -old - 1, lambda: old * 2**32, lambda: str(old),
                 lambda: float(old), lambda: old + 0.5]
    elif isinstance(old, str):
        pool += [lambda: old + "x", lambda: old[: len(old) // 2], lambda: old.upper(), lambda: "../" + old,
                 lambda: old + ".parquet", lambda: old * 50, lambda: old.replace("-", "/")]
    return rng.choice(pool)()


_DEEP = "\x00paimon-lens-fuzz-deep\x00"  # replaced by deeply nested arrays after json.dumps


def _json_paths(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield (*path, k)
            yield from _json_paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield (*path, i)
            yield from _json_paths(v, (*path, i))


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _is_id_key(key: Any) -> bool:
    return isinstance(key, str) and (key in ("id", "version") or key.endswith(("Id", "Ids")))


def mutate_json(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three structured mutations of a JSON document (falls back to bytes if it is not JSON)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return mutate(data, rng), "bytes"
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        paths = list(_json_paths(doc))
        op = rng.randrange(10)
        if not paths or op == 9:  # the whole document
            doc = _weird_value(doc, rng)
            done.append(f"root={_short(doc)}")
            continue
        if op in (0, 1):  # delete a key or an item
            path = rng.choice(paths)
            parent = _get(doc, path[:-1])
            del parent[path[-1]]
            done.append(f"del {_fmt(path)}")
        elif op in (2, 3):  # another value
            path = rng.choice(paths)
            parent = _get(doc, path[:-1])
            parent[path[-1]] = _weird_value(parent[path[-1]], rng)
            done.append(f"{_fmt(path)}={_short(parent[path[-1]])}")
        elif op == 4:  # ids negative (or huge)
            ids = [p for p in paths if _is_id_key(p[-1]) and isinstance(_get(doc, p), int)]
            path = rng.choice(ids or paths)
            parent = _get(doc, path[:-1])
            old = parent[path[-1]]
            negated = -(old if isinstance(old, int) else 1) - 1
            parent[path[-1]] = rng.choice([-1, -2, -(2**31), -(2**63), 2**63, negated])
            done.append(f"{_fmt(path)}={_short(parent[path[-1]])}")
        elif op == 5:  # a column type
            types = [p for p in paths if p[-1] in ("type", "element", "key", "value")]
            path = rng.choice(types or paths)
            _get(doc, path[:-1])[path[-1]] = new = rng.choice(TYPES)
            done.append(f"{_fmt(path)}={_short(new)}")
        elif op == 6 and isinstance(doc, dict):  # an option
            opts = doc.get("options")
            if not isinstance(opts, dict):
                opts = doc["options"] = {}
            key = rng.choice(sorted(OPTIONS) + sorted(opts))
            value = rng.choice(OPTIONS.get(key) or STRINGS)
            opts[key] = value
            done.append(f"options[{key}]={_short(value)}")
        elif op == 7:  # duplicate or swap list items
            lists = [p for p in paths if isinstance(_get(doc, p), list) and _get(doc, p)]
            if not lists:
                continue
            lst = _get(doc, rng.choice(lists))
            i, j = rng.randrange(len(lst)), rng.randrange(len(lst))
            if rng.random() < 0.5:
                lst.insert(j, json.loads(json.dumps(lst[i])))
                done.append(f"dup item {i}")
            else:
                lst[i], lst[j] = lst[j], lst[i]
                done.append(f"swap items {i},{j}")
        else:  # copy one value over another
            src, dst = rng.choice(paths), rng.choice(paths)
            if dst[: len(src)] == src or src[: len(dst)] == dst:
                continue
            _get(doc, dst[:-1])[dst[-1]] = json.loads(json.dumps(_get(doc, src)))
            done.append(f"{_fmt(dst)}:={_fmt(src)}")
    text = json.dumps(doc, indent=rng.choice([None, 2]), ensure_ascii=rng.random() < 0.5)
    depth = rng.choice([64, 5000, 200000])
    text = text.replace(json.dumps(_DEEP), "[" * depth + "]" * depth)
    return text.encode("utf-8", "surrogatepass"), "json: " + "; ".join(done)


def _fmt(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _short(v: Any) -> str:
    if v == _DEEP:
        return "<deep nesting>"
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


# -- Avro --------------------------------------------------------------------------------------------------

def _avro(schema: dict[str, Any], records: list[dict[str, Any]], codec: str = "null") -> bytes:
    import fastavro

    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec=codec, sync_marker=SYNC, validator=False)
    return buf.getvalue()


def _read_avro(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    import fastavro

    reader = fastavro.reader(io.BytesIO(data))
    records: list[dict[str, Any]] = [r for r in reader if isinstance(r, dict)]
    schema = reader.writer_schema if isinstance(reader.writer_schema, dict) else {}
    return schema, records, reader.codec


def _nonnull(t: Any) -> Any:
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        return rest[0] if len(rest) == 1 else t
    return t


def _avro_value(t: Any, old: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value valid for Avro type ``t``, near or far from ``old``."""
    if isinstance(t, list):
        if "null" in t and rng.random() < 0.3:
            return None
        inner = _nonnull(t)
        return _avro_value(inner, old, rng, depth)
    if isinstance(t, dict):
        kind = t.get("type")
        if t.get("logicalType", "").startswith("timestamp"):
            return rng.choice([0, -1, 1, -(2**62), 2**62, 2**63 - 1, -(2**63), 253402300800000, -62135596800001])
        if kind == "record":
            rec = dict(old) if isinstance(old, dict) else {f["name"]: _avro_default(f["type"]) for f in t["fields"]}
            fields = t["fields"]
            if fields:
                f = rng.choice(fields)
                rec[f["name"]] = _avro_value(f["type"], rec.get(f["name"]), rng, depth + 1)
            return rec
        if kind == "array":
            items = list(old) if isinstance(old, list) else []
            op = rng.randrange(5)
            if op == 0 or depth > 3:
                return []
            if op == 1 and items:
                del items[rng.randrange(len(items))]
            elif op == 2 and items:
                items.insert(rng.randrange(len(items) + 1), items[rng.randrange(len(items))])
            elif op == 3 and items:
                i = rng.randrange(len(items))
                items[i] = _avro_value(t["items"], items[i], rng, depth + 1)
            else:
                items.append(_avro_value(t["items"], items[-1] if items else None, rng, depth + 1))
            return items
        if kind == "map":
            return {}
        if kind in ("enum",):
            return rng.choice(t["symbols"])
        if kind == "fixed":
            return bytes(rng.randrange(256) for _ in range(t["size"]))
        return _avro_value(kind, old, rng, depth)
    if t == "int":
        return rng.choice([0, -1, 1, 2, 7, 2**31 - 1, -(2**31), rng.randrange(-1000, 1000),
                           (old + 1) if isinstance(old, int) and old < 2**31 - 1 else 3,
                           -old - 1 if isinstance(old, int) else -5])
    if t == "long":
        return rng.choice([0, -1, 1, 2**31, 2**32, 2**53 + 1, 2**62, 2**63 - 1, -(2**63), rng.randrange(-10**6, 10**6),
                           (old + 1) if isinstance(old, int) and old < 2**63 - 1 else 3,
                           -old - 1 if isinstance(old, int) else -5])
    if t == "string":
        s = old if isinstance(old, str) else ""
        new = rng.choice([*STRINGS, s + "x", s[: len(s) // 2], "../" + s, s.replace("-", "/"), s + ".index",
                          s.upper(), s * 3])
        return new.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # Avro strings are UTF-8
    if t == "bytes":
        b = old if isinstance(old, bytes) else b""
        return rng.choice([b"", b"\x00", b"\xff" * 8, bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))),
                           mutate(b, rng), mutate(b, rng), mutate(b, rng), b[: len(b) // 2], b + b, b * 50])
    if t == "boolean":
        return not old
    if t in ("float", "double"):
        return rng.choice([0.0, -1.0, float("nan"), float("inf"), 1e300])
    if t == "null":
        return None
    return old


def _avro_default(t: Any) -> Any:
    """A plain valid value of Avro type ``t`` (a record with every field filled)."""
    if isinstance(t, list):
        return None if "null" in t else _avro_default(t[0])
    if isinstance(t, dict):
        kind = t.get("type")
        if kind == "record":
            return {f["name"]: _avro_default(f["type"]) for f in t["fields"]}
        if kind == "array":
            return []
        if kind == "map":
            return {}
        if kind == "enum":
            return t["symbols"][0]
        if kind == "fixed":
            return bytes(t["size"])
        return _avro_default(kind)
    return {"int": 0, "long": 0, "string": "", "bytes": b"", "boolean": False, "float": 0.0, "double": 0.0}.get(t)


def _fields_at(schema: dict[str, Any],
               prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every field of a record schema (nested records included) with its path of names."""
    for f in schema.get("fields", []):
        yield (*prefix, f["name"]), f
        inner = _nonnull(f["type"])
        if isinstance(inner, dict) and inner.get("type") == "record":
            yield from _fields_at(inner, (*prefix, f["name"]))
        elif (isinstance(inner, dict) and inner.get("type") == "array" and isinstance(_nonnull(inner["items"]), dict)
              and _nonnull(inner["items"]).get("type") == "record"):
            yield from _fields_at(_nonnull(inner["items"]), (*prefix, f["name"], "[]"))


def _holders(records: list[Any], path: tuple[str, ...]) -> list[dict[str, Any]]:
    """The dicts that hold the last name of ``path`` (through nested records and arrays of records)."""
    found: list[Any] = list(records)
    for p in path[:-1]:
        nxt: list[Any] = []
        for obj in found:
            if p == "[]":
                nxt.extend(x for x in (obj or []) if isinstance(x, dict))
            elif isinstance(obj, dict) and isinstance(obj.get(p), (dict, list)):
                nxt.append(obj[p])
        found = nxt
    return [h for h in found if isinstance(h, dict)]


def mutate_avro_records(schema: dict[str, Any], records: list[dict[str, Any]], rng: random.Random) -> str:
    """Change values (of the declared types) or records in place; returns what was done."""
    done = []
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        if op == 0 and records:
            i = rng.randrange(len(records))
            del records[i]
            done.append(f"drop record {i}")
        elif op == 1 and records:
            i, j = rng.randrange(len(records)), rng.randrange(len(records) + 1)
            records.insert(j, _deepcopy(records[i]))
            done.append(f"dup record {i}")
        elif op == 2 and len(records) > 1:  # one record's value copied into another
            fields = list(_fields_at(schema))
            path, _ = rng.choice(fields)
            holders = _holders(records, path)
            if len(holders) > 1:
                a, b = rng.sample(range(len(holders)), 2)
                if path[-1] in holders[a]:
                    holders[b][path[-1]] = _deepcopy(holders[a][path[-1]])
                    done.append(f"copy {'.'.join(path)}")
        else:
            fields = list(_fields_at(schema))
            if not fields or not records:
                continue
            path, f = rng.choice(fields)
            holders = _holders(records, path)
            if not holders:
                continue
            h = rng.choice(holders) if rng.random() < 0.8 else None
            for target in ([h] if h is not None else holders):
                target[path[-1]] = _avro_value(f["type"], target.get(path[-1]), rng)
            value = _avro_value if h is None else h[path[-1]]
            done.append(f"{'.'.join(path)}={'<each>' if h is None else _short(value)}")
    return "; ".join(done) or "nothing"


def _deepcopy(v: Any) -> Any:
    import copy

    return copy.deepcopy(v)


_RETYPES: list[tuple[Any, Callable[[Any], Any]]] = [
    ("string", lambda v: "" if v is None else (v.hex() if isinstance(v, bytes) else str(v))),
    ("long", lambda v: v if isinstance(v, int) else (len(v) if hasattr(v, "__len__") else 0)),
    ("int", lambda v: v if isinstance(v, int) and -(2**31) <= v < 2**31 else 7),
    ("bytes", lambda v: v if isinstance(v, bytes) else str(v).encode()),
    ("boolean", lambda v: bool(v)),
    ("double", lambda v: float(v) if isinstance(v, (int, float)) else 1.5),
    ({"type": "array", "items": "string"}, lambda v: [] if v is None else [str(v)]),
    ({"type": "array", "items": ["null", "long"]}, lambda v: [None, -1, 2**63 - 1]),
    ({"type": "map", "values": "string"}, lambda v: {"k": str(v)}),
]


def mutate_avro_schema(schema: dict[str, Any], records: list[dict[str, Any]], rng: random.Random) -> str:
    """Drop, rename, null or retype one field (schema and records together)."""
    fields = [(p, f) for p, f in _fields_at(schema)]
    path, f = rng.choice(fields)
    parent_schema = schema
    for p in path[:-1]:  # the record schema holding f
        if p == "[]":
            continue
        g = next(x for x in parent_schema["fields"] if x["name"] == p)
        t = _nonnull(g["type"])
        parent_schema = _nonnull(t["items"]) if t.get("type") == "array" else t
    holders = _holders(records, path)
    name = path[-1]
    op = rng.randrange(5)
    if op == 0:
        parent_schema["fields"] = [x for x in parent_schema["fields"] if x is not f]
        for h in holders:
            h.pop(name, None)
        return f"drop field {'.'.join(path)}"
    if op == 1:
        new = rng.choice([name.lower(), name + "_", "_" + name.strip("_"), "x"])
        if any(x["name"] == new for x in parent_schema["fields"]):
            new += "_2"
        f["name"] = new
        for h in holders:
            if name in h:
                h[new] = h.pop(name)
        return f"rename field {'.'.join(path)} -> {new}"
    if op == 2:
        if not (isinstance(f["type"], list) and "null" in f["type"]):
            f["type"] = ["null", f["type"]]
        for h in holders:
            if rng.random() < 0.7:
                h[name] = None
        f.pop("default", None)
        return f"null field {'.'.join(path)}"
    if op == 3:
        extra = {"name": rng.choice(["_EXTRA", "_FILE_NAME_", "_x"]), "type": ["null", "string"]}
        parent_schema["fields"].insert(rng.randrange(len(parent_schema["fields"]) + 1), extra)
        return f"extra field in {'.'.join(path[:-1]) or 'record'}"
    new_type, conv = rng.choice(_RETYPES)
    f["type"] = new_type
    f.pop("default", None)
    for h in holders:
        h[name] = conv(h.get(name))
    return f"retype {'.'.join(path)} -> {json.dumps(new_type)}"


def _rename_named_types(schema: Any, seen: set[str] | None = None) -> Any:
    """Give every named type a unique name (an edited schema may define one name twice)."""
    seen = set() if seen is None else seen
    if isinstance(schema, list):
        return [_rename_named_types(x, seen) for x in schema]
    if isinstance(schema, dict):
        out = {k: _rename_named_types(v, seen) for k, v in schema.items()}
        if out.get("type") in ("record", "enum", "fixed") and "name" in out:
            name = out["name"]
            while name in seen:
                name += "_"
            seen.add(name)
            out["name"] = name
        return out
    return schema


def mutate_avro(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Record, schema, byte or format mutations of an Avro metadata file."""
    try:
        schema, records, codec = _read_avro(data)
    except Exception:
        return mutate(data, rng), "bytes"
    op = rng.randrange(20)
    if op < 2:
        return mutate(data, rng), "bytes (zstd as written)"
    if op < 5:
        return mutate(_avro(schema, records), rng), "bytes (uncompressed re-encoding)"
    if op < 12:
        what = mutate_avro_records(schema, records, rng)
        try:
            return _avro(schema, records, codec), f"records: {what}"
        except Exception as e:  # a value fastavro cannot write: bytes instead
            return mutate(data, rng), f"bytes (records change {what!r} not writable: {type(e).__name__})"
    if op < 17:
        what = mutate_avro_schema(schema, records, rng)
        if rng.random() < 0.3:
            what += "; " + mutate_avro_records(schema, records, rng)
        try:
            return _avro(_rename_named_types(schema), records, codec), f"schema: {what}"
        except Exception as e:  # a change fastavro cannot write: bytes instead
            return mutate(data, rng), f"bytes (schema change {what!r} not writable: {type(e).__name__})"
    fmt = rng.choice(["orc", "parquet"])
    what = mutate_avro_records(schema, records, rng) if rng.random() < 0.5 else "no record change"
    try:
        from paimon_lens.writer.meta_file import meta_file_bytes

        out = meta_file_bytes(schema, records, fmt)
    except Exception as e:
        return mutate(data, rng), f"bytes ({fmt} re-encoding failed: {type(e).__name__})"
    if rng.random() < 0.5:
        return mutate(out, rng), f"{fmt} re-encoding, {what}, then bytes"
    return out, f"{fmt} re-encoding, {what}"


# -- data files --------------------------------------------------------------------------------------------

def mutate_data(data: bytes, rng: random.Random, orc: bool) -> tuple[bytes, str]:
    """Byte mutations, or the file rewritten with a column dropped, renamed, retyped or nulled, or rows changed."""
    import pyarrow as pa
    import pyarrow.orc as pa_orc
    import pyarrow.parquet as pq

    if rng.random() < 0.45:
        return mutate(data, rng), "bytes"
    try:
        table = pa_orc.read_table(io.BytesIO(data)) if orc else pq.read_table(io.BytesIO(data))
    except Exception:
        return mutate(data, rng), "bytes"
    op = rng.randrange(8)
    i = rng.randrange(table.num_columns) if table.num_columns else 0
    name = table.column_names[i] if table.num_columns else ""
    if op == 0 and table.num_columns:
        table, what = table.remove_column(i), f"drop column {name}"
    elif op == 1 and table.num_columns:
        new = rng.choice([name.upper() + "_", "x", name + " "])
        table, what = table.rename_columns([new if c == name else c for c in table.column_names]), f"rename {name}"
    elif op == 2 and table.num_columns:
        col = table.column(i)
        target = rng.choice([pa.string(), pa.int8(), pa.int64(), pa.float64(), pa.binary(), pa.timestamp("ns"),
                             pa.bool_(), pa.decimal128(38, 9), pa.date32()])
        try:
            new_col = col.cast(target, safe=False)
        except Exception:
            new_col = pa.array([None] * len(col), type=target)
        table, what = table.set_column(i, name, new_col), f"retype {name} -> {target}"
    elif op == 3 and table.num_columns:
        col = table.column(i)
        table = table.set_column(i, pa.field(name, col.type, nullable=True), pa.nulls(len(col), col.type))
        what = f"null column {name}"
    elif op == 4:
        n = rng.randrange(max(1, table.num_rows))
        table, what = table.slice(0, n), f"first {n} rows"
    elif op == 5:
        table, what = pa.concat_tables([table, table.slice(0, rng.randint(1, max(1, table.num_rows)))]), "rows added"
    elif op == 6:
        if rng.random() < 0.5:
            table, what = pa.table({"x": pa.array([], pa.int32())}), "only an unknown empty column"
        else:
            table, what = table.slice(0, 0), "no rows"
    else:
        perm = list(range(table.num_columns))
        rng.shuffle(perm)
        table, what = table.select(perm), "columns reordered"
    buf = io.BytesIO()
    try:
        if orc:
            pa_orc.write_table(table, buf)
        else:
            pq.write_table(table, buf)
    except Exception as e:
        return mutate(data, rng), f"bytes (rewrite {what!r} failed: {type(e).__name__})"
    return buf.getvalue(), f"rewrite: {what}"


def mutate_hint(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if rng.random() < 0.3:
        return mutate(data, rng), "bytes"
    text = rng.choice(["-1", "0", "999999", str(2**63), "abc", "", " 1 ", "1.5", "\u0661", "1\n2", "\xff", "9" * 5000])
    return text.encode("utf-8", "surrogateescape"), f"hint={_short(text)}"


def mutate_file(kind: str, rel: str, data: bytes, rng: random.Random, others: list[Path]) -> tuple[Mutated, str]:
    """The mutated content of one file of ``kind`` (``rel`` relative to the table) and what was done."""
    r = rng.random()
    if r < 0.03:
        return b"", "empty"
    if r < 0.05:
        return None, "deleted"
    if r < 0.06:
        return DIRECTORY, "directory"
    if r < 0.09 and others:
        other = rng.choice(others)
        return other.read_bytes(), f"bytes of {other.name}"
    name = rel.rsplit("/", 1)[-1]
    if name in ("LATEST", "EARLIEST"):
        return mutate_hint(data, rng)
    if data.startswith(b"{"):
        if rng.random() < 0.7:
            return mutate_json(data, rng)
        return mutate(data, rng), "bytes"
    if data.startswith(AVRO_MAGIC):
        return mutate_avro(data, rng)
    if kind == "data-file":
        return mutate_data(data, rng, rel.endswith(".orc"))
    return mutate(data, rng), "bytes"


# ---- running the API ---------------------------------------------------------------------------------

class Hang(BaseException):
    """Raised in the main thread by the watchdog when one call takes longer than :data:`CALL_SECONDS`."""


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Interrupt a Python-level hang with :class:`Hang` (main thread, POSIX); elsewhere timing only."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"call took more than {seconds:g}s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    start = time.monotonic()
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)  # e.g. pytest-timeout's own alarm
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer > 0:  # give an outer alarm back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 0.001))


@dataclass
class Bug:
    """A call that raised something other than a PaimonLensError, or hung."""

    case: str
    iteration: int
    target: str
    mutation: str
    step: str
    exc_type: str
    message: str
    frame: str  # innermost paimon_lens frame, file:line (function)
    tb_tail: str

    @property
    def key(self) -> tuple[str, str]:
        return self.exc_type, self.frame

    @property
    def repro_id(self) -> str:
        return f"{self.case}#{self.iteration}"

    def describe(self) -> str:
        return (f"{self.exc_type}: {self.message[:300]}\n  at {self.frame}\n  step {self.step}; "
                f"{self.target} <- {self.mutation[:200]}\n  reproduce: python -m benchmarks.fuzz_long --repro "
                f"'{self.repro_id}'\n{self.tb_tail}")


def traceback_tail(e: BaseException, entries: int = 6, width: int = 300) -> str:
    """The last ``entries`` parts of ``e``'s traceback, each line cut at ``width`` characters."""
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-entries:])
    return "\n".join(line if len(line) <= width else line[: width - 3] + "..." for line in text.splitlines())


def _innermost_lens_frame(tb: Any) -> str:
    frames = traceback.extract_tb(tb)
    for fr in reversed(frames):
        if "/paimon_lens/" in fr.filename.replace(os.sep, "/"):
            rel = fr.filename.replace(os.sep, "/").split("/paimon_lens/", 1)[1]
            return f"paimon_lens/{rel}:{fr.lineno} ({fr.name})"
    return "(no paimon_lens frame)"


def _steps(path: str, where: str) -> list[tuple[str, Callable[[Any], Any]]]:
    def explain(t: Any) -> None:
        r = t.explain(where, truth=True)
        r.summary()
        json.dumps(r.to_dict(positions=True), default=str)  # as ``explain --format json`` prints it
        r.to_frame()
        repr(r)
        r._repr_html_()

    return [
        ("snapshots", lambda t: t.snapshots()),
        ("schemas", lambda t: t.schemas()),
        ("manifests", lambda t: t.manifests()),
        ("files", lambda t: t.files()),
        ("index_manifest", lambda t: t.index_manifest()),
        ("file_indexes", lambda t: t.file_indexes()),
        ("deletion_vectors", lambda t: t.deletion_vectors()),
        ("hash_index", lambda t: t.hash_index()),
        ("_repr_html_", lambda t: t._repr_html_()),
        (f"explain({where!r}, truth=True)", explain),
    ]


@dataclass
class Outcome:
    """What one mutation led to: ``answer`` (every call returned), ``typed`` (some raised a
    PaimonLensError) or ``bug``; and the bugs."""

    result: str
    bugs: list[Bug] = field(default_factory=list)
    calls: int = 0


def exercise(path: Path, where: str, on_bug: Callable[[str, BaseException], None],
             seconds: float = CALL_SECONDS) -> tuple[bool, int]:
    """Open the table at ``path`` and run every reader; ``on_bug(step, exc)`` for each bug.

    Returns (some call raised a PaimonLensError, number of calls made).
    """
    typed = False
    calls = 1

    def call(step: str, fn: Callable[[], Any]) -> Any:
        nonlocal typed
        start = time.perf_counter()
        try:
            with watchdog(seconds):
                return fn()
        except PaimonLensError:
            typed = True
            return None
        except (Exception, Hang) as e:
            on_bug(step, e)
            return None
        finally:
            took = time.perf_counter() - start
            if took > seconds:  # a hang inside C code the alarm could not interrupt
                on_bug(step, Hang(f"call took {took:.1f}s (limit {seconds:g}s)"))

    t = call("open_table", lambda: open_table(str(path)))
    if t is None:
        return typed, calls
    for step, fn in _steps(str(path), where):
        calls += 1
        call(step, lambda fn=fn: fn(t))  # type: ignore[misc]
    return typed, calls


class Sandbox:
    """A private copy of one table whose files are mutated and restored one at a time."""

    def __init__(self, table: FuzzTable, root: Path) -> None:
        self.table = table
        self.path = table.copy_to(root / table.name)
        self.pristine: dict[str, bytes] = {}
        self.others = sorted(p for p in self.path.rglob("*") if p.is_file())

    def original(self, rel: str) -> bytes:
        if rel not in self.pristine:
            self.pristine[rel] = (self.path / rel).read_bytes()
        return self.pristine[rel]

    @contextlib.contextmanager
    def replaced(self, changes: dict[str, Mutated]) -> Iterator[None]:
        """Files replaced (bytes), deleted (None) or made directories (:data:`DIRECTORY`), then restored."""
        originals = {rel: self.original(rel) for rel in changes}
        try:
            for rel, content in changes.items():
                p = self.path / rel
                p.unlink()
                if content is DIRECTORY:
                    p.mkdir()
                elif content is not None:
                    assert isinstance(content, bytes)
                    p.write_bytes(content)
            yield
        finally:
            for rel, original in originals.items():
                p = self.path / rel
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                elif p.exists() or p.is_symlink():
                    p.unlink()
                p.write_bytes(original)


@dataclass
class Mutation:
    """One reproducible mutation: the file mutated, every file changed (the mutated one first, then
    the metadata re-recording its size), what was done and the predicate explained."""

    target: str
    changes: dict[str, Mutated]
    description: str
    where: str


RECORD_SIZE = 0.8
"""How often a mutated file of another size also gets its new size recorded in the metadata."""


def make_mutation(case: TableCase, iteration: int, sandbox: Sandbox) -> Mutation:
    """The mutation of ``iteration`` of ``case`` (seeded from the case id and the iteration alone)."""
    rng = random.Random(f"{case.id}:{iteration}")
    target = rng.choice(case.table.targets[case.kind])
    where = rng.choice(case.table.predicates) if case.table.predicates else "1 = 1"
    original = sandbox.original(target)
    try:
        content, what = mutate_file(case.kind, target, original, rng, sandbox.others)
    except Exception as e:  # a generator bug must not stop the run: plain byte mutations instead
        content, what = mutate(original, rng), f"bytes (mutation failed: {type(e).__name__}: {e})"[:300]
    changes: dict[str, Mutated] = {target: content}
    if isinstance(content, bytes) and len(content) != len(original) and rng.random() < RECORD_SIZE:
        name = target.rsplit("/", 1)[-1]
        touched = record_sizes(changes, {name: len(content)}, case.table.parents, sandbox.original)
        if touched:
            what += f" (new size recorded in {len(touched)} file(s))"
    return Mutation(target, changes, what, where)


def run_iteration(case: TableCase, iteration: int, sandbox: Sandbox, seconds: float = CALL_SECONDS) -> Outcome:
    """Apply mutation ``iteration`` of ``case`` in ``sandbox``, run the API, restore the files."""
    m = make_mutation(case, iteration, sandbox)
    bugs: list[Bug] = []

    def on_bug(step: str, e: BaseException) -> None:
        bugs.append(Bug(case.id, iteration, m.target, m.description, step, type(e).__name__, str(e),
                        _innermost_lens_frame(e.__traceback__), traceback_tail(e)))

    with sandbox.replaced(m.changes):
        typed, calls = exercise(sandbox.path, m.where, on_bug, seconds)
    return Outcome("bug" if bugs else "typed" if typed else "answer", bugs, calls)


def distinct(bugs: list[Bug]) -> list[Bug]:
    """The first bug of each (exception type, innermost paimon-lens frame)."""
    seen: dict[tuple[str, str], Bug] = {}
    for b in bugs:
        seen.setdefault(b.key, b)
    return list(seen.values())


# ---- the tests -----------------------------------------------------------------------------------------

CASES = table_cases()


def test_every_kind_is_fuzzed() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds == set(KINDS), set(KINDS) - kinds
    assert {c.table.name for c in CASES} == set(FUZZ_TABLES)


def test_pristine_tables_answer(tmp_path: Path) -> None:
    """Unmutated, every selected table answers every call without any error (so a mutation is what breaks it)."""
    for table in FUZZ_TABLES.values():
        sandbox = Sandbox(table, tmp_path)
        for where in table.predicates[:3]:
            bugs: list[str] = []

            def on_bug(step: str, e: BaseException, bugs: list[str] = bugs) -> None:
                bugs.append(f"{step}: {e!r}")

            typed, _ = exercise(sandbox.path, where, on_bug)
            assert not typed and not bugs, (table.name, where, bugs)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_table_mutations_raise_only_typed_errors(case: TableCase, tmp_path: Path) -> None:
    sandbox = Sandbox(case.table, tmp_path)
    bugs: list[Bug] = []
    for i in range(ITERATIONS):
        bugs.extend(run_iteration(case, i, sandbox).bugs)
    if bugs:
        found = distinct(bugs)
        pytest.fail(f"{len(found)} distinct bug(s) in {len(bugs)} failing call(s):\n\n"
                    + "\n\n".join(b.describe() for b in found), pytrace=False)
