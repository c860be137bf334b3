"""The tuning report's History section (also the explorer's History tab).

From the table's timeline (:func:`~paimon_lens.history.timeline.history`): first, when a workload
is given, each query's bytes read at the earliest snapshot it applies to and now, with the commits
that changed it (:func:`~paimon_lens.history.diff.explain_diffs`: "compaction at snapshot 42
merged 12 indexed files into 1 without a bitmap index on `status`: +180 MiB read"); then the
timeline's findings (:mod:`paimon_lens.history.findings`), the timeline plot and the timeline
itself (sampled to at most :data:`MAX_ROWS` rows).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError
from .blocks import Cause, Causes, Details, FindingItem, Findings, Frame, heading, paragraph
from .lens_frame import human_bytes, human_count
from .section import Section, guarded, plot

if TYPE_CHECKING:
    from ..history.timeline import History
    from ..metadata.snapshot_reader import SnapshotReader
    from ..table.facade import Table
    from ..workload.model import Workload

MAX_ROWS = 60
"""Timeline rows listed in the section (evenly sampled beyond, the last always kept)."""


def _anchors(timeline: History) -> list[int]:
    """Snapshots to compare from: the earliest readable one, then the first of each later schema
    (a query naming a column added later applies from there on)."""
    out: list[int] = []
    schema = None
    for r in timeline.snapshots:
        if r.problems:
            continue
        if not out or r.schema_id != schema:
            out.append(r.snapshot_id)
        schema = r.schema_id
    return out


def regressions(reader: SnapshotReader, timeline: History, workload: Workload) -> list[dict[str, Any]]:
    """Per workload query: read bytes at its anchor snapshot and now, and the causes of the change
    (``error`` when the query applies to no snapshot of the timeline but the current one)."""
    from ..history.diff import ExplainDiff, explain_diffs

    current = reader.snapshot_id
    anchors = [a for a in _anchors(timeline) if current is not None and a < current]
    from ..predicate.parser import parse_where

    out: list[dict[str, Any]] = []
    pending = []
    for q in workload:
        try:
            parse_where(q.where, reader.schema.fields)
        except PaimonLensError:
            continue  # it does not apply to the current snapshot: the workload section says why
        pending.append(q)
    results: dict[int, ExplainDiff | PaimonLensError] = {}
    for anchor in anchors:
        if not pending or current is None:
            break
        got = explain_diffs(reader, [q.where for q in pending], anchor, current)
        still = []
        for q, r in zip(pending, got):
            if isinstance(r, PaimonLensError) and f"at snapshot {anchor} " in str(r):
                still.append(q)  # the query does not apply that far back: try a later anchor
            results[id(q)] = r
        pending = still
    for q in workload:
        if id(q) not in results:
            continue
        r = results[id(q)]
        if isinstance(r, PaimonLensError):
            out.append({"query": q.where, "weight": q.weight, "error": str(r)})
            continue
        sa, sb = r.a.summary(), r.b.summary()
        top = r.causes[0] if r.causes else None
        out.append({"query": q.where, "weight": q.weight, "from_snapshot": r.a.snapshot_id,
                    "read_bytes_then": sa["read_bytes"], "read_bytes_now": sb["read_bytes"],
                    "read_bytes_delta": r.read_bytes_delta, "top_cause": None if top is None else top.text,
                    "top_cause_snapshot": None if top is None else top.snapshot_id, "diff": r})
    return out


def history_section(table: Table, workload: Workload | None = None) -> Section:
    """The History section (see the module docs)."""
    s = Section("history", "History: what changed over the snapshots")

    def body() -> None:
        import pandas as pd

        from ..history.findings import history_findings
        from ..history.timeline import history

        timeline = history(table.reader)
        s.errors += timeline.problems
        rows = [r for r in timeline.snapshots if not r.problems]
        kinds = Counter(r.commit_kind or "?" for r in rows)
        s.facts += [("snapshots kept", human_count(len(timeline))),
                    ("commits", ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "-"),
                    ("schema versions", human_count(len({r.schema_id for r in rows}))),
                    ("tags", human_count(sum(len(r.tags) for r in rows)))]
        if len(rows) < 2:
            s.blocks.append(paragraph("One snapshot kept: no history to compare."))
            return
        if workload is not None and len(workload):
            _regressions(s, table, timeline, workload)
        found = history_findings(table.reader, timeline)
        if found:
            s.blocks.append(heading("What the history shows"))
            s.blocks.append(Findings(tuple(FindingItem(f.title, f.kind, f.evidence, f.fix, tuple(f.statements))
                                           for f in found)))
        s.facts.append(("history findings", human_count(len(found))))
        s.urgent = s.urgent or bool(found)
        from .plots import timeline as timeline_plot

        plot(s, "timeline", lambda: timeline_plot(timeline))
        every = max(1, math.ceil(len(timeline) / MAX_ROWS))
        shown = [r for i, r in enumerate(timeline.snapshots) if i % every == 0 or i == len(timeline) - 1]
        frame = pd.DataFrame([{
            "snapshot_id": r.snapshot_id, "commit_kind": r.commit_kind, "time": r.time, "schema_id": r.schema_id,
            "files": r.files, "bytes": r.bytes, "added_files": r.added_files, "removed_files": r.removed_files,
            "small_file_ratio": r.small_file_ratio,
            "index coverage (least)": min((n / r.files for n in r.index_coverage.values()), default=None)
            if r.files else None,
            "dv_ratio": r.dv_ratio, "tags": ", ".join(r.tags), "problems": "; ".join(r.problems)}
            for r in shown])
        note = f" (every {every}th snapshot and the last)" if every > 1 else ""
        s.blocks.append(Details(f"timeline: {len(timeline)} snapshots{note}", (Frame(frame, max_rows=MAX_ROWS + 1),)))

    guarded(s, "history", body)
    return s


def _regressions(s: Section, table: Table, timeline: History, workload: Workload) -> None:
    import pandas as pd

    found = regressions(table.reader, timeline, workload)
    if not found:
        return
    rows = []
    for r in found:
        if "error" in r:
            s.errors.append(f"{r['query']}: {r['error']}")
            continue
        delta = r["read_bytes_delta"]
        rows.append({"query": r["query"], "since snapshot": r["from_snapshot"],
                     "read then": human_bytes(r["read_bytes_then"]), "read now": human_bytes(r["read_bytes_now"]),
                     "change": ("+" if delta >= 0 else "-") + human_bytes(abs(delta)),
                     "biggest cause": r["top_cause"] or "-"})
    if not rows:
        return
    slower = [r for r in found if r.get("read_bytes_delta", 0) > 0]
    # appends make queries read more as the table grows; other commits doing so need a look
    worse = [r for r in slower if any(c.kind != "append" and c.read_bytes_delta > 0 for c in r["diff"].causes)]
    s.facts.insert(0, ("workload queries reading more than before", human_count(len(slower))))
    s.facts.insert(1, ("… more not from appends (compactions, overwrites, changed verdicts)", human_count(len(worse))))
    s.urgent = bool(worse)
    s.blocks.append(heading("Workload queries then and now"))
    s.blocks.append(Frame(pd.DataFrame(rows), max_rows=100))
    details = [Cause(r["query"], f"read {human_bytes(r['read_bytes_then'])} at snapshot {r['from_snapshot']}, "
                                 f"{human_bytes(r['read_bytes_now'])} now", tuple(c.text for c in r["diff"].causes[:8]))
               for r in sorted(slower, key=lambda x: -x["read_bytes_delta"])]
    if details:
        s.blocks.append(Causes(tuple(details)))
