"""Errors raised by paimon-lens.

Every error is a :class:`PaimonLensError`. Errors about bytes on disk are
:class:`CorruptFileError` and carry the file path, the byte offset, the field being read,
what was expected and what was found, so that one line of output says where to look.
"""

from __future__ import annotations


class PaimonLensError(Exception):
    """Base class of every error paimon-lens raises on purpose."""


class TableNotFoundError(PaimonLensError):
    """The path is not a Paimon table directory (no schema files)."""


class SnapshotNotFoundError(PaimonLensError):
    """The requested snapshot (by id, tag or time) does not exist or has expired."""


class UnsupportedError(PaimonLensError):
    """The input is valid Paimon but uses something paimon-lens does not handle yet."""


class CorruptFileError(PaimonLensError):
    """Bytes that do not match the format they should have.

    Attributes:
        path: the file (or a description such as ``manifest entry X: _EMBEDDED_FILE_INDEX``).
        offset: byte offset inside that file where the problem was found, or None.
        field: the format field being read (``magic``, ``bitmap[3].length`` ...).
        expected / found: what the format requires and what the bytes hold.
    """

    def __init__(
        self,
        path: str | None,
        offset: int | None,
        field: str,
        expected: object = None,
        found: object = None,
        detail: str | None = None,
    ) -> None:
        self.path = path
        self.offset = offset
        self.field = field
        self.expected = expected
        self.found = found
        self.detail = detail
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.path or "<bytes>"
        at = f" at byte {self.offset}" if self.offset is not None else ""
        msg = f"{where}{at}: bad {self.field}"
        if self.expected is not None or self.found is not None:
            msg += f" (expected {self.expected}, found {self.found})"
        if self.detail:
            msg += f": {self.detail}"
        return msg

    def within(self, prefix: str) -> CorruptFileError:
        """Return a copy whose field is ``prefix + field`` (an inner field named in its record)."""
        return CorruptFileError(self.path, self.offset, prefix + self.field, self.expected, self.found, self.detail)

    def with_path(self, path: str) -> CorruptFileError:
        """Return a copy naming ``path`` (used when bytes were decoded before the path was known)."""
        return CorruptFileError(path, self.offset, self.field, self.expected, self.found, self.detail)


class TaskError(PaimonLensError):
    """A task failed on a worker with a paimon-lens error (its message kept; ``kind``: its class name)."""

    def __init__(self, message: str, kind: str = "PaimonLensError") -> None:
        super().__init__(message)
        self.kind = kind


class PredicateError(PaimonLensError):
    """A WHERE text that cannot become a Paimon predicate.

    Attributes:
        sql: the whole text.
        fragment: the offending part of it (quoted in the message).
        start: character offset of ``fragment`` in ``sql`` (None if unknown).
        line / column: 1-based position of ``fragment`` (None if unknown).
        reason: what is wrong; hint: what to do (may be None).
    """

    def __init__(
        self,
        reason: str,
        sql: str,
        fragment: str | None = None,
        start: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.reason = reason
        self.sql = sql
        self.fragment = fragment if fragment is not None else sql
        self.start = start
        self.hint = hint
        if start is not None:
            self.line: int | None = sql.count("\n", 0, start) + 1
            self.column: int | None = start - (sql.rfind("\n", 0, start) + 1) + 1
        else:
            self.line = self.column = None
        msg = f"{reason}: {self.fragment!r}"
        if self.line is not None:
            msg += f" (line {self.line}, column {self.column})"
        if self.fragment.strip() != sql.strip():
            msg += f" in {sql.strip()!r}"
        if hint:
            msg += f"; {hint}"
        super().__init__(msg)
