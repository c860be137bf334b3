"""The file-index container: Paimon's ``FileIndexFormat`` (``.index`` files and
``_EMBEDDED_FILE_INDEX`` bytes of a manifest entry).

One container holds every index of one data file. Layout (big-endian; identical in Paimon 0.9.0
and 2.0.0)::

    offset  size  field
    ------  ----  ----------------------------------------------------------------------
    0       8     magic:i64 = 1493475289347502
    8       4     version:i32 = 1
    12      4     head_length:i32   bytes from offset 0 to the end of the head (the body start)
    16      4     column_count:i32
                  column_count x
                    column:UTF        Java writeUTF: u16 length + modified UTF-8;
                                      map-key indexes are named ``col[key]``
                    index_count:i32
                    index_count x
                      index_type:UTF  ``bloom-filter`` | ``bitmap`` | ``bsi`` | ``range-bitmap``
                      start:i32       absolute offset from byte 0 of the container,
                                      or -1 (EMPTY_INDEX_FLAG: no bytes, the column had no value)
                      length:i32      0 for an empty entry
                  redundant_length:i32 (0)
                  redundant bytes      (none in any Paimon release so far)
    head_length   body: the index bytes of every (column, index type), concatenated in
                  header order

``head_length`` counts everything before the body, including magic, version and itself. Paimon's
reader reads ``head_length - 16`` bytes after the first 16 and parses the column table from them;
it ignores the redundant section. Duplicate names merge as in Java's ``HashMap``: a column listed
twice has the union of its entries, and a repeated index type keeps the last entry.

:class:`FileIndexFormatReader` parses and validates the head eagerly (every offset must lie in the
body) and returns one entry's bytes only when asked, from memory or with a ranged read of a file
(entries within the first 64 KiB, read with the head, come from those bytes). The head is read
with ``struct`` straight from those bytes (a head laid out like one seen before with a single
``unpack_from``); if anything is amiss it is read again from the start with the bounds-checked
:class:`~paimon_lens.io.byte_reader.ByteReader`, so a bad field raises a
:class:`~paimon_lens.errors.CorruptFileError` naming it (``columns[i].indexes[j].start``) and its offset.
:func:`write_file_index` is ``FileIndexFormat.Writer.writeColumnIndexes``: it reproduces Paimon's
bytes exactly for the same column order.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..errors import CorruptFileError
from ..io.byte_reader import ByteReader, decode_modified_utf8
from ..io.fileio import local_path, note_missing
from .index_reader import EmptyFileIndexReader, FileIndexReader
from .registry import UnsupportedIndexReader, create_reader

if TYPE_CHECKING:
    from ..io.fileio import FileIO
    from ..types import DataField, DataType

MAGIC = 1493475289347502
VERSION_1 = 1
EMPTY_INDEX_FLAG = -1

#: magic + version + head_length + column_count + redundant_length
MIN_HEAD_LENGTH = 8 + 4 + 4 + 4 + 4
_PREFIX = 16
_FIRST_READ = 64 * 1024
_MIN_COLUMN_BYTES = 2 + 4  # empty name + index_count
_MIN_ENTRY_BYTES = 2 + 4 + 4  # empty type name + start + length
_MAX_UTF_BYTES = 0xFFFF


# ---- model -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexEntry:
    """One index of one column: its type and where its bytes are in the container."""

    index_type: str
    start: int
    length: int

    @property
    def empty(self) -> bool:
        """True for the empty-index flag (``start == -1``): no bytes, no value in the file."""
        return self.start == EMPTY_INDEX_FLAG

    def to_json(self) -> dict[str, Any]:
        """``{index_type, start, length}`` as in the fixtures' ``container.layout``."""
        return {"index_type": self.index_type, "start": self.start, "length": self.length}


@dataclass(frozen=True)
class ColumnIndexes:
    """A column of the container and its index entries, in header order."""

    column: str
    indexes: tuple[IndexEntry, ...]

    @property
    def top_level_column(self) -> str:
        """``attrs`` for a map-key entry ``attrs[color]``, else the column name itself."""
        return split_map_key(self.column)[0]

    @property
    def map_key(self) -> str | None:
        """``color`` for a map-key entry ``attrs[color]``, else None."""
        return split_map_key(self.column)[1]

    def to_json(self) -> dict[str, Any]:
        """``{column, indexes: [...]}``."""
        return {"column": self.column, "indexes": [e.to_json() for e in self.indexes]}


