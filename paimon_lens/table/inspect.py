"""Every frame of a table in one namespace: ``t.inspect.files()``, ``t.inspect.file_indexes()`` ...

As PyIceberg's ``table.inspect``: each method asks the snapshot reader or a service for its data
and builds one frame (a :class:`~paimon_lens.presentation.lens_frame.LensFrame`; the columns of each are
documented in :mod:`paimon_lens.presentation.frames` and :mod:`paimon_lens.presentation.index_frames`).
The :class:`~paimon_lens.table.Table` methods of the same names (``t.files()``) call these.
Each reads one snapshot consistently (see :mod:`paimon_lens.metadata.consistency`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..engines.base import Engine
from ..engines.local import LOCAL
from ..errors import PaimonLensError
from ..inventory.deletion_vectors import deletion_vector_infos, table_hash_index
from ..inventory.file_indexes import table_file_indexes
from ..inventory.global_indexes import global_index_coverage, global_index_files
from ..metadata.consistency import run_consistently
from ..presentation import frames, index_frames

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.snapshot_reader import SnapshotReader

T = TypeVar("T")


def _consistent(method: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(method)
    def run(self: InspectTable, *args: Any, **kwargs: Any) -> T:
        return run_consistently(self.table, lambda: method(self, *args, **kwargs))

    return run


class InspectTable:
    """The frames of one table (``table.inspect``): a snapshot reader's, per-file work on ``engine``."""

    def __init__(self, table: SnapshotReader, engine: Engine | None = None) -> None:
        self.table = table
        self.engine = engine or LOCAL

    def snapshots(self) -> pd.DataFrame:
        """Every snapshot still present (:data:`~paimon_lens.presentation.frames.SNAPSHOT_COLUMNS`)."""
        return frames.snapshots_frame(self.table.snapshot_manager.all())

    def schemas(self) -> pd.DataFrame:
        """Every schema version, one row per column per schema."""
        return frames.schemas_frame(self.table.schema_manager.all())

    @_consistent
    def manifests(self) -> pd.DataFrame:
        """Manifest files of the snapshot, with decoded partition stats."""
        return frames.manifests_frame(self.table, self.table.manifest_files())

    @_consistent
    def files(self) -> pd.DataFrame:
        """One row per live data file (:data:`~paimon_lens.presentation.frames.FILE_COLUMNS`)."""
        return frames.files_frame(self.table, self.table.live_files())

    @_consistent
    def index_manifest(self) -> pd.DataFrame:
        """Entries of the snapshot's index manifest (deletion-vector and HASH index files)."""
        return frames.index_manifest_frame(self.table, self.table.index_entries())

    @_consistent
    def file_indexes(self, index_type: str | None = None) -> pd.DataFrame:
        """One row per data file x column x index type with the decoded summary of each index
        (:mod:`~paimon_lens.presentation.index_frames`)."""
        return index_frames.file_indexes_frame(self.table, table_file_indexes(self.table, self.engine), index_type)

    def bloom_filters(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the bloom-filter indexes (fill ratio, estimated items and fpp)."""
        return self.file_indexes("bloom-filter")

    def range_bitmaps(self) -> pd.DataFrame:
        """:meth:`file_indexes` of the range-bitmap indexes (cardinality, min, max, chunks, slices)."""
        return self.file_indexes("range-bitmap")

    @_consistent
    def bitmap_values(self, column: str) -> pd.DataFrame:
        """Every value of ``column``'s bitmap indexes with its row count and bitmap bytes, per file."""
        schema = self.table.schema
        if column not in schema.field_names and "[" not in column:
            raise PaimonLensError(f"no column {column!r} in {self.table.name}: {', '.join(schema.field_names)}")
        return index_frames.bitmap_values_frame(self.table, table_file_indexes(self.table, self.engine), column)

    @_consistent
    def deletion_vectors(self) -> pd.DataFrame:
        """Every deletion vector of the snapshot, decoded and CRC-checked (one row per data file)."""
        return frames.deletion_vectors_frame(self.table, deletion_vector_infos(self.table, self.engine))

    @_consistent
    def hash_index(self) -> pd.DataFrame:
        """HASH (dynamic bucket) index files of the snapshot, decoded."""
        return frames.hash_index_frame(self.table, table_hash_index(self.table))

    @_consistent
    def global_indexes(self) -> pd.DataFrame:
        """Every global and primary-key index file of the snapshot (btree, bitmap, vector, full-text),
        its metadata and what decoding it found
        (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_COLUMNS`)."""
        from ..presentation import global_index_frames

        return global_index_frames.global_indexes_frame(self.table, global_index_files(self.table))

    @_consistent
    def global_index_coverage(self) -> pd.DataFrame:
        """Per live data file and indexed column: the rows a global or primary-key index covers, and
        why the rest is not (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_COVERAGE_COLUMNS`)."""
        from ..presentation import global_index_frames

        return global_index_frames.coverage_frame(self.table, global_index_coverage(self.table))

    @_consistent
    def global_index_keys(self, column: str | None = None) -> pd.DataFrame:
        """Every key of the btree and bitmap global / primary-key indexes (of ``column``), with its rows
        (:data:`~paimon_lens.presentation.frame_columns.GLOBAL_INDEX_KEY_COLUMNS`)."""
        from ..presentation import global_index_frames

        return global_index_frames.keys_frame(self.table, global_index_files(self.table), column)

    def __repr__(self) -> str:
        return f"<InspectTable of {self.table!r}>"
