"""A workload: the WHERE clauses a table is queried with, each with a weight.

A workload file holds one predicate per line (the same file ``paimon-lens explain --where-file``
reads). Blank lines and lines starting with ``#`` or ``--`` are ignored. A line may end with a
weight in an SQL comment, ``-- weight: 3`` (or ``-- weight=3``); the default weight is 1::

    # point lookups from the order service
    id = 1234567                      -- weight: 20
    country = 'DE' AND status = 'pending'
    score BETWEEN 300 AND 700         -- weight=0.5

In Python a workload is also a list of strings or of ``(where, weight)`` pairs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError

if TYPE_CHECKING:
    from ..predicate.model import Predicate
    from ..types import DataField

_WEIGHT = re.compile(r"--\s*weight\s*[:=]\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class WorkloadQuery:
    """One predicate of a workload and how often it runs relative to the others."""

    where: str
    weight: float = 1.0
    line: int | None = None
    """Line number in the workload file it was read from (None when not read from a file)."""
    predicate: Predicate | None = field(default=None, compare=False, repr=False)
    """The predicate bound to the table's schema, once parsed (:meth:`Workload.bind`)."""

    @property
    def label(self) -> str:
        """``line N`` of its file, or the predicate itself."""
        return f"line {self.line}" if self.line is not None else repr(self.where)


@dataclass(frozen=True)
class Workload:
    """The predicates a table is queried with; ``source`` says where they came from."""

    queries: tuple[WorkloadQuery, ...]
    source: str = "given"

    def __iter__(self) -> Iterator[WorkloadQuery]:
        return iter(self.queries)

    def __len__(self) -> int:
        return len(self.queries)

    @property
    def total_weight(self) -> float:
        """Sum of the weights."""
        return sum(q.weight for q in self.queries)

    def bind(self, fields: Sequence[DataField]) -> tuple[Workload, list[dict[str, Any]]]:
        """The queries that parse against ``fields``, each carrying its predicate (parsed once, kept
        when already bound), and the ones that do not (``where``, ``line``, ``label``, ``error``)."""
        from ..predicate.parser import parse_where

        kept, skipped = [], []
        for q in self.queries:
            if q.predicate is not None:
                kept.append(q)
                continue
            try:
                kept.append(replace(q, predicate=parse_where(q.where, fields)))
            except PaimonLensError as e:
                skipped.append({"where": q.where, "line": q.line, "label": q.label, "error": str(e)})
        return replace(self, queries=tuple(kept)), skipped


def parse_workload_line(line: str) -> WorkloadQuery | None:
    """One line of a workload file, or ``None`` for a blank or comment line."""
    text = line.strip()
    if not text or text.startswith("#") or text.startswith("--"):
        return None
    weight = 1.0
    m = _WEIGHT.search(text)
    if m is not None:
        weight = float(m.group(1))
        text = text[: m.start()].rstrip()
    if not text:
        return None
    return WorkloadQuery(text, weight)


def read_workload(path: str | os.PathLike[str]) -> Workload:
    """Read a workload file (see the module docs); errors name the file and line."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise PaimonLensError(f"cannot read workload file {str(p)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise PaimonLensError(f"workload file {str(p)!r} is not UTF-8 (byte {e.start})") from None
    queries = []
    for number, line in enumerate(lines, 1):
        try:
            q = parse_workload_line(line)
        except ValueError as e:  # pragma: no cover - the regex only admits valid floats
            raise PaimonLensError(f"{p}:{number}: bad weight: {e}") from None
        if q is not None:
            queries.append(WorkloadQuery(q.where, q.weight, number))
    return Workload(tuple(queries), source=str(p))


def as_workload(source: Workload | str | os.PathLike[str] | Iterable[str | tuple[str, float]] | None) -> Workload:
    """A :class:`Workload` from a workload, a file path, or a list of strings / ``(where, weight)`` pairs."""
    if source is None:
        return Workload((), source="none")
    if isinstance(source, Workload):
        return source
    if isinstance(source, (str, os.PathLike)):
        return read_workload(source)
    queries = []
    for item in source:
        if isinstance(item, str):
            queries.append(WorkloadQuery(item))
        elif isinstance(item, WorkloadQuery):
            queries.append(item)
        elif isinstance(item, Sequence) and len(item) == 2 and isinstance(item[0], str):
            queries.append(WorkloadQuery(item[0], float(item[1])))
        else:
            raise PaimonLensError(f"a workload item is a WHERE string or a (where, weight) pair, not {item!r}")
    return Workload(tuple(queries), source="list")
