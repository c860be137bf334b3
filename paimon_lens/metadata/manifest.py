"""Manifest lists, manifests and index manifests, and merging entries into the live file set.

Record layouts (Avro, ORC or Parquet, detected per file; Avro read with each file's own writer
schema):

* manifest list: ``_FILE_NAME, _FILE_SIZE, _NUM_ADDED_FILES, _NUM_DELETED_FILES,
  _PARTITION_STATS{_MIN_VALUES, _MAX_VALUES, _NULL_COUNTS}, _SCHEMA_ID`` (+2.x: ``_VERSION,
  _MIN_BUCKET, _MAX_BUCKET, _MIN_LEVEL, _MAX_LEVEL, _MIN_ROW_ID, _MAX_ROW_ID``)
* manifest: ``_KIND, _PARTITION, _BUCKET, _TOTAL_BUCKETS, _FILE{16 fields in 0.9, 20 in 2.x}``
* index manifest: ``_KIND, _PARTITION, _BUCKET, _INDEX_TYPE, _FILE_NAME, _FILE_SIZE,
  _ROW_COUNT, _DELETIONS_VECTORS_RANGES[{f0 data file, f1 offset, f2 length, _CARDINALITY (2.x)}]``
  (+2.x: ``_EXTERNAL_PATH, _GLOBAL_INDEX``)

Live files: ADD entries not cancelled by a DELETE with the same identifier (partition, bucket,
level, file name, extra files, embedded index, external path), in base-then-delta order.

Partition-filtered reads: :func:`read_manifest_where` returns what :func:`read_manifest` followed
by a partition filter returns, but decodes and builds only the kept partitions' entries. An Avro
manifest's blocks are all decompressed and scanned for their entries' partitions, and only the
blocks holding a kept partition are decoded (:func:`~.avro.decode_avro_where`). A corrupt manifest
is refused as the whole read refuses it, with its error: the scan checks in every entry what
decoding checks and what :func:`read_manifest` checks by value (``_KIND`` 0 or 1; sizes, counts,
schema ids and levels >= 0); the schema must be right and strict enough that no other check can
fail (required fields not nullable, arrays of names holding strings); and any failure of the
selective read (or an ORC or Parquet manifest) falls back to the whole read.
"""

from __future__ import annotations

import datetime as _dt
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from ..errors import CorruptFileError
from ..io.fileio import FileIO, read_file
from .avro import AVRO_MAGIC, IntChecks, Unselectable, decode_avro_where
from .embedded_index import EmbeddedIndex, ManifestSource, embedded_index
from .meta_file import Kinds, avro_kinds, check_kinds, read_meta_file

FILE_KIND_ADD = 0
FILE_KIND_DELETE = 1
FILE_SOURCES = {0: "APPEND", 1: "COMPACT"}

_tuple_new = tuple.__new__
# Manifests hold hundreds of thousands of records: a data file's records (``SimpleStatsBytes``,
# ``DataFileMeta``, ``ManifestEntry``) are named tuples, a third of the memory of a dataclass
# with an instance ``__dict__``, built with ``tuple.__new__`` from the decoded values directly.


class SimpleStatsBytes(NamedTuple):
    """Undecoded ``SimpleStats``: BinaryRow bytes of minima and maxima, and null counts."""

    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...] | None

    @staticmethod
    def from_record(rec: dict[str, Any] | None, *same: bytes) -> SimpleStatsBytes:
        """From an Avro ``_*_STATS`` record (``same``: bytes objects to share when equal, as a key
        file's key stats and its ``_MIN_KEY``/``_MAX_KEY``)."""
        if not rec:
            return _NO_STATS
        nc = rec.get("_NULL_COUNTS")
        lo, hi = rec.get("_MIN_VALUES") or b"", rec.get("_MAX_VALUES") or b""
        for b in same:
            if lo == b:
                lo = b
            if hi == b:
                hi = b
        return _tuple_new(SimpleStatsBytes, (lo, hi, None if nc is None else _null_counts(nc)))


_NO_STATS = SimpleStatsBytes(b"", b"", None)
_NULL_COUNTS: dict[tuple[int | None, ...], tuple[int | None, ...]] = {}
"""Null counts already seen, shared: most files of a table have the same few (all zeros)."""


