"""Frames and HTML of the services' answers: explain, advice, what-if, profile, findings, history, diff.

A service returns records (its answer's fields, as Python values) and knows nothing of pandas;
each function here turns one answer into the frame its ``frame()`` method shows, with the columns
``frame_columns`` declares, through :func:`~paimon_lens.presentation.lens_frame.records_frame`.
``views.py`` registers them for the answers' classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from .frame_columns import (
    COLUMN_FRAME_COLUMNS,
    DERIVED_QUERY_COLUMNS,
    DIFF_COLUMNS,
    EXPLAIN_COLUMNS,
    FILE_FRAME_COLUMNS,
    FINDING_COLUMNS,
    HISTORY_COLUMNS,
    PLAN_QUERY_COLUMNS,
    QUERY_COLUMNS,
    RECOMMENDATION_COLUMNS,
    THRESHOLD_COLUMNS,
    TRADEOFF_COLUMNS,
    WHATIF_COLUMNS,
)
from .lens_frame import frame_html, records_frame

if TYPE_CHECKING:
    import pandas as pd

    from ..advisor.advise import Advice
    from ..advisor.derive import DerivedWorkload
    from ..advisor.findings import Findings
    from ..advisor.plan import Plan
    from ..advisor.profile import TableProfile
    from ..advisor.whatif import WhatIfResult
    from ..history.diff import ExplainDiff, SnapshotDiff
    from ..history.timeline import History
    from ..pruning.explain import ExplainReport


# ---- explain ------------------------------------------------------------------------------------

def explain_frame(report: ExplainReport) -> pd.DataFrame:
    """One row per data file (:data:`EXPLAIN_COLUMNS`): the report's file records, with the index
    answer's kind, the rows a bitmap selects and the flags as one text."""
    import pandas as pd

    rows = []
    for rec in report.file_records(as_json=False):
        positions = rec.pop("index_positions")
        rec["index_kind"] = rec.pop("index_result_kind")
        rec["index_rows"] = None if positions is None else len(positions)
        rec["flags"] = ", ".join(rec["flags"])
        rec["stage"] = rec["stage"] or ""  # the frame's read files have an empty stage (JSON: null)
        rows.append(rec)
    frame = records_frame(rows, EXPLAIN_COLUMNS)
    if rows:  # ints, None where no bitmap selects or a count is unknown (not floats with NaN)
        for column in ("index_selected_rows", "deleted_rows"):
            values = [r[column] for r in rows]
            if column == "index_selected_rows" or None in values:
                frame[column] = pd.Series(values, index=frame.index, dtype=object)
    return frame


# ---- advice -------------------------------------------------------------------------------------

def advice_frame(advice: Advice) -> pd.DataFrame:
    """One row per recommendation (:data:`RECOMMENDATION_COLUMNS`)."""
    rows = [{**r.to_dict(), "options": ", ".join(f"{k}={v}" for k, v in r.options.items())}
            for r in advice.recommendations]
    return records_frame(rows, RECOMMENDATION_COLUMNS)


def tradeoff_frame(advice: Advice) -> pd.DataFrame:
    """Every candidate of every column with its measured gain and cost (:data:`TRADEOFF_COLUMNS`)."""
    return records_frame(advice.tradeoffs, TRADEOFF_COLUMNS)


def pareto_frame(advice: Advice) -> pd.DataFrame:
    """The candidates on the Pareto front of index bytes (less is better) and bytes avoided (more
    is better), by index bytes."""
    frame = tradeoff_frame(advice)
    keep = []
    for _, row in frame.iterrows():
        dominated = ((frame["index_bytes"] <= row["index_bytes"])
                     & (frame["bytes_avoided_per_query"] >= row["bytes_avoided_per_query"])
                     & ((frame["index_bytes"] < row["index_bytes"])
                        | (frame["bytes_avoided_per_query"] > row["bytes_avoided_per_query"]))).any()
        keep.append(not dominated)
    return frame[keep].sort_values("index_bytes")


def advice_html(advice: Advice) -> str:
    """The recommendations as a frame, then the Spark statements that apply them."""
    head = "<p><b>Recommendations</b>" + (" (workload derived from the column profiles)"
                                           if advice.workload_derived else "") + "</p>"
    stmts = "".join(f"<pre>{escape(s)}</pre>" for s in advice.statements("spark"))
    return head + frame_html(advice_frame(advice)) + stmts


