"""Write new Apache Paimon tables laid out exactly as Paimon 2.0 writes them.

For tests, demos, what-if experiments and synthetic data: the writer only ever creates new tables
(and commits snapshots to tables it created); it never writes into a user's warehouse table.

>>> from paimon_lens.writer import TableWriter
>>> w = TableWriter.create(path, arrow_schema, partition_keys=["dt"], bucket=-1,
...                        options={"file-index.bloom-filter.columns": "id"})   # doctest: +SKIP
>>> w.commit(arrow_table, rows_per_file=1000)                                     # doctest: +SKIP
1

Modules: :mod:`.schema` (Arrow -> Paimon types, ``schema-<n>``), :mod:`.stats` (``_VALUE_STATS``,
stats modes), :mod:`.file_index` (index options -> container), :mod:`.data_file` (parquet file and
its manifest entry), :mod:`.avro` (manifest schemas), :mod:`.table_writer` (partitions, buckets,
manifests, snapshots), :mod:`.history_commits` (schema changes, compactions, deletes by deletion
vectors, tags: ``TableWriter.alter``, ``compact``, ``delete``, ``tag``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .table_writer import TableWriter

__all__ = ["TableWriter"]


def __getattr__(name: str) -> Any:
    """``TableWriter``, imported on first use (it loads pyarrow; :mod:`.file_index` alone does not)."""
    if name == "TableWriter":
        from .table_writer import TableWriter

        return TableWriter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
