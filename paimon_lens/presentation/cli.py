"""The ``paimon-lens`` command line.

Subcommands print a readable table by default and one JSON object with ``--format json``; the
JSON shapes are a contract relied on by scripts (fields are added, never renamed or removed).

    paimon-lens files TABLE_PATH [--snapshot ID|latest|earliest|tag:NAME|ISO-TIME] [--format json]
    paimon-lens indexes TABLE_PATH [--snapshot S] [--format json]
    paimon-lens probe CONTAINER_FILE --schema "a INT, b STRING" (--where SQL | --where-file FILE) [--format json]
    paimon-lens explain TABLE_PATH (--where SQL | --where-file FILE) [--truth] [--positions] [--format json]
    paimon-lens dv DV_INDEX_FILE [--offset N --length N] [--bitmap64] [--format json]
    paimon-lens report TABLE_PATH [--workload FILE] [--snapshot S] [--recommend] [-o report.html] [--format json]
    paimon-lens recommend TABLE_PATH [--workload FILE] [--max-files N] [--format json]

``files``, ``indexes``, ``explain``, ``report`` and ``recommend`` take ``--engine local|process|spark``
(and ``--spark-master URL``, default ``local[*]``): the same output, computed on a process pool or Spark.
``explain`` and ``indexes`` with ``--engine spark --output-parquet PATH`` plan in Spark tasks for
snapshots too large for the driver: the per-file rows go to PATH, the summary to the output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError, SnapshotNotFoundError
from ..metadata.consistency import SnapshotMovedWarning
from .html import human_bytes as _human_bytes

if TYPE_CHECKING:
    from ..table.facade import Table


def _print_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], out: Any) -> None:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for i, r in enumerate(cells):
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
        if i == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def _open(args: argparse.Namespace) -> Table:
    from ..table.facade import open_table

    options: dict[str, Any] = {"snapshot": args.snapshot, "engine": getattr(args, "engine", None),
               "spark_master": getattr(args, "spark_master", None), "branch": getattr(args, "branch", None),
               "paimon_version": getattr(args, "paimon_version", None)}
    if getattr(args, "warehouse", None):  # TABLE is db.table in that warehouse
        from ..catalog.filesystem import open_catalog

        return open_catalog(args.warehouse).table(args.table, **options)
    return open_table(args.table, **options)


def _add_engine_args(p: argparse.ArgumentParser) -> None:
    """``--branch``, ``--engine local|process|spark`` and ``--spark-master`` (see :mod:`paimon_lens.engines`)."""
    p.add_argument("--branch", default=None,
                   help="read this branch's snapshots, schemas and tags (default main; see the table's branch/ dir)")
    p.add_argument("--paimon-version", default=None, metavar="V",
                   help="apply the pruning rules of this Paimon release (0.9 ... 2.0; default: the newest modelled)")
    p.add_argument("--engine", choices=("local", "process", "spark"), default="local",
                   help="where per-file work runs: in process (default), a process pool, or Spark")
    p.add_argument("--spark-master", default=None, help="Spark master URL with --engine spark (default local[*])")


def cmd_files(args: argparse.Namespace, out: Any) -> int:
    """``files``: the live data files of a snapshot with decoded stats (one file's record at a time,
    spooled until complete: the sizes of index files are read as the records are written, and an
    answer that moves to a newer snapshot starts afresh)."""
    from ..io.fileio import remote_reads, remote_reads_since
    from ..io.json_stream import Later, Spool, write_document
    from ..metadata.consistency import run_consistently
    from .frames import file_record

    before = remote_reads()
    table = _open(args)
    broken: list[str] = []

    def counted(records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for r in records:
            if r["error"] or r["stats_error"] or r.get("key_error"):
                broken.append(r["path"])
            yield r

    def answer(f: Any) -> None:
        broken.clear()
        files = table.reader.live_files()
        records = counted(file_record(table.reader, lf, as_json=True) for lf in files)
        if args.format == "json":
            write_document(f, [("table", table.path), ("branch", table.branch), ("snapshot_id", table.snapshot_id),
                               ("schema_id", table.schema.id), ("files", records),
                               ("remote_reads", Later(lambda: remote_reads_since(before)))],
                           ensure_ascii=False, allow_nan=False)
            f.write("\n")
            return
        f.write(f"table {table.path}  snapshot {table.snapshot_id}  schema {table.schema.id}  "
                f"{len(files)} live files\n\n")
        rows = []
        for r in records:
            part = ",".join(f"{k}={v}" for k, v in r["partition"].items()) or "-"
            idx = r["file_index"]
            rows.append([part, r["bucket"], r["level"], r["file_name"], r["row_count"], _human_bytes(r["file_size"]),
                         r["schema_id"], r["file_source"],
                         "-" if idx["location"] == "none" else f"{idx['location']} {_human_bytes(idx['size'])}"])
        _print_table(rows, ["partition", "bucket", "level", "file", "rows", "size", "schema", "source", "index"], f)

    with Spool() as spool:
        run_consistently(table.reader, lambda: answer(spool.restart()))
        spool.copy_to(out)
    return _files_exit_code(broken)


def _files_exit_code(broken: Sequence[str]) -> int:
    """1 when some file's facts could not all be read (its ``error``, ``stats_error`` or ``key_error``)."""
    if broken:
        print(f"paimon-lens: partial answer: {len(broken)} file(s) with errors, e.g. {broken[0]}", file=sys.stderr)
    return 1 if broken else 0


_FACTS = ("cardinality", "null_count", "min", "max", "fill_ratio", "false_positive_probability", "slice_count")


def _fact(key: str, value: Any) -> str:
    if isinstance(value, float):
        return f"{key}={value:.3g}"
    return f"{key}={value}"


