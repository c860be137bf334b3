"""FileIndexPredicate, FileIndexResult and the reader defaults, judged by Paimon's own results.

Golden tests cover every index type whose reader module exists when the tests run: predicates
touching a column with an index type paimon-lens cannot decode yet are left out (and counted),
and are covered automatically once ``paimon_lens.formats.<type>`` appears.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pyroaring import BitMap

from paimon_lens.formats.bloom import BloomFilterFileIndexWriter
from paimon_lens.formats.file_index_format import FileIndexFormatReader, write_file_index
from paimon_lens.formats.index_reader import EmptyFileIndexReader, FileIndexReader
from paimon_lens.formats.registry import available_index_types
from paimon_lens.formats.result import REMAIN, SKIP, BitmapIndexResult, FileIndexResult, or_paimon_09
from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate
from paimon_lens.pruning.file_index_predicate import FileIndexPredicate, index_answer, index_field_type
from paimon_lens.types import DataField, parse_row_type, parse_type
from tests.conftest import FIXTURES, blob_cases, load_json, oracle_paths
from tests.formats.oracle_tree import OracleTable, positions_crc32, row_type_from_json, tree_to_predicate

# ---- FileIndexResult ------------------------------------------------------------------------------


def bm(*positions: int) -> BitmapIndexResult:
    return BitmapIndexResult(BitMap(positions))


def test_remain_and_skip_combinations() -> None:
    b = bm(1, 2)
    assert REMAIN.and_(SKIP) is SKIP and REMAIN.and_(b) is b and REMAIN.and_(REMAIN) is REMAIN
    assert REMAIN.or_(SKIP) is REMAIN and REMAIN.or_(b) is REMAIN
    assert SKIP.and_(REMAIN) is SKIP and SKIP.and_(b) is SKIP
    assert SKIP.or_(REMAIN) is REMAIN and SKIP.or_(b) is b and SKIP.or_(SKIP) is SKIP


def test_bitmap_combinations_follow_paimon_2_0() -> None:
    b, c, empty = bm(1, 2), bm(2, 3), bm()
    assert b.and_(c) == bm(2) and b.or_(c) == bm(1, 2, 3)
    assert b.and_(REMAIN) is b and b.and_(SKIP) is SKIP
    # FileIndexResult.or default: REMAIN if the other remains, else this (kept even if empty)
    assert b.or_(REMAIN) is REMAIN
    assert b.or_(SKIP) is b
    assert empty.or_(REMAIN) is REMAIN
    assert empty.or_(SKIP) is empty and not empty.remain()
    assert empty.and_(REMAIN) is empty


def test_paimon_0_9_bitmap_or_bug() -> None:
    b, empty = bm(1), bm()
    assert or_paimon_09(b, SKIP) is SKIP  # 2.0: b
    assert or_paimon_09(empty, REMAIN) is empty  # 2.0: REMAIN -> 0.9 drops the file
    assert or_paimon_09(b, REMAIN) is b
    assert or_paimon_09(b, bm(2)) == bm(1, 2)
    assert or_paimon_09(SKIP, b) is b and or_paimon_09(REMAIN, b) is REMAIN


def test_bitmap_and_not() -> None:
    assert bm(1, 2, 3).and_not(BitMap([2])) == bm(1, 3)


# ---- FileIndexReader defaults ---------------------------------------------------------------------

class _Recorder(FileIndexReader):
    """Answers from a table and records the calls."""

    def __init__(self, answers: dict[Any, FileIndexResult], default: FileIndexResult = REMAIN) -> None:
        self.answers = answers
        self.default = default
        self.calls: list[tuple[str, Any]] = []

    def visit_equal(self, literal: Any) -> FileIndexResult:
        self.calls.append(("=", literal))
        return self.answers.get(literal, self.default)

    def visit_not_equal(self, literal: Any) -> FileIndexResult:
        self.calls.append(("<>", literal))
        return self.answers.get(literal, self.default)


def _leaf(function: str, field: str, *literals: Any, type_text: str = "INT") -> LeafPredicate:
    return LeafPredicate(function, field, 0, parse_type(type_text), tuple(literals))


def test_reader_defaults() -> None:
    r = FileIndexReader()
    for f, lits in [("Equal", (1,)), ("NotEqual", (1,)), ("LessThan", (1,)), ("IsNull", ()), ("IsNotNull", ()),
                    ("StartsWith", ("a",)), ("Like", ("a%",)), ("Between", (1, 2)), ("NotBetween", (1, 2)),
                    ("In", (1, 2)), ("NotIn", (1, 2))]:
        assert index_answer(r, _leaf(f, "x", *lits)) is REMAIN, f
    with pytest.raises(ValueError, match="unknown leaf function 'AlwaysTrue'"):  # a closed set
        _leaf("AlwaysTrue", "x")


def test_in_is_or_of_equal_and_not_in_is_or_of_not_equal() -> None:
    r = _Recorder({1: SKIP, 2: SKIP, 3: bm(7)}, default=SKIP)
    assert index_answer(r, _leaf("In", "x", 1, 2)) is SKIP
    assert index_answer(r, _leaf("In", "x", 1, 3, 2)) == bm(7)
    assert r.calls[:2] == [("=", 1), ("=", 2)]
    r.calls.clear()
    # Paimon ORs the NotEqual results (not AND): one remaining literal keeps the file
    r2 = _Recorder({1: SKIP, 2: REMAIN})
    assert index_answer(r2, _leaf("NotIn", "x", 1, 2)) is REMAIN
    assert r2.calls == [("<>", 1), ("<>", 2)]
    assert index_answer(r2, _leaf("NotIn", "x", 1)) is SKIP
    assert FileIndexReader().visit_in([]) is REMAIN


def test_empty_index_reader() -> None:
    r = EmptyFileIndexReader()
    skip = ["Equal", "IsNotNull", "StartsWith", "EndsWith", "Contains", "LessThan", "LessOrEqual",
            "GreaterThan", "GreaterOrEqual", "In"]
    remain = ["NotEqual", "IsNull", "NotIn", "Like", "Between", "NotBetween"]
    for f in skip:
        lits: tuple[int, ...] = () if f == "IsNotNull" else (1,)
        assert index_answer(r, _leaf(f, "x", *lits)) is SKIP, f
    for f in remain:
        lits = () if f == "IsNull" else (1, 2) if "Between" in f else (1,)
        assert index_answer(r, _leaf(f, "x", *lits)) is REMAIN, f


# ---- evaluation walk -------------------------------------------------------------------------------

def _bloom(type_text: str, values: Sequence[Any]) -> bytes:
    w = BloomFilterFileIndexWriter(parse_type(type_text), 50, 0.001)
    w.write_many(list(values))
    return w.serialized_bytes()


ROW = parse_row_type("a INT, b STRING, c BIGINT, m MAP<STRING, STRING>, d DECIMAL(10, 2)")


def _container() -> FileIndexPredicate:
    data = write_file_index({
        "a": {"bloom-filter": _bloom("INT", [1, 2, 3])},
        "b": {"bloom-filter": _bloom("STRING", ["x", "y"])},
        "m[k]": {"bloom-filter": _bloom("STRING", ["red"])},
        "e": {"bloom-filter": _bloom("INT", [1])},  # not in the row type
        "c": {"future-index": b"??"},
    })
    return FileIndexPredicate(data, ROW, "t.index")


def test_leaf_results() -> None:
    p = _container()
    assert p.evaluate(None) is REMAIN
    assert p.evaluate(_leaf("Equal", "a", 2)) is REMAIN
    assert p.evaluate(_leaf("Equal", "a", 99)) is SKIP
    assert p.evaluate(_leaf("In", "a", 98, 99)) is SKIP
    assert p.evaluate(_leaf("In", "a", 98, 3)) is REMAIN
    assert p.evaluate(_leaf("Equal", "b", "zz", type_text="STRING")) is SKIP
    assert p.evaluate(_leaf("LessThan", "a", 0)) is REMAIN  # bloom answers only = / IN
    # no index on the column, or the column is unknown -> REMAIN
    assert p.evaluate(_leaf("Equal", "d", 1, type_text="DECIMAL(10, 2)")) is REMAIN
    assert p.evaluate(_leaf("Equal", "nope", 1)) is REMAIN
    # map-key entry: value type of the map
    assert index_field_type(ROW, "m[k]") == parse_type("STRING")
    assert p.evaluate(_leaf("Equal", "m[k]", "red", type_text="STRING")) is REMAIN
    assert p.evaluate(_leaf("Equal", "m[k]", "blue", type_text="STRING")) is SKIP
    # a column missing from the row type and an unknown index type: REMAIN with a note
    assert p.evaluate(_leaf("Equal", "e", 5)) is REMAIN
    assert p.evaluate(_leaf("Equal", "c", 5, type_text="BIGINT")) is REMAIN
    [ev] = p.breakdown(_leaf("Equal", "e", 5))
    assert ev.verdicts[0].note and "row type" in ev.verdicts[0].note
    [ev] = p.breakdown(_leaf("Equal", "c", 5, type_text="BIGINT"))
    assert ev.verdicts[0].index_type == "future-index" and "unknown index type" in (ev.verdicts[0].note or "")


def test_compounds() -> None:
    p = _container()
    hit, miss = _leaf("Equal", "a", 1), _leaf("Equal", "a", 77)
    and_, or_ = (lambda *c: CompoundPredicate("And", c)), (lambda *c: CompoundPredicate("Or", c))
    assert p.evaluate(and_(hit, miss)) is SKIP
    assert p.evaluate(and_(hit, hit)) is REMAIN
    assert p.evaluate(or_(miss, miss)) is SKIP
    assert p.evaluate(or_(miss, hit)) is REMAIN
    assert p.evaluate(or_(miss, _leaf("Equal", "d", 1, type_text="DECIMAL(10, 2)"))) is REMAIN
    assert p.evaluate(CompoundPredicate("And", ())) is REMAIN
    assert p.evaluate(CompoundPredicate("Or", ())) is REMAIN


def _with_readers(readers: Mapping[str, Sequence[FileIndexReader]]) -> FileIndexPredicate:
    p = FileIndexPredicate(write_file_index({}), [])
    for column, rs in readers.items():
        p._readers[column] = [(f"t{i}", r) for i, r in enumerate(rs)]
    return p


def test_leaf_readers_are_anded_with_early_stop() -> None:
    first, second, third = _Recorder({}, bm(1, 2)), _Recorder({}, SKIP), _Recorder({}, REMAIN)
    p = _with_readers({"x": [first, second, third]})
    assert p.evaluate(_leaf("Equal", "x", 1)) is SKIP
    assert (len(first.calls), len(second.calls), len(third.calls)) == (1, 1, 0)
    # an empty bitmap stops too, and comes out as the (empty) bitmap
    p = _with_readers({"x": [_Recorder({}, bm()), third]})
    assert p.evaluate(_leaf("Equal", "x", 1)) == bm()
    assert len(third.calls) == 0
    # REMAIN and bitmap -> the bitmap; two bitmaps -> their intersection
    p = _with_readers({"x": [_Recorder({}, REMAIN), _Recorder({}, bm(1, 2)), _Recorder({}, bm(2, 3))]})
    assert p.evaluate(_leaf("Equal", "x", 1)) == bm(2)
    # breakdown evaluates every index, the result still follows Paimon
    p = _with_readers({"x": [_Recorder({}, SKIP), _Recorder({}, bm(4))]})
    [ev] = p.breakdown(_leaf("Equal", "x", 1))
    assert [v.result for v in ev.verdicts] == [SKIP, bm(4)] and ev.result is SKIP and ev.indexed


def test_and_stops_early_or_does_not() -> None:
    a, b = _Recorder({}, SKIP), _Recorder({}, REMAIN)
    p = _with_readers({"a": [a], "b": [b]})
    assert p.evaluate(CompoundPredicate("And", (_leaf("Equal", "a", 1), _leaf("Equal", "b", 1)))) is SKIP
    assert len(b.calls) == 0
    assert p.evaluate(CompoundPredicate("Or", (_leaf("Equal", "a", 1), _leaf("Equal", "b", 1)))) is REMAIN
    assert len(b.calls) == 1


def test_or_of_bitmap_and_bloom_2_0_vs_0_9() -> None:
    bitmap_leaf, bloom_leaf = _leaf("Equal", "country", "XX", type_text="STRING"), _leaf("Equal", "id", 1)
    readers = {"country": [_Recorder({}, bm())], "id": [_Recorder({}, REMAIN)]}
    tree = CompoundPredicate("Or", (bitmap_leaf, bloom_leaf))
    assert _with_readers(readers).evaluate(tree) is REMAIN
    legacy = _with_readers(readers)
    legacy.paimon_09_bitmap_or = True
    assert legacy.evaluate(tree) == bm()


# ---- golden: blob cases (FileIndexPredicate over container.index) -----------------------------------

def _usable(reader: FileIndexFormatReader, fields: set[str], available: frozenset[str]) -> bool:
    """True if every non-empty index of the predicate's columns can be decoded."""
    return all(e.empty or e.index_type in available
               for f in fields for e in reader.index_entries(f).values())