@dataclass(frozen=True)
class FileIndexLayout:
    """The decoded head of a container (everything but the index bytes)."""

    magic: int
    version: int
    head_length: int
    columns: tuple[ColumnIndexes, ...]
    redundant_length: int
    redundant: bytes = b""
    size: int | None = None  # total container size when known

    def column_names(self) -> list[str]:
        """Distinct column names in header order (map-key entries included as ``col[key]``)."""
        seen: dict[str, None] = {}
        for c in self.columns:
            seen.setdefault(c.column, None)
        return list(seen)

    def indexes(self, column: str) -> dict[str, IndexEntry]:
        """Index type -> entry for ``column``; empty if the column has no index.

        Repeated columns merge and a repeated index type keeps its last entry, as Paimon's reader
        (a ``HashMap`` filled in header order) does.
        """
        return dict(self._by_column.get(column, ()))

    def has_column(self, column: str) -> bool:
        """Whether the head lists ``column`` (even without index entries)."""
        return column in self._by_column

    @cached_property
    def _by_column(self) -> dict[str, dict[str, IndexEntry]]:
        """Column -> :meth:`indexes`, for every column of the head (built once)."""
        out: dict[str, dict[str, IndexEntry]] = {}
        for c in self.columns:
            by_type = out.setdefault(c.column, {})
            for e in c.indexes:
                by_type[e.index_type] = e
        return out

    def entries(self) -> Iterator[tuple[str, IndexEntry]]:
        """Every ``(column, entry)`` pair in header order."""
        for c in self.columns:
            for e in c.indexes:
                yield c.column, e

    @property
    def body_length(self) -> int:
        """Sum of the lengths of the non-empty entries."""
        return sum(e.length for _, e in self.entries() if not e.empty)

    def to_json(self) -> dict[str, Any]:
        """The shape of ``container.layout`` in the fixtures' ``case.json``."""
        return {
            "magic": self.magic,
            "version": self.version,
            "head_length": self.head_length,
            "columns": [c.to_json() for c in self.columns],
            "redundant_length": self.redundant_length,
        }


def split_map_key(column: str) -> tuple[str, str | None]:
    """``"attrs[color]"`` -> ``("attrs", "color")``; ``"id"`` -> ``("id", None)``.

    Same rule as Paimon's ``FileIndexOptions.topLevelIndexOfNested``: the first ``[`` and a
    trailing ``]``.
    """
    start = column.find("[")
    if start != -1 and column.endswith("]"):
        return column[:start], column[start + 1:-1]
    return column, None


def index_field_type(row_type: Sequence[DataField], column: str) -> DataType | None:
    """The type an index on ``column`` was written for (Paimon's ``FileIndexCommon.getFieldType``).

    ``col[key]`` -> the value type of map column ``col``. None if the column is not in the row
    type (or ``col`` is not a map).
    """
    top, key = split_map_key(column)
    by_name = {f.name: f for f in row_type}
    if key is None:
        f = by_name.get(column)
        return None if f is None else f.type
    f = by_name.get(top)
    if f is None or f.type.root != "MAP":
        # a plain column whose name happens to end in "]"
        exact = by_name.get(column)
        return None if exact is None else exact.type
    return f.type.value


# ---- sources ---------------------------------------------------------------------------------

class _Source(Protocol):
    size: int

    def read(self, offset: int, length: int) -> bytes: ...


class _BytesSource:
    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self._data = bytes(data) if not isinstance(data, bytes) else data
        self.size = len(self._data)

    def read(self, offset: int, length: int) -> bytes:
        return self._data[offset:offset + length]


class _FileSource:
    def __init__(self, file_io: FileIO, path: str, size: int | None) -> None:
        self._io = file_io
        self._path = path
        self._first = b""
        local = local_path(file_io, path) if size is None else None
        if local is not None:
            # one open for the size and the bytes the head is parsed from (read(0, ...) next)
            try:
                with open(local, "rb") as f:
                    size = os.fstat(f.fileno()).st_size
                    self._first = f.read(min(size, _FIRST_READ))
            except FileNotFoundError:
                note_missing(file_io, path)  # as the table's file system notes its own reads (expiry)
                raise
        self.size = file_io.size(path) if size is None else size

    def read(self, offset: int, length: int) -> bytes:
        if offset == 0 and length <= len(self._first):
            return self._first[:length]
        return self._io.read_range(self._path, offset, length)


