"""Every frame's columns, in one place: name -> meaning, in the order the frame has them.

Builders produce exactly these columns (``files`` adds ``min(col)``, ``max(col)`` and
``null_count(col)`` per column of the table schema after them; ``file_indexes`` adds each index
type's summary fields, :meth:`paimon_lens.formats.summary.IndexSummary.fields`). Units in notebooks
come from the names (:mod:`paimon_lens.units`); the value types of every column are checked on
Paimon-written tables by ``tests/presentation/test_frame_columns.py``.
"""

from __future__ import annotations

# ---- metadata frames (snapshots, schemas, manifests, files, index manifest, deletion vectors, hash index) ----

SNAPSHOT_COLUMNS = {
    "snapshot_id": "snapshot id",
    "schema_id": "schema the snapshot was committed with",
    "commit_kind": "APPEND, COMPACT, OVERWRITE or ANALYZE",
    "commit_time": "commit time (local time of the writer, as Paimon stores it)",
    "total_record_count": "records in the table after this commit",
    "delta_record_count": "records added by this commit",
    "changelog_record_count": "changelog records of this commit",
    "commit_user": "writer id",
    "commit_identifier": "writer's commit identifier",
    "watermark": "watermark, if any",
    "base_manifest_list": "manifest list of the files before this commit",
    "delta_manifest_list": "manifest list of the files this commit changed",
    "changelog_manifest_list": "changelog manifest list",
    "index_manifest": "index manifest (deletion vectors, hash index), if any",
    "version": "snapshot format version",
    "next_row_id": "next row id (row tracking)",
}

SCHEMA_COLUMNS = {
    "schema_id": "schema version",
    "field_id": "Paimon field id (stable across renames)",
    "field_name": "column name",
    "field_type": "Paimon type",
    "nullable": "whether the column accepts nulls",
    "is_partition_key": "column is a partition key",
    "is_primary_key": "column is part of the primary key",
    "description": "column comment",
    "time": "when the schema was created",
}

MANIFEST_COLUMNS = {
    "list_kind": "base or delta manifest list",
    "manifest_list": "manifest list file",
    "file_name": "manifest file",
    "file_size": "manifest size in bytes",
    "num_added_files": "ADD entries",
    "num_deleted_files": "DELETE entries",
    "schema_id": "schema of the manifest",
    "partition_min": "minimum partition (per partition column)",
    "partition_max": "maximum partition (per partition column)",
    "partition_null_counts": "null count per partition column",
    "min_bucket": "lowest bucket (2.x)",
    "max_bucket": "highest bucket (2.x)",
    "min_level": "lowest LSM level (2.x)",
    "max_level": "highest LSM level (2.x)",
}

FILE_COLUMNS = {
    "partition": "partition values {column: value}",
    "bucket": "bucket number",
    "level": "LSM level (0 for append tables)",
    "file_name": "data file name",
    "file_path": "path relative to the table directory",
    "file_format": "parquet, orc or avro (from the file extension)",
    "file_size": "data file size in bytes",
    "row_count": "rows in the file (before deletion vectors)",
    "schema_id": "schema the file was written with",
    "min_sequence_number": "smallest sequence number",
    "max_sequence_number": "largest sequence number",
    "file_source": "APPEND or COMPACT",
    "creation_time": "when the file was written",
    "delete_row_count": "rows of kind DELETE/UPDATE_BEFORE in the file",
    "index_location": "embedded (in the manifest), external (.index file) or none",
    "index_size": "bytes of the file-index container",
    "index_file": "external index file, relative to the table directory",
    "extra_files": "extra files listed in the manifest",
    "external_path": "data-file external path (2.x)",
    "first_row_id": "first row id (row tracking)",
    "last_row_id": "last row id (row tracking): rows [first_row_id, last_row_id]",
    "write_cols": "columns the file stores (data evolution), None = every column of its schema",
    "value_stats_cols": "columns with stored stats (dense stats), None = all",
    "stats_error": "why the stats could not be decoded, if they could not",
    "error": "why the file cannot be reached (an external path that does not exist), if it cannot",
    "manifest": "manifest that added the file",
}