def _null_counts(counts: list[int | None]) -> tuple[int | None, ...]:
    """``tuple(counts)``, one object per distinct value (the first 65,536 kept)."""
    t = tuple(counts)
    got = _NULL_COUNTS.get(t)
    if got is not None:
        return got
    if len(_NULL_COUNTS) < 65536:
        _NULL_COUNTS[t] = t
    return t


@dataclass(frozen=True)
class ManifestFileMeta:
    """One manifest list entry: a manifest file and its summary."""

    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    partition_stats: SimpleStatsBytes
    schema_id: int
    min_bucket: int | None
    max_bucket: int | None
    min_level: int | None
    max_level: int | None
    min_row_id: int | None
    max_row_id: int | None
    manifest_list: str
    list_kind: str  # "base" | "delta" | "changelog"

    @staticmethod
    def from_record(rec: dict[str, Any], manifest_list: str, list_kind: str) -> ManifestFileMeta:
        """From a manifest list record."""
        return ManifestFileMeta(
            file_name=rec["_FILE_NAME"], file_size=rec["_FILE_SIZE"],
            num_added_files=rec["_NUM_ADDED_FILES"], num_deleted_files=rec["_NUM_DELETED_FILES"],
            partition_stats=SimpleStatsBytes.from_record(rec.get("_PARTITION_STATS")),
            schema_id=rec["_SCHEMA_ID"],
            min_bucket=rec.get("_MIN_BUCKET"), max_bucket=rec.get("_MAX_BUCKET"),
            min_level=rec.get("_MIN_LEVEL"), max_level=rec.get("_MAX_LEVEL"),
            min_row_id=rec.get("_MIN_ROW_ID"), max_row_id=rec.get("_MAX_ROW_ID"),
            manifest_list=manifest_list, list_kind=list_kind,
        )


class DataFileMeta(NamedTuple):
    """A data file as a manifest entry describes it (Paimon's ``DataFileMeta``)."""

    file_name: str
    file_size: int
    row_count: int
    min_key: bytes
    max_key: bytes
    key_stats: SimpleStatsBytes
    value_stats: SimpleStatsBytes
    min_sequence_number: int
    max_sequence_number: int
    schema_id: int
    level: int
    extra_files: tuple[str, ...]
    creation_time: _dt.datetime | None
    delete_row_count: int | None
    embedded_index: EmbeddedIndex | None
    file_source: int | None
    value_stats_cols: tuple[str, ...] | None
    external_path: str | None
    first_row_id: int | None
    write_cols: tuple[str, ...] | None

    @staticmethod
    def from_record(rec: dict[str, Any], source: ManifestSource | None = None) -> DataFileMeta:
        """From a manifest entry's ``_FILE`` record (0.9 or 2.x layout) of the manifest ``source``
        (its embedded index is read from there again when used; without one it is kept)."""
        vsc = rec.get("_VALUE_STATS_COLS")
        wc = rec.get("_WRITE_COLS")
        ct = rec.get("_CREATION_TIME")
        if isinstance(ct, _dt.datetime) and ct.tzinfo is not None:
            ct = ct.replace(tzinfo=None)  # Paimon writes a LocalDateTime as timestamp-millis
        elif isinstance(ct, int):
            ct = _dt.datetime(1970, 1, 1) + _dt.timedelta(milliseconds=ct)
        min_key, max_key = rec.get("_MIN_KEY") or b"", rec.get("_MAX_KEY") or b""
        return _tuple_new(DataFileMeta, (
            rec["_FILE_NAME"], rec["_FILE_SIZE"], rec["_ROW_COUNT"],
            min_key, max_key,
            SimpleStatsBytes.from_record(rec.get("_KEY_STATS"), min_key, max_key),
            SimpleStatsBytes.from_record(rec.get("_VALUE_STATS")),
            rec["_MIN_SEQUENCE_NUMBER"], rec["_MAX_SEQUENCE_NUMBER"],
            rec["_SCHEMA_ID"], rec["_LEVEL"],
            tuple(rec.get("_EXTRA_FILES") or ()),
            ct,
            rec.get("_DELETE_ROW_COUNT"),
            embedded_index(rec.get("_EMBEDDED_FILE_INDEX"), rec["_FILE_NAME"], source),
            rec.get("_FILE_SOURCE"),
            None if vsc is None else tuple(vsc),
            rec.get("_EXTERNAL_PATH"),
            rec.get("_FIRST_ROW_ID"),
            None if wc is None else tuple(wc),
        ))

    @property
    def index_file(self) -> str | None:
        """Name of the external ``.index`` file listed in ``_EXTRA_FILES``, if any."""
        for name in self.extra_files:
            if name.endswith(".index") or ".index-" in name or name.startswith(self.file_name + ".index"):
                return name
        return None


