"""Min/max/null-count pruning of a batch of files at once: :func:`~.stats.compile_stats_test` on arrays.

:func:`compile_stats_mask` compiles a predicate once; the :data:`StatsMask` it returns takes the
value stats of many files (:class:`StatsColumns`) and gives one numpy bool per file. The contract:
``compile_stats_mask(p, fields)(cols)[k] == compile_stats_test(p, fields)(row_counts[k], stats[k], {})``
for every file ``k``, bit for bit (Paimon's semantics are stated in :mod:`.stats`).

A leaf whose literals compare directly (``_direct``: str on non-float columns, int on integer-like
columns and DECIMAL, Decimal on DECIMAL) on a column whose known bounds all have the literal's exact
Python type is computed with numpy on object arrays (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``,
BETWEEN, NOT BETWEEN, IN, NOT IN); IS [NOT] NULL, null literals and the functions stats cannot
decide need no comparison at all. Any other leaf (float columns, bytes, timestamps, mixed types,
StartsWith) runs the scalar :data:`~.stats.stats_tester` file by file, and only on the files that
And/Or still need, as the scalar test's short-circuit does (so it raises where that one raises).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from decimal import Decimal
from functools import cached_property, partial
from itertools import chain, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from ..metadata.stats import ColumnStats
from ..predicate.model import VISIT_METHODS, CompoundPredicate, LeafPredicate, Predicate
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataField
from .stats import UNKNOWN, _column_slots, _direct, stats_tester

Mask = npt.NDArray[np.bool_]
Objects = npt.NDArray[np.object_]

_IS_NONE = partial(operator.is_, None)
_MIN, _MAX, _NC = operator.attrgetter("min"), operator.attrgetter("max"), operator.attrgetter("null_count")
_PLACEHOLDER: dict[type, Any] = {int: 0, str: "", Decimal: Decimal(0)}


class _Column:
    """One column of every file and what leaves derive from it, each computed on first use."""

    def __init__(self, entries: list[ColumnStats], row_counts: list[int]) -> None:
        self.entries, self.row_counts, self.n = entries, row_counts, len(entries)
        self.mins, self.maxs = list(map(_MIN, entries)), list(map(_MAX, entries))
        self.null_counts = list(map(_NC, entries))

    def _flags(self, test: Callable[..., Any], *columns: Iterable[Any]) -> Mask:
        return np.fromiter(map(test, *columns), bool, self.n)

    @cached_property
    def unknown(self) -> Mask:
        """Min or max unknown."""
        return self._flags(_IS_NONE, self.mins) | self._flags(_IS_NONE, self.maxs)

    @cached_property
    def all_null(self) -> Mask:
        """Null count known and equal to the row count."""
        return self._flags(operator.eq, self.null_counts, self.row_counts)

    @cached_property
    def nc_none(self) -> Mask:
        return self._flags(_IS_NONE, self.null_counts)

    @cached_property
    def types(self) -> set[type]:
        """The Python types of the known mins and maxs."""
        kinds = set(map(type, self.mins))
        kinds.update(map(type, self.maxs))
        kinds.discard(type(None))
        return kinds

    @cached_property
    def finite(self) -> bool:
        """Every known bound is a finite Decimal (no NaN, whose comparisons raise)."""
        return all(x.is_finite() for x in chain(self.mins, self.maxs) if x is not None)

    @cached_property
    def bounds(self) -> tuple[Objects, Objects]:
        """Mins and maxs as object arrays, None replaced by a value of their one type."""
        (kind,) = self.types
        fill = _PLACEHOLDER[kind]
        mn, mx = ([fill if x is None else x for x in values] for values in (self.mins, self.maxs))
        return np.fromiter(mn, object, self.n), np.fromiter(mx, object, self.n)

    def null_test(self, is_null: bool) -> Mask:
        """``IsNull`` (some null) or ``IsNotNull`` (some value): vague stats keep the file."""
        counts = [0 if x is None else x for x in self.null_counts]
        decided = (self._flags(operator.gt, counts, repeat(0, self.n)) if is_null
                   else self._flags(operator.lt, counts, self.row_counts))
        return self.nc_none | (self.unknown & ~self.all_null) | decided


class StatsColumns:
    """The value stats of a batch of files, gathered column by column on first use.

    ``stats[k]`` is file ``k``'s stats aligned with the fields the masks are compiled for (possibly
    shorter: a missing column has unknown stats), ``row_counts[k]`` its row count. A column is
    gathered once and kept, and so is each leaf's mask (per leaf object): the predicate and its data
    filter share leaves and columns.
    """

    def __init__(self, stats: Sequence[Sequence[ColumnStats]], row_counts: Sequence[int]) -> None:
        if len(stats) != len(row_counts):
            raise ValueError(f"{len(stats)} stats for {len(row_counts)} row counts")
        self.stats, self.row_counts, self.n = stats, list(row_counts), len(row_counts)
        self._columns: dict[tuple[int, ...], _Column] = {}
        # (id(leaf), slots) -> (leaf, mask, which files the mask holds: None for all)
        self._masks: dict[tuple[int, tuple[int, ...]], tuple[LeafPredicate, Mask, Mask | None]] = {}

    def forget_masks(self) -> None:
        """Drop the leaf masks (kept per leaf object): the columns stay for the next predicate's leaves."""
        self._masks.clear()

    @cached_property
    def _min_len(self) -> int:
        return min(map(len, self.stats), default=0)

    def column(self, slots: tuple[int, ...]) -> _Column:
        """The column taken from the first of ``slots`` each file's stats reach (else unknown)."""
        got = self._columns.get(slots)
        if got is None:
            if slots and self._min_len > slots[0]:  # every file has it at the first slot
                first = slots[0]
                entries = [s[first] for s in self.stats]
            else:
                entries = [next((s[j] for j in slots if j < len(s)), UNKNOWN) for s in self.stats]
            got = self._columns[slots] = _Column(entries, self.row_counts)
        return got

    def leaf_mask(self, leaf: LeafPredicate, slots: tuple[int, ...], vector: _Vector, need: Mask | None) -> Mask:
        """The leaf's answers, exact at least where ``need`` is set (everywhere when None)."""
        key = (id(leaf), slots)
        got = self._masks.get(key)
        if got is None:
            answer = vector(self.column(slots))
            if answer is not None:
                self._masks[key] = (leaf, answer, None)
                return answer
            got = self._masks[key] = (leaf, np.zeros(self.n, bool), np.zeros(self.n, bool))
        _, mask, done = got
        if done is None:
            return mask
        todo = np.flatnonzero(~done if need is None else need & ~done)
        if todo.size:
            test, col, rcs = stats_tester(leaf), self.column(slots), self.row_counts
            mask[todo] = [test(rcs[k], col.entries[k]) for k in todo.tolist()]
            done[todo] = True
            if done.all():
                self._masks[key] = (leaf, mask, None)
        return mask


