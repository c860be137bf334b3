"""Bucket pruning: which buckets of a fixed-bucket table can hold rows matching a predicate.

Paimon's default bucket function (``DefaultBucketFunction``) serialises the bucket-key values of a
row into a ``BinaryRow`` and takes ``Math.abs(row.hashCode() % numBuckets)``, where
``BinaryRow.hashCode`` is Murmur3-32 (seed 42) over the row bytes read as little-endian 32-bit
words (``MurmurHashUtils.hashBytesByWords``), finalised with the byte length. The ``mod`` bucket
function (``bucket-function.type = mod``, one INT/BIGINT key) uses ``floorMod(key, numBuckets)``.

Bucket selection at planning (2.0.0 ``BucketSelectConverter`` + ``BucketSelector``):

* only for fixed buckets (``bucket > 0``; also postpone mode) and when the predicate mentions
  every bucket-key column somewhere;
* per partition, leaves on partition columns are replaced by their value on that partition
  (``PartitionValuePredicateVisitor``) and the predicate simplified; then the conjuncts on bucket
  keys are projected (:func:`~paimon_lens.pruning.evolution.pick`);
* a conjunct yields candidate values for one column when it is an ``Equal``/``In`` leaf or an
  ``Or`` of such leaves on that same column (null literals ignored); a second conjunct on the same
  column intersects the values (an empty intersection disables pruning);
* every bucket-key column needs values, and at most 1000 value combinations; each combination is
  hashed and the file is kept when its bucket is one of the results (computed with the entry's own
  ``_TOTAL_BUCKETS``).

0.9.0 (``ScanBucketFilter``) had no partition substitution, projected conjuncts all-or-nothing,
took the filter from the data (append) or key (primary-key) predicate only, and gave up instead of
intersecting when a bucket-key column appeared in two conjuncts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from typing import Any

from ..metadata.bucket import binary_row_hash, bucket_of, java_mod, murmur_words
from ..predicate.model import (
    CompoundPredicate,
    DefaultFunctionVisitor,
    LeafPredicate,
    Predicate,
    and_,
    or_,
    visit_function,
)
from ..predicate.visitor import PredicateVisitor, visit
from ..types import DataField
from .compare import java_key, leaf_row_test
from .evolution import field_names, pick, split_and, split_or

MAX_VALUES = 1000

__all__ = ["BucketSelector", "binary_row_hash", "bucket_of", "bucket_values", "java_mod", "murmur_words",
           "substitute_partition"]
def substitute_partition(predicate: Predicate, partition: Mapping[str, Any]) -> Predicate | bool:
    """Replace leaves on partition columns by their truth on ``partition``; simplify AND/OR.

    Returns a predicate, or True/False when the whole predicate became constant.
    """
    return visit(predicate, _PartitionSubstitution(partition))


class _PartitionSubstitution(PredicateVisitor["Predicate | bool"]):
    def __init__(self, partition: Mapping[str, Any]) -> None:
        self.partition = partition

    def visit_leaf(self, leaf: LeafPredicate) -> Predicate | bool:
        if leaf.field in self.partition:
            return leaf_row_test(leaf, self.partition[leaf.field])
        return leaf

    def visit_and(self, predicate: CompoundPredicate, children: Iterator[Predicate | bool]) -> Predicate | bool:
        kids: list[Predicate] = []
        for s in children:
            if s is False:  # decides the AND
                return False
            if s is not True:
                kids.append(s)
        return and_(*kids) if kids else True

    def visit_or(self, predicate: CompoundPredicate, children: Iterator[Predicate | bool]) -> Predicate | bool:
        kids: list[Predicate] = []
        for s in children:
            if s is True:  # decides the OR
                return True
            if s is not False:
                kids.append(s)
        return or_(*kids) if kids else False


class _PinnedValues(DefaultFunctionVisitor["list[Any] | None"]):
    """The values an ``Equal`` or ``In`` leaf pins its column to (nulls left out); None for others."""

    def otherwise(self) -> list[Any] | None:
        return None

    def visit_equal(self, literal: Any) -> list[Any] | None:
        return [] if literal is None else [literal]

    def visit_in(self, literals: Sequence[Any]) -> list[Any] | None:
        return [v for v in literals if v is not None]


_PINNED = _PinnedValues()


def bucket_values(predicate: Predicate, bucket_key_fields: Sequence[DataField]) -> list[list[Any]] | None:
    """Candidate values per bucket-key column from a predicate on the bucket keys, or None."""
    names = [f.name for f in bucket_key_fields]
    per_key: list[list[Any] | None] = [None] * len(names)
    for conjunct in split_and(predicate):
        ref: str | None = None
        values: list[Any] = []
        usable = True
        for leaf in split_or(conjunct):
            if not isinstance(leaf, LeafPredicate) or (ref is not None and leaf.field != ref):
                usable = False
                break
            pinned = visit_function(leaf, _PINNED, None)
            if pinned is None:
                usable = False
                break
            ref = leaf.field
            values.extend(pinned)
        if not usable or ref is None:
            continue
        i = names.index(ref)
        prev = per_key[i]
        if prev is None:
            per_key[i] = values
        else:
            dtype = bucket_key_fields[i].type  # Java equals: -0.0 != 0.0, NaN == NaN
            other = {java_key(v, dtype) for v in values}
            kept = [v for v in prev if java_key(v, dtype) in other]
            if not kept:
                return None  # contradictory conditions: Paimon then selects every bucket
            per_key[i] = kept
    out: list[list[Any]] = []
    combos = 1
    for vals in per_key:
        if vals is None:
            return None
        combos *= len(vals)
        if combos > MAX_VALUES:
            return None
        out.append(vals)
    return out


class BucketSelector:
    """Bucket pruning of one predicate on one table (Paimon 2.0 ``BucketSelector``)."""

    def __init__(self, predicate: Predicate, bucket_key_fields: Sequence[DataField],
                 function: str = "default", legacy: bool = False) -> None:
        self.predicate = predicate
        self.fields = list(bucket_key_fields)
        self.names = [f.name for f in self.fields]
        self.function = function
        self.legacy = legacy
        self._rows: dict[tuple[Any, ...], list[tuple[Any, ...]] | None] = {}
        self._buckets: dict[tuple[tuple[Any, ...], int], frozenset[int]] = {}

    @staticmethod
    def create(predicate: Predicate | None, bucket_key_fields: Sequence[DataField], fixed_bucket: bool,
               function: str = "default", legacy: bool = False) -> BucketSelector | None:
        """``BucketSelectConverter.convert``: None when bucket pruning cannot apply at all.

        ``legacy`` (Paimon < 1.4, ``ScanBucketFilter``): ``predicate`` is the non-partition (append)
        or key (primary key) filter; no partition substitution; only whole conjuncts on bucket keys;
        a bucket key in two conjuncts disables pruning.
        """
        if predicate is None or not fixed_bucket or not bucket_key_fields:
            return None
        if not {f.name for f in bucket_key_fields} <= field_names(predicate):
            return None
        return BucketSelector(predicate, bucket_key_fields, function, legacy)

    def rows(self, partition: Mapping[str, Any]) -> list[tuple[Any, ...]] | None:
        """Bucket-key value combinations that can match in ``partition``; None = no pruning."""
        key = tuple(sorted(partition.items(), key=lambda kv: kv[0]))
        if key not in self._rows:
            self._rows[key] = self._compute_rows(partition)
        return self._rows[key]

    def _compute_rows(self, partition: Mapping[str, Any]) -> list[tuple[Any, ...]] | None:
        if self.legacy:
            conjuncts = [c for c in split_and(self.predicate) if field_names(c) <= set(self.names)]
            refs = [sorted(field_names(c)) for c in conjuncts]
            if len({tuple(r) for r in refs if len(r) == 1}) < len([r for r in refs if len(r) == 1]):
                return None  # a bucket key constrained twice: 0.9 gave up
            picked = pick(conjuncts, self.names)
        else:
            sub = substitute_partition(self.predicate, partition)
            if sub is True or sub is False:
                return None
            picked = pick(split_and(sub), self.names)
        if not picked:
            return None
        values = bucket_values(and_(*picked), self.fields)
        return None if values is None else [tuple(r) for r in product(*values)]

    def buckets(self, partition: Mapping[str, Any], total_buckets: int) -> frozenset[int] | None:
        """The buckets (out of ``total_buckets``) that can hold matches; None = no pruning."""
        rows = self.rows(partition)
        if rows is None or total_buckets <= 0:
            return None
        key = (tuple(sorted(partition.items(), key=lambda kv: kv[0])), total_buckets)
        if key not in self._buckets:
            self._buckets[key] = frozenset(bucket_of(r, self.fields, total_buckets, self.function) for r in rows)
        return self._buckets[key]
