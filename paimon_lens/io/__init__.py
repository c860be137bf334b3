"""Input: file systems (local, fsspec) and the bounds-checked byte reader."""

from .fileio import FileIO, LocalFileIO, get_file_io
from .reader import ByteReader

__all__ = ["ByteReader", "FileIO", "LocalFileIO", "get_file_io"]
