"""Which presentation function shows which service answer: the table ``import paimon_lens`` registers.

A service's answer (``Advice``, ``History`` ...) is data; its ``frame()`` or ``_repr_html_`` asks
:mod:`paimon_lens.rendering` for the view registered here, so that no service imports the
presentation. Every entry is checked to resolve by ``tests/test_architecture.py``.
"""

from __future__ import annotations

from ..rendering import register_view

_FRAMES = "paimon_lens.presentation.result_frames"

#: ``class path -> {view: "module:function"}``
VIEWS: dict[str, dict[str, str]] = {
    "paimon_lens.pruning.explain.ExplainReport": {
        "html": "paimon_lens.presentation.html:render_explain", "frame": f"{_FRAMES}:explain_frame"},
    "paimon_lens.advisor.advise.Advice": {
        "frame": f"{_FRAMES}:advice_frame", "tradeoff_frame": f"{_FRAMES}:tradeoff_frame",
        "pareto_frame": f"{_FRAMES}:pareto_frame", "html": f"{_FRAMES}:advice_html"},
    "paimon_lens.advisor.whatif.WhatIfResult": {
        "frame": f"{_FRAMES}:whatif_frame", "query_frame": f"{_FRAMES}:whatif_query_frame",
        "threshold_frame": f"{_FRAMES}:whatif_threshold_frame", "html": f"{_FRAMES}:whatif_html"},
    "paimon_lens.advisor.profile.TableProfile": {
        "columns_frame": f"{_FRAMES}:profile_columns_frame", "files_frame": f"{_FRAMES}:profile_files_frame"},
    "paimon_lens.advisor.derive.DerivedWorkload": {"queries_frame": f"{_FRAMES}:derived_queries_frame"},
    "paimon_lens.advisor.findings.Findings": {"frame": f"{_FRAMES}:findings_frame"},
    "paimon_lens.advisor.plan.Plan": {"frame": f"{_FRAMES}:plan_frame", "html": f"{_FRAMES}:plan_html"},
    "paimon_lens.history.timeline.History": {"frame": f"{_FRAMES}:history_frame", "html": f"{_FRAMES}:history_html"},
    "paimon_lens.history.diff.SnapshotDiff": {"frame": f"{_FRAMES}:diff_frame"},
    "paimon_lens.history.diff.ExplainDiff": {"html": f"{_FRAMES}:explain_diff_html"},
}


def register_views() -> None:
    """Register every view of :data:`VIEWS` (imports nothing but this table)."""
    for class_path, views in VIEWS.items():
        for view, renderer in views.items():
            register_view(class_path, view, renderer)
