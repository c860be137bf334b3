"""File systems: the local one by default, and any fsspec file system for remote paths.

paimon-lens only reads. No function here writes, renames, deletes or locks anything.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

from ..errors import PaimonLensError

T = TypeVar("T")


class FileIO(Protocol):
    """What paimon-lens needs from a file system (read-only)."""

    def read_bytes(self, path: str) -> bytes:
        """The whole content of ``path``."""
        ...

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        """``length`` bytes of ``path`` from ``offset`` (fewer if the file is shorter)."""
        ...

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        ...

    def list_names(self, path: str) -> list[str]:
        """Names (not paths) of the entries of directory ``path``; empty if it does not exist."""
        ...

    def size(self, path: str) -> int:
        """Size of ``path`` in bytes."""
        ...

    def join(self, *parts: str) -> str:
        """Join path parts with this file system's separator."""
        ...


class LocalFileIO:
    """The local file system. Only regular files are opened (see :func:`_regular_file`)."""

    def read_bytes(self, path: str) -> bytes:
        _regular_file(path, os.stat(path).st_mode)
        with open(path, "rb") as f:
            return f.read()

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        _regular_file(path, os.stat(path).st_mode)
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(length)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def list_names(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def size(self, path: str) -> int:
        st = os.stat(path)
        _regular_file(path, st.st_mode)
        return st.st_size

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)


#: requests to remote file systems in this process, and the bytes they returned (see :func:`remote_reads`)
_READS = {"requests": 0, "bytes": 0, "retries": 0}
RETRY_DELAYS = (0.2, 0.8, 3.2)
"""Seconds before each retry of a remote request that failed transiently (then the error is raised)."""
_TRANSIENT_TEXT = ("500", "502", "503", "504", "slowdown", "slow down", "timeout", "timed out", "throttl",
                   "reduce your request rate", "connection reset", "temporarily unavailable")


def remote_reads_since(before: dict[str, int]) -> dict[str, int]:
    """The requests, bytes and retries made to remote file systems since ``before`` (a
    :func:`remote_reads`): what an answer cost (all 0 for a local table)."""
    now = remote_reads()
    return {k: now[k] - before.get(k, 0) for k in now}


def remote_reads() -> dict[str, int]:
    """Requests made to remote file systems in this process so far, the bytes read and the retries
    (what a command cost on object storage; tasks of a distributed engine count in their process)."""
    return dict(_READS)


#: errnos of a request that may succeed when sent again (EBUSY: s3fs's throttling, "SlowDown")
_TRANSIENT_ERRNOS = frozenset({errno.EBUSY, errno.EAGAIN, errno.ECONNRESET, errno.ECONNABORTED, errno.ECONNREFUSED,
                               errno.ETIMEDOUT, errno.EPIPE, errno.EIO})
#: exception classes (by name, anywhere in their hierarchy: no client library is imported for them) of a
#: connection dropped or a body cut short: botocore, urllib3, aiohttp, http.client
_TRANSIENT_CLASSES = frozenset({
    "ResponseStreamingError", "FlexibleChecksumError", "IncompleteReadError", "IncompleteRead", "ProtocolError",
    "ReadTimeoutError", "ConnectTimeoutError", "EndpointConnectionError", "ConnectionClosedError",
    "ClientPayloadError", "ServerDisconnectedError", "ClientConnectionError", "ServerTimeoutError",
    "ContentLengthError", "RemoteDisconnected", "ChecksumError", "AWSResponseStreamingError",
})


class RemoteReadError(OSError):
    """A request to a remote file system failed, after its retries for a transient failure: the path,
    the attempts and the cause (a typed error every per-file handler takes as that file's)."""


