"""Rewriting predicates for the planner: projection onto a column subset and schema evolution.

* :func:`project` is Paimon 2.0's ``PredicateProjectionConverter`` (used to split partition
  filters, key filters and bucket filters off a predicate): a leaf survives when its column is
  picked; an ``And`` keeps the children that survive (a weaker, still safe filter); an ``Or``
  survives only when every child does.
* :func:`filter_unsafe_filter` is ``SimpleStatsEvolutions.filterUnsafeFilter``: for a file written
  with an older schema, each top-level conjunct is kept (unchanged, on the table schema) only when
  every leaf's column either exists in the file with the same type (ignoring nullability), or is
  an integer column whose literals fit the file's narrower integer type, or (with
  ``keep_new_field_filter``) does not exist in the file at all. Everything else is dropped: the
  min/max of a column whose type changed cannot be trusted.
* :func:`devolve_filter` is ``SimpleStatsEvolutions.tryDevolveFilter``: the conjuncts that can be
  expressed on the file's own schema, rewritten to it (renamed columns, file positions and
  types, narrowed literals); conjuncts on columns the file lacks are dropped. This is what file
  indexes are evaluated with. None when nothing is left ("no filter").
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace

from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate, and_, or_
from ..predicate.visitor import PredicateVisitor, is_and, is_or, visit
from ..types import DataField, DataType

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}


def split_and(predicate: Predicate | None) -> list[Predicate]:
    """The conjuncts of ``predicate`` (``PredicateBuilder.splitAnd``), nested ANDs flattened."""
    if predicate is None:
        return []
    if is_and(predicate):
        assert isinstance(predicate, CompoundPredicate)
        out: list[Predicate] = []
        for c in predicate.children:
            out.extend(split_and(c))
        return out
    return [predicate]


def split_or(predicate: Predicate) -> list[Predicate]:
    """The disjuncts of ``predicate`` (``PredicateBuilder.splitOr``), nested ORs flattened."""
    if is_or(predicate):
        assert isinstance(predicate, CompoundPredicate)
        out: list[Predicate] = []
        for c in predicate.children:
            out.extend(split_or(c))
        return out
    return [predicate]


def field_names(predicate: Predicate) -> set[str]:
    """Every column a predicate refers to (``PredicateVisitor.collectFieldNames``)."""
    if isinstance(predicate, LeafPredicate):
        return {predicate.field}
    out: set[str] = set()
    for c in predicate.children:
        out |= field_names(c)
    return out


def project(predicate: Predicate, picked: Sequence[str]) -> Predicate | None:
    """The part of ``predicate`` on the ``picked`` columns, re-indexed to their positions.

    ``PredicateProjectionConverter`` (2.0): ``And`` keeps the children that can be projected,
    ``Or`` needs all of them. None when nothing can be projected.
    """
    return visit(predicate, _Projection(picked))


class _Projection(PredicateVisitor["Predicate | None"]):
    def __init__(self, picked: Sequence[str]) -> None:
        self.picked = list(picked)

    def visit_leaf(self, leaf: LeafPredicate) -> Predicate | None:
        if leaf.field not in self.picked:
            return None
        return replace(leaf, index=self.picked.index(leaf.field))

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        kids = list(children)
        kept = [k for k in kids if k is not None]
        return and_(*kept) if kept else None

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        kids = list(children)
        if any(k is None for k in kids):
            return None
        return or_(*[k for k in kids if k is not None])


def pick(conjuncts: Sequence[Predicate], picked: Sequence[str]) -> list[Predicate]:
    """``PredicateBuilder.pickTransformFieldMapping``: :func:`project` of each conjunct, the projectable ones."""
    out = []
    for c in conjuncts:
        p = project(c, picked)
        if p is not None:
            out.append(p)
    return out


def _cast_literals(literals: tuple[object, ...], table_type: DataType,
                   file_type: DataType) -> tuple[object, ...] | None:
    """``CastExecutors.castLiteralsWithEvolution``: the literals in the file's type, or None if unsafe."""
    if table_type.copy(True) == file_type.copy(True):
        return literals
    a, b = table_type.root, file_type.root
    if a in _INT_BITS and b in _INT_BITS and (
            (a == "SMALLINT" and b == "TINYINT") or (a == "INT" and b != "BIGINT") or a == "BIGINT"):
        bits = _INT_BITS[b]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if any(isinstance(v, int) and not lo <= v <= hi for v in literals):
            return None  # the narrowed literal would overflow
        return literals
    return None


def _devolve_leaf(leaf: LeafPredicate, table_fields: Sequence[DataField], file_fields: Sequence[DataField],
                  keep_new_field_filter: bool) -> tuple[bool, Predicate | None]:
    """(ok, rewritten leaf); ok False means the whole conjunct is dropped."""
    table_field = next((f for f in table_fields if f.name == leaf.field), None)
    if table_field is None:
        return False, None
    pos = next((i for i, f in enumerate(file_fields) if f.id == table_field.id), None)
    if pos is None:
        return keep_new_field_filter, leaf
    data = file_fields[pos]
    lits = _cast_literals(leaf.literals, leaf.type, data.type)
    if lits is None:
        return False, None
    return True, LeafPredicate(leaf.function, data.name, pos, data.type, lits)


def _devolve(predicate: Predicate, table_fields: Sequence[DataField], file_fields: Sequence[DataField],
             keep_new_field_filter: bool) -> Predicate | None:
    return visit(predicate, _Devolution(table_fields, file_fields, keep_new_field_filter))


class _Devolution(PredicateVisitor["Predicate | None"]):
    """A predicate on a file's schema; None as soon as one leaf cannot be carried over."""

    def __init__(self, table_fields: Sequence[DataField], file_fields: Sequence[DataField],
                 keep_new_field_filter: bool) -> None:
        self.args = table_fields, file_fields, keep_new_field_filter

    def visit_leaf(self, leaf: LeafPredicate) -> Predicate | None:
        ok, got = _devolve_leaf(leaf, *self.args)
        return got if ok else None

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        kids = []
        for k in children:
            if k is None:
                return None
            kids.append(k)
        return and_(*kids)

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate | None]) -> Predicate | None:
        kids = []
        for k in children:
            if k is None:
                return None
            kids.append(k)
        return or_(*kids)


def filter_unsafe_filter(predicate: Predicate | None, table_fields: Sequence[DataField],
                         file_fields: Sequence[DataField], same_schema: bool,
                         keep_new_field_filter: bool = True) -> Predicate | None:
    """The conjuncts whose stats test is safe for a file of another schema (unchanged, on the table schema).

    ``same_schema``: the file was written with the table's current schema (then nothing changes).
    """
    if predicate is None or same_schema:
        return predicate
    kept = [c for c in split_and(predicate)
            if _devolve(c, table_fields, file_fields, keep_new_field_filter) is not None]
    return and_(*kept) if kept else None


def devolve_filter(predicate: Predicate | None, table_fields: Sequence[DataField],
                   file_fields: Sequence[DataField], same_schema: bool) -> Predicate | None:
    """``predicate`` rewritten to the file's schema for its file index; None when nothing is left."""
    if predicate is None or same_schema:
        return predicate
    kept = []
    for c in split_and(predicate):
        d = _devolve(c, table_fields, file_fields, False)
        if d is not None:
            kept.append(d)
    return and_(*kept) if kept else None


def fields_within(predicate: Predicate, names: Collection[str]) -> bool:
    """Whether every column of ``predicate`` is in ``names``."""
    return field_names(predicate) <= set(names)
