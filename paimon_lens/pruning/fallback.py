"""``scan.fallback-branch``: partitions the table lacks are read from another branch.

Paimon's ``FallbackReadFileStoreTable`` (a batch scan of a table whose options name a fallback
branch) plans the table itself with the whole predicate, then the fallback branch, with the same
predicate, restricted to the partitions the table does not have:

* Paimon 1.4 / 2.0: the table's partitions are listed with the *partition* part of the predicate
  only (a partition whose files the data filter prunes is still the table's, and is not read from
  the fallback branch);
* Paimon 0.9 - 1.3: they were the partitions of the table's planned files, the data filter
  applied (a partition whose files were all pruned was read from the fallback branch instead).

Streaming reads ignore the fallback branch. :func:`with_fallback` adds the fallback branch's files
to an explanation, each with ``branch`` set, skipped at stage ``partition`` when the table has
that partition.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .compare import row_test
from .scan import partition_filter
from .stage import StageName
from .versions import rules_of_newest

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader
    from .explain import ExplainReport
    from .versions import PaimonRules

FALLBACK_OPTION = "scan.fallback-branch"


def fallback_branch(table: SnapshotReader) -> str | None:
    """The branch named by ``scan.fallback-branch``, or None (also when it is the table's own)."""
    name = (table.schema.options.get(FALLBACK_OPTION) or "").strip()
    return name if name and name != table.branch else None


def _key(partition: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(partition.items()))


def with_fallback(table: SnapshotReader, report: ExplainReport,
                  explain_branch: Callable[[SnapshotReader, str | None], ExplainReport], *,
                  rules: PaimonRules | None = None) -> ExplainReport:
    """``report`` of ``table`` plus the files its fallback branch contributes (unchanged without one),
    by ``rules`` (default: the newest release modelled; see the module docstring).

    ``explain_branch(branch, where)`` explains the SQL text ``where`` on the fallback branch's own
    files (the caller's way: same engine, same options)."""
    name = fallback_branch(table)
    if name is None:
        return report
    if name not in table.branches():
        report.notes.append(f"{FALLBACK_OPTION} = {name}: the table has no such branch; Paimon reads the "
                            "table alone (and logs an error)")
        return report
    fallback = table.on_branch(name)
    if (rules or rules_of_newest()).fallback_filtered_partitions:  # 0.9 - 1.3: partitions of the planned files
        complete = {_key(f.partition) for f in report.files if f.planned}
    else:
        part_filter = partition_filter(table, report.predicate)
        complete = {_key(lf.partition) for lf in table.live_files()
                    if part_filter is None or row_test(part_filter, lf.partition)}
    # the branch binds the predicate to its own schema, from the predicate's SQL text; Paimon reads
    # the fallback branch without following a fallback option of its own
    other = explain_branch(fallback, None if report.predicate is None else report.predicate.sql())
    added = []
    for f in other.files:
        if _key(f.partition) in complete:
            f = dataclasses.replace(  # not part of the answer: its rows are not counted either
                f, planned=False, read=False, rows_after_dv=0, index_selected_rows=None, dv_removed_rows=0,
                stage=StageName.PARTITION, flags=(),
                matching_positions=None, matching_live_positions=None,
                reason=(f"partition also on branch {table.branch}: read from there, not from the "
                        f"fallback branch {name}"))
        added.append(dataclasses.replace(f, branch=name))
    report.files.extend(added)
    report.notes.extend(f"fallback branch {name}: {n}" for n in other.notes)
    read = sorted({str(dict(f.partition)) for f in added if f.planned})
    report.notes.append(f"{FALLBACK_OPTION} = {name}: partitions missing on {table.branch} are read from "
                        f"branch {name} (snapshot {fallback.snapshot_id})" + (f": {', '.join(read)}" if read else
                                                                             ": none for this predicate"))
    return report
