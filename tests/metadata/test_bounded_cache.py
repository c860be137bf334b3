"""The byte-bounded cache of decoded files: computed once while held, least recently used out first."""

from __future__ import annotations

import pytest

from paimon_lens.metadata.bounded_cache import BoundedCache


def test_least_recently_used_leave_once_the_budget_is_passed() -> None:
    cache = BoundedCache(budget=100)
    calls: list[str] = []

    def get(key: str, cost: int) -> str:
        return cache.get(key, cost, lambda: calls.append(key) or key.upper())  # type: ignore[func-returns-value]

    assert get("a", 40) == "A" and get("b", 40) == "B" and get("a", 40) == "A"  # "a" used again: newest
    assert calls == ["a", "b"] and cache.size == 80
    get("c", 40)  # 120 > 100: the least recently used ("b") leaves
    assert len(cache) == 2 and cache.size == 80
    get("a", 40)
    get("b", 40)
    assert calls == ["a", "b", "c", "b"]


def test_an_entry_larger_than_the_budget_is_still_answered_and_kept_alone() -> None:
    cache = BoundedCache(budget=10)
    assert cache.get("big", 50, lambda: 1) == 1 and len(cache) == 1
    assert cache.get("small", 5, lambda: 2) == 2 and len(cache) == 1  # the big one leaves


def test_an_error_is_not_kept() -> None:
    cache = BoundedCache(budget=10)
    tries = []

    def fail() -> int:
        tries.append(1)
        raise OSError("gone")

    for _ in range(2):
        with pytest.raises(OSError, match="gone"):
            cache.get("x", 1, fail)
    assert len(tries) == 2 and len(cache) == 0


def test_a_cost_taken_from_the_value_and_values_forgotten() -> None:
    cache = BoundedCache(budget=10)
    assert cache.get("a", len, lambda: "abcd") == "abcd" and cache.size == 4
    assert cache.get("b", len, lambda: "xyz") == "xyz" and cache.size == 7
    cache.discard("a")
    assert len(cache) == 1 and cache.size == 3
    assert cache.get("a", len, lambda: "again") == "again"  # computed anew
    cache.clear()
    assert len(cache) == 0 and cache.size == 0
