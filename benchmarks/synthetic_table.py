"""Synthetic Paimon 2.0-style tables of any size, laid out on disk exactly as Paimon lays them out.

:func:`make_table` writes a table directory that paimon-lens (and, as far as the file formats go,
Paimon itself) reads like one written by Paimon 2.0::

    <table>/schema/schema-0                       JSON, like Paimon's (fields with ids, options)
    <table>/snapshot/snapshot-1, LATEST, EARLIEST
    <table>/manifest/manifest-list-<uuid>-0       base manifest list (all manifests but the last)
    <table>/manifest/manifest-list-<uuid>-1       delta manifest list (the last manifest)
    <table>/manifest/manifest-<uuid>-<n>          ~1000 entries each, Avro, codec zstandard
    <table>/manifest/index-manifest-<uuid>-0      primary-key tables: deletion-vector entries
    <table>/index/index-<uuid>-<n>                primary-key tables: one DV index file per bucket
    <table>/dt=<day>/bucket-<n>/data-<uuid>-0.parquet        (data_files=True)
    <table>/dt=<day>/bucket-<n>/data-<uuid>-0.parquet.index  external file-index containers

The Avro writer schemas (manifest list, manifest with 20 ``_FILE`` fields and ``_VERSION`` first,
index manifest) are copied verbatim from manifests written by Paimon release-2.0.0
(``tests/fixtures/tables20``). Every byte structure inside them is built with paimon-lens' own
writers, which are byte-identical to Paimon's for the same input: ``_PARTITION`` and the
``_VALUE_STATS``/``_KEY_STATS`` min/max rows are BinaryRows computed from the generated data,
file indexes are real containers (bloom-filter on ``id`` sized with ``items = rows_per_file``,
bitmap V2 on ``country`` and ``status``, range-bitmap on ``score``), deletion vectors are real
32-bit DV blobs with CRCs. Rows are placed in buckets with Paimon's default bucket function
(``abs(murmur3(BinaryRow(bucket key)) % buckets)``, checked against Paimon-written fixtures), so
bucket pruning on the bucket key is exact.

What is synthetic, honestly:

* Only one snapshot exists (``snapshot-1``); its base manifest list is non-empty, as if older
  snapshots had expired. Paimon itself never writes a non-empty base list for snapshot 1;
  readers do not care.
* Manifests are cut every ~1000 entries, sorted by partition and bucket (Paimon cuts by
  ``manifest.target-file-size``).
* ``country``, ``status`` and ``score`` values come from a fixed set of :data:`PATTERNS`
  per-file value patterns, so their bitmap and range-bitmap indexes are built once per pattern
  and reused (each data file still holds exactly the rows its indexes describe). ``id`` (and its
  bloom filter), ``user_id``, ``amount``, ``price`` and ``ts`` are generated per file.
* ``file-index.in-manifest-threshold`` is chosen from the generated container sizes so that
  about two thirds of the containers are embedded and one third go to ``.index`` files; the rule
  itself is Paimon's (embedded iff size <= threshold).
* Primary-key tables look fully compacted: every file is at the top level (5, ``COMPACT``) with
  non-overlapping, sorted key ranges per bucket, all rows ``+I``. Deleted rows (deletion vectors on
  ~30 % of the files) simply disappear; in a real table a newer version of the key would exist
  elsewhere. Level-0 files are not used for them because Paimon's batch scan of a
  deletion-vector table ignores level 0.
* With ``data_files=False`` no parquet is written and ``_FILE_SIZE`` is an estimate; everything
  else (manifests, index files, deletion vectors) is written as usual.

Generation is deterministic for a seed (UUIDs, Avro sync markers and data all come from it).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import math
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from paimon_lens.formats.bitmap import write_bitmap_index
from paimon_lens.formats.bloom import BloomFilterFileIndexWriter
from paimon_lens.formats.deletion_vector import write_dv_index_file
from paimon_lens.formats.file_index_format import write_file_index
from paimon_lens.formats.range_bitmap import write_range_bitmap
from paimon_lens.metadata.binary_row import encode_binary_row
from paimon_lens.types import DataType, Timestamp, parse_type
from paimon_lens.writer.avro import INDEX_MANIFEST_SCHEMA, MANIFEST_LIST_SCHEMA, MANIFEST_SCHEMA

# ---- the table ----------------------------------------------------------------------------------

#: (field id, name, Paimon type) of the synthetic table, in schema order; ``dt`` is the partition.
COLUMNS: tuple[tuple[int, str, str], ...] = (
    (0, "id", "BIGINT"),
    (1, "user_id", "INT"),
    (2, "country", "STRING"),
    (3, "status", "STRING"),
    (4, "score", "INT"),
    (5, "amount", "DOUBLE"),
    (6, "price", "DECIMAL(10, 2)"),
    (7, "ts", "TIMESTAMP(3)"),
    (8, "dt", "STRING"),
)
COUNTRIES = ("US", "DE", "FR", "GB", "JP", "CN", "IN", "BR", "CA", "AU",
             "ES", "IT", "NL", "SE", "PL", "MX", "KR", "ZA", "AR", "NO")
STATUSES = ("active", "banned", "pending", "closed", "trial")
#: distinct (country, status, score) value patterns; their indexes are built once each.
PATTERNS = 48
MANIFEST_ENTRIES = 1000
USERS = 100_000
FIRST_DAY = _dt.date(2025, 1, 1)
DAY_MS = 86_400_000
#: the "commit time" of the synthetic snapshot (fixed, for determinism)
COMMIT_MILLIS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
BLOOM_FPP = 0.05
DV_FILE_FRACTION = 0.3
PK_LEVEL = 5
#: Paimon's field ids of the key and system columns in data files of primary-key tables
KEY_FIELD_ID_START = 1_073_741_823
SEQUENCE_NUMBER_FIELD_ID = 2_147_483_646
VALUE_KIND_FIELD_ID = 2_147_483_645
#: column order of a container: java.util.HashMap order of the column names, as Paimon writes it
#: (``country`` and ``score`` share a bin; the Paimon-written fixtures put ``country`` first)
CONTAINER_ORDER = ("country", "score", "id", "status")

_TYPES: dict[str, DataType] = {name: parse_type(t) for _, name, t in COLUMNS}
_STATS_TYPES = [_TYPES[name] for _, name, _ in COLUMNS]
_BIGINT = _TYPES["id"]
_STRING = _TYPES["dt"]

# ---- Avro writer schemas (verbatim from Paimon release-2.0.0 manifests): paimon_lens.writer.avro



# ---- Paimon's bucket function -------------------------------------------------------------------

_M32 = np.uint64(0xFFFFFFFF)


def _murmur_words(words: npt.NDArray[np.uint32]) -> npt.NDArray[np.int64]:
    """``MurmurHashUtils.hashBytesByWords`` (seed 42) of each row of little-endian 32-bit words."""
    h = np.full(words.shape[0], 42, dtype=np.uint64)
    for j in range(words.shape[1]):
        k = words[:, j].astype(np.uint64)
        k = (k * np.uint64(0xCC9E2D51)) & _M32
        k = ((k << np.uint64(15)) | (k >> np.uint64(17))) & _M32
        k = (k * np.uint64(0x1B873593)) & _M32
        h ^= k
        h = ((h << np.uint64(13)) | (h >> np.uint64(19))) & _M32
        h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32
    h ^= np.uint64(4 * words.shape[1])
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _M32
    h ^= h >> np.uint64(16)
    return h.astype(np.uint32).view(np.int32).astype(np.int64)


def paimon_bucket(values: npt.ArrayLike, type_root: str, num_buckets: int) -> npt.NDArray[np.int64]:
    """Paimon's default bucket of a one-column INT or BIGINT bucket key, for many values at once.

    ``abs(BinaryRow(key).hashCode() % num_buckets)`` where the hash is MurmurHash3 over the row's
    16 bytes (8-byte header, 8-byte slot); Java's ``%`` truncates toward zero.
    """
    v = np.asarray(values, dtype=np.int64)
    words = np.zeros((len(v), 4), dtype=np.uint32)
    u = v.view(np.uint64)
    words[:, 2] = (u & _M32).astype(np.uint32)
    if type_root == "BIGINT":
        words[:, 3] = (u >> np.uint64(32)).astype(np.uint32)
    elif type_root != "INT":
        raise ValueError(f"only INT and BIGINT bucket keys are supported, not {type_root}")
    return np.abs(np.fmod(_murmur_words(words), num_buckets))


# ---- value patterns -----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Pattern:
    """Values of the indexed columns for one file pattern, with their indexes and stats built once."""

    country: list[str | None]
    status: list[str | None]
    score: npt.NDArray[np.int32]
    indexes: dict[str, tuple[str, bytes]]  # column -> (index type, bytes)
    stats: dict[str, tuple[Any, Any, int]]  # column -> (min, max, null count)


def _string_stats(values: Sequence[str | None]) -> tuple[Any, Any, int]:
    present = [v for v in values if v is not None]
    return (min(present) if present else None, max(present) if present else None, len(values) - len(present))


def _make_pattern(rng: np.random.Generator, k: int, rows: int) -> _Pattern:
    """Pattern ``k``: every third one is "wide" (many distinct values, nulls: a large container)."""
    wide = k % 3 == 2
    if wide:
        pool = rng.choice(len(COUNTRIES), 12, replace=False)
        country: list[str | None] = [COUNTRIES[i] for i in rng.choice(pool, rows)]
        for i in np.flatnonzero(rng.random(rows) < 0.02):
            country[i] = None
        status: list[str | None] = [STATUSES[i] for i in rng.integers(0, len(STATUSES), rows)]
        for i in np.flatnonzero(rng.random(rows) < 0.05):
            status[i] = None
        lo = int(rng.integers(0, 600))
        score = rng.integers(lo, lo + 400, rows).astype(np.int32)
    else:
        pool = rng.choice(len(COUNTRIES), 3, replace=False)
        country = [COUNTRIES[i] for i in rng.choice(pool, rows)]
        spool = rng.choice(len(STATUSES), 2, replace=False)
        status = [STATUSES[i] for i in rng.choice(spool, rows)]
        # two clusters far apart: min/max span both, the range-bitmap knows the gap
        a, b = sorted(int(x) for x in rng.choice(np.arange(0, 1000, 50), 2, replace=False))
        values = np.concatenate([rng.integers(a, a + 50, 4), rng.integers(b, b + 50, 4)])
        score = rng.choice(values, rows).astype(np.int32)
    indexes = {
        "country": ("bitmap", write_bitmap_index(_TYPES["country"], country)),
        "status": ("bitmap", write_bitmap_index(_TYPES["status"], status)),
        "score": ("range-bitmap", write_range_bitmap(_TYPES["score"], score.tolist())),
    }
    stats = {
        "country": _string_stats(country),
        "status": _string_stats(status),
        "score": (int(score.min()), int(score.max()), 0),
    }
    return _Pattern(country, status, score, indexes, stats)


def _container(pattern: _Pattern, bloom: bytes) -> bytes:
    """The file-index container of one data file."""
    by_column = {"id": ("bloom-filter", bloom), **pattern.indexes}
    return write_file_index({c: {by_column[c][0]: by_column[c][1]} for c in CONTAINER_ORDER})


# ---- writing ------------------------------------------------------------------------------------

def _uuid(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def _json(obj: Any) -> str:
    """JSON the way Paimon's Jackson pretty printer writes it (``"key" : value``)."""
    return json.dumps(obj, indent=2, separators=(",", " : "))