def _fields(pred: Predicate) -> set[str]:
    if isinstance(pred, LeafPredicate):
        return {pred.field}
    out: set[str] = set()
    for c in pred.children:
        out |= _fields(c)
    return out


def _multi_index(reader: FileIndexFormatReader, fields: set[str]) -> bool:
    return any(len(reader.index_entries(f)) > 1 for f in fields)


def _kind(r: FileIndexResult) -> str:
    return r.kind


BLOB_PREDICATE_CASES = [p for p in blob_cases() if "predicates" in load_json(p)]


@pytest.mark.parametrize("case_path", BLOB_PREDICATE_CASES,
                         ids=lambda p: str(p.parent.relative_to(FIXTURES / "blobs")))
def test_blob_predicates(case_path: Path) -> None:
    case = load_json(case_path)
    available = available_index_types()
    container = FileIndexFormatReader((case_path.parent / "container.index").read_bytes(), str(case_path))
    row_type = row_type_from_json(case["row_type"])
    evaluator = FileIndexPredicate(container, row_type)
    failures: list[tuple[Any, ...]] = []
    checked = skipped = 0
    for p in case["predicates"]:
        pred = tree_to_predicate(p["tree"])
        fields = _fields(pred)
        if not _usable(container, fields, available):
            skipped += 1
            continue
        got = evaluator.evaluate(pred)
        checked += 1
        expect_kind = p["result"]
        if got.remain() != p["remain"]:
            failures.append((p["id"], p["java"], "remain", got, expect_kind))
            continue
        if _multi_index(container, fields) and not got.remain():
            continue  # order of a HashSet decides SKIP vs empty bitmap in Paimon
        if got.kind != expect_kind:
            failures.append((p["id"], p["java"], "kind", got, expect_kind))
        elif isinstance(got, BitmapIndexResult) and got.positions() != p["positions"]:
            failures.append((p["id"], p["java"], "positions", got.positions()[:20], p["positions"][:20]))
        # per-index answers of a leaf (FunctionVisitor on the single column blob)
        if isinstance(pred, LeafPredicate) and p.get("per_index"):
            [ev] = evaluator.breakdown(pred)
            for v in ev.verdicts:
                want = p["per_index"].get(v.index_type)
                if want is None:
                    continue
                if v.result.kind != want["result"] or (
                        isinstance(v.result, BitmapIndexResult) and v.result.positions() != want["positions"]):
                    failures.append((p["id"], p["java"], f"per_index {v.index_type}", v.result, want["result"]))
    assert not failures, failures[:10]
    assert checked + skipped == len(case["predicates"])
    if {e.index_type for _, e in container.layout.entries() if not e.empty} <= available:
        assert skipped == 0