def transient(error: BaseException) -> bool:
    """A remote error worth retrying: a timeout, a dropped connection or a body cut short, a checksum
    that does not match what arrived, a 5xx or a throttling answer in any spelling the fsspec drivers
    use (never a missing file or a refused permission)."""
    if isinstance(error, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
        return False
    if isinstance(error, (TimeoutError, ConnectionError)):
        return True
    if any(c.__name__ in _TRANSIENT_CLASSES for c in type(error).__mro__):
        return True
    if isinstance(error, KeyError) and error.args in (("ETag",), ("Content-Length",), ("ContentLength",)):
        return True  # s3fs reading a response whose headers were cut
    if isinstance(error, OSError) and error.errno in _TRANSIENT_ERRNOS:
        return True
    text = str(error).lower()
    return isinstance(error, OSError) and any(t in text for t in _TRANSIENT_TEXT)


def _with_retries(call: Callable[[], T], path: str = "") -> T:
    """``call()`` once, and again after each of :data:`RETRY_DELAYS` (with jitter) while it fails
    transiently; what still fails is a :class:`RemoteReadError` naming ``path`` (a missing file or a
    refused permission keeps its own type)."""
    import random
    import time

    for attempt, delay in enumerate((*RETRY_DELAYS, None), 1):
        _READS["requests"] += 1
        try:
            return call()
        except (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError):
            raise
        except Exception as e:
            if delay is None or not transient(e):
                how = f"after {attempt} attempts" if attempt > 1 else "not retried"
                raise RemoteReadError(f"{path or 'remote request'}: {type(e).__name__}: {e} ({how})") from e
            _READS["retries"] += 1
            time.sleep(delay * (0.5 + random.random()))
    raise AssertionError("unreachable")  # pragma: no cover


class FsspecFileIO:
    """Any fsspec file system (``s3://``, ``hdfs://``, ``oss://``, ``memory://`` ...).

    Every request goes through one retry policy (:func:`transient` errors, :data:`RETRY_DELAYS`)
    and is counted (:func:`remote_reads`).
    """

    def __init__(self, protocol: str, storage_options: dict[str, object] | None = None) -> None:
        try:
            import fsspec
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise PaimonLensError(
                f"reading {protocol}:// paths needs fsspec: pip install 'paimon-lens[remote]'"
            ) from e
        self.protocol = protocol
        self.fs = fsspec.filesystem(protocol, **(storage_options or {}))

    def read_bytes(self, path: str) -> bytes:
        data: bytes = _with_retries(lambda: self.fs.cat_file(path), path)
        _READS["bytes"] += len(data)
        return data

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        data: bytes = _with_retries(lambda: self.fs.cat_file(path, start=offset, end=offset + length), path)
        _READS["bytes"] += len(data)
        return data

    def exists(self, path: str) -> bool:
        return bool(_with_retries(lambda: self.fs.exists(path), path))

    def list_names(self, path: str) -> list[str]:
        try:
            entries = _with_retries(lambda: self.fs.ls(path, detail=False), path)
        except FileNotFoundError:
            return []
        return sorted(posixpath.basename(str(e).rstrip("/")) for e in entries)

    def size(self, path: str) -> int:
        return int(_with_retries(lambda: self._file_size(path), path))

    def _file_size(self, path: str) -> int:
        """The size of the object ``path``; a driver that answers with something else than a file
        (s3fs reports a directory of size 0 when its request for the object failed) is a transient
        failure, its cached listing dropped."""
        info = self.fs.info(path)
        if info.get("type") != "file" or not isinstance(info.get("size"), int):
            invalidate = getattr(self.fs, "invalidate_cache", None)
            if invalidate is not None:
                invalidate(path)
            raise OSError(errno.EIO, f"the store answered for an object with {info.get('type')!r} "
                                     f"of size {info.get('size')!r}")
        return int(info["size"])

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)


def get_file_io(path: str, storage_options: dict[str, object] | None = None) -> FileIO:
    """The file system for ``path``: local for plain paths and ``file://``, fsspec otherwise."""
    if "://" in path:
        protocol = path.split("://", 1)[0]
        if protocol != "file":
            return FsspecFileIO(protocol, storage_options)
    return LocalFileIO()


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$", re.S)


def uri_scheme(path: str) -> str | None:
    """The lower-case scheme of a URI (``FILE:/x`` -> ``file``), None for a plain path."""
    m = _SCHEME.match(path)
    if m is None or (len(m.group(1)) == 1 and os.name == "nt"):  # pragma: no cover - drive letters
        return None
    return m.group(1).lower()


def normalize_uri(path: str) -> str:
    """One spelling per location: ``FILE:/x``, ``file:/x``, ``file:///x`` -> ``/x``; ``S3://b/k`` -> ``s3://b/k``.

    Paimon writes external paths as Hadoop ``Path`` strings whose scheme may be upper-case
    (``data-file.external-paths = FILE:///tmp/x`` is stored as ``FILE:/tmp/x/...``).
    """
    scheme = uri_scheme(path)
    if scheme is None:
        return path
    rest = path[len(scheme) + 1:]
    if scheme == "file":
        return "/" + rest.lstrip("/")
    return f"{scheme}:{rest}"


