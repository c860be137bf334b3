"""The file indexes of a snapshot: every data file's container, decoded column by column.

For each live data file the index container is taken from the manifest
(``_EMBEDDED_FILE_INDEX``) or from the external ``.index`` file listed in ``_EXTRA_FILES``; each
column's indexes are decoded with the type the column had in the file's own schema (map-key
entries ``col[key]`` with the map's value type). A corrupt container or index is recorded on its
row (``error``) and the rest of the table is still decoded.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast, overload

from ..engines.files import map_file_chunks, task_count
from ..engines.local import LOCAL
from ..errors import PaimonLensError, Problem
from ..formats.file_index_format import FileIndexFormatReader, IndexEntry, index_field_type
from ..formats.index_reader import FileIndexReader
from ..formats.summary import VALUE_FIELDS
from ..metadata.snapshot_reader import IndexLocation
from ..progress import progress
from ..types import DataType
from ..values import to_json, to_python

if TYPE_CHECKING:
    from ..engines.base import Engine
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader

VALUE_KEYS = VALUE_FIELDS


@dataclass(frozen=True, slots=True)
class IndexInfo:
    """One index of one column of one data file (``reader`` None when it could not be decoded).

    ``summary()`` is computed once (:func:`file_indexes` computes it while decoding) and kept;
    each call returns a fresh copy. ``bytes`` is None when the container's size could not be read.
    """

    file: LiveFile
    column: str
    index_type: str
    storage: str  # embedded | external
    index_file: str | None
    bytes: int | None
    data_type: DataType | None
    reader: FileIndexReader | None
    error: str | None = None
    _summary: tuple[tuple[str, ...], tuple[Any, ...]] | None = field(default=None, repr=False, compare=False)
    """The summary as its keys (one tuple shared by every index of a kind) and values: a snapshot's
    list holds one per index of every file."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (to leave a task's process): the facts and the summary; the file and the decoded
        reader stay behind (``file`` None, ``reader`` a marker when there was one)."""
        summary = self._summary
        reader: Any = self.reader
        if reader is not None:
            summary = _packed(summarize(reader)) if summary is None else summary
            reader = _Decoded()
        return IndexInfo, (None, self.column, self.index_type, self.storage, self.index_file, self.bytes,
                           self.data_type, reader, self.error, summary)

    def summary(self) -> dict[str, Any]:
        """Scalar facts of the index (type-specific; internal values for ``min``/``max``)."""
        if self.reader is None:
            return {}
        packed = self._summary
        if packed is None:
            packed = _packed(summarize(self.reader))
            object.__setattr__(self, "_summary", packed)  # a cache, not state: frozen otherwise
        return {k: list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
                for k, v in zip(*packed)}

    @property
    def decoded(self) -> bool:
        """Whether the index decoded (its reader is there, or stands for one)."""
        return self.reader is not None

    def released(self, table: SnapshotReader, position: int) -> IndexInfo:
        """This index with its decoded reader let go (a :class:`DeferredReader` decodes the file's
        container again when the reader is asked for), its summary kept."""
        if self.reader is None or isinstance(self.reader, DeferredReader):
            return self
        summary = self._summary if self._summary is not None else _packed(summarize(self.reader))
        deferred = cast("FileIndexReader", DeferredReader(table, self.file, position))
        return IndexInfo(self.file, self.column, self.index_type, self.storage, self.index_file, self.bytes,
                         self.data_type, deferred, self.error, summary)


_SUMMARY_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _packed(summary: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """A summary as (shared keys, values)."""
    keys = tuple(summary)
    return _SUMMARY_KEYS.setdefault(keys, keys), tuple(summary.values())


def summarize(reader: FileIndexReader) -> dict[str, Any]:
    """The flat facts of a reader's :class:`~paimon_lens.formats.summary.IndexSummary` ({} if none)."""
    summary = reader.summary()
    return {} if summary is None else summary.fields()


INDEX_FIELDS: tuple[str, ...] = ("partition", "bucket", "file_name", "row_count", "column", "index_type", "storage",
                                 "index_file", "bytes", "error")
"""An index's own fields as a row of the file-index frame (its first columns); its summary's follow
(:func:`summary_cells`)."""


def summary_cells(info: IndexInfo, as_json: bool) -> dict[str, Any]:
    """:func:`summary_values` as the cells after :data:`INDEX_FIELDS`: a summary field named like one
    of them becomes ``index_<name>``."""
    return {(f"index_{k}" if k in INDEX_FIELDS else k): v for k, v in summary_values(info, as_json).items()}


