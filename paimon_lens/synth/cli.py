"""The ``paimon-lens synth`` subcommand (registered by :func:`add_synth_parser`).

::

    paimon-lens synth OUT_TABLE_DIR --rows N --files N [--partitions N] [--primary-key [order_id]]
        [--buckets N] [--deletion-vectors] [--indexes TYPE:COL[,COL] ...] [--option KEY=VALUE ...]
        [--seed S] [--local | --master URL] [--format table|json]
    paimon-lens synth OUT_TABLE_DIR --history [--seed S] [--format table|json]

Prints a summary of what was written (``--format json``: one JSON object, see
:meth:`paimon_lens.synth.job.SynthResult.to_dict`). ``--history`` writes a table's history
instead, in process (:func:`paimon_lens.synth.history.write_history`: appends, schema changes,
compactions, deletes, tags and a mishap) and prints which snapshot did what.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_synth_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``synth`` on an ``argparse`` subparsers object; returns its parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "synth", help="generate a synthetic Paimon table (PySpark job, or --local)",
        description="Generate a new Paimon table of synthetic orders: data files and their file indexes are "
                    "written by Spark tasks, the manifests and the snapshot by the driver.")
    p.add_argument("table", help="new (or empty) table directory")
    p.add_argument("--rows", type=int, default=None, help="total rows in the data files (required)")
    p.add_argument("--files", type=int, default=None, help="number of data files (required)")
    p.add_argument("--history", action="store_true",
                   help="write a table history instead (appends, alters, compactions, deletes, tags; in process)")
    p.add_argument("--partitions", type=int, default=0, help="number of dt partitions (default 0: unpartitioned)")
    p.add_argument("--primary-key", nargs="?", const="order_id", default=None, metavar="COLS",
                   help="primary-key table (key order_id; dt is added when partitioned)")
    p.add_argument("--buckets", type=int, default=None, help="fixed buckets of a primary-key table (default 2)")
    p.add_argument("--deletion-vectors", action="store_true",
                   help="primary-key tables: enable deletion vectors and delete some rows")
    p.add_argument("--indexes", nargs="+", default=None, metavar="TYPE:COLS",
                   help="file indexes, e.g. bitmap:status,country bloom-filter:customer_id range-bitmap:amount "
                        "bsi:quantity ('none': no index; default: those four kinds)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="further table option, e.g. file-index.in-manifest-threshold=2kb (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    run = p.add_mutually_exclusive_group()
    run.add_argument("--local", action="store_true", help="run the tasks in this process (no Spark)")
    run.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_synth)
    return p


def cmd_synth(args: argparse.Namespace, out: Any) -> int:
    """``synth``: generate the table and print what was written."""
    if args.history:
        return _cmd_history(args, out)
    if args.rows is None or args.files is None:
        out.write("paimon-lens synth: error: --rows and --files are required (or --history)\n")
        return 2
    from .job import synth_table

    options: dict[str, str] = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"paimon-lens synth: --option expects KEY=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    spark = None
    if args.master and not args.local:
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master(args.master).appName("paimon-lens-synth")
                 .config("spark.ui.enabled", "false").getOrCreate())
    try:
        result = synth_table(args.table, rows=args.rows, files=args.files, partitions=args.partitions,
                             primary_key=args.primary_key or (), buckets=args.buckets,
                             deletion_vectors=args.deletion_vectors, indexes=args.indexes, options=options,
                             seed=args.seed, spark=spark, engine="local" if args.local else "spark")
    except (ValueError, FileExistsError) as e:
        out.write(f"paimon-lens synth: error: {e}\n")
        return 2
    finally:
        if spark is not None:
            spark.stop()
    doc = result.to_dict()
    if args.format == "json":
        json.dump(doc, out)
        out.write("\n")
        return 0
    kind = "primary-key" if result.spec.primary_key else "append"
    out.write(f"wrote {kind} table {result.path} (snapshot {result.snapshot_id}) in {doc['seconds']:.1f} s "
              f"on {result.engine}\n")
    out.write(f"  {doc['files']} data files, {doc['rows']} rows, {doc['bytes']} bytes of parquet\n")
    out.write(f"  indexes: {', '.join(doc['spec']['indexes']) or 'none'} "
              f"({doc['embedded_indexes']} embedded, {doc['external_indexes']} in .index files)\n")
    if result.spec.deletion_vectors:
        out.write(f"  deletion vectors on {doc['deletion_vectors']} files: {doc['deleted_rows']} rows deleted, "
                  f"{doc['live_rows']} live\n")
    return 0


def _cmd_history(args: argparse.Namespace, out: Any) -> int:
    """``synth --history``: write the history and print which snapshot did what."""
    from .history import write_history

    try:
        doc = write_history(args.table, seed=args.seed)
    except (ValueError, FileExistsError) as e:
        out.write(f"paimon-lens synth: error: {e}\n")
        return 2
    if args.format == "json":
        json.dump(doc, out)
        out.write("\n")
        return 0
    out.write(f"wrote the history of {doc['path']}: {doc['latest']} snapshots, {doc['schemas']} schemas, "
              f"{doc['rows']} rows appended\n")
    for key in ("index_added", "partial_compaction", "deletes", "column_added", "full_compaction",
                "mishap_compaction", "late_delete", "tags"):
        out.write(f"  {key}: {doc[key]}\n")
    return 0
