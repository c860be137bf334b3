"""HTML rendering of paimon-lens results (jinja2, autoescaped: table values are untrusted)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..units import human_bytes

if TYPE_CHECKING:
    import jinja2

    from ..metadata.snapshot_reader import SnapshotReader
    from ..pruning.explain import ExplainReport


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment (autoescape always on)."""
    import jinja2

    from .blocks import block_html

    env = jinja2.Environment(loader=jinja2.PackageLoader("paimon_lens.presentation", "templates"),
                             autoescape=True, trim_blocks=False, lstrip_blocks=False)
    env.filters["block_html"] = block_html
    return env


def render_explain(report: ExplainReport, include_files: bool = True) -> str:
    """The explain report as a self-contained HTML fragment (the per-file table optional)."""
    summary = report.summary(complete=False)  # the files of partitions Paimon does not read stay unlisted
    funnel = summary["funnel"]
    top = max((r["files"] for r in funnel), default=1) or 1
    rows: list[dict[str, Any]] = [
        {**r, "bytes_h": human_bytes(r["bytes"]), "width": int(200 * r["files"] / top)} for r in funnel
    ]
    files = [
        {"file_name": f.file_name, "path": f.path, "bucket": f.bucket, "row_count": f.row_count,
         "partition_text": ", ".join(f"{k}={v}" for k, v in f.partition.items()), "read": f.read,
         "stage": f.stage, "rows_after_dv": f.rows_after_dv, "matching_rows": f.matching_rows,
         "reason": f.reason, "flags": f.flags, "error": f.error, "branch": f.branch}
        for f in report.candidate_files
    ]
    unread = None
    if not report.complete:
        m = report.skipped_manifests
        unread = ((f"{len(m)} manifests ({sum(x.num_added_files + x.num_deleted_files for x in m)} entries) "
                   "were not read: their partition stats exclude the predicate (Paimon does not read them "
                   "either). ") if m else "") + ("The files of the other partitions, all removed at the partition "
                                                 "stage, are not counted here: report.files lists every file.")
    return environment().get_template("explain.html.j2").render(
        where=report.where, predicate=str(report.predicate), snapshot_id=report.snapshot_id,
        paimon_version=report.paimon_version, notes=report.candidate_notes, funnel=rows, files=files,
        truth=report.truth, summary=summary, include_files=include_files, unread=unread)


def render_table(table: SnapshotReader) -> str:
    """A compact card about a table: snapshot, kind, keys, columns, index options (escaped)."""
    import datetime as _dt

    snap = table.snapshot
    schema = table.schema
    when = None
    if snap is not None:
        try:
            stamp = _dt.datetime.fromtimestamp(snap.time_millis / 1000, tz=_dt.UTC)
            when = stamp.strftime("%Y-%m-%d %H:%M:%S UTC")
        except (OverflowError, ValueError, OSError):
            when = f"{snap.time_millis} ms since 1970 (beyond the calendar)"
    files = table.live_file_count
    columns = [{"name": f.name, "type": str(f.type),
                "key": "PK" if f.name in schema.primary_keys else "partition" if f.name in schema.partition_keys
                else ""} for f in schema.fields]
    options = {k: v for k, v in sorted(schema.options.items())
               if k.startswith(("file-index", "deletion-vectors", "bucket", "metadata.stats"))}
    return environment().get_template("table.html.j2").render(
        name=table.name, path=table.path, snapshot=snap, when=when, schema=schema, columns=columns,
        options=options, files=files, records=None if snap is None else snap.total_record_count,
        kind="primary-key table" if table.is_primary_key_table else "append table")
