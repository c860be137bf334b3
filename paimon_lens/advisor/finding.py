"""The record of one finding (see :mod:`.findings`): what, where, what it costs, the fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .advise import table_identifier

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader


@dataclass(frozen=True)
class Finding:
    """One problem: what, where, how much it costs, and the statement that fixes it."""

    kind: str
    title: str
    subject: str
    evidence: str
    impact: str
    score: float
    fix: str
    statements: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The ``findings --format json`` record."""
        return {"kind": self.kind, "title": self.title, "subject": self.subject, "evidence": self.evidence,
                "impact": self.impact, "score": self.score, "fix": self.fix, "statements": list(self.statements),
                "details": self.details}


def table_ref(table: SnapshotReader) -> str:
    """``db.table`` (or the directory name) of the table, as statements name it."""
    return table_identifier(table.path)
