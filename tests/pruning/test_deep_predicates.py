"""Every fold of a predicate tree answers a tree as deep as the parser accepts (predicate/visitor.py:
a level costs two frames), with the answer of the shallow tree it equals."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from paimon_lens.metadata.stats import ColumnStats
from paimon_lens.predicate.model import Predicate
from paimon_lens.predicate.parser import MAX_DEPTH, parse_where
from paimon_lens.predicate.sql_text import to_sql
from paimon_lens.pruning.bucket import substitute_partition
from paimon_lens.pruning.compare import compile_row_test
from paimon_lens.pruning.evolution import filter_unsafe_filter, project
from paimon_lens.pruning.row_ids import ranges, residual
from paimon_lens.pruning.rows import evaluate_rows
from paimon_lens.pruning.stats import compile_stats_test, stats_reason, stats_test
from paimon_lens.pruning.stats_vector import StatsColumns, compile_stats_mask
from paimon_lens.pruning.versions import rules_of_newest
from paimon_lens.types import DataField, parse_type

FIELDS = [DataField(0, "a", parse_type("INT")), DataField(1, "b", parse_type("INT"))]


def deep(n: int) -> str:
    """``a = 5`` nested ``n`` levels in alternating AND / OR with ``b`` leaves that never decide."""
    return "".join(f"(a = 5 {'AND' if i % 2 else 'OR'} " for i in range(n)) + "a = 5" + ")" * n


@contextmanager
def frames_per_level(n: int, levels: int, spare: int = 80) -> Iterator[None]:
    """A recursion limit that lets a fold spend ``n`` frames per level of a ``levels``-deep tree."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + n * levels + spare)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_every_fold_answers_the_deepest_tree_the_parser_accepts() -> None:
    levels = MAX_DEPTH - 2
    p = parse_where(deep(levels), FIELDS)
    with frames_per_level(2, levels):
        folds(p)


def folds(p: Predicate) -> None:
    shallow = parse_where("a = 5", FIELDS)
    assert to_sql(p).count("a = 5") == MAX_DEPTH - 1
    assert compile_row_test(p)({"a": 5, "b": 1}) is True
    assert compile_row_test(p)({"a": 4, "b": 1}) is False
    pruned = [ColumnStats(6, 9, 0), ColumnStats(1, 1, 0)]
    kept = [ColumnStats(1, 9, 0), ColumnStats(1, 1, 0)]
    assert stats_test(p, 10, pruned, FIELDS) is False and stats_test(p, 10, kept, FIELDS) is True
    assert stats_reason(p, 10, pruned, FIELDS) is not None
    assert stats_reason(shallow, 10, pruned, FIELDS) in stats_reason(p, 10, pruned, FIELDS)
    assert compile_stats_test(p, FIELDS)(10, pruned, {}) is False
    assert list(compile_stats_mask(p, FIELDS)(StatsColumns([pruned, kept], [10, 10]))) == [False, True]
    assert list(evaluate_rows(p, {0: [5, 4, 5]}, 3)) == [True, False, True]
    assert substitute_partition(p, {"a": 5}) is True and substitute_partition(p, {"a": 4}) is False
    assert project(p, ["a"]) is not None and project(p, ["b"]) is None
    assert filter_unsafe_filter(p, FIELDS, FIELDS, same_schema=False) is not None
    assert ranges(p) is None
    assert residual(p, rules_of_newest()) is not None
