"""Text fields of verdicts written on first read.

A planner removes most files of a large table with a reason that quotes their stats (``stats: id =
7 outside [10, 90]``); formatting those values for thousands of files nobody looks at costs a
quarter of a warm explain. :class:`LazyText` is a dataclass field's class attribute that lets the
instance hold either the text or a function returning it: the function runs on the first read
and the text replaces it, so equality, ``repr``, ``dataclasses.replace`` and pickling see text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class LazyText:
    """A data descriptor for a ``str`` dataclass field whose instance value may be a function
    (``() -> str``) until first read. Install it after the ``@dataclass`` decorator:
    ``Cls.field = LazyText("field")``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name]
        if callable(value):
            value = value()
            obj.__dict__[self.name] = value
        return value

    def __set__(self, obj: Any, value: str | Callable[[], str]) -> None:
        obj.__dict__[self.name] = value


def resolved(state: dict[str, Any], *names: str) -> dict[str, Any]:
    """``state`` (an instance ``__dict__``) with the fields ``names`` written out (for pickling)."""
    out = dict(state)
    for name in names:
        value = out.get(name)
        if callable(value):
            out[name] = value()
    return out
