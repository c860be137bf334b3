"""Inclusive row-id range lists (merge, intersect, subtract, count) against sets of row ids."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.metadata.row_ranges import covered_count, intersect_ranges, merge_ranges, subtract_ranges

_RANGE = st.tuples(st.integers(0, 60), st.integers(0, 12)).map(lambda t: (t[0], t[0] + t[1]))
_RANGES = st.lists(_RANGE, max_size=6)


def _ids(ranges: list[tuple[int, int]]) -> set[int]:
    return {i for a, b in ranges for i in range(a, b + 1)}


@given(_RANGES, _RANGES, st.integers(0, 70), st.integers(0, 20))
def test_range_lists_are_sets_of_row_ids(a: list[tuple[int, int]], b: list[tuple[int, int]], start: int,
                                         width: int) -> None:
    merged = merge_ranges(a)
    assert _ids(merged) == _ids(a)
    assert all(x[1] + 1 < y[0] for x, y in itertools.pairwise(merged))  # sorted, disjoint, not adjacent
    assert _ids(intersect_ranges(a, b)) == _ids(a) & _ids(b)
    assert _ids(subtract_ranges(a, b)) == _ids(a) - _ids(b)
    assert covered_count(a, start, start + width) == len(_ids(a) & set(range(start, start + width + 1)))
