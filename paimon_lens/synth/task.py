"""The per-file task: generate one data file's rows, write the file and its index, describe it.

This is the function Spark runs on executors (``sc.parallelize(plan).map(...)``) and the local
engine runs in-process. For one :class:`~.plan.FilePlan` it writes, with paimon-lens' table writer
(:func:`paimon_lens.writer.data_file.write_data_file`)::

    <table>/[dt=<day>/]bucket-<n>/data-<uuid>-0.parquet         the rows (primary-key tables also
                                                                 _KEY_order_id, _SEQUENCE_NUMBER,
                                                                 _VALUE_KIND)
    <table>/[dt=<day>/]bucket-<n>/data-<uuid>-0.parquet.index   the file-index container, when it
                                                                 is larger than
                                                                 file-index.in-manifest-threshold

and returns a :class:`FileResult`: the manifest entry (stats, sizes, row count, embedded index
bytes; primary-key files moved to the top level with file source ``COMPACT``) and the row
positions its deletion vector must hold. The table directory must be reachable from every
executor under the same path (local mode, or a shared filesystem).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..metadata.binary_row import encode_binary_row
from ..metadata.options import CoreOptions
from ..metadata.paths import bucket_dir, partition_path
from ..writer.data_file import FileSpec, write_data_file
from .data import generate
from .plan import FilePlan
from .spec import PK_LEVEL, SynthSpec

FILE_SOURCE_COMPACT = 1


@dataclass(frozen=True)
class TaskContext:
    """What every task shares: where the table is, what it looks like, how files are written."""

    root: str
    spec: SynthSpec
    file_spec: FileSpec

    @cached_property
    def core_options(self) -> CoreOptions:
        """The table's options, typed (parsed once per context)."""
        return CoreOptions(self.file_spec.options)

    def directory(self, plan: FilePlan) -> str:
        """The directory of a file, relative to the table root."""
        parts = [p for p in (
            self.core_options.data_file_path_directory,
            partition_path(list(plan.partition), self.partition_fields, self.core_options),
            bucket_dir(plan.bucket)) if p]
        return "/".join(parts)

    @property
    def partition_fields(self) -> list[Any]:
        """The partition fields of the table."""
        by_name = {f.name: f for f in self.file_spec.fields}
        return [by_name[k] for k in self.spec.partition_keys]


@dataclass(frozen=True)
class FileResult:
    """What a task reports to the driver about the file it wrote."""

    plan: FilePlan
    path: str  # relative to the table root
    entry: dict[str, Any]  # the ADD manifest entry (MANIFEST_SCHEMA record)
    deleted: tuple[int, ...]


def write_file(ctx: TaskContext, plan: FilePlan) -> FileResult:
    """Generate, write and describe the data file of ``plan`` (runs in a Spark task)."""
    data = generate(plan, ctx.spec)
    rel_dir = ctx.directory(plan)
    partition = encode_binary_row(list(plan.partition), [f.type for f in ctx.partition_fields])
    sequence_numbers = range(plan.sequence_start, plan.sequence_start + plan.rows)
    total_buckets = ctx.spec.buckets if ctx.spec.buckets > 0 else -1
    compacted = bool(ctx.spec.primary_key)  # a fully compacted LSM tree: every file at the top level
    entry = write_data_file(ctx.file_spec, Path(ctx.root) / rel_dir, plan.file_name, data.table, data.values,
                            sequence_numbers, partition, plan.bucket, total_buckets,
                            level=PK_LEVEL if compacted else 0,
                            file_source=FILE_SOURCE_COMPACT if compacted else None)
    return FileResult(plan, f"{rel_dir}/{plan.file_name}", entry, data.deleted)
