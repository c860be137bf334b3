"""Predicates: a typed model, a SQL parser and schema binding."""

from .builder import col
from .model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves, or_
from .parser import PredicateError, parse_where, to_sql

__all__ = [
    "CompoundPredicate",
    "LeafPredicate",
    "Predicate",
    "PredicateError",
    "and_",
    "col",
    "leaves",
    "or_",
    "parse_where",
    "to_sql",
]