def _write_avro(path: Path, schema: dict[str, Any], records: list[dict[str, Any]], r: random.Random) -> int:
    import fastavro

    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec="zstandard",
                    sync_marker=r.getrandbits(128).to_bytes(16, "big"))
    data = buf.getvalue()
    path.write_bytes(data)
    return len(data)


def _stats_record(mins: Sequence[Any], maxs: Sequence[Any], nulls: Sequence[int],
                  types: Sequence[DataType]) -> dict[str, Any]:
    return {"_MIN_VALUES": encode_binary_row(mins, types), "_MAX_VALUES": encode_binary_row(maxs, types),
            "_NULL_COUNTS": list(nulls)}


def _decimal_array(unscaled: npt.NDArray[np.int64], precision: int, scale: int) -> Any:
    """A pyarrow decimal128 array from unscaled 64-bit values (no Python Decimal objects)."""
    import pyarrow as pa

    words = np.empty((len(unscaled), 2), dtype=np.int64)
    words[:, 0] = unscaled
    words[:, 1] = unscaled >> 63
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(unscaled),
                                 [None, pa.py_buffer(words.tobytes())])


def _arrow_schema(primary_key: bool) -> Any:
    import pyarrow as pa

    def field(name: str, typ: Any, fid: int, nullable: bool = True) -> Any:
        return pa.field(name, typ, nullable, metadata={b"PARQUET:field_id": str(fid).encode()})

    fields = []
    if primary_key:
        fields += [field("_KEY_id", pa.int64(), KEY_FIELD_ID_START + 0, False),
                   field("_SEQUENCE_NUMBER", pa.int64(), SEQUENCE_NUMBER_FIELD_ID, False),
                   field("_VALUE_KIND", pa.int8(), VALUE_KIND_FIELD_ID, False)]
    fields += [
        field("id", pa.int64(), 0, not primary_key), field("user_id", pa.int32(), 1),
        field("country", pa.string(), 2), field("status", pa.string(), 3), field("score", pa.int32(), 4),
        field("amount", pa.float64(), 5), field("price", pa.decimal128(10, 2), 6),
        field("ts", pa.timestamp("ms"), 7), field("dt", pa.string(), 8, not primary_key),
    ]
    return pa.schema(fields)


