"""Candidate file indexes for one column: the grid the what-if measurement (:mod:`.whatif`) runs.

A :class:`Candidate` is one way to index one column, in Paimon's own option names (the
``file-index.<type>.<column>.<option>`` keys without the prefix), or no index at all.
:func:`candidate_grid` lists, for a column of a given type:

=================  ===========================================================================
index type         grid (Paimon 2.0 defaults in bold)
=================  ===========================================================================
(none)             no file index: the baseline every candidate is compared with
``bloom-filter``   ``fpp`` in {**0.1**, 0.05, 0.01, 0.001} x ``items`` in {median, p95 and max
                   of the per-file distinct counts, rounded up to two significant digits,
                   **1,000,000**}; answers ``=`` and ``IN``
``bitmap``         version 2 with ``index-block-size`` in {1kb, 4kb, **16kb**, 64kb}; answers
                   ``=``, ``<>``, ``IN``, ``NOT IN``, ``IS [NOT] NULL``
``range-bitmap``   ``chunk-size`` in {4kb, **16kb**, 64kb} (BOOLEAN/TINYINT/SMALLINT: only the
                   default, ``0b``: one key per chunk); answers comparisons and ranges too
``bsi``            no options; numeric, date/time and timestamp columns; comparisons and ranges
combinations       one column may carry several index types (``FileIndexOptions`` keys them by
                   type, then column); the grid adds ``bloom-filter`` (fpp 0.01, items = max)
                   together with ``range-bitmap`` (default chunk) where both apply
=================  ===========================================================================

An index type is offered only for the types Paimon can index with it: the paimon-lens writers
(byte-identical to Paimon's) are asked, and a type they reject is left out. ``workload_kinds``
(the kinds of predicates the workload puts on the column, see :func:`predicate_kinds`) drops the
types that cannot answer any of them (a range-only column gets no bloom-filter and no bitmap).

:func:`threshold_choices` lists ``file-index.in-manifest-threshold`` values to compare: a
container of at most that many bytes is embedded in the manifest entry (pruned at planning time,
but every manifest read carries it); a larger one goes to ``<data file>.index``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import PaimonLensError
from ..predicate.model import LeafPredicate, Predicate, leaves
from ..types import DataType
from ..writer.file_index import DEFAULT_IN_MANIFEST_THRESHOLD, PREFIX, IndexSpec, make_index_writer

BLOOM_FILTER = "bloom-filter"
BITMAP = "bitmap"
RANGE_BITMAP = "range-bitmap"
BSI = "bsi"

DEFAULT_BLOOM_ITEMS = 1_000_000
"""Paimon's ``file-index.bloom-filter.<col>.items`` default (``BloomFilterFileIndex.DEFAULT_ITEMS``)."""
DEFAULT_BLOOM_FPP = 0.1
"""Paimon's ``file-index.bloom-filter.<col>.fpp`` default."""
DEFAULT_INDEX_BLOCK_SIZE = "16kb"
"""Paimon's ``file-index.bitmap.<col>.index-block-size`` default (bitmap version 2)."""
DEFAULT_CHUNK_SIZE = "16kb"
"""Paimon's ``file-index.range-bitmap.<col>.chunk-size`` default (``0b`` for 1- and 2-byte keys)."""

FPPS: tuple[float, ...] = (0.1, 0.05, 0.01, 0.001)
INDEX_BLOCK_SIZES: tuple[str, ...] = ("1kb", "4kb", "16kb", "64kb")
CHUNK_SIZES: tuple[str, ...] = ("4kb", "16kb", "64kb")
THRESHOLDS: tuple[int, ...] = (0, DEFAULT_IN_MANIFEST_THRESHOLD, 1024, 4096, 16384, 65536)
"""``in-manifest-threshold`` values always compared (bytes; 0 embeds nothing, 500 is Paimon's default)."""

#: predicate function -> kind
FUNCTION_KINDS: dict[str, str] = {
    "Equal": "eq", "In": "eq",
    "NotEqual": "neq", "NotIn": "neq",
    "IsNull": "null", "IsNotNull": "null",
    "LessThan": "range", "LessOrEqual": "range", "GreaterThan": "range", "GreaterOrEqual": "range",
    "Between": "range", "NotBetween": "range",
    "StartsWith": "pattern", "EndsWith": "pattern", "Contains": "pattern", "Like": "pattern",
}
KINDS: frozenset[str] = frozenset(FUNCTION_KINDS.values())

