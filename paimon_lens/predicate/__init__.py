"""Predicates: a typed model, a SQL parser and schema binding."""

from .model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves, or_

__all__ = ["CompoundPredicate", "LeafPredicate", "Predicate", "and_", "leaves", "or_"]
