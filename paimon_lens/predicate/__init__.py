"""Predicates: a typed model, a SQL parser and schema binding.

The parser and the builder import sqlglot; they are loaded on first use so that importing
the model (``paimon_lens.predicate.model``) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import sql_text as _sql_text  # noqa: F401  (installs Predicate.sql)
from .model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves, or_

if TYPE_CHECKING:
    from .builder import col
    from .parser import PredicateError, parse_where, to_sql

_LAZY = {"col": ".builder", "PredicateError": ".parser", "parse_where": ".parser", "to_sql": ".parser"}

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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
