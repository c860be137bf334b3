"""What a synthetic table looks like: its columns, keys, buckets, indexes and table options.

The generated table is an ``orders`` fact table (field ids 0..N-1 in this order)::

    order_id     BIGINT          high-cardinality id, unique in the table, sorted in every file
                                 (and increasing from file to file); NOT NULL in primary-key tables
    customer_id  INT             high-cardinality id, unsorted: 80 % uniform over 2 million
                                 customers, 20 % from 1,000 frequent ones
    status       STRING          skewed low cardinality: DELIVERED 55 %, SHIPPED 20 %, PENDING 12 %,
                                 CANCELLED 8 %, RETURNED 4.5 %, LOST 0.5 %
    country      STRING          skewed (Zipf) over 20 country codes, 2 % null
    quantity     INT             1..20, geometric (mostly 1-3), unsorted
    amount       DOUBLE          log-normal, two decimals, 3 % null, unsorted
    price        DECIMAL(10, 2)  0.99 .. 999.99, unsorted
    created_at   TIMESTAMP(3)    sorted in every file; files cover consecutive time windows
    note         STRING          90 % null, else a short free text
    dt           STRING          partition key ('2025-01-01', '2025-01-02', ...), only when
                                 ``partitions > 0``

Table kinds:

* append table (``primary_key=()``): bucket-unaware (``bucket = -1``), every file in
  ``bucket-0``, level 0, ``APPEND`` snapshot;
* primary-key table (key ``order_id``, plus ``dt`` when partitioned, as Paimon requires):
  ``buckets`` fixed buckets (``bucket-key`` = ``order_id``), every file at the top level 5 as after a
  full compaction (``COMPACT`` snapshot, file source ``COMPACT``), sorted non-overlapping key ranges
  per bucket; with ``deletion_vectors=True`` the option ``deletion-vectors.enabled = true`` and
  deletion vectors on about a third of the files.

Indexes (``file-index.<type>.columns``) default to :data:`DEFAULT_INDEXES`; bloom filters are sized
with ``items`` = the largest file's row count unless an option says otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

#: (name, Arrow type name) of the generated columns, in schema order (``dt`` only when partitioned)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("order_id", "int64"),
    ("customer_id", "int32"),
    ("status", "string"),
    ("country", "string"),
    ("quantity", "int32"),
    ("amount", "float64"),
    ("price", "decimal(10, 2)"),
    ("created_at", "timestamp[ms]"),
    ("note", "string"),
)
PARTITION_COLUMN = "dt"
KEY_COLUMN = "order_id"
INDEX_TYPES = ("bloom-filter", "bitmap", "range-bitmap", "bsi")
#: the indexes of a table built with ``indexes=None``
DEFAULT_INDEXES: tuple[tuple[str, str], ...] = (
    ("bloom-filter", "customer_id"),
    ("bitmap", "status"),
    ("bitmap", "country"),
    ("range-bitmap", "amount"),
    ("bsi", "quantity"),
)
DEFAULT_PK_BUCKETS = 2
#: the level of primary-key files: the top level of Paimon's default LSM tree (``num-levels`` 6)
PK_LEVEL = 5

IndexesArg = str | Sequence[str] | Sequence[tuple[str, str]] | Mapping[str, str | Sequence[str]] | None


@dataclass(frozen=True)
class SynthSpec:
    """A validated description of the table to generate (see :func:`SynthSpec.make`)."""

    rows: int
    files: int
    partitions: int
    primary_key: tuple[str, ...]
    buckets: int
    deletion_vectors: bool
    indexes: tuple[tuple[str, str], ...]  # (index type, column)
    options: dict[str, str] = field(default_factory=dict)
    seed: int = 0

    @classmethod
    def make(cls, *, rows: int, files: int, partitions: int = 0, primary_key: bool | str | Sequence[str] = (),
             buckets: int | None = None, deletion_vectors: bool = False, indexes: IndexesArg = None,
             options: Mapping[str, str] | None = None, seed: int = 0) -> SynthSpec:
        """Validate and normalize the arguments of :func:`paimon_lens.synth.synth_table`.

        Raises:
            ValueError: an inconsistent definition (too few rows, unknown columns, ...).
        """
        if files < 1:
            raise ValueError("files must be at least 1")
        if rows < files:
            raise ValueError(f"rows ({rows}) must be at least files ({files}): every data file holds a row")
        if partitions < 0:
            raise ValueError("partitions must be >= 0 (0: an unpartitioned table)")
        pk = _primary_key(primary_key, partitions)
        if pk:
            buckets = DEFAULT_PK_BUCKETS if buckets is None else buckets
            if buckets < 1:
                raise ValueError("a primary-key table needs a fixed bucket count >= 1")
        else:
            if buckets not in (None, -1):
                raise ValueError("append tables are written bucket-unaware (bucket = -1); "
                                 "fixed buckets are for primary-key tables")
            buckets = -1
            if deletion_vectors:
                raise ValueError("deletion vectors are generated for primary-key tables only (use --primary-key)")
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        for reserved in ("bucket", "bucket-key", "deletion-vectors.enabled", "file.format"):
            if reserved in opts:
                raise ValueError(f"option {reserved!r} is set by the generator")
        idx = parse_indexes(indexes)
        names = [c for c, _ in COLUMNS] + ([PARTITION_COLUMN] if partitions else [])
        for _, c in idx:
            if c not in names:
                raise ValueError(f"index column {c!r} is not a column of the generated table: {names}")
            if c == PARTITION_COLUMN:
                raise ValueError("the partition key is not indexed (every file holds one value)")
        return cls(rows, files, partitions, pk, buckets, deletion_vectors, idx, opts, seed)

    # ---- derived --------------------------------------------------------------------------------
    @property
    def column_names(self) -> list[str]:
        """Column names in schema order."""
        return [c for c, _ in COLUMNS] + ([PARTITION_COLUMN] if self.partitions else [])

    @property
    def partition_keys(self) -> tuple[str, ...]:
        """The partition columns (``("dt",)`` or none)."""
        return (PARTITION_COLUMN,) if self.partitions else ()

    def file_row_counts(self) -> list[int]:
        """Rows of every file of the plan, in plan order: sizes vary between half and one and a half
        times the mean (drawn from the seed), every file holds at least one row, they sum to ``rows``."""
        r = random.Random(self.seed ^ 0x0F11E5)
        weights = [0.5 + r.random() for _ in range(self.files)]
        spare = self.rows - self.files  # one row each first, the rest by weight (largest remainder)
        total = sum(weights)
        shares = [spare * w / total for w in weights]
        counts = [1 + int(x) for x in shares]
        order = sorted(range(self.files), key=lambda i: int(shares[i]) - shares[i])
        for i in order[:self.rows - sum(counts)]:
            counts[i] += 1
        return counts

    @property
    def max_file_rows(self) -> int:
        """Rows of the largest data file."""
        return max(self.file_row_counts())

    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the table's columns (nullable; primary-key columns become NOT NULL)."""
        import pyarrow as pa

        def typ(name: str) -> pa.DataType:
            if name.startswith("decimal"):
                p, s = name[name.index("(") + 1:-1].split(",")
                return pa.decimal128(int(p), int(s))
            if name.startswith("timestamp"):
                return pa.timestamp(name[name.index("[") + 1:-1])
            return pa.type_for_alias(name)

        cols = [pa.field(n, typ(t), n not in self.primary_key) for n, t in COLUMNS]
        if self.partitions:
            cols.append(pa.field(PARTITION_COLUMN, pa.string(), PARTITION_COLUMN not in self.primary_key))
        return pa.schema(cols)

    def table_options(self) -> dict[str, str]:
        """The table options of ``schema-0`` (bucket, indexes, deletion vectors, user options)."""
        opts: dict[str, str] = {"bucket": str(self.buckets)}
        if self.primary_key:
            opts["bucket-key"] = KEY_COLUMN
        by_type: dict[str, list[str]] = {}
        for t, c in self.indexes:
            by_type.setdefault(t, []).append(c)
        for t, cols in by_type.items():
            opts[f"file-index.{t}.columns"] = ",".join(cols)
        for c in by_type.get("bloom-filter", ()):
            opts.setdefault(f"file-index.bloom-filter.{c}.items", str(self.max_file_rows))
        if self.deletion_vectors:
            opts["deletion-vectors.enabled"] = "true"
        opts["file.format"] = "parquet"
        for k, v in self.options.items():
            opts[k] = v
        return opts

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON-able data."""
        return {"rows": self.rows, "files": self.files, "partitions": self.partitions,
                "primary_key": list(self.primary_key), "buckets": self.buckets,
                "deletion_vectors": self.deletion_vectors, "indexes": [f"{t}:{c}" for t, c in self.indexes],
                "options": dict(self.options), "seed": self.seed}


def _primary_key(arg: bool | str | Sequence[str] | None, partitions: int) -> tuple[str, ...]:
    if arg is None or arg is False:
        return ()
    if arg is True:
        cols: list[str] = [KEY_COLUMN]
    elif isinstance(arg, str):
        cols = [c.strip() for c in arg.split(",") if c.strip()]
    else:
        cols = [str(c).strip() for c in arg]
    if not cols:
        return ()
    allowed = {KEY_COLUMN, PARTITION_COLUMN} if partitions else {KEY_COLUMN}
    unknown = [c for c in cols if c not in allowed]
    if unknown or KEY_COLUMN not in cols:
        raise ValueError(f"the primary key of the generated table is {KEY_COLUMN!r} (plus the partition key "
                         f"{PARTITION_COLUMN!r} when partitioned), not {cols}: only {KEY_COLUMN} is unique")
    if partitions and PARTITION_COLUMN not in cols:
        cols = [PARTITION_COLUMN, *cols]  # Paimon: the primary key includes every partition key
    return tuple(dict.fromkeys(cols))


def parse_indexes(arg: IndexesArg) -> tuple[tuple[str, str], ...]:
    """Indexes as ``(type, column)`` pairs.

    Accepted forms: ``None`` (:data:`DEFAULT_INDEXES`), ``"none"`` or an empty sequence (no index),
    ``"bitmap:status,country bloom-filter:customer_id"`` (space- or ``;``-separated
    ``TYPE:COL[,COL...]``), a list of such strings, a list of ``(type, column)`` pairs, or a mapping
    ``{type: columns}``.
    """
    if arg is None:
        return DEFAULT_INDEXES
    pairs: list[tuple[str, str]] = []
    if isinstance(arg, Mapping):
        for t, cols in arg.items():
            for c in [cols] if isinstance(cols, str) else list(cols):
                pairs.extend((t, x.strip()) for x in str(c).split(",") if x.strip())
    else:
        items: list[Any] = arg.replace(";", " ").split() if isinstance(arg, str) else list(arg)
        for item in items:
            if isinstance(item, tuple):
                pairs.append((str(item[0]), str(item[1])))
                continue
            text = str(item).strip()
            if text.lower() == "none":
                continue
            if ":" not in text:
                raise ValueError(f"index spec {text!r}: expected TYPE:COL[,COL...], e.g. bitmap:status,country")
            t, cols = text.split(":", 1)
            pairs.extend((t.strip(), c.strip()) for c in cols.split(",") if c.strip())
    for t, _ in pairs:
        if t not in INDEX_TYPES:
            raise ValueError(f"unknown index type {t!r}: one of {', '.join(INDEX_TYPES)}")
    return tuple(dict.fromkeys(pairs))
