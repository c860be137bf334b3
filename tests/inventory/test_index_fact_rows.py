"""IndexFactRows: index facts stored by column give back exactly the rows appended."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.inventory.file_indexes import IndexFact, IndexFactRows

_NAMES = st.sampled_from(["id", "country", "bloom-filter", "bitmap", "bsi", "embedded", "external", "ü, x"])
_FLOAT = st.none() | st.floats(allow_nan=False) | st.just(0.0)
_FACT = st.builds(IndexFact, st.sampled_from([object(), object()]), _NAMES, _NAMES, _NAMES,
                  st.none() | st.integers(0, 2**63 - 1), st.booleans(), st.none() | st.text(max_size=20),
                  _FLOAT, _FLOAT)


@given(st.lists(_FACT, max_size=40))
def test_rows_are_the_facts_appended(facts: list[IndexFact]) -> None:
    rows = IndexFactRows()
    for f in facts:
        rows.append(f)
    assert len(rows) == len(facts)
    assert list(rows) == facts
    assert [rows[i] for i in range(-len(facts), 0)] == facts
    assert rows[1:3] == facts[1:3]


def test_unread_values_stay_unread() -> None:
    rows = IndexFactRows()
    rows.append(IndexFact(object(), "id", "bloom-filter", "external", None, False, "gone", 0.5, None))  # type: ignore[arg-type]
    (fact,) = rows
    assert fact.bytes is None and fact.false_positive_probability is None and fact.fill_ratio == 0.5
    assert fact.error == "gone" and not fact.decoded