def summary_values(info: IndexInfo, as_json: bool) -> dict[str, Any]:
    """The index summary with ``min``/``max`` converted for a frame (Python) or JSON."""
    out = info.summary()
    if info.data_type is not None:
        conv = to_json if as_json else to_python
        for k in VALUE_KEYS & out.keys():
            out[k] = conv(out[k], info.data_type)
    return out


def open_container(table: SnapshotReader, lf: LiveFile) -> FileIndexFormatReader | None:
    """The file's index container (None if it has none)."""
    f = lf.entry.file
    if f.embedded_index is not None:
        where = f"{table.manifest_dir}/{lf.entry.manifest} entry {f.file_name}: _EMBEDDED_FILE_INDEX"
        return FileIndexFormatReader(f.embedded_index.read(), where)
    rel = lf.index_file_path
    if rel is None:
        return None
    return FileIndexFormatReader.open(table.file_io.join(table.path, rel), table.file_io)


#: bytes of index containers :class:`ContainerCache` keeps per table directory
CONTAINER_CACHE_BYTES = 64 * 1024 * 1024


class ContainerCache:
    """Opened index containers and the readers created from them, least recently used first out
    once their containers exceed ``budget`` bytes (index files never change, so one cache serves
    every snapshot of a table; see :meth:`SnapshotReader.shared`).

    An entry is ``(container, readers by column)``: an evaluator reusing it finds each column's
    readers with their dictionaries and bitmaps already decoded.
    """

    def __init__(self, budget: int = CONTAINER_CACHE_BYTES) -> None:
        from collections import OrderedDict

        self.budget = budget
        self.size = 0
        self._entries: OrderedDict[tuple[str, Any],
                                   tuple[FileIndexFormatReader, dict[str, Any], int, frozenset[str]]] = OrderedDict()

    def get(self, table: SnapshotReader, lf: LiveFile
            ) -> tuple[FileIndexFormatReader | None, dict[str, Any], frozenset[str]]:
        """The file's container (None if it has none), its readers by column (filled by the caller)
        and the columns its head lists (empty without a container)."""
        key = lf.index_key  # the data file's name and its container
        got = self._entries.get(key)
        if got is not None:
            self._entries.move_to_end(key)
            return got[0], got[1], got[3]
        container = open_container(table, lf)
        readers: dict[str, Any] = {}
        if container is None:
            return None, readers, frozenset()
        cost = container.size
        columns = frozenset(c.column for c in container.layout.columns)
        self._entries[key] = (container, readers, cost, columns)
        self.size += cost
        while self.size > self.budget and len(self._entries) > 1:
            _, (_, _, freed, _) = self._entries.popitem(last=False)
            self.size -= freed
        return container, readers, columns


def file_indexes(table: SnapshotReader, lf: LiveFile, only: int | None = None) -> Iterator[IndexInfo]:
    """Every (column, index type) of one file, decoded lazily per index (``only``: the index at that
    position alone, the others not decoded)."""
    location = lf.index_location
    if location == IndexLocation.NONE:
        return
    index_file = lf.index_file_path
    try:
        container = open_container(table, lf)
    except (PaimonLensError, OSError) as e:
        yield IndexInfo(lf, "", "", location, index_file, table.index_size(lf), None, None,
                        Problem.of(e, index_file, str(e)))
        return
    if container is None:
        return
    schema = table.schema_manager.schema(lf.entry.file.schema_id)
    position = -1
    for col in container.layout.columns:
        dtype = index_field_type(schema.fields, col.column)
        for entry in col.indexes:
            position += 1
            if only is not None and position != only:
                continue
            try:
                reader = _create_reader(container, col.column, entry, dtype)
                summary = summarize(reader)  # decode now so that corruption shows up on this row
                yield IndexInfo(lf, col.column, entry.index_type, location, index_file,
                                max(entry.length, 0), dtype, reader, _summary=_packed(summary))
            except (PaimonLensError, OSError, ValueError) as e:
                yield IndexInfo(lf, col.column, entry.index_type, location, index_file,
                                max(entry.length, 0), dtype, None, Problem.of(e, index_file, str(e)))


def _create_reader(container: FileIndexFormatReader, column: str, entry: IndexEntry,
                   dtype: DataType | None) -> FileIndexReader:
    from ..formats.index_reader import EmptyFileIndexReader
    from ..formats.registry import UnsupportedIndexReader, create_reader

    if entry.empty:
        return EmptyFileIndexReader()
    if dtype is None:
        return UnsupportedIndexReader(entry.index_type, f"column {column!r} is not in the file's row type")
    data = container.read_entry(entry) or b""
    return create_reader(entry.index_type, dtype, data, container.path, container.base + entry.start)


