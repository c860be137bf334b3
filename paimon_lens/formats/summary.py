"""Index summaries: one frozen dataclass per index type, all on one protocol.

Every index reader's ``summary()`` returns an :class:`IndexSummary` subclass (or None for a
reader with nothing to summarise: an empty or unsupported index). What a ``file_indexes`` frame
and the ``indexes --format json`` document show of it is :meth:`IndexSummary.fields`: the
dataclass fields in order, then the ``derived`` properties, with each ``detail`` field (per-value
or per-block records, which have frames of their own) left out unless it is empty. Fields named
in :data:`VALUE_FIELDS` hold column values in internal form (see :mod:`paimon_lens.values`).

``summary["max"]`` reads a field by name, as the dict summaries of earlier releases did
(``summary["index_type"]`` gives the index type).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

#: Summary fields that hold column values (internal form): converted for frames and JSON.
VALUE_FIELDS = frozenset({"min", "max"})


@dataclasses.dataclass(frozen=True)
class IndexSummary:
    """Base of every index type's summary (a frozen dataclass per index type)."""

    index_type: ClassVar[str] = ""
    #: properties shown after the fields
    derived: ClassVar[tuple[str, ...]] = ()
    #: fields of per-value or per-block records (their own frames), left out of :meth:`fields`
    detail: ClassVar[frozenset[str]] = frozenset()

    def fields(self) -> dict[str, Any]:
        """The flat facts for a frame row or a JSON entry (tuples as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name in self.detail:
                if len(v):
                    continue
                v = []
            out[f.name] = list(v) if isinstance(v, tuple) else v
        for name in self.derived:
            out[name] = getattr(self, name)
        return out

    def __getitem__(self, name: str) -> Any:
        if name == "index_type":
            return self.index_type
        if name in {f.name for f in dataclasses.fields(self)} or name in self.derived:
            return getattr(self, name)
        raise KeyError(name)
