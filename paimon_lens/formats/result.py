"""What a file index answers for a predicate: Paimon's ``FileIndexResult``.

* ``REMAIN``: the index cannot rule the file out (it may hold matching rows).
* ``SKIP``: no row of the file can match.
* :class:`BitmapIndexResult`: the row positions that may match (bitmap, range-bitmap, bsi).
  A bitmap result "remains" when it is not empty.

Combination rules follow Paimon (``FileIndexResult`` / ``BitmapIndexResult``):

=====================  ============================  ===============================
left                   ``left.and_(right)``          ``left.or_(right)``
=====================  ============================  ===============================
REMAIN                 right                         REMAIN
SKIP                   SKIP                          right
bitmap, right bitmap   intersection                  union
bitmap, right other    left if right remains else    right if left is empty, else
                       SKIP                          see :meth:`BitmapIndexResult.or_`
=====================  ============================  ===============================
"""

from __future__ import annotations

from pyroaring import BitMap


class FileIndexResult:
    """Base of index answers. Use :data:`REMAIN`, :data:`SKIP` or :class:`BitmapIndexResult`."""

    kind: str = "?"

    def remain(self) -> bool:
        """Whether the file must still be read."""
        raise NotImplementedError

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        """Paimon's default ``and``: keep self if the other remains, else SKIP."""
        return self if other.remain() else SKIP

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        """Paimon's default ``or``: self if it remains, else the other."""
        return self if self.remain() else other


class _Remain(FileIndexResult):
    kind = "REMAIN"

    def remain(self) -> bool:
        return True

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        return other

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        return self

    def __repr__(self) -> str:
        return "REMAIN"


class _Skip(FileIndexResult):
    kind = "SKIP"

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

    kind = "BITMAP"
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

    def positions(self) -> list[int]:
        """The positions as a sorted list."""
        return list(self.bitmap)

    def __repr__(self) -> str:
        return f"BITMAP({len(self.bitmap)} rows)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BitmapIndexResult) and self.bitmap == other.bitmap

    def __hash__(self) -> int:
        return hash(("BITMAP", len(self.bitmap)))