def _decode_chunk(table: SnapshotReader, files: list[LiveFile], _extras: list[Any],
                  show: bool | None = False) -> list[list[IndexInfo]]:
    """A task: every index of each file, decoded and summarised, the decoded readers let go (``show``:
    a progress bar, see :mod:`paimon_lens.progress`; off in tasks of other processes)."""
    shown = files if show is False else progress(files, total=len(files), desc="decoding file indexes", enabled=show)
    return [[info.released(table, k) for k, info in enumerate(file_indexes(table, lf))] for lf in shown]


def table_file_indexes(table: SnapshotReader, engine: Engine | None = None) -> list[IndexInfo]:
    """Every index of every live file of the snapshot, decoded on ``engine`` (default: here) once
    per snapshot.

    Only the summaries are kept: an index's reader is decoded again on first use
    (:class:`DeferredReader`), as a frame needing the whole index (``bitmap_values``) does.
    """
    return table.memo("file_indexes", lambda: _decode_all(table, engine or LOCAL))


def file_indexes_by_file(table: SnapshotReader, engine: Engine | None = None
                         ) -> Iterator[tuple[LiveFile, list[IndexInfo]]]:
    """Every live file with its decoded indexes, in :meth:`~SnapshotReader.live_files` order.

    Run here (no engine, or one running a task at a time) and not yet decoded for the snapshot,
    each file's indexes are decoded when its turn comes and nothing is kept: an answer over every
    file holds one file's indexes at a time. Otherwise :func:`table_file_indexes` (decoded on the
    engine, or already kept for the snapshot) is grouped by file.
    """
    files = table.live_files()
    if (engine is None or task_count(engine) == 1) and not table.memoized("file_indexes"):
        for lf in progress(files, total=len(files), desc="decoding file indexes", enabled=None):
            yield lf, list(file_indexes(table, lf))  # decoded readers and all: let go with the list
        return
    by_file: dict[str, list[IndexInfo]] = {}
    for info in table_file_indexes(table, engine):
        by_file.setdefault(info.file.entry.file.file_name, []).append(info)
    for lf in files:
        yield lf, by_file.get(lf.entry.file.file_name, [])


class IndexFact(NamedTuple):
    """What summaries over every index of a snapshot need of one index (findings, the report's
    inventory and plots), with nothing decoded kept: a snapshot's list holds one per index of every
    file (see :func:`index_facts`). The bloom-filter facts are None for other index types."""

    file: LiveFile
    column: str
    index_type: str
    storage: str
    bytes: int | None
    decoded: bool
    error: str | None
    fill_ratio: float | None = None
    false_positive_probability: float | None = None


class IndexRow(Protocol):
    """An :class:`IndexInfo` or an :class:`IndexFact`: what findings read of an index."""

    @property
    def file(self) -> LiveFile: ...
    @property
    def column(self) -> str: ...
    @property
    def index_type(self) -> str: ...
    @property
    def bytes(self) -> int | None: ...
    @property
    def decoded(self) -> bool: ...
    @property
    def error(self) -> str | None: ...


