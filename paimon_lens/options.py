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


def option_true(options: dict[str, str], key: str, default: bool = False) -> bool:
    """A boolean table option (``"true"``, any case and blanks; ``default`` when unset)."""
    raw = options.get(key)
    return default if raw is None else raw.strip().lower() == "true"


def memory_option(options: dict[str, str], key: str, default: int) -> int:
    """The memory-size option ``key`` in bytes (``default`` when unset).

    Raises:
        ValueError: the option is set to something that is not a memory size (Paimon refuses it too).
    """
    raw = options.get(key)
    if raw is None:
        return default
    try:
        return parse_memory_size(raw)
    except ValueError as e:
        raise ValueError(f"table option {key} = {raw!r}: {e}") from None


DEFAULT_TARGET_FILE_SIZE = {True: 128 << 20, False: 256 << 20}
"""Paimon's ``target-file-size`` default: 128 MB for primary-key tables, 256 MB for append tables."""

SMALL_FILE_DIVISOR = 8
"""A data file is *small* below ``target-file-size / SMALL_FILE_DIVISOR`` (findings, health, history)."""


def target_file_size(options: dict[str, str], primary_key: bool) -> int:
    """The table's ``target-file-size`` in bytes (Paimon's default when unset)."""
    raw = options.get("target-file-size")
    return parse_memory_size(raw) if raw else DEFAULT_TARGET_FILE_SIZE[primary_key]


def configured_indexes(options: dict[str, str]) -> list[str]:
    """The file indexes the options configure, as ``type(column)`` labels in option order
    (``file-index.<type>.columns``; a malformed list is read as far as it names columns)."""
    out: list[str] = []
    for key, value in options.items():
        if key.startswith("file-index.") and key.endswith(".columns"):
            index_type = key[len("file-index."):-len(".columns")]
            out += [f"{index_type}({c.strip()})" for c in value.split(",") if c.strip()]
    return out
