"""Value and key statistics of a data file, as Paimon 2.0 puts them in a manifest entry.

A manifest entry's ``_VALUE_STATS`` is a ``SimpleStats`` record: ``_MIN_VALUES`` and
``_MAX_VALUES`` are serialized BinaryRows, ``_NULL_COUNTS`` an array of longs. Paimon takes
parquet stats from the file footer (``ParquetSimpleStatsExtractor``) and passes them through the
column's stats collector (``StatsCollectorFactories``):

* mode per column: ``fields.<column>.stats-mode``, else ``metadata.stats-mode`` (default
  ``truncate(16)``); with ``metadata.stats-keep-first-n-columns = N`` (default -1: off) columns
  after the first N without their own mode get ``none``;
* ``none``: no stats (the column is left out of dense stats); ``counts``: null count only;
  ``full``: exact min/max; ``truncate(N)``: strings and binaries cut to N characters/bytes, the
  maximum then incremented at its last possible position so it stays an upper bound
  (``TruncateSimpleColStatsCollector``; no bound found: min/max null);
* ``metadata.stats-dense-store`` (default true): only columns with stats are stored, their names in
  ``_VALUE_STATS_COLS``, which is null when every column has stats;
* what a parquet footer gives Paimon: TIMESTAMP with precision > 6 (INT96) has no min/max; float
  minima of 0.0 read as -0.0 and maxima of -0.0 as +0.0. A column holding NaN gets no min/max here
  (parquet-java drops NaN-polluted bounds; leaving them out is always a safe answer).

Min/max orders: strings by code point (= UTF-8 byte order, as parquet compares), binaries by
unsigned bytes, everything else by value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..metadata.binary_row import encode_binary_row
from ..metadata.options import DEFAULT_STATS_MODE
from ..types import DataField, DataType

KEY_STATS_MODE = "truncate(128)"
_TRUNCATE = re.compile(r"TRUNCATE\((\d+)\)")


@dataclass(frozen=True)
class ColStats:
    """Min, max and null count of one column; ``none`` marks "no stats collected"."""

    min: Any
    max: Any
    null_count: int | None
    none: bool = False


NONE = ColStats(None, None, None, True)


def check_mode(mode: str) -> str:
    """Validate a stats mode (``SimpleColStatsCollector.from``); returns it upper-cased."""
    upper = mode.strip().upper()
    if upper in ("NONE", "COUNTS", "FULL"):
        return upper
    m = _TRUNCATE.fullmatch(upper)
    if not m or int(m.group(1)) <= 0:
        raise ValueError(f"unexpected stats mode {mode!r}: use none, counts, full or truncate(N > 0)")
    return upper


def column_modes(names: Sequence[str], options: dict[str, str]) -> list[str]:
    """The stats mode of each column (``StatsCollectorFactories.createStatsFactories``)."""
    default = check_mode(options.get("metadata.stats-mode", DEFAULT_STATS_MODE))
    keep_first = int(options.get("metadata.stats-keep-first-n-columns", "-1"))
    out: list[str] = []
    for count, name in enumerate(names):  # every column counts (no system fields in value stats)
        own = options.get(f"fields.{name}.stats-mode")
        if own is not None:
            out.append(check_mode(own))
        elif 0 <= keep_first <= count:
            out.append("NONE")
        else:
            out.append(default)
    return out


def truncate_max_string(value: str, length: int) -> str | None:
    """An upper bound of ``value`` at most ``length`` characters long, or None if there is none."""
    if len(value) <= length:
        return value
    chars = list(value[:length])
    for i in range(length - 1, -1, -1):
        nxt = ord(chars[i]) + 1
        if nxt <= 0x10FFFF:
            if 0xD800 <= nxt <= 0xDFFF:  # Java would emit a lone surrogate; skip to the next valid one
                nxt = 0xE000
            return "".join(chars[:i]) + chr(nxt)
    return None


def truncate_max_bytes(value: bytes, length: int) -> bytes | None:
    """An upper bound of ``value`` at most ``length`` bytes long, or None if there is none."""
    if len(value) <= length:
        return value
    cut = bytearray(value[:length])
    for i in range(length - 1, -1, -1):
        if cut[i] != 0xFF:
            cut[i] += 1
            return bytes(cut[:i + 1])
    return None


def column_stats(values: Sequence[Any], dtype: DataType, mode: str) -> ColStats:
    """Stats of one column of a file from its internal values (None = null) under ``mode``."""
    if mode == "NONE":
        return NONE
    present = [v for v in values if v is not None]
    nulls = len(values) - len(present)
    if mode == "COUNTS" or not present:
        return ColStats(None, None, nulls)
    r = dtype.root
    if r in ("FLOAT", "DOUBLE"):
        if any(math.isnan(v) for v in present):
            return ColStats(None, None, nulls)
        lo, hi = min(present), max(present)
        return ColStats(-0.0 if lo == 0.0 else lo, 0.0 if hi == 0.0 else hi, nulls)
    if dtype.is_timestamp and (dtype.precision if dtype.precision is not None else 6) > 6:
        return ColStats(None, None, nulls)
    if dtype.is_binary:
        present = [bytes(v) for v in present]
    lo, hi = min(present), max(present)
    m = _TRUNCATE.fullmatch(mode)
    if m and (dtype.is_string or dtype.is_binary):
        n = int(m.group(1))
        bound = truncate_max_string(hi, n) if dtype.is_string else truncate_max_bytes(hi, n)
        if bound is None:
            return ColStats(None, None, nulls)
        lo, hi = lo[:n], bound
    return ColStats(lo, hi, nulls)


def stats_record(stats: Sequence[ColStats], fields: Sequence[DataField], dense: bool) -> tuple[
        list[str] | None, dict[str, Any]]:
    """``(_VALUE_STATS_COLS, SimpleStats record)`` (``SimpleStatsConverter.toBinary``).

    Types are made nullable, as Paimon's converter does.
    """
    if dense:
        kept = [(s, f) for s, f in zip(stats, fields) if not s.none]
        names: list[str] | None = [f.name for _, f in kept]
        if len(kept) == len(fields):
            names = None
    else:
        kept = list(zip(stats, fields))
        names = None
    types = [f.type.copy(True) for _, f in kept]
    return names, {
        "_MIN_VALUES": encode_binary_row([s.min for s, _ in kept], types),
        "_MAX_VALUES": encode_binary_row([s.max for s, _ in kept], types),
        "_NULL_COUNTS": [s.null_count for s, _ in kept],
    }