# ---- reader ----------------------------------------------------------------------------------

def read_layout(data: bytes | bytearray | memoryview, path: str | None = None, base: int = 0) -> FileIndexLayout:
    """Parse and validate the head of a container held in memory."""
    return FileIndexFormatReader(data, path=path, base=base).layout


class FileIndexFormatReader:
    """Paimon's ``FileIndexFormat.Reader``: the head is parsed at once, index bytes on demand.

    Args:
        data: the whole container (embedded index bytes or a file's content).
        path: where the bytes come from, for error messages (file path or a description such as
            ``"manifest-… entry data-….parquet: _EMBEDDED_FILE_INDEX"``).
        base: offset of ``data[0]`` inside ``path`` (0 for a whole file).

    Raises:
        CorruptFileError: bad magic or version, truncated head, a count or string that does not
            fit, or an entry whose ``[start, start + length)`` is not inside the body.
    """

    def __init__(self, data: bytes | bytearray | memoryview | None = None, path: str | None = None,
                 base: int = 0, *, _source: _Source | None = None) -> None:
        if _source is None:
            if data is None:
                raise TypeError("FileIndexFormatReader needs data (or use FileIndexFormatReader.open)")
            _source = _BytesSource(data)
        self._source = _source
        self.path = path
        self.base = base
        self._first = b""  # the container's first bytes, as read for the head
        self.layout = self._parse_head()

    @classmethod
    def open(cls, path: str, file_io: FileIO | None = None, size: int | None = None) -> FileIndexFormatReader:
        """A reader over an ``.index`` file; only the head is read now, index bytes when asked."""
        if file_io is None:
            from ..io.fileio import get_file_io, strip_file_scheme
            file_io = get_file_io(path)
            if "://" not in path or path.startswith("file://"):
                path = strip_file_scheme(path)
        return cls(path=path, _source=_FileSource(file_io, path, size))

    @property
    def size(self) -> int:
        """Total container size in bytes."""
        return self._source.size

    # -- head ---------------------------------------------------------------------------------
    def _parse_head(self) -> FileIndexLayout:
        """The head: parsed by :func:`_parse_head_fast` and, if it finds anything amiss, again by
        :meth:`_parse_head_slow` from the start (so a bad field raises the slow path's error)."""
        size = self._source.size
        first = self._source.read(0, min(size, _FIRST_READ))
        self._first = first
        if type(first) is bytes:
            layout = _parse_head_fast(first, size)
            if layout is not None:
                return layout
        return self._parse_head_slow(first)

    def _parse_head_slow(self, first: bytes | None = None) -> FileIndexLayout:
        """The head, read with the bounds-checked reader; the first bad field raises.

        ``first`` is the container's first bytes as :meth:`_parse_head` read them (read here when
        None). This is the reference parser: :func:`_parse_head_fast` must agree with it.
        """
        size = self._source.size
        if first is None:
            first = self._source.read(0, min(size, _FIRST_READ))
        self._first = first
        r = ByteReader(first, self.path, self.base)
        magic = r.i64("magic")
        if magic != MAGIC:
            raise r.error("magic", MAGIC, magic, at=0, detail="not a Paimon file-index container")
        version = r.i32("version")
        if version != VERSION_1:
            raise r.error("version", VERSION_1, version, at=8, detail="unsupported file-index version")
        head_length = r.i32("head_length")
        if head_length < MIN_HEAD_LENGTH or head_length > size:
            raise r.error("head_length", f"{MIN_HEAD_LENGTH}..{size} (container size)", head_length, at=12)
        head = first if head_length <= len(first) else self._read_exact(0, head_length, "head")
        h = ByteReader(head if head_length == len(head) else head[:head_length], self.path, self.base)
        h.seek(_PREFIX)
        column_count = h.check_count(h.i32("column_count"), _MIN_COLUMN_BYTES, "column_count")
        columns = [self._column(h, i, head_length, size) for i in range(column_count)]
        redundant_length = h.i32("redundant_length")
        if redundant_length < 0:
            raise h.error("redundant_length", "a non-negative length", redundant_length, at=h.pos - 4)
        redundant = h.raw(redundant_length, "redundant_bytes")
        return FileIndexLayout(magic, version, head_length, tuple(columns), redundant_length, redundant, size)

    @staticmethod
    def _column(h: ByteReader, i: int, head_length: int, size: int) -> ColumnIndexes:
        """Column ``i`` of the head: its name and its entries (every entry in the body or empty)."""
        entries: list[IndexEntry] | None = None
        try:
            name = h.utf("name", _NAMES)
            index_count = h.check_count(h.i32("index_count"), _MIN_ENTRY_BYTES, "index_count")
            entries = []
            for _ in range(index_count):
                index_type = h.utf("index_type", _NAMES)
                start_at = h.pos
                start, length = h.unpack(_ENTRY, "start")
                if start != EMPTY_INDEX_FLAG:
                    if start < head_length or start > size:
                        raise h.error("start", f"-1 or {head_length}..{size} (the body)", start,
                                      at=start_at, detail=f"column {name!r}, index {index_type!r}")
                    if length < 0 or length > size - start:
                        raise h.error("length", f"0..{size - start} (to the end of the container)",
                                      length, at=start_at + 4, detail=f"column {name!r}, index {index_type!r}")
                entries.append(_entry(index_type, start, length))
        except CorruptFileError as e:
            raise e.within(f"columns[{i}]." if entries is None else f"columns[{i}].indexes[{len(entries)}].") from None
        return ColumnIndexes(name, tuple(entries))

    def _read_exact(self, offset: int, length: int, field: str) -> bytes:
        first = self._first
        if offset >= 0 and offset + length <= len(first):
            return first[offset:offset + length]
        data = self._source.read(offset, length)
        if len(data) != length:
            raise CorruptFileError(self.path, self.base + offset + len(data), field, f"{length} bytes",
                                   f"{len(data)} bytes", detail="truncated")
        return data

    # -- body ---------------------------------------------------------------------------------
    def column_names(self) -> list[str]:
        """Distinct indexed column names, header order."""
        return self.layout.column_names()

    def has_column(self, column: str) -> bool:
        """Whether the container has at least one entry for ``column``."""
        return self.layout.has_column(column)

    def index_entries(self, column: str) -> dict[str, IndexEntry]:
        """Index type -> entry for ``column`` (see :meth:`FileIndexLayout.indexes`)."""
        return self.layout.indexes(column)

    def read_entry(self, entry: IndexEntry) -> bytes | None:
        """The bytes of one entry; None for an empty entry."""
        if entry.empty:
            return None
        return self._read_exact(entry.start, entry.length, f"index bytes [{entry.start}, +{entry.length})")

    def read_index_bytes(self, column: str, index_type: str) -> bytes | None:
        """The bytes of ``column``'s ``index_type`` index; None if absent or empty."""
        entry = self.layout.indexes(column).get(index_type)
        return None if entry is None else self.read_entry(entry)

    def read_all(self) -> dict[str, dict[str, bytes | None]]:
        """Column -> index type -> bytes (None for empty entries), in header order.

        Feeding the result to :func:`write_file_index` reproduces a Paimon-written container.
        """
        out: dict[str, dict[str, bytes | None]] = {}
        for c in self.layout.columns:
            by_type = out.setdefault(c.column, {})  # kept even without entries
            for entry in c.indexes:
                by_type[entry.index_type] = self.read_entry(entry)
        return out

    def create_readers(self, column: str, data_type: DataType | None) -> list[tuple[str, FileIndexReader]]:
        """One reader per index type of ``column``, in header order (Paimon: ``readColumnIndex``).

        ``data_type`` is the type the index was written for (for ``col[key]``, the map's value
        type); None gives REMAIN readers with a note. Empty entries give
        :class:`~paimon_lens.formats.index_reader.EmptyFileIndexReader`. Paimon returns the readers
        as a ``HashSet``, so its order varies between runs; see
        :mod:`paimon_lens.pruning.file_index_predicate`.
        """
        out: list[tuple[str, FileIndexReader]] = []
        for index_type, entry in self.layout.indexes(column).items():
            reader: FileIndexReader
            if entry.empty:
                reader = EmptyFileIndexReader()
            elif data_type is None:
                reader = UnsupportedIndexReader(index_type, f"column {column!r} is not in the file's row type")
            else:
                data = self.read_entry(entry) or b""
                reader = create_reader(index_type, data_type, data, self.path, self.base + entry.start)
            out.append((index_type, reader))
        return out