class ManifestEntry(NamedTuple):
    """One manifest record: ADD (0) or DELETE (1) of a data file in a partition and bucket."""

    kind: int
    partition: bytes
    bucket: int
    total_buckets: int
    file: DataFileMeta
    manifest: str

    def identifier(self) -> tuple[Any, ...]:
        """What makes two entries refer to the same file (Paimon's ``FileEntry.Identifier``)."""
        f = self.file
        return (self.partition, self.bucket, f.level, f.file_name, f.extra_files, f.embedded_index,
                f.external_path)


@dataclass(frozen=True)
class DeletionVectorMeta:
    """Where one data file's deletion vector lies inside a DV index file."""

    data_file: str
    offset: int
    length: int
    cardinality: int | None


DEIX = 0x44454958


@dataclass(frozen=True)
class GlobalIndexMeta:
    """The ``_GLOBAL_INDEX`` record of an index manifest entry (Paimon 1.4+; ``GlobalIndexMeta``).

    ``_ROW_RANGE_START``/``_ROW_RANGE_END`` (both inclusive), ``_INDEX_FIELD_ID``,
    ``_EXTRA_FIELD_IDS`` (multi-column indexes), ``_INDEX_META`` and (2.0) ``_SOURCE_META`` bytes,
    decoded by :mod:`paimon_lens.formats.global_index.meta`.
    """

    row_range_start: int
    row_range_end: int
    index_field_id: int
    extra_field_ids: tuple[int, ...] | None
    index_meta: bytes | None
    source_meta: bytes | None

    @staticmethod
    def from_record(rec: dict[str, Any]) -> GlobalIndexMeta:
        """From the record (a ``TypeError`` names a field of the wrong type)."""
        out = GlobalIndexMeta(rec["_ROW_RANGE_START"], rec["_ROW_RANGE_END"], rec["_INDEX_FIELD_ID"],
                              None if rec.get("_EXTRA_FIELD_IDS") is None else tuple(rec["_EXTRA_FIELD_IDS"]),
                              rec.get("_INDEX_META"), rec.get("_SOURCE_META"))
        for name, value, kinds in (("_ROW_RANGE_START", out.row_range_start, (int,)),
                                   ("_ROW_RANGE_END", out.row_range_end, (int,)),
                                   ("_INDEX_FIELD_ID", out.index_field_id, (int,)),
                                   ("_INDEX_META", out.index_meta, (bytes, type(None))),
                                   ("_SOURCE_META", out.source_meta, (bytes, type(None)))):
            if not isinstance(value, kinds) or isinstance(value, bool):
                raise TypeError(f"_GLOBAL_INDEX.{name}: {type(value).__name__}")
        if any(not isinstance(i, int) for i in out.extra_field_ids or ()):
            raise TypeError("_GLOBAL_INDEX._EXTRA_FIELD_IDS: not a list of ints")
        return out

    @property
    def row_count(self) -> int:
        """Rows in the range."""
        return self.row_range_end - self.row_range_start + 1

    @property
    def is_primary_key_index(self) -> bool:
        """A primary-key index: its source meta names the data files it indexes (a data-evolution
        source meta, ``DEIX``..., names a snapshot instead)."""
        sm = self.source_meta
        return sm is not None and not (len(sm) >= 4 and int.from_bytes(sm[:4], "big") == DEIX)