INDEX_MANIFEST_COLUMNS = {
    "partition": "partition values",
    "bucket": "bucket",
    "index_type": "HASH, DELETION_VECTORS, ...",
    "file_name": "index file name",
    "file_path": "path relative to the table directory",
    "file_size": "index file size in bytes",
    "row_count": "HASH: number of key hashes; DELETION_VECTORS: total deleted rows",
    "deletion_vector_count": "data files with a deletion vector in this file",
    "external_path": "external path (2.x)",
    "manifest": "index manifest",
}

DELETION_VECTOR_COLUMNS = {
    "partition": "partition values",
    "bucket": "bucket",
    "data_file": "data file the vector belongs to",
    "index_file": "deletion-vector index file, relative to the table directory",
    "offset": "byte offset of the blob in the index file (from the index manifest)",
    "length": "recorded length (32-bit: magic + bitmap; 64-bit: the whole blob)",
    "kind": "32 (BitmapDeletionVector) or 64 (Bitmap64DeletionVector)",
    "cardinality": "deleted rows (decoded)",
    "stored_cardinality": "deleted rows as recorded in the index manifest (2.x)",
    "row_count": "rows of the data file",
    "deleted_ratio": "cardinality / row_count",
    "crc_ok": "the blob's CRC-32 matches (Paimon itself does not check it)",
    "error": "why the vector could not be decoded, if it could not",
}

HASH_INDEX_COLUMNS = {
    "partition": "partition values",
    "bucket": "bucket",
    "index_file": "HASH index file, relative to the table directory",
    "file_size": "bytes",
    "row_count": "key hashes recorded in the index manifest",
    "hash_count": "key hashes in the file",
    "distinct_hashes": "distinct key hashes",
    "error": "why the file could not be decoded, if it could not",
}

# ---- global and primary-key indexes (global_indexes, global_index_coverage, global_index_keys) ----

GLOBAL_INDEX_COLUMNS = {
    "kind": "global (a data-evolution table's index over a row range) or primary-key (one bucket's level)",
    "partition": "partition values of the index manifest entry",
    "bucket": "bucket of the index manifest entry",
    "index_type": "btree, bitmap, ivf-flat, ivf-pq, diskann, lumina, full-text, ...",
    "column": "indexed column (None: no field with that id in the snapshot's schema)",
    "field_id": "indexed field id (_INDEX_FIELD_ID)",
    "extra_columns": "more indexed columns of a multi-column index (_EXTRA_FIELD_IDS)",
    "file_name": "index file name",
    "file_path": "path relative to the table directory, or the external path",
    "file_size": "index file size in bytes",
    "row_count": "rows the index file indexes (_ROW_COUNT)",
    "first_row_id": "global index: first row id of its row range; primary-key index: 0",
    "last_row_id": "last row id of its row range (inclusive)",
    "min_key": "smallest non-null key (_INDEX_META of btree / bitmap)",
    "max_key": "largest non-null key",
    "has_nulls": "the index holds rows whose key is null",
    "source_level": "primary-key index: the LSM level of the data files it was built from",
    "source_files": "primary-key index: the data files it was built from, in ordinal order",
    "added_snapshot": "oldest retained snapshot from which on the index manifest lists the file",
    "added_at_or_before": "the file is in the oldest snapshot that could be read: added then or earlier",
    "keys": "distinct non-null keys in the file (decoded)",
    "null_rows": "rows whose key is null (decoded)",
    "blocks": "btree data blocks / bitmap dictionary blocks",
    "compression": "block compression (none, zstd, lz4, lzo)",
    "max_rows_per_key": "rows of the most frequent key",
    "dimension": "vector index: vector dimension (from the file header)",
    "metric": "vector index: distance metric",
    "vectors": "vector index: vectors in the file (from its header)",
    "documents": "full-text index: documents in the file (from its header)",
    "index_options": "vector / full-text / es-index: what _INDEX_META stores (options; es-index: its fields, "
                     "their configs, its Lucene files)",
    "payload": "decoded (keys and rows read), header (only the header is read: a native library reads the rest) "
               "or not decoded",
    "error": "why (part of) the file or its metadata could not be read, if it could not",
}

