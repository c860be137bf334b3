"""A snapshot that expires while it is read.

Paimon tables are written by jobs that commit every few seconds and expire old snapshots. An
expiration deletes, in this order, the data files and manifests no retained snapshot uses, then
the snapshot files, then updates the ``EARLIEST`` hint. A reader of snapshot N can therefore find
one of N's files gone half way through an answer.

Every public reading method of a snapshot reader (and of :class:`paimon_lens.Table`) runs through
:func:`run_consistently`: when files went missing while it ran (the table's
:class:`~paimon_lens.io.fileio.TableFileIO` records each one) and snapshot N has expired (its
snapshot file is gone, or goes within :data:`EXPIRY_WAIT_SECONDS` while a newer snapshot exists),
the answer, partial or failed, is dropped:

* a table opened at the latest snapshot moves to the newest one (a
  :class:`SnapshotMovedWarning` says so) and the method runs again, up to :data:`MOVES` times (a
  writer that commits and expires faster than an answer is read may outrun it);
* a table opened at a given snapshot, or an expiry after the last move, raises
  :class:`~paimon_lens.errors.SnapshotNotFoundError` ("snapshot N expired while it was read"); what
  was read of the snapshot is dropped and every later call raises the same (a pinned table) or
  moves on (a table that follows the latest snapshot), never answering from partial reads.

So an answer is always the answer for the snapshot the table then names. Files missing from a
snapshot that still exists are what they are: per-file errors, or the error of the metadata
file. Work done by a distributed engine's workers records no missing files in this process:
there an expiry shows as those files' errors.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..errors import PaimonLensError, SnapshotNotFoundError
from ..io.fileio import FileIO

T = TypeVar("T")


class SnapshotSource(Protocol):
    """What a reader offers for consistent reading (a :class:`~paimon_lens.metadata.snapshot_reader.SnapshotReader`)."""

    path: str
    file_io: FileIO
    snapshot: Any
    follows_latest: bool
    _consistency_depth: int

    @property
    def snapshot_id(self) -> int | None: ...

    @property
    def branch(self) -> str: ...

    @property
    def file_io_missing(self) -> list[str]: ...

    def move_to_latest(self) -> None: ...

    def forget_snapshot(self, expired: SnapshotNotFoundError) -> None: ...

    @property
    def snapshot_expired(self) -> SnapshotNotFoundError | None: ...

#: How many times an answer moves to the newest snapshot before the expiry is raised.
MOVES = 3

#: How long a reader waits for the snapshot file of a snapshot whose files went missing to be
#: deleted too, when a newer snapshot exists (an expiration deletes snapshot files last).
EXPIRY_WAIT_SECONDS = 2.0


class SnapshotMovedWarning(UserWarning):
    """The snapshot a table was reading expired; the table now reads the newest snapshot."""


def consistent(method: Callable[..., T]) -> Callable[..., T]:
    """Decorate a reader's method: it runs through :func:`run_consistently`."""

    @functools.wraps(method)
    def run(self: SnapshotSource, *args: Any, **kwargs: Any) -> T:
        return run_consistently(self, lambda: method(self, *args, **kwargs))

    return run


def run_consistently(table: SnapshotSource, op: Callable[[], T], follows_latest: bool | None = None) -> T:
    """``op()`` (which reads ``table``), answered for one snapshot (see the module docs).

    Nested calls (a method calling another) are left to the outermost one, which retries the
    whole operation, so one answer never mixes two snapshots. ``follows_latest`` False: the answer
    is for the table's current snapshot or raises, whatever the table's own setting (which is left
    as it is).
    """
    if table._consistency_depth:
        return op()
    follows = table.follows_latest if follows_latest is None else follows_latest and table.follows_latest
    gone = table.snapshot_expired
    if gone is not None:  # known expired: nothing read of it can be trusted, nothing more can be read
        if not follows:
            raise SnapshotNotFoundError(str(gone))
        _move(table, gone)
    table._consistency_depth += 1
    try:
        for attempt in range(MOVES + 1):
            seen = len(table.file_io_missing)
            try:
                result = op()
            except (PaimonLensError, OSError) as e:
                expired = expired_error(table, seen)
                if expired is None:
                    raise
                if attempt == MOVES or not follows:
                    table.forget_snapshot(expired)
                    raise expired from e
                _move(table, expired)
                continue
            expired = expired_error(table, seen)
            if expired is None:
                return result
            if attempt == MOVES or not follows:
                table.forget_snapshot(expired)
                raise expired
            _move(table, expired)
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        table._consistency_depth -= 1


def expired_error(table: SnapshotSource, seen: int) -> SnapshotNotFoundError | None:
    """The error to raise when files went missing (after the first ``seen`` recorded) because
    ``table``'s snapshot expired; None when nothing went missing or the snapshot still exists."""
    missing = table.file_io_missing[seen:]
    if not missing or table.snapshot is None:
        return None
    from .snapshot import SnapshotManager

    sid = table.snapshot.id
    deadline = time.monotonic() + EXPIRY_WAIT_SECONDS
    while True:
        fresh = SnapshotManager(table.file_io, table.path, table.branch)
        gone = not table.file_io.exists(fresh.snapshot_path(sid))
        newest = fresh.latest_id()
        if gone or newest is None or newest <= sid or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    if not gone:
        return None
    now = f"; the newest snapshot is {newest}" if newest is not None else "; the table has no snapshots left"
    return SnapshotNotFoundError(f"snapshot {sid} expired while it was read: {missing[0]} is gone{now}")


def _move(table: SnapshotSource, expired: SnapshotNotFoundError) -> None:
    old = table.snapshot_id
    table.move_to_latest()
    warnings.warn(SnapshotMovedWarning(f"{expired}; reading snapshot {table.snapshot_id} instead of {old}"),
                  stacklevel=4)
