"""Documents written piece by piece (paimon_lens.io.json_stream) and the streamed CLI answers."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_lens.io.json_stream import SPOOL_MEMORY, Spool, write_document

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                    st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                      max_leaves=10)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), values, st.booleans()), max_size=5), st.booleans())
def test_write_document_writes_what_json_dump_writes(fields: list[tuple[str, Any, bool]], ascii_only: bool) -> None:
    # names unique (a dict's), lists given either whole or as an iterator of their items
    seen: dict[str, tuple[Any, bool]] = {}
    for name, value, streamed in fields:
        seen.setdefault(name, (value, streamed))
    expected = io.StringIO()
    json.dump({k: v for k, (v, _) in seen.items()}, expected, ensure_ascii=ascii_only, allow_nan=False)
    got = io.StringIO()
    write_document(got, [(k, iter(v) if streamed and isinstance(v, list) else v) for k, (v, streamed) in seen.items()],
                   ensure_ascii=ascii_only, allow_nan=False)
    assert got.getvalue() == expected.getvalue()


def test_a_streamed_list_is_consumed_one_item_at_a_time() -> None:
    taken: list[int] = []
    out = io.StringIO()

    def items() -> Any:
        for i in range(3):
            taken.append(i)
            assert out.getvalue().count("{") == i + 1  # the previous items are written already
            yield {"i": i}

    write_document(out, [("files", items())])
    assert json.loads(out.getvalue()) == {"files": [{"i": 0}, {"i": 1}, {"i": 2}]} and taken == [0, 1, 2]


def test_spool_restarts_empty_and_moves_to_disk_when_large() -> None:
    out = io.StringIO()
    with Spool() as spool:
        spool.restart().write("first attempt, abandoned")
        f = spool.restart()
        f.write("x" * (SPOOL_MEMORY + 10))
        assert spool.file._rolled  # type: ignore[attr-defined]  # beyond the memory part: a temporary file
        f.write("é")
        spool.copy_to(out)
    assert out.getvalue() == "x" * (SPOOL_MEMORY + 10) + "é"