GLOBAL_INDEX_COVERAGE_COLUMNS = {
    "kind": "global or primary-key",
    "column": "indexed column",
    "index_type": "index type",
    "partition": "partition values of the data file",
    "bucket": "bucket",
    "data_file": "data file",
    "level": "LSM level",
    "first_row_id": "first row id of the data file (global indexes)",
    "row_count": "rows of the data file",
    "covered_rows": "rows an index file of this column and type covers",
    "uncovered_rows": "rows no index file covers (a fast search does not return them)",
    "status": "covered, partial, stale (the column was rewritten after the build) or uncovered",
    "reason": "why",
    "index_files": "the index files that cover it",
}

GLOBAL_INDEX_KEY_COLUMNS = {
    "column": "indexed column",
    "index_type": "btree or bitmap",
    "file_name": "index file",
    "value": "key (None: the null key)",
    "rows": "rows holding the key",
    "first_row_ids": "the first few row ids holding it (global row ids; primary-key indexes: ordinals)",
}

# ---- file-index frames (file_indexes; each index type's summary fields follow these columns) ----

FILE_INDEX_COLUMNS = {
    "partition": "partition values",
    "bucket": "bucket",
    "file_name": "data file",
    "row_count": "rows of the data file",
    "column": "indexed column (map-key indexes as col[key])",
    "index_type": "bloom-filter, bitmap, range-bitmap or bsi",
    "storage": "embedded (in the manifest) or external (.index file)",
    "index_file": "external index file, relative to the table directory",
    "bytes": "bytes of this index inside the container",
    "error": "why the index could not be decoded, if it could not",
}

BITMAP_VALUE_COLUMNS = {
    "partition": "partition values",
    "bucket": "bucket",
    "file_name": "data file",
    "column": "indexed column",
    "value": "a distinct non-null value (None: the null rows)",
    "rows": "rows holding the value",
    "bitmap_bytes": "bytes of its serialized bitmap (0 when stored inline as a single row)",
}

# ---- explain ---------------------------------------------------------------------------------

EXPLAIN_COLUMNS = {
    "file_name": "data file", "partition": "partition values", "bucket": "bucket", "level": "LSM level",
    "row_count": "rows in the file", "file_size": "bytes",
    "partition_keep": "partition filter keeps the file", "bucket_keep": "bucket filter keeps it (None: not used)",
    "stats_keep": "manifest min/max/null counts keep it", "index_location": "embedded, external or none",
    "index_result": "REMAIN, SKIP or NO_INDEX", "index_kind": "REMAIN, SKIP or BITMAP",
    "index_rows": "rows selected by a bitmap index result", "planned": "in Paimon's scan plan",
    "read": "opened by the reader", "deleted_rows": "rows marked deleted by a deletion vector",
    "rows_after_dv": "rows handed to the row filter", "matching_rows": "rows that truly match (truth)",
    "stage": "stage that removed the file", "reason": "why", "flags": "findings (false positives, bugs)",
    "error": "what could not be read for the file (index, deletion vector, data): the answer is partial",
    "branch": "the fallback branch a file comes from (scan.fallback-branch); empty for the table's own",
    "index_selected_rows": "rows a bitmap index result selects for the reader (empty: no selection, the whole file)",
    "dv_removed_rows": "rows the deletion vector takes out of what the reader would return",
    "index_error": "why the file's index could not be read, when its answer was computed (index_result is then "
                   "REMAIN)",
}

# ---- profile ---------------------------------------------------------------------------------

COLUMN_FRAME_COLUMNS = {
    "column": "column name", "type": "Paimon type", "partition_key": "a partition key",
    "files": "profiled files", "rows": "rows of the profiled files", "null_count": "null values",
    "null_ratio": "null_count / rows", "nan_count": "NaN values (FLOAT/DOUBLE)",
    "distinct_count": "distinct non-null values (exact union, or the GEE estimate)",
    "distinct_exact": "distinct_count is exact", "distinct_low": "lower bound of the distinct count",
    "distinct_high": "upper bound of the distinct count",
    "distinct_error": "GEE ratio-error factor sqrt(N/n) of an estimated distinct_count",
    "min": "smallest value", "max": "largest value",
    "top_values": "most frequent values and their counts", "top1_ratio": "share of the most frequent value",
    "top10_ratio": "share of the 10 most frequent values", "mean_file_distinct": "mean distinct values per file",
    "max_file_distinct": "largest distinct count of one file",
    "overlap_ratio": "mean fraction of other files whose [min, max] overlaps a file's",
    "point_lookup_files_ratio": "mean fraction of files a point lookup on an existing value reads by min/max",
    "sorted_ratio": "fraction of adjacent non-null values in non-decreasing order",
    "sorted_files": "files whose values are sorted", "min_length": "shortest value (bytes)",
    "avg_length": "mean value length (bytes)", "max_length": "longest value (bytes)",
    "profiled_rows": "non-null rows distinct counts and top values come from",
}

