"""Findings about global and primary-key indexes: rows they do not cover, and indexes gone stale.

``global-index-coverage``
    Rows of a data-evolution table that a column's global index does not cover (written after the
    last build): a ``fast`` search (Paimon's default) never returns them, ``full``/``detail`` read
    them whole. Fix: build the index again (``CALL sys.create_global_index`` indexes the rows not
    yet covered), for the partitions holding them.
``global-index-stale``
    Data files that rewrote an indexed column after its index was built
    (``global-index.column-update-action = IGNORE``): the index answers from the old values, so
    queries miss rows whatever the search mode. Fix: drop the index and build it again.
``pk-index-coverage``
    Files of a primary-key table at a level above 0 that no primary-key index covers (moved up a
    level without a rewrite, or a level whose files changed since its index was built): every
    query reads them whole. Fix: a full compaction rewrites them into indexed levels.

Scores are the bytes of the data files concerned (what a query reads whole, or cannot trust).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ..inventory.global_indexes import GLOBAL, Coverage, global_index_coverage
from ..units import human_bytes, human_count
from .finding import Finding, FixAction, Procedure, table_ref

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader


def _partitions(rows: list[Coverage]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for c in rows:
        seen.setdefault(repr(sorted(c.partition.items())), c.partition)
    return [seen[k] for k in sorted(seen)]


def _create_call(table: SnapshotReader, column: str, index_type: str, parts: list[dict[str, Any]]) -> Procedure:
    args = [("table", table_ref(table)), ("index_column", column), ("index_type", index_type)]
    if parts and parts[0]:
        args.append(("partitions", ";".join(",".join(f"{k}={v}" for k, v in p.items()) for p in parts)))
    return Procedure("create_global_index", tuple(args))


def _drop_call(table: SnapshotReader, column: str, index_type: str) -> Procedure:
    return Procedure("drop_global_index", (("table", table_ref(table)), ("index_column", column),
                                           ("index_type", index_type)))


def _create(table: SnapshotReader, column: str, index_type: str, parts: list[dict[str, Any]]) -> str:
    return _create_call(table, column, index_type, parts).sql()


def _drop(table: SnapshotReader, column: str, index_type: str) -> str:
    return _drop_call(table, column, index_type).sql()


def global_index_findings(table: SnapshotReader) -> list[Finding]:
    """The coverage and staleness findings of the snapshot's global and primary-key indexes."""
    rows = global_index_coverage(table)
    if not rows:
        return []
    sizes = {lf.file.file_name: lf.file.file_size for lf in table.live_files()}
    groups: dict[tuple[str, str | None, str, str], list[Coverage]] = defaultdict(list)
    for c in rows:
        if c.status != "covered":
            groups[(c.kind, c.column, c.index_type, "stale" if c.status == "stale" else "gap")].append(c)
    out = []
    pk_gaps: list[Coverage] = []
    for (kind, column, index_type, problem), cs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        col = column or "?"
        size = sum(sizes.get(c.data_file, 0) for c in cs)
        parts = _partitions(cs)
        n = sum(c.uncovered_rows if problem == "gap" else c.row_count for c in cs)
        details: dict[str, Any] = {"column": column, "index_type": index_type, "files": len(cs), "rows": n,
                                   "data_files": [c.data_file for c in cs]}
        if kind == GLOBAL and problem == "gap":
            out.append(Finding(
                "global-index-coverage", f"{human_count(n)} rows of {col} are outside its {index_type} global index",
                f"{col} ({index_type})",
                f"{len(cs)} data files ({human_bytes(size)}) hold {human_count(n)} rows no {index_type} index file of "
                f"{col} covers: {cs[0].reason}",
                "a fast search (the default scalar-index.search-mode) never returns matching rows among them; "
                "full / detail read those files whole", float(size),
                f"build the {index_type} index of {col} again: it indexes the rows not covered yet",
                (_create(table, col, index_type, parts),), details,
                FixAction(procedures=(_create_call(table, col, index_type, parts),))))
        elif kind == GLOBAL:
            out.append(Finding(
                "global-index-stale", f"the {index_type} global index of {col} predates a rewrite of {col}",
                f"{col} ({index_type})",
                f"{len(cs)} data files ({human_bytes(size)}) rewrote {col} after the index was built: {cs[0].reason}",
                "queries on the column miss or mis-place rows in every search mode", float(size),
                f"drop the {index_type} index of {col} and build it again",
                (_drop(table, col, index_type), _create(table, col, index_type, [])), details,
                FixAction(procedures=(_drop_call(table, col, index_type), _create_call(table, col, index_type, [])))))
        else:
            pk_gaps.extend(c for c in cs if c.level > 0)  # a batch scan with deletion vectors skips level 0
    if pk_gaps:
        out.append(_pk_finding(table, pk_gaps, sizes))
    return out


def _pk_finding(table: SnapshotReader, gaps: list[Coverage], sizes: dict[str, int]) -> Finding:
    """One finding for every file above level 0 some primary-key index does not cover."""
    files = sorted({c.data_file for c in gaps})
    columns = sorted({f"{c.column} ({c.index_type})" for c in gaps})
    size = sum(sizes.get(f, 0) for f in files)
    full = Procedure("compact", (("table", table_ref(table)), ("compact_strategy", "full")))
    return Finding(
        "pk-index-coverage", f"{len(files)} files are outside the primary-key indexes", ", ".join(columns),
        f"{len(files)} files ({human_bytes(size)}) above level 0 that the primary-key indexes of "
        f"{', '.join(columns)} do not cover: {gaps[0].reason}",
        "every query on those columns reads them whole", float(size),
        "a full compaction rewrites them into levels whose index covers them",
        (full.sql(),), {"columns": columns, "files": len(files), "data_files": files}, FixAction(procedures=(full,)))