def _schema_json(primary_key: bool, buckets: int, rows_per_file: int, threshold: int) -> dict[str, Any]:
    fields = []
    for fid, name, typ in COLUMNS:
        if primary_key and name in ("id", "dt"):
            typ += " NOT NULL"
        fields.append({"id": fid, "name": name, "type": typ})
    options = {
        "bucket": str(buckets),
        "file.format": "parquet",
        "file-index.bloom-filter.columns": "id",
        "file-index.bloom-filter.id.items": str(rows_per_file),
        "file-index.bloom-filter.id.fpp": str(BLOOM_FPP),
        "file-index.bitmap.columns": "country,status",
        "file-index.range-bitmap.columns": "score",
        "file-index.in-manifest-threshold": f"{threshold} b",
    }
    if primary_key:
        options["deletion-vectors.enabled"] = "true"
    else:
        options["bucket-key"] = "user_id"
    return {
        "version": 3, "id": 0, "fields": fields, "highestFieldId": len(COLUMNS) - 1,
        "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"] if primary_key else [],
        "options": options, "timeMillis": COMMIT_MILLIS - 60_000,
    }


def _assign_ids(rng: np.random.Generator, slots: list[tuple[int, int]], rows: int, buckets: int,
                primary_key: bool) -> list[npt.NDArray[np.int64]]:
    """The ``id`` values of every file (slot = (partition, bucket)).

    Append tables: a random permutation per partition, so every file's min/max spans almost the
    whole partition and only the bloom filter can tell files apart. Primary-key tables: ids that
    hash to the file's bucket, sorted and cut into consecutive non-overlapping ranges per bucket.
    """
    per_part: dict[int, list[int]] = {}
    for i, (p, _) in enumerate(slots):
        per_part.setdefault(p, []).append(i)
    stride = 10 ** max(8, math.ceil(math.log10(4 * rows * max(len(v) for v in per_part.values()) + 1)))
    out: list[npt.NDArray[np.int64]] = [np.empty(0, np.int64)] * len(slots)
    for p, idx in per_part.items():
        need = rows * len(idx)
        if not primary_key:
            ids = p * stride + rng.permutation(need).astype(np.int64) * 3
            for j, i in enumerate(idx):
                out[i] = ids[j * rows:(j + 1) * rows]
            continue
        cand = p * stride + np.arange(3 * need + 64, dtype=np.int64)
        cb = paimon_bucket(cand, "BIGINT", buckets)
        by_bucket: dict[int, list[int]] = {}
        for i in idx:
            by_bucket.setdefault(slots[i][1], []).append(i)
        for b, files in by_bucket.items():
            pool = cand[cb == b]
            chosen = np.sort(rng.choice(pool, rows * len(files), replace=False))
            for j, i in enumerate(files):
                out[i] = chosen[j * rows:(j + 1) * rows]
    return out


