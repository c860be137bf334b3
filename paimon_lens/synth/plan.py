"""The driver's file plan: which data file goes where and what it holds.

One :class:`FilePlan` per data file, decided by the driver before any data exists, so that a task
can generate its file from the plan alone:

* partition: files are cut into ``partitions`` consecutive blocks (``dt`` = 2025-01-01 + block);
* bucket: primary-key tables deal the files of a partition round-robin over the buckets; append
  tables use ``bucket-0``;
* file name ``data-<uuid>-0.parquet`` with a UUID drawn from the seed;
* rows: :meth:`~.spec.SynthSpec.file_row_counts` (0.5x to 1.5x the mean, drawn from the seed);
* ``order_id`` range: disjoint and increasing from file to file (``key_start``, ``key_span``); a
  primary-key file keeps the candidates of its range that Paimon's bucket function sends to its
  bucket, so key ranges never overlap within a bucket;
* ``created_at`` window: consecutive windows of the partition's day (or of 30 days from
  2025-01-01 for unpartitioned tables), so time grows with ``order_id``;
* sequence numbers: consecutive per (partition, bucket), in plan order;
* a per-file seed derived from the table seed and the file number.
"""

from __future__ import annotations

import datetime as _dt
import random
import uuid
from dataclasses import dataclass

from .spec import SynthSpec

FIRST_DAY = _dt.date(2025, 1, 1)
DAY_MS = 86_400_000
UNPARTITIONED_DAYS = 30
EPOCH = _dt.date(1970, 1, 1)


@dataclass(frozen=True)
class FilePlan:
    """Everything a task needs to write one data file."""

    index: int  # position in the plan
    partition: tuple[str, ...]  # partition values (``(dt,)`` or ``()``)
    bucket: int
    file_name: str
    rows: int
    key_start: int  # order_id candidates: key_start .. key_start + key_span - 1
    key_span: int
    time_start_ms: int  # created_at window [time_start_ms, time_end_ms)
    time_end_ms: int
    sequence_start: int  # sequence number of the first row
    seed: int


def day(p: int) -> str:
    """The ``dt`` value of partition ``p``."""
    return (FIRST_DAY + _dt.timedelta(days=p)).isoformat()


def key_span(rows: int, buckets: int) -> int:
    """Width of a file's ``order_id`` range: enough candidates for ``rows`` keys of one bucket."""
    return 2 * rows if buckets <= 1 else 3 * rows * buckets + 64


def make_plan(spec: SynthSpec) -> list[FilePlan]:
    """The file plan of a table, in the order manifests list the files (partition, bucket, name)."""
    names = random.Random(spec.seed)
    seeds = random.Random(spec.seed ^ 0x5EED)
    blocks = max(spec.partitions, 1)
    per_block: list[list[int]] = [[] for _ in range(blocks)]
    for i in range(spec.files):
        per_block[i * blocks // spec.files].append(i)
    day0 = (FIRST_DAY - EPOCH).days * DAY_MS
    buckets = max(spec.buckets, 1)
    plans: list[FilePlan] = []
    counts = spec.file_row_counts()
    key = 1_000_000
    sequence: dict[tuple[int, int], int] = {}
    for p, files in enumerate(per_block):
        start = day0 + p * DAY_MS
        length = DAY_MS if spec.partitions else UNPARTITIONED_DAYS * DAY_MS
        for k, i in enumerate(files):
            rows = counts[i]
            bucket = k % buckets if spec.primary_key else 0
            span = key_span(rows, buckets if spec.primary_key else 1)
            seq = sequence.get((p, bucket), 0)
            sequence[(p, bucket)] = seq + rows
            name = f"data-{uuid.UUID(int=names.getrandbits(128), version=4)}-0.parquet"
            plans.append(FilePlan(
                index=i, partition=(day(p),) if spec.partitions else (), bucket=bucket, file_name=name,
                rows=rows, key_start=key, key_span=span,
                time_start_ms=start + length * k // len(files), time_end_ms=start + length * (k + 1) // len(files),
                sequence_start=seq, seed=seeds.getrandbits(63)))
            key += span
    plans.sort(key=lambda f: (f.partition, f.bucket, f.index))
    return plans