# ---- what-if ------------------------------------------------------------------------------------

def whatif_frame(result: WhatIfResult) -> pd.DataFrame:
    """One row per candidate (:data:`WHATIF_COLUMNS`)."""
    return records_frame(result.records(), WHATIF_COLUMNS)


def whatif_query_frame(result: WhatIfResult) -> pd.DataFrame:
    """One row per query x candidate (:data:`QUERY_COLUMNS`)."""
    return records_frame(result.query_records(), QUERY_COLUMNS)


def whatif_threshold_frame(result: WhatIfResult, thresholds: Sequence[int] | None = None) -> pd.DataFrame:
    """Manifest growth per candidate x ``in-manifest-threshold`` (:data:`THRESHOLD_COLUMNS`)."""
    return records_frame(result.threshold_records(thresholds), THRESHOLD_COLUMNS)


def whatif_html(result: WhatIfResult) -> str:
    """The candidates' frame."""
    return frame_html(whatif_frame(result))


# ---- profile and derived workload ---------------------------------------------------------------

def profile_columns_frame(profile: TableProfile) -> pd.DataFrame:
    """One row per column (:data:`COLUMN_FRAME_COLUMNS`)."""
    return records_frame(profile.column_records(as_json=False), COLUMN_FRAME_COLUMNS)


def profile_files_frame(profile: TableProfile) -> pd.DataFrame:
    """One row per profiled data file x column (:data:`FILE_FRAME_COLUMNS`)."""
    return records_frame(profile.file_column_records(as_json=False), FILE_FRAME_COLUMNS)


def derived_queries_frame(derived: DerivedWorkload) -> pd.DataFrame:
    """One row per derived query (:data:`DERIVED_QUERY_COLUMNS`)."""
    return records_frame([q.to_dict() for q in derived.derived], DERIVED_QUERY_COLUMNS)


# ---- plan ---------------------------------------------------------------------------------------

def plan_frame(plan: Plan) -> pd.DataFrame:
    """One row per workload query, before and after the plan (:data:`PLAN_QUERY_COLUMNS`)."""
    return records_frame(plan.query_records(), PLAN_QUERY_COLUMNS)


def plan_html(plan: Plan) -> str:
    """The plan's steps with their reasons and Spark statements, then the predicted effect."""
    items = []
    for step in plan.steps:
        stmts = "".join(f"<pre>{escape(s)};</pre>" for s in step.statements.get("spark", ()))
        mark = " (effect estimated)" if step.estimated else ""
        items.append(f"<li><b>{escape(step.title)}</b>{mark}<br>{escape(step.reason)}{stmts}</li>")
    head = (f"<p><b>Plan for {escape(plan.table)}</b> at snapshot {plan.snapshot_id}: "
            f"{len(plan.steps)} step(s)</p>")
    return head + f"<ol>{''.join(items)}</ol>" + frame_html(plan_frame(plan))


# ---- findings -----------------------------------------------------------------------------------

def findings_frame(findings: Findings) -> pd.DataFrame:
    """One row per finding, ranked (:data:`FINDING_COLUMNS`)."""
    rows = [{"rank": i, **f.to_dict(), "statements": "; ".join(f.statements)}
            for i, f in enumerate(findings.items, 1)]
    return records_frame(rows, FINDING_COLUMNS)


# ---- history ------------------------------------------------------------------------------------

def history_frame(history: History) -> pd.DataFrame:
    """One row per snapshot (:data:`HISTORY_COLUMNS`)."""
    return records_frame([s.record() for s in history.snapshots], HISTORY_COLUMNS)


def history_html(history: History) -> str:
    """The timeline's frame (60 rows before it is cut)."""
    return frame_html(history_frame(history), max_rows=60)


def diff_frame(diff: SnapshotDiff) -> pd.DataFrame:
    """One row per file added or removed (:data:`DIFF_COLUMNS`)."""
    return records_frame(diff.file_records(), DIFF_COLUMNS)


def explain_diff_html(diff: ExplainDiff) -> str:
    """The query, its change in files and bytes read, and the causes (every line escaped)."""
    lines = diff.lines()
    items = "".join(f"<li>{escape(line)}</li>" for line in lines[2:])
    head = "<br>".join(escape(line) for line in lines[:2])
    return f"<div><b>{escape(diff.where)}</b><br>{head}<ul>{items}</ul></div>"