_Vector = Callable[[_Column], "Mask | None"]
"""A leaf's mask on a column, or None when the column needs the scalar test."""

_Decide = Callable[[_Column], Mask]
"""A leaf function on known bounds (``_Column.bounds``), any answer where a bound is unknown."""


def _listed(lits: list[Any], negate: bool, mn: Objects, mx: Objects) -> Mask:
    """IN: some literal (sorted, distinct) lies in [min, max]; NOT IN: none equals both min and max."""
    table = np.fromiter(lits, object, len(lits))
    at = np.searchsorted(table, mn)  # the least literal >= min, if any
    found, nearest = at < len(lits), table[np.minimum(at, len(lits) - 1)]
    return ~((mn == mx) & found & (nearest == mn)) if negate else found & (nearest <= mx)


def _decide(function: str, lits: Sequence[Any]) -> _Decide | None:
    """The numpy form of the leaf function on known bounds (:class:`~.stats._FastChecks`, and
    ``<>``, NOT BETWEEN, IN and NOT IN as :class:`~.stats._StatsTests` has them); None for StartsWith.
    ``lits`` have one Python type and, but for IN and NOT IN, no null."""
    first, last = (lits[0], lits[-1]) if lits else (None, None)
    known: list[Any] = []
    if function in ("In", "NotIn"):
        known = sorted(set(x for x in lits if x is not None))
        if (function == "In" and not known) or (function == "NotIn" and any(map(_IS_NONE, lits))):
            return lambda col: np.zeros(col.n, bool)  # no literal to match / NOT IN with a null literal
        if not known:  # NOT IN ()
            return lambda col: np.ones(col.n, bool)
        if len(known) == 1:  # IN (a): a in [min, max]; NOT IN (a): min <> a or max <> a
            function, first = ("Equal" if function == "In" else "NotEqual"), known[0]
    a, b = np.array(first, dtype=object), np.array(last, dtype=object)  # 0-d: compared as objects
    ranges: dict[str, Callable[[Objects, Objects], Mask]] = {
        "Equal": lambda mn, mx: (mn <= a) & (mx >= a), "NotEqual": lambda mn, mx: (mn != a) | (mx != a),
        "LessThan": lambda mn, mx: mn < a, "LessOrEqual": lambda mn, mx: mn <= a,
        "GreaterThan": lambda mn, mx: mx > a, "GreaterOrEqual": lambda mn, mx: mx >= a,
        "Between": lambda mn, mx: (mx >= a) & (mn <= b), "NotBetween": lambda mn, mx: (mn < a) | (mx > b),
        "In": partial(_listed, known, False), "NotIn": partial(_listed, known, True)}
    decide = ranges.get(function)
    return None if decide is None else (lambda col: decide(*col.bounds))


