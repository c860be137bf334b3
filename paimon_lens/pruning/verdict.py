"""The verdict of one data file for one predicate: the record every explanation is made of."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from ..formats.result import BitmapIndexResult
from .lazy_text import LazyText, resolved

if TYPE_CHECKING:
    from .scan import PlanDecision


@dataclass(frozen=True)
class FileVerdict:
    """What happens to one data file for one predicate."""

    file_name: str
    path: str
    partition: dict[str, Any]
    bucket: int
    level: int
    row_count: int
    file_size: int
    index_location: str
    partition_keep: bool
    bucket_keep: bool | None
    stats_used: bool
    decision: PlanDecision = field(repr=False, compare=False)
    planned: bool
    read: bool
    deleted_rows: int | None
    """Rows the file's deletion vector marks deleted (all of them, selected by an index or not); for a
    vector that could not be read, the count the index manifest records, None when it records none."""
    rows_after_dv: int
    stage: str  # first stage that removed the file, "" if it is read
    reason: str
    matching_positions: BitMap | None = None
    matching_live_positions: BitMap | None = None
    flags: tuple[str, ...] = ()
    error: str | None = None
    """What could not be read for this file (its index, deletion vector or data), None if all was."""
    branch: str | None = None
    """The branch the file belongs to when it is not the table's own (``scan.fallback-branch``)."""
    index_selected_rows: int | None = None
    """Rows a bitmap index result selects for the reader (None: no bitmap selection, the whole file)."""
    dv_removed_rows: int = 0
    """Rows the deletion vector takes out of what the reader would return (after the index selection)."""

    @property
    def stats_keep(self) -> bool:
        """The predicate tested on the file's own value stats (see :class:`PlanDecision`)."""
        return self.decision.stats_keep

    def __getstate__(self) -> dict[str, Any]:
        return resolved(self.__dict__, "reason")

    @property
    def index_result(self) -> str:
        """REMAIN, SKIP or NO_INDEX (the container's answer, evaluated on first use if not needed before)."""
        return self.decision.index_result

    @property
    def index_kind(self) -> str | None:
        """REMAIN, SKIP or BITMAP; None without an index."""
        result = self.decision.index
        return None if result is None else result.kind

    @property
    def index_positions(self) -> BitMap | None:
        """Candidate rows when the index answered with a bitmap."""
        result = self.decision.index
        return result.bitmap if isinstance(result, BitmapIndexResult) else None

    @property
    def matching_rows(self) -> int | None:
        """Rows of the file that satisfy the predicate (truth), deleted rows excluded."""
        if self.matching_live_positions is not None:
            return len(self.matching_live_positions)
        return None if self.matching_positions is None else len(self.matching_positions)


FileVerdict.reason = LazyText("reason")  # type: ignore[assignment]  # text written on first read