class IndexFactRows(Sequence[IndexFact]):
    """:class:`IndexFact` rows stored by column (a snapshot holds one per index of every file: about
    40 bytes each here, against 150 as tuples); each row is built when it is read."""

    def __init__(self) -> None:
        self.files: list[LiveFile] = []
        self.names: list[str] = []  # the columns, index types and storages, coded
        self.codes: dict[str, int] = {}
        self.column, self.index_type, self.storage = array("H"), array("H"), array("H")
        self.bytes = array("q")  # -1: not read
        self.flags = bytearray()  # 1: decoded, 2: a fill ratio, 4: a false-positive probability
        self.fill_ratio, self.fpp = array("d"), array("d")
        self.errors: dict[int, str] = {}

    def _code(self, name: str) -> int:
        code = self.codes.get(name)
        if code is None:
            code = self.codes[name] = len(self.names)
            self.names.append(name)
        return code

    def append(self, fact: IndexFact) -> None:
        """Add ``fact`` at the end."""
        if fact.error is not None:
            self.errors[len(self.files)] = fact.error
        self.files.append(fact.file)
        self.column.append(self._code(fact.column))
        self.index_type.append(self._code(fact.index_type))
        self.storage.append(self._code(fact.storage))
        self.bytes.append(-1 if fact.bytes is None else fact.bytes)
        fill, fpp = fact.fill_ratio, fact.false_positive_probability
        self.flags.append(fact.decoded | (0 if fill is None else 2) | (0 if fpp is None else 4))
        self.fill_ratio.append(0.0 if fill is None else fill)
        self.fpp.append(0.0 if fpp is None else fpp)

    def __len__(self) -> int:
        return len(self.files)

    @overload
    def __getitem__(self, i: int) -> IndexFact: ...
    @overload
    def __getitem__(self, i: slice) -> list[IndexFact]: ...

    def __getitem__(self, i: int | slice) -> IndexFact | list[IndexFact]:
        if isinstance(i, slice):
            return [self._row(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._row(i)

    def __iter__(self) -> Iterator[IndexFact]:
        return map(self._row, range(len(self)))

    def _row(self, i: int) -> IndexFact:
        names, size, flags = self.names, self.bytes[i], self.flags[i]
        return IndexFact(self.files[i], names[self.column[i]], names[self.index_type[i]], names[self.storage[i]],
                         None if size < 0 else size, bool(flags & 1), self.errors.get(i),
                         self.fill_ratio[i] if flags & 2 else None, self.fpp[i] if flags & 4 else None)


@dataclass(frozen=True)
class IndexFacts:
    """Every index of a snapshot as :class:`IndexFact` rows, and per bitmap-indexed column the rows
    of each value summed over the files (its text, ``NULL`` for nulls), gathered in one pass."""

    facts: Sequence[IndexFact]
    bitmap_rows: dict[str, dict[str, int]]


def index_facts(table: SnapshotReader, engine: Engine | None = None) -> IndexFacts:
    """:class:`IndexFacts` of the snapshot, gathered once per snapshot, one file's indexes decoded at
    a time (from the snapshot's :func:`table_file_indexes` when they are kept already)."""
    return table.memo("index_facts", lambda: _gather_facts(table, engine))


def _gather_facts(table: SnapshotReader, engine: Engine | None) -> IndexFacts:

    facts = IndexFactRows()
    bitmap_rows: dict[str, dict[str, int]] = {}
    for lf, infos in file_indexes_by_file(table, engine):
        for info in infos:
            fill = fpp = None
            if info.index_type == "bloom-filter" and info.reader is not None:
                summary = info.summary()
                fill, fpp = summary.get("fill_ratio"), summary.get("false_positive_probability")
            facts.append(IndexFact(lf, info.column, info.index_type, info.storage, info.bytes,
                                   info.reader is not None, info.error, fill, fpp))
            if info.index_type != "bitmap" or info.reader is None:
                continue
            reader: Any = info.reader
            totals = bitmap_rows.setdefault(info.column, {})
            nulls = reader.summary().null_count
            if nulls:
                totals["NULL"] = totals.get("NULL", 0) + nulls
            for v in reader.values():
                value = to_python(v.value, info.data_type) if info.data_type is not None else v.value
                key = "NULL" if value is None else repr(value) if isinstance(value, str) else str(value)
                totals[key] = totals.get(key, 0) + v.row_count
            let_go(reader)
    return IndexFacts(facts, bitmap_rows)


def _decode_all(table: SnapshotReader, engine: Engine) -> list[IndexInfo]:
    files = table.live_files()
    out: list[IndexInfo] = []
    i = 0
    task = partial(_decode_chunk, show=None) if task_count(engine) == 1 else _decode_chunk
    for per_file in map_file_chunks(engine, table, files, task):
        for infos in per_file:
            lf = files[i]
            i += 1
            for k, info in enumerate(infos):
                if info.file is None:  # decoded in another process: attach this process's file
                    reader = cast("FileIndexReader", DeferredReader(table, lf, k)) if info.reader is not None else None
                    info = dataclasses.replace(info, file=lf, reader=reader)
                out.append(info)
    return out


def let_go(reader: Any) -> None:
    """Release a :class:`DeferredReader`'s decoded index once read (any other reader: nothing)."""
    if isinstance(reader, DeferredReader):
        reader.release()


class _Decoded:
    """Stands, in a pickled :class:`IndexInfo`, for a reader that was decoded (it stays behind)."""


class DeferredReader:
    """Stands for an index reader let go after its summary was taken (or decoded in another
    process): the file's container is decoded again on first attribute use, and kept until
    :meth:`release`."""

    __slots__ = ("_lf", "_position", "_real", "_table")

    def __init__(self, table: SnapshotReader, lf: LiveFile, position: int) -> None:
        self._table = table
        self._lf = lf
        self._position = position
        self._real: FileIndexReader | None = None

    def reader(self) -> FileIndexReader:
        """The real reader (decoding the file's container in this process once)."""
        if self._real is None:
            found = list(file_indexes(self._table, self._lf, self._position))  # that index alone
            if not found:
                raise RuntimeError(f"{self._lf.path}: index {self._position} is no longer in the container")
            info = found[0]
            if info.reader is None:
                raise RuntimeError(f"{self._lf.path}: index {info.column}/{info.index_type} no longer decodes")
            self._real = info.reader
        return self._real

    def release(self) -> None:
        """Let the decoded reader go (it is decoded again when next used)."""
        self._real = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in DeferredReader.__slots__:  # not set yet (being unpickled)
            raise AttributeError(name)
        return getattr(self.reader(), name)
