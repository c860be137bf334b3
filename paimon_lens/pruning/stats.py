"""Min/max/null-count pruning: Paimon's ``Predicate.test(rowCount, min, max, nullCounts)``.

Semantics, as in Paimon 2.0.0 (``LeafPredicate``, ``LeafFunction`` and its subclasses). 0.9.0 is
the same for the functions it has (no ``EndsWith``, ``Contains``, ``Like``, ``Between`` leaves;
its ``NullFalseLeafBinaryFunction`` is 2.0's ``LeafBinaryFunction``), except that it compared
``byte[]`` as signed bytes:

* ``LeafPredicate``: when the null count is unknown or not every row is null, and min or max is
  unknown, the file is kept. Otherwise (known stats, or an all-null file with whatever min/max)
  the leaf function decides;
* ``IsNull``: kept unless the null count is known to be 0; ``IsNotNull``: kept unless every row is
  null (a file of 0 rows with null count 0 answers false to both);
* binary functions (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``StartsWith``, ``EndsWith``,
  ``Contains``, ``Like``) and ``Between``: false when the null count is known and every row is
  null or a literal is null; then ``=`` tests ``min <= lit <= max``, ``<>`` ``min != lit or
  max != lit``, ``<`` ``min < lit``, ``<=`` ``min <= lit``, ``>`` ``max > lit``, ``>=`` ``max >=
  lit``, ``Between(a, b)`` ``a <= max and b >= min``, ``StartsWith(p)`` ``(min starts with p or
  min <= p) and (max starts with p or max >= p)``; ``EndsWith``, ``Contains`` and ``Like`` always
  keep;
* ``In``: false for an all-null file, else true when some non-null literal lies in
  ``[min, max]``; ``NotIn``: false for an all-null file or when a literal is null, or when some
  literal equals both min and max;
* ``And``/``Or`` evaluate their children left to right.

Comparisons follow Java (:func:`~paimon_lens.pruning.compare.java_compare`): ``-0.0 < 0.0`` and
``NaN`` above everything, strings by UTF-8 bytes. Truncated string stats (``truncate(N)``) are
plain bounds here: a truncated minimum is a prefix (a lower bound), a truncated maximum was
incremented into an upper bound, so the test stays safe.

Where paimon-lens differs: with an unknown null count, known min/max and a null literal, Paimon
throws (``compareLiteral`` of null); :func:`stats_test` keeps the file instead.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from functools import partial
from typing import Any

from ..metadata.stats import ColumnStats
from ..predicate.model import (
    CompoundPredicate,
    DefaultFunctionVisitor,
    LeafMemo,
    LeafPredicate,
    Predicate,
    visit_function,
)
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataField, DataType
from ..values import to_json
from .compare import java_compare

UNKNOWN = ColumnStats(None, None, None)


def _column(leaf: LeafPredicate, stats: Sequence[ColumnStats], fields: Sequence[DataField]) -> ColumnStats:
    """The stats of the leaf's column: by position when the name matches there, else by name."""
    i = leaf.index
    if 0 <= i < len(fields) and fields[i].name == leaf.field and i < len(stats):
        return stats[i]
    for j, f in enumerate(fields):
        if f.name == leaf.field and j < len(stats):
            return stats[j]
    return UNKNOWN


def _starts_with_keep(mn: Any, mx: Any, prefix: Any, t: DataType) -> bool:
    def enc(v: Any) -> bytes:
        return v.encode("utf-8", "surrogatepass") if isinstance(v, str) else bytes(v)

    p = enc(prefix)
    return ((enc(mn).startswith(p) or java_compare(mn, prefix, t) <= 0)
            and (enc(mx).startswith(p) or java_compare(mx, prefix, t) >= 0))


LeafStatsTest = Callable[[int, ColumnStats], bool]
"""``(row_count, column stats) -> bool``: one leaf's stats test (:func:`stats_tester`)."""


def _keep(row_count: int, col: ColumnStats) -> bool:
    return True


