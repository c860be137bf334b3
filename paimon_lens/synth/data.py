"""Generating the rows of one data file (and its deletions) from its :class:`~.plan.FilePlan`.

Everything follows from the plan's seed (numpy ``default_rng``), so a file can be regenerated
anywhere: in a Spark task, in the driver, in a test. Distributions are described in
:mod:`paimon_lens.synth.spec`. Deletions (primary-key tables with deletion vectors): about a third
of the files get a deletion vector; half of those delete every ``CANCELLED`` row (the orders were
cancelled and removed), the others 1-20 % random rows; a file always keeps at least one row.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..types import Timestamp
from .plan import FilePlan
from .spec import PARTITION_COLUMN, SynthSpec

if TYPE_CHECKING:
    import pyarrow as pa

STATUSES = ("DELIVERED", "SHIPPED", "PENDING", "CANCELLED", "RETURNED", "LOST")
STATUS_WEIGHTS = (0.55, 0.20, 0.12, 0.08, 0.045, 0.005)
COUNTRIES = ("US", "DE", "GB", "FR", "JP", "CN", "IN", "BR", "CA", "AU",
             "ES", "IT", "NL", "SE", "PL", "MX", "KR", "ZA", "AR", "NO")
NOTES = ("gift wrap", "leave at door", "fragile", "call before delivery", "express", "no invoice")
CUSTOMERS = 2_000_000
FREQUENT_CUSTOMERS = 1_000
DV_FILE_FRACTION = 1 / 3

_M32 = np.uint64(0xFFFFFFFF)


def bigint_buckets(values: npt.ArrayLike, num_buckets: int) -> npt.NDArray[np.int64]:
    """Paimon's default bucket of a one-column BIGINT bucket key, for many keys at once.

    ``abs(BinaryRow(key).hashCode() % num_buckets)``: MurmurHash3 (seed 42) over the row's 16 bytes
    (8-byte header, 8-byte slot), Java ``%`` truncating toward zero; the same function as
    :func:`paimon_lens.pruning.bucket.bucket_of`, vectorized.
    """
    v = np.asarray(values, dtype=np.int64).view(np.uint64)
    words = np.zeros((len(v), 4), dtype=np.uint64)
    words[:, 2] = v & _M32
    words[:, 3] = v >> np.uint64(32)
    h = np.full(len(v), 42, dtype=np.uint64)
    for j in range(4):
        k = (words[:, j] * np.uint64(0xCC9E2D51)) & _M32
        k = ((k << np.uint64(15)) | (k >> np.uint64(17))) & _M32
        k = (k * np.uint64(0x1B873593)) & _M32
        h ^= k
        h = ((h << np.uint64(13)) | (h >> np.uint64(19))) & _M32
        h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32
    h ^= np.uint64(16)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _M32
    h ^= h >> np.uint64(16)
    signed = h.astype(np.uint32).view(np.int32).astype(np.int64)
    return np.abs(np.fmod(signed, num_buckets))


@dataclass(frozen=True)
class FileData:
    """The rows of one data file: Arrow columns, internal values and the positions to delete."""

    table: pa.Table  # table columns in schema order, file row order
    values: dict[str, list[Any]]  # column -> internal values (None = null)
    deleted: tuple[int, ...]  # row positions the deletion vector marks deleted (sorted)


def _order_ids(plan: FilePlan, spec: SynthSpec, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    candidates = plan.key_start + np.arange(plan.key_span, dtype=np.int64)
    if spec.primary_key:
        candidates = candidates[bigint_buckets(candidates, spec.buckets) == plan.bucket]
    if len(candidates) < plan.rows:
        raise RuntimeError(f"file {plan.index}: only {len(candidates)} keys for {plan.rows} rows in bucket "
                           f"{plan.bucket}; widen the key span")
    return np.sort(rng.choice(candidates, plan.rows, replace=False))


def _with_nulls(values: list[Any], mask: npt.NDArray[np.bool_]) -> list[Any]:
    for i in np.flatnonzero(mask):
        values[i] = None
    return values


def generate(plan: FilePlan, spec: SynthSpec) -> FileData:
    """The rows of the file ``plan`` describes (deterministic for the plan's seed)."""
    import pyarrow as pa

    rng = np.random.default_rng(plan.seed)
    n = plan.rows
    order_id = _order_ids(plan, spec, rng)
    frequent = rng.random(n) < 0.2
    customer_id = np.where(frequent, rng.integers(1, FREQUENT_CUSTOMERS + 1, n),
                           rng.integers(1, CUSTOMERS + 1, n)).astype(np.int32)
    status_idx = rng.choice(len(STATUSES), n, p=STATUS_WEIGHTS)
    zipf = 1.0 / np.arange(1, len(COUNTRIES) + 1) ** 1.3
    country_idx = rng.choice(len(COUNTRIES), n, p=zipf / zipf.sum())
    country_null = rng.random(n) < 0.02
    quantity = np.minimum(rng.geometric(0.45, n), 20).astype(np.int32)
    amount = np.round(np.exp(rng.normal(3.5, 1.0, n)), 2)
    amount_null = rng.random(n) < 0.03
    price_cents = rng.integers(99, 100_000, n)
    span = max(plan.time_end_ms - plan.time_start_ms, 1)
    created_ms = plan.time_start_ms + np.sort(rng.integers(0, span, n))
    note_idx = rng.integers(0, len(NOTES), n)
    note_null = rng.random(n) < 0.9

    status = [STATUSES[i] for i in status_idx]
    country = _with_nulls([COUNTRIES[i] for i in country_idx], country_null)
    amount_list = _with_nulls(amount.tolist(), amount_null)
    price = [Decimal(int(c)).scaleb(-2) for c in price_cents]
    note = _with_nulls([NOTES[i] for i in note_idx], note_null)
    values: dict[str, list[Any]] = {
        "order_id": order_id.tolist(), "customer_id": customer_id.tolist(), "status": status,
        "country": country, "quantity": quantity.tolist(), "amount": amount_list, "price": price,
        "created_at": [Timestamp.from_millis(int(t)) for t in created_ms], "note": note,
    }
    schema = spec.arrow_schema()
    arrays: dict[str, pa.Array] = {
        "order_id": pa.array(order_id, pa.int64()),
        "customer_id": pa.array(customer_id, pa.int32()),
        "status": pa.array(status, pa.string()),
        "country": pa.array(country, pa.string()),
        "quantity": pa.array(quantity, pa.int32()),
        "amount": pa.array(amount, pa.float64(), mask=amount_null),
        "price": pa.array(price, schema.field("price").type),
        "created_at": pa.array(created_ms, pa.timestamp("ms")),
        "note": pa.array(note, pa.string()),
    }
    if spec.partitions:
        values[PARTITION_COLUMN] = [plan.partition[0]] * n
        arrays[PARTITION_COLUMN] = pa.array(values[PARTITION_COLUMN], pa.string())
    table = pa.Table.from_arrays([arrays[f.name] for f in schema], schema=schema)
    deleted = _deletions(rng, status) if spec.deletion_vectors else ()
    return FileData(table, values, deleted)


def _deletions(rng: np.random.Generator, status: list[str]) -> tuple[int, ...]:
    """Row positions to delete (see the module docstring)."""
    n = len(status)
    if n < 2 or rng.random() >= DV_FILE_FRACTION:
        return ()
    if rng.random() < 0.5:
        positions = [i for i, s in enumerate(status) if s == "CANCELLED"]
    else:
        k = int(rng.integers(max(1, n // 100), max(2, n // 5) + 1))
        positions = sorted(int(x) for x in rng.choice(n, min(k, n), replace=False))
    if len(positions) >= n:
        positions = positions[1:]  # keep a row: Paimon drops a file whose every row is deleted
    return tuple(positions)