@dataclass(frozen=True)
class IndexFileMeta:
    """One index manifest record (``HASH``, ``DELETION_VECTORS``, or another index type)."""

    kind: int
    partition: bytes
    bucket: int
    index_type: str
    file_name: str
    file_size: int
    row_count: int
    deletion_vectors: tuple[DeletionVectorMeta, ...] | None
    external_path: str | None
    global_index: GlobalIndexMeta | None
    manifest: str

    @staticmethod
    def from_record(rec: dict[str, Any], manifest: str) -> IndexFileMeta:
        """From an index manifest record."""
        ranges = rec.get("_DELETIONS_VECTORS_RANGES")
        dvs = None
        if ranges is not None:
            dvs = tuple(
                DeletionVectorMeta(r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY", r.get("f3")))
                for r in ranges if r is not None
            )
        return IndexFileMeta(
            kind=rec["_KIND"], partition=rec["_PARTITION"], bucket=rec["_BUCKET"],
            index_type=rec["_INDEX_TYPE"], file_name=rec["_FILE_NAME"], file_size=rec["_FILE_SIZE"],
            row_count=rec["_ROW_COUNT"], deletion_vectors=dvs,
            external_path=rec.get("_EXTERNAL_PATH"),
            global_index=None if (gi := rec.get("_GLOBAL_INDEX")) is None else GlobalIndexMeta.from_record(gi),
            manifest=manifest,
        )

    def identifier(self) -> tuple[Any, ...]:
        """Partition, bucket, index type and file name."""
        return (self.partition, self.bucket, self.index_type, self.file_name)


_STATS: Kinds = {"_MIN_VALUES": "bytes", "_MAX_VALUES": "bytes", "_NULL_COUNTS": "list"}
MANIFEST_LIST_KINDS: Kinds = {
    "_FILE_NAME": "str", "_FILE_SIZE": "int", "_NUM_ADDED_FILES": "int", "_NUM_DELETED_FILES": "int",
    "_PARTITION_STATS": _STATS, "_SCHEMA_ID": "int", "_MIN_BUCKET": "int", "_MAX_BUCKET": "int",
    "_MIN_LEVEL": "int", "_MAX_LEVEL": "int", "_MIN_ROW_ID": "int", "_MAX_ROW_ID": "int",
}
"""The kind of every field Paimon (0.9 - 2.x) writes in a manifest list record."""
MANIFEST_KINDS: Kinds = {
    "_KIND": "int", "_PARTITION": "bytes", "_BUCKET": "int", "_TOTAL_BUCKETS": "int",
    "_FILE": {
        "_FILE_NAME": "str", "_FILE_SIZE": "int", "_ROW_COUNT": "int", "_MIN_KEY": "bytes", "_MAX_KEY": "bytes",
        "_KEY_STATS": _STATS, "_VALUE_STATS": _STATS, "_MIN_SEQUENCE_NUMBER": "int",
        "_MAX_SEQUENCE_NUMBER": "int", "_SCHEMA_ID": "int", "_LEVEL": "int", "_EXTRA_FILES": "list",
        "_CREATION_TIME": "timestamp", "_DELETE_ROW_COUNT": "int", "_EMBEDDED_FILE_INDEX": "bytes",
        "_FILE_SOURCE": "int", "_VALUE_STATS_COLS": "list", "_EXTERNAL_PATH": "str", "_FIRST_ROW_ID": "int",
        "_WRITE_COLS": "list",
    },
}
"""The kind of every field Paimon (0.9 - 2.x) writes in a manifest entry."""
INDEX_MANIFEST_KINDS: Kinds = {
    "_KIND": "int", "_PARTITION": "bytes", "_BUCKET": "int", "_INDEX_TYPE": "str", "_FILE_NAME": "str",
    "_FILE_SIZE": "int", "_ROW_COUNT": "int", "_DELETIONS_VECTORS_RANGES": "list", "_EXTERNAL_PATH": "str",
}
"""The kind of every field Paimon (0.9 - 2.x) writes in an index manifest entry."""


_STR, _INT, _BYTES = (str,), (int,), (bytes,)
_OPT_STR, _OPT_INT, _OPT_EMBEDDED = (str, type(None)), (int, type(None)), (EmbeddedIndex, type(None))
#: (field, attribute, allowed types, must be >= 0) of the values every reader relies on: a manifest
#: whose schema allows nulls (or another type) there still holds only these, or is refused.
_FILE_VALUES = (
    ("_FILE_NAME", "file_name", _STR, False), ("_FILE_SIZE", "file_size", _INT, True),
    ("_ROW_COUNT", "row_count", _INT, True), ("_MIN_SEQUENCE_NUMBER", "min_sequence_number", _INT, False),
    ("_MAX_SEQUENCE_NUMBER", "max_sequence_number", _INT, False), ("_SCHEMA_ID", "schema_id", _INT, True),
    ("_LEVEL", "level", _INT, True), ("_DELETE_ROW_COUNT", "delete_row_count", _OPT_INT, True),
    ("_EMBEDDED_FILE_INDEX", "embedded_index", _OPT_EMBEDDED, False), ("_FILE_SOURCE", "file_source", _OPT_INT, False),
    ("_EXTERNAL_PATH", "external_path", _OPT_STR, False), ("_FIRST_ROW_ID", "first_row_id", _OPT_INT, True),
    ("_MIN_KEY", "min_key", _BYTES, False), ("_MAX_KEY", "max_key", _BYTES, False),
)
_ENTRY_VALUES = (("_PARTITION", "partition", _BYTES, False), ("_BUCKET", "bucket", _INT, False),
                 ("_TOTAL_BUCKETS", "total_buckets", _INT, False))
_LIST_VALUES = (
    ("_FILE_NAME", "file_name", _STR, False), ("_FILE_SIZE", "file_size", _INT, True),
    ("_NUM_ADDED_FILES", "num_added_files", _INT, True), ("_NUM_DELETED_FILES", "num_deleted_files", _INT, True),
    ("_SCHEMA_ID", "schema_id", _INT, True),
)
_INDEX_VALUES = (
    ("_KIND", "kind", _INT, False), ("_PARTITION", "partition", _BYTES, False), ("_BUCKET", "bucket", _INT, False),
    ("_INDEX_TYPE", "index_type", _STR, False), ("_FILE_NAME", "file_name", _STR, False),
    ("_FILE_SIZE", "file_size", _INT, True), ("_ROW_COUNT", "row_count", _INT, True),
    ("_EXTERNAL_PATH", "external_path", _OPT_STR, False),
)
_DV_VALUES = (("f0", "data_file", _STR, False), ("f1", "offset", _INT, True), ("f2", "length", _INT, True),
              ("_CARDINALITY", "cardinality", _OPT_INT, True))


class _Values:
    """The values of many objects checked against one spec, field by field over all objects at once
    (C-level ``map``/``set``/``min``); only when a field fails are the objects examined one by one
    (:func:`_check_values`) to name the first bad one."""

    def __init__(self, spec: tuple[tuple[str, str, tuple[type, ...], bool], ...]) -> None:
        self.spec = spec
        self.getters = [(operator.attrgetter(attr), frozenset(types), nn) for _, attr, types, nn in spec]

    def check_all(self, objs: Sequence[Any], path: str, where: str) -> None:
        """Raise :class:`CorruptFileError` naming the first bad value (``where`` holds ``{i}``, the
        object's position)."""
        for get, types, non_negative in self.getters:
            values = list(map(get, objs))
            if not set(map(type, values)) <= types or (non_negative and min(filter(None, values), default=0) < 0):
                for i, obj in enumerate(objs):
                    _check_values(obj, self.spec, path, where.format(i=i))


_TYPE_NAMES = {type(None): "null", EmbeddedIndex: "bytes"}


def _check_values(obj: Any, spec: tuple[tuple[str, str, tuple[type, ...], bool], ...], path: str,
                  where: str) -> None:
    """Raise :class:`CorruptFileError` for the first value of ``obj`` outside its ``spec``."""
    for field, attr, types, non_negative in spec:
        v = getattr(obj, attr)
        if type(v) not in types or (non_negative and v is not None and v < 0):
            want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)
            raise CorruptFileError(path, None, f"{where} {field}", want + (" >= 0" if non_negative else ""),
                                   repr(v)[:80])


