"""Frames of a snapshot's global and primary-key indexes (see :mod:`paimon_lens.inventory.global_indexes`).

``global_indexes_frame``: one row per index file (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_COLUMNS`),
its metadata and what decoding it found; ``coverage_frame``: one row per live data file and indexed
column (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_COVERAGE_COLUMNS`); ``keys_frame``: one row per
key of the btree and bitmap files (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_KEY_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError
from ..formats.global_index.bitmap import BitmapGlobalIndex
from ..formats.global_index.btree import BTreeIndex
from ..formats.global_index.native import NativeIndexHeader
from ..formats.global_index.sorted_index import SortedIndex
from ..inventory.global_indexes import Coverage, GlobalIndexFile, open_global_index
from ..values import to_json, to_python
from .frame_columns import GLOBAL_INDEX_COLUMNS, GLOBAL_INDEX_COVERAGE_COLUMNS, GLOBAL_INDEX_KEY_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.snapshot_reader import SnapshotReader

FIRST_ROW_IDS = 8


def _frame(rows: list[dict[str, Any]], columns: Iterable[str]) -> pd.DataFrame:
    from .lens_frame import LensFrame

    return LensFrame(rows, columns=list(columns))


def _python_partition(table: SnapshotReader, partition: dict[str, Any]) -> dict[str, Any]:
    types = {p.name: p.type for p in table.schema.partition_fields}
    return {k: to_python(v, types[k]) if k in types else v for k, v in partition.items()}


def _key(table: SnapshotReader, g: GlobalIndexFile, value: Any, as_json: bool) -> Any:
    if value is None or g.column is None:
        return value
    f = next((x for x in table.schema.fields if x.id == g.field_id), None)
    if f is None:
        return value
    return to_json(value, f.type) if as_json else to_python(value, f.type)


def decoded_facts(table: SnapshotReader, g: GlobalIndexFile) -> dict[str, Any]:
    """What decoding the file says: key counts and blocks, or a native header (``error`` when it
    could not be read)."""
    out: dict[str, Any] = {"payload": "not decoded"}
    try:
        idx = open_global_index(table, g)
    except (OSError, PaimonLensError) as e:
        return {**out, "error": f"{g.path}: {e}" if g.path not in str(e) else str(e)}
    if isinstance(idx, SortedIndex):
        blocks = idx.blocks if isinstance(idx, BTreeIndex) else idx.dictionary_blocks \
            if isinstance(idx, BitmapGlobalIndex) else ()
        kinds = sorted({b.compression for b in blocks} | {getattr(idx, "index_compression", "none")})
        out.update(payload="decoded", keys=len(idx.keys), null_rows=len(idx.nulls), blocks=len(blocks),
                   compression=",".join(kinds), max_rows_per_key=max((len(r) for r in idx.rows), default=0))
    elif isinstance(idx, NativeIndexHeader):
        out.update(payload="header", dimension=idx.dimension, metric=idx.metric, vectors=idx.vectors,
                   documents=idx.documents)
    return out


def global_indexes_frame(table: SnapshotReader, files: Sequence[GlobalIndexFile]) -> pd.DataFrame:
    """Frame of :data:`GLOBAL_INDEX_COLUMNS`."""
    rows = []
    for g in files:
        row = global_index_record(table, g, as_json=False)
        row["partition"] = _python_partition(table, g.partition)
        rows.append(row)
    return _frame(rows, GLOBAL_INDEX_COLUMNS)


def global_index_record(table: SnapshotReader, g: GlobalIndexFile, as_json: bool) -> dict[str, Any]:
    """One index file's facts (the frame row; ``as_json``: values in JSON form)."""
    facts = decoded_facts(table, g)
    errors = [e for e in (g.error, facts.pop("error", None)) if e]
    return {
        "kind": g.kind, "partition": g.partition, "bucket": g.bucket, "index_type": g.index_type,
        "column": g.column, "field_id": g.field_id, "extra_columns": list(g.extra_columns),
        "file_name": g.file_name, "file_path": g.path, "file_size": g.file_size, "row_count": g.row_count,
        "first_row_id": g.row_range_start, "last_row_id": g.row_range_end,
        "min_key": _key(table, g, g.first_key, as_json), "max_key": _key(table, g, g.last_key, as_json),
        "has_nulls": g.has_nulls, "source_level": None if g.source is None else g.source.data_level,
        "source_files": None if g.source is None else [f.file_name for f in g.source.files],
        "added_snapshot": g.added_snapshot, "added_at_or_before": g.added_before_retained, **{k: facts.get(k) for k in (
            "keys", "null_rows", "blocks", "compression", "max_rows_per_key", "dimension", "metric", "vectors",
            "documents")},
        "index_options": g.index_options, "payload": facts["payload"], "error": "; ".join(errors) or None,
    }


