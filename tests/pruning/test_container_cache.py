"""Index containers opened by an explain are kept (bounded, least recently used out) for the next
explain of the table: answers equal those of a fresh table, and a container is opened once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
import paimon_lens.inventory.file_indexes as sfi

DATA = Path(__file__).parent.parent.parent / "data"
FIXTURES = Path(__file__).parent.parent / "fixtures"
EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"


def _answers(report: Any) -> list[tuple[object, ...]]:
    return [(f.file_name, f.stage, f.read, f.index_result, f.reason, f.index_selected_rows)
            for f in report.files]


@pytest.mark.parametrize(("path", "wheres"), [
    (EVENTS20, ["country = 'DE'", "country = 'FR' OR user_id = 7", "country <> 'DE'", "user_id IN (3, 9)"]),
    (DATA / "history_events", ["status = 'disputed'", "status = 'open' AND amount > 10", "status <> 'open'"]),
])
def test_reused_containers_give_the_answers_of_a_fresh_table(path: Path, wheres: list[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real = sfi.open_container

    def counting(table: Any, lf: Any) -> Any:
        opened.append(lf.entry.file.file_name)
        return real(table, lf)

    monkeypatch.setattr(sfi, "open_container", counting)
    reused = pl.open_table(str(path), progress=False)
    reused.reader._cache.shared["index_containers"] = sfi.ContainerCache()
    got = [_answers(reused.explain(where)) for where in wheres * 2]
    assert opened and len(opened) == len(set(opened))  # each container opened once for all the explains
    assert reused.reader.shared("index_containers", sfi.ContainerCache).size > 0
    for where, answers in zip(wheres * 2, got):
        fresh = pl.open_table(str(path), progress=False)
        fresh.reader._cache.shared["index_containers"] = sfi.ContainerCache()  # its own, empty
        assert answers == _answers(fresh.explain(where))


def test_the_cache_keeps_to_its_budget() -> None:
    table = pl.open_table(str(EVENTS20), progress=False)
    cache = sfi.ContainerCache(budget=2_000)
    table.reader._cache.shared["index_containers"] = cache
    report = table.explain("country = 'DE' OR user_id = 7")
    assert any(f.index_result != "NO_INDEX" for f in report.files)
    assert cache.size <= 2_000 or len(cache._entries) == 1
    again = pl.open_table(str(EVENTS20), progress=False)
    assert _answers(again.explain("country = 'DE' OR user_id = 7")) == _answers(report)
