"""HASH index files: the key hash codes of one dynamic bucket (``HashIndexFile``).

Tables with dynamic bucket mode (``bucket = -1`` with a primary key) keep, per partition and
bucket, an index file (``index/index-<uuid>-<n>``, index type ``HASH``) listing the hash code of
every primary key assigned to that bucket, so a writer can route a known key back to its bucket.

Layout (``IntFileUtils.writeInts``), no header, no footer::

    hash:i32 BE  x row_count      file size = 4 * row_count

``row_count`` is the index manifest's ``_ROW_COUNT`` for the entry. Paimon's reader stops at the
first incomplete int and silently drops up to 3 trailing bytes; this module reports them as
:class:`~paimon_lens.errors.CorruptFileError` (``file size`` not a multiple of 4).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CorruptFileError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

HASH_INDEX = "HASH"
_BE_INT32 = ">i4"  # numpy dtype string; numpy is imported when a HASH index is decoded


@dataclass(frozen=True, eq=False)
class HashIndex:
    """Decoded HASH index file.

    Attributes:
        hashes: the key hash codes in file order (read-only ``int32`` array).
        count: number of hash codes (``_ROW_COUNT`` of the index-manifest entry).
        distinct_count: number of different hash codes (keys whose hashes collide count once).
        path: the file the codes were read from, if known.
    """

    hashes: npt.NDArray[np.int32]
    count: int
    distinct_count: int
    path: str | None = None

    @property
    def duplicate_count(self) -> int:
        """Hash codes that repeat an earlier one (``count - distinct_count``)."""
        return self.count - self.distinct_count

    def to_list(self) -> list[int]:
        """The hash codes as Python ints, in file order."""
        return [int(v) for v in self.hashes.tolist()]

    def __contains__(self, hash_code: object) -> bool:
        if not isinstance(hash_code, int) or not -(1 << 31) <= hash_code < (1 << 31):
            return False
        return bool((self.hashes == hash_code).any())


def read_hash_index(data: bytes, path: str | None = None, expected_count: int | None = None) -> HashIndex:
    """Decode a HASH index file.

    Args:
        data: the whole file.
        path: file name for error messages.
        expected_count: the index manifest's row count for this file; checked when given.
    """
    if len(data) % 4:
        whole = len(data) - len(data) % 4
        raise CorruptFileError(path, whole, f"hash[{whole // 4}]", "4 bytes",
                               f"{len(data) % 4} bytes", detail="file size is not a multiple of 4")
    count = len(data) // 4
    if expected_count is not None and expected_count != count:
        raise CorruptFileError(path, None, "row_count", f"{expected_count} hash codes "
                               f"({4 * expected_count} bytes)", f"{count} ({len(data)} bytes)",
                               detail="file size disagrees with the index manifest row count")
    import numpy as np

    hashes = np.frombuffer(data, dtype=_BE_INT32).astype(np.int32)
    hashes.flags.writeable = False
    distinct = int(np.unique(hashes).size)
    return HashIndex(hashes=hashes, count=count, distinct_count=distinct, path=path)


def write_hash_index(hashes: Iterable[int]) -> bytes:
    """Serialize hash codes the way ``HashIndexFile.write`` does (big-endian int32 each).

    Raises ``ValueError`` for values outside the int32 range.
    """
    values = list(hashes)
    for v in values:
        if not -(1 << 31) <= v < (1 << 31):
            raise ValueError(f"hash code {v} is not a 32-bit signed int")
    import numpy as np

    return np.asarray(values, dtype=np.int64).astype(_BE_INT32).tobytes()
