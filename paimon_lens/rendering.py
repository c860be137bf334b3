"""Views of result objects (frames, HTML), provided by the presentation layer.

Results are data: an :class:`~paimon_lens.advisor.advise.Advice` knows its recommendations, not
how a notebook shows them. Its ``frame()`` and ``_repr_html_`` ask this registry for the view the
presentation layer registered for its class (``paimon_lens/presentation/views.py:VIEWS``), given as
``"module:function"`` and imported on first use, so that no service imports the presentation (see
``ARCHITECTURE.md``). ``tests/test_architecture.py`` checks that every registered view resolves.
"""

from __future__ import annotations

import importlib
from typing import Any

_VIEWS: dict[tuple[str, str], str] = {}


def register_view(class_path: str, view: str, renderer: str) -> None:
    """Show instances of ``class_path`` (``"module.Class"``) as ``view`` (``"frame"``, ``"html"`` ...)
    with ``renderer`` (``"module:function"``, a function of the object and the view's arguments)."""
    _VIEWS[(class_path, view)] = renderer


def registered_views() -> dict[tuple[str, str], str]:
    """Every registered ``(class path, view) -> "module:function"``."""
    return dict(_VIEWS)


def _renderer(obj: Any, view: str) -> Any:
    for cls in type(obj).__mro__:
        target = _VIEWS.get((f"{cls.__module__}.{cls.__qualname__}", view))
        if target is not None:
            module, _, function = target.partition(":")
            return getattr(importlib.import_module(module), function)
    return None


def render(obj: Any, view: str, *args: Any, **kwargs: Any) -> Any:
    """``obj`` as ``view``, by the renderer registered for its class (or a base class).

    Raises :class:`LookupError` when none is registered (``import paimon_lens`` registers them all).
    """
    renderer = _renderer(obj, view)
    if renderer is None:
        raise LookupError(f"no {view!r} view registered for {type(obj).__qualname__} "
                          "(paimon_lens/presentation/views.py registers them on `import paimon_lens`)")
    return renderer(obj, *args, **kwargs)


def render_html(obj: Any) -> str | None:
    """The HTML of ``obj`` by the renderer registered for its class (or a base class); None without one."""
    renderer = _renderer(obj, "html")
    if renderer is None:
        return None
    html: str = renderer(obj)
    return html
