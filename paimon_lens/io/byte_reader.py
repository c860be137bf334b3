"""A bounds-checked reader over bytes, shared by every binary decoder.

Each read names the field it reads. Reading past the end, a negative length or a count that
cannot fit in the remaining bytes raises :class:`~paimon_lens.errors.CorruptFileError` with the
file path, the byte offset of the field, and what was expected and found, before any
allocation is made. Multi-byte integers are big-endian unless the method name ends in ``_le``.
"""

from __future__ import annotations

import struct

from ..errors import CorruptFileError

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_I32LE = struct.Struct("<i")
_I64LE = struct.Struct("<q")
_U32LE = struct.Struct("<I")
_U16LE = struct.Struct("<H")


def decode_modified_utf8(raw: bytes) -> str:
    """Decode Java's *modified* UTF-8 (``DataOutput.writeUTF``).

    NUL is encoded as ``C0 80`` and characters outside the BMP as two 3-byte surrogates.
    """
    if b"\xc0\x80" not in raw and b"\xed" not in raw:
        return raw.decode("utf-8")
    fixed = raw.replace(b"\xc0\x80", b"\x00")
    # surrogatepass keeps the 3-byte surrogates; utf-16 then joins pairs into one character.
    text = fixed.decode("utf-8", "surrogatepass")
    return text.encode("utf-16", "surrogatepass").decode("utf-16")


class ByteReader:
    """Sequential, bounds-checked reader of a byte buffer.

    Args:
        data: the bytes (or a memoryview) to read.
        path: the file the bytes come from, used in error messages.
        base: offset of ``data[0]`` inside that file, so errors report file offsets.
    """

    __slots__ = ("_data", "_view", "base", "path", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, path: str | None = None, base: int = 0) -> None:
        self._data = bytes(data) if not isinstance(data, bytes) else data
        self._view = memoryview(self._data)
        self.pos = 0
        self.path = path
        self.base = base

    # -- positioning -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._data)

    @property
    def data(self) -> bytes:
        """The whole underlying buffer."""
        return self._data

    @property
    def remaining(self) -> int:
        """Bytes left after the current position."""
        return len(self._data) - self.pos

    def error(self, field: str, expected: object = None, found: object = None,
              detail: str | None = None, at: int | None = None) -> CorruptFileError:
        """Build a :class:`CorruptFileError` at the current (or given) position."""
        return CorruptFileError(self.path, self.base + (self.pos if at is None else at), field,
                                expected, found, detail)

    def seek(self, pos: int, field: str = "offset") -> None:
        """Move to ``pos`` (relative to the buffer start); must lie within the buffer."""
        if pos < 0 or pos > len(self._data):
            raise self.error(field, f"0..{len(self._data)}", pos, at=self.pos)
        self.pos = pos

    def need(self, n: int, field: str) -> None:
        """Check that ``n`` more bytes can be read for ``field``."""
        if n < 0:
            raise self.error(field, "a non-negative length", n)
        if n > len(self._data) - self.pos:
            raise self.error(field, f"{n} more bytes", f"{len(self._data) - self.pos} left",
                             detail="truncated")

    def check_count(self, count: int, min_item_size: int, field: str) -> int:
        """Check a count read from the bytes against the bytes left, before allocating for it."""
        if count < 0:
            raise self.error(field, "a non-negative count", count)
        if count * min_item_size > len(self._data) - self.pos:
            raise self.error(field, f"at most {(len(self._data) - self.pos) // max(min_item_size, 1)} items",
                             count, detail="count larger than the remaining bytes")
        return count

    # -- primitives ---------------------------------------------------------------------------
    def u8(self, field: str) -> int:
        """Unsigned byte."""
        self.need(1, field)
        v = self._data[self.pos]
        self.pos += 1
        return v

    def i8(self, field: str) -> int:
        """Signed byte."""
        v = self.u8(field)
        return v - 256 if v > 127 else v

    def boolean(self, field: str) -> bool:
        """Java ``DataOutput.writeBoolean``: one byte, non-zero is true."""
        return self.u8(field) != 0

    def i16(self, field: str) -> int:
        """Big-endian signed 16-bit integer."""
        self.need(2, field)
        v: int = _I16.unpack_from(self._data, self.pos)[0]
        self.pos += 2
        return v

    def u16(self, field: str) -> int:
        """Big-endian unsigned 16-bit integer."""
        self.need(2, field)
        v = (self._data[self.pos] << 8) | self._data[self.pos + 1]
        self.pos += 2
        return v

    def i32(self, field: str) -> int:
        """Big-endian signed 32-bit integer."""
        self.need(4, field)
        v: int = _I32.unpack_from(self._data, self.pos)[0]
        self.pos += 4
        return v

    def i64(self, field: str) -> int:
        """Big-endian signed 64-bit integer."""
        self.need(8, field)
        v: int = _I64.unpack_from(self._data, self.pos)[0]
        self.pos += 8
        return v

    def i32_le(self, field: str) -> int:
        """Little-endian signed 32-bit integer."""
        self.need(4, field)
        v: int = _I32LE.unpack_from(self._data, self.pos)[0]
        self.pos += 4
        return v

    def u32_le(self, field: str) -> int:
        """Little-endian unsigned 32-bit integer."""
        self.need(4, field)
        v: int = _U32LE.unpack_from(self._data, self.pos)[0]
        self.pos += 4
        return v

    def u16_le(self, field: str) -> int:
        """Little-endian unsigned 16-bit integer."""
        self.need(2, field)
        v: int = _U16LE.unpack_from(self._data, self.pos)[0]
        self.pos += 2
        return v

    def i64_le(self, field: str) -> int:
        """Little-endian signed 64-bit integer."""
        self.need(8, field)
        v: int = _I64LE.unpack_from(self._data, self.pos)[0]
        self.pos += 8
        return v

    def raw(self, n: int, field: str) -> bytes:
        """``n`` raw bytes."""
        self.need(n, field)
        v = self._data[self.pos:self.pos + n]
        self.pos += n
        return v

    def view(self, n: int, field: str) -> memoryview:
        """``n`` bytes as a zero-copy view."""
        self.need(n, field)
        v = self._view[self.pos:self.pos + n]
        self.pos += n
        return v

    def utf(self, field: str) -> str:
        """Java ``DataInput.readUTF``: u16 length, then modified UTF-8."""
        start = self.pos
        n = self.u16(field + ".length")
        raw = self.raw(n, field)
        try:
            return decode_modified_utf8(raw)
        except UnicodeDecodeError as e:
            raise self.error(field, "modified UTF-8", raw[:32].hex(), detail=str(e), at=start) from None

    def sub(self, start: int, length: int, field: str) -> ByteReader:
        """A reader over ``[start, start + length)`` of this buffer (offsets stay file offsets)."""
        if start < 0 or length < 0 or start + length > len(self._data):
            raise self.error(field, f"a range inside 0..{len(self._data)}", f"[{start}, {start + length})",
                             at=self.pos)
        return ByteReader(self._view[start:start + length], self.path, self.base + start)
