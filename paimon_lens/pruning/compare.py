"""Java comparison semantics and the row-level ``Predicate.test`` Paimon uses on partition values.

Paimon compares a literal with a value through ``CompareUtils.compareLiteral``: the literal's
``Comparable.compareTo`` (or an unsigned byte-wise comparison for ``byte[]``). The Python
equivalents differ in a few places that matter for pruning:

* ``Float``/``Double.compareTo`` is a total order: ``-0.0 < 0.0``, ``NaN`` equals itself and is
  greater than every other value (``+Infinity`` included);
* ``BinaryString.compareTo`` compares UTF-8 bytes unsigned (the same order as code points);
* ``byte[]`` compares unsigned byte-wise, then by length (Paimon 2.0; 0.9 compared signed bytes);
* ``Timestamp`` compares epoch millisecond, then nano-of-millisecond.

:func:`row_test` is ``Predicate.test(InternalRow)`` on plain values (a null value or a null
literal makes every comparison false), which the planner runs on each entry's partition.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..predicate.model import CompoundPredicate, LeafMemo, LeafPredicate, Predicate, visit_function
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataType

_SIGNED_BYTES: ContextVar[bool] = ContextVar("paimon_lens_signed_bytes", default=False)


def signed_binary_compare() -> bool:
    """Whether ``byte[]`` compares as signed bytes here (inside :func:`signed_binary_order` ``(True)``)."""
    return _SIGNED_BYTES.get()


@contextmanager
def signed_binary_order(signed: bool) -> Iterator[None]:
    """Within the block, ``byte[]`` compares as signed bytes, as Paimon before 2.0 compared them."""
    token = _SIGNED_BYTES.set(signed)
    try:
        yield
    finally:
        _SIGNED_BYTES.reset(token)


def java_key(value: Any, dtype: DataType) -> Any:
    """A Python sort key that orders ``value`` as Java's ``compareTo`` of its internal class does."""
    root = dtype.root
    if root in ("FLOAT", "DOUBLE"):
        f = float(value)
        if math.isnan(f):
            return (1, 0.0, 0)
        return (0, f, 1 if math.copysign(1.0, f) > 0 else 0)
    if dtype.is_string or isinstance(value, str):
        return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)
    if dtype.is_binary or isinstance(value, (bytes, bytearray, memoryview)):
        if _SIGNED_BYTES.get():  # x ^ 0x80 orders unsigned as x orders signed
            return bytes(b ^ 0x80 for b in bytes(value))
        return bytes(value)
    if dtype.is_timestamp:
        return (value.millisecond, value.nano_of_millisecond)
    if root == "DECIMAL":
        return value if isinstance(value, Decimal) else Decimal(str(value))
    if root == "BOOLEAN":
        return bool(value)
    return value


#: Roots whose ``int`` values :func:`java_key` leaves as they are (DECIMAL: same order as a Decimal).
_PLAIN_INT_ROOTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "DECIMAL"})
_FLOAT_ROOTS = frozenset({"FLOAT", "DOUBLE"})


def java_compare(a: Any, b: Any, dtype: DataType) -> int:
    """``CompareUtils.compareLiteral(type, a, b)``: negative, zero or positive.

    Two ``str`` (code point order is UTF-8 byte order), two ``int`` of an integer-like type, two
    ``Decimal`` of a DECIMAL, and two ``float`` that are neither NaN nor both zero compare
    directly (the order :func:`java_key` gives); everything else goes through :func:`java_key`.
    """
    ta = type(a)
    if ta is type(b):
        root = dtype.root
        if ta is str:
            if root not in _FLOAT_ROOTS:
                return (a > b) - (a < b)
        elif ta is int:
            if root in _PLAIN_INT_ROOTS:
                return (a > b) - (a < b)
        elif ta is float:
            if root in _FLOAT_ROOTS and a == a and b == b and (a != 0.0 or b != 0.0):
                return (a > b) - (a < b)
        elif ta is Decimal and root == "DECIMAL":
            return (a > b) - (a < b)
    ka, kb = java_key(a, dtype), java_key(b, dtype)
    return (ka > kb) - (ka < kb)


def _utf8(value: Any) -> bytes:
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)


