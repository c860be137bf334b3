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


class Problem(str):
    """What could not be read or modelled, as a value carried from the raise to every output.

    A problem *is* its message (a ``str``: frames, JSON and CLI text print it as they print any
    text), and keeps what the raise knew: ``kind`` (the error's class), ``file``, ``field`` and
    byte ``offset`` (None where unknown), so that a renderer or a script can point at the file
    without parsing the message. :meth:`of` makes one from a caught exception.
    """

    kind: str
    file: str | None
    field: str | None
    offset: int | None

    def __new__(cls, message: str, kind: str = "PaimonLensError", file: str | None = None,
                field: str | None = None, offset: int | None = None) -> Problem:
        self = super().__new__(cls, message)
        self.kind, self.file, self.field, self.offset = kind, file, field, offset
        return self

    @classmethod
    def of(cls, error: BaseException, file: str | None = None, text: str | None = None) -> Problem:
        """The problem an exception describes: ``text`` (default: a paimon-lens error's message as
        it is, any other's prefixed by its class), ``file`` when the error does not name one itself."""
        kind = type(error).__name__
        if text is None:
            text = str(error) if isinstance(error, PaimonLensError) else f"{kind}: {error}"
        if isinstance(error, CorruptFileError):
            return cls(text, kind, error.path or file, error.field, error.offset)
        named = getattr(error, "path", None) or getattr(error, "filename", None)
        return cls(text, kind, named if isinstance(named, str) else file)

    def to_dict(self) -> dict[str, object]:
        """The JSON form: ``{"kind", "file", "field", "offset", "message"}``."""
        return {"kind": self.kind, "file": self.file, "field": self.field, "offset": self.offset,
                "message": str(self)}

    def __reduce__(self) -> tuple[object, ...]:
        return Problem, (str(self), self.kind, self.file, self.field, self.offset)


class Note(str):
    """A remark of an answer (an explanation's notes): its text, and the data file it is about
    (``file``; None for a remark about the table) and the :class:`Problem` behind it, if any.

    A note about a file reads ``"<file>: <text>"`` as text, as notes always have; code asks
    ``note.file`` instead of splitting that text.
    """

    file: str | None
    problem: Problem | None

    def __new__(cls, text: str, file: str | None = None, problem: Problem | None = None) -> Note:
        self = super().__new__(cls, f"{file}: {text}" if file else text)
        self.file, self.problem = file, problem
        return self

    @property
    def text(self) -> str:
        """The remark without the file it is about."""
        return str(self)[len(self.file) + 2:] if self.file else str(self)

    def to_dict(self) -> dict[str, object]:
        """The JSON form: ``{"file", "text", "problem"}``."""
        return {"file": self.file, "text": self.text,
                "problem": None if self.problem is None else self.problem.to_dict()}

    def __reduce__(self) -> tuple[object, ...]:
        return Note, (self.text, self.file, self.problem)


def note_file(note: str) -> str | None:
    """The data file a note is about (None for a table remark or a plain string)."""
    return note.file if isinstance(note, Note) else None


def problem_details(error: str | None) -> dict[str, object] | None:
    """The JSON details of an error text: a :class:`Problem`'s facts, a plain message's text alone."""
    if error is None:
        return None
    if isinstance(error, Problem):
        return error.to_dict()
    return {"kind": None, "file": None, "field": None, "offset": None, "message": str(error)}


def as_text(error: str | None) -> str | None:
    """An error as plain text (frames and Spark rows hold text; JSON adds :func:`problem_details`)."""
    return None if error is None else str.__str__(error)
