"""A Paimon table whose names and values are HTML/JS payloads (written with paimon_lens.writer)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from paimon_lens.writer import TableWriter

MARK = "PWNED"
SCRIPT_COL = f"<script>document.title='{MARK}';window.__pwned=1</script>"
IMG_COL = f"<img src=x onerror=\"document.title='{MARK}';window.__pwned=2\">"
PAYLOADS = (
    f"<script>document.title='{MARK}'</script>",
    f"<img src=x onerror=\"window.__pwned=3;document.title='{MARK}'\">",
    "<svg onload=\"window.__pwned=4\"></svg>",
    "\"><iframe srcdoc=\"<script>parent.__pwned=5</script>\"></iframe>",
    f"javascript:window.__pwned=6//{MARK}",
    "$x^2$ </style><b>bold</b> {{7*7}} ${7*7}",
)


def write_hostile_table(root: Path) -> Path:
    """Three commits of a table with payload column names, partition values and bitmap values."""
    schema = pa.schema([("id", pa.int64()), (SCRIPT_COL, pa.string()), (IMG_COL, pa.int32()),
                        ("region", pa.string())])
    options = {
        "file-index.bitmap.columns": SCRIPT_COL,
        "file-index.bloom-filter.columns": "id",
        "file-index.range-bitmap.columns": IMG_COL,
        "file-index.in-manifest-threshold": "64 b",
    }
    w = TableWriter.create(root, schema, partition_keys=["region"], options=options)
    for commit in range(3):
        n = 60
        ids = list(range(commit * n, (commit + 1) * n))
        w.commit(pa.table({
            "id": ids,
            SCRIPT_COL: [PAYLOADS[i % len(PAYLOADS)] for i in ids],
            IMG_COL: [i % 17 for i in ids],
            "region": [PAYLOADS[(i // 7) % 2] for i in ids],
        }, schema=schema), rows_per_file=25)
    return root


def hostile_workload() -> list[str]:
    """Predicates that name the payload columns and values (they end up in the report)."""
    col = "`" + SCRIPT_COL.replace("`", "``") + "`"
    img = "`" + IMG_COL.replace("`", "``") + "`"
    value = "'" + PAYLOADS[1].replace("'", "''") + "'"
    return [f"{col} = {value}", f"{img} > 10 AND region = {value}", f"{col} IN ({value}, 'x') OR id = 5",
            "no_such_column_<script>x</script> = 1", col + " = '{{7*7}} ${7*7}'"]
