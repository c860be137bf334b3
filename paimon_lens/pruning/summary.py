"""The records of an explanation's totals: its summary and the rows of its funnel.

An :class:`~paimon_lens.pruning.explain.ExplainReport` (and the distributed
:class:`~paimon_lens.distributed.spark_plan.SparkExplainReport`) answers ``summary()`` with an
:class:`ExplainSummary` and ``funnel()`` with :class:`FunnelRow` records: JSON-ready dicts whose
keys are typed here once (``explain --format json`` prints them as they are).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class FunnelRow(TypedDict):
    """Files, bytes and rows still in play after one stage (the first row: before any)."""

    stage: str
    files: int
    bytes: int
    rows: int


class ExplainSummary(TypedDict):
    """An explanation's totals: what the snapshot holds, what Paimon plans and reads, per stage."""

    files: int
    bytes: int
    rows: int
    planned_files: int
    planned_bytes: int
    read_files: int
    read_bytes: int
    rows_after_dv: int
    skipped_by: dict[str, int]
    """Files each consulted stage removed, by stage name."""
    funnel: list[FunnelRow]
    files_with_errors: int
    partial: bool
    """A total depends on something that could not be read (``files_with_errors`` > 0)."""
    matching_files: NotRequired[int]
    """With truth: files with a matching row."""
    matching_rows: NotRequired[int]
    read_files_without_match: NotRequired[int]
    skipped_files_with_match: NotRequired[int]
    truth_unavailable_files: NotRequired[int]
    """With truth: files whose matching rows could not be computed (missing from the counts)."""
    global_index: NotRequired[dict[str, Any]]
    """Tables with global indexes: what the global index selected (``global_index_stage.summary_fields``)."""
    primary_key_index: NotRequired[dict[str, Any]]
    topn: NotRequired[dict[str, Any]]
    row_id_ranges: NotRequired[list[list[int]]]
