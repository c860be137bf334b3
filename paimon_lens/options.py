"""Paimon option values: memory sizes (``MemorySize.parse``).

Index options carry sizes as text (``file-index.bitmap.<col>.index-block-size = 16kb``,
``range-bitmap`` ``chunk-size``, ``file-index.in-manifest-threshold``); Paimon reads them with
``MemorySize.parse``: digits, optional blanks, an optional unit of powers of 1024, case-insensitive.
"""

from __future__ import annotations

import re

_UNITS = {
    "": 1, "b": 1, "bytes": 1,
    "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}
_SIZE = re.compile(r"\s*(\d+)\s*([A-Za-z]*)\s*")


def parse_memory_size(text: str | int) -> int:
    """Paimon's ``MemorySize.parse``: ``"64b"``, ``"16kb"``, ``"1 mb"``, ``"64"`` -> bytes (an int as is).

    Raises:
        ValueError: not a memory size, or an unknown unit.
    """
    if isinstance(text, int):
        return text
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"not a memory size: {text!r}")
    unit = m.group(2).lower()
    if unit not in _UNITS:
        raise ValueError(f"unknown memory unit {m.group(2)!r} in {text!r}")
    return int(m.group(1)) * _UNITS[unit]
