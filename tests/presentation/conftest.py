"""Presentation tests use the sample tables by their README paths (``data/...``): run them from the repo root."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="package")
def _repo_root() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        yield