def cmd_indexes(args: argparse.Namespace, out: Any) -> int:
    """``indexes``: every file index of a snapshot, decoded (one file's indexes held at a time; the
    answer is spooled until complete, so that one that moves to a newer snapshot starts afresh)."""
    table = _open(args)
    if getattr(args, "output_parquet", None):
        return _indexes_to_parquet(args, table, out)
    from ..inventory.file_indexes import file_indexes_by_file
    from ..inventory.global_indexes import global_index_coverage, global_index_files
    from ..io.fileio import remote_reads, remote_reads_since
    from ..io.json_stream import Later, Spool, write_document
    from ..metadata.consistency import run_consistently
    from .global_index_frames import global_indexes_json
    from .index_frames import index_file_record

    before = remote_reads()
    counts = {"indexes": 0, "broken": 0}

    def per_file(spool_file: Any) -> Iterator[Any]:
        counts.update(indexes=0, broken=0)
        for lf, infos in file_indexes_by_file(table.reader, table.engine):
            counts["indexes"] += len(infos)
            counts["broken"] += sum(1 for i in infos if i.error)
            if args.format == "json":
                yield index_file_record(table.reader, lf, infos)
            else:
                for i in infos:
                    s = i.summary()
                    facts = ", ".join(_fact(k, s[k]) for k in _FACTS if s.get(k) is not None)
                    yield [i.file.entry.file.file_name, i.column, i.index_type, i.storage, _human_bytes(i.bytes),
                           i.error or facts]

    def read(spool: Spool) -> dict[str, Any]:  # one snapshot for all of it
        f = spool.restart()
        globals_ = global_indexes_json(table.reader, global_index_files(table.reader),
                                       global_index_coverage(table.reader))
        if args.format == "json":
            write_document(f, [("table", table.path), ("branch", table.branch), ("snapshot_id", table.snapshot_id),
                               ("files", per_file(f)), *globals_.items(),
                               ("remote_reads", Later(lambda: remote_reads_since(before)))],
                           ensure_ascii=False, default=str, allow_nan=False)
            f.write("\n")
        else:
            rows = list(per_file(f))  # the text table aligns its columns over every row
            f.write(f"table {table.path}  snapshot {table.snapshot_id}  {counts['indexes']} file indexes, "
                    f"{len(globals_['global_indexes'])} global / primary-key index files\n\n")
            if rows:
                _print_table(rows, ["file", "column", "index", "storage", "bytes", "summary"], f)
            if globals_["global_indexes"]:
                _print_global_indexes(globals_, f)
        return globals_

    with Spool() as spool:
        globals_ = run_consistently(table.reader, lambda: read(spool))
        spool.copy_to(out)
    broken = counts["broken"] + sum(1 for g in globals_["global_indexes"] if g["error"])
    if broken:
        print(f"paimon-lens: partial answer: {broken} index file(s) or container(s) could not be read",
              file=sys.stderr)
    return 1 if broken else 0


def _print_global_indexes(doc: dict[str, Any], out: Any) -> None:
    """The global / primary-key index files and the data files they leave uncovered."""
    rows = []
    for g in doc["global_indexes"]:
        span = (f"rows {g['first_row_id']}-{g['last_row_id']}" if g["kind"] == "global"
                else f"level {g['source_level']}: {len(g['source_files'] or [])} files")
        if g["error"]:
            facts = g["error"]
        elif g["payload"] == "decoded":
            facts = (f"{g['keys']} keys [{g['min_key']} .. {g['max_key']}], {g['null_rows']} null rows, "
                     f"{g['blocks']} blocks ({g['compression']})")
        elif g["payload"] == "header":
            facts = ", ".join(f"{k} {g[k]}" for k in ("dimension", "metric", "vectors", "documents")
                              if g[k] is not None)
            facts += " (payload not decoded: a native library reads it)"
        else:
            facts = "payload not decoded"
        rows.append([g["kind"], g["column"], g["index_type"], span, _human_bytes(g["file_size"]),
                     g["added_snapshot"], facts])
    out.write("\nglobal and primary-key indexes\n")
    _print_table(rows, ["kind", "column", "index", "covers", "bytes", "added", "summary"], out)
    gaps = [c for c in doc["global_index_coverage"] if c["status"] != "covered"]
    if gaps:
        out.write(f"\n{len(gaps)} data file x index pairs not fully covered\n")
        _print_table([[c["data_file"], c["column"], c["index_type"], c["status"], c["uncovered_rows"], c["reason"]]
                      for c in gaps], ["file", "column", "index", "status", "uncovered rows", "reason"], out)


def _spark_output(args: argparse.Namespace) -> str:
    """``parquet:<--output-parquet>``; the flag needs ``--engine spark``."""
    if args.engine != "spark":
        raise PaimonLensError("--output-parquet plans in Spark tasks: add --engine spark (and --spark-master URL)")
    return f"parquet:{args.output_parquet}"


def _indexes_to_parquet(args: argparse.Namespace, table: Table, out: Any) -> int:
    """``indexes --output-parquet PATH``: every index decoded in Spark tasks, one row each written to
    PATH (the columns of ``Table.file_indexes()``); prints the counts."""
    got = table.file_indexes_distributed(output=_spark_output(args))
    doc = {"table": table.path, "branch": table.branch, "snapshot_id": table.snapshot_id, "indexes": got.rows,
           "indexes_with_errors": got.files_with_errors, "parquet": got.parquet_path,
           "columns": [name for name, _ in got.columns]}
    if args.format == "json":
        json.dump(doc, out, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"table {table.path}  snapshot {table.snapshot_id}  {got.rows} indexes "
                  f"({got.files_with_errors} with errors) written to {got.parquet_path}\n")
    return 1 if got.files_with_errors else 0


def _explain_to_parquet(args: argparse.Namespace, table: Table, sqls: list[str], out: Any) -> int:
    """``explain --output-parquet PATH``: every predicate planned in Spark tasks (the driver never
    holds the files); the per-file records go to PATH (``where_index=<i>/`` with several
    predicates), the JSON document is ``explain``'s without ``files`` (plus ``files_parquet`` and
    ``notes_omitted``)."""
    reports = table.explain_many_distributed(sqls, truth=args.truth, index_enabled=not args.no_index,
                                             positions=args.positions, max_positions=_limit(args),
                                             output=_spark_output(args))
    docs = [r.to_dict() for r in reports]
    if args.format == "json":
        _write_explain_json(args, table, docs, out)
    else:
        for report in reports:
            s = report.summary()
            out.write(f"WHERE {report.where}\n  {report.predicate}\n  (pruning rules of Paimon "
                      f"{report.paimon_version})\n")
            for row in s["funnel"]:
                out.write(f"  {row['stage']:<28} {row['files']:>6} files {_human_bytes(row['bytes']):>10} "
                          f"{row['rows']:>10} rows\n")
            out.write(f"  per-file records: {report.parquet_path}\n\n")
        for report in reports:
            for note in report.notes:
                out.write(f"note: {note}\n")
            if report.notes_omitted:
                out.write(f"note: ... and {report.notes_omitted} more notes about files (see their records' error)\n")
    return _explain_exit_code(reports, docs)


def _read_where_file(path: str) -> list[str]:
    """One predicate per line, as a workload file (see :mod:`paimon_lens.workload`; weights dropped)."""
    from ..workload.model import read_workload

    return [q.where for q in read_workload(path)]


