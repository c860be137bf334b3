"""The record of one finding (see :mod:`.findings`): what, where, what it costs, the fix.

A finding's ``statements`` are its fix as Spark SQL, computed alone from today's options; its
``action`` is the same fix as intent (indexes to drop or add, options to set, partitions to
compact, procedures to call), which a plan (:mod:`.plan`) merges with the other findings and the
recommendations into one set of statements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .advise import table_identifier

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader


@dataclass(frozen=True)
class Procedure:
    """A call of one of Paimon's ``sys`` procedures with named arguments (``table`` first)."""

    name: str
    args: tuple[tuple[str, str], ...]

    def sql(self, dialect: str = "spark") -> str:
        """``CALL sys.<name>(...)`` in Spark or Flink SQL (Flink quotes the ``table`` argument's name)."""
        def arg(key: str) -> str:
            return f"`{key}`" if dialect == "flink" and key == "table" else key

        text = ", ".join(f"{arg(k)} => '{_quoted(v)}'" for k, v in self.args)
        return f"CALL sys.{self.name}({text})"


def _quoted(value: str) -> str:
    """``value`` inside a SQL string literal (a quote doubled)."""
    return value.replace("'", "''")


@dataclass(frozen=True)
class FixAction:
    """A finding's fix as intent, for a plan to merge.

    Attributes:
        drop_indexes: file indexes to drop, as ``(column, index type)``.
        add_indexes: file indexes to add, as ``(column, index type)``.
        index_options: options of one file index, ``(column, index type) -> {key: value}`` (keys
            without ``file-index.<type>.<column>.``).
        options: other table options to set (None: unset).
        compact: partitions to compact (``{}``: the whole table).
        procedures: other procedure calls (global indexes).
    """

    drop_indexes: tuple[tuple[str, str], ...] = ()
    add_indexes: tuple[tuple[str, str], ...] = ()
    index_options: tuple[tuple[tuple[str, str], tuple[tuple[str, str], ...]], ...] = ()
    options: tuple[tuple[str, str | None], ...] = ()
    compact: tuple[tuple[tuple[str, Any], ...], ...] = ()
    procedures: tuple[Procedure, ...] = ()


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
    action: FixAction = field(default_factory=FixAction, compare=False)
    """The fix as intent (see :class:`FixAction`)."""

    def to_dict(self) -> dict[str, Any]:
        """The ``findings --format json`` record."""
        return {"kind": self.kind, "title": self.title, "subject": self.subject, "evidence": self.evidence,
                "impact": self.impact, "score": self.score, "fix": self.fix, "statements": list(self.statements),
                "details": self.details}


def table_ref(table: SnapshotReader) -> str:
    """``db.table`` (or the directory name) of the table, as statements name it."""
    return table_identifier(table.path)