#: index type -> the predicate kinds its Paimon reader can answer with something other than REMAIN
INDEX_KINDS: dict[str, frozenset[str]] = {
    BLOOM_FILTER: frozenset({"eq"}),
    BITMAP: frozenset({"eq", "neq", "null"}),
    RANGE_BITMAP: frozenset({"eq", "neq", "null", "range"}),
    BSI: frozenset({"eq", "neq", "null", "range"}),
}

_SMALL_KEYS = frozenset({"BOOLEAN", "TINYINT", "SMALLINT"})


@dataclass(frozen=True)
class Candidate:
    """One way to index one column (or no index, or the table's current indexes).

    Attributes:
        column: the column (table schema name); ``"*"`` for :data:`CURRENT`.
        index_type: ``bloom-filter``, ``bitmap``, ``range-bitmap``, ``bsi``; for a combination the
            types joined by ``+``; None for "no index" and for the current indexes.
        options: the index options (keys without ``file-index.<type>.<column>.``); for a
            combination, the options of the first type.
        label: unique within the column, e.g. ``bloom-filter fpp=0.01 items=20000``.
        also: further indexes on the same column (combinations).
        current: the table's own file indexes, read from its files (see :data:`CURRENT`).
    """

    column: str
    index_type: str | None
    options: Mapping[str, str] = field(default_factory=dict, hash=False)
    label: str = ""
    also: tuple[IndexSpec, ...] = field(default=(), hash=False)
    current: bool = False

    @property
    def specs(self) -> tuple[IndexSpec, ...]:
        """The indexes to build (empty for no index and for the current indexes; a
        :func:`configuration`'s indexes over several columns)."""
        if self.current:
            return ()
        if self.index_type is None:
            return self.also if self.column == ALL_COLUMNS else ()
        first = self.index_type.split("+", 1)[0]
        return (IndexSpec(self.column, first, dict(self.options)), *self.also)

    def table_options(self) -> dict[str, str]:
        """The Paimon table options that configure this candidate (``file-index.…`` keys)."""
        out: dict[str, str] = {}
        for spec in self.specs:
            out[f"{PREFIX}{spec.index_type}.columns"] = spec.column
            for key, value in spec.options.items():
                out[f"{PREFIX}{spec.index_type}.{spec.column}.{key}"] = value
        return out


ALL_COLUMNS = "*"
"""The ``column`` of a candidate over the whole table: :data:`CURRENT` and :func:`configuration`."""

CURRENT = Candidate(ALL_COLUMNS, None, {}, "current", current=True)
"""The table's own file indexes as they are (measured from its ``.index`` files and manifests)."""


def configuration(specs: Sequence[IndexSpec], label: str) -> Candidate:
    """A whole table's file-index configuration as one candidate: every file's container holds
    all of ``specs`` (on any columns), as Paimon writes it with those options."""
    return Candidate(ALL_COLUMNS, None, {}, label, also=tuple(specs))


def no_index(column: str) -> Candidate:
    """The "no file index" candidate of ``column``."""
    return Candidate(column, None, {}, "no index")


def supports(index_type: str, dtype: DataType) -> bool:
    """Whether Paimon can build an ``index_type`` index on a column of ``dtype``.

    Answered by the paimon-lens writers, which reject exactly the types Paimon's do.
    """
    try:
        make_index_writer(IndexSpec("c", index_type, {}), dtype)
    except (PaimonLensError, ValueError, NotImplementedError, TypeError):
        return False
    return True


