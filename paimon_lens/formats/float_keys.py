"""Sort keys of FLOAT and DOUBLE index keys: IEEE-754 bits <-> ints ordered like Java's ``compare``.

Paimon's bitmap (V2) and range-bitmap indexes store a float key as its IEEE-754 bits
(``Float.floatToIntBits`` / ``Double.doubleToLongBits``: 4 or 8 bytes, big-endian) and order the
keys by ``Float.compare`` / ``Double.compare``: ``-inf < ... < -0.0 < 0.0 < ... < inf < NaN``,
every NaN equal. Both decoders hold such a key as a *sort key*, a Python ``int`` that compares
exactly that way. For a width of ``w`` bits (32 or 64), with ``s`` the bits read as a signed
``w``-bit integer and ``u`` the same bits read unsigned::

    NaN (any payload, either sign)   -> the canonical NaN bits first:
                                        0x7FC00000 (w = 32), 0x7FF8000000000000 (w = 64)
    sign bit clear (s >= 0)          key = s                 (+0.0, positives, +inf, NaN)
    sign bit set   (s < 0)           key = s ^ (2**(w-1) - 1) = (2**(w-1) - 1) - u
                                         = -(u - 2**(w-1)) - 1

so ``-0.0`` is ``-1``, larger magnitudes of negative floats are smaller keys, and the keys of the
positive floats are their bits. The inverse gives the signed bits back:
``bits = key if key >= 0 else key ^ (2**(w-1) - 1)`` (``& (2**w - 1)`` for the unsigned form).

:func:`f32_key` / :func:`f64_key` take the bits in either form (``struct`` formats ``i``/``I``,
``q``/``Q``); the range-bitmap dictionary reads them signed, the bitmap index unsigned.
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

F32_CANONICAL_NAN = 0x7FC00000
F64_CANONICAL_NAN = 0x7FF8000000000000
#: XOR masks between the signed bits of a negative float and its sort key
F32_MASK = 0x7FFFFFFF
F64_MASK = 0x7FFFFFFFFFFFFFFF

_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


def f32_key(bits: int) -> int:
    """Float32 bits, signed or unsigned, -> the sort key (``Float.compare`` order, NaN canonical)."""
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:
        return F32_CANONICAL_NAN
    if bits < 0:
        return bits ^ F32_MASK
    return bits if bits < 0x80000000 else F32_MASK - bits


def f64_key(bits: int) -> int:
    """Float64 bits, signed or unsigned, -> the sort key (``Double.compare`` order, NaN canonical)."""
    if (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and bits & 0x000FFFFFFFFFFFFF:
        return F64_CANONICAL_NAN
    if bits < 0:
        return bits ^ F64_MASK
    return bits if bits < 0x8000000000000000 else F64_MASK - bits


def f32_bits(key: int) -> int:
    """A float32 sort key -> its signed IEEE bits (the inverse of :func:`f32_key`)."""
    return key if key >= 0 else key ^ F32_MASK


def f64_bits(key: int) -> int:
    """A float64 sort key -> its signed IEEE bits (the inverse of :func:`f64_key`)."""
    return key if key >= 0 else key ^ F64_MASK


def float32_key(value: float) -> int:
    """The sort key of a Python float rounded to float32 (beyond float32's range: signed infinity)."""
    try:
        packed = _F32.pack(value)
    except OverflowError:
        packed = _F32.pack(math.copysign(math.inf, value))
    return f32_key(_I32.unpack(packed)[0])


def float64_key(value: float) -> int:
    """The sort key of a Python float (a double)."""
    return f64_key(_I64.unpack(_F64.pack(value))[0])


def key_float32(key: int) -> float:
    """The float32 value of a sort key (as a Python float)."""
    value: float = _F32.unpack(_I32.pack(key if key >= 0 else key ^ F32_MASK))[0]  # f32_bits, inlined
    return value


def key_float64(key: int) -> float:
    """The double value of a sort key."""
    value: float = _F64.unpack(_I64.pack(key if key >= 0 else key ^ F64_MASK))[0]  # f64_bits, inlined
    return value


def bits_array(keys: npt.NDArray[np.int64], mask: int) -> npt.NDArray[np.int64]:
    """Vectorised :func:`f32_bits` (``mask`` :data:`F32_MASK`) or :func:`f64_bits` (:data:`F64_MASK`).

    ``keys`` is an int64 array of sort keys; the result holds their signed bits as int64.
    """
    import numpy as np

    return np.where(keys >= 0, keys, keys ^ mask)
