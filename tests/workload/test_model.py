"""Workload files and lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from paimon_lens.errors import PaimonLensError
from paimon_lens.workload.model import Workload, WorkloadQuery, as_workload, parse_workload_line, read_workload


def test_parse_lines() -> None:
    assert parse_workload_line("") is None
    assert parse_workload_line("   # comment") is None
    assert parse_workload_line("-- comment") is None
    assert parse_workload_line("a = 1") == WorkloadQuery("a = 1", 1.0)
    assert parse_workload_line("a = 1  -- weight: 3") == WorkloadQuery("a = 1", 3.0)
    assert parse_workload_line("a = 1 --weight=0.5") == WorkloadQuery("a = 1", 0.5)
    # a '--' inside a string literal is part of the predicate, not a weight
    assert parse_workload_line("name = 'a -- weight: 2 b'") == WorkloadQuery("name = 'a -- weight: 2 b'", 1.0)


def test_read_file(tmp_path: Path) -> None:
    p = tmp_path / "w.sql"
    p.write_text("# header\nx = 1 -- weight: 2\n\ny IN (1, 2)\n", encoding="utf-8")
    w = read_workload(p)
    assert [q.where for q in w] == ["x = 1", "y IN (1, 2)"]
    assert w.total_weight == 3.0
    assert w.source == str(p)
    assert len(as_workload(str(p))) == 2


def test_sample_workload_of_data_parses() -> None:
    w = read_workload(Path("data/events20.workload.sql"))
    assert len(w) >= 4 and all(q.weight > 0 for q in w)


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(PaimonLensError, match="cannot read workload file"):
        read_workload(tmp_path / "missing.sql")
    bad = tmp_path / "bad.sql"
    bad.write_bytes(b"a = '\xff'\n")
    with pytest.raises(PaimonLensError, match="not UTF-8"):
        read_workload(bad)
    with pytest.raises(PaimonLensError, match="WHERE string"):
        as_workload([42])  # type: ignore[list-item]


def test_as_workload_forms() -> None:
    assert len(as_workload(None)) == 0
    w = as_workload(["a = 1", ("b = 2", 4)])
    assert w.queries == (WorkloadQuery("a = 1"), WorkloadQuery("b = 2", 4.0))
    assert as_workload(w) is w
    assert isinstance(w, Workload)