def round_up(n: float) -> int:
    """``n`` rounded up to two significant digits (at least 1): 19,873 -> 20,000; 7 -> 7."""
    if n <= 1:
        return 1
    k = math.ceil(n)
    digits = len(str(k))
    if digits <= 2:
        return k
    step = 10 ** (digits - 2)
    return -(-k // step) * step


def bloom_items_choices(per_file_distinct: Sequence[int]) -> list[int]:
    """``items`` values to try: median, p95 and max of the per-file distinct counts (rounded up)
    and Paimon's default 1,000,000, ascending without duplicates."""
    counts = sorted(int(c) for c in per_file_distinct)
    picked: set[int] = {DEFAULT_BLOOM_ITEMS}
    if counts:
        n = len(counts)
        median = counts[(n - 1) // 2] if n % 2 else (counts[n // 2 - 1] + counts[n // 2]) / 2
        p95 = counts[min(n - 1, math.ceil(0.95 * n) - 1)]
        picked.update(round_up(x) for x in (median, p95, counts[-1]))
    return sorted(picked)


def _size_label(size: str, default: str) -> str:
    return f"{size} (default)" if size == default else size


def candidate_grid(column: str, dtype: DataType, per_file_distinct: Sequence[int], *,
                   workload_kinds: Iterable[str] | None = None, fpps: Sequence[float] = FPPS,
                   index_block_sizes: Sequence[str] = INDEX_BLOCK_SIZES, chunk_sizes: Sequence[str] = CHUNK_SIZES,
                   combinations: bool = True, include_none: bool = True) -> list[Candidate]:
    """The candidate indexes of one column (see the module docs for the grid).

    Args:
        column: the column name in the table schema.
        dtype: its type.
        per_file_distinct: distinct non-null values per data file (what bloom ``items`` is sized from).
        workload_kinds: the predicate kinds the workload puts on the column (``eq``, ``neq``,
            ``null``, ``range``, ``pattern``; see :func:`predicate_kinds`); index types that answer
            none of them are left out. None keeps every type.
        fpps / index_block_sizes / chunk_sizes: override the grids.
        combinations: add the ``bloom-filter + range-bitmap`` combination.
        include_none: start with the "no index" candidate.
    """
    kinds = KINDS if workload_kinds is None else frozenset(workload_kinds)

    def wanted(index_type: str) -> bool:
        return bool(INDEX_KINDS[index_type] & kinds) and supports(index_type, dtype)

    out: list[Candidate] = [no_index(column)] if include_none else []
    items_choices = bloom_items_choices(per_file_distinct)
    if wanted(BLOOM_FILTER):
        for fpp in fpps:
            for items in items_choices:
                default = " (default)" if items == DEFAULT_BLOOM_ITEMS and fpp == DEFAULT_BLOOM_FPP else ""
                out.append(Candidate(column, BLOOM_FILTER, {"fpp": repr(float(fpp)), "items": str(items)},
                                     f"bloom-filter fpp={fpp:g} items={items}{default}"))
    if wanted(BITMAP):
        for size in index_block_sizes:
            out.append(Candidate(column, BITMAP, {"version": "2", "index-block-size": size},
                                 f"bitmap v2 index-block-size={_size_label(size, DEFAULT_INDEX_BLOCK_SIZE)}"))
    if wanted(RANGE_BITMAP):
        if dtype.root in _SMALL_KEYS:
            out.append(Candidate(column, RANGE_BITMAP, {}, "range-bitmap chunk-size=0b (default)"))
        else:
            for size in chunk_sizes:
                out.append(Candidate(column, RANGE_BITMAP, {"chunk-size": size},
                                     f"range-bitmap chunk-size={_size_label(size, DEFAULT_CHUNK_SIZE)}"))
    if wanted(BSI):
        out.append(Candidate(column, BSI, {}, "bsi"))
    if combinations and "eq" in kinds and supports(BLOOM_FILTER, dtype) and wanted(RANGE_BITMAP):
        items = round_up(max(per_file_distinct)) if len(per_file_distinct) else DEFAULT_BLOOM_ITEMS
        out.append(Candidate(column, f"{BLOOM_FILTER}+{RANGE_BITMAP}", {"fpp": "0.01", "items": str(items)},
                             f"bloom-filter fpp=0.01 items={items} + range-bitmap",
                             also=(IndexSpec(column, RANGE_BITMAP, {}),)))
    return out


def predicate_kinds(predicates: Iterable[Predicate | None]) -> dict[str, frozenset[str]]:
    """Column -> the kinds of leaves (``eq``, ``neq``, ``null``, ``range``, ``pattern``) on it."""
    found: dict[str, set[str]] = {}
    for p in predicates:
        if p is None:
            continue
        for leaf in leaves(p):
            if isinstance(leaf, LeafPredicate) and leaf.function in FUNCTION_KINDS:
                found.setdefault(leaf.field, set()).add(FUNCTION_KINDS[leaf.function])
    return {c: frozenset(k) for c, k in found.items()}


def threshold_choices(container_sizes: Sequence[int] = ()) -> list[int]:
    """``file-index.in-manifest-threshold`` values (bytes) to compare, ascending.

    :data:`THRESHOLDS` plus, given the container sizes of a candidate, their median and maximum
    (the smallest threshold that embeds half of the files / every file).
    """
    out = set(THRESHOLDS)
    sizes = sorted(s for s in container_sizes if s > 0)
    if sizes:
        out.add(sizes[(len(sizes) - 1) // 2])
        out.add(sizes[-1])
    return sorted(out)
