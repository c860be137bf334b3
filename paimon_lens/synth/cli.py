"""The ``paimon-lens synth`` subcommand (registered by :func:`add_synth_parser`).

::

    paimon-lens synth OUT_TABLE_DIR --rows N --files N [--partitions N] [--primary-key [order_id]]
        [--buckets N] [--deletion-vectors] [--indexes TYPE:COL[,COL] ...] [--option KEY=VALUE ...]
        [--seed S] [--local | --master URL] [--format table|json]
    paimon-lens synth OUT_TABLE_DIR --history [--seed S] [--format table|json]
    paimon-lens synth OUT_TABLE_DIR --history --commits N [--files-per-commit F] [--rows-per-file R]
        [--partitions N] [--compact-every N] [--delete-every N] [--engine spark|local] [--master URL]
        [--seed S] [--format table|json]

Prints a summary of what was written (``--format json``: one JSON object, see
:meth:`paimon_lens.synth.job.SynthResult.to_dict`). ``--history`` writes a table's history
instead and prints which snapshot did what: without ``--commits``, a short story in process
(:func:`paimon_lens.synth.history.write_history`: appends, schema changes, compactions,
deletes, tags and a mishap); with ``--commits N``, a long history of N snapshots whose appended
data files are written by Spark tasks (:func:`paimon_lens.synth.history_job.synth_history`:
streaming appends, partial and full compactions, an index and a column added midway, deletes by
deletion vectors, tags; ``--engine local`` or ``--local``: in process).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Literal


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
                   help="write a table history instead (appends, alters, compactions, deletes, tags): without "
                        "--commits a short story in process, with --commits N a long history of N snapshots "
                        "whose appended files are written by Spark tasks")
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
    h = p.add_argument_group("long histories (--history --commits N)")
    h.add_argument("--commits", type=int, default=None,
                   help="snapshots of a long history (appends, a compaction every --compact-every, a full "
                        "compaction at 90 %%, deletes every --delete-every; bitmap and bloom indexes added at 30 %%, "
                        "a column at 60 %%, a tag every 10 %%); --partitions: days (default 20)")
    h.add_argument("--files-per-commit", type=int, default=10, help="data files of each append (default 10)")
    h.add_argument("--rows-per-file", type=int, default=200, help="mean rows of an appended file (default 200)")
    h.add_argument("--compact-every", type=int, default=50,
                   help="compact one partition every N-th snapshot (default 50; 0: never)")
    h.add_argument("--delete-every", type=int, default=0,
                   help="delete a few rows by deletion vectors every N-th snapshot (default 0: never)")
    h.add_argument("--engine", choices=("spark", "local"), default=None,
                   help="where the data files are written: Spark tasks (default) or this process (as --local)")
    p.set_defaults(func=cmd_synth)
    return p


def cmd_synth(args: argparse.Namespace, out: Any) -> int:
    """``synth``: generate the table and print what was written."""
    if args.history:
        return _cmd_history(args, out) if args.commits is None else _cmd_long_history(args, out)
    if args.commits is not None:
        out.write("paimon-lens synth: error: --commits writes a long history: add --history\n")
        return 2
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


def _cmd_long_history(args: argparse.Namespace, out: Any) -> int:
    """``synth --history --commits N``: write a long history (Spark tasks or in process), print it."""
    from .history_job import synth_history

    if args.local and args.engine == "spark":
        out.write("paimon-lens synth: error: --local contradicts --engine spark\n")
        return 2
    engine: Literal["spark", "local"] = "local" if args.local or args.engine == "local" else "spark"
    spark = None
    if engine == "spark" and args.master:
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master(args.master).appName("paimon-lens-synth")
                 .config("spark.ui.enabled", "false").getOrCreate())
    try:
        doc = synth_history(args.table, commits=args.commits, files_per_commit=args.files_per_commit,
                            rows_per_file=args.rows_per_file, partitions=args.partitions or 20,
                            compact_every=args.compact_every, delete_every=args.delete_every, seed=args.seed,
                            engine=engine, spark=spark)
    except (ValueError, FileExistsError) as e:
        out.write(f"paimon-lens synth: error: {e}\n")
        return 2
    finally:
        if spark is not None:
            spark.stop()
    if args.format == "json":
        json.dump(doc, out)
        out.write("\n")
        return 0
    out.write(f"wrote the history of {doc['path']} in {doc['seconds']:.1f} s ({doc['task_seconds']:.1f} s writing "
              f"data files on {doc['engine']}): {doc['latest']} snapshots, schemas {doc['schema_ids']}\n")
    out.write(f"  {len(doc['appends'])} appends ({doc['files_written']} data files, {doc['rows']} rows), "
              f"{len(doc['compactions'])} partition compactions, full compaction: {doc['full_compaction']}, "
              f"{len(doc['deletes'])} deletes ({doc['deleted_rows']} rows)\n")
    out.write(f"  index_added: {doc['index_added']} (schema {doc['index_schema']}), column_added: "
              f"{doc['column_added']} (schema {doc['column_schema']}, {doc['added_column']})\n")
    out.write(f"  at the end: {doc['live_files']} live files ({doc['indexed_live_files']} indexed, "
              f"{doc['dv_live_files']} with deletion vectors), {doc['live_rows']} live rows\n")
    out.write(f"  tags: {doc['tags']}\n")
    return 0
