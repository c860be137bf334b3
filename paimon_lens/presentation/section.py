"""A section of the tuning report (and of the explorer's tabs): its model, and running its parts so
that one failure becomes a message in the section instead of stopping the report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import PaimonLensError
from .blocks import Block, block_dict


@dataclass
class Section:
    """One part of the report: a title, facts, blocks (:mod:`.blocks`: data with an HTML and a JSON
    rendering), plots and the problems found."""

    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)
    plots: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    collapsed: bool = False
    """Shown folded in the report (the inventory after findings and advice); problems stay visible."""
    urgent: bool = False
    """The section shows something to act on (the report moves it up, next to the findings)."""

    def to_dict(self) -> dict[str, Any]:
        """The section as data (``report --format json``): its blocks as :func:`.blocks.block_dict`
        gives them, its plots by title with their SVG as a ``data:`` URI."""
        return {"key": self.key, "title": self.title, "facts": [{"term": k, "text": v} for k, v in self.facts],
                "blocks": [block_dict(b) for b in self.blocks],
                "plots": [{"title": t, "svg_data_uri": uri} for t, uri in self.plots],
                "problems": list(self.errors), "collapsed": self.collapsed, "urgent": self.urgent}


def guarded(section: Section, what: str, fn: Callable[[], None]) -> None:
    """Run one part of a section; a failure becomes a message in the section, not an exception."""
    try:
        fn()
    except PaimonLensError as e:
        section.errors.append(f"{what}: {e}")
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:  # bad input must not stop the report
        section.errors.append(f"{what}: {type(e).__name__}: {e}")


def plot(section: Section, title: str, make: Callable[[], Any]) -> None:
    """Add the figure ``make()`` draws to the section (as an SVG data URI); a failure becomes a message."""
    from .plots import figure_data_uri

    def run() -> None:
        fig = make()
        section.plots.append((title, figure_data_uri(fig)))

    guarded(section, f"plot '{title}'", run)


def escape(text: str) -> str:
    """``text`` escaped for HTML (table-derived strings reach HTML only through this or the templates)."""
    import html

    return html.escape(str(text))