def _vector(leaf: LeafPredicate) -> _Vector:
    """The leaf's mask on a column as :data:`~.stats.stats_tester` gives it file by file."""
    function, lits = leaf.function, leaf.literals
    arity = VISIT_METHODS[function][1]
    if arity > 0:
        if len(lits) < arity:  # visit_function's missing: keep every file
            return lambda col: np.ones(col.n, bool)
        lits = lits[:arity]
    if function in ("IsNull", "IsNotNull"):
        is_null = function == "IsNull"
        return lambda col: col.null_test(is_null)
    if arity > 0 and any(map(_IS_NONE, lits)):  # unknown bounds: keep unless all null; else null count unknown
        return lambda col: np.where(col.unknown, ~col.all_null, col.nc_none)
    if function in ("EndsWith", "Contains", "Like"):
        return lambda col: ~col.all_null
    known = [x for x in lits if x is not None]
    kinds = set(map(type, known))
    if (len(kinds) > 1 or not all(_direct(x, leaf.type) for x in known)
            or (Decimal in kinds and not all(x.is_finite() for x in known))):
        return lambda col: None
    decide = _decide(function, lits)
    if decide is None:
        return lambda col: None
    kind = next(iter(kinds), None)

    def vector(col: _Column) -> Mask | None:
        if not col.types:  # no known bound anywhere
            return ~col.all_null
        if kind is not None and (col.types != {kind} or (kind is Decimal and not col.finite)):
            return None
        return ~col.all_null & (col.unknown | decide(col))
    return vector


_Node = Callable[[StatsColumns, "Mask | None"], Mask]
"""A compiled predicate: its answers, exact at least where the given mask is set (everywhere when None)."""


class _MaskCompiler(PredicateVisitor[_Node]):
    def __init__(self, fields: Sequence[DataField]) -> None:
        self.fields = fields

    def visit_leaf(self, leaf: LeafPredicate) -> _Node:
        slots, vector = tuple(dict.fromkeys(_column_slots(leaf, self.fields))), _vector(leaf)
        return lambda cols, need: cols.leaf_mask(leaf, slots, vector, need)

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[_Node]) -> _Node:
        nodes = list(children)

        def mask_and(cols: StatsColumns, need: Mask | None) -> Mask:
            out = need
            for child in nodes:  # each child only where all before it held, as all() does
                got = child(cols, out)
                out = got if out is None else out & got
                if not out.any():
                    break
            return np.ones(cols.n, bool) if out is None else out
        return mask_and

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[_Node]) -> _Node:
        nodes = list(children)

        def mask_or(cols: StatsColumns, need: Mask | None) -> Mask:
            out, pending = np.zeros(cols.n, bool), need
            for child in nodes:  # each child only where none before it held, as any() does
                got = child(cols, pending)
                out = out | (got if pending is None else got & pending)
                pending = ~out if need is None else need & ~out
                if not pending.any():
                    break
            return out
        return mask_or


def _compile(predicate: Predicate, fields: Sequence[DataField]) -> _Node:
    return visit(predicate, _MaskCompiler(fields))


StatsMask = Callable[[StatsColumns], Mask]
"""``(stats columns) -> bool per file``: a predicate compiled by :func:`compile_stats_mask`."""


def compile_stats_mask(predicate: Predicate, fields: Sequence[DataField]) -> StatsMask:
    """``predicate`` as a function of a batch of files' stats (:class:`StatsColumns`, aligned with
    ``fields``) giving, per file, what ``compile_stats_test(predicate, fields)`` gives: False when
    the stats prove that no row can match. Compile once per predicate and row type."""
    node = _compile(predicate, fields)
    return lambda cols: np.array(node(cols, None), dtype=bool)