_ENTRY = struct.Struct(">ii")  # start, length
_NAMES: dict[bytes, str] = {}  # modified UTF-8 -> text of the column and index type names seen
_new = object.__new__


def _entry(index_type: str, start: int, length: int) -> IndexEntry:
    """``IndexEntry(index_type, start, length)``, filling the frozen instance directly (no __post_init__)."""
    entry = _new(IndexEntry)
    entry.__dict__.update(index_type=index_type, start=start, length=length)
    return entry


# ---- the fast head parser ----------------------------------------------------------------------
#
# Paimon writes the same head layout for every data file of a table (same columns, same index
# types); only the ``start`` and ``length`` fields differ. A container of a new layout is parsed by
# walking its fields (:func:`_walk_head`); from the second head of a length on, the walk records
# the layout as a *shape*: one ``struct`` over the whole column table, whose string fields are the
# bytes between the ``start``/``length`` pairs (name lengths, names, counts, redundant_length). A
# later head whose bytes match those strings exactly has the same fields at the same offsets, so it
# is read with one ``unpack_from`` and only its ``start``/``length`` pairs are checked
# (:func:`_apply_shape`). Anything amiss sends the head to the slow path (see ``_parse_head``).

_PREFIX_FIELDS = struct.Struct(">qiii")  # magic, version, head_length, column_count
_I32 = struct.Struct(">i")