def _positions(rec: dict[str, Any], bitmap: Any, limit: int | None) -> dict[str, Any]:
    """``rec`` with ``positions`` (at most ``limit``), ``positions_count`` and ``positions_truncated``."""
    from ..formats.result import first_positions

    rec["positions"], rec["positions_truncated"] = first_positions(bitmap, limit)
    rec["positions_count"] = len(bitmap)
    return rec


def _result_record(result: Any, limit: int | None) -> dict[str, Any]:
    from ..formats.result import BitmapIndexResult

    if isinstance(result, BitmapIndexResult):
        return _positions({"result": "BITMAP", "remain": result.remain()}, result.bitmap, limit)
    return {"result": result.kind, "positions": None, "remain": result.remain()}


def cmd_probe(args: argparse.Namespace, out: Any) -> int:
    """``probe``: evaluate predicates on one file-index container, as Paimon's FileIndexPredicate."""
    from ..formats.file_index_format import FileIndexFormatReader
    from ..predicate.parser import parse_where
    from ..pruning.file_index_predicate import FileIndexPredicate
    from ..types import parse_row_type

    if (args.where is None) == (args.where_file is None):
        raise PaimonLensError("give exactly one of --where SQL or --where-file FILE")
    fields = parse_row_type(args.schema)
    container = FileIndexFormatReader.open(args.container)
    evaluator = FileIndexPredicate(container, fields)
    sqls = [args.where] if args.where is not None else _read_where_file(args.where_file)
    results: list[dict[str, Any]] = []
    for sql in sqls:
        try:
            rec = {"where": sql, **_result_record(evaluator.evaluate(parse_where(sql, fields)), _limit(args))}
        except PaimonLensError as e:
            if args.where is not None:
                raise
            rec = {"where": sql, "result": "ERROR", "positions": None, "error": str(e)}
        results.append(rec)
    if args.format == "json":
        doc: dict[str, Any] = results[0] if args.where is not None else {"predicates": results}
        json.dump(doc, out, ensure_ascii=False)
        out.write("\n")
    else:
        for r in results:
            pos = r["positions"]
            shown = "" if pos is None else f" {r['positions_count']} rows: " + ", ".join(map(str, pos[:20])) + (
                " ..." if r["positions_count"] > 20 else "")
            note = f"  ({r['error']})" if "error" in r else ""
            out.write(f"{r['result']:<6}{shown}  <- {r['where']}{note}\n")
    failed = sum(1 for r in results if "error" in r)
    if failed:
        print(f"paimon-lens: partial answer: {failed} predicate(s) failed", file=sys.stderr)
    return 1 if failed else 0


def cmd_explain(args: argparse.Namespace, out: Any) -> int:
    """``explain``: which files a predicate reads and why, stage by stage."""
    if (args.order_by is None) != (args.limit is None):
        raise PaimonLensError("--order-by and --limit go together (ORDER BY ... LIMIT n)")
    topn_only = args.order_by is not None and args.where is None and args.where_file is None
    if (args.where is None) == (args.where_file is None) and not topn_only:
        raise PaimonLensError("give exactly one of --where SQL or --where-file FILE (or --order-by with --limit)")
    table = _open(args)
    if args.compare is not None:
        return _explain_compare(args, table, out)
    sqls: list[Any] = ([None] if topn_only else [args.where] if args.where is not None
                       else _read_where_file(args.where_file))
    if getattr(args, "output_parquet", None):
        return _explain_to_parquet(args, table, sqls, out)
    from ..metadata.consistency import run_consistently

    # every line at one snapshot: the lines are explained (and their documents written) in one
    # consistent operation, run again as a whole on the newest snapshot when the table's expires
    if args.format == "json":
        from ..io.json_stream import Spool

        with Spool() as spool:
            docs, reports = run_consistently(table.reader, lambda: _explain_lines(args, table, sqls, spool.restart()))
            spool.copy_to(out)
        return _explain_exit_code(reports, docs)
    docs, reports = run_consistently(table.reader, lambda: _explain_lines(args, table, sqls, None))
    for report in reports:
        s = report.summary(complete=False)  # the partitions the filter removes are not listed in text
        topn = s.get("topn")
        head = f"WHERE {report.where}\n  {report.predicate}\n" if report.where else ""
        if topn is not None:
            head += f"{topn['order_by']}\n"
        out.write(f"{head}  (pruning rules of Paimon {report.paimon_version})\n")
        for row in s["funnel"]:
            out.write(f"  {row['stage']:<28} {row['files']:>6} files {_human_bytes(row['bytes']):>10} "
                      f"{row['rows']:>10} rows\n")
        if report.truth:
            unknown = s.get("truth_unavailable_files")
            out.write(f"  truth: {s['matching_rows']} matching rows in {s['matching_files']} files; "
                      f"{s['read_files_without_match']} files read for nothing"
                      + (f" (partial: no truth for {unknown} files, see the notes)" if unknown else "") + "\n")
        gi = s.get("global_index")
        if gi is not None and report.truth and gi.get("matching_rows_not_returned"):
            ids = gi["not_returned_row_ids"]
            out.write(f"  global index ({gi['search_mode']} search): {gi['matching_rows_not_returned']} matching rows "
                      f"not returned, row ids {', '.join(map(str, ids[:20]))}{' ...' if len(ids) > 20 else ''}\n")
        if topn is not None:
            splits = ("splits not pruned: " + topn["split_pruning"]) if topn["split_pruning"] else \
                f"{topn['splits_kept']} of {topn['splits']} splits kept"
            lost = topn.get("truth_rows_not_returned")
            out.write(f"  topn: {splits}; {topn['files_with_index_selection']} files' rows chosen by a range-bitmap"
                      + ("" if lost is None else f"; rows of the true answer not returned: {lost}") + "\n")
        out.write("\n")
        rows = [[f.file_name, f.row_count, "read" if f.read else f"skip: {f.stage}", f.rows_after_dv,
                 "" if f.matching_rows is None else f.matching_rows, f.reason, "; ".join(f.flags)]
                for f in report.candidate_files]
        headers = ["file", "rows", "verdict", "rows read", "matches" if report.truth else "", "reason", "flags"]
        _print_table(rows, headers, out)
        if not report.complete:
            unread = report.skipped_manifests
            out.write("  (the files of the other partitions are removed at the partition stage and not listed"
                      + (f"; {len(unread)} manifests whose partition stats exclude the predicate were not read"
                         if unread else "") + "; --format json lists every file)\n")
        out.write("\n")
    for report in reports:
        for note in report.candidate_notes:
            out.write(f"note: {note}\n")
    for d in docs:
        if "error" in d:
            out.write(f"error in {d['where']!r}: {d['error']}\n")
    return _explain_exit_code(reports, docs)