class _StatsTests:
    """Paimon's ``LeafPredicate.test(rowCount, min, max, nullCounts)`` as a
    :class:`~paimon_lens.predicate.model.FunctionVisitor`: a leaf's literals -> the test of one
    file's row count and column stats. Every test starts with the leaf's own rule: unknown min or
    max keeps the file unless every row is null."""

    def __init__(self, dtype: DataType) -> None:
        self.t = dtype

    @staticmethod
    def _range(lits: Sequence[Any], decide: Callable[[Any, Any], bool]) -> LeafStatsTest:
        """A binary or ternary function: no row of an all-null file and no null literal matches."""
        lit_null = _has_null(lits)

        def test(row_count: int, col: ColumnStats) -> bool:
            nc, mn, mx = col.null_count, col.min, col.max
            if mn is None or mx is None:
                return nc is None or nc != row_count
            if nc is not None and (nc == row_count or lit_null):
                return False
            if lit_null:
                return True  # Paimon throws here (compareLiteral of null); keep the file
            return decide(mn, mx)
        return test

    def visit_is_null(self) -> LeafStatsTest:
        def test(row_count: int, col: ColumnStats) -> bool:
            nc = col.null_count
            if nc is None or (nc != row_count and (col.min is None or col.max is None)):
                return True
            return nc > 0
        return test

    def visit_is_not_null(self) -> LeafStatsTest:
        def test(row_count: int, col: ColumnStats) -> bool:
            nc = col.null_count
            if nc is None or (nc != row_count and (col.min is None or col.max is None)):
                return True
            return nc < row_count
        return test

    def visit_equal(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mn, t) >= 0 and java_compare(lit, mx, t) <= 0)

    def visit_not_equal(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mn, t) != 0 or java_compare(lit, mx, t) != 0)

    def visit_less_than(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mn, t) > 0)

    def visit_less_or_equal(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mn, t) >= 0)

    def visit_greater_than(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mx, t) < 0)

    def visit_greater_or_equal(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: java_compare(lit, mx, t) <= 0)

    def visit_starts_with(self, lit: Any) -> LeafStatsTest:
        t = self.t
        return self._range((lit,), lambda mn, mx: _starts_with_keep(mn, mx, lit, t))

    def visit_ends_with(self, lit: Any) -> LeafStatsTest:
        return self._range((lit,), lambda mn, mx: True)  # stats cannot decide

    def visit_contains(self, lit: Any) -> LeafStatsTest:
        return self._range((lit,), lambda mn, mx: True)

    def visit_like(self, lit: Any) -> LeafStatsTest:
        return self._range((lit,), lambda mn, mx: True)

    def visit_between(self, low: Any, high: Any) -> LeafStatsTest:
        t = self.t
        return self._range((low, high), lambda mn, mx: java_compare(low, mx, t) <= 0 and java_compare(high, mn, t) >= 0)

    def visit_not_between(self, low: Any, high: Any) -> LeafStatsTest:
        t = self.t
        return self._range((low, high), lambda mn, mx: java_compare(low, mn, t) > 0 or java_compare(high, mx, t) < 0)

    @staticmethod
    def _list(decide: Callable[[Any, Any], bool]) -> LeafStatsTest:
        """``In`` / ``NotIn``: no row of an all-null file matches; unknown bounds keep the file."""
        def test(row_count: int, col: ColumnStats) -> bool:
            nc, mn, mx = col.null_count, col.min, col.max
            if nc is not None and nc == row_count:
                return False
            if mn is None or mx is None:
                return True
            return decide(mn, mx)
        return test

    def visit_in(self, lits: Sequence[Any]) -> LeafStatsTest:
        t = self.t
        return self._list(lambda mn, mx: any(
            lit is not None and java_compare(lit, mn, t) >= 0 and java_compare(lit, mx, t) <= 0 for lit in lits))

    def visit_not_in(self, lits: Sequence[Any]) -> LeafStatsTest:
        t = self.t
        return self._list(lambda mn, mx: not any(
            lit is None or (java_compare(lit, mn, t) == 0 and java_compare(lit, mx, t) == 0) for lit in lits))


