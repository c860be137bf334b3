"""Input: file systems (local, fsspec) and the bounds-checked byte reader."""

from .byte_reader import ByteReader
from .fileio import FileIO, LocalFileIO, get_file_io

__all__ = ["ByteReader", "FileIO", "LocalFileIO", "get_file_io"]
