"""The ``paimon-lens`` command line.

Subcommands print a readable table by default and one JSON object with ``--format json``; the
JSON shapes are a contract relied on by scripts (fields are added, never renamed or removed).

    paimon-lens files TABLE_PATH [--snapshot ID|latest|earliest|tag:NAME|ISO-TIME] [--format json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import PaimonLensError


def _human_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _print_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], out: Any) -> None:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for i, r in enumerate(cells):
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
        if i == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def _open(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ..table import open_table

    return open_table(args.table, snapshot=args.snapshot)


def cmd_files(args: argparse.Namespace, out: Any) -> int:
    """``files``: the live data files of a snapshot with decoded stats."""
    from .frames import file_record

    table = _open(args)
    records = [file_record(table, lf, as_json=True) for lf in table.live_files()]
    if args.format == "json":
        doc = {"table": table.path, "snapshot_id": table.snapshot_id, "schema_id": table.schema.id,
               "files": records}
        json.dump(doc, out, ensure_ascii=False, allow_nan=False)
        out.write("\n")
        return 0
    out.write(f"table {table.path}  snapshot {table.snapshot_id}  schema {table.schema.id}  "
              f"{len(records)} live files\n\n")
    rows = []
    for r in records:
        part = ",".join(f"{k}={v}" for k, v in r["partition"].items()) or "-"
        idx = r["file_index"]
        rows.append([part, r["bucket"], r["level"], r["file_name"], r["row_count"], _human_bytes(r["file_size"]),
                     r["schema_id"], r["file_source"],
                     "-" if idx["location"] == "none" else f"{idx['location']} {_human_bytes(idx['size'])}"])
    _print_table(rows, ["partition", "bucket", "level", "file", "rows", "size", "schema", "source", "index"], out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``paimon-lens``."""
    from .. import __version__

    p = argparse.ArgumentParser(prog="paimon-lens",
                                description="See inside Apache Paimon tables: files, indexes, deletion vectors.")
    p.add_argument("--version", action="version", version=f"paimon-lens {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    files = sub.add_parser("files", help="list the live data files of a snapshot with decoded stats")
    files.add_argument("table", help="table directory (local path or s3://, hdfs://, oss:// URL)")
    files.add_argument("--snapshot", default=None,
                       help="snapshot id, 'latest' (default), 'earliest', 'tag:NAME' or an ISO timestamp")
    files.add_argument("--format", choices=("table", "json"), default="table")
    files.set_defaults(func=cmd_files)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paimon-lens`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args, sys.stdout)
        return code
    except PaimonLensError as e:
        print(f"paimon-lens: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
