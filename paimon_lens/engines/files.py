"""Per-file work of a snapshot, cut into tasks for an engine.

A service hands :func:`map_file_chunks` a function of ``(reader, files, extras)``; the files are
cut into contiguous chunks (one for an engine of parallelism 1, a few per unit of parallelism
otherwise), each chunk travels as its manifest entries with a
:class:`~paimon_lens.metadata.snapshot_reader.ReaderHandle`, and the task rebuilds the reader
restricted to them. In the process that holds the reader (the local engine, or a distributed
engine mapping a single item in the driver) the task gets the reader and its own
:class:`~paimon_lens.metadata.snapshot_reader.LiveFile` objects back, with everything they have
decoded: no service asks where it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from ..metadata.manifest import IndexFileMeta, ManifestEntry
from ..metadata.snapshot_reader import LiveFile, Mapper, ReaderHandle, SnapshotReader
from .base import Engine

R = TypeVar("R")

TASKS_PER_WORKER = 2
"""Tasks per unit of engine parallelism when work is chunked (evens out uneven groups)."""


def task_count(engine: Engine) -> int:
    """How many tasks to cut work into for ``engine`` (1 for an engine running one task at a time)."""
    parallelism = max(1, int(getattr(engine, "parallelism", 1)))
    return 1 if parallelism == 1 else parallelism * TASKS_PER_WORKER


def chunks(n: int, parts: int) -> list[range]:
    """``range(n)`` cut into at most ``parts`` contiguous, nearly equal ranges."""
    parts = max(1, min(parts, n))
    size, extra = divmod(n, parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(range(start, end))
        start = end
    return [r for r in out if len(r)]


def files_of(handle: ReaderHandle, entries: Sequence[ManifestEntry],
             index_entries: Sequence[IndexFileMeta] | None = None) -> tuple[SnapshotReader, list[LiveFile]]:
    """The reader a task works with and the live files of ``entries``, in their order.

    Where the handle's reader is at hand, that reader and its own live files (``index_entries``
    None: the snapshot's); elsewhere a reader restricted to ``entries`` and ``index_entries``.
    """
    origin = handle._origin
    if origin is not None and index_entries is None:
        by_entry = {id(lf.entry): lf for lf in origin.live_files()}
        found = [by_entry.get(id(e)) for e in entries]
        if all(lf is not None for lf in found):
            return origin, [lf for lf in found if lf is not None]
    part = handle.restricted(entries, index_entries)
    return part, part.live_files()


def _file_chunk(handle: ReaderHandle, fn: Callable[[SnapshotReader, list[LiveFile], list[Any]], R],
                item: tuple[list[ManifestEntry], list[Any]]) -> R:
    entries, extras = item
    reader, files = files_of(handle, entries)
    return fn(reader, files, extras)


def map_file_chunks(engine: Engine, reader: SnapshotReader, files: Sequence[LiveFile],
                    fn: Callable[[SnapshotReader, list[LiveFile], list[Any]], R],
                    extras: Sequence[Any] | None = None) -> list[R]:
    """``fn(reader, files_of_chunk, extras_of_chunk)`` for contiguous chunks of ``files``, one task each.

    ``fn`` is top-level (or a ``functools.partial`` of one); in a task ``reader`` reads the
    snapshot (restricted to the chunk's files where it was rebuilt) and ``files_of_chunk`` are the
    chunk's live files in the given order; ``extras`` (one picklable value per file, default None)
    travel with their files. The results come back in chunk order, so a caller merging them in
    order sees the files in order.
    """
    extra = list(extras) if extras is not None else [None] * len(files)
    ranges = chunks(len(files), task_count(engine))
    items = [([files[i].entry for i in r], [extra[i] for i in r]) for r in ranges]
    return engine.map(partial(_file_chunk, reader.handle(), fn), items)


def manifest_mapper(engine: Engine) -> tuple[Mapper, int] | None:
    """How ``engine`` reads a snapshot's manifests: its ``map`` from ``min_manifests`` manifest files
    on (None: the reader reads them itself, as the local engine does)."""
    minimum = getattr(engine, "min_manifests", None)
    if minimum is None:
        return None
    return engine.map, max(2, int(minimum))