_FILE_CHECK, _ENTRY_CHECK, _LIST_CHECK, _INDEX_CHECK, _DV_CHECK = (
    _Values(_FILE_VALUES), _Values(_ENTRY_VALUES), _Values(_LIST_VALUES), _Values(_INDEX_VALUES), _Values(_DV_VALUES))


def _check_names(names: tuple[Any, ...] | None, path: str, where: str) -> None:
    if names is not None and any(type(n) is not str for n in names):
        raise CorruptFileError(path, None, where, "strings", repr(names)[:80])


def _wrap(path: str, what: str, e: Exception) -> CorruptFileError:
    return CorruptFileError(path, None, what, detail=f"missing or invalid field: {type(e).__name__}: {e}")


def read_manifest_list(file_io: FileIO, manifest_dir: str, name: str, list_kind: str) -> list[ManifestFileMeta]:
    """Entries of manifest list ``name``."""
    path = file_io.join(manifest_dir, name)
    records, _ = read_meta_file(file_io, path, "manifest list", MANIFEST_LIST_KINDS)
    try:
        metas = [ManifestFileMeta.from_record(r, name, list_kind) for r in records]
    except (KeyError, TypeError, AttributeError) as e:
        raise _wrap(path, "manifest list record", e) from None
    _LIST_CHECK.check_all(metas, path, "manifest list record {i}")
    return metas