@lru_cache(maxsize=256)
def like_regex(pattern: str, escape: str = "\\") -> re.Pattern[str]:
    """The regular expression Paimon's ``Like`` builds for an SQL LIKE pattern (``_`` and ``%``)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "_":
            out.append(".")
        elif c == "%":
            out.append("(?s:.*)")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


RowTest = Callable[[Any], bool]


def _never(value: Any) -> bool:
    return False


class _RowTests:
    """Paimon's ``LeafFunction.test(type, field, literals)`` as a :class:`FunctionVisitor` that
    returns, for a leaf's literals, the test of one value (built once per leaf)."""

    def __init__(self, dtype: DataType) -> None:
        self.t = dtype

    def visit_is_null(self) -> RowTest:
        return _is_none

    def visit_is_not_null(self) -> RowTest:
        return _is_not_none

    def _compare(self, lit: Any, ok: Callable[[int], bool]) -> RowTest:
        if lit is None:
            return _never
        t = self.t
        return lambda v: v is not None and ok(java_compare(lit, v, t))

    def visit_equal(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c == 0)

    def visit_not_equal(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c != 0)

    def visit_less_than(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c > 0)

    def visit_less_or_equal(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c >= 0)

    def visit_greater_than(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c < 0)

    def visit_greater_or_equal(self, literal: Any) -> RowTest:
        return self._compare(literal, lambda c: c <= 0)

    def _bytes(self, literal: Any, test: Callable[[bytes, bytes], bool]) -> RowTest:
        if literal is None:
            return _never
        p = _utf8(literal)
        return lambda v: v is not None and test(_utf8(v), p)

    def visit_starts_with(self, literal: Any) -> RowTest:
        return self._bytes(literal, bytes.startswith)

    def visit_ends_with(self, literal: Any) -> RowTest:
        return self._bytes(literal, bytes.endswith)

    def visit_contains(self, literal: Any) -> RowTest:
        return self._bytes(literal, lambda v, p: p in v)

    def visit_like(self, literal: Any) -> RowTest:
        if literal is None:
            return _never
        regex = like_regex(str(literal))
        return lambda v: v is not None and regex.fullmatch(str(v)) is not None

    def visit_between(self, low: Any, high: Any) -> RowTest:
        if low is None or high is None:
            return _never
        t = self.t
        return lambda v: v is not None and java_compare(low, v, t) <= 0 and java_compare(high, v, t) >= 0

    def visit_not_between(self, low: Any, high: Any) -> RowTest:
        if low is None or high is None:
            return _never
        t = self.t
        return lambda v: v is not None and (java_compare(low, v, t) > 0 or java_compare(high, v, t) < 0)

    def visit_in(self, literals: Sequence[Any]) -> RowTest:
        lits = [lit for lit in literals if lit is not None]  # a null literal matches nothing
        t = self.t
        return lambda v: v is not None and any(java_compare(lit, v, t) == 0 for lit in lits)

    def visit_not_in(self, literals: Sequence[Any]) -> RowTest:
        if any(lit is None for lit in literals):  # x NOT IN (.., NULL) is never true
            return _never
        t = self.t
        return lambda v: v is not None and all(java_compare(lit, v, t) != 0 for lit in literals)


def _is_none(value: Any) -> bool:
    return value is None


def _is_not_none(value: Any) -> bool:
    return value is not None


def _build_row_tester(leaf: LeafPredicate) -> RowTest:
    return visit_function(leaf, _RowTests(leaf.type), _never)


row_tester: LeafMemo[RowTest] = LeafMemo(_build_row_tester)
"""``LeafFunction.test(type, field, literals)`` of a leaf as a function of one value (built once
per leaf object)."""


def leaf_row_test(leaf: LeafPredicate, value: Any) -> bool:
    """``LeafFunction.test(type, field, literals)`` on one value."""
    return row_tester(leaf)(value)


def compile_row_test(predicate: Predicate) -> Callable[[Mapping[str, Any]], bool]:
    """``Predicate.test(row)`` as a function of ``{column name: internal value}``, built once."""
    return visit(predicate, _RowTestCompiler())


NamedRowTest = Callable[[Mapping[str, Any]], bool]


class _RowTestCompiler(PredicateVisitor[NamedRowTest]):
    def visit_leaf(self, leaf: LeafPredicate) -> NamedRowTest:
        test, name = row_tester(leaf), leaf.field
        return lambda values: test(values.get(name))

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[NamedRowTest]) -> NamedRowTest:
        tests = list(children)
        return lambda values: all(c(values) for c in tests)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[NamedRowTest]) -> NamedRowTest:
        tests = list(children)
        return lambda values: any(c(values) for c in tests)


def row_test(predicate: Predicate, values: Mapping[str, Any]) -> bool:
    """``Predicate.test(row)`` where ``values`` maps column names to internal values."""
    return compile_row_test(predicate)(values)
