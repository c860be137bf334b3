"""What a file index answers for a predicate: Paimon's ``FileIndexResult``.

* ``REMAIN``: the index cannot rule the file out (it may hold matching rows).
* ``SKIP``: no row of the file can match.
* :class:`BitmapIndexResult`: the row positions that may match (bitmap V2, range-bitmap, bsi;
  0.9's bitmap V1 reader returns the same thing under the name ``BitmapIndexResultLazy``).
  A bitmap result "remains" when it is not empty.

Combination rules, as in Paimon 2.0.0's ``FileIndexResult`` (interface defaults and the two
constants) and ``BitmapIndexResult`` (``x`` is any result, ``other`` a non-bitmap result):

=========================  ==============================  ==================================
left                       ``left.and_(right)``            ``left.or_(right)``
=========================  ==============================  ==================================
REMAIN                     right                           REMAIN
SKIP                       SKIP                            right
bitmap, right bitmap       intersection                    union
bitmap, right ``other``    left if right remains, else     REMAIN if right remains, else left
                           SKIP                            (kept even when it is empty)
=========================  ==============================  ==================================

Paimon 0.9.0 differs in one place: ``BitmapIndexResultLazy.or`` with a non-bitmap right side
applies the *and* default (left if right remains, else SKIP), so ``bitmap OR SKIP`` is SKIP and
``empty bitmap OR REMAIN`` is an empty bitmap. :func:`or_paimon_09` reproduces that bug for
comparisons with 0.9 results; nothing else in paimon-lens uses it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from enum import StrEnum

from pyroaring import BitMap


class IndexAnswer(StrEnum):
    """What an index container answers for a file, as verdicts, frames and JSON name it (a member
    is its name as text)."""

    REMAIN = "REMAIN"
    """The file may hold matching rows: it is read."""
    SKIP = "SKIP"
    """No row can match: the file is skipped."""
    BITMAP = "BITMAP"
    """The rows that may match (bitmap v2, range-bitmap, bsi): a kind of REMAIN."""
    NO_INDEX = "NO_INDEX"
    """The file has no index container (or none was asked)."""


class FileIndexResult:
    """Base of index answers. Use :data:`REMAIN`, :data:`SKIP` or :class:`BitmapIndexResult`."""

    kind: IndexAnswer

    def remain(self) -> bool:
        """Whether the file must still be read."""
        raise NotImplementedError

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        """Paimon's default ``and``: keep self if the other remains, else SKIP."""
        return self if other.remain() else SKIP

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        """Paimon's default ``or``: REMAIN if the other remains, else self."""
        return REMAIN if other.remain() else self


class _Remain(FileIndexResult):
    kind = IndexAnswer.REMAIN

    def remain(self) -> bool:
        return True

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        return other

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        return self

    def __repr__(self) -> str:
        return "REMAIN"


class _Skip(FileIndexResult):
    kind = IndexAnswer.SKIP

    def remain(self) -> bool:
        return False

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        return self

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        return other

    def __repr__(self) -> str:
        return "SKIP"


REMAIN: FileIndexResult = _Remain()
SKIP: FileIndexResult = _Skip()


class BitmapIndexResult(FileIndexResult):
    """A set of candidate row positions (Paimon's ``BitmapIndexResult``)."""

    kind = IndexAnswer.BITMAP
    __slots__ = ("bitmap",)

    def __init__(self, bitmap: BitMap) -> None:
        self.bitmap = bitmap

    def remain(self) -> bool:
        return len(self.bitmap) > 0

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        if isinstance(other, BitmapIndexResult):
            return BitmapIndexResult(self.bitmap & other.bitmap)
        return super().and_(other)

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        if isinstance(other, BitmapIndexResult):
            return BitmapIndexResult(self.bitmap | other.bitmap)
        return super().or_(other)

    def and_not(self, deletion: BitMap) -> BitmapIndexResult:
        """The positions not in ``deletion`` (Paimon's ``andNot``, used with deletion vectors)."""
        return BitmapIndexResult(self.bitmap - deletion)

    def positions(self, limit: int | None = None) -> list[int]:
        """The positions as a sorted list (the first ``limit`` only, when given)."""
        return first_positions(self.bitmap, limit)[0]

    def __repr__(self) -> str:
        return f"BITMAP({len(self.bitmap)} rows)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BitmapIndexResult) and self.bitmap == other.bitmap

    def __hash__(self) -> int:
        return hash(("BITMAP", len(self.bitmap)))


def or_paimon_09(left: FileIndexResult, right: FileIndexResult) -> FileIndexResult:
    """``left.or(right)`` as Paimon 0.9.0 computes it, including its bitmap bug.

    Only a bitmap left side with a non-bitmap right side differs from :meth:`FileIndexResult.or_`:
    0.9.0 answers ``left`` if ``right`` remains, else SKIP (the *and* default).
    """
    if isinstance(left, BitmapIndexResult) and not isinstance(right, BitmapIndexResult):
        return left if right.remain() else SKIP
    return left.or_(right)


def first_positions(bitmap: Iterable[int], limit: int | None) -> tuple[list[int], bool]:
    """The first ``limit`` positions of ``bitmap`` (all when ``limit`` is None), ascending, and whether
    some were left out. Taken lazily: a compact bitmap of billions of positions is never expanded."""
    if limit is None:
        return list(bitmap), False
    head = list(itertools.islice(bitmap, limit + 1))
    return head[:limit], len(head) > limit