def read_manifest(file_io: FileIO, manifest_dir: str, name: str, size: int | None = None) -> list[ManifestEntry]:
    """Entries of manifest file ``name`` (``size``: its ``_FILE_SIZE`` in the manifest list)."""
    path = file_io.join(manifest_dir, name)
    records, _ = read_meta_file(file_io, path, "manifest", MANIFEST_KINDS, size)
    return _manifest_entries(records, path, name, ManifestSource(_unloaded(file_io), path, size))


class ManifestSelection(NamedTuple):
    """What :func:`read_manifest_where` read of a manifest."""

    entries: list[ManifestEntry]
    """The entries of the kept partitions, in manifest order."""
    partitions: tuple[bytes, ...]
    """Every partition of the manifest (of its ADD and DELETE entries), in order of first entry."""
    whole: list[ManifestEntry] | None
    """Every entry of the manifest when it was read whole (:func:`read_manifest`), else None."""


def read_manifest_where(file_io: FileIO, manifest_dir: str, name: str, size: int | None,
                        partition_keep: Callable[[bytes], bool]) -> ManifestSelection:
    """The entries of manifest ``name`` whose partition ``partition_keep`` keeps (asked once per
    partition): ``[e for e in read_manifest(...) if partition_keep(e.partition)]``, decoding and
    checking only those.

    An Avro manifest is read with :func:`~.avro.decode_avro_where`: its blocks are scanned for
    their entries' partitions and only the blocks holding a kept one are decoded; the kept
    entries are built and checked as :func:`read_manifest` checks them, the others' values by the
    scan (see the module docs). Anything else (an ORC or Parquet manifest, a schema or codec the
    scan does not handle, bytes that do not scan, decode or check) reads the manifest whole with
    :func:`read_manifest` (from the bytes already read): its errors are the ones raised, so a
    corrupt manifest is reported whichever partitions are asked for.
    """
    path = file_io.join(manifest_dir, name)
    try:
        data = read_file(file_io, path, size)
    except Exception:  # reported as read_manifest reports it
        data = None
    if data is not None and data.startswith(AVRO_MAGIC):
        try:
            records, _, partitions = decode_avro_where(data, path, "_PARTITION", partition_keep, "manifest",
                                                       _SCAN_CHECKS, partial(_check_selectable, path))
            entries = _manifest_entries(records, path, name, ManifestSource(file_io, path, size))
            return ManifestSelection(entries, tuple(partitions), None)
        except Exception:
            pass  # read whole below, which says what is wrong
    whole = read_manifest(file_io if data is None else _Loaded(file_io, path, data), manifest_dir, name, size)
    verdicts: dict[bytes, bool] = {}
    for e in whole:
        if e.partition not in verdicts:
            verdicts[e.partition] = bool(partition_keep(e.partition))
    return ManifestSelection([e for e in whole if verdicts[e.partition]], tuple(verdicts), whole)


