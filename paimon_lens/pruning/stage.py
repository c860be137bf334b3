"""What a stage of Paimon's scan and read is: one step that keeps or drops data files (or rows) and says why.

Each stage is a class in one of three phases, in Paimon's order (:data:`paimon_lens.pruning.pipeline.STAGES`):

* ``scan``: Paimon's scan planning, per file (partition, bucket, level, stats, index) or per group
  of files (row-range groups, whole bucket): :mod:`.scan_stages`;
* ``plan``: applied to the scan's plan of the whole snapshot (row ids, global index, primary-key
  index, TopN): :mod:`.plan_stages`;
* ``read``: what the reader does with a planned file (read index, index rows, deletion vector):
  :mod:`.read_stages`.

A verdict names the first stage that removed its file (``FileVerdict.stage``, the class's
:attr:`Stage.name`; stages of one step share a name, e.g. the value stats and the key stats are
both ``stats``). Which stages a plan has follows from the table and the release's rules
(:meth:`Stage.applies` of each class; the planner builds its chain from them); the funnel lists a
stage when :meth:`Stage.shown` says the explanation consulted it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar


class StageName(StrEnum):
    """The steps of Paimon's scan and read, by the name verdicts, funnels and JSON give them (a
    member is that name as text; a verdict's ``stage`` is ``""`` for a file that is read)."""

    PARTITION = "partition"
    BUCKET = "bucket"
    ROW_IDS = "row ids"
    GLOBAL_INDEX = "global index"
    LEVEL = "level"
    STATS = "stats"
    INDEX = "index"
    WHOLE_BUCKET = "whole_bucket"
    PRIMARY_KEY_INDEX = "primary-key index"
    TOPN = "topn"
    READ_INDEX = "read index"
    INDEX_ROWS = "index rows"
    DELETION_VECTOR = "deletion vector"


class Stage:
    """One step of Paimon's scan and read (a class per step; scan stages are instantiated per plan,
    holding that plan's caches).

    Attributes:
        name: the step's name, as verdicts and funnels print it.
        label: the funnel's label of what is still in play after it.
        phase: ``scan``, ``plan`` or ``read``.
        primary_key_only: a step only primary-key tables have (append tables show no funnel row).
        report_field: the explanation's attribute that is None unless the step was consulted
            (steps of indexes and clauses only some tables and queries have); None: always listed.
    """

    name: ClassVar[str] = ""
    """A :class:`StageName` (several classes of one step share it)."""
    label: ClassVar[str] = ""
    phase: ClassVar[str] = ""
    primary_key_only: ClassVar[bool] = False
    report_field: ClassVar[str | None] = None

    @classmethod
    def consulted(cls, report: Any) -> bool:
        """Whether ``report`` (an explanation) consulted this step (its skipped-by count is listed)."""
        return cls.report_field is None or getattr(report, cls.report_field) is not None

    @classmethod
    def shown(cls, report: Any, primary_key_table: bool) -> bool:
        """Whether the funnel of ``report`` has a row for this step."""
        return (primary_key_table or not cls.primary_key_only) and cls.consulted(report)

    @classmethod
    def funnel_label(cls) -> str:
        """The funnel's label of this step."""
        return cls.label or f"after {cls.name}"
