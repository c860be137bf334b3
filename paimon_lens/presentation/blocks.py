"""What a report section shows, as data: typed blocks, each with an HTML and a JSON rendering.

A :class:`~.section.Section` holds blocks, not HTML. The HTML report renders them with
:func:`block_html` (every text escaped here, from the table or not); ``report --format json`` and
:meth:`~.report.TuningReport.to_dict` give them as data with :func:`block_dict`, each a
``{"type": ...}`` object:

* ``paragraph`` / ``heading``: ``text``, and ``runs`` (``{"text", "code"}``: inline code marked);
* ``table``: ``columns``, ``rows`` (JSON values; ``max_rows`` of them at most), ``total_rows``;
* ``definitions``: ``items`` of ``{"term", "text"}``;
* ``statements``: ``lines`` of SQL, each without its ``;``;
* ``details``: ``summary`` and the folded ``blocks``;
* ``findings``: ``items`` of ``{"title", "kind", "evidence", "impact", "fix", "statements"}``;
* ``causes``: ``items`` of ``{"query", "text", "causes"}`` (why a query reads more than before).
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..units import MAX_ROWS

Block = Any
"""One of the block classes of this module."""


@dataclass(frozen=True)
class Code:
    """A run of inline code in a paragraph or heading."""

    text: str


Run = str | Code


def _runs_html(runs: Sequence[Run]) -> str:
    return "".join(f"<code>{html.escape(r.text)}</code>" if isinstance(r, Code) else html.escape(r) for r in runs)


def _runs_dict(runs: Sequence[Run]) -> dict[str, Any]:
    return {"text": "".join(r.text if isinstance(r, Code) else r for r in runs),
            "runs": [{"text": r.text, "code": True} if isinstance(r, Code) else {"text": r, "code": False}
                     for r in runs]}


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of text and inline code (``small``: a side note)."""

    runs: tuple[Run, ...]
    small: bool = False


def paragraph(*runs: Run, small: bool = False) -> Paragraph:
    """A :class:`Paragraph` of ``runs`` (strings and :class:`Code`)."""
    return Paragraph(tuple(runs), small)


@dataclass(frozen=True)
class Heading:
    """A heading inside a section."""

    runs: tuple[Run, ...]


def heading(*runs: Run) -> Heading:
    """A :class:`Heading` of ``runs``."""
    return Heading(tuple(runs))


@dataclass(frozen=True)
class Frame:
    """A frame shown as a table (``max_rows`` of its rows at most, with units in HTML)."""

    frame: Any
    max_rows: int = MAX_ROWS


