"""Workloads: the WHERE clauses a table is queried with, each with a weight.

* ``model.py``: :class:`Workload` and :class:`WorkloadQuery`, workload files (``-- weight: 3``).
* ``sources.py``: workloads extracted from SQL histories and Spark event logs, per table.
* ``spark_plan_filters.py``: the filters of a Spark physical plan's Paimon scans, as predicates.
"""

from __future__ import annotations

from .model import Workload, WorkloadQuery, as_workload, parse_workload_line, read_workload

__all__ = ["Workload", "WorkloadQuery", "as_workload", "parse_workload_line", "read_workload"]
