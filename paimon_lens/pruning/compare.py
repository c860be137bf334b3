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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate
from ..types import DataType

_SIGNED_BYTES: ContextVar[bool] = ContextVar("paimon_lens_signed_bytes", default=False)


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


def leaf_row_test(leaf: LeafPredicate, value: Any) -> bool:
    """``LeafFunction.test(type, field, literals)`` on one value."""
    fn, lits, t = leaf.function, leaf.literals, leaf.type
    if fn == "IsNull":
        return value is None
    if fn == "IsNotNull":
        return value is not None
    if value is None:
        return False
    if fn == "In":
        return any(lit is not None and java_compare(lit, value, t) == 0 for lit in lits)
    if fn == "NotIn":
        return all(lit is not None and java_compare(lit, value, t) != 0 for lit in lits)
    if any(lit is None for lit in lits):
        return False
    if fn == "Between":
        return java_compare(lits[0], value, t) <= 0 and java_compare(lits[1], value, t) >= 0
    lit = lits[0]
    if fn in ("StartsWith", "EndsWith", "Contains"):
        v, p = _utf8(value), _utf8(lit)
        return v.startswith(p) if fn == "StartsWith" else v.endswith(p) if fn == "EndsWith" else p in v
    if fn == "Like":
        return like_regex(str(lit)).fullmatch(str(value)) is not None
    c = java_compare(lit, value, t)
    return {"Equal": c == 0, "NotEqual": c != 0, "LessThan": c > 0, "LessOrEqual": c >= 0,
            "GreaterThan": c < 0, "GreaterOrEqual": c <= 0}[fn]


def row_test(predicate: Predicate, values: Mapping[str, Any]) -> bool:
    """``Predicate.test(row)`` where ``values`` maps column names to internal values."""
    if isinstance(predicate, LeafPredicate):
        return leaf_row_test(predicate, values.get(predicate.field))
    return _compound_row_test(predicate, values)


def _compound_row_test(predicate: CompoundPredicate, values: Mapping[str, Any]) -> bool:
    if predicate.function == "And":
        return all(row_test(c, values) for c in predicate.children)
    return any(row_test(c, values) for c in predicate.children)
