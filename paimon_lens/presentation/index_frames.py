"""DataFrames of decoded file indexes: one builder per frame, columns defined once.

``FILE_INDEX_COLUMNS`` come first in :func:`file_indexes_frame`; the decoded summary of each
index type follows as extra columns (a column is empty for index types that lack it):

* bloom-filter: ``num_hash_functions``, ``num_bits``, ``bits_set``, ``fill_ratio``,
  ``estimated_items``, ``false_positive_probability``
* bitmap: ``version``, ``row_count``, ``null_count``, ``cardinality``, ``singleton_values``,
  ``header_bytes``, ``index_block_bytes``, ``bitmap_bytes``, ``index_block_count``
* range-bitmap: ``row_count``, ``null_count``, ``cardinality``, ``min``, ``max``,
  ``dictionary_chunks``, ``slice_count``, ``dictionary_bytes``, ``bsi_bytes``
* bsi: ``row_count``, ``null_count``, ``min``, ``max``, ``positive_slices``, ``negative_slices``
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..errors import as_text, problem_details
from ..inventory.file_indexes import IndexFact, IndexInfo, let_go, summary_cells, summary_values
from ..metadata.snapshot_reader import IndexLocation
from ..values import to_json, to_python
from .frame_columns import BITMAP_VALUE_COLUMNS, FILE_INDEX_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from ..formats.bitmap import BitmapFileIndexReader
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader


def _partition(table: SnapshotReader, info: IndexInfo) -> dict[str, Any]:
    types = {p.name: p.type for p in table.schema.partition_fields}
    return {k: to_python(v, types[k]) for k, v in info.file.partition.items()}


def file_indexes_frame(table: SnapshotReader, infos: Sequence[IndexInfo],
                       index_type: str | None = None) -> pd.DataFrame:
    """One row per data file x column x index type (optionally one index type only)."""
    from .lens_frame import LensFrame

    rows = []
    extra: dict[str, None] = {}
    for info in infos:
        if index_type is not None and info.index_type != index_type:
            continue
        row = {
            "partition": _partition(table, info), "bucket": info.file.entry.bucket,
            "file_name": info.file.entry.file.file_name, "row_count": info.file.entry.file.row_count,
            "column": info.column, "index_type": info.index_type, "storage": info.storage,
            "index_file": info.index_file, "bytes": info.bytes, "error": as_text(info.error),
        }
        for k, v in summary_cells(info, as_json=False).items():
            extra.setdefault(k, None)
            row[k] = v
        rows.append(row)
    frame = LensFrame(rows, columns=[*FILE_INDEX_COLUMNS, *extra])
    if index_type is not None:  # keep only the summary columns this index type has
        empty = [c for c in extra if frame[c].isna().all()]
        frame = frame.drop(columns=empty)
    return frame


def index_facts_frame(facts: Sequence[IndexFact]) -> pd.DataFrame:
    """A lean :func:`file_indexes_frame` of :class:`~paimon_lens.inventory.file_indexes.IndexFact`
    rows: ``file_name``, ``column``, ``index_type``, ``storage``, ``bytes``, ``error``, ``fill_ratio``
    and ``false_positive_probability``, for summaries over every index of a large table."""
    import pandas as pd

    names = ("file_name", "column", "index_type", "storage", "bytes", "error", "fill_ratio",
             "false_positive_probability")
    return pd.DataFrame({  # the few distinct columns, types and storages as categories
        # the files' own name objects (a str column would copy every name)
        "file_name": pd.Series([f.file.entry.file.file_name for f in facts], dtype=object),
        "column": pd.Categorical([f.column for f in facts]),
        "index_type": pd.Categorical([f.index_type for f in facts]),
        "storage": pd.Categorical([f.storage for f in facts]),
        "bytes": [f.bytes for f in facts], "error": [as_text(f.error) for f in facts],
        "fill_ratio": [f.fill_ratio for f in facts],
        "false_positive_probability": [f.false_positive_probability for f in facts]}, columns=list(names))


def _json_safe(v: Any) -> Any:
    """Non-finite floats as the strings the JSON encoding uses; other values unchanged."""
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def indexes_json(table: SnapshotReader, infos: Sequence[IndexInfo]) -> dict[str, Any]:
    """The ``indexes --format json`` document: per file, per column, per index type."""
    by_file: dict[str, list[IndexInfo]] = {}
    for info in infos:
        by_file.setdefault(info.file.entry.file.file_name, []).append(info)
    return {"table": table.path, "branch": table.branch, "snapshot_id": table.snapshot_id,
            "files": [index_file_record(table, lf, by_file.get(lf.entry.file.file_name, ()))
                      for lf in table.live_files()]}


def index_file_record(table: SnapshotReader, lf: LiveFile, infos: Iterable[IndexInfo]) -> dict[str, Any]:
    """One file's record of the ``indexes --format json`` document, from its decoded indexes."""
    rec: dict[str, Any] = {
        "file_name": lf.entry.file.file_name, "path": lf.path,
        "partition": {k: to_json(v, t.type) for (k, v), t in zip(lf.partition.items(),
                                                                  table.schema.partition_fields)},
        "bucket": lf.entry.bucket, "row_count": lf.entry.file.row_count,
        # None: the container's size could not be read (never shown as 0)
        "index_location": lf.index_location,
        "index_size": table.index_size(lf) if lf.index_location != IndexLocation.NONE else 0,
        "columns": {},
    }
    for info in infos:
        if not info.column:  # the container itself could not be read
            rec["error"], rec["problem"] = info.error, problem_details(info.error)
            continue
        entry: dict[str, Any] = {"bytes": info.bytes, "storage": info.storage}
        if info.error:
            entry["error"], entry["problem"] = info.error, problem_details(info.error)
        entry.update({k: _json_safe(v) for k, v in summary_values(info, as_json=True).items()})
        entry["bytes"] = info.bytes
        rec["columns"].setdefault(info.column, {})[info.index_type] = entry
    return rec


def bitmap_values_frame(table: SnapshotReader, infos: Sequence[IndexInfo], column: str) -> pd.DataFrame:
    """Frame of :data:`BITMAP_VALUE_COLUMNS` for one column's bitmap indexes."""
    from .lens_frame import LensFrame

    rows = []
    for info in infos:
        if info.index_type != "bitmap" or info.column != column or info.reader is None:
            continue
        reader = cast("BitmapFileIndexReader", info.reader)  # or a DeferredReader standing for one
        base = {"partition": _partition(table, info), "bucket": info.file.entry.bucket,
                "file_name": info.file.entry.file.file_name, "column": column}
        summary = reader.summary()
        if summary.null_count:
            rows.append({**base, "value": None, "rows": summary.null_count, "bitmap_bytes": summary.null_bitmap_bytes})
        dtype = info.data_type
        for v in reader.values():
            value = to_python(v.value, dtype) if dtype is not None else v.value
            rows.append({**base, "value": value, "rows": v.row_count,
                         "bitmap_bytes": len(v.bitmap) if v.stored else 0})
        let_go(info.reader)
    frame = LensFrame(rows, columns=list(BITMAP_VALUE_COLUMNS))
    if rows:  # values as they are: an INT column's values stay ints, the null row None (not NaN)
        import pandas as pd

        frame["value"] = pd.Series([r["value"] for r in rows], index=frame.index, dtype=object)
    return frame
