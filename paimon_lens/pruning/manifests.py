"""Manifest-level partition pruning: what Paimon's scan does not read for a partition filter.

Before reading a manifest, Paimon's scan tests the partition filter on the manifest list's
partition stats of that manifest (``_PARTITION_STATS``: min, max and null count of each partition
column over the manifest's entries, ADD and DELETE, with ``_NUM_ADDED_FILES + _NUM_DELETED_FILES``
as the row count); a manifest the test rejects is not read, so none of its entries is planned.
Entries of the manifests it reads are then tested one by one on their own partition.

With valid stats a rejected manifest holds no entry of a kept partition, so skipping it changes no
answer: an explanation may plan the kept partitions' files alone (:func:`candidates`) and list the
others later. When the stats are wrong (a corrupt manifest list), a file of a kept partition in a
rejected manifest is not read by Paimon; the planner says so for that file (see
:func:`rejected_manifests`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError
from ..metadata.stats import decode_stats
from ..predicate.model import leaves
from .compare import compile_row_test, signed_binary_compare
from .stats import compile_stats_test

if TYPE_CHECKING:
    from ..metadata.manifest import ManifestFileMeta
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..predicate.model import Predicate


def manifest_test(table: SnapshotReader, partition_filter: Predicate) -> Callable[[ManifestFileMeta], bool]:
    """``keep(manifest)``: whether the partition stats of a manifest may hold a partition
    ``partition_filter`` (bound to the partition columns) keeps; True when they cannot be decoded.
    Answers are kept on the table per filter (a manifest list entry never changes), so the explain
    that finds the candidates and the planner that names the manifests not read decode them once."""
    fields = table.schema.partition_fields
    test = compile_stats_test(partition_filter, fields)
    manifest_dir = table.manifest_dir
    answers: dict[tuple[str, str], bool] = _answers(table, partition_filter)

    def keep(m: ManifestFileMeta) -> bool:
        key = (m.manifest_list, m.file_name)
        got = answers.get(key)
        if got is None:
            try:
                stats = decode_stats(m.partition_stats, fields,
                                     f"{manifest_dir}/{m.manifest_list} entry {m.file_name} _PARTITION_STATS")
                got = bool(test(m.num_added_files + m.num_deleted_files, stats, {}))
            except (PaimonLensError, ValueError, TypeError, IndexError):
                got = True  # stats that do not decode rule nothing out
            answers[key] = got
        return got
    return keep


def _answers(table: SnapshotReader, partition_filter: Predicate) -> dict[tuple[str, str], bool]:
    """The table's kept answers of :func:`manifest_test` for this filter (and byte order), or a new
    dict when the filter cannot be a key."""
    literals = tuple(repr(leaf.literals) for leaf in leaves(partition_filter))  # -0.0 is not 0.0 here
    key = (partition_filter, literals, signed_binary_compare())
    try:
        hash(key)
    except TypeError:
        return {}
    by_filter: dict[Any, dict[tuple[str, str], bool]] = table.memo("manifest_partition_answers", dict)
    return by_filter.setdefault(key, {})


def partition_test(table: SnapshotReader, partition_filter: Predicate) -> Callable[[bytes], bool]:
    """``keep(partition)``: ``partition_filter`` on a partition's BinaryRow bytes (decoded once each;
    True when they do not decode, so that the file is listed and its error said)."""
    test = compile_row_test(partition_filter)
    answers: dict[bytes, bool] = {}

    def keep(partition: bytes) -> bool:
        got = answers.get(partition)
        if got is None:
            try:
                got = bool(test(table.decode_partition(partition, "partition")))
            except (PaimonLensError, ValueError, TypeError):
                got = True
            answers[partition] = got
        return got
    return keep


def candidates(table: SnapshotReader, partition_filter: Predicate | None
               ) -> tuple[list[LiveFile], list[ManifestFileMeta]] | None:
    """The live files of the partitions ``partition_filter`` keeps and the manifests not read for
    them (see :meth:`SnapshotReader.live_files_where`); None when every live file is a candidate
    (no partition filter, or it keeps every partition)."""
    if partition_filter is None:
        return None
    files, skipped = table.live_files_where(partition_test(table, partition_filter),
                                            manifest_test(table, partition_filter))
    if not skipped and table.live_file_count == len(files):
        return None
    return files, skipped


def rejected_manifests(table: SnapshotReader, partition_filter: Predicate | None) -> dict[str, Any]:
    """The snapshot's manifests whose partition stats ``partition_filter`` rejects, by file name (what
    Paimon does not read); empty without a partition filter or when the manifest list cannot be read
    here (the manifests themselves were read already)."""
    if partition_filter is None or table.snapshot is None:
        return {}
    keep = manifest_test(table, partition_filter)
    try:
        metas = table.manifest_files()
    except (PaimonLensError, OSError):
        return {}
    return {m.file_name: m for m in metas if not keep(m)}