class _Shape(NamedTuple):
    """The column table of one head layout (everything but the start/length pairs), from byte 16.

    ``fields`` unpacks ``run0, start0, length0, run1, …, runK``: ``runs`` picks the runs (bytes
    between the pairs) and ``expected`` is what they must be; ``plan`` is each column's name and,
    per entry, its type and the index of its ``start`` in the unpacked tuple.
    """

    fields: struct.Struct
    runs: Callable[[tuple[Any, ...]], Any]
    expected: Any
    plan: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    redundant_length: int


#: head_length -> the shapes of heads of that length seen last (a few per length; none yet
#: after the first head of a length)
_SHAPES: dict[int, list[_Shape]] = {}
_MAX_SHAPE_LENGTHS = 256
_MAX_SHAPES_PER_LENGTH = 4


def _parse_head_fast(first: bytes, size: int) -> FileIndexLayout | None:
    """The head of a container whose head lies in ``first`` (the first bytes read), or None.

    The same fields as :meth:`FileIndexFormatReader._parse_head_slow`, read with ``struct`` from
    ``first`` itself (no reader object, no copy of the head), by a known :class:`_Shape` or by
    :func:`_walk_head`. Everything the slow path checks is checked; on any inconsistency (a short
    buffer, a bad magic, version, length, count, offset or name, a head beyond ``first``) the
    result is None and the caller parses again with the slow path, whose error names the file,
    offset and field. Both give equal layouts whenever both succeed
    (``tests/formats/test_file_index_head_speed.py``).
    """
    if len(first) < MIN_HEAD_LENGTH:
        return None
    magic, version, head_length, column_count = _PREFIX_FIELDS.unpack_from(first)
    # head_length <= len(first): the slow path reads a longer head separately (over 64 KiB)
    if (magic != MAGIC or version != VERSION_1 or head_length < MIN_HEAD_LENGTH or head_length > size
            or head_length > len(first)):
        return None
    shapes = _SHAPES.get(head_length)
    if shapes is not None:
        for fields, runs, expected, plan, redundant_length in shapes:
            end = _PREFIX + fields.size
            if end + redundant_length <= head_length:
                values = fields.unpack_from(first, _PREFIX)
                if runs(values) == expected:
                    columns = _apply_shape(plan, values, head_length, size)
                    if columns is None:
                        return None
                    return _layout(magic, version, head_length, columns, redundant_length,
                                   first[end:end + redundant_length], size)
    walked = _walk_head(first, head_length, column_count, size)
    if walked is None:
        return None
    columns, offsets, end, redundant_length = walked
    if shapes is not None:
        _remember_shape(shapes, first, columns, offsets, end, redundant_length)
    else:  # the first head of this length: a shape pays for itself from the second one
        if len(_SHAPES) >= _MAX_SHAPE_LENGTHS:
            _SHAPES.clear()
        _SHAPES[head_length] = []
    return _layout(magic, version, head_length, columns, redundant_length,
                   first[end:end + redundant_length], size)