FILE_FRAME_COLUMNS = {
    "file_name": "data file name", "partition": "partition values", "bucket": "bucket", "level": "LSM level",
    "column": "column name", "rows": "rows of the file", "deleted_rows": "rows deleted by a deletion vector",
    "null_count": "null values", "nan_count": "NaN values", "distinct_count": "distinct non-null values",
    "min": "smallest value", "max": "largest value", "top_values": "most frequent values and their counts",
    "sorted_ratio": "fraction of adjacent non-null values in non-decreasing order",
    "descending_ratio": "fraction of adjacent non-null values in non-increasing order",
    "is_sorted": "all values non-decreasing", "is_strictly_sorted": "all values increasing",
    "min_length": "shortest value (bytes)", "avg_length": "mean value length (bytes)",
    "max_length": "longest value (bytes)", "profiled_rows": "non-null rows top values come from",
}

# ---- what-if ---------------------------------------------------------------------------------

WHATIF_COLUMNS = {
    "column": "indexed column (table schema; '*' for the current indexes)",
    "index_type": "bloom-filter, bitmap, range-bitmap, bsi, a+b for combinations, none, current",
    "label": "the candidate", "options": "index options (file-index.<type>.<column>.<key>)",
    "index_bytes": "container bytes over all files (extrapolated when sampled)",
    "sampled_index_bytes": "container bytes over the sampled files (measured)",
    "mean_index_bytes_per_file": "mean container bytes of the files that have one",
    "max_index_bytes_per_file": "largest container",
    "embedded_files": "files whose container is embedded at the table's in-manifest-threshold",
    "manifest_growth_bytes": "container bytes embedded in manifests at that threshold (uncompressed)",
    "files_skipped_per_query": "data files the index skips, weighted mean over all queries",
    "files_skipped_per_column_query": "the same over the queries that name the column",
    "bytes_avoided_per_query": "data-file bytes not read thanks to the index, weighted mean",
    "bytes_avoided_ratio": "bytes avoided / bytes the baseline reads",
    "rows_avoided_per_query": "rows not handed to the row filter (skipped files + bitmap selections)",
    "index_bytes_read_per_query": "index bytes the lookups read (container heads included), weighted mean",
    "column_queries": "queries naming the column",
    "build_seconds": "Python build time of the containers (extrapolated when sampled)",
    "errors": "sampled files whose container could not be built",
}

QUERY_COLUMNS = {
    "query": "position in the workload", "where": "the WHERE clause", "weight": "its weight",
    "column": "candidate column", "label": "candidate", "constrains_column": "the query names the column",
    "baseline_files": "files read without file indexes", "baseline_bytes": "their bytes",
    "baseline_rows": "their rows after deletion vectors", "evaluated_files": "sampled baseline files evaluated",
    "scale": "baseline files / evaluated files", "files_skipped": "files the index skips (scaled)",
    "bytes_avoided": "data bytes not read (scaled)", "rows_avoided": "rows avoided (scaled)",
    "index_bytes_read": "index bytes read (scaled)", "index_head_bytes_read": "of which container heads",
}

# ---- recommendations -------------------------------------------------------------------------

RECOMMENDATION_COLUMNS = {
    "column": "column", "action": "add, change, keep, drop or none", "index_type": "index type (None: no index)",
    "options": "index options", "label": "the candidate chosen",
    "index_bytes": "index bytes over all files (a drop: the bytes the dropped index takes now)",
    "files_skipped_per_query": "files skipped per query on the column",
    "bytes_avoided_per_query": "data bytes not read per query on the column",
    "rows_avoided_per_query": "rows removed per query on the column",
    "index_bytes_read_per_query": "index bytes read per query on the column",
    "baseline_bytes_per_query": "bytes those queries read without file indexes",
    "column_queries": "workload queries naming the column", "confidence": "high, medium or low",
    "reason": "why", "scope": "file (a file index, by table options) or global (CALL sys.create_global_index)",
}

