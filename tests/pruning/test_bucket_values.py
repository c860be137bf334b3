"""``bucket_values``: the values a predicate pins the bucket keys to (Paimon 2.0 ``BucketSelector``)."""

from __future__ import annotations

import pytest

from paimon_lens.predicate import parse_where
from paimon_lens.pruning.bucket import MAX_VALUES, bucket_values
from paimon_lens.types import field_from_json

FIELDS = [field_from_json({"id": 0, "name": "k", "type": "INT"}),
          field_from_json({"id": 1, "name": "s", "type": "STRING"}),
          field_from_json({"id": 2, "name": "v", "type": "DOUBLE"})]
K, S = [FIELDS[0]], FIELDS[:2]


@pytest.mark.parametrize(("where", "keys", "expected"), [
    ("k = 1", K, [[1]]),
    ("k IN (1, 2, NULL)", K, [[1, 2]]),
    ("k = 1 OR k = 3 OR k IN (4)", K, [[1, 3, 4]]),
    ("k = 1 AND v > 0", K, [[1]]),
    ("k IN (1, 2, 3) AND k IN (2, 3, 4)", K, [[2, 3]]),  # a second conjunct intersects
    ("k = 1 AND k = 2", K, None),  # contradictory: every bucket
    ("k > 1", K, None),  # a range pins nothing
    ("k = 1 OR s = 'a'", S, None),  # an OR over two columns pins nothing
    ("k = 1", S, None),  # every bucket key needs values
    ("k IN (1, 2) AND s IN ('a', 'b')", S, [[1, 2], ["a", "b"]]),
    ("k = 1 OR v = 2", K, None),
])
def test_bucket_values(where: str, keys: list, expected: list | None) -> None:
    assert bucket_values(parse_where(where, FIELDS), keys) == expected


def test_too_many_combinations_pin_nothing() -> None:
    many = ", ".join(str(i) for i in range(MAX_VALUES + 1))
    assert bucket_values(parse_where(f"k IN ({many})", FIELDS), K) is None
    assert bucket_values(parse_where(f"k IN ({', '.join(str(i) for i in range(MAX_VALUES))})", FIELDS), K) is not None
