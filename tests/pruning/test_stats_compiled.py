"""compile_stats_test gives stats_test's answers and memo entries, on random stats and predicates."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from typing import Any

from paimon_lens.metadata.stats import ColumnStats
from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate
from paimon_lens.pruning.stats import compile_stats_test, stats_test
from paimon_lens.types import DataField, field_from_json

FIELDS = [field_from_json(f) for f in [
    {"id": 0, "name": "i", "type": "INT"}, {"id": 1, "name": "s", "type": "STRING"},
    {"id": 2, "name": "d", "type": "DECIMAL(10, 2)"}, {"id": 3, "name": "f", "type": "DOUBLE"},
    {"id": 4, "name": "b", "type": "BOOLEAN"}, {"id": 5, "name": "dt", "type": "DATE"},
]]
FUNCTIONS = ["Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "Between",
             "NotBetween", "In", "NotIn", "IsNull", "IsNotNull", "StartsWith", "Like"]


def value(rng: random.Random, f: DataField) -> Any:
    r = f.type.root
    if rng.random() < 0.05:
        return None
    if r in ("INT", "DATE"):
        return rng.randint(-3, 3) if rng.random() < 0.9 else rng.choice([True, 1.0, Decimal(1)])
    if r == "STRING":
        return rng.choice(["", "a", "ab", "b", "é", "\U0001f600"])
    if r == "DECIMAL":
        return Decimal(rng.randint(-300, 300)).scaleb(-2) if rng.random() < 0.9 else rng.randint(-3, 3)
    if r == "DOUBLE":
        return rng.choice([-1.5, -0.0, 0.0, 1.0, math.nan, math.inf, 2])
    return rng.choice([True, False])


def leaf(rng: random.Random) -> LeafPredicate:
    index = rng.randrange(len(FIELDS))
    f = FIELDS[index]
    fn = rng.choice(FUNCTIONS)
    n = {"Between": 2, "NotBetween": 2, "In": 3, "NotIn": 2, "IsNull": 0, "IsNotNull": 0}.get(fn, 1)
    if fn in ("StartsWith", "Like") and f.type.root != "STRING":
        fn = "Equal"
    if rng.random() < 0.05:  # a stale index: looked up by name
        index = (index + 1) % len(FIELDS)
    return LeafPredicate(fn, f.name, index, f.type, tuple(value(rng, f) for _ in range(n)))


def predicate(rng: random.Random, depth: int = 0) -> Predicate:
    if depth > 2 or rng.random() < 0.4:
        return leaf(rng)
    kids = tuple(predicate(rng, depth + 1) for _ in range(rng.randint(1, 4)))
    return CompoundPredicate(rng.choice(["And", "Or"]), kids)


def stats(rng: random.Random, row_count: int) -> list[ColumnStats]:
    out = []
    for f in FIELDS:
        a, b = value(rng, f), value(rng, f)
        nc = rng.choice([None, 0, 1, row_count])
        out.append(ColumnStats(a, b, nc))
    return out[: rng.choice([len(FIELDS)] * 9 + [3])]


def test_compiled_equals_stats_test() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        p = predicate(rng)
        compiled = compile_stats_test(p, FIELDS)
        for _ in range(10):
            rc = rng.choice([0, 1, 5])
            st = stats(rng, rc)
            memo_a: dict[int, bool] = {}
            memo_b: dict[int, bool] = {}
            try:
                want: Any = stats_test(p, rc, st, FIELDS, memo_a)
            except Exception as e:  # comparisons of incomparable odd values raise the same way
                want = type(e)
            try:
                got: Any = compiled(rc, st, memo_b)
            except Exception as e:
                got = type(e)
            assert got == want, (p, rc, st)
            if not isinstance(want, type):
                assert memo_a == memo_b
