"""Explain decodes stats and deletion vectors only for the files a stage needs them for; the
answers equal those of a table that decoded everything first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl

DATA = Path(__file__).parent.parent.parent / "data"


def _verdicts(report: Any) -> list[tuple[object, ...]]:
    return [(f.file_name, f.stage, f.read, f.stats_keep, f.deleted_rows, f.rows_after_dv, f.reason)
            for f in report.files]


@pytest.mark.parametrize(("name", "where"), [
    ("demo_orders", "dt = '2025-01-02'"),
    ("demo_orders", "dt = '2025-01-03' AND status = 'PAID'"),
    ("demo_orders", "customer_id = 17"),
    ("orders_dv20", "order_id = 7"),
    ("history_events", "dt = '2025-03-03'"),
    ("history_events", "dt = '2025-03-03' AND status = 'disputed'"),
])
def test_lazy_answers_equal_eager_ones(name: str, where: str) -> None:
    lazy = pl.open_table(str(DATA / name), progress=False)
    report = lazy.explain(where)
    eager = pl.open_table(str(DATA / name), progress=False)
    eager.deletion_vectors()  # every vector decoded first: the read stage takes them all
    assert eager.reader.memoized("deletion_vectors")
    assert _verdicts(report) == _verdicts(eager.explain(where))


def test_a_partition_filter_decodes_only_the_kept_partitions_vectors() -> None:
    table = pl.open_table(str(DATA / "demo_orders"), progress=False)
    report = table.explain("dt = '2025-01-02'")
    assert not table.reader.memoized("deletion_vectors")  # not the whole snapshot's
    pruned = [f for f in report.files if f.stage == "partition"]
    assert pruned and any(f.deleted_rows for f in pruned)  # counts from the index manifest
    # stats of pruned files are not decoded until asked (the answers equal eager ones: see above)
    assert all(callable(f.decision.stats_state) for f in pruned)
    f = pruned[0]
    assert isinstance(f.stats_keep, bool) and f.decision.stats_state is f.stats_keep  # decided once asked