def _explain_lines(args: argparse.Namespace, table: Table, sqls: Sequence[Any], json_out: Any
                   ) -> tuple[list[dict[str, Any]], list[Any]]:
    """Each line explained: (documents, reports); a line that fails is a document with its error
    (a lone ``--where`` raises), an expiry of the snapshot raises for the whole. With ``json_out``
    the ``--format json`` answer is written there, one line's document at a time (the documents
    returned then hold only ``where``, and ``error`` for a line that failed)."""
    from ..io.fileio import remote_reads, remote_reads_since
    from ..io.json_stream import Later, write_document

    before = remote_reads()
    options: dict[str, Any] = {"ensure_ascii": False, "default": str}
    many = args.where is None
    cost = [("remote_reads", Later(lambda: remote_reads_since(before)))]
    if json_out is not None and many:
        head = {"table": table.path, "branch": table.branch, "paimon_version": table.paimon_version,
                "snapshot_id": table.snapshot_id}
        json_out.write(json.dumps(head, **options)[:-1] + ', "predicates": [')
    docs: list[dict[str, Any]] = []
    reports = []
    for sql in sqls:
        if json_out is not None and many and docs:
            json_out.write(", ")
        try:
            report = table.explain(sql, truth=args.truth, index_enabled=not args.no_index,
                                   search_mode=args.search_mode, order_by=args.order_by, limit=args.limit)
        except SnapshotNotFoundError:
            raise
        except PaimonLensError as e:
            if not many:
                raise
            failed = {"where": sql, "error": str(e), "files": [], "summary": {}}
            docs.append(failed)
            if json_out is not None:
                write_document(json_out, failed.items(), **options)
            continue
        reports.append(report)
        docs.append({"where": sql})
        if json_out is not None:
            report.write_json(json_out, positions=args.positions, max_positions=_limit(args),
                              extra=() if many else cost, **options)
    if json_out is not None:
        if many:
            json_out.write(f'], "remote_reads": {json.dumps(remote_reads_since(before), **options)}}}\n')
        else:
            json_out.write("\n")
    return docs, reports


