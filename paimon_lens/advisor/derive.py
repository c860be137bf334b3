"""A representative workload derived from column profiles, for when none is given.

For every profiled column that is not a partition key (partition keys are pruned by partition
already; ``with_partition=True`` adds a partition equality combined with a column lookup
instead), in this order of priority, up to ``queries_per_column`` of:

=================  ==============================================================================
kind               query
=================  ==============================================================================
point-present      ``c = v`` on the most frequent value a live row holds (a value drawn from rows)
point-absent       ``c = v`` on a value inside [min, max] that no profiled row holds
range-narrow       ``c BETWEEN q_i AND q_i+1``: about 1 % of the rows by the profiled quantiles
in                 ``c IN (a, b, c)`` on three distinct values live rows hold
point-present      ``c = v`` on the rarest of the values drawn from live rows
point-absent       ``c = v`` just outside [min, max]
range-wide         ``c BETWEEN q_i AND q_i+20``: about 20 % of the rows
partition-point    ``p = x AND c = v`` (only with ``with_partition``): a live row holds both
=================  ==============================================================================

Ranges are derived for numeric, DECIMAL, DATE, TIME and TIMESTAMP columns only. Present values
come from ``ColumnProfile.samples``, drawn from rows no deletion vector deletes, so a point-present
query matches at least one live row. An absent value is verified absent only when the profile read
every row (``TableProfile.sampled`` is false); otherwise its description says so.

Weights: every kind weighs 1.0 (:data:`DEFAULT_WEIGHTS`), so a column weighs as much as the number
of kinds that apply to it; pass ``weights={"point-present": 5, ...}`` to change that. Literals
are rendered with :func:`~paimon_lens.predicate.parser.literal_sql` and column names with
:func:`~paimon_lens.predicate.parser.quote_identifier`, and every query is parsed back with
:func:`~paimon_lens.predicate.parser.parse_where` before it is kept.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from ..predicate.model import Predicate
from ..predicate.parser import PredicateError, literal_sql, parse_where, quote_identifier
from ..rendering import render
from ..types import DataType, Timestamp, date_from_days
from ..values import float32
from ..workload.model import Workload, WorkloadQuery

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.snapshot_reader import SnapshotReader
    from .profile import ColumnProfile, SampleValue, TableProfile

SOURCE = "derived from column profiles"
"""``Workload.source`` of a derived workload."""

KINDS = ("point-present", "point-absent", "in", "range-narrow", "range-wide", "partition-point")

DEFAULT_WEIGHTS: dict[str, float] = dict.fromkeys(KINDS, 1.0)
"""Weight of each kind of derived query (all equal)."""

_INT_BOUNDS = {"TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1),
               "INT": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1)}
_RANGE_ROOTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "DATE", "TIME",
                          "TIMESTAMP", "TIMESTAMP_LTZ"})


@dataclass(frozen=True)
class DerivedQuery:
    """One derived predicate and why it is there."""

    where: str
    weight: float
    column: str
    kind: str  # one of KINDS
    description: str
    expected_ratio: float | None = None  # share of the rows expected to match, from the profile
    predicate: Predicate | None = field(default=None, compare=False, repr=False)
    """``where`` bound to the profiled table's schema."""

    def to_dict(self) -> dict[str, Any]:
        """The query's fields but its bound predicate: where, weight, column, kind, description,
        expected_ratio."""
        return {f.name: getattr(self, f.name) for f in dataclass_fields(self) if f.name != "predicate"}


@dataclass(frozen=True)
class DerivedWorkload(Workload):
    """A :class:`~paimon_lens.workload.Workload` that also says what each query is for."""

    derived: tuple[DerivedQuery, ...] = ()
    notes: tuple[str, ...] = ()

    def queries_frame(self) -> pd.DataFrame:
        """One row per derived query (:meth:`DerivedQuery.to_dict`)."""
        return cast("pd.DataFrame", render(self, "queries_frame"))


