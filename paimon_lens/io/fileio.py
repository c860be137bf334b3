"""File systems: the local one by default, and any fsspec file system for remote paths.

paimon-lens only reads. No function here writes, renames, deletes or locks anything.
"""

from __future__ import annotations

import os
import posixpath
from typing import Protocol

from ..errors import PaimonLensError


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
    """The local file system."""

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def read_range(self, path: str, offset: int, length: int) -> bytes:
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
        return os.path.getsize(path)

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)


class FsspecFileIO:
    """Any fsspec file system (``s3://``, ``hdfs://``, ``oss://``, ``memory://`` ...)."""

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
        data: bytes = self.fs.cat_file(path)
        return data

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        data: bytes = self.fs.cat_file(path, start=offset, end=offset + length)
        return data

    def exists(self, path: str) -> bool:
        return bool(self.fs.exists(path))

    def list_names(self, path: str) -> list[str]:
        try:
            entries = self.fs.ls(path, detail=False)
        except FileNotFoundError:
            return []
        return sorted(posixpath.basename(str(e).rstrip("/")) for e in entries)

    def size(self, path: str) -> int:
        return int(self.fs.size(path))

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)


def get_file_io(path: str, storage_options: dict[str, object] | None = None) -> FileIO:
    """The file system for ``path``: local for plain paths and ``file://``, fsspec otherwise."""
    if "://" in path:
        protocol = path.split("://", 1)[0]
        if protocol != "file":
            return FsspecFileIO(protocol, storage_options)
    return LocalFileIO()


def strip_file_scheme(path: str) -> str:
    """``file:///x`` -> ``/x``; other paths unchanged."""
    return path[len("file://"):] if path.startswith("file://") else path