def make_table(root: Path, *, files: int = 10_000, partitions: int = 20, buckets: int = 4,
               rows_per_file: int = 200, primary_key: bool = False, seed: int = 0,
               data_files: bool = True) -> Path:
    """Write a synthetic Paimon 2.0-style table into the directory ``root`` and return it.

    Args:
        root: the table directory to create (must not exist or be empty).
        files: live data files.
        partitions: values of the partition key ``dt`` (days from 2025-01-01).
        buckets: fixed buckets per partition (bucket key ``user_id``, or the primary key ``id``).
        rows_per_file: rows of every data file.
        primary_key: write a primary-key table (key ``dt, id``) with deletion vectors.
        seed: everything generated (data, UUIDs, Avro sync markers) follows from it.
        data_files: write the parquet data files (needed for ``explain(..., truth=True)``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if min(files, partitions, buckets, rows_per_file) < 1:
        raise ValueError("files, partitions, buckets and rows_per_file must be positive")
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    rng = np.random.default_rng(seed)
    names = random.Random(seed)
    rows = rows_per_file
    days = [(FIRST_DAY + _dt.timedelta(days=p)).isoformat() for p in range(partitions)]
    part_rows = [encode_binary_row([d], [_STRING]) for d in days]

    # which (partition, bucket) each file lives in, sorted the way the manifests list them
    slots = sorted((i % partitions, (i // partitions) % buckets) for i in range(files))
    patterns = [_make_pattern(rng, k, rows) for k in range(min(PATTERNS, files))]
    pattern_of = rng.integers(0, len(patterns), files)
    ids = _assign_ids(rng, slots, rows, buckets, primary_key)
    user_pool: dict[int, npt.NDArray[np.int64]] = {}
    if not primary_key:
        users = np.arange(USERS, dtype=np.int64)
        ub = paimon_bucket(users, "INT", buckets)
        user_pool = {b: users[ub == b] for b in range(buckets)}

    # containers differ only by pattern (the bloom filter has a fixed size): pick the threshold
    bloom_len = len(BloomFilterFileIndexWriter(_BIGINT, rows, BLOOM_FPP).serialized_bytes())
    pattern_size = [len(_container(pt, b"\0" * bloom_len)) for pt in patterns]
    sizes = sorted(pattern_size[k] for k in pattern_of)
    threshold = sizes[max(0, math.ceil(2 * files / 3) - 1)]

    for sub in ("schema", "snapshot", "manifest"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "schema" / "schema-0").write_text(_json(_schema_json(primary_key, buckets, rows, threshold)))
    arrow_schema = _arrow_schema(primary_key)
    value_kind = pa.array(np.zeros(rows, dtype=np.int8))
    pattern_arrays = [(pa.array(pt.country, pa.string()), pa.array(pt.status, pa.string()),
                       pa.array(pt.score, pa.int32())) for pt in patterns]
    empty_row = encode_binary_row([], [])
    empty_stats = {"_MIN_VALUES": empty_row, "_MAX_VALUES": empty_row, "_NULL_COUNTS": []}
    sequence: dict[tuple[int, int], int] = {}
    entries: list[dict[str, Any]] = []
    made_dirs: set[Path] = set()
    day0_ms = (FIRST_DAY - _dt.date(1970, 1, 1)).days * DAY_MS

    for i, (p, b) in enumerate(slots):
        pt = patterns[pattern_of[i]]
        file_ids = ids[i]
        if primary_key:
            user_id = rng.integers(0, USERS, rows)
        else:
            pool = user_pool[b]
            user_id = pool[rng.integers(0, len(pool), rows)]
        amount = np.round(rng.random(rows) * 1000.0, 2)
        amount_null = rng.random(rows) < 0.03
        price = rng.integers(100, 1_000_000, rows).astype(np.int64)
        ts_ms = day0_ms + p * DAY_MS + np.sort(rng.integers(0, DAY_MS, rows))
        seq0 = sequence.get((p, b), 0)
        sequence[(p, b)] = seq0 + rows

        present = amount[~amount_null]
        mins = [int(file_ids.min()), int(user_id.min()), pt.stats["country"][0], pt.stats["status"][0],
                pt.stats["score"][0], float(present.min()) if len(present) else None,
                Decimal(int(price.min())).scaleb(-2), Timestamp(int(ts_ms.min())), days[p]]
        maxs = [int(file_ids.max()), int(user_id.max()), pt.stats["country"][1], pt.stats["status"][1],
                pt.stats["score"][1], float(present.max()) if len(present) else None,
                Decimal(int(price.max())).scaleb(-2), Timestamp(int(ts_ms.max())), days[p]]
        nulls = [0, 0, pt.stats["country"][2], pt.stats["status"][2], 0, int(amount_null.sum()), 0, 0, 0]

        bloom = BloomFilterFileIndexWriter(_BIGINT, rows, BLOOM_FPP)
        bloom.write_many(file_ids)
        container = _container(pt, bloom.serialized_bytes())
        name = f"data-{_uuid(names)}-0.parquet"
        directory = root / f"dt={days[p]}" / f"bucket-{b}"
        if directory not in made_dirs:
            directory.mkdir(parents=True, exist_ok=True)
            made_dirs.add(directory)
        embedded: bytes | None = container
        extra: list[str] = []
        if len(container) > threshold:
            embedded = None
            extra = [name + ".index"]
            (directory / extra[0]).write_bytes(container)

        if data_files:
            columns = [pa.array(file_ids, pa.int64()), pa.array(user_id.astype(np.int32), pa.int32()),
                       *pattern_arrays[pattern_of[i]], pa.array(amount, pa.float64(), mask=amount_null),
                       _decimal_array(price, 10, 2), pa.array(ts_ms, pa.timestamp("ms")),
                       pa.array([days[p]] * rows, pa.string())]
            if primary_key:
                columns = [columns[0], pa.array(seq0 + np.arange(rows, dtype=np.int64)), value_kind, *columns]
            sink = pa.BufferOutputStream()
            pq.write_table(pa.Table.from_arrays(columns, schema=arrow_schema), sink, compression="zstd")
            data = sink.getvalue()
            (directory / name).write_bytes(data)
            file_size = data.size
        else:
            file_size = 2_500 + 28 * rows + int(rng.integers(0, 200))

        if primary_key:
            min_key = encode_binary_row([mins[0]], [_BIGINT])
            max_key = encode_binary_row([maxs[0]], [_BIGINT])
            key_stats = {"_MIN_VALUES": min_key, "_MAX_VALUES": max_key, "_NULL_COUNTS": [0]}
        else:
            min_key = max_key = empty_row
            key_stats = empty_stats
        entries.append({
            "_VERSION": 2, "_KIND": 0, "_PARTITION": part_rows[p], "_BUCKET": b, "_TOTAL_BUCKETS": buckets,
            "_FILE": {
                "_FILE_NAME": name, "_FILE_SIZE": file_size, "_ROW_COUNT": rows,
                "_MIN_KEY": min_key, "_MAX_KEY": max_key, "_KEY_STATS": key_stats,
                "_VALUE_STATS": _stats_record(mins, maxs, nulls, _STATS_TYPES),
                "_MIN_SEQUENCE_NUMBER": seq0, "_MAX_SEQUENCE_NUMBER": seq0 + rows - 1,
                "_SCHEMA_ID": 0, "_LEVEL": PK_LEVEL if primary_key else 0, "_EXTRA_FILES": extra,
                "_CREATION_TIME": COMMIT_MILLIS - 1000 * (files - i), "_DELETE_ROW_COUNT": 0,
                "_EMBEDDED_FILE_INDEX": embedded, "_FILE_SOURCE": 1 if primary_key else 0,
                "_VALUE_STATS_COLS": None, "_EXTERNAL_PATH": None, "_FIRST_ROW_ID": None, "_WRITE_COLS": None,
            },
        })

    # ---- manifests, manifest lists ----------------------------------------------------------------
    writer_uuid = _uuid(names)
    metas: list[dict[str, Any]] = []
    for n, start in enumerate(range(0, len(entries), MANIFEST_ENTRIES)):
        chunk = entries[start:start + MANIFEST_ENTRIES]
        mname = f"manifest-{writer_uuid}-{n}"
        size = _write_avro(root / "manifest" / mname, MANIFEST_SCHEMA, chunk, names)
        parts = sorted({e["_PARTITION"] for e in chunk}, key=lambda raw: days[part_rows.index(raw)])
        bucket_ids = [e["_BUCKET"] for e in chunk]
        levels = [e["_FILE"]["_LEVEL"] for e in chunk]
        metas.append({
            "_VERSION": 2, "_FILE_NAME": mname, "_FILE_SIZE": size, "_NUM_ADDED_FILES": len(chunk),
            "_NUM_DELETED_FILES": 0,
            "_PARTITION_STATS": {"_MIN_VALUES": parts[0], "_MAX_VALUES": parts[-1], "_NULL_COUNTS": [0]},
            "_SCHEMA_ID": 0, "_MIN_BUCKET": min(bucket_ids), "_MAX_BUCKET": max(bucket_ids),
            "_MIN_LEVEL": min(levels), "_MAX_LEVEL": max(levels), "_MIN_ROW_ID": None, "_MAX_ROW_ID": None,
        })
    list_uuid = _uuid(names)
    base_name, delta_name = f"manifest-list-{list_uuid}-0", f"manifest-list-{list_uuid}-1"
    base_size = _write_avro(root / "manifest" / base_name, MANIFEST_LIST_SCHEMA, metas[:-1], names)
    delta_size = _write_avro(root / "manifest" / delta_name, MANIFEST_LIST_SCHEMA, metas[-1:], names)
    delta_rows = rows * metas[-1]["_NUM_ADDED_FILES"]

    # ---- deletion vectors (primary-key tables) ----------------------------------------------------
    index_manifest: str | None = None
    if primary_key:
        statuses = [patterns[k].status for k in pattern_of]
        index_manifest = _write_deletion_vectors(root, rng, names, slots, entries, part_rows, statuses)

    snapshot: dict[str, Any] = {
        "version": 3, "uuid": _uuid(names), "id": 1, "schemaId": 0,
        "baseManifestList": base_name, "baseManifestListSize": base_size,
        "deltaManifestList": delta_name, "deltaManifestListSize": delta_size,
    }
    if index_manifest is not None:
        snapshot["indexManifest"] = index_manifest
    snapshot.update({
        "commitUser": _uuid(names), "commitIdentifier": 9223372036854775807,
        "commitKind": "COMPACT" if primary_key else "APPEND", "timeMillis": COMMIT_MILLIS,
        "totalRecordCount": rows * files, "deltaRecordCount": delta_rows, "nextRowId": 0,
    })
    (root / "snapshot" / "snapshot-1").write_text(_json(snapshot))
    (root / "snapshot" / "LATEST").write_text("1")
    (root / "snapshot" / "EARLIEST").write_text("1")
    return root


def _write_deletion_vectors(root: Path, rng: np.random.Generator, names: random.Random,
                            slots: list[tuple[int, int]], entries: list[dict[str, Any]],
                            part_rows: list[bytes], statuses: list[list[str | None]]) -> str | None:
    """DV index files (one per bucket that has deletions) and the index manifest; its name.

    ~30 % of the files get a deletion vector. Half of those delete every row with one ``status``
    value (as if those rows had all been updated since), so a bitmap index on ``status`` can select
    only deleted rows and the reader skips the file at the deletion-vector stage; the others delete
    1-20 % random rows.
    """
    (root / "index").mkdir(exist_ok=True)
    by_bucket: dict[tuple[int, int], list[tuple[str, list[int]]]] = {}
    for (p, b), e, status in zip(slots, entries, statuses):
        if rng.random() >= DV_FILE_FRACTION:
            continue
        rows = len(status)
        if rows < 2:
            continue  # a vector deleting the only row would leave an empty file, which Paimon drops
        values = sorted({v for v in status if v is not None})
        positions: list[int] = []
        if rng.random() < 0.5 and len(values) > 1:
            gone = values[int(rng.integers(0, len(values)))]
            positions = [i for i, v in enumerate(status) if v == gone]
        if not positions:
            k = int(rng.integers(1, max(2, rows // 5)))
            positions = sorted(int(x) for x in rng.choice(rows, min(k, rows), replace=False))
        by_bucket.setdefault((p, b), []).append((e["_FILE"]["_FILE_NAME"], positions))
    writer_uuid = _uuid(names)
    records: list[dict[str, Any]] = []
    for n, ((p, b), vectors) in enumerate(sorted(by_bucket.items())):
        data, metas = write_dv_index_file(vectors)
        fname = f"index-{writer_uuid}-{n}"
        (root / "index" / fname).write_bytes(data)
        records.append({
            "_VERSION": 1, "_KIND": 0, "_PARTITION": part_rows[p], "_BUCKET": b,
            "_INDEX_TYPE": "DELETION_VECTORS", "_FILE_NAME": fname, "_FILE_SIZE": len(data),
            "_ROW_COUNT": len(metas),
            "_DELETIONS_VECTORS_RANGES": [{"f0": m.data_file, "f1": m.offset, "f2": m.length,
                                           "_CARDINALITY": m.cardinality} for m in metas],
            "_EXTERNAL_PATH": None, "_GLOBAL_INDEX": None,
        })
    if not records:
        return None  # no deletion vector: the snapshot has no index manifest
    name = f"index-manifest-{_uuid(names)}-0"
    _write_avro(root / "manifest" / name, INDEX_MANIFEST_SCHEMA, records, names)
    return name


if __name__ == "__main__":  # pragma: no cover - manual use
    import argparse
    import time

    ap = argparse.ArgumentParser(description="write a synthetic Paimon table")
    ap.add_argument("root", type=Path)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--partitions", type=int, default=20)
    ap.add_argument("--buckets", type=int, default=4)
    ap.add_argument("--rows-per-file", type=int, default=200)
    ap.add_argument("--primary-key", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-data-files", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    make_table(a.root, files=a.files, partitions=a.partitions, buckets=a.buckets, rows_per_file=a.rows_per_file,
               primary_key=a.primary_key, seed=a.seed, data_files=not a.no_data_files)
    print(f"{a.root}: {a.files} files in {time.perf_counter() - t0:.1f} s")
