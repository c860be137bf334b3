"""A bounds-checked reader over bytes, shared by every binary decoder.

Each read names the field it reads. Reading past the end, a negative length or a count that
cannot fit in the remaining bytes raises :class:`~paimon_lens.errors.CorruptFileError` with the
file path, the byte offset of the field, and what was expected and found, before any
allocation is made. Multi-byte integers are big-endian unless the method name ends in ``_le``.

Bulk primitives check once and then read many fields: :meth:`ByteReader.unpack` (one ``struct``),
:meth:`ByteReader.records` (``count`` fixed-size records as a numpy structured array, or as
tuples) and :meth:`ByteReader.length_prefixed` (``count`` records of an i32 length, that many
bytes and a fixed tail, checked record by record so the error names the first bad one).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from ..errors import CorruptFileError

if TYPE_CHECKING:  # numpy is imported by the bulk primitives only (a slow import)
    import numpy as np

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

    def unpack(self, st: struct.Struct, field: str) -> tuple[Any, ...]:
        """The fields of one ``struct`` (checked once for all of them)."""
        self.need(st.size, field)
        v = st.unpack_from(self._data, self.pos)
        self.pos += st.size
        return v

    def _record_area(self, count: int, size: int, field: str, limit: int | None) -> int:
        """Check that ``count`` records of ``size`` bytes fit before ``limit``; their byte count."""
        end = len(self._data) if limit is None else limit
        if count < 0:
            raise self.error(field, "a non-negative count", count)
        n = count * size
        if n > end - self.pos:
            raise self.error(field, f"{count} entries of {size} bytes", f"{end - self.pos} bytes left",
                             detail="truncated")
        return n

    def records(self, dtype: np.dtype[Any], count: int, field: str, limit: int | None = None) -> np.ndarray[Any, Any]:
        """``count`` records of a numpy ``dtype`` (a read-only view of the buffer), checked once.

        ``limit`` (default: the buffer end) is where the records must end by.
        """
        import numpy as np

        n = self._record_area(count, dtype.itemsize, field, limit)
        out = np.frombuffer(self._data, dtype, count, self.pos)
        self.pos += n
        return out

    def tuples(self, st: struct.Struct, count: int, field: str, limit: int | None = None) -> list[tuple[Any, ...]]:
        """``count`` records of one ``struct`` as tuples, checked once (no numpy: for a few records)."""
        n = self._record_area(count, st.size, field, limit)
        out = list(st.iter_unpack(self._view[self.pos:self.pos + n]))
        self.pos += n
        return out

    def length_prefixed(self, count: int, tail: int, field: str, limit: int | None = None) -> list[int]:
        """``count`` records of (i32 length ``n``, ``n`` bytes, ``tail`` bytes): where each record starts.

        Record ``i``'s bytes are ``data[starts[i] + 4:starts[i + 1] - tail]`` (the last ends at
        the new position). Every length is checked against ``limit`` (default: the buffer end);
        the first bad one raises, naming ``field[i].length`` and its offset.
        """
        data = self._data
        end = len(data) if limit is None else limit
        pos = self.pos
        starts: list[int] = []
        append = starts.append
        unpack = _I32.unpack_from
        for i in range(count):
            if pos + 4 > end:
                raise self.error(f"{field}[{i}].length", "4 more bytes", f"{end - pos} left",
                                 detail="truncated", at=pos)
            n = unpack(data, pos)[0]
            if n < 0 or n > end - pos - 4 - tail:
                raise self.error(f"{field}[{i}].length", f"a length within the {end - pos - 4 - tail} bytes left",
                                 n, at=pos)
            append(pos)
            pos += 4 + n + tail
        self.pos = pos
        return starts

    def utf(self, field: str, memo: dict[bytes, str] | None = None) -> str:
        """Java ``DataInput.readUTF``: u16 length, then modified UTF-8.

        ``memo`` remembers decoded texts by their bytes (for names repeated in every record).
        """
        start = self.pos
        n = self.u16(field + ".length")
        raw = self.raw(n, field)
        if memo is not None and (text := memo.get(raw)) is not None:
            return text
        try:
            text = decode_modified_utf8(raw)
        except UnicodeDecodeError as e:
            raise self.error(field, "modified UTF-8", raw[:32].hex(), detail=str(e), at=start) from None
        if memo is not None:
            if len(memo) >= 4096:
                memo.clear()
            memo[raw] = text
        return text

    def sub(self, start: int, length: int, field: str) -> ByteReader:
        """A reader over ``[start, start + length)`` of this buffer (offsets stay file offsets)."""
        if start < 0 or length < 0 or start + length > len(self._data):
            raise self.error(field, f"a range inside 0..{len(self._data)}", f"[{start}, {start + length})",
                             at=self.pos)
        return ByteReader(self._view[start:start + length], self.path, self.base + start)
