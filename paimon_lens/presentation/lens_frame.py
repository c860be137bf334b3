"""Rich display of paimon-lens frames: human units in notebooks and terminals.

Every frame paimon-lens returns is a :class:`LensFrame`: a plain :class:`pandas.DataFrame` in all
respects (same data, same dtypes, every pandas operation works and keeps the class) whose
``_repr_html_`` and ``__repr__`` show sizes as ``1.5 KiB``, ratios as percentages and counts with
thousands separators. The units come from the column names, the way paimon-lens names them:

==================  ===============================================================
unit                columns
==================  ===============================================================
bytes               ``bytes``, ``file_size``, ``index_size``, ``*_bytes``
percentage          ``*_ratio``, ``false_positive_probability``, ``*_fpp``
count               ``row_count``, ``rows``, ``*_rows``, ``*_count``, ``cardinality``,
                    ``files``, ``*_files``, ``estimated_items``, ``bits_set``, ``num_bits``
==================  ===============================================================

The underlying numbers are never changed: ``frame["file_size"].sum()`` is still bytes. Cells are
escaped (table values are untrusted) and long frames are shown head and tail only.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ..errors import PaimonLensError
from ..units import MAX_CELL, MAX_ROWS, column_unit, format_cell, human_bytes, human_count, human_percent, is_number

__all__ = ["LensFrame", "column_unit", "format_cell", "frame_html", "frame_text", "human_bytes", "human_count",
           "human_percent", "lens_frame", "records_frame"]


def _shown(frame: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, int | None]:
    """The rows to show and, when cut, the position of the ``…`` row."""
    if len(frame) <= max_rows:
        return frame, None
    half = max_rows // 2
    return pd.concat([frame.iloc[:half], frame.iloc[-half:]]), half


def _caption(frame: pd.DataFrame) -> str:
    parts = [f"{len(frame):,} rows × {len(frame.columns)} columns"]
    # a total only where rows are distinct files (or a file's indexes): a sum over funnel stages
    # or per-query means would mean nothing
    for col in ("file_size", "bytes"):
        if (col in frame.columns and "file_name" in frame.columns
                and pd.api.types.is_numeric_dtype(frame[col])):
            parts.append(f"{human_bytes(float(frame[col].sum()))} in {col}")
            break
    return " · ".join(parts)


_STYLE = (
    "<style>.paimon-lens-frame{overflow-x:auto;max-width:100%}"
    ".paimon-lens-frame table{border-collapse:collapse;font:12px/1.35 system-ui,sans-serif}"
    ".paimon-lens-frame th,.paimon-lens-frame td{border-bottom:1px solid #e3e3e3;padding:2px 7px;"
    "text-align:left;white-space:nowrap;max-width:36em;overflow:hidden;text-overflow:ellipsis}"
    ".paimon-lens-frame th{background:#f5f5f5;position:sticky;top:0}"
    ".paimon-lens-frame td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".paimon-lens-frame caption{caption-side:bottom;text-align:left;color:#666;font-size:11px}</style>"
)


def frame_html(frame: pd.DataFrame, max_rows: int = MAX_ROWS) -> str:
    """A compact, escaped HTML table of ``frame`` with human units."""
    shown, cut = _shown(frame, max_rows)
    units = [column_unit(c) for c in frame.columns]
    out = [_STYLE, '<div class="paimon-lens-frame"><table><thead><tr>']
    out.extend(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(shown.itertuples(index=False, name=None)):
        if cut is not None and i == cut:
            out.append(f'<tr><td colspan="{len(frame.columns)}">… {len(frame) - len(shown):,} more rows …</td></tr>')
        out.append("<tr>")
        for value, unit in zip(row, units):
            cls = ' class="n"' if is_number(value) else ""
            raw = "" if value is None else str(value)
            title = f' title="{html.escape(raw[:400])}"' if unit is not None or len(raw) > MAX_CELL else ""
            out.append(f"<td{cls}{title}>{html.escape(format_cell(value, unit))}</td>")
        out.append("</tr>")
    out.append(f"</tbody><caption>{html.escape(_caption(frame))}</caption></table></div>")
    return "".join(out)


def frame_text(frame: pd.DataFrame, max_rows: int = MAX_ROWS) -> str:
    """A plain-text rendering of ``frame`` with human units (for terminals)."""
    shown, cut = _shown(frame, max_rows)
    units = [column_unit(c) for c in frame.columns]
    cells = [[str(c) for c in frame.columns]]
    for i, row in enumerate(shown.itertuples(index=False, name=None)):
        if cut is not None and i == cut:
            cells.append(["…"] * len(units))
        cells.append([format_cell(v, u).replace("\n", " ")[:60] for v, u in zip(row, units)])
    if not units:
        return f"Empty {type(frame).__name__}: {len(frame)} rows"
    widths = [max(len(r[i]) for r in cells) for i in range(len(units))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.append(f"[{_caption(frame)}]")
    return "\n".join(lines)


class LensFrame(pd.DataFrame):
    """A :class:`pandas.DataFrame` that displays with human units (see the module docs)."""

    @property
    def _constructor(self) -> type[LensFrame]:
        return LensFrame

    def _repr_html_(self) -> str:
        return frame_html(self)

    def __repr__(self) -> str:
        return frame_text(self)

    def to_pandas(self) -> pd.DataFrame:
        """The same data as a plain :class:`pandas.DataFrame` (pandas' own display)."""
        return pd.DataFrame(self)


def lens_frame(frame: pd.DataFrame) -> LensFrame:
    """``frame`` as a :class:`LensFrame` (no copy of the data)."""
    if isinstance(frame, LensFrame):
        return frame
    return LensFrame(frame)


def records_frame(records: Iterable[Mapping[str, Any]], columns: Iterable[str]) -> LensFrame:
    """A frame of one row per record with the declared ``columns`` in order (a record's other
    fields are left out, a field one record lacks is empty in its row): the one converter from a
    service's records to a frame.

    Raises :class:`PaimonLensError` when records exist but none has one of the columns: the frame
    and the records it is declared over no longer agree.
    """
    rows = records if isinstance(records, list) else list(records)
    names = list(columns)
    if rows:
        missing = [c for c in names if not any(c in r for r in rows)]
        if missing:
            raise PaimonLensError(f"frame columns without a field in its records: {missing}")
    return LensFrame(rows, columns=names)