def _build_stats_tester(leaf: LeafPredicate) -> LeafStatsTest:
    """``LeafPredicate.test(rowCount, min, max, nullCounts)`` of ``leaf`` as a function of one file's
    row count and column stats (built once per leaf)."""
    return visit_function(leaf, _StatsTests(leaf.type), _keep)


stats_tester: LeafMemo[LeafStatsTest] = LeafMemo(_build_stats_tester)
"""``LeafPredicate.test(rowCount, min, max, nullCounts)`` of a leaf as a function of one file's row
count and column stats (built once per leaf object)."""


def leaf_stats_test(leaf: LeafPredicate, row_count: int, col: ColumnStats) -> bool:
    """``LeafPredicate.test(rowCount, min, max, nullCounts)`` for one leaf and its column's stats."""
    return stats_tester(leaf)(row_count, col)


_IS_NONE = partial(operator.is_, None)


def _has_null(literals: Sequence[Any]) -> bool:
    """Whether a literal is None (``any(lit is None ...)`` without a generator)."""
    return any(map(_IS_NONE, literals))


def stats_test(predicate: Predicate, row_count: int, stats: Sequence[ColumnStats],
               fields: Sequence[DataField], memo: dict[int, bool] | None = None) -> bool:
    """Whether a file with these stats may hold rows matching ``predicate`` (Paimon's ``Predicate.test``).

    Args:
        predicate: a predicate bound to ``fields``.
        row_count: the file's row count.
        stats: one :class:`ColumnStats` per field of ``fields`` (``None`` where unknown).
        fields: the row type the stats and the predicate refer to.
        memo: optional answers of leaves already tested on the same file, stats and fields, keyed
            by ``id(leaf)`` (filled as leaves are tested); the caller keeps the leaves alive
            while it uses the memo.

    Returns:
        False when the stats prove that no row can match (the file is pruned), else True.
    """
    return visit(predicate, _StatsTester(row_count, stats, fields, memo))


class _StatsTester(PredicateVisitor[bool]):
    def __init__(self, row_count: int, stats: Sequence[ColumnStats], fields: Sequence[DataField],
                 memo: dict[int, bool] | None) -> None:
        self.args = row_count, stats, fields, memo

    def visit_leaf(self, leaf: LeafPredicate) -> bool:
        row_count, stats, fields, memo = self.args
        if memo is None:
            return leaf_stats_test(leaf, row_count, _column(leaf, stats, fields))
        got = memo.get(id(leaf))
        if got is None:
            got = memo[id(leaf)] = leaf_stats_test(leaf, row_count, _column(leaf, stats, fields))
        return got

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
        return all(children)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
        return any(children)


# ---- reasons ----------------------------------------------------------------------------------

def fmt_value(value: Any, dtype: DataType) -> str:
    """A value as it reads in a reason: numbers plain, strings quoted, dates and timestamps ISO."""
    if value is None:
        return "NULL"
    shown = to_json(value, dtype)
    if dtype.is_string:
        return "'" + str(shown).replace("'", "''") + "'"
    if dtype.is_binary:
        return f"X'{shown}'"
    if isinstance(shown, bool):
        return "TRUE" if shown else "FALSE"
    if dtype.root in ("DATE", "TIME") or dtype.is_timestamp:
        return f"'{shown}'"
    return str(shown)


def _leaf_reason(leaf: LeafPredicate, row_count: int, col: ColumnStats) -> str:
    f, lits = leaf.field, leaf.literals
    mn, mx, nc = col.min, col.max, col.null_count
    if leaf.function == "IsNull":
        return f"null_count({f}) = 0"
    if nc is not None and nc == row_count:
        return f"{f}: all {row_count} rows null"
    if leaf.function == "IsNotNull":  # pragma: no cover - only false for all-null files
        return f"{f}: all {row_count} rows null"
    if any(lit is None for lit in lits) and leaf.function not in ("In",):
        return f"{leaf.function}({f}) with a NULL literal matches no row"
    return reason_of(leaf)(mn, mx)


Reason = Callable[[Any, Any], str]
"""``(min, max) -> why``: the reason a leaf's stats test is false on a file with these bounds."""


