"""The question every file index answers: Paimon's ``FileIndexReader`` visitor.

A reader is created for one column's index bytes. Each ``visit_*`` method receives literals
in the internal value form of :mod:`paimon_lens.types` (a reader is a
:class:`~paimon_lens.predicate.model.FunctionVisitor`; the predicate layer calls the method of a
leaf's function, see :func:`paimon_lens.pruning.file_index_predicate.index_answer`) and returns a
:class:`~paimon_lens.formats.result.FileIndexResult`. Anything an index type cannot answer
returns ``REMAIN`` (the defaults below), exactly as Paimon's reader does.

Defaults, as in Paimon 2.0.0's ``FileIndexReader`` (0.9.0 has the same ones, without ``LIKE``
and ``BETWEEN``):

* every single-literal comparison, ``IS [NOT] NULL``, ``LIKE`` and friends: REMAIN;
* ``IN``: the ``or`` of ``visitEqual`` over the literals, left to right;
* ``NOT IN``: the ``or`` (not the ``and``) of ``visitNotEqual`` over the literals;
* ``BETWEEN`` / ``NOT BETWEEN``: REMAIN. Paimon's generic visitor would turn ``BETWEEN`` into
  ``>= AND <=``, but ``FileIndexReader`` overrides that with REMAIN; only readers that override
  ``visitBetween`` themselves (range-bitmap, bsi) answer it.

Java returns ``null`` from ``visitIn``/``visitNotIn`` for an empty literal list (and the caller
then fails); paimon-lens answers REMAIN there.

:class:`EmptyFileIndexReader` is what Paimon uses for a container entry whose start is the
empty-index flag ``-1``: the column holds no indexed value in this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .result import REMAIN, SKIP, FileIndexResult
from .summary import IndexSummary


class FileIndexReader:
    """Base reader: every predicate REMAINs; ``IN``/``NOT IN`` are ORs of ``=``/``<>``.

    ``note`` may hold a sentence about a limitation of this particular reader (shown in
    explanations), e.g. why it can only answer REMAIN.
    """

    note: str | None = None

    def summary(self) -> IndexSummary | None:
        """What the index holds (an :class:`~paimon_lens.formats.summary.IndexSummary`); None here."""
        return None

    def visit_is_null(self) -> FileIndexResult:
        """``IS NULL``."""
        return REMAIN

    def visit_is_not_null(self) -> FileIndexResult:
        """``IS NOT NULL``."""
        return REMAIN

    def visit_equal(self, literal: Any) -> FileIndexResult:
        """``= literal``."""
        return REMAIN

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        """``<> literal``."""
        return REMAIN

    def visit_less_than(self, literal: Any) -> FileIndexResult:
        """``< literal``."""
        return REMAIN

    def visit_less_or_equal(self, literal: Any) -> FileIndexResult:
        """``<= literal``."""
        return REMAIN

    def visit_greater_than(self, literal: Any) -> FileIndexResult:
        """``> literal``."""
        return REMAIN

    def visit_greater_or_equal(self, literal: Any) -> FileIndexResult:
        """``>= literal``."""
        return REMAIN

    def visit_starts_with(self, literal: Any) -> FileIndexResult:
        """``LIKE 'x%'``."""
        return REMAIN

    def visit_ends_with(self, literal: Any) -> FileIndexResult:
        """``LIKE '%x'``."""
        return REMAIN

    def visit_contains(self, literal: Any) -> FileIndexResult:
        """``LIKE '%x%'``."""
        return REMAIN

    def visit_like(self, literal: Any) -> FileIndexResult:
        """A general ``LIKE`` pattern."""
        return REMAIN

    def visit_between(self, low: Any, high: Any) -> FileIndexResult:
        """``BETWEEN low AND high`` (REMAIN unless a reader overrides it, as in Paimon)."""
        return REMAIN

    def visit_not_between(self, low: Any, high: Any) -> FileIndexResult:
        """``NOT BETWEEN low AND high``."""
        return REMAIN

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``IN (literals)``: ``or`` of :meth:`visit_equal`, left to right."""
        result: FileIndexResult | None = None
        for lit in literals:
            r = self.visit_equal(lit)
            result = r if result is None else result.or_(r)
        return REMAIN if result is None else result

    def visit_not_in(self, literals: Sequence[Any]) -> FileIndexResult:
        """``NOT IN (literals)``: ``or`` of :meth:`visit_not_equal` (Paimon combines with OR)."""
        result: FileIndexResult | None = None
        for lit in literals:
            r = self.visit_not_equal(lit)
            result = r if result is None else result.or_(r)
        return REMAIN if result is None else result


class EmptyFileIndexReader(FileIndexReader):
    """Paimon's ``EmptyFileIndexReader``: the column has no indexed value in this file.

    Used for container entries whose start is ``-1``. Predicates that need a non-null value
    (``=``, ``IN``, ``<``, ``<=``, ``>``, ``>=``, ``IS NOT NULL``, starts/ends-with, contains)
    answer SKIP; ``<>``, ``NOT IN``, ``IS NULL``, ``LIKE`` and ``BETWEEN`` keep the REMAIN
    defaults, as in Paimon 0.9.0 and 2.0.0.
    """

    def visit_equal(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_is_not_null(self) -> FileIndexResult:
        return SKIP

    def visit_starts_with(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_ends_with(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_contains(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_less_than(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_greater_or_equal(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_less_or_equal(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_greater_than(self, literal: Any) -> FileIndexResult:
        return SKIP

    def visit_in(self, literals: Sequence[Any]) -> FileIndexResult:
        return SKIP