def to_workload(queries: Iterable[DerivedQuery], notes: Iterable[str] = (), source: str = SOURCE) -> DerivedWorkload:
    """Derived queries as a workload (``source`` says they were derived)."""
    qs = tuple(queries)
    return DerivedWorkload(tuple(WorkloadQuery(q.where, q.weight, predicate=q.predicate) for q in qs), source, qs,
                           tuple(notes))


def derive_workload(table: SnapshotReader, profile: TableProfile, *, queries_per_column: int = 7, seed: int = 0,
                    weights: Mapping[str, float] | None = None, with_partition: bool = False) -> DerivedWorkload:
    """A representative workload for ``table`` from its column profiles (see the module docs).

    Args:
        table: the profiled table (its schema validates every query).
        profile: :func:`~paimon_lens.advisor.profile.profile_table` of it.
        queries_per_column: at most this many queries per column, by the priority in the module docs.
        seed: seed of the random choices (which quantile a range starts at, which values an IN holds).
        weights: weight per kind (default :data:`DEFAULT_WEIGHTS`).
        with_partition: also derive ``partition-point`` queries on partitioned tables.
    """
    queries, notes = derive_queries(table, profile, queries_per_column=queries_per_column, seed=seed,
                                    weights=weights, with_partition=with_partition)
    return to_workload(queries, notes)


def derive_queries(table: SnapshotReader, profile: TableProfile, *, queries_per_column: int = 7, seed: int = 0,
                   weights: Mapping[str, float] | None = None,
                   with_partition: bool = False) -> tuple[list[DerivedQuery], list[str]]:
    """The derived queries and notes (what was left out and why); see :func:`derive_workload`."""
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    unknown = set(w) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown query kinds {sorted(unknown)}: use {', '.join(KINDS)}")
    rng = random.Random(seed)
    fields = table.schema.fields
    ptypes = {p.name: p.type for p in table.schema.partition_fields}
    notes = [f"workload derived from the column profiles of {profile.sampled_files} of {profile.total_files} "
             "data files; every kind of query weighs " + ", ".join(f"{k}={v:g}" for k, v in w.items())]
    out: list[DerivedQuery] = []
    for col in profile.columns:
        if col.is_partition_key:
            notes.append(f"{col.name}: a partition key, left out (partition pruning handles it)")
            continue
        if not col.samples:
            notes.append(f"{col.name}: no value in any live row, left out")
            continue
        candidates = _column_queries(col, profile.sampled, rng, ptypes if with_partition else {})
        kept = 0
        for kind, where, what, ratio in candidates:
            if kept >= queries_per_column:
                break
            try:
                predicate = parse_where(where, fields)
            except PredicateError as e:  # pragma: no cover - literal_sql round-trips every value
                notes.append(f"{col.name}: derived query {where!r} does not parse ({e}), left out")
                continue
            out.append(DerivedQuery(where, w[kind], col.name, kind, what, ratio, predicate))
            kept += 1
    return out, notes


