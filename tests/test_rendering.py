"""The registry through which an answer finds the presentation function that shows it."""

from __future__ import annotations

import pytest

import paimon_lens  # noqa: F401  (registers the package's views)
from paimon_lens.rendering import register_view, registered_views, render, render_html


class Answer:
    """A stand-in for a service's answer."""

    def __init__(self, rows: list[int]) -> None:
        self.rows = rows


class NarrowerAnswer(Answer):
    pass


def shown(answer: Answer, prefix: str = "rows") -> str:
    return f"{prefix}: {answer.rows}"


HERE = f"{__name__}"


def test_a_view_is_found_by_class_and_takes_the_views_arguments() -> None:
    register_view(f"{HERE}.Answer", "text", f"{HERE}:shown")
    assert render(Answer([1, 2]), "text") == "rows: [1, 2]"
    assert render(Answer([3]), "text", prefix="n") == "n: [3]"
    assert render(NarrowerAnswer([4]), "text") == "rows: [4]"  # a base class's view serves a subclass


def test_a_missing_view_is_named_and_html_is_optional() -> None:
    with pytest.raises(LookupError, match="no 'nothing' view registered for Answer"):
        render(Answer([]), "nothing")
    assert render_html(Answer([])) is None  # a notebook then shows the object's repr


def test_the_package_registers_the_frames_of_its_answers() -> None:
    views = registered_views()
    assert views[("paimon_lens.advisor.advise.Advice", "frame")] == (
        "paimon_lens.presentation.result_frames:advice_frame")
    assert ("paimon_lens.pruning.explain.ExplainReport", "html") in views
