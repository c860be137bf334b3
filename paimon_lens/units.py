"""Human units for paimon-lens output: ``1.5 KiB``, ``1,234`` rows, ``1.23 %`` (no pandas needed).

:func:`column_unit` tells the unit of a frame column from its name, the way paimon-lens names
columns (see :mod:`paimon_lens.presentation.lens_frame`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

MAX_CELL = 120
"""Characters shown of one cell."""

MAX_ROWS = 40
"""Rows of a frame shown before it is cut to its head and tail."""

_BYTES_NAMES = frozenset({"bytes", "file_size", "index_size", "data_bytes", "savings_score"})
_COUNT_NAMES = frozenset({"row_count", "rows", "cardinality", "files", "estimated_items", "bits_set", "num_bits"})
_PERCENT_NAMES = frozenset({"false_positive_probability", "fpp"})
_VALUE_NAMES = frozenset({"value", "min", "max"})


def human_bytes(n: float | None) -> str:
    """``1536`` -> ``1.5 KiB`` (binary units); ``None`` -> ``-``."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "-"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns


def human_count(n: float | None) -> str:
    """``1234567`` -> ``1,234,567``; floats keep up to two decimals."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "-"
    if float(n).is_integer():
        return f"{int(n):,}"
    return f"{n:,.2f}"


def human_percent(x: float | None) -> str:
    """``0.0123`` -> ``1.23 %``; tiny ratios keep three significant digits (``1e-06`` -> ``0.0001 %``)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    p = 100.0 * float(x)
    if p == 0:
        return "0 %"
    if abs(p) >= 0.01:
        return f"{p:.2f} %"
    return f"{p:.3g} %"


def column_unit(name: str) -> str | None:
    """``"bytes"``, ``"percent"``, ``"count"``, ``"value"`` or ``None`` for a column name (see the module docs)."""
    n = str(name)
    if n.endswith(")") and "(" in n:  # the files frame's min(col), max(col), null_count(col)
        base = n.split("(", 1)[0]
        return "value" if base in ("min", "max") else column_unit(base)
    if n in _PERCENT_NAMES or n.endswith("_ratio") or n.endswith("_fpp"):
        return "percent"
    if n in _BYTES_NAMES or n.endswith("_bytes") or "_bytes_" in n or n.startswith("bytes_"):
        return "bytes"
    if (n in _COUNT_NAMES or n.endswith(("_rows", "_count", "_files")) or n.startswith(("rows_", "files_"))
            or "_rows_" in n or "_files_" in n):
        return "count"
    if n in _VALUE_NAMES:
        return "value"
    return None


_FORMATTERS: dict[str, Callable[[Any], str]] = {
    "bytes": human_bytes, "percent": human_percent, "count": human_count,
}


def is_number(v: Any) -> bool:
    """A real number that is not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def format_cell(value: Any, unit: str | None = None) -> str:
    """One cell as display text (never longer than :data:`MAX_CELL` characters).

    A missing cell is empty, except in a column of table values (``value``, ``min``, ``max``),
    where it is the SQL ``NULL`` it stands for.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or _is_missing(value):
        text = "NULL" if unit == "value" else ""
    elif unit == "value":
        text = str(value)
    elif unit is not None and is_number(value):
        text = _FORMATTERS[unit](value)
    elif isinstance(value, bytes):
        text = "0x" + value.hex()
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={format_cell(v)}" for k, v in value.items())
    elif isinstance(value, float) and math.isfinite(value):  # 5 not 5.0, 0.3333 not 0.3333333333333333
        text = f"{value:,.0f}" if value.is_integer() or abs(value) >= 1000 else f"{value:.4g}"
    else:
        text = str(value)
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return text


def _is_missing(value: Any) -> bool:
    """pandas' NA and NaT, recognised without importing pandas."""
    name = type(value).__name__
    return name in ("NAType", "NaTType")