#: The int fields :func:`_manifest_entries` checks in each entry, checked by the selective read in
#: every entry it scans (kept or not): ``_KIND`` 0 or 1, the others >= 0.
_SCAN_CHECKS: IntChecks = {"_KIND": (FILE_KIND_ADD, FILE_KIND_DELETE),
                           **{f"_FILE.{f}": None for f, _, types, non_negative in _FILE_VALUES if non_negative}}
_INTS = ("int", "long")
#: Fields whose values :func:`_manifest_entries` requires (no null): of a selectively read
#: manifest, plain types, so that no value of an entry left undecoded could fail.
_REQUIRED = {"_KIND": _INTS, "_PARTITION": ("bytes",), "_BUCKET": _INTS, "_TOTAL_BUCKETS": _INTS}
_REQUIRED_FILE = {f: ("string",) if types == _STR else _INTS
                  for f, _, types, _ in _FILE_VALUES if types in (_STR, _INT)}
_NAME_LISTS = ("_EXTRA_FILES", "_VALUE_STATS_COLS", "_WRITE_COLS")


def _check_selectable(path: str, schema: dict[str, Any]) -> None:
    """Raise unless the manifest schema ``schema`` is right (:func:`~.meta_file.check_kinds`) and
    strict enough that :func:`_manifest_entries` could only refuse an entry the scan of
    :func:`~.avro.decode_avro_where` refuses too (see :data:`_SCAN_CHECKS`)."""
    check_kinds(avro_kinds(schema), MANIFEST_KINDS, path, "manifest")
    fields = _fields(schema)
    file = fields.get("_FILE")
    if not isinstance(file, dict) or file.get("type") != "record":
        raise Unselectable("_FILE is not a record")
    file_fields = _fields(file)
    for where, required in ((fields, _REQUIRED), (file_fields, _REQUIRED_FILE)):
        for f, types in required.items():
            if _plain(where.get(f)) not in types:
                raise Unselectable(f"{f} is not a plain {' or '.join(types)}")
    for f in _NAME_LISTS:
        t = _non_null(file_fields.get(f, {"type": "array", "items": "string"}))
        if not isinstance(t, dict) or t.get("type") != "array" or _plain(t.get("items")) != "string":
            raise Unselectable(f"{f} is not an array of strings")
    created = _non_null(file_fields.get("_CREATION_TIME", {"type": "long", "logicalType": "timestamp-millis"}))
    if not isinstance(created, dict) or created.get("logicalType") != "timestamp-millis":
        raise Unselectable("_CREATION_TIME is not a timestamp-millis")


def _fields(record: dict[str, Any]) -> dict[str, Any]:
    return {f["name"]: f.get("type") for f in record.get("fields", ()) if isinstance(f, dict) and "name" in f}


def _plain(t: Any) -> str | None:
    """The primitive type ``t`` is, without logical type; None for any other."""
    if isinstance(t, dict) and "logicalType" not in t:
        t = t.get("type")
    return t if isinstance(t, str) else None


def _non_null(t: Any) -> Any:
    """The type of a union ``[null, t]``; ``t`` itself when not a union."""
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return rest[0] if len(rest) == 1 else None
    return t


def _unloaded(file_io: FileIO) -> FileIO:
    """The file system under a :class:`_Loaded` (whose bytes an embedded index must not keep)."""
    return file_io.file_io if isinstance(file_io, _Loaded) else file_io


class _Loaded:
    """``file_io`` with the bytes of ``path`` already read (a manifest read whole after a selective
    read failed is not fetched twice)."""

    def __init__(self, file_io: FileIO, path: str, data: bytes) -> None:
        self.file_io, self.path, self.data = file_io, path, data

    def read_bytes(self, path: str) -> bytes:
        return self.data if path == self.path else self.file_io.read_bytes(path)

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        if path == self.path:
            return self.data[offset:offset + length]
        return self.file_io.read_range(path, offset, length)

    def exists(self, path: str) -> bool:
        return path == self.path or self.file_io.exists(path)

    def list_names(self, path: str) -> list[str]:
        return self.file_io.list_names(path)

    def size(self, path: str) -> int:
        return len(self.data) if path == self.path else self.file_io.size(path)

    def join(self, *parts: str) -> str:
        return self.file_io.join(*parts)


