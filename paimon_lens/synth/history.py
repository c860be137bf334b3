"""A synthetic table *history*: a few days of an append table's life, written with paimon-lens' writer.

>>> from paimon_lens.synth.history import write_history
>>> h = write_history("/tmp/orders_history", seed=7)          # doctest: +SKIP
>>> h["mishap_compaction"], h["rare_query"]                  # doctest: +SKIP

The table (``orders``: ``id BIGINT, user_id INT, country STRING, status STRING, score INT,
amount DOUBLE, dt STRING``) is partitioned by ``dt``, has 2 fixed buckets on ``id`` and
``deletion-vectors.enabled``. Its history, deterministic for a seed (file names and times aside):

1. streaming appends of small files, ``appends`` in all, spread evenly over ``days`` partitions
   (``dt``), each one ``rows_per_append`` rows of one day; a tag ``daily-<dt>`` after each day;
2. a third of the way in, ``alter`` adds a bitmap index on ``status`` and a bloom filter on
   ``id`` (schema 1): the files written before have no index;
3. after the second day, a partial compaction of the first day's partition (its files are
   rewritten with the indexes);
4. during the third day, two deletes by deletion vectors in the second day's partition;
5. later that day, ``alter`` adds a column ``channel STRING`` (schema 2);
6. after the third day, a full compaction (every partition and bucket, indexes rebuilt on
   everything, the deletion vectors gone);
7. the remaining days' appends, then a mishap: ``alter`` resets ``file-index.bitmap.columns``
   (schema 3) and a compaction of the last day's partition rewrites its indexed files into files
   without the bitmap index on ``status``: ``status = 'disputed'`` (a status of two rows, written
   on the first two days), which the bitmap indexes let Paimon skip almost every file for, reads
   that whole partition afterwards;
8. a late delete in the third day's partition, so the latest snapshot has deletion vectors.

:func:`write_history` returns which snapshot did what (see its docstring). For long histories
(hundreds or thousands of commits, data files written by Spark tasks) see
:func:`paimon_lens.synth.history_job.synth_history`.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

STATUSES = ("created", "paid", "shipped", "delivered", "returned")
STATUS_WEIGHTS = (30, 30, 20, 15, 5)
RARE_STATUS = "disputed"  # sorts between the common statuses: min/max stats never skip it
COUNTRIES = ("DE", "FR", "US", "JP", "BR", "IN", "GB", "NL")
CHANNELS = ("web", "app", "store", None)
BITMAP_OPTION = "file-index.bitmap.columns"
ADDED_COLUMN = "channel"
FIRST_DAY = "2025-03-01"


def history_schema() -> pa.Schema:
    """The columns of the table when it is created."""
    import pyarrow as pa

    return pa.schema([("id", pa.int64()), ("user_id", pa.int32()), ("country", pa.string()),
                      ("status", pa.string()), ("score", pa.int32()), ("amount", pa.float64()), ("dt", pa.string())])


def _days(days: int) -> list[str]:
    import datetime as dt

    first = dt.date.fromisoformat(FIRST_DAY)
    return [(first + dt.timedelta(days=d)).isoformat() for d in range(days)]


class _Rows:
    """Deterministic rows: ids count up, the rest drawn from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.next_id = 1

    def batch(self, n: int, day: str, rare: int, channel: bool) -> pa.Table:
        import pyarrow as pa

        r = self.rng
        ids = list(range(self.next_id, self.next_id + n))
        self.next_id += n
        status = r.choices(STATUSES, STATUS_WEIGHTS, k=n)
        for i in r.sample(range(n), min(rare, n)):
            status[i] = RARE_STATUS
        cols: dict[str, Any] = {
            "id": pa.array(ids, pa.int64()), "user_id": pa.array([r.randint(1, 5000) for _ in ids], pa.int32()),
            "country": r.choices(COUNTRIES, (25, 15, 20, 10, 10, 10, 5, 5), k=n), "status": status,
            "score": pa.array([r.randint(0, 100) for _ in ids], pa.int32()),
            "amount": [round(r.uniform(1, 500), 2) for _ in ids], "dt": [day] * n,
        }
        if channel:
            cols[ADDED_COLUMN] = r.choices(CHANNELS, (50, 35, 10, 5), k=n)
        return pa.table(cols)


def _mask(rows: pa.Table, day: str, test: Any) -> list[bool]:
    """Rows of partition ``day`` that ``test(row)`` deletes (never the rare status)."""
    cols = {name: rows.column(name).to_pylist() for name in ("dt", "user_id", "status", "score")}
    return [cols["dt"][i] == day and cols["status"][i] != RARE_STATUS
            and bool(test({k: v[i] for k, v in cols.items()})) for i in range(rows.num_rows)]


