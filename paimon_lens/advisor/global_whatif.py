"""What-if for global indexes: what a btree global index on a column would prune, on the table's data.

For a data-evolution table (``row-tracking.enabled`` and ``data-evolution.enabled``, Paimon 1.4+), a
btree global index built now covers every row and answers ``=``, ``IN``, ``<>``, ``NOT IN``,
``IS [NOT] NULL`` and ranges exactly. For each workload query naming a column without a global
index, the query projected onto that column (the conjuncts the index would answer, as Paimon's
evaluator ignores the others under AND) is evaluated on every row-id group the query reads without
file indexes; a group holding no matching row is not read (its bytes avoided), and the rows of the
others not matching are not handed to the reader (rows avoided). These are measured, as the
file-index candidates are.

The index's size is an **estimate**: a key per distinct value, a varint row id per row and a
block trailer per 64 KiB, with the distinct counts of the column profiles.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import CorruptFileError, PaimonLensError
from ..formats.global_index.keys import KEYABLE
from ..inventory.global_indexes import global_index_columns
from ..metadata.row_ranges import RowRangeGroup, data_evolution_enabled, row_range_groups
from ..predicate.model import CompoundPredicate, LeafPredicate, Predicate, and_, leaves
from ..pruning.evolution import pick

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader
    from ..pruning.versions import PaimonRules
    from ..workload.model import Workload

#: leaf functions a btree global index answers exactly (ranges: within the fallback-scan size)
ANSWERED = frozenset({"Equal", "In", "NotEqual", "NotIn", "IsNull", "IsNotNull", "LessThan", "LessOrEqual",
                      "GreaterThan", "GreaterOrEqual", "Between", "NotBetween", "StartsWith"})
BLOCK = 64 << 10
MAX_GROUPS = 5_000


@dataclass(frozen=True)
class GlobalIndexGain:
    """What a btree global index on one column would save per query (weighted means)."""

    column: str
    queries: int
    bytes_avoided_per_query: float
    files_skipped_per_query: float
    rows_avoided_per_query: float
    baseline_bytes_per_query: float
    baseline_rows_per_query: float
    estimated_index_bytes: int


def global_index_applies(table: SnapshotReader, rules: PaimonRules) -> bool:
    """Whether the table can have global indexes (data evolution, row tracking, Paimon 1.4+)."""
    return rules.global_index and data_evolution_enabled(table) and table.schema.core_options.row_tracking_enabled


def measure_global(table: SnapshotReader, workload: Workload, columns: list[str], rules: PaimonRules,
                   distinct: dict[str, int]) -> tuple[dict[str, GlobalIndexGain], list[str]]:
    """Per column (of ``columns``, without a global index yet) the measured gain of a btree global
    index, and notes (what was not measured)."""
    from ..pruning.run import explain_many

    if not global_index_applies(table, rules):
        return {}, []
    served = global_index_columns(table)
    by_name = {f.name: f for f in table.schema.fields}
    wanted = [c for c in columns if c not in served and c in by_name and by_name[c].type.root in KEYABLE]
    if not wanted:
        return {}, []
    groups = row_range_groups(table.live_files())
    if len(groups) > MAX_GROUPS:
        return {}, [f"global index what-if skipped: {len(groups)} row-id groups (at most {MAX_GROUPS} are read)"]
    group_of = {lf.file.file_name: g for g in groups for lf in g.files}
    queries = [q for q in workload if q.predicate is not None]
    reports = explain_many(table, [q.predicate for q in queries if q.predicate is not None], rules=rules,
                           index_enabled=False)
    notes: list[str] = []
    column_values: dict[tuple[str, int], list[Any]] = {}
    sums: dict[str, list[float]] = {c: [0.0] * 6 for c in wanted}  # n, weight, bytes, files, rows, base bytes
    base_rows_sum: dict[str, float] = {c: 0.0 for c in wanted}
    for q, report in zip(queries, reports):
        if q.predicate is None:
            continue
        names = {leaf.field for leaf in leaves(q.predicate)}
        for c in wanted:
            if c not in names:
                continue
            parts = pick([q.predicate], [c])
            projected = _reindexed(and_(*parts), table) if parts else None
            if projected is None or any(leaf.function not in ANSWERED for leaf in leaves(projected)):
                continue
            read = [v for v in report.files if v.read]
            seen: set[int] = set()
            avoided_bytes = avoided_files = avoided_rows = 0
            try:
                for v in read:
                    g = group_of.get(v.file_name)
                    if g is None or id(g) in seen:
                        continue
                    seen.add(id(g))
                    matches = _group_matches(table, g, projected, column_values)
                    members = [x for x in read if group_of.get(x.file_name) is g]
                    rows = max(x.rows_after_dv for x in members)
                    if matches == 0:
                        avoided_bytes += sum(x.file_size for x in members)
                        avoided_files += len(members)
                        avoided_rows += rows
                    else:
                        avoided_rows += max(0, rows - matches)
            except PaimonLensError as e:
                notes.append(f"global index what-if of {c} for {q.where!r}: {e}")
                continue
            s = sums[c]
            s[0] += 1
            s[1] += q.weight
            s[2] += q.weight * avoided_bytes
            s[3] += q.weight * avoided_files
            s[4] += q.weight * avoided_rows
            s[5] += q.weight * sum(v.file_size for v in read)
            base_rows_sum[c] += q.weight * sum(v.rows_after_dv for v in read)
    rows_total = sum(lf.file.row_count for lf in table.live_files())
    out = {}
    for c, s in sums.items():
        if not s[0] or not s[1]:
            continue
        w = s[1]
        out[c] = GlobalIndexGain(c, int(s[0]), s[2] / w, s[3] / w, s[4] / w, s[5] / w, base_rows_sum[c] / w,
                                 _estimate_bytes(rows_total, distinct.get(c, rows_total), by_name[c].type))
    return out, notes


def _reindexed(p: Predicate, table: SnapshotReader) -> Predicate:
    """``p`` with every leaf's index its column's position in the table's row type (a projection
    re-indexes leaves to the picked columns)."""
    if isinstance(p, LeafPredicate):
        return replace(p, index=table.schema.field_names.index(p.field))
    return CompoundPredicate(p.function, tuple(_reindexed(c, table) for c in p.children))


def _group_matches(table: SnapshotReader, group: RowRangeGroup, predicate: Predicate,
                   column_values: dict[tuple[str, int], list[Any]]) -> int:
    """Rows of a row-id group that satisfy ``predicate`` on one column (deleted rows included); a
    single file's column is read once for every query (kept in ``column_values``)."""
    from ..pruning.rows import evaluate_rows
    from ..pruning.truth import group_matching_positions, read_columns

    if group.merged:
        return len(group_matching_positions(table, group, predicate))
    lf = group.files[0]
    index = leaves(predicate)[0].index
    field_id = table.schema.fields[index].id
    key = (lf.file.file_name, field_id)
    values = column_values.get(key)
    if values is None:
        values = column_values[key] = read_columns(table, lf, [field_id]).get(field_id, [])
    if values and len(values) != lf.file.row_count:
        name = table.schema.fields[index].name
        raise CorruptFileError(table.file_io.join(table.path, lf.path), None, f"column {name}",
                               f"{lf.file.row_count} rows (manifest row count)", f"{len(values)} rows")
    columns = {index: values} if values else {}  # a file without the column: all null
    return int(evaluate_rows(predicate, columns, lf.file.row_count).sum())


def _estimate_bytes(rows: int, distinct: int, dtype: Any) -> int:
    key = {"TINYINT": 1, "SMALLINT": 2, "INT": 4, "DATE": 4, "TIME": 4, "FLOAT": 4, "BIGINT": 8, "DOUBLE": 8,
           "BOOLEAN": 1, "DECIMAL": 8, "TIMESTAMP": 9, "TIMESTAMP_LTZ": 9}.get(dtype.root, 16)
    id_bytes = max(1, (max(rows, 1).bit_length() + 6) // 7)
    body = distinct * (key + 3) + rows * id_bytes
    return body + (body // BLOCK + 1) * 5 + 52