class _Reasons(DefaultFunctionVisitor["Reason | None"]):
    """Why a leaf's stats test is false (min and max known, no null literal), built once per leaf:
    its literals are formatted here, the file's bounds when a file is explained."""

    def __init__(self, field: str, dtype: DataType) -> None:
        self.f, self.t = field, dtype

    def otherwise(self) -> Reason | None:
        return None

    def _fmt(self, value: Any) -> str:
        return fmt_value(value, self.t)

    def visit_equal(self, lit: Any) -> Reason | None:
        f, t, fmt, v = self.f, self.t, self._fmt, self._fmt(lit)
        return lambda mn, mx: (f"min({f}) = {fmt(mn)} > {v}" if java_compare(lit, mn, t) < 0
                               else f"max({f}) = {fmt(mx)} < {v}")

    def visit_less_than(self, lit: Any) -> Reason | None:
        f, fmt, v = self.f, self._fmt, self._fmt(lit)
        return lambda mn, mx: f"min({f}) = {fmt(mn)} >= {v}"

    def visit_less_or_equal(self, lit: Any) -> Reason | None:
        f, fmt, v = self.f, self._fmt, self._fmt(lit)
        return lambda mn, mx: f"min({f}) = {fmt(mn)} > {v}"

    def visit_greater_than(self, lit: Any) -> Reason | None:
        f, fmt, v = self.f, self._fmt, self._fmt(lit)
        return lambda mn, mx: f"max({f}) = {fmt(mx)} <= {v}"

    def visit_greater_or_equal(self, lit: Any) -> Reason | None:
        f, fmt, v = self.f, self._fmt, self._fmt(lit)
        return lambda mn, mx: f"max({f}) = {fmt(mx)} < {v}"

    def visit_not_equal(self, lit: Any) -> Reason | None:
        text = f"min({self.f}) = max({self.f}) = {self._fmt(lit)}"
        return lambda mn, mx: text

    def visit_in(self, lits: Sequence[Any]) -> Reason | None:
        f, fmt = self.f, self._fmt
        shown = ", ".join(fmt(x) for x in lits)
        return lambda mn, mx: f"no value of IN ({shown}) in [min, max]({f}) = [{fmt(mn)}, {fmt(mx)}]"

    def visit_not_in(self, lits: Sequence[Any]) -> Reason | None:
        f, fmt = self.f, self._fmt
        return lambda mn, mx: f"min({f}) = max({f}) = {fmt(mn)}, which NOT IN excludes"

    def visit_between(self, low: Any, high: Any) -> Reason | None:
        f, fmt, lo, hi = self.f, self._fmt, self._fmt(low), self._fmt(high)
        return lambda mn, mx: f"[min, max]({f}) = [{fmt(mn)}, {fmt(mx)}] misses [{lo}, {hi}]"

    def visit_not_between(self, low: Any, high: Any) -> Reason | None:
        f, fmt, lo, hi = self.f, self._fmt, self._fmt(low), self._fmt(high)
        return lambda mn, mx: f"[min, max]({f}) = [{fmt(mn)}, {fmt(mx)}] lies inside [{lo}, {hi}]"

    def visit_starts_with(self, lit: Any) -> Reason | None:
        f, fmt, v = self.f, self._fmt, self._fmt(lit)
        return lambda mn, mx: f"no string in [min, max]({f}) = [{fmt(mn)}, {fmt(mx)}] starts with {v}"


def _build_reason(leaf: LeafPredicate) -> Reason:
    reason = visit_function(leaf, _Reasons(leaf.field, leaf.type), None)
    if reason is None:  # pragma: no cover - the tests of the other functions never prune
        text = f"{leaf.function}({leaf.field}) is false on the stats"
        return lambda mn, mx: text
    return reason


reason_of: LeafMemo[Reason] = LeafMemo(_build_reason)
"""The :data:`Reason` of a leaf (built once per leaf object)."""