def _clean(path: str) -> str:
    """``a/./b/../c`` -> ``a/c`` (lexically; the scheme and authority of a URI are kept)."""
    scheme = uri_scheme(path)
    if scheme is None:
        return posixpath.normpath(path) if path else path
    rest = path[len(scheme) + 1:]
    if rest.startswith("//"):
        authority, _, tail = rest[2:].partition("/")
        return f"{scheme}://{authority}" + (posixpath.normpath("/" + tail) if tail else "")
    return f"{scheme}:" + posixpath.normpath(rest)


class TableFileIO:
    """The file system of one table: its own FileIO, plus the FileIO of any other scheme its external
    paths use (created on first use with the same ``storage_options``), after the user's ``path_map``.

    ``path_map`` rewrites location prefixes (``{"oss://bucket/ext": "/data/copy-of-ext"}``), for a
    table whose external paths were copied elsewhere; keys and paths are compared normalized
    (:func:`normalize_uri`).
    """

    def __init__(self, base: FileIO, storage_options: dict[str, object] | None = None,
                 path_map: dict[str, str] | None = None) -> None:
        self.base = base
        self.storage_options = dict(storage_options or {})
        self.path_map = {normalize_uri(k).rstrip("/"): v.rstrip("/") for k, v in (path_map or {}).items()}
        self._others: dict[str, FileIO] = {}
        self.roots: tuple[str, ...] | None = None
        """Where the table's files may be (its directory, the external paths its options declare);
        None until :meth:`confine` is called (then nothing else is read)."""
        self.missing: list[str] = []
        """Every path a read found missing, in order (how an expiry during a read is noticed, see
        :mod:`paimon_lens.metadata.consistency`)."""

    def confine(self, roots: list[str]) -> None:
        """Refuse, from now on, every path outside ``roots`` (after resolving ``.`` and ``..``)."""
        self.roots = tuple(dict.fromkeys(_clean(normalize_uri(r)).rstrip("/") or "/" for r in roots if r))

    def check(self, path: str) -> str:
        """``path`` normalized, if it lies inside the table's roots; else a :class:`CorruptFileError`.

        Names in metadata (``_FILE_NAME``, ``_EXTRA_FILES``, ``_EXTERNAL_PATH``, index file names)
        are joined to the table directory: one with ``..``, an absolute path or another scheme
        would make another directory's files the table's.
        """
        from ..errors import CorruptFileError

        if "\x00" in path:
            raise CorruptFileError(path.replace("\x00", "\\x00"), path.index("\x00"), "file name",
                                   "no NUL character", "a NUL character", detail="no file system names a file so")
        norm = _clean(normalize_uri(path))
        if self.roots is None:
            return norm
        for root in self.roots:
            if norm == root or norm.startswith(root if root.endswith("/") else root + "/"):
                return norm
        raise CorruptFileError(path, None, "file location", "a file inside the table directory or an external path "
                               "its options declare (data-file.external-paths)", norm,
                               detail="refused: a name in the table's metadata points outside the table")

    def locate(self, path: str) -> str:
        """``path`` confined (:meth:`check`), normalized and rewritten by ``path_map`` (longest prefix wins)."""
        norm = self.check(path)
        for prefix in sorted(self.path_map, key=len, reverse=True):
            if norm == prefix or norm.startswith(prefix + "/"):
                return normalize_uri(self.path_map[prefix] + norm[len(prefix):])
        return norm

    def _io(self, path: str) -> tuple[FileIO, str]:
        path = self.locate(path)
        scheme = uri_scheme(path)
        base_scheme = getattr(self.base, "protocol", None)
        if scheme is None or scheme == base_scheme:
            if scheme is None and base_scheme is not None and path.startswith("/"):
                return self._other("file"), path
            return self.base, path
        return self._other(scheme), path

    def _other(self, scheme: str) -> FileIO:
        io_ = self._others.get(scheme)
        if io_ is None:
            io_ = self._others[scheme] = LocalFileIO() if scheme == "file" else FsspecFileIO(scheme,
                                                                                            self.storage_options)
        return io_

    @contextlib.contextmanager
    def _noting_missing(self, path: str) -> Iterator[None]:
        """Record ``path`` in :attr:`missing` when the read inside finds it missing (and re-raise)."""
        try:
            yield
        except FileNotFoundError:
            self.missing.append(path)
            raise

    def read_bytes(self, path: str) -> bytes:
        """The whole content of ``path`` (a regular file)."""
        io_, p = self._io(path)
        with self._noting_missing(path):
            return io_.read_bytes(p)

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        """``length`` bytes of ``path`` from ``offset``."""
        io_, p = self._io(path)
        with self._noting_missing(path):
            return io_.read_range(p, offset, length)

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        io_, p = self._io(path)
        return io_.exists(p)

    def list_names(self, path: str) -> list[str]:
        """Entry names of directory ``path``."""
        io_, p = self._io(path)
        return io_.list_names(p)

    def size(self, path: str) -> int:
        """Size of ``path`` in bytes."""
        io_, p = self._io(path)
        with self._noting_missing(path):
            return io_.size(p)

    def join(self, *parts: str) -> str:
        """Join path parts; a part that is itself absolute or a URI starts over (like ``os.path.join``)."""
        start = 0
        for i, part in enumerate(parts):
            if i and (part.startswith("/") or uri_scheme(part) is not None):
                start = i
        return self.base.join(*parts[start:]) if len(parts) - start > 1 else parts[start]

    def local_path(self, path: str) -> str | None:
        """``path`` on the local file system (a directory or a regular file), or None when it lives
        elsewhere."""
        io_, p = self._io(path)
        if not isinstance(io_, LocalFileIO):
            return None
        try:
            mode = os.stat(p).st_mode
        except OSError:
            return p  # missing: the caller's open says so
        if not stat.S_ISDIR(mode):
            _regular_file(path, mode)
        return p