TRADEOFF_COLUMNS = {
    "column": "column", "label": "candidate", "index_type": "index type", "options": "options",
    "index_bytes": "index bytes over all files", "bytes_avoided_per_query": "per column query",
    "rows_avoided_per_query": "per column query", "files_skipped_per_query": "per column query",
    "index_bytes_read_per_query": "per column query", "cost": "index bytes + query_runs x bytes read",
    "eligible": "within NEAR_BEST of the best gain", "chosen": "the recommendation",
}

# ---- the columns the explorer widgets show (subsets of the frames') --------------------------

SHOWN_FILE_COLUMNS = ("partition", "bucket", "level", "file_name", "file_format", "file_size", "row_count",
                      "file_source", "index_location", "index_size")

INDEX_COLUMNS = ("partition", "bucket", "file_name", "row_count", "index_type", "storage", "bytes", "error")

VERDICT_COLUMNS = ("file_name", "partition", "bucket", "row_count", "stage", "index_result", "rows_after_dv",
                   "matching_rows", "reason", "flags")


# ---- derived workload, in-manifest thresholds, index inventory (report) -------------------------

DERIVED_QUERY_COLUMNS = {
    "where": "the WHERE clause derived from the profile", "weight": "its weight", "column": "the column it names",
    "kind": "point, range, in or null", "description": "why it was derived",
    "expected_ratio": "fraction of rows it is expected to select",
}

THRESHOLD_COLUMNS = {
    "column": "indexed column", "label": "the candidate", "threshold": "file-index.in-manifest-threshold (bytes)",
    "is_table_threshold": "the table's current threshold",
    "embedded_files": "files whose container is embedded at this threshold",
    "manifest_growth_bytes": "container bytes embedded in manifests (uncompressed)",
    "external_files": "files whose container is an external .index file", "external_bytes": "their bytes",
}

INDEX_INVENTORY_COLUMNS = {
    "column": "indexed column", "index_type": "index type", "files": "data files with this index",
    "coverage_ratio": "files / live data files", "embedded_files": "embedded in the manifest",
    "external_files": "in an external .index file", "bytes": "index bytes over all files",
    "mean_bytes": "mean index bytes per file", "error_files": "files whose index could not be decoded",
}


# ---- findings -----------------------------------------------------------------------------------

PLAN_QUERY_COLUMNS = {
    "where": "the workload query", "weight": "its relative frequency",
    "read_files_before": "data files Paimon reads with the table's indexes today",
    "read_bytes_before": "their bytes", "rows_before": "rows handed to the reader's filter",
    "read_files_after": "data files Paimon reads with the plan's indexes built for every file",
    "read_bytes_after": "their bytes", "rows_after": "rows handed to the reader's filter",
    "estimated": "a sample of the files was measured: the counts are extrapolated",
}

FINDING_COLUMNS = {
    "rank": "1 = the most costly",
    "kind": "index-size, bloom-oversized, index-unused, index-never-skips, unindexed-filter, "
            "no-stats, read-for-nothing, dv-bloat, small-files, uncompacted-bucket or embedded-indexes",
    "title": "what is wrong", "subject": "the column or bucket",
    "evidence": "the numbers measured", "impact": "what it costs (bytes stored or read, rows, files)",
    "fix": "what to do", "statements": "the statements that do it (Spark SQL)",
}


# ---- warehouse health ---------------------------------------------------------------------------

HEALTH_COLUMNS = {
    "table": "database.table",
    "savings_score": "what the findings cost, in bytes read per workload run or stored (the sum of their scores): "
                     "the ranking",
    "files": "live data files", "bytes": "their bytes",
    "small_file_ratio": "files below an eighth of target-file-size", "snapshots": "snapshots kept",
    "schemas": "schema versions", "stats_mode": "metadata.stats-mode",
    "index_coverage_ratio": "live files with a file index", "index_bytes": "index container bytes",
    "index_data_ratio": "index bytes / data bytes", "dv_max_bucket_ratio": "deleted rows / rows, the worst bucket",
    "findings": "findings of the table", "top_finding": "the most costly one",
    "read_for_nothing_bytes": "bytes its workload's queries read without a matching row",
    "workload": "the workload file used", "error": "why the table could not be measured, if it could not",
    "top_statements": "the statements that fix the top finding",
}