@dataclass(frozen=True)
class Definitions:
    """Terms and what they mean."""

    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Statements:
    """SQL statements to run, in order (each without its ``;``)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Details:
    """Blocks folded under a summary line."""

    summary: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class FindingItem:
    """One finding as the report lists it (``impact`` None where the finding states none)."""

    title: str
    kind: str
    evidence: str
    fix: str
    statements: tuple[str, ...] = ()
    impact: str | None = None


@dataclass(frozen=True)
class Findings:
    """Findings, most costly first."""

    items: tuple[FindingItem, ...]


@dataclass(frozen=True)
class Cause:
    """A workload query that reads more than before, and the changes that made it so."""

    query: str
    text: str
    causes: tuple[str, ...]


@dataclass(frozen=True)
class Causes:
    """Queries reading more than before, each with its causes."""

    items: tuple[Cause, ...]


# ---- HTML ---------------------------------------------------------------------------------------

def block_html(block: Block) -> str:
    """The HTML of one block (every text escaped)."""
    if isinstance(block, Paragraph):
        tag = '<p class="small">' if block.small else "<p>"
        return f"{tag}{_runs_html(block.runs)}</p>"
    if isinstance(block, Heading):
        return f"<h3>{_runs_html(block.runs)}</h3>"
    if isinstance(block, Frame):
        from .lens_frame import frame_html

        return frame_html(block.frame, max_rows=block.max_rows)
    if isinstance(block, Definitions):
        return ('<dl class="facts">' + "".join(f"<dt>{html.escape(t)}</dt><dd>{html.escape(d)}</dd>"
                                              for t, d in block.items) + "</dl>")
    if isinstance(block, Statements):
        return "<pre>" + html.escape("".join(f"{line};\n" for line in block.lines)) + "</pre>"
    if isinstance(block, Details):
        return (f"<details><summary>{html.escape(block.summary)}</summary>"
                + "".join(block_html(b) for b in block.blocks) + "</details>")
    if isinstance(block, Findings):
        return '<ol class="findings">' + "".join(_finding_html(f) for f in block.items) + "</ol>"
    if isinstance(block, Causes):
        return '<ul class="causes">' + "".join(
            f"<li><code>{html.escape(c.query)}</code>: {html.escape(c.text)}<ul>"
            + "".join(f"<li>{html.escape(x)}</li>" for x in c.causes) + "</ul></li>" for c in block.items) + "</ul>"
    raise TypeError(f"not a report block: {type(block).__name__}")


def _finding_html(f: FindingItem) -> str:
    statements = "".join(f"{html.escape(st)};\n" for st in f.statements)
    impact = f"<br>Impact: {html.escape(f.impact)}." if f.impact is not None else ""
    return (f'<li class="finding"><b>{html.escape(f.title)}</b> <span class="small">{html.escape(f.kind)}</span>'
            f"<br>{html.escape(f.evidence)}.{impact}<br>Fix: {html.escape(f.fix)}."
            + (f"<pre><code>{statements}</code></pre>" if statements else "") + "</li>")


# ---- JSON ---------------------------------------------------------------------------------------

def block_dict(block: Block) -> dict[str, Any]:
    """The JSON form of one block (see the module docs)."""
    if isinstance(block, Paragraph):
        return {"type": "paragraph", "small": block.small, **_runs_dict(block.runs)}
    if isinstance(block, Heading):
        return {"type": "heading", **_runs_dict(block.runs)}
    if isinstance(block, Frame):
        frame = block.frame
        shown = frame.head(block.max_rows)
        return {"type": "table", "columns": [str(c) for c in frame.columns],
                "rows": [[json_cell(v) for v in row] for row in shown.itertuples(index=False, name=None)],
                "total_rows": len(frame)}
    if isinstance(block, Definitions):
        return {"type": "definitions", "items": [{"term": t, "text": d} for t, d in block.items]}
    if isinstance(block, Statements):
        return {"type": "statements", "lines": list(block.lines)}
    if isinstance(block, Details):
        return {"type": "details", "summary": block.summary, "blocks": [block_dict(b) for b in block.blocks]}
    if isinstance(block, Findings):
        return {"type": "findings", "items": [
            {"title": f.title, "kind": f.kind, "evidence": f.evidence, "impact": f.impact, "fix": f.fix,
             "statements": list(f.statements)} for f in block.items]}
    if isinstance(block, Causes):
        return {"type": "causes", "items": [{"query": c.query, "text": c.text, "causes": list(c.causes)}
                                            for c in block.items]}
    raise TypeError(f"not a report block: {type(block).__name__}")


def json_cell(value: Any) -> Any:
    """A frame cell as a JSON value: numbers, text, booleans, lists and objects as they are; a
    missing value (None, NaN, NaT) null; an infinity ``"Infinity"``/``"-Infinity"``; a time ISO
    text; anything else its text."""
    if value is None or isinstance(value, bool | int | str):
        return str.__str__(value) if isinstance(value, str) and type(value) is not str else value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): json_cell(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_cell(v) for v in value]
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item) and type(value).__module__ == "numpy":
        return json_cell(item())
    if type(value).__name__ in ("NaTType", "NAType"):
        return None
    if isinstance(value, _dt.datetime | _dt.date):
        return value.isoformat()
    isoformat = getattr(value, "isoformat", None)  # pandas Timestamp
    return isoformat() if callable(isoformat) else str(value)