def _regular_file(path: str, mode: int) -> None:
    """Refuse a local file that is not a regular one, before anything opens it: a FIFO would block,
    a device such as ``/dev/zero`` never ends (``os.stat`` follows symlinks to them)."""
    if stat.S_ISREG(mode):
        return
    from ..errors import CorruptFileError

    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket or other")
    raise CorruptFileError(path, None, "file type", "a regular file", kind, detail="refused: not read")


#: Largest file read whose size no metadata records (snapshot and schema JSON, manifest lists, index
#: manifests, files named on the command line): a bigger one is refused, not read.
MAX_UNRECORDED_BYTES = 1 << 30
#: Largest snapshot or schema JSON file read.
MAX_JSON_BYTES = 64 << 20


def check_size(file_io: FileIO, path: str, size: int | None, field: str = "_FILE_SIZE",
               limit: int = MAX_UNRECORDED_BYTES) -> int:
    """The size of ``path``: :class:`CorruptFileError` when it is larger than the ``size`` its
    metadata ``field`` records (or, when none is recorded, than ``limit``). A smaller file is read:
    its decoder says where it ends too soon."""
    from ..errors import CorruptFileError

    actual = file_io.size(path)
    if size is not None and actual > size:
        raise CorruptFileError(path, None, field, f"{size} bytes", f"{actual} bytes",
                               detail="the file is larger than its metadata records; not read")
    if size is None and actual > limit:
        raise CorruptFileError(path, None, "file size", f"at most {limit} bytes", f"{actual} bytes",
                               detail="larger than any such file can be; not read")
    return actual


def read_file(file_io: FileIO, path: str, size: int | None = None, field: str = "_FILE_SIZE",
              limit: int = MAX_UNRECORDED_BYTES) -> bytes:
    """The bytes of file ``path``, never more than its metadata says it holds.

    Args:
        size: the size the metadata records (a manifest's ``_FILE_SIZE`` ...); a file of any other
            size is a :class:`CorruptFileError` naming ``field``, and is not read.
        field: the metadata field ``size`` comes from, for the error.
        limit: without a recorded size, a larger file is refused.
    """
    from ..errors import CorruptFileError

    actual = check_size(file_io, path, size, field, limit)
    data = file_io.read_range(path, 0, actual)
    if len(data) != actual:
        raise CorruptFileError(path, len(data), "file", f"{actual} bytes", f"{len(data)} bytes",
                               detail="the file changed while it was read")
    return data


def note_missing(file_io: FileIO, path: str) -> None:
    """Record that a read of ``path`` found it missing, for a table's file system that keeps such a
    record (a read that bypassed it, such as a local file opened in place; see
    :attr:`TableFileIO.missing`)."""
    if isinstance(file_io, TableFileIO):
        file_io.missing.append(path)


def local_path(file_io: FileIO, path: str) -> str | None:
    """Where ``path`` is on the local file system (None when ``file_io`` reads it from elsewhere)."""
    if isinstance(file_io, LocalFileIO):
        return path
    if isinstance(file_io, TableFileIO):
        return file_io.local_path(path)
    return None


def strip_file_scheme(path: str) -> str:
    """``file:///x`` -> ``/x``; other paths unchanged."""
    return path[len("file://"):] if path.startswith("file://") else path
