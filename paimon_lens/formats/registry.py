"""Index type name -> reader class (Paimon's ``FileIndexerFactoryUtils``).

=================  ==============================================================  =========
index type         reader                                                          since
=================  ==============================================================  =========
``bloom-filter``   :class:`paimon_lens.formats.bloom.BloomFilterFileIndexReader`   0.9
``bitmap``         ``paimon_lens.formats.bitmap.BitmapFileIndexReader``            0.9
``range-bitmap``   ``paimon_lens.formats.range_bitmap.RangeBitmapFileIndexReader``  1.x
``bsi``            ``paimon_lens.formats.bsi.BsiFileIndexReader``                  1.x
=================  ==============================================================  =========

Every reader class takes ``(data_type, data, path=None, base=0)``. The modules are imported
only when a reader of that type is needed. Paimon throws for an index type it does not know;
paimon-lens returns an :class:`UnsupportedIndexReader` instead, which answers REMAIN to
everything (the safe answer) and carries a note saying why.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..types import DataType
from .index_reader import FileIndexReader

BLOOM_FILTER = "bloom-filter"
BITMAP = "bitmap"
RANGE_BITMAP = "range-bitmap"
BSI = "bsi"

#: index type -> (module, class name)
READERS: dict[str, tuple[str, str]] = {
    BLOOM_FILTER: ("paimon_lens.formats.bloom", "BloomFilterFileIndexReader"),
    BITMAP: ("paimon_lens.formats.bitmap", "BitmapFileIndexReader"),
    RANGE_BITMAP: ("paimon_lens.formats.range_bitmap", "RangeBitmapFileIndexReader"),
    BSI: ("paimon_lens.formats.bsi", "BsiFileIndexReader"),
}

INDEX_TYPES: tuple[str, ...] = tuple(READERS)


class UnsupportedIndexReader(FileIndexReader):
    """A reader that answers REMAIN to everything, with a note saying why."""

    def __init__(self, index_type: str, note: str) -> None:
        self.index_type = index_type
        self.note: str | None = note

    def __repr__(self) -> str:
        return f"UnsupportedIndexReader({self.index_type!r}: {self.note})"


_CLASSES: dict[tuple[str, str], Any] = {}  # (module, class name) -> class, once imported


def _reader_class(index_type: str) -> Any:
    """The reader class for ``index_type``, or None if unknown or its module is missing."""
    spec = READERS.get(index_type)
    if spec is None:
        return None
    cls = _CLASSES.get(spec)
    if cls is None:
        module_name, class_name = spec
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name != module_name:  # a real import error inside an existing module
                raise
            return None
        cls = getattr(module, class_name, None)
        if cls is not None:
            _CLASSES[spec] = cls
    return cls


def is_available(index_type: str) -> bool:
    """Whether paimon-lens can decode ``index_type`` (its reader module is present)."""
    return _reader_class(index_type) is not None


def available_index_types() -> frozenset[str]:
    """The index types paimon-lens can decode right now."""
    return frozenset(t for t in INDEX_TYPES if is_available(t))


def create_reader(index_type: str, data_type: DataType, data: bytes, path: str | None = None,
                  offset_base: int = 0) -> FileIndexReader:
    """A reader for one column's index bytes (Paimon: ``FileIndexer.create(...).createReader``).

    Args:
        index_type: the name stored in the container (``bloom-filter``, ``bitmap`` ...).
        data_type: the type the index was written for (map value type for ``col[key]``).
        data: the index bytes.
        path: the file the bytes come from, for error messages.
        offset_base: offset of ``data[0]`` in that file.

    Returns:
        The decoding reader, or an :class:`UnsupportedIndexReader` (REMAIN for everything) for an
        unknown index type or one whose reader module is not installed.

    Raises:
        CorruptFileError: the bytes do not decode (raised by the reader class).
    """
    cls = _reader_class(index_type)
    if cls is None:
        if index_type in READERS:
            note = f"index type {index_type!r} is not supported by this paimon-lens build; answering REMAIN"
        else:
            note = (f"unknown index type {index_type!r} (known: {', '.join(INDEX_TYPES)}); "
                    "Paimon would fail here, paimon-lens answers REMAIN")
        return UnsupportedIndexReader(index_type, note)
    reader: FileIndexReader = cls(data_type, data, path, offset_base)
    return reader