def stats_reason(predicate: Predicate, row_count: int, stats: Sequence[ColumnStats],
                 fields: Sequence[DataField], memo: dict[int, bool] | None = None) -> str | None:
    """Why :func:`stats_test` prunes the file, in a few words; None when it keeps it.

    Examples: ``"max(score) = 87 < 95"``, ``"country: all 12 rows null"``, ``"min(id) = 5030 >
    1004"``. For ``And`` the first false child explains; for ``Or`` every child's reason is given,
    joined by ``" and "``. ``memo`` is as for :func:`stats_test`.
    """
    return visit(predicate, _StatsReason(row_count, stats, fields, memo))


class _StatsReason(PredicateVisitor["str | None"]):
    """The reason of each node the stats prune (None where they keep it)."""

    def __init__(self, row_count: int, stats: Sequence[ColumnStats], fields: Sequence[DataField],
                 memo: dict[int, bool] | None) -> None:
        self.args = row_count, stats, fields, memo

    def visit_leaf(self, leaf: LeafPredicate) -> str | None:
        if stats_test(leaf, *self.args):
            return None
        return _leaf_reason(leaf, self.args[0], _column(leaf, self.args[1], self.args[2]))

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[str | None]) -> str | None:
        if stats_test(predicate, *self.args):
            return None
        for r in children:  # the first child that prunes explains
            if r is not None:
                return r
        raise AssertionError("an AND the stats prune has a child they prune")

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[str | None]) -> str | None:
        if stats_test(predicate, *self.args):
            return None
        reasons = list(children)
        return _or_reason([r for r in reasons if r is not None])


def _or_reason(parts: list[str]) -> str:
    return " and ".join(f"({r})" if len(parts) > 1 else r for r in parts)


# ---- compiled tests ---------------------------------------------------------------------------

StatsTest = Callable[[int, Sequence[ColumnStats], dict[int, bool]], bool]
"""``(row_count, stats, memo) -> bool``: a predicate compiled by :func:`compile_stats_test`."""

_DIRECT_ROOTS = {str: None, int: frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "DECIMAL"}),
                 Decimal: frozenset({"DECIMAL"})}


def _direct(lit: Any, dtype: DataType) -> bool:
    """Whether :func:`java_compare` of ``lit`` with a value of the same Python type is plain ``<``/``>``."""
    kind = type(lit)
    if kind is str:
        return dtype.root not in ("FLOAT", "DOUBLE")
    roots = _DIRECT_ROOTS.get(kind)
    return roots is not None and dtype.root in roots


def _column_slots(leaf: LeafPredicate, fields: Sequence[DataField]) -> tuple[int, ...]:
    """The positions :func:`_column` may take the leaf's stats from, in the order it tries them."""
    i = leaf.index
    first = (i,) if 0 <= i < len(fields) and fields[i].name == leaf.field else ()
    return first + tuple(j for j, f in enumerate(fields) if f.name == leaf.field)


class _FastChecks(DefaultFunctionVisitor["Callable[[Any, Any], bool] | None"]):
    """``(min, max) -> keep`` of the range functions, comparing directly when min and max have the
    literal's Python type (else with ``java_compare``); None for the other functions."""

    def __init__(self, dtype: DataType) -> None:
        self.t = dtype

    def otherwise(self) -> Callable[[Any, Any], bool] | None:
        return None

    def visit_equal(self, lo: Any) -> Callable[[Any, Any], bool] | None:
        t, kind = self.t, type(lo)

        def check(mn: Any, mx: Any) -> bool:
            if type(mn) is kind and type(mx) is kind:
                return bool(mn <= lo <= mx)
            return java_compare(lo, mn, t) >= 0 and java_compare(lo, mx, t) <= 0
        return check

    def visit_between(self, lo: Any, hi: Any) -> Callable[[Any, Any], bool] | None:
        t, kind_lo, kind_hi = self.t, type(lo), type(hi)

        def check(mn: Any, mx: Any) -> bool:
            if type(mn) is kind_hi and type(mx) is kind_lo:
                return bool(lo <= mx and hi >= mn)
            return java_compare(lo, mx, t) <= 0 and java_compare(hi, mn, t) >= 0
        return check

    def visit_less_than(self, lo: Any) -> Callable[[Any, Any], bool] | None:
        t, kind = self.t, type(lo)
        return lambda mn, mx: bool(lo > mn) if type(mn) is kind else java_compare(lo, mn, t) > 0

    def visit_less_or_equal(self, lo: Any) -> Callable[[Any, Any], bool] | None:
        t, kind = self.t, type(lo)
        return lambda mn, mx: bool(lo >= mn) if type(mn) is kind else java_compare(lo, mn, t) >= 0

    def visit_greater_than(self, lo: Any) -> Callable[[Any, Any], bool] | None:
        t, kind = self.t, type(lo)
        return lambda mn, mx: bool(lo < mx) if type(mx) is kind else java_compare(lo, mx, t) < 0

    def visit_greater_or_equal(self, lo: Any) -> Callable[[Any, Any], bool] | None:
        t, kind = self.t, type(lo)
        return lambda mn, mx: bool(lo <= mx) if type(mx) is kind else java_compare(lo, mx, t) <= 0


