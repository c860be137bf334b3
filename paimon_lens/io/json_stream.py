"""JSON documents written piece by piece, for answers over every file of a large table.

``files``, ``indexes`` and ``explain`` documents hold one record per data file: built whole, a
100,000-file document is hundreds of megabytes of dicts. :func:`write_document` writes the same
bytes ``json.dump`` would (same separators and options), taking the records of a list field from
an iterator one at a time. :class:`Spool` collects a document in a temporary file (in memory up to
a few MiB) so that an answer that has to start again at another snapshot (see
:mod:`paimon_lens.metadata.consistency`) never leaves a half-written first attempt in the output.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

#: bytes of a spooled document kept in memory before it moves to a temporary file
SPOOL_MEMORY = 8 * 1024 * 1024


class Later:
    """A field's value computed when the field is written (after the fields before it: a count of
    what writing them cost)."""

    __slots__ = ("compute",)

    def __init__(self, compute: Callable[[], Any]) -> None:
        self.compute = compute


def write_document(out: IO[str], fields: Iterable[tuple[str, Any]], **options: Any) -> None:
    """Write the JSON object of ``fields`` (name, value) to ``out`` as ``json.dump`` would with
    ``options``; a value that is an iterator is written as an array, one item at a time, a
    :class:`Later` as what it computes then."""
    encoder = json.JSONEncoder(**options)
    out.write("{")
    for i, (name, value) in enumerate(fields):
        if i:
            out.write(", ")
        out.write(encoder.encode(name))
        out.write(": ")
        if isinstance(value, Later):
            value = value.compute()
        if isinstance(value, Iterator):
            out.write("[")
            for k, item in enumerate(value):
                if k:
                    out.write(", ")
                out.write(encoder.encode(item))
            out.write("]")
        else:
            out.write(encoder.encode(value))
    out.write("}")


class Spool:
    """A text output collected in a temporary file until :meth:`copy_to`; :meth:`restart` empties it."""

    def __init__(self) -> None:
        self.file: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by close()
            max_size=SPOOL_MEMORY, mode="w+", encoding="utf-8", newline="")

    def restart(self) -> IO[str]:
        """The spool, emptied (an answer starting again)."""
        self.file.seek(0)
        self.file.truncate()
        return self.file

    def copy_to(self, out: IO[str]) -> None:
        """Write everything spooled to ``out``."""
        self.file.seek(0)
        shutil.copyfileobj(self.file, out, 1024 * 1024)

    def close(self) -> None:
        """Let the spool (and its temporary file) go."""
        self.file.close()

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