def coverage_frame(table: SnapshotReader, rows: Sequence[Coverage]) -> pd.DataFrame:
    """Frame of :data:`GLOBAL_INDEX_COVERAGE_COLUMNS`."""
    return _frame([coverage_record(table, c, python=True) for c in rows], GLOBAL_INDEX_COVERAGE_COLUMNS)


def coverage_record(table: SnapshotReader, c: Coverage, python: bool = False) -> dict[str, Any]:
    """One coverage row's facts."""
    return {
        "kind": c.kind, "column": c.column, "index_type": c.index_type,
        "partition": _python_partition(table, c.partition) if python else c.partition, "bucket": c.bucket,
        "data_file": c.data_file, "level": c.level, "first_row_id": c.first_row_id, "row_count": c.row_count,
        "covered_rows": c.covered_rows, "uncovered_rows": c.uncovered_rows, "status": c.status, "reason": c.reason,
        "index_files": list(c.index_files),
    }


def keys_frame(table: SnapshotReader, files: Sequence[GlobalIndexFile], column: str | None = None) -> pd.DataFrame:
    """Frame of :data:`GLOBAL_INDEX_KEY_COLUMNS` (the btree and bitmap files, of ``column`` if given)."""
    rows: list[dict[str, Any]] = []
    for g in files:
        if (column is not None and g.column != column) or g.index_type not in ("btree", "bitmap"):
            continue
        try:
            idx = open_global_index(table, g)
        except (OSError, PaimonLensError):
            continue  # the error is on the file's row of global_indexes()
        if not isinstance(idx, SortedIndex):
            continue
        base = g.row_range_start if g.kind == "global" else 0
        head = {"column": g.column, "index_type": g.index_type, "file_name": g.file_name}
        if len(idx.nulls):
            rows.append({**head, "value": None, "rows": len(idx.nulls),
                         "first_row_ids": [base + int(i) for i in list(idx.nulls)[:FIRST_ROW_IDS]]})
        for k, r in zip(idx.keys, idx.rows):
            rows.append({**head, "value": _key(table, g, k, as_json=False), "rows": len(r),
                         "first_row_ids": [base + int(i) for i in r.to_array()[:FIRST_ROW_IDS]] if len(r) else []})
    return _frame(rows, GLOBAL_INDEX_KEY_COLUMNS)


def _json_partition(table: SnapshotReader, partition: dict[str, Any]) -> dict[str, Any]:
    types = {p.name: p.type for p in table.schema.partition_fields}
    return {k: to_json(v, types[k]) if k in types else v for k, v in partition.items()}


def global_indexes_json(table: SnapshotReader, files: Sequence[GlobalIndexFile],
                        coverage: Sequence[Coverage]) -> dict[str, Any]:
    """The ``global_indexes`` and ``global_index_coverage`` fields of ``indexes --format json``."""
    out = []
    for g in files:
        rec = global_index_record(table, g, as_json=True)
        rec["partition"] = _json_partition(table, g.partition)
        out.append(rec)
    cov = []
    for c in coverage:
        rec = coverage_record(table, c)
        rec["partition"] = _json_partition(table, c.partition)
        cov.append(rec)
    return {"global_indexes": out, "global_index_coverage": cov}