def test_empty_index_flag_case_without_bitmap_reader() -> None:
    """Predicates on the ``ghost`` column (start = -1) need no index decoder at all."""
    case_path = FIXTURES / "blobs" / "container_empty_index_flag" / "case.json"
    case = load_json(case_path)
    evaluator = FileIndexPredicate((case_path.parent / "container.index").read_bytes(),
                                   row_type_from_json(case["row_type"]))
    ghost_only = [p for p in case["predicates"] if _fields(tree_to_predicate(p["tree"])) == {"ghost"}]
    assert len(ghost_only) == 6
    for p in ghost_only:
        got = evaluator.evaluate(tree_to_predicate(p["tree"]))
        assert got.kind == p["result"], p["java"]


# ---- golden: table oracles ------------------------------------------------------------------------

#: Paimon 0.9.0's bitmap-OR bug (fixtures README): these 0.9 oracle entries record a SKIP that
#: Paimon 2.0.0 (and paimon-lens) answer REMAIN. Only entries flagged index_false_negative.
EXPECTED_09_OR_BUG = {("a_append_indexed", "p28"), ("b_partitioned_append", "p20")}


def _positions_match(entry: dict[str, Any], got: BitmapIndexResult) -> bool:
    positions = got.positions()
    if "bitmap_positions" in entry:
        return positions == entry["bitmap_positions"]
    return (len(positions) == entry["bitmap_positions_count"]
            and positions_crc32(positions) == entry["bitmap_positions_crc32"])