# ---- history --------------------------------------------------------------------------------------

HISTORY_COLUMNS = {
    "snapshot_id": "the snapshot", "commit_kind": "APPEND, COMPACT, OVERWRITE ...", "time": "commit time (UTC)",
    "schema_id": "schema of the snapshot", "records": "totalRecordCount of the snapshot",
    "delta_records": "deltaRecordCount: rows its commit added", "files": "live data files", "bytes": "their bytes",
    "rows": "their rows (before deletion vectors)", "added_files": "files the commit added",
    "removed_files": "files the commit removed", "added_bytes": "bytes it added", "removed_bytes": "bytes it removed",
    "upgraded_files": "files it moved to another level without rewriting (compaction upgrade)",
    "level_files": "live files per LSM level", "small_files": "files below an eighth of target-file-size",
    "small_file_ratio": "small files / files", "indexed_files": "files with a file index",
    "index_bytes": "their index container bytes",
    "index_coverage": "files holding each index: type(column) -> files (configured ones listed even at 0)",
    "unindexed_files": "files without each configured index", "dv_files": "files with deleted rows",
    "dv_deleted_rows": "rows deletion vectors mark deleted", "dv_ratio": "deleted rows / rows",
    "dv_max_bucket_ratio": "deleted rows / rows, the worst bucket", "stats_mode": "metadata.stats-mode",
    "tags": "tags on the snapshot", "read_whole": "read whole instead of from its delta",
    "problems": "what could not be read at this snapshot",
    "global_index_coverage": "rows each global index covers: type(column) -> rows (pk-type(column): rows of the "
                             "files a primary-key index was built from)",
    "global_index_uncovered_rows": "row ids below nextRowId each global index does not cover",
}

DIFF_COLUMNS = {
    "change": "added or removed between the two snapshots", "file_name": "the data file",
    "partition": "its partition", "bucket": "its bucket", "level": "its LSM level", "file_size": "its bytes",
    "row_count": "its rows", "indexes": "its index container's type(column) labels",
    "snapshot_id": "the commit that added or removed it", "commit_kind": "that commit's kind",
}