def _manifest_entries(records: list[dict[str, Any]], path: str, name: str,
                      source: ManifestSource) -> list[ManifestEntry]:
    """Manifest entries of ``records`` (of manifest ``name`` at ``path``, read again from
    ``source`` for embedded indexes), checked."""
    partitions: dict[bytes, bytes] = {}  # one bytes object per partition, not one per entry
    try:
        entries = [_entry(r["_KIND"], partitions.setdefault(r["_PARTITION"], r["_PARTITION"]), r["_BUCKET"],
                          r["_TOTAL_BUCKETS"], DataFileMeta.from_record(r["_FILE"], source), name)
                   for r in records]
    except (KeyError, TypeError, AttributeError) as e:
        raise _wrap(path, "manifest entry", e) from None
    kinds = set(map(operator.attrgetter("kind"), entries))
    if not kinds <= {FILE_KIND_ADD, FILE_KIND_DELETE} or bool in set(map(type, kinds)):
        for i, entry in enumerate(entries):
            if type(entry.kind) is not int or entry.kind not in (FILE_KIND_ADD, FILE_KIND_DELETE):
                raise CorruptFileError(path, None, f"manifest entry {i} _KIND", "0 (ADD) or 1 (DELETE)", entry.kind)
    _ENTRY_CHECK.check_all(entries, path, "manifest entry {i}")
    files = [e.file for e in entries]
    _FILE_CHECK.check_all(files, path, "manifest entry {i} _FILE")
    for i, f in enumerate(files):
        if f.extra_files or f.value_stats_cols or f.write_cols:
            _check_names(f.extra_files, path, f"manifest entry {i} _FILE _EXTRA_FILES")
            _check_names(f.value_stats_cols, path, f"manifest entry {i} _FILE _VALUE_STATS_COLS")
            _check_names(f.write_cols, path, f"manifest entry {i} _FILE _WRITE_COLS")
    return entries


def _entry(kind: int, partition: bytes, bucket: int, total_buckets: int, file: DataFileMeta,
           manifest: str) -> ManifestEntry:
    """``ManifestEntry(...)``, built as the records above are."""
    return _tuple_new(ManifestEntry, (kind, partition, bucket, total_buckets, file, manifest))


def read_index_manifest(file_io: FileIO, manifest_dir: str, name: str) -> list[IndexFileMeta]:
    """Entries of index manifest ``name``."""
    path = file_io.join(manifest_dir, name)
    records, _ = read_meta_file(file_io, path, "index manifest", INDEX_MANIFEST_KINDS)
    try:
        metas = [IndexFileMeta.from_record(r, name) for r in records]
    except (KeyError, TypeError, AttributeError) as e:
        raise _wrap(path, "index manifest entry", e) from None
    _INDEX_CHECK.check_all(metas, path, "index manifest entry {i}")
    for i, m in enumerate(metas):
        _DV_CHECK.check_all(m.deletion_vectors or (), path,
                            f"index manifest entry {i} _DELETIONS_VECTORS_RANGES[{{i}}]")
    return metas


def merge_entries(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    """Live ADD entries after applying DELETEs, in first-added order (Paimon's ``mergeEntries``)."""
    live: dict[tuple[Any, ...], ManifestEntry] = {}
    for e in entries:
        key = e.identifier()
        if e.kind == FILE_KIND_ADD:
            live[key] = e
        elif key in live and live[key].kind == FILE_KIND_ADD:
            del live[key]
        else:
            live[key] = e  # a DELETE of a file added in an earlier, compacted manifest
    return [e for e in live.values() if e.kind == FILE_KIND_ADD]


def merge_index_entries(entries: Iterable[IndexFileMeta]) -> list[IndexFileMeta]:
    """Live ADD index entries after applying DELETEs."""
    live: dict[tuple[Any, ...], IndexFileMeta] = {}
    for e in entries:
        key = e.identifier()
        if e.kind == FILE_KIND_ADD:
            live[key] = e
        else:
            live.pop(key, None)
    return list(live.values())
