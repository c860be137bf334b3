"""The host's garbage collector is paused only where that is allowed (metadata/gc_pause.py)."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

import paimon_lens as pl
from paimon_lens.metadata import gc_pause
from paimon_lens.metadata.gc_pause import gc_pause_allowed, gc_paused, set_gc_pause


@pytest.fixture(autouse=True)
def default_setting(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("PAIMON_LENS_GC_PAUSE", raising=False)
    monkeypatch.setattr(gc_pause, "_SETTING", [None])
    yield
    assert gc.isenabled()


def test_a_library_call_leaves_the_hosts_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = gc.disable
    monkeypatch.setattr(gc, "disable", lambda: (seen.append(True), real())[1])
    table = pl.open_table("data/events20")
    table.explain("country = 'DE'", truth=True).summary()
    table.file_indexes()
    assert not gc_pause_allowed() and seen == []


def test_the_host_opts_in_or_out() -> None:
    pl.set_gc_pause(True)
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    pl.set_gc_pause(False)
    with gc_paused():
        assert gc.isenabled()


def test_the_environment_opts_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIMON_LENS_GC_PAUSE", "1")
    with gc_paused():
        assert not gc.isenabled()
    set_gc_pause(False)  # an explicit setting wins
    with gc_paused():
        assert gc.isenabled()


def test_an_engine_worker_pauses_its_own_collector() -> None:
    with gc_paused(own_process=True):
        assert not gc.isenabled()
        with gc_paused(own_process=True):  # nested: only the outermost acts
            assert not gc.isenabled()
        assert not gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused(own_process=True):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_command_pauses_in_its_own_process() -> None:
    code = ("import gc, sys; from paimon_lens.presentation import cli; from paimon_lens.metadata import gc_pause\n"
            "sys.argv = ['paimon-lens', '--version']\n"
            "try:\n    cli.run()\nexcept SystemExit:\n    pass\n"
            "print(gc_pause.gc_pause_allowed())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "True"