def _apply_shape(plan: tuple[tuple[str, tuple[tuple[str, int], ...]], ...], values: tuple[Any, ...],
                 head_length: int, size: int) -> tuple[ColumnIndexes, ...] | None:
    """The columns of a head matching a shape (``values`` unpacked by it); None if an entry's
    ``[start, start + length)`` is not in the body."""
    columns = []
    for name, entries_plan in plan:
        entries = []
        for index_type, i in entries_plan:
            entry = _body_entry(index_type, values[i], values[i + 1], head_length, size)
            if entry is None:
                return None
            entries.append(entry)
        columns.append(_column_of(name, entries))
    return tuple(columns)


def _body_entry(index_type: str, start: int, length: int, head_length: int, size: int) -> IndexEntry | None:
    """:func:`_entry`, or None if ``[start, start + length)`` is not in the body (where the slow path raises)."""
    if start != EMPTY_INDEX_FLAG and (start < head_length or start > size or length < 0 or length > size - start):
        return None
    return _entry(index_type, start, length)


def _column_of(name: str, entries: list[IndexEntry]) -> ColumnIndexes:
    """``ColumnIndexes(name, tuple(entries))``, filled directly."""
    column = _new(ColumnIndexes)
    fields = column.__dict__
    fields["column"] = name
    fields["indexes"] = tuple(entries)
    return column


def _walk_head(first: bytes, head_length: int, column_count: int, size: int
               ) -> tuple[tuple[ColumnIndexes, ...], list[int], int, int] | None:
    """The column table read field by field: ``(columns, offset of each start field, end of
    redundant_length, redundant_length)``, or None where the slow path would raise."""
    end = head_length  # every head field must end by here (the slow path reads head[:head_length])
    pos = _PREFIX + 4
    if column_count < 0 or column_count * _MIN_COLUMN_BYTES > end - pos:
        return None
    names = _NAMES
    i32 = _I32.unpack_from
    entry_fields = _ENTRY.unpack_from
    columns = []
    offsets: list[int] = []
    for _ in range(column_count):
        # name: u16 length + bytes, then index_count:i32
        if pos + 2 > end:
            return None
        stop = pos + 2 + (first[pos] << 8 | first[pos + 1])
        if stop + 4 > end:
            return None
        raw = first[pos + 2:stop]
        name = names.get(raw)
        if name is None and (name := _decode_name(raw)) is None:
            return None
        index_count = i32(first, stop)[0]
        pos = stop + 4
        if index_count < 0 or index_count * _MIN_ENTRY_BYTES > end - pos:
            return None
        entries = []
        for _ in range(index_count):
            # index_type: u16 length + bytes, then start:i32, length:i32
            if pos + 2 > end:
                return None
            stop = pos + 2 + (first[pos] << 8 | first[pos + 1])
            if stop + 8 > end:
                return None
            raw = first[pos + 2:stop]
            index_type = names.get(raw)
            if index_type is None and (index_type := _decode_name(raw)) is None:
                return None
            start, length = entry_fields(first, stop)
            entry = _body_entry(index_type, start, length, head_length, size)
            if entry is None:
                return None
            offsets.append(stop)
            pos = stop + 8
            entries.append(entry)
        columns.append(_column_of(name, entries))
    if pos + 4 > end:
        return None
    redundant_length = i32(first, pos)[0]
    pos += 4
    if redundant_length < 0 or redundant_length > end - pos:
        return None
    return tuple(columns), offsets, pos, redundant_length


def _remember_shape(shapes: list[_Shape], first: bytes, columns: tuple[ColumnIndexes, ...], offsets: list[int],
                    end: int, redundant_length: int) -> None:
    """Add the shape of a head :func:`_walk_head` read (``offsets``: where its start fields are) to
    ``shapes``, the list in :data:`_SHAPES` of its head length."""
    fmt = [">"]
    prev = _PREFIX
    for at in offsets:
        fmt.append(f"{at - prev}sii")
        prev = at + 8
    fmt.append(f"{end - prev}s")
    fields = struct.Struct("".join(fmt))
    runs = itemgetter(*range(0, 3 * len(offsets) + 1, 3))
    plan = []
    k = 0
    for c in columns:
        entries_plan = []
        for e in c.indexes:
            entries_plan.append((e.index_type, 3 * k + 1))
            k += 1
        plan.append((c.column, tuple(entries_plan)))
    shape = _Shape(fields, runs, runs(fields.unpack_from(first, _PREFIX)), tuple(plan), redundant_length)
    if len(shapes) >= _MAX_SHAPES_PER_LENGTH:
        del shapes[0]
    shapes.append(shape)