def _compile_leaf(leaf: LeafPredicate, fields: Sequence[DataField]) -> StatsTest:
    slots = _column_slots(leaf, fields)
    key = id(leaf)
    lits, t = leaf.literals, leaf.type
    general = stats_tester(leaf)

    def column(stats: Sequence[ColumnStats]) -> ColumnStats:
        n = len(stats)
        for j in slots:
            if j < n:
                return stats[j]
        return UNKNOWN

    check: Callable[[Any, Any], bool] | None = None
    if not _has_null(lits) and all(_direct(x, t) for x in lits):
        # the leaf function on known, non-null stats, with java_compare's plain comparison whenever
        # min and max have the literal's Python type (else java_compare itself)
        check = visit_function(leaf, _FastChecks(t), None)

    if check is None:
        def test(row_count: int, stats: Sequence[ColumnStats], memo: dict[int, bool]) -> bool:
            got = memo.get(key)
            if got is None:
                got = memo[key] = general(row_count, column(stats))
            return got
        return test

    fast = check

    def test_range(row_count: int, stats: Sequence[ColumnStats], memo: dict[int, bool]) -> bool:
        got = memo.get(key)
        if got is None:
            col = column(stats)
            mn, mx, nc = col.min, col.max, col.null_count
            if mn is None or mx is None:  # leaf_stats_test: unknown bounds keep, unless all rows are null
                got = (nc is None or nc != row_count) or False
            elif nc is not None and nc == row_count:
                got = False
            else:
                got = fast(mn, mx)
            memo[key] = got
        return got
    return test_range


def compile_stats_test(predicate: Predicate, fields: Sequence[DataField]) -> StatsTest:
    """``predicate`` as a function ``(row_count, stats, memo) -> bool`` equal to
    ``stats_test(predicate, row_count, stats, fields, memo)`` (the same answers, the same memo
    entries), with the per-leaf work that does not depend on the file (column position, literal
    checks, comparison kind) done once. Compile once per predicate and row type, call per file."""
    return visit(predicate, _StatsTestCompiler(fields))


class _StatsTestCompiler(PredicateVisitor[StatsTest]):
    def __init__(self, fields: Sequence[DataField]) -> None:
        self.fields = fields

    def visit_leaf(self, leaf: LeafPredicate) -> StatsTest:
        return _compile_leaf(leaf, self.fields)

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[StatsTest]) -> StatsTest:
        tests = tuple(children)

        def test_and(row_count: int, stats: Sequence[ColumnStats], memo: dict[int, bool]) -> bool:
            for child in tests:  # noqa: SIM110 (a loop is cheaper than all() over a generator)
                if not child(row_count, stats, memo):
                    return False
            return True
        return test_and

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[StatsTest]) -> StatsTest:
        tests = tuple(children)

        def test_or(row_count: int, stats: Sequence[ColumnStats], memo: dict[int, bool]) -> bool:
            for child in tests:  # noqa: SIM110
                if child(row_count, stats, memo):
                    return True
            return False
        return test_or