def _explain_compare(args: argparse.Namespace, table: Table, out: Any) -> int:
    """``explain --compare A``: the predicate at snapshot A and at the table's, and why they differ."""
    from ..history.diff import explain_diff
    from ..pruning.run import explain_many

    if args.where is None:
        raise PaimonLensError("--compare takes one predicate: give it with --where SQL")
    if table.snapshot_id is None:
        raise PaimonLensError(f"{table.path} has no snapshot to compare with")
    result = explain_diff(table.reader, args.where, args.compare, table.snapshot_id,
                          explain=lambda reader, text: explain_many(
                              reader, [text], engine=table.engine, rules=table.rules, truth=args.truth,
                              index_enabled=not args.no_index)[0])
    if args.format == "json":
        json.dump(result.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
    else:
        out.write(f"WHERE {args.where}\n")
        lines = result.lines()
        for line in lines[:2]:
            out.write(f"  {line}\n")
        for line in lines[2:]:
            out.write(f"  - {line}\n")
    for p in result.problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    return 1 if result.problems else _explain_exit_code([result.a, result.b], [])


def _write_explain_json(args: argparse.Namespace, table: Table, docs: list[dict[str, Any]], out: Any) -> None:
    """``explain --format json`` from whole documents: the one predicate's document, or every
    predicate's under the table's facts."""
    doc = docs[0] if args.where is not None else {"table": table.path, "branch": table.branch,
                                                  "paimon_version": table.paimon_version,
                                                  "snapshot_id": table.snapshot_id, "predicates": docs}
    json.dump(doc, out, ensure_ascii=False, default=str)
    out.write("\n")


def _explain_exit_code(reports: Sequence[Any], docs: Sequence[dict[str, Any]]) -> int:
    """1 when an answer is partial (a file that could not be read, a predicate line that failed)."""
    # the files of partitions a report has not listed are removed at the partition stage: no errors
    partial = any(r.summary(complete=False)["files_with_errors"] for r in reports) or any("error" in d for d in docs)
    if partial:
        failed = sum(1 for d in docs if "error" in d)
        broken = sum(r.summary(complete=False)["files_with_errors"] for r in reports)
        print(f"paimon-lens: partial answer: {failed} predicate(s) failed, {broken} file verdict(s) with errors",
              file=sys.stderr)
    return 1 if partial else 0


def _dv_record(v: Any, limit: int | None) -> dict[str, Any]:
    rec: dict[str, Any] = {"offset": v.offset, "length": v.length, "kind": v.kind, "cardinality": v.cardinality,
                           "crc_ok": v.crc_ok, "crc_stored": v.crc_stored, "crc_computed": v.crc_computed}
    return _positions(rec, v.positions, limit)


#: Row positions listed per bitmap by default: a compact bitmap can hold billions.
MAX_POSITIONS = 1_000_000


def _limit(args: argparse.Namespace) -> int | None:
    """``--max-positions`` (0: no limit)."""
    return args.max_positions or None


def cmd_dv(args: argparse.Namespace, out: Any) -> int:
    """``dv``: decode one deletion vector of a DV index file, or all of them."""
    from ..formats.deletion_vector import read_deletion_vector_at, read_dv_index_file
    from ..io.fileio import get_file_io, read_file

    file_io = get_file_io(args.file)
    bitmap64 = True if args.bitmap64 else None
    if (args.offset is None) != (args.length is None):
        raise PaimonLensError("give both --offset and --length, or neither")
    if args.offset is not None:
        v = read_deletion_vector_at(file_io, args.file, args.offset, args.length, bitmap64)
        doc: dict[str, Any] = _dv_record(v, _limit(args))
        if args.format == "json":
            json.dump(doc, out)
            out.write("\n")
        else:
            out.write(f"{args.file} @ {v.offset} (+{v.length}): {v.kind}-bit deletion vector, "
                      f"{v.cardinality} deleted rows, CRC {'ok' if v.crc_ok else 'MISMATCH'}\n")
            shown = doc["positions"][:50]
            out.write("positions: " + ", ".join(map(str, shown)) + (" ..." if v.cardinality > 50 else "") + "\n")
        return 0 if v.crc_ok else 1
    vectors = read_dv_index_file(read_file(file_io, args.file), args.file, bitmap64=bitmap64)
    if args.format == "json":
        json.dump({"file": args.file, "deletion_vectors": [_dv_record(v, _limit(args)) for v in vectors]}, out)
        out.write("\n")
    else:
        out.write(f"{args.file}: {len(vectors)} deletion vectors\n\n")
        _print_table([[v.offset, v.length, v.kind, v.cardinality, "ok" if v.crc_ok else "MISMATCH"] for v in vectors],
                     ["offset", "length", "kind", "deleted rows", "crc"], out)
    return 0 if all(v.crc_ok for v in vectors) else 1


def cmd_recommend(args: argparse.Namespace, out: Any) -> int:
    """``recommend``: which file indexes the table should have, measured on its data."""
    from ..advisor.advise import recommend

    table = _open(args)
    advice = recommend(table.reader, args.workload, max_files=args.max_files, query_runs=args.query_runs,
                       engine=table.engine, rules=table.rules)
    code = _partial_advice(advice)
    if args.format == "json":
        json.dump(advice.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
        return code
    doc = advice.to_dict()
    wl = doc["workload"]
    out.write(f"table {table.path}  snapshot {table.snapshot_id}  {doc['sampled_files']}/{doc['files']} files measured"
              f"  {len(wl['queries'])} queries{' (derived from column profiles)' if wl['derived'] else ''}\n\n")
    rows = [[r["column"], r["action"], r["label"], _human_bytes(r["index_bytes"]),
             f"{r['files_skipped_per_query']:.1f}", _human_bytes(r["bytes_avoided_per_query"]), r["confidence"]]
            for r in doc["recommendations"]]
    _print_table(rows, ["column", "action", "index", "index bytes", "files skipped/q", "bytes avoided/q",
                        "confidence"], out)
    out.write("\n")
    for r in doc["recommendations"]:
        out.write(f"- {r['column']}: {r['reason']}\n")
    out.write(f"- in-manifest-threshold {doc['in_manifest_threshold']['bytes']} B: "
              f"{doc['in_manifest_threshold']['reason']}\n")
    if doc["statements"]:
        out.write("\n-- Spark SQL\n" + ";\n".join(doc["statements_by_engine"]["spark"]) + ";\n")
        out.write("\n-- Flink SQL\n" + ";\n".join(doc["statements_by_engine"]["flink"]) + ";\n")
    return code


def cmd_plan(args: argparse.Namespace, out: Any) -> int:
    """``plan``: one tuning plan: the recommendations and findings as one ordered set of statements,
    with their predicted effect on the workload."""
    table = _open(args)
    found = table.plan(args.workload, max_files=args.max_files)
    for p in found.problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    code = 1 if found.problems else 0
    if args.format == "json":
        json.dump(found.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
        return code
    wl = found.workload
    out.write(f"plan for {table.path} snapshot {table.snapshot_id}: {len(found.steps)} step(s), "
              f"{len(wl['queries'])} queries{' (derived from column profiles)' if wl['derived'] else ''}\n")
    for i, step in enumerate(found.steps, 1):
        out.write(f"\n{i}. {step.title}{' (effect estimated)' if step.estimated else ''}\n   why: {step.reason}\n")
        for line in step.evidence:
            out.write(f"   - {line}\n")
    for dialect, name in (("spark", "Spark SQL"), ("flink", "Flink SQL")):
        statements = found.statements(dialect)
        if statements:
            out.write(f"\n-- {name}\n" + "".join(f"{s};\n" for s in statements))
    out.write("\npredicted (per run of each query; after: the plan's indexes on every file)\n")
    rows = [[q.where, f"{q.weight:g}", q.before["read_files"], q.after["read_files"],
             _human_bytes(q.before["read_bytes"]), _human_bytes(q.after["read_bytes"]), q.before["rows"],
             q.after["rows"]] for q in found.queries]
    _print_table(rows, ["query", "weight", "files", "-> files", "bytes", "-> bytes", "rows", "-> rows"], out)
    sizes = found.index_bytes
    if sizes.get("before") is not None and sizes.get("after") is not None:
        out.write(f"index bytes: {_human_bytes(sizes['before'])} -> {_human_bytes(sizes['after'])}\n")
    compaction = found.estimates.get("compaction")
    if compaction:
        out.write(f"compaction (estimate): {compaction['files_before']} files -> about {compaction['files_after']}\n")
    for d in found.declined:
        out.write(f"declined: {d.fix} ({d.source}): {d.reason}\n")
    for note in found.notes:
        out.write(f"note: {note}\n")
    return code


def cmd_shadow(args: argparse.Namespace, out: Any) -> int:
    """``shadow``: a new table at OUT with the snapshot's data and a plan's file indexes."""
    table = _open(args)
    if args.plan is None:
        plan: Any = table.plan(args.workload)
    else:
        with open(args.plan, encoding="utf-8") as f:
            plan = json.load(f)
    copy = table.shadow(args.out, plan)
    if args.format == "json":
        json.dump(copy.to_dict(), out, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"shadow copy of {table.path} snapshot {table.snapshot_id} at {copy.path}: {copy.files} data files "
                  f"({copy.linked} hard-linked, {copy.copied} copied), {copy.embedded} index containers embedded, "
                  f"{copy.index_files} index files; schema {copy.schema_id}, snapshot {copy.snapshot_id}\n")
    return 0


def _partial_advice(advice: Any) -> int:
    """1 (and each of :attr:`Advice.problems` on stderr) when the advice is partial; 0 otherwise."""
    problems = advice.problems
    for p in problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    return 1 if problems else 0


def cmd_findings(args: argparse.Namespace, out: Any) -> int:
    """``findings``: what is wrong with the table's layout and indexes, ranked by cost, with the fixes."""
    from ..workload.model import read_workload

    table = _open(args)
    workload = None if args.workload is None else read_workload(args.workload)
    found = table.find(workload)
    if args.format == "json":
        json.dump(found.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
    else:
        out.write(f"{table.path} snapshot {table.snapshot_id}: {len(found)} finding(s), most costly first\n")
        for i, f in enumerate(found, 1):
            out.write(f"\n{i}. [{f.kind}] {f.title}\n   evidence: {f.evidence}\n   impact: {f.impact}\n"
                      f"   fix: {f.fix}\n")
            for st in f.statements:
                out.write(f"     {st};\n")
        for note in found.notes:
            out.write(f"note: {note}\n")
        for p in found.problems:
            out.write(f"problem: {p}\n")
    for p in found.problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    return 1 if found.problems else 0


def cmd_history(args: argparse.Namespace, out: Any) -> int:
    """``history``: one row per snapshot, from the delta manifests."""
    table = _open(args)
    timeline = table.history(args.start, args.end, args.every)
    if args.format == "json":
        json.dump(timeline.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
    else:
        rows = []
        for s in timeline:
            levels = " ".join(f"L{k}:{v}" for k, v in s.level_files.items())
            coverage = min((n / s.files for n in s.index_coverage.values()), default=None) if s.files else None
            when = "" if s.time is None else s.time.strftime("%Y-%m-%d %H:%M:%S")
            moved = f" ~{s.upgraded_files}" if s.upgraded_files else ""
            rows.append([s.snapshot_id, s.commit_kind or "", when, s.schema_id, s.files, _human_bytes(s.bytes),
                         f"+{s.added_files} -{s.removed_files}{moved}", levels,
                         "" if coverage is None else f"{coverage:.0%}", s.dv_deleted_rows,
                         ",".join(s.tags), "; ".join(s.problems)])
        _print_table(rows, ["snapshot", "kind", "time (UTC)", "schema", "files", "bytes", "files +/-/~moved", "levels",
                            "index coverage (least)", "deleted rows", "tags", "problems"], out)
    for p in timeline.problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    return 1 if timeline.problems else 0


def cmd_diff(args: argparse.Namespace, out: Any) -> int:
    """``diff``: what changed between two snapshots."""
    table = _open(args)
    d = table.diff(args.a, args.b)
    if args.format == "json":
        json.dump(d.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
    else:
        for line in d.summary():
            out.write(line + "\n")
        if d.commits:
            out.write("\n")
        for c in d.commits:
            out.write(c.describe() + "\n")
            for (part, bucket), (gone, new) in c.groups().items() if c.commit_kind == "COMPACT" else ():
                where = f"{part + ' ' if part else ''}bucket {bucket}"
                out.write(f"  {where}: {', '.join(f'{f.file_name} (L{f.level})' for f in gone)} -> "
                          f"{', '.join(f'{f.file_name} (L{f.level})' for f in new) or 'nothing'}\n")
    for p in d.problems:
        print(f"paimon-lens: partial answer: {p}", file=sys.stderr)
    return 1 if d.problems else 0


def cmd_health(args: argparse.Namespace, out: Any) -> int:
    """``health``: every table of a warehouse, ranked by what fixing its findings would save."""
    from ..catalog.filesystem import open_catalog

    if args.output is not None:
        from .report import check_output_path

        check_output_path(args.output, args.warehouse_dir)  # before any work
    catalog = open_catalog(args.warehouse_dir, spark_master=args.spark_master)
    health = catalog.health(args.workload_dir, engine=args.engine)
    if args.output is not None:
        health.save(args.output)
    if args.format == "json":
        json.dump(health.to_dict(), out, ensure_ascii=False, default=str)
        out.write("\n")
    else:
        rows = [[t.table, t.files, _human_bytes(t.bytes), t.findings, _human_bytes(t.savings_score),
                 t.top_finding or "", t.error or ""] for t in health.tables]
        _print_table(rows, ["table", "files", "bytes", "findings", "cost", "top finding", "error"], out)
        if args.output is not None:
            out.write(f"wrote {args.output}\n")
    broken = [t for t in health.tables if t.error]
    for t in broken:
        print(f"paimon-lens: partial answer: {t.table}: {t.error}", file=sys.stderr)
    return 1 if broken else 0


def cmd_workload(args: argparse.Namespace, out: Any) -> int:
    """``workload``: a workload file from Spark's event logs or a SQL history."""
    import datetime as _dt

    from ..workload.sources import workload_from_spark_event_logs, workload_from_sql_history, write_workload

    since = None
    if args.since is not None:
        try:
            moment = _dt.datetime.fromisoformat(args.since)
        except ValueError:
            raise PaimonLensError(f"--since {args.since!r}: expected an ISO date or time, e.g. 2026-11-01") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=_dt.UTC)
        since = int(moment.timestamp() * 1000)
    if args.spark_event_logs is not None:
        extracted = workload_from_spark_event_logs(args.spark_event_logs, since)
    else:
        extracted = workload_from_sql_history(args.sql_history)
    tables = sorted(extracted.workloads)
    if args.table is None and len(tables) == 1:
        args.table = tables[0]
    if args.format == "json":
        tables_doc = {t: [{"where": q.where, "weight": q.weight} for q in w] for t, w in extracted.workloads.items()}
        doc = {"statements": extracted.statements, "plans": extracted.plans, "skipped": extracted.skipped,
               "tables": tables_doc}
        json.dump(doc, out, ensure_ascii=False)
        out.write("\n")
        if args.output is None:
            return 0
    if args.table is None:
        raise PaimonLensError(f"the statements read {len(tables)} tables ({', '.join(tables) or 'none'}): "
                              "choose one with --table")
    workload = extracted.for_table(args.table)
    if args.output is not None:
        path = write_workload(workload, args.output)
        if args.format != "json":
            plans = f" and {extracted.plans} recorded plans" if extracted.plans else ""
            out.write(f"wrote {path}: {len(workload)} queries for {args.table} "
                      f"from {extracted.statements} statements{plans}\n")
    else:
        for q in workload:
            out.write(f"{q.where}  -- weight: {q.weight:g}\n")
    for s in extracted.skipped:
        print(f"paimon-lens: skipped: {s}", file=sys.stderr)
    return 0


def _give_back_freed_memory() -> None:
    """Collect garbage and give the heap pages it freed back to the system (glibc's ``malloc_trim``;
    nothing elsewhere): a report's sections are built one after another, and its peak memory is then
    what they hold, not also what earlier ones held for a while."""
    import contextlib
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to give back
        ctypes.CDLL(None).malloc_trim(0)


def cmd_report(args: argparse.Namespace, out: Any) -> int:
    """``report``: write the self-contained HTML tuning report of a snapshot."""
    from ..workload.model import read_workload
    from .report import build_report, check_output_path

    table = _open(args)
    check_output_path(args.output, table.path)  # before any work
    workload = None if args.workload is None else read_workload(args.workload)  # read once (may be a pipe)
    from ..metadata.consistency import run_consistently

    def build() -> Any:
        advice = None
        if args.recommend or (workload is not None and len(workload) and not args.no_recommend):
            from ..advisor.advise import recommend

            advice = recommend(table.reader, workload, max_files=args.max_files, engine=table.engine,
                               rules=table.rules)
        return build_report(table, workload, advice, after_section=_give_back_freed_memory)

    report = run_consistently(table.reader, build)  # advice and report of one snapshot
    table.release()  # the sections are built: what they read is not needed to write them
    _give_back_freed_memory()
    path = report.save(args.output)
    problems = [f"{s.title}: {e}" for s in report.sections for e in s.errors]
    if args.format == "json":
        json.dump({"output": str(path), "table": table.path, "branch": table.branch,
                   "paimon_version": table.paimon_version, "snapshot_id": table.snapshot_id,
                   "sections": [s.key for s in report.sections], "problems": problems,
                   "bytes": path.stat().st_size, "report": report.to_dict()}, out, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"wrote {path} ({_human_bytes(path.stat().st_size)}): "
                  f"{', '.join(s.title for s in report.sections)}\n")
        for p in problems:
            out.write(f"  problem: {p}\n")
    if problems:
        print(f"paimon-lens: partial report: {len(problems)} problem(s), each said in the report", file=sys.stderr)
    return 1 if problems else 0


def _report_remote_reads(before: dict[str, int]) -> None:
    """What the command cost on object storage (stderr), when it read remote files."""
    from ..io.fileio import remote_reads

    now = remote_reads()
    requests = now["requests"] - before["requests"]
    if requests:
        retried = now["retries"] - before["retries"]
        print(f"paimon-lens: {requests:,} requests to remote storage, {_human_bytes(now['bytes'] - before['bytes'])}"
              f" read" + (f", {retried} retried" if retried else ""), file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``paimon-lens``."""
    from .. import __version__

    def _add_max_positions(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--max-positions", type=int, default=MAX_POSITIONS, metavar="N",
                            help=f"list at most N row positions per bitmap (default {MAX_POSITIONS:,}; 0: all); "
                                 "a cut list is flagged in the JSON")

    p = argparse.ArgumentParser(prog="paimon-lens",
                                description="See inside Apache Paimon tables: files, indexes, deletion vectors.")
    p.add_argument("--version", action="version", version=f"paimon-lens {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    files = sub.add_parser("files", help="list the live data files of a snapshot with decoded stats")
    files.add_argument("table", help="table directory (local path or s3://, hdfs://, oss:// URL)")
    files.add_argument("--snapshot", default=None,
                       help="snapshot id, 'latest' (default), 'earliest', 'tag:NAME' or an ISO timestamp")
    files.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(files)
    files.set_defaults(func=cmd_files)

    idx = sub.add_parser("indexes", help="decode every file index of a snapshot")
    idx.add_argument("table", help="table directory")
    idx.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    idx.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(idx)
    idx.add_argument("--output-parquet", metavar="PATH", default=None,
                     help="with --engine spark: decode in Spark tasks and write one row per index to PATH "
                          "(a Parquet directory; prints counts only)")
    idx.set_defaults(func=cmd_indexes)

    probe = sub.add_parser("probe", help="evaluate predicates on one file-index container (.index file)")
    probe.add_argument("container", help="file-index container file")
    probe.add_argument("--schema", required=True, help='row type of the data file, e.g. "c_int INT, c_string STRING"')
    probe.add_argument("--where", help="SQL predicate")
    probe.add_argument("--where-file", help="file with one SQL predicate per line")
    probe.add_argument("--format", choices=("table", "json"), default="table")
    _add_max_positions(probe)
    probe.set_defaults(func=cmd_probe)

    ex = sub.add_parser("explain", help="which files a predicate reads and why, stage by stage")
    ex.add_argument("table", help="table directory")
    ex.add_argument("--where", help="SQL predicate")
    ex.add_argument("--where-file", help="file with one SQL predicate per line")
    ex.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    ex.add_argument("--truth", action="store_true", help="read the data files and report the rows that match")
    ex.add_argument("--positions", action="store_true", help="include index bitmap row positions")
    ex.add_argument("--no-index", action="store_true", help="model file-index.read.enabled = false")
    ex.add_argument("--order-by", metavar="'COL [ASC|DESC] [NULLS FIRST|LAST]'", default=None,
                    help="the query's ORDER BY (with --limit): the splits and rows Paimon's TopN push-down leaves")
    ex.add_argument("--limit", type=int, default=None, help="the query's LIMIT (with --order-by)")
    ex.add_argument("--search-mode", choices=("fast", "full", "detail"), default=None,
                    help="the query's scalar-index.search-mode (tables with global indexes; default: the "
                         "table's option, else fast)")
    ex.add_argument("--compare", type=int, default=None, metavar="A",
                    help="also explain at older snapshot A, and say why what is read changed since")
    ex.add_argument("--format", choices=("table", "json"), default="table")
    _add_max_positions(ex)
    _add_engine_args(ex)
    ex.add_argument("--output-parquet", metavar="PATH", default=None,
                    help="with --engine spark: plan in Spark tasks (the driver never holds the files) and write "
                         "the per-file records to PATH (a Parquet directory); the JSON has no 'files'")
    ex.set_defaults(func=cmd_explain)

    dv = sub.add_parser("dv", help="decode deletion vectors of a deletion-vector index file")
    dv.add_argument("file", help="deletion-vector index file (index/index-...)")
    dv.add_argument("--offset", type=int, help="blob offset (from the index manifest)")
    dv.add_argument("--length", type=int, help="recorded blob length (from the index manifest)")
    dv.add_argument("--bitmap64", action="store_true", help="expect a 64-bit deletion vector (default: from magic)")
    dv.add_argument("--format", choices=("table", "json"), default="table")
    _add_max_positions(dv)
    dv.set_defaults(func=cmd_dv)

    fd = sub.add_parser("findings", help="what is wrong with the table's layout and indexes, ranked, with fixes")
    fd.add_argument("table", help="table directory")
    fd.add_argument("--workload", help="file with one WHERE clause per line: adds the checks that need queries")
    fd.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    fd.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(fd)
    fd.set_defaults(func=cmd_findings)

    hi = sub.add_parser("history", help="one row per snapshot: files, levels, index coverage, deletion vectors")
    hi.add_argument("table", help="table directory")
    hi.add_argument("--start", type=int, default=None, help="first snapshot id (default: the earliest kept)")
    hi.add_argument("--end", type=int, default=None, help="last snapshot id (default: the latest)")
    hi.add_argument("--every", type=int, default=None, help="one row every N snapshots (and the last)")
    hi.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(hi)  # with --engine spark the commits are read in Spark tasks
    hi.set_defaults(func=cmd_history, snapshot=None)

    di = sub.add_parser("diff", help="what changed between two snapshots: files, compactions, indexes, DVs, schema")
    di.add_argument("table", help="table directory")
    di.add_argument("a", type=int, help="the older snapshot id")
    di.add_argument("b", type=int, nargs="?", default=None, help="the newer snapshot id (default: the latest)")
    di.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(di)
    di.set_defaults(func=cmd_diff, snapshot=None)

    he = sub.add_parser("health", help="every table of a warehouse, ranked by what fixing its findings would save")
    he.add_argument("warehouse_dir", metavar="WAREHOUSE", help="a filesystem catalog's warehouse directory")
    he.add_argument("--workload-dir", help="directory of <db>.<table>.sql (or <table>.sql) workload files")
    he.add_argument("-o", "--output", default=None, help="also write the HTML page to this file")
    he.add_argument("--format", choices=("table", "json"), default="table")
    he.add_argument("--engine", choices=("local", "process", "spark"), default="local",
                    help="where tables are measured: in process (default), a process pool, or Spark (tables as tasks)")
    he.add_argument("--spark-master", default=None, help="Spark master URL with --engine spark (default local[*])")
    he.set_defaults(func=cmd_health)

    wl = sub.add_parser("workload", help="a workload file from Spark's event logs or a SQL history")
    src = wl.add_mutually_exclusive_group(required=True)
    src.add_argument("--spark-event-logs", metavar="DIR", help="Spark event log directory (spark.eventLog.dir)")
    src.add_argument("--sql-history", metavar="FILE", help="SQL statements, ;-separated or one per line")
    wl.add_argument("--table", help="the table whose predicates to keep (db.table or table)")
    wl.add_argument("--since", help="only executions from this ISO date or time on (event logs)")
    wl.add_argument("-o", "--output", default=None, help="write the workload file here (default: print it)")
    wl.add_argument("--format", choices=("table", "json"), default="table")
    wl.set_defaults(func=cmd_workload)

    rep = sub.add_parser("report", help="write the self-contained HTML tuning report of a table")
    rep.add_argument("table", help="table directory")
    rep.add_argument("--workload", help="file with one WHERE clause per line (optional '-- weight: N')")
    rep.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    rep.add_argument("-o", "--output", default="report.html",
                     help="output file (default report.html); a name ending in .json gets the report as data")
    rep.add_argument("--recommend", action="store_true",
                     help="add index recommendations (measures candidates; the default with --workload)")
    rep.add_argument("--no-recommend", action="store_true",
                     help="with --workload: leave the recommendations out (faster on large tables)")
    rep.add_argument("--max-files", type=int, default=None, help="with --recommend: measure a sample of files")
    rep.add_argument("--format", choices=("table", "json"), default="table",
                     help="what is printed: a line (table) or JSON with the report as data under 'report'")
    _add_engine_args(rep)
    rep.set_defaults(func=cmd_report)

    rec = sub.add_parser("recommend", help="which file indexes the table should have, measured on its data")
    rec.add_argument("table", help="table directory")
    rec.add_argument("--workload", help="file with one WHERE clause per line (default: derived from the data)")
    rec.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    rec.add_argument("--max-files", type=int, default=None, help="measure a seeded sample of this many files")
    rec.add_argument("--query-runs", type=int, default=1000,
                     help="times each query runs over the index's life (weighs bytes read against bytes stored)")
    rec.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(rec)
    rec.set_defaults(func=cmd_recommend)

    pl_ = sub.add_parser("plan", help="one tuning plan: recommendations and findings as one ordered set of "
                                      "statements, with their predicted effect")
    pl_.add_argument("table", help="table directory")
    pl_.add_argument("--workload", help="file with one WHERE clause per line (default: derived from the data)")
    pl_.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    pl_.add_argument("--max-files", type=int, default=None, help="measure a seeded sample of this many files")
    pl_.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(pl_)
    pl_.set_defaults(func=cmd_plan)

    sh = sub.add_parser("shadow", help="a new table at OUT with the snapshot's data and a plan's file indexes, "
                                       "to try the plan on (the table itself is only read)")
    sh.add_argument("table", help="table directory")
    sh.add_argument("out", help="an empty directory outside the table")
    sh.add_argument("--plan", help="the plan's JSON (paimon-lens plan --format json); default: planned now")
    sh.add_argument("--workload", help="for a plan made now: one WHERE clause per line")
    sh.add_argument("--snapshot", default=None, help="snapshot selector (see files)")
    sh.add_argument("--format", choices=("table", "json"), default="table")
    _add_engine_args(sh)
    sh.set_defaults(func=cmd_shadow)

    from ..synth import add_synth_parser  # light: pyspark is imported by the job only

    add_synth_parser(sub)
    for command in sub.choices.values():
        command.add_argument("--no-progress", action="store_true",
                             help="no progress bars (on stderr, they appear once work takes over a second)")
        if any(a.dest == "table" for a in command._actions):
            command.add_argument("--warehouse", metavar="W",
                                 help="a filesystem catalog's warehouse: TABLE is then database.table")
    return p


def run() -> int:
    """The ``paimon-lens`` console script (and ``python -m paimon_lens``): :func:`main` in a process
    of its own, whose Arrow buffers use the system allocator unless ``ARROW_DEFAULT_MEMORY_POOL``
    says otherwise (Arrow's default, mimalloc, keeps freed pages: a command's frames are built one
    after another, and with it a report's peak memory grows by what earlier sections freed), and
    whose garbage collector paimon-lens may pause (:mod:`paimon_lens.metadata.gc_pause`)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    from ..metadata.gc_pause import set_gc_pause

    set_gc_pause(True)  # the command's own process: its collector may pause during bulk decoding
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); the exit code."""
    from ..progress import progress_enabled, set_progress

    parser = build_parser()
    args = parser.parse_args(argv)
    from ..io.fileio import remote_reads

    before = progress_enabled()
    reads = remote_reads()
    if getattr(args, "no_progress", False):
        set_progress(False)
    try:
        with warnings.catch_warnings(record=True) as moved:
            warnings.simplefilter("always", SnapshotMovedWarning)
            code: int = args.func(args, sys.stdout)
        for w in moved:  # the answer is the newest snapshot's: said once, as a note
            if issubclass(w.category, SnapshotMovedWarning):
                print(f"paimon-lens: note: {w.message}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        _report_remote_reads(reads)
        return code
    except PaimonLensError as e:
        print(f"paimon-lens: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:  # a path given on the command line: one line, no traceback
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        print(f"paimon-lens: error: {e.strerror or type(e).__name__}{where}", file=sys.stderr)
        return 2
    finally:
        set_progress(before)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
