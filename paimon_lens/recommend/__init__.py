"""Recommendations: column profiles + a workload -> candidate indexes -> measured advice.

This first layer profiles columns from the data files (:mod:`.profile`) and derives a
representative workload from the profiles when none is given (:mod:`.derive`).
"""

from __future__ import annotations

from .derive import DerivedQuery, DerivedWorkload, derive_queries, derive_workload, to_workload
from .profile import ColumnProfile, FileColumnProfile, FileProfile, ProfileError, TableProfile, profile_table

__all__ = [
    "ColumnProfile",
    "DerivedQuery",
    "DerivedWorkload",
    "FileColumnProfile",
    "FileProfile",
    "ProfileError",
    "TableProfile",
    "derive_queries",
    "derive_workload",
    "profile_table",
    "to_workload",
]
