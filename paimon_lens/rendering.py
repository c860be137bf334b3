"""HTML renderers of result objects, provided by the presentation layer.

Results are data: an :class:`~paimon_lens.pruning.explain.ExplainReport` knows its verdicts, not
how a notebook shows them. Its ``_repr_html_`` asks this registry for the renderer the
presentation layer registered for its class, given as ``"module:function"`` and imported on first
use, so that no service imports the presentation (see ``ARCHITECTURE.md``).
"""

from __future__ import annotations

import importlib
from typing import Any

_HTML: dict[str, str] = {}


def register_html(class_path: str, renderer: str) -> None:
    """Render instances of ``class_path`` (``"module.Class"``) with ``renderer`` (``"module:function"``,
    a function of the object returning an HTML string)."""
    _HTML[class_path] = renderer


def render_html(obj: Any) -> str | None:
    """The HTML of ``obj`` by the renderer registered for its class (or a base class); None without one."""
    for cls in type(obj).__mro__:
        target = _HTML.get(f"{cls.__module__}.{cls.__qualname__}")
        if target is not None:
            module, _, function = target.partition(":")
            html: str = getattr(importlib.import_module(module), function)(obj)
            return html
    return None