# ---- value kinds -----------------------------------------------------------------------------------
#: What every frame column holds, by name (a name means the same in every frame, as units do);
#: a cell may also be null. ``int``: integers (pandas may hold them as float64 next to a null);
#: ``number``: integers or floats; ``time``: pandas timestamps; ``any``: column values in their
#: Python form (the column's own type).
COLUMN_KINDS: dict[str, str] = {
    **dict.fromkeys((
        "snapshot_id", "schema_id", "total_record_count", "delta_record_count", "changelog_record_count",
        "commit_identifier", "watermark", "version", "next_row_id", "field_id", "file_size", "num_added_files",
        "num_deleted_files", "min_bucket", "max_bucket", "min_level", "max_level", "bucket", "level", "row_count",
        "min_sequence_number", "max_sequence_number", "delete_row_count", "index_size", "first_row_id",
        "last_row_id", "deletion_vector_count", "offset", "length", "cardinality", "stored_cardinality",
        "hash_count", "distinct_hashes", "bytes", "rows", "bitmap_bytes", "index_rows", "deleted_rows",
        "rows_after_dv", "matching_rows", "files", "null_count", "nan_count", "distinct_count", "distinct_low",
        "distinct_high", "max_file_distinct", "sorted_files", "min_length", "max_length", "profiled_rows",
        "index_bytes", "sampled_index_bytes", "max_index_bytes_per_file", "embedded_files",
        "manifest_growth_bytes", "column_queries", "errors", "query", "baseline_files", "baseline_bytes",
        "baseline_rows", "evaluated_files", "threshold", "external_files", "external_bytes", "error_files", "rank",
        # index summaries (file_indexes)
        "index_row_count", "positive_rows", "negative_rows", "positive_slices", "negative_slices",
        "positive_bytes", "negative_bytes", "total_bytes", "dictionary_chunks", "slice_count", "header_bytes",
        "dictionary_bytes", "bsi_bytes", "singleton_values", "index_block_bytes", "null_bitmap_bytes",
        "index_block_count", "num_hash_functions", "stored_num_hash_functions", "num_bits", "size_bytes",
        "bits_set", "index_selected_rows", "dv_removed_rows", "snapshots", "schemas", "findings",
        "read_for_nothing_bytes", "records", "delta_records", "added_files", "removed_files", "added_bytes",
        "removed_bytes", "small_files", "indexed_files", "dv_files", "dv_deleted_rows", "upgraded_files",
        "added_snapshot", "keys", "null_rows", "blocks", "max_rows_per_key", "dimension", "vectors", "documents",
        "covered_rows", "uncovered_rows", "source_level", "read_files_before", "read_bytes_before", "rows_before",
        "read_files_after", "read_bytes_after", "rows_after",
    ), "int"),
    **dict.fromkeys((
        "deleted_ratio", "null_ratio", "distinct_error", "top1_ratio", "top10_ratio", "mean_file_distinct",
        "overlap_ratio", "point_lookup_files_ratio", "sorted_ratio", "avg_length", "descending_ratio",
        "mean_index_bytes_per_file", "files_skipped_per_query", "files_skipped_per_column_query",
        "bytes_avoided_per_query", "bytes_avoided_ratio", "rows_avoided_per_query", "index_bytes_read_per_query",
        "build_seconds", "weight", "scale", "files_skipped", "bytes_avoided", "rows_avoided", "index_bytes_read",
        "index_head_bytes_read", "baseline_bytes_per_query", "cost", "fill_ratio", "estimated_items",
        "false_positive_probability", "expected_ratio", "coverage_ratio", "mean_bytes",
        "small_file_ratio", "index_coverage_ratio", "index_data_ratio", "dv_max_bucket_ratio", "savings_score",
        "dv_ratio",
    ), "number"),
    **dict.fromkeys((
        "commit_kind", "commit_user", "base_manifest_list", "delta_manifest_list", "changelog_manifest_list",
        "index_manifest", "field_name", "field_type", "description", "list_kind", "manifest_list", "file_name",
        "file_path", "file_format", "file_source", "index_location", "index_file", "external_path",
        "stats_error", "error", "manifest", "index_type", "data_file", "kind", "column", "storage",
        "index_result", "index_kind", "stage", "reason", "flags", "branch", "type", "label", "where", "action",
        "confidence", "description", "options", "title", "subject", "evidence", "impact", "fix", "statements",
        "table", "stats_mode", "top_finding", "workload", "change", "compression", "metric", "payload", "status",
        "scope", "index_error",
    ), "str"),
    **dict.fromkeys((
        "nullable", "is_partition_key", "is_primary_key", "crc_ok", "partition_keep", "bucket_keep",
        "stats_keep", "planned", "read", "partition_key", "distinct_exact", "is_sorted", "is_strictly_sorted",
        "constrains_column", "eligible", "chosen", "is_table_threshold", "read_whole", "has_nulls",
        "added_at_or_before", "estimated",
    ), "bool"),
    **dict.fromkeys(("commit_time", "time", "creation_time"), "time"),
    **dict.fromkeys(("partition", "partition_min", "partition_max", "partition_null_counts", "level_files",
                     "index_coverage", "unindexed_files", "index_options", "global_index_coverage",
                     "global_index_uncovered_rows"), "dict"),
    **dict.fromkeys(("extra_files", "write_cols", "value_stats_cols", "top_values", "dictionary_chunk_sizes",
                     "values", "index_blocks", "top_statements", "tags", "problems", "indexes", "extra_columns",
                     "source_files", "index_files", "first_row_ids"), "list"),
    **dict.fromkeys(("value", "min", "max", "min_key", "max_key"), "any"),
}


def column_kind(name: str) -> str | None:
    """The kind of a frame column (:data:`COLUMN_KINDS`), including the per-column ``files`` columns
    ``min(col)``, ``max(col)`` (``any``) and ``null_count(col)`` (``int``); None if unknown."""
    kind = COLUMN_KINDS.get(name)
    if kind is None and name.endswith(")") and "(" in name:
        kind = COLUMN_KINDS.get(name.split("(", 1)[0])
    return kind
