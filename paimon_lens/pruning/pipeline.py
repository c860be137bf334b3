"""Every stage of Paimon's scan and read, in Paimon's order: the steps a funnel lists.

The scan's stages (:mod:`.scan_stages`) and the stages on its plan (:mod:`.plan_stages`) interleave
as Paimon applies them (row-id ranges and the global index prune manifests and files before the
stats are tested), then the reader's (:mod:`.read_stages`). Stages sharing a step's name (the value
stats, the key stats and the row-range groups' stats are all ``stats``) appear once, as the step.
"""

from __future__ import annotations

from collections.abc import Sequence

from .plan_stages import GlobalIndexStage, PrimaryKeyIndexStage, RowIdStage, TopNStage
from .read_stages import DeletionVectorStage, IndexRowsStage, ReadIndexStage
from .scan_stages import (
    BucketStage,
    EmbeddedIndexStage,
    LevelStage,
    PartitionStage,
    ValueStatsStage,
    WholeBucketStage,
)
from .stage import Stage

#: the steps, in Paimon's order
STEPS: Sequence[type[Stage]] = (
    PartitionStage, BucketStage, RowIdStage, GlobalIndexStage, LevelStage, ValueStatsStage, EmbeddedIndexStage,
    WholeBucketStage, PrimaryKeyIndexStage, TopNStage, ReadIndexStage, IndexRowsStage, DeletionVectorStage,
)

#: the steps' names, in order (a verdict's ``stage`` is one of them, or "" when the file is read)
STAGES: tuple[str, ...] = tuple(s.name for s in STEPS)
