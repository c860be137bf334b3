"""One walk of a predicate tree for every module that folds compounds (Paimon's ``PredicateVisitor``).

``visit(predicate, visitor)`` calls ``visitor.visit_leaf(leaf)`` on a leaf and, on a compound,
``visitor.visit_and(compound, results)`` or ``visitor.visit_or(compound, results)``, where
``results`` yields the children's results left to right, each computed when it is asked for: a
visitor that can decide early (the first false child of an AND) stops there, as ``all()`` and
``any()`` do, and the children it did not ask for are never visited.

Trees are up to ``parser.MAX_DEPTH`` deep: a visitor takes its children's results in its own
frame (a ``for`` loop, ``list()``, ``all()``), not in a generator or helper of its own, so that a
level of the tree costs two Python frames, as a plain recursive function's does.

A visitor never compares a compound's function to a string; a new compound function would be a
new method here, and every visitor a type checker sees would have to answer it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any, Generic, TypeVar

from .model import CompoundFunction, CompoundPredicate, LeafPredicate, Predicate

T = TypeVar("T")


class PredicateVisitor(ABC, Generic[T]):
    """A result of type ``T`` for a predicate tree, one method per kind of node."""

    @abstractmethod
    def visit_leaf(self, leaf: LeafPredicate) -> T:
        """The result of a leaf."""

    @abstractmethod
    def visit_and(self, predicate: CompoundPredicate, children: Iterator[T]) -> T:
        """The result of an AND, from its children's results (computed as they are taken)."""

    @abstractmethod
    def visit_or(self, predicate: CompoundPredicate, children: Iterator[T]) -> T:
        """The result of an OR, from its children's results (computed as they are taken)."""


def visit(predicate: Predicate, visitor: PredicateVisitor[T]) -> T:
    """``predicate`` folded by ``visitor`` (see the module docs)."""
    if isinstance(predicate, LeafPredicate):
        return visitor.visit_leaf(predicate)
    # map calls visit without a frame of its own: a level of a deep tree costs two frames
    children: Iterator[T] = map(_visit, predicate.children, repeat(visitor))
    if predicate.function is CompoundFunction.And:
        return visitor.visit_and(predicate, children)
    return visitor.visit_or(predicate, children)


_visit: Callable[[Predicate, PredicateVisitor[Any]], Any] = visit


def is_and(predicate: Predicate) -> bool:
    """Whether ``predicate`` is an AND."""
    return isinstance(predicate, CompoundPredicate) and predicate.function is CompoundFunction.And


def is_or(predicate: Predicate) -> bool:
    """Whether ``predicate`` is an OR."""
    return isinstance(predicate, CompoundPredicate) and predicate.function is CompoundFunction.Or