def _compare(entry: dict[str, Any], got: FileIndexResult) -> str | None:
    """None if ``got`` agrees with an oracle file entry, else what differs."""
    if ("REMAIN" if got.remain() else "SKIP") != entry["index_result"]:
        return f"remain: got {got!r}, oracle {entry['index_result']}/{entry['index_result_kind']}"
    order_dependent = entry.get("index_order_dependent", False)
    if order_dependent and not got.remain():
        return None  # SKIP vs empty bitmap depends on Paimon's HashSet order
    if order_dependent and not (got.kind == "BITMAP" and entry["index_result_kind"] == "BITMAP"):
        return None
    if got.kind != entry["index_result_kind"]:
        return f"kind: got {got!r}, oracle {entry['index_result_kind']}"
    if isinstance(got, BitmapIndexResult) and not _positions_match(entry, got):
        return f"positions: got {got.positions()[:20]}"
    return None


@pytest.mark.parametrize("oracle_path", [p for p in oracle_paths()
                                         if any(f["file_index"]["location"] != "none"
                                                for f in load_json(p)["files"])],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_table_oracle_index_results(oracle_path: Path) -> None:
    table = OracleTable(oracle_path)
    scenario = oracle_path.parent.name
    available = available_index_types()
    failures: list[tuple[str, str, str, str]] = []
    expected_diffs: set[tuple[str, str]] = set()
    checked = skipped = 0
    evaluators: dict[str, tuple[FileIndexPredicate, FileIndexPredicate]] = {}
    for p in table.oracle["predicates"]:
        pred = tree_to_predicate(p["tree"])
        fields = _fields(pred)
        for entry in p["files"]:
            if entry["index_result"] == "NO_INDEX":
                continue
            file = table.files[entry["file_name"]]
            if file["file_name"] not in evaluators:
                data, path = table.container(file) or (b"", "")
                container = FileIndexFormatReader(data, path)
                row_type: list[DataField] = table.row_type(file)
                evaluators[file["file_name"]] = (FileIndexPredicate(container, row_type),
                                                 FileIndexPredicate(container, row_type, paimon_09_bitmap_or=True))
            modern, legacy = evaluators[file["file_name"]]
            if not _usable(modern.index, fields, available):
                skipped += 1
                continue
            checked += 1
            got = modern.evaluate(pred)
            if not table.is_09:
                diff = _compare(entry, got)
                if diff:
                    failures.append((p["id"], p["java"], entry["file_name"], diff))
                continue
            # 0.9 oracle: modelling 0.9.0 (bug included) reproduces it exactly: remain, kind, positions
            diff09 = _compare(entry, legacy.evaluate(pred))
            if diff09:
                failures.append((p["id"], p["java"], entry["file_name"], "0.9 mode " + diff09))
            # 2.0 semantics: the same remain/skip except the bitmap-OR bug's false negatives (the
            # result kind may differ: 2.0 keeps an empty bitmap where 0.9 says SKIP)
            if ("REMAIN" if got.remain() else "SKIP") != entry["index_result"]:
                if (entry.get("index_false_negative") and got.remain()
                        and (scenario, p["id"]) in EXPECTED_09_OR_BUG):
                    expected_diffs.add((scenario, p["id"]))
                else:
                    failures.append((p["id"], p["java"], entry["file_name"], f"2.0 mode remain: got {got!r}"))
    assert not failures, "\n".join(map(str, failures[:15]))
    assert checked > 0 or skipped > 0
    print(f"{table.name}: {checked} file results checked, {skipped} waiting for index readers, "
          f"expected 0.9 differences: {sorted(expected_diffs)}")
    # once every index type is decodable, the known 0.9 bug cases must show up as differences
    if skipped == 0 and table.is_09:
        assert expected_diffs == {d for d in EXPECTED_09_OR_BUG if d[0] == scenario}


def test_map_key_leaf_through_file_index_predicate() -> None:
    """``attrs[color]`` probes of the 2.0 oracle, via FileIndexPredicate with a ``col[key]`` leaf."""
    table = OracleTable(next(p for p in oracle_paths() if p.name == "oracle_events20.json"))
    checked = 0
    for file in table.oracle["files"]:
        for probe in file.get("map_key_probes") or []:
            data, path = table.container(file) or (b"", "")
            evaluator = FileIndexPredicate(data, table.row_type(file), path)
            leaf = LeafPredicate("Equal", probe["index_column"], -1, parse_type("STRING"), (probe["literal"],))
            got = evaluator.evaluate(leaf)
            assert ("REMAIN" if got.remain() else "SKIP") == probe["index_result"]
            checked += 1
    assert checked > 0


def test_oracle_tree_conversion() -> None:
    tree = {"op": "Or", "children": [
        {"op": "Equal", "field": "ts", "field_index": 7, "type": "TIMESTAMP(3)",
         "literals": ["2025-01-04T00:00:00.000"]},
        {"op": "In", "field": "price", "field_index": 6, "type": "DECIMAL(10, 2)", "literals": ["1.50", None]},
    ]}
    pred = tree_to_predicate(tree)
    assert isinstance(pred, CompoundPredicate) and pred.function == "Or"
    ts, price = pred.children
    assert isinstance(ts, LeafPredicate) and ts.index == 7 and ts.type == parse_type("TIMESTAMP(3)")
    assert ts.literals[0].millisecond == 1735948800000
    assert isinstance(price, LeafPredicate) and str(price.literals[0]) == "1.50" and price.literals[1] is None
