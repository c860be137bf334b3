"""The index advisor: column profiles + a workload -> candidate indexes -> measured advice.

Layers: column profiles from the data files (:mod:`.profile`); a representative workload derived
from them when none is given (:mod:`.derive`); the candidate indexes per column
(:mod:`.candidates`); their what-if measurement on the table's own files (:mod:`.whatif`); and
the advice with the SQL to apply it (:mod:`.advise`, also ``paimon_lens.recommend``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .derive import DerivedQuery, DerivedWorkload, derive_queries, derive_workload, to_workload
    from .profile import (
        ColumnProfile,
        FileColumnProfile,
        FileProfile,
        TableProfile,
        UnprofiledFile,
        profile_table,
    )

_HOMES = {**dict.fromkeys(("DerivedQuery", "DerivedWorkload", "derive_queries", "derive_workload", "to_workload"),
                          "derive"),
          **dict.fromkeys(("ColumnProfile", "FileColumnProfile", "FileProfile", "TableProfile", "UnprofiledFile",
                           "profile_table"), "profile")}


def __getattr__(name: str) -> Any:
    """The package's names, imported on first use (profiling loads pyarrow; findings need none of it)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)

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
