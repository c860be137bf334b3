"""The index advisor: column profiles + a workload -> candidate indexes -> measured advice.

Layers: column profiles from the data files (:mod:`.profile`); a representative workload derived
from them when none is given (:mod:`.derive`); the candidate indexes per column
(:mod:`.candidates`); their what-if measurement on the table's own files (:mod:`.whatif`); and
the advice with the SQL to apply it (:mod:`.advise`, also ``paimon_lens.recommend``).
"""

from __future__ import annotations

from .derive import DerivedQuery, DerivedWorkload, derive_queries, derive_workload, to_workload
from .profile import ColumnProfile, FileColumnProfile, FileProfile, TableProfile, UnprofiledFile, profile_table

__all__ = [
    "ColumnProfile",
    "DerivedQuery",
    "DerivedWorkload",
    "FileColumnProfile",
    "FileProfile",
    "TableProfile",
    "UnprofiledFile",
    "derive_queries",
    "derive_workload",
    "profile_table",
    "to_workload",
]
