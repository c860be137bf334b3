"""The bucket Paimon assigns to a row: ``DefaultBucketFunction`` and the ``mod`` bucket function.

The default function serialises the bucket-key values of a row into a ``BinaryRow`` and takes
``Math.abs(row.hashCode() % numBuckets)``, where ``BinaryRow.hashCode`` is Murmur3-32 (seed 42)
over the row bytes read as little-endian 32-bit words (``MurmurHashUtils.hashBytesByWords``),
finalised with the byte length::

    row bytes (null bits + fixed part + variable part, no arity prefix), length % 4 == 0
    h = 42; for each <I word k: k *= 0xCC9E2D51; k = rotl(k, 15); k *= 0x1B873593
                                 h ^= k; h = rotl(h, 13); h = h * 5 + 0xE6546B64
    h ^= length; fmix32(h) -> signed 32-bit

The ``mod`` function (``bucket-function.type = mod``, one INT/BIGINT key) is ``floorMod(key, n)``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from ..types import DataField
from .binary_row import encode_binary_row

_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def murmur_words(data: bytes, seed: int = 42) -> int:
    """``MurmurHashUtils.hashBytesByWords``: Murmur3-32 over 4-byte little-endian words (signed result)."""
    if len(data) % 4:
        raise ValueError("hashBytesByWords needs a length that is a multiple of 4")
    h = seed
    for (k,) in struct.iter_unpack("<I", data):
        k = (k * 0xCC9E2D51) & _M32
        k = _rotl(k, 15)
        k = (k * 0x1B873593) & _M32
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _M32
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def binary_row_hash(values: Sequence[Any], fields: Sequence[DataField]) -> int:
    """``BinaryRow.hashCode()`` of a row holding ``values`` (internal form) for ``fields``."""
    row = encode_binary_row(values, [f.type for f in fields])[4:]  # drop the serialised arity
    return murmur_words(row)


def java_mod(a: int, n: int) -> int:
    """Java's ``a % n`` (the sign follows ``a``)."""
    r = abs(a) % abs(n)
    return -r if a < 0 else r


def bucket_of(values: Sequence[Any], fields: Sequence[DataField], num_buckets: int,
              function: str = "default") -> int:
    """The bucket Paimon assigns to a row whose bucket-key columns hold ``values``."""
    if function == "mod":
        return int(values[0]) % num_buckets  # Math.floorMod
    return abs(java_mod(binary_row_hash(values, fields), num_buckets))
