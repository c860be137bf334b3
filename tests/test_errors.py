"""Problems and notes as values (errors.py): what a raise knew, carried to every output."""

from __future__ import annotations

import json
import pickle

from hypothesis import given
from hypothesis import strategies as st

from paimon_lens.errors import CorruptFileError, Note, Problem, note_file, problem_details


def test_a_problem_keeps_what_the_raise_knew() -> None:
    p = Problem.of(CorruptFileError("x.index", 12, "magic", 1, 2))
    assert str(p) == "x.index at byte 12: bad magic (expected 1, found 2)"
    assert (p.kind, p.file, p.field, p.offset) == ("CorruptFileError", "x.index", "magic", 12)
    assert p.to_dict() == {"kind": "CorruptFileError", "file": "x.index", "field": "magic", "offset": 12,
                           "message": str(p)}


def test_another_error_is_named_by_its_class_and_the_file_given() -> None:
    p = Problem.of(ValueError("bad"), "f.parquet")
    assert str(p) == "ValueError: bad" and (p.kind, p.file, p.offset) == ("ValueError", "f.parquet", None)
    q = Problem.of(FileNotFoundError(2, "No such file", "/t/a.orc"), "other")
    assert q.kind == "FileNotFoundError" and q.file == "/t/a.orc"
    assert str(Problem.of(ValueError("bad"), text="as it was")) == "as it was"


def test_a_note_about_a_file_reads_as_notes_always_have() -> None:
    n = Note("ground truth unavailable", "data-1.parquet", Problem.of(OSError("gone"), "data-1.parquet"))
    assert n == "data-1.parquet: ground truth unavailable" and n.text == "ground truth unavailable"
    assert note_file(n) == "data-1.parquet" and note_file("data-1.parquet: plain text") is None
    assert json.dumps([n]) == '["data-1.parquet: ground truth unavailable"]'
    assert n.to_dict()["problem"]["kind"] == "OSError"
    table_note = Note("the release cannot read this table")
    assert table_note.file is None and table_note.text == str(table_note)


@given(st.text(), st.none() | st.text(min_size=1), st.none() | st.text(), st.none() | st.integers(0, 2**63))
def test_problems_and_notes_survive_pickling(message: str, file: str | None, field: str | None,
                                              offset: int | None) -> None:
    """Tasks on other processes and Spark executors send them back pickled."""
    p = Problem(message, "CorruptFileError", file, field, offset)
    back = pickle.loads(pickle.dumps(p))
    assert back == p and back.to_dict() == p.to_dict()
    n = Note(message, file, p)
    again = pickle.loads(pickle.dumps(n))
    assert again == n and again.file == n.file and again.text == message and again.problem.to_dict() == p.to_dict()


def test_details_of_plain_text_say_only_the_message() -> None:
    assert problem_details(None) is None
    assert problem_details("x") == {"kind": None, "file": None, "field": None, "offset": None, "message": "x"}
