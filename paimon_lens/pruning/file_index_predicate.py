"""Evaluate a predicate against one data file's index container: Paimon's ``FileIndexPredicate``.

Semantics (Paimon 2.0.0 ``FileIndexPredicate.evaluate`` and its ``FileIndexPredicateTest``;
0.9.0's ``testPredicate`` is the same walk, returning only ``remain()``):

* no predicate -> REMAIN;
* leaf -> the readers of the leaf's column (one per index type in the container) are visited
  with the leaf's function and ANDed, starting from REMAIN; the walk stops at the first result
  that does not remain. A column without an entry in the container has no readers -> REMAIN.
  A leaf without a field (constant predicates) -> REMAIN;
* ``And`` -> children ANDed left to right, stopping at the first result that does not remain;
* ``Or`` -> children ORed left to right (no early stop); an empty compound -> REMAIN.

Readers are built with the type of the column in the *file's* row type (the schema the file was
written with); a map-key entry ``col[key]`` uses the map's value type
(``FileIndexCommon.getFieldType``). An entry whose start is ``-1`` gets the
:class:`~paimon_lens.formats.index_reader.EmptyFileIndexReader`.

Predicates should be devolved to the file's schema first (Paimon does this before calling
``FileIndexPredicate``); a leaf on a column that is not in the container simply answers REMAIN.

Where paimon-lens differs on purpose:

* Paimon collects a column's readers in a ``HashSet``, so with two index types on one column
  the order of the AND (and so where it stops) changes from run to run: a result that does not
  remain may come out as ``SKIP`` or as an empty bitmap, and under ``Or`` that turns into
  ``REMAIN`` or a bitmap. Whether the file remains never changes. paimon-lens uses the header
  order, which is deterministic.
* An index type paimon-lens cannot decode, or a column missing from the row type, answers REMAIN
  with a note (Paimon throws).
* ``paimon_09_bitmap_or=True`` reproduces Paimon 0.9.0's wrong ``bitmap OR non-bitmap``
  (see :func:`~paimon_lens.formats.result.or_paimon_09`), for comparing with 0.9 results.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..formats.file_index_format import FileIndexFormatReader, index_field_type
from ..formats.index_reader import EmptyFileIndexReader, FileIndexReader
from ..formats.result import REMAIN, FileIndexResult, or_paimon_09
from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate, visit_function
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataField

__all__ = ["FileIndexPredicate", "IndexVerdict", "LeafEvaluation", "index_answer", "index_field_type"]


def index_answer(reader: FileIndexReader, leaf: LeafPredicate) -> FileIndexResult:
    """A reader's answer for one leaf (``leaf.function.visit(reader, ...)``; REMAIN for a leaf
    without the literals its function needs)."""
    return visit_function(leaf, reader, REMAIN)


@dataclass(frozen=True)
class IndexVerdict:
    """What one index type of a column answered for one leaf."""

    index_type: str
    result: FileIndexResult
    note: str | None = None
    empty: bool = False  # the container entry had the empty-index flag


@dataclass(frozen=True)
class LeafEvaluation:
    """A leaf predicate evaluated on one container.

    ``verdicts`` has one entry per index type of the column, in header order, *all* evaluated
    (for explanations); ``result`` is the combined answer as Paimon computes it (AND with early
    stop, so it may not use every verdict).
    """

    leaf: LeafPredicate
    column: str
    verdicts: tuple[IndexVerdict, ...]
    result: FileIndexResult

    @property
    def indexed(self) -> bool:
        """Whether the container has any index on the leaf's column."""
        return bool(self.verdicts)


class FileIndexPredicate(PredicateVisitor[FileIndexResult]):
    """Evaluate predicates on one container (Paimon's ``FileIndexPredicate``).

    Args:
        index: a parsed container, or its bytes.
        row_type: the fields of the schema the data file was written with.
        path: where the bytes come from (errors only; ignored when ``index`` is a reader).
        paimon_09_bitmap_or: model Paimon 0.9.0's ``bitmap OR non-bitmap`` bug instead of the
            fixed 2.0.0 behaviour.
    """

    def __init__(self, index: FileIndexFormatReader | bytes | bytearray | memoryview,
                 row_type: Sequence[DataField], path: str | None = None, *,
                 paimon_09_bitmap_or: bool = False) -> None:
        self.index = index if isinstance(index, FileIndexFormatReader) else FileIndexFormatReader(index, path)
        self.row_type = list(row_type)
        self.paimon_09_bitmap_or = paimon_09_bitmap_or
        self._readers: dict[str, list[tuple[str, FileIndexReader]]] = {}

    @classmethod
    def open(cls, path: str, row_type: Sequence[DataField], *, paimon_09_bitmap_or: bool = False) -> FileIndexPredicate:
        """For an external ``.index`` file (read lazily)."""
        return cls(FileIndexFormatReader.open(path), row_type, paimon_09_bitmap_or=paimon_09_bitmap_or)

    # -- readers --------------------------------------------------------------------------------
    def readers(self, column: str) -> list[tuple[str, FileIndexReader]]:
        """``(index_type, reader)`` for every index of ``column`` (header order; cached)."""
        got = self._readers.get(column)
        if got is None:
            if self.index.has_column(column):
                got = self.index.create_readers(column, index_field_type(self.row_type, column))
            else:
                got = []
            self._readers[column] = got
        return got

    # -- evaluation -----------------------------------------------------------------------------
    def evaluate(self, predicate: Predicate | None) -> FileIndexResult:
        """The container's answer for ``predicate`` (REMAIN, SKIP or a bitmap of positions)."""
        if predicate is None:
            return REMAIN
        return visit(predicate, self)

    def visit_leaf(self, leaf: LeafPredicate) -> FileIndexResult:
        """Every index of the leaf's column, ANDed until one skips (Paimon's ``visit(LeafPredicate)``)."""
        result = REMAIN
        for _, reader in self.readers(leaf.field):
            result = result.and_(index_answer(reader, leaf))
            if not result.remain():
                return result
        return result

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[FileIndexResult]) -> FileIndexResult:
        """Every child's answer, ORed (as Paimon 0.9 did for bitmaps when asked)."""
        result: FileIndexResult | None = None
        for r in children:
            if result is None:
                result = r
            elif self.paimon_09_bitmap_or:
                result = or_paimon_09(result, r)
            else:
                result = result.or_(r)
        return REMAIN if result is None else result

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[FileIndexResult]) -> FileIndexResult:
        """The children's answers ANDed, until one skips."""
        result: FileIndexResult | None = None
        for r in children:
            result = r if result is None else result.and_(r)
            if not result.remain():
                return result
        return REMAIN if result is None else result

    # -- explanations ---------------------------------------------------------------------------
    def evaluate_leaf(self, leaf: LeafPredicate) -> LeafEvaluation:
        """Every index type's answer for ``leaf``, and the combined (Paimon) answer."""
        verdicts = []
        for index_type, reader in self.readers(leaf.field):
            verdicts.append(IndexVerdict(index_type, index_answer(reader, leaf), reader.note,
                                         isinstance(reader, EmptyFileIndexReader)))
        return LeafEvaluation(leaf, leaf.field, tuple(verdicts), self.visit_leaf(leaf))

    def breakdown(self, predicate: Predicate | None) -> list[LeafEvaluation]:
        """:meth:`evaluate_leaf` for every leaf of ``predicate``, left to right."""
        if predicate is None:
            return []
        if isinstance(predicate, LeafPredicate):
            return [self.evaluate_leaf(predicate)]
        out: list[LeafEvaluation] = []
        for child in predicate.children:
            out.extend(self.breakdown(child))
        return out