def write_history(path: str | os.PathLike[str], *, seed: int = 7, appends: int = 24, rows_per_append: int = 400,
                  days: int = 4, rare_rows: int = 2) -> dict[str, Any]:
    """Write the history of the module docstring into the new table directory ``path``.

    Args:
        path: a new (or empty) directory.
        seed: the random seed of the rows and of which appends hold the rare status.
        appends: number of APPEND commits (at least 2 per day).
        rows_per_append: rows of each append (at least 20).
        days: number of ``dt`` partitions (at least 4).
        rare_rows: rows with status ``'disputed'`` (each in another append of the first two days).

    Returns:
        ``{"path", "seed", "days", "rare_status", "rare_query", "appends": [ids], "index_schema": 1,
        "index_added": first snapshot written with the indexes, "partial_compaction": id,
        "partial_compaction_partition": dt, "deletes": [ids], "delete_partition": dt,
        "column_schema": 2, "added_column": "channel", "column_added": first snapshot with the
        column, "full_compaction": id, "mishap_schema": 3, "mishap_option",
        "before_mishap": the snapshot before the mishap compaction, "mishap_compaction": id,
        "mishap_partition": dt, "late_delete": id, "late_delete_partition": dt,
        "tags": {"daily-<dt>": id}, "latest": id, "schemas": 4, "rows": rows appended}``.
        Snapshot ids are the same for the same arguments.
    """
    import pyarrow as pa

    from ..writer import TableWriter

    if days < 4:
        raise ValueError("days must be at least 4 (index, deletes, full compaction and mishap each need a day)")
    if appends < 2 * days:
        raise ValueError(f"appends must be at least 2 per day: {2 * days} for {days} days")
    if rows_per_append < 20:
        raise ValueError("rows_per_append must be at least 20")
    dts = _days(days)
    day_of = [i * days // appends for i in range(appends)]
    first_of_day = {d: day_of.index(d) for d in range(days)}
    rng = random.Random(seed ^ 0x5EED)
    early = [i for i in range(appends) if day_of[i] < 2]
    rare_in = set(rng.sample(early, min(rare_rows, len(early))))
    index_after = max(0, appends // 3 - 1)  # the alter follows this append
    third_day = [i for i in range(appends) if day_of[i] == 2]
    deletes_after = third_day[len(third_day) // 3]
    column_after = third_day[(2 * len(third_day)) // 3] if len(third_day) > 2 else third_day[-1]

    writer = TableWriter.create(path, history_schema(), partition_keys=["dt"], bucket=2, bucket_key="id",
                                options={"deletion-vectors.enabled": "true"})
    rows = _Rows(seed)
    out: dict[str, Any] = {"path": str(Path(path)), "seed": seed, "days": dts, "rare_status": RARE_STATUS,
                           "rare_query": f"status = '{RARE_STATUS}'", "appends": [], "deletes": [], "tags": {},
                           "rows": 0}
    last = 0

    def done(sid: int | None) -> int | None:
        nonlocal last
        last = sid or last
        return sid

    for i in range(appends):
        day = day_of[i]
        if i == first_of_day[3]:
            out["full_compaction"] = done(writer.compact(min_files=1))
        batch = rows.batch(rows_per_append, dts[day], int(i in rare_in), "column_schema" in out)
        out["appends"].append(done(writer.commit(batch)))
        out["rows"] += rows_per_append
        if "index_schema" in out:
            out.setdefault("index_added", last)
        if "column_schema" in out:
            out.setdefault("column_added", last)
        if i == index_after:
            out["index_schema"] = writer.alter(set_options={
                BITMAP_OPTION: "status", "file-index.bloom-filter.columns": "id",
                "file-index.bloom-filter.id.items": str(rows_per_append)})
        if i + 1 == appends or day_of[i + 1] != day:
            out["tags"][f"daily-{dts[day]}"] = last
            writer.tag(f"daily-{dts[day]}", last)
            if day == 1:
                out["partial_compaction_partition"] = dts[0]
                out["partial_compaction"] = done(writer.compact({"dt": dts[0]}))
        if i == deletes_after:
            out["delete_partition"] = dts[1]
            out["deletes"].append(done(writer.delete(
                lambda t: _mask(t, dts[1], lambda r: r["user_id"] % 13 == 0))))
            out["deletes"].append(done(writer.delete(
                lambda t: _mask(t, dts[1], lambda r: r["status"] == "returned" and r["score"] < 30))))
        if i == column_after:
            out["column_schema"] = writer.alter(add_columns=pa.schema([(ADDED_COLUMN, pa.string())]))
            out["added_column"] = ADDED_COLUMN

    out["mishap_option"] = BITMAP_OPTION
    out["mishap_schema"] = writer.alter(reset_options=[BITMAP_OPTION])
    out["mishap_partition"] = dts[-1]
    out["before_mishap"] = last
    out["mishap_compaction"] = done(writer.compact({"dt": dts[-1]}))
    out["late_delete_partition"] = dts[2]
    out["late_delete"] = done(writer.delete(lambda t: _mask(t, dts[2], lambda r: r["score"] > 96)))
    out["latest"] = last
    out["schemas"] = writer.schema.id + 1
    return out
