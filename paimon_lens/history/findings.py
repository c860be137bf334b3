"""Findings from a table's timeline: what its history says is going wrong.

Each check reads the rows of :func:`~paimon_lens.history.timeline.history` only (no file is read
again) and gives :class:`~paimon_lens.advisor.findings.Finding` records, ranked with the others:

* ``index-dropped``: an index once configured is no longer, and compactions since rewrote files
  without it (its coverage fell from its peak);
* ``index-missing-recent``: files added after an index was configured lack it (the writer does
  not apply the option), on top of the files written before it was configured;
* ``dv-growing``: the worst bucket's deleted-row share rose since the last compaction and is
  above :data:`DV_GROWING_RATIO`;
* ``small-files-growing``: small files accumulated since the last compaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..advisor.findings import Finding, set_options, table_ref
from ..units import human_count, human_percent

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader
    from .timeline import History, SnapshotFacts

DV_GROWING_RATIO = 0.1
"""``dv-growing`` fires when the worst bucket's deleted share reaches this and is still rising."""

SMALL_FILES_GROWING = 20
"""``small-files-growing`` fires when this many small files were added since the last compaction."""


def _last_compaction(rows: list[SnapshotFacts]) -> SnapshotFacts | None:
    return next((r for r in reversed(rows) if r.commit_kind == "COMPACT" and not r.problems), None)


def _rewrite(table: SnapshotReader) -> str:
    return f"CALL sys.rewrite_file_index('{table_ref(table)}')"


def history_findings(table: SnapshotReader, timeline: History) -> list[Finding]:
    """The timeline checks (see the module docs) over the rows of ``timeline``."""
    rows = [r for r in timeline.snapshots if not r.problems]
    if len(rows) < 2:
        return []
    last = rows[-1]
    out: list[Finding] = []
    ever = {label: max(r.index_coverage.get(label, 0) for r in rows)
            for r in rows for label in r.unindexed_files}
    for label, peak in ever.items():
        if label in last.unindexed_files or last.index_coverage.get(label, 0) >= peak:
            continue
        dropped_at = next(r.snapshot_id for r in rows if r.snapshot_id > max(
            x.snapshot_id for x in rows if label in x.unindexed_files))
        lost = peak - last.index_coverage.get(label, 0)
        kind, column = label.split("(", 1)
        column = column[:-1]
        out.append(Finding(
            "index-dropped", f"the {label} index is no longer configured: {lost} files lost it", label,
            f"{label} was configured until snapshot {dropped_at - 1} (on up to {peak} files); since snapshot "
            f"{dropped_at} it is not, and rewrites left {last.index_coverage.get(label, 0)} of {last.files} "
            "live files with it", f"queries filtering on {column} read the {lost} files it no longer skips",
            float(lost * (last.bytes / last.files if last.files else 0)),
            f"configure the {kind} index on {column} again and rebuild it on the rewritten files",
            (*set_options(table, {f"file-index.{kind}.columns": _with(last, kind, column)}), _rewrite(table)),
            {"label": label, "peak_files": peak, "dropped_at": dropped_at}))
    for label, missing in last.unindexed_files.items():
        if not missing:
            continue
        since = next(r for r in rows if label in r.unindexed_files)
        old = since.unindexed_files[label]
        recent = missing - min(old, missing)
        if recent <= 0:
            continue
        out.append(Finding(
            "index-missing-recent", f"{recent} files written after {label} was configured lack it", label,
            f"{label} is configured since snapshot {since.snapshot_id}, when {old} files lacked it; "
            f"now {missing} of {last.files} live files do", f"{missing} files its queries cannot skip by the index",
            float(missing * (last.bytes / last.files if last.files else 0)),
            "check that every writer uses the table's file-index options, then rebuild the index",
            (_rewrite(table),), {"label": label, "configured_at": since.snapshot_id, "missing": missing,
                                 "missing_when_configured": old}))
    base = _last_compaction(rows) or rows[0]
    worst = last.dv_max_bucket_ratio or 0.0
    if worst >= DV_GROWING_RATIO and worst > (base.dv_max_bucket_ratio or 0.0):
        out.append(Finding(
            "dv-growing", f"deleted rows rose to {human_percent(worst)} of the worst bucket", "deletion vectors",
            f"{human_count(last.dv_deleted_rows)} deleted rows in {last.dv_files} files at snapshot "
            f"{last.snapshot_id}, against {human_count(base.dv_deleted_rows)} at snapshot {base.snapshot_id} "
            f"({'the last compaction' if base.commit_kind == 'COMPACT' else 'the first snapshot'})",
            f"{human_count(last.dv_deleted_rows - base.dv_deleted_rows)} more rows read and dropped per scan",
            float((last.dv_deleted_rows - base.dv_deleted_rows) * (last.bytes / last.rows if last.rows else 0)),
            "compact the buckets with the most deleted rows", (f"CALL sys.compact(table => '{table_ref(table)}')",),
            {"dv_max_bucket_ratio": worst, "since": base.snapshot_id}))
    grown = last.small_files - base.small_files
    if grown >= SMALL_FILES_GROWING:
        out.append(Finding(
            "small-files-growing", f"{grown} small files accumulated since snapshot {base.snapshot_id}",
            "small files", f"{last.small_files} of {last.files} live files are small at snapshot "
            f"{last.snapshot_id}, {base.small_files} at snapshot {base.snapshot_id}",
            f"{grown} more file opens per full scan", float(grown * 1_000_000),
            "compact (or schedule compaction) so that small files are merged",
            (f"CALL sys.compact(table => '{table_ref(table)}')",), {"since": base.snapshot_id, "grown": grown}))
    return out


def _with(last: SnapshotFacts, kind: str, column: str) -> str:
    configured = [label.split("(", 1)[1][:-1] for label in last.unindexed_files if label.startswith(kind + "(")]
    return ",".join([*configured, column])