def _column_queries(col: ColumnProfile, sampled: bool, rng: random.Random,
                    ptypes: Mapping[str, DataType]) -> list[tuple[str, str, str, float | None]]:
    """(kind, where, description, expected ratio) candidates for one column, in priority order."""
    dt = col.dtype
    name = quote_identifier(col.name)
    profiled = max(col.profiled_rows, 1)
    present = col.non_null_rows / col.rows if col.rows else 0.0

    def eq(v: Any) -> str:
        return f"{name} = {literal_sql(v, dt)}"

    by_value: dict[Any, SampleValue] = {}
    for s in col.samples:
        by_value.setdefault(_key(s.value), s)
    distinct = sorted(by_value.values(), key=lambda s: -s.count)
    frequent, rare = distinct[0], distinct[-1]
    caveat = "" if not sampled else " (not verified: the profile is sampled)"
    out: list[tuple[str, str, str, float | None]] = []
    out.append(("point-present", eq(frequent.value),
                f"frequent value: {frequent.count} of {col.profiled_rows} profiled values",
                frequent.count / profiled * present))
    if col.absent_value is not None:
        out.append(("point-absent", eq(col.absent_value), "value inside [min, max] held by no row" + caveat, 0.0))
    ranged = dt.root in _RANGE_ROOTS and len(col.quantiles) > 1
    if ranged:
        out.extend(_range(col, name, 1, "range-narrow", rng))
    if len(distinct) >= 3:
        chosen = [frequent, rare, *rng.sample(distinct[1:-1], 1)]
        values = ", ".join(literal_sql(s.value, dt) for s in chosen)
        out.append(("in", f"{name} IN ({values})", "three values live rows hold",
                    min(1.0, sum(s.count for s in chosen) / profiled * present)))
    if rare is not frequent:
        out.append(("point-present", eq(rare.value), f"rare value: {rare.count} of {col.profiled_rows} profiled values",
                    rare.count / profiled * present))
    outside = _outside(col)
    if outside is not None:
        out.append(("point-absent", eq(outside), "value outside [min, max]" + caveat, 0.0))
    if ranged:
        out.extend(_range(col, name, 20, "range-wide", rng))
    if ptypes and frequent.partition:
        parts = " AND ".join(f"{quote_identifier(k)} = {literal_sql(v, ptypes[k])}"
                             for k, v in frequent.partition.items())
        out.append(("partition-point", f"{parts} AND {eq(frequent.value)}",
                    "partition equality and a value a live row of that partition holds", None))
    return out


def _key(v: Any) -> Any:
    """A dict key for a value (NaN never reaches here; -0.0 and 0.0 stay apart as SQL literals do not)."""
    return (type(v).__name__, repr(v)) if isinstance(v, float) else v


def _range(col: ColumnProfile, name: str, width: int, kind: str,
           rng: random.Random) -> list[tuple[str, str, str, float | None]]:
    """``BETWEEN`` the i-th and (i+width)-th percentiles, for a random i giving a real range."""
    q = col.quantiles
    starts = [i for i in range(len(q) - width) if q[i] < q[i + width]]
    if not starts:
        return []
    i = rng.choice(starts)
    lo, hi = literal_sql(q[i], col.dtype), literal_sql(q[i + width], col.dtype)
    share = width / (len(q) - 1)
    return [(kind, f"{name} BETWEEN {lo} AND {hi}",
             f"percentiles {i} to {i + width}: about {share:.0%} of the values", share)]


def _outside(col: ColumnProfile) -> Any:
    """A value just above the maximum (or below the minimum) that the column type can hold, or None."""
    dt, lo, hi = col.dtype, col.min, col.max
    r = dt.root
    if hi is None:
        return None
    if r == "BOOLEAN":
        values = {v for v, _ in col.top_values}
        return None if len(values) > 1 else (not hi)
    if r in _INT_BOUNDS:
        low, high = _INT_BOUNDS[r]
        return hi + 1 if hi < high else (lo - 1 if lo > low else None)
    if r in ("FLOAT", "DOUBLE"):
        for base, sign in ((hi, 1.0), (lo, -1.0)):
            c = base + sign * max(1.0, abs(base))
            c = float32(c) if r == "FLOAT" else c
            if math.isfinite(c):
                return c
        return None
    if r == "DECIMAL":
        limit = Decimal(10) ** ((dt.precision or 10) - (dt.scale or 0))
        return hi + 1 if hi + 1 < limit else (lo - 1 if lo - 1 > -limit else None)
    if dt.is_string:
        return hi + "~"
    if dt.is_binary:
        return hi + b"\x00"
    if r == "DATE":
        for c in (hi + 1, lo - 1):
            try:
                date_from_days(c)
            except OverflowError:
                continue
            return c
        return None
    if r == "TIME":
        return hi + 1 if hi + 1 < 86_400_000 else (lo - 1 if lo > 0 else None)
    if dt.is_timestamp and isinstance(hi, Timestamp):
        return Timestamp(hi.millisecond + 1000, hi.nano_of_millisecond)
    return None
