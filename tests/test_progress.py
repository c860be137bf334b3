"""Progress bars: only for long work, off with --no-progress / set_progress(False) / PAIMON_LENS_PROGRESS=0."""

from __future__ import annotations

import pytest

import paimon_lens.progress as progress_module
from paimon_lens.presentation.cli import build_parser, main
from paimon_lens.progress import progress, progress_enabled, set_progress


def test_off_and_on() -> None:
    items = [1, 2, 3]
    assert progress(items, desc="x", enabled=False) is items
    try:
        set_progress(False)
        assert progress(items, desc="x") is items
        set_progress(True)
        bar = progress(items, desc="x")
        assert bar is not items and list(bar) == items
    finally:
        set_progress(None)


def test_environment_turns_bars_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIMON_LENS_PROGRESS", "0")
    items = [1]
    assert progress(items, desc="x") is items
    assert progress(items, desc="x", enabled=True) is not items  # a call's own choice wins


def test_long_work_shows_a_bar_on_stderr_and_no_progress_hides_it(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(progress_module, "DELAY", 0.0)  # every piece of work counts as long
    monkeypatch.delenv("PAIMON_LENS_PROGRESS", raising=False)
    assert main(["indexes", "data/events20", "--format", "json"]) == 0
    assert "decoding file indexes" in capsys.readouterr().err
    assert main(["indexes", "data/events20", "--format", "json", "--no-progress"]) == 0
    assert "decoding file indexes" not in capsys.readouterr().err
    assert progress_enabled() is None  # the CLI's switch does not outlive the command


def test_every_command_takes_no_progress() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert all("--no-progress" in sub.format_help() for sub in commands.values())
