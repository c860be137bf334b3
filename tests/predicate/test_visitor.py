"""The one walk of predicate trees (predicate/visitor.py)."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings

from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves, or_
from paimon_lens.predicate.visitor import PredicateVisitor, is_and, is_or, visit
from paimon_lens.types import parse_type
from tests.predicate.test_parser import tree_strategy

INT = parse_type("INT")


def leaf(name: str, value: int = 1) -> LeafPredicate:
    return LeafPredicate("Equal", name, 0, INT, (value,))


class Rebuild(PredicateVisitor[Predicate]):
    def visit_leaf(self, leaf: LeafPredicate) -> Predicate:
        return leaf

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate]) -> Predicate:
        return and_(*children)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate]) -> Predicate:
        return or_(*children)


class Seen(PredicateVisitor[bool]):
    """Leaves named ``t...`` are true; every leaf visited is recorded."""

    def __init__(self) -> None:
        self.visited: list[str] = []

    def visit_leaf(self, leaf: LeafPredicate) -> bool:
        self.visited.append(leaf.field)
        return leaf.field.startswith("t")

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
        return all(children)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
        return any(children)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_strategy())
def test_a_rebuilding_visitor_gives_the_tree_back(tree: Predicate) -> None:
    assert visit(tree, Rebuild()) == tree


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_strategy())
def test_leaves_are_visited_left_to_right(tree: Predicate) -> None:
    class Order(Seen):
        def visit_and(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
            return all(list(children))

        def visit_or(self, predicate: CompoundPredicate, children: Iterator[bool]) -> bool:
            return any(list(children))

    order = Order()
    visit(tree, order)
    assert order.visited == [lf.field for lf in leaves(tree)]


def test_children_are_visited_only_when_asked_for() -> None:
    seen = Seen()
    assert visit(and_(leaf("t1"), leaf("f2"), leaf("t3")), seen) is False
    assert seen.visited == ["t1", "f2"]  # the AND stopped at its first false child
    seen = Seen()
    assert visit(or_(leaf("f1"), and_(leaf("t2"), leaf("t3")), leaf("t4")), seen) is True
    assert seen.visited == ["f1", "t2", "t3"]


def test_and_or_are_told_apart_by_type_not_text() -> None:
    a, o = and_(leaf("a"), leaf("b")), or_(leaf("a"), leaf("b"))
    assert is_and(a) and not is_or(a)
    assert is_or(o) and not is_and(o)
    assert not is_and(leaf("a")) and not is_or(leaf("a"))
