"""A streaming writer for live-race tests: it commits, deletes, compacts, adds a column and expires in
Paimon's order beside readers, and logs what each snapshot holds.

Run as ``python -m tests.live_writer TABLE LOG SECONDS``: the table is created, then for ``SECONDS``
each round appends rows (ids counting up), every 3rd round deletes rows by deletion vectors, every
5th compacts, round 4 adds a column, and every round expires all but the newest 2 snapshots with
their unused files (``TableWriter.expire_snapshots(delete_files=True)``). After each snapshot a JSON
line ``{"snapshot_id", "rows", "files", "action"}`` goes to ``LOG``: the live rows (ids not deleted)
and live data files of that snapshot, the truth readers are checked against.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from paimon_lens.metadata.snapshot_reader import open_reader
from paimon_lens.writer import TableWriter

ROWS = 30
WHERE = "id >= 0"


def create(path: Path) -> TableWriter:
    """The table: ``id BIGINT, country STRING``, partitioned by ``country``, deletion vectors on."""
    schema = pa.schema([("id", pa.int64()), ("country", pa.string())])
    return TableWriter.create(path, schema, partition_keys=["country"],
                              options={"deletion-vectors.enabled": "true", "manifest.merge-min-count": "3",
                                       "file-index.bloom-filter.columns": "id",
                                       "file-index.in-manifest-threshold": "1 b"})


def batch(k: int, columns: list[str]) -> pa.Table:
    """Round ``k``'s rows: ids ``ROWS * k`` .. ``ROWS * (k + 1) - 1``."""
    ids = list(range(ROWS * k, ROWS * (k + 1)))
    data = {"id": pa.array(ids, pa.int64()), "country": [("DE", "FR", "US")[i % 3] for i in ids]}
    if "note" in columns:
        data["note"] = [f"n{i}" for i in ids]
    return pa.table(data)


def run(path: Path, log: Path, seconds: float) -> int:
    """The writer's loop; returns the number of snapshots it committed."""
    w = create(path)
    alive: set[int] = set()
    columns = ["id", "country"]
    deadline = time.monotonic() + seconds
    k = 0
    with log.open("w", encoding="utf-8") as out:

        def record(sid: int | None, action: str) -> None:
            if sid is None:
                return
            files = len(open_reader(str(path), snapshot=sid).live_files())
            out.write(json.dumps({"snapshot_id": sid, "rows": len(alive), "files": files, "action": action}) + "\n")
            out.flush()

        while time.monotonic() < deadline:
            data = batch(k, columns)
            sid = w.commit(data, rows_per_file=ROWS // 3)
            alive.update(data["id"].to_pylist())
            record(sid, "append")
            if k % 3 == 2:
                doomed = {i for i in alive if i % 7 == k % 7}
                sid = w.delete(lambda rows, d=frozenset(doomed): pc.is_in(rows["id"], pa.array(sorted(d), pa.int64())))
                alive -= doomed
                record(sid, "delete")
            if k % 5 == 4:
                record(w.compact(min_files=2), "compact")
            if k == 4:
                w.alter(add_columns=pa.schema([("note", pa.string())]))
                columns.append("note")
            w.expire_snapshots(retain_last=2, delete_files=True)
            k += 1
    return k


if __name__ == "__main__":
    print(run(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])))