def _layout(magic: int, version: int, head_length: int, columns: tuple[ColumnIndexes, ...],
            redundant_length: int, redundant: bytes, size: int) -> FileIndexLayout:
    """``FileIndexLayout(...)``, filling the frozen instance directly."""
    layout = _new(FileIndexLayout)
    fields = layout.__dict__
    fields["magic"] = magic
    fields["version"] = version
    fields["head_length"] = head_length
    fields["columns"] = columns
    fields["redundant_length"] = redundant_length
    fields["redundant"] = redundant
    fields["size"] = size
    return layout


def _decode_name(raw: bytes) -> str | None:
    """A column or index type name (modified UTF-8), remembered in ``_NAMES`` as
    :meth:`ByteReader.utf` does; None if the bytes do not decode (the slow path reports them)."""
    try:
        text = decode_modified_utf8(raw)
    except UnicodeDecodeError:
        return None
    if len(_NAMES) >= 4096:
        _NAMES.clear()
    _NAMES[raw] = text
    return text


def _read_layout_slow(data: bytes | bytearray | memoryview, path: str | None = None, base: int = 0) -> FileIndexLayout:
    """:func:`read_layout` with the slow, bounds-checked parser only (the reference for tests)."""
    reader = _new(FileIndexFormatReader)
    reader._source = _BytesSource(data)
    reader.path = path
    reader.base = base
    reader._first = b""
    return reader._parse_head_slow()


# ---- writer ----------------------------------------------------------------------------------

def encode_modified_utf8(text: str) -> bytes:
    """Java's *modified* UTF-8 (the bytes of ``DataOutput.writeUTF`` after the length).

    NUL becomes ``C0 80``; characters outside the BMP become two 3-byte surrogates.
    """
    if text.isascii() and "\x00" not in text:
        return text.encode("ascii")
    out = bytearray()
    for unit in _utf16_units(text):
        if 0 < unit < 0x80:
            out.append(unit)
        elif unit < 0x800:
            out += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


def _utf16_units(text: str) -> Iterator[int]:
    for ch in text:
        cp = ord(ch)
        if cp >= 0x10000:
            cp -= 0x10000
            yield 0xD800 | cp >> 10
            yield 0xDC00 | cp & 0x3FF
        else:
            yield cp


def _write_utf(text: str) -> bytes:
    raw = encode_modified_utf8(text)
    if len(raw) > _MAX_UTF_BYTES:
        raise ValueError(f"name too long for writeUTF ({len(raw)} bytes > 65535): {text[:40]!r}...")
    return struct.pack(">H", len(raw)) + raw


def write_file_index(indexes: Mapping[str, Mapping[str, bytes | None]], redundant: bytes = b"") -> bytes:
    """Serialise a container, as ``FileIndexFormat.Writer.writeColumnIndexes`` does.

    Args:
        indexes: column -> index type -> index bytes, in the order to write; None writes an
            empty entry (start -1, length 0, no body bytes).
        redundant: bytes for the redundant section (always empty in Paimon; counted in
            ``head_length`` here).
    """
    names: list[bytes] = []
    body = bytearray()
    table: list[tuple[bytes, list[tuple[bytes, int, int]]]] = []
    n_entries = 0
    for column, by_type in indexes.items():
        col_utf = _write_utf(column)
        names.append(col_utf)
        rows: list[tuple[bytes, int, int]] = []
        for index_type, data in by_type.items():
            type_utf = _write_utf(index_type)
            names.append(type_utf)
            if data is None:
                rows.append((type_utf, EMPTY_INDEX_FLAG, 0))
            else:
                rows.append((type_utf, len(body), len(data)))
                body += data
            n_entries += 1
        table.append((col_utf, rows))
    head_length = MIN_HEAD_LENGTH + 8 * n_entries + 4 * len(table) + sum(len(n) for n in names) + len(redundant)
    if head_length + len(body) > 0x7FFFFFFF:
        raise ValueError("container larger than 2 GiB cannot be addressed with int32 offsets")
    out = bytearray(struct.pack(">qiii", MAGIC, VERSION_1, head_length, len(table)))
    for col_utf, rows in table:
        out += col_utf
        out += struct.pack(">i", len(rows))
        for type_utf, start, length in rows:
            out += type_utf
            out += struct.pack(">ii", EMPTY_INDEX_FLAG if start == EMPTY_INDEX_FLAG else start + head_length, length)
    out += struct.pack(">i", len(redundant))
    out += redundant
    out += body
    return bytes(out)
