"""The fast lane: tests that took :data:`SLOW_SECONDS` or more are marked ``slow``.

``pytest -m "not slow"`` is the loop while working (a few minutes); ``pytest`` runs everything, as
CI does. The slow tests are listed in ``tests/slow_tests.txt``: one node id per line, or a test
file's path, which marks every test of the file (files whose fixtures start a server, a Spark
session, a browser or a virtualenv: the fixture's cost would fall on whichever test comes first).
``pytest --record-slow`` rewrites the node ids from the durations of the run (file lines, and tests
the run did not reach, keep their line; a test not listed runs in the fast lane until the next
recording).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

SLOW_FILE = Path(__file__).with_name("slow_tests.txt")
SLOW_SECONDS = 0.3
_HEADER = "# tests that took 0.3 s or more (setup + call + teardown); regenerate with: pytest --record-slow\n"


def listed() -> set[str]:
    """The node ids of ``slow_tests.txt``."""
    if not SLOW_FILE.exists():
        return set()
    lines = SLOW_FILE.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}


class SlowLane:
    """The pytest plugin: marks the listed tests, and records durations when asked."""

    def __init__(self, record: bool) -> None:
        self.record = record
        self.slow = listed()
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if item.nodeid in self.slow or item.nodeid.split("::", 1)[0] in self.slow:
                item.add_marker(pytest.mark.slow)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.record:
            return
        ran = set(self.seconds)
        files = {n for n in self.slow if "::" not in n}
        keep = (files | {n for n in self.slow if n not in ran}
                | {n for n, s in self.seconds.items() if s >= SLOW_SECONDS and n.split("::", 1)[0] not in files})
        SLOW_FILE.write_text(_HEADER + "".join(f"{n}\n" for n in sorted(keep)), encoding="utf-8")
