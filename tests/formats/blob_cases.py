"""Shared helpers for golden tests over the Paimon-written blob cases (``blobs/**/case.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paimon_lens import types, values
from paimon_lens.formats.result import BitmapIndexResult, FileIndexResult
from paimon_lens.predicate.model import LeafPredicate
from paimon_lens.types import DataType
from tests.conftest import FIXTURES, load_json


def blob_columns(index_type: str, case_glob: str) -> list[tuple[Path, dict[str, Any], dict[str, Any]]]:
    """(case.json path, column, index entry) of every column blob of ``index_type``.

    ``case_glob`` selects the case folders (e.g. ``"bsi*"``); ``mixed_container`` is always added.
    """
    paths = [*sorted(FIXTURES.glob(f"blobs/{case_glob}/**/case.json")), FIXTURES / "blobs/mixed_container/case.json"]
    out = []
    for path in paths:
        for col in load_json(path)["columns"]:
            for ix in col["indexes"]:
                if ix["index_type"] == index_type:
                    out.append((path, col, ix))
    return out


def column_ids(columns: list[tuple[Path, dict[str, Any], dict[str, Any]]]) -> list[str]:
    """Readable pytest ids: ``<case folder>/<column>``."""
    return [f"{p.parent.relative_to(FIXTURES / 'blobs')}/{c['name']}" for p, c, _ in columns]


def leaf_from_tree(tree: dict[str, Any], dtype: DataType) -> LeafPredicate:
    """A leaf predicate from a case's ``tree`` (literals in the fixtures' JSON encoding)."""
    lit_type = types.parse_type(tree["type"])
    lits = tuple(values.from_json(v, lit_type) for v in (tree.get("literals") or []))
    return LeafPredicate(tree["op"], tree["field"], tree["field_index"], dtype, lits)


def kind_positions(result: FileIndexResult) -> tuple[str, list[int] | None]:
    """("BITMAP", positions) or (REMAIN|SKIP, None), as case.json records results."""
    if isinstance(result, BitmapIndexResult):
        return "BITMAP", result.positions()
    return result.kind, None


def select_rows(op: str, keys: list[Any], lits: list[Any] | tuple[Any, ...]) -> list[int]:
    """Positions a leaf predicate selects by brute force, with SQL null semantics.

    ``keys`` are comparable row values (None for null) and ``lits`` the literals in the same
    domain; nulls never match a comparison.
    """
    out = []
    for i, k in enumerate(keys):
        if op == "IsNull":
            ok = k is None
        elif op == "IsNotNull":
            ok = k is not None
        elif k is None:
            ok = False
        elif op == "Equal":
            ok = k == lits[0]
        elif op == "NotEqual":
            ok = k != lits[0]
        elif op == "LessThan":
            ok = k < lits[0]
        elif op == "LessOrEqual":
            ok = k <= lits[0]
        elif op == "GreaterThan":
            ok = k > lits[0]
        elif op == "GreaterOrEqual":
            ok = k >= lits[0]
        elif op == "In":
            ok = k in lits
        elif op == "NotIn":
            ok = k not in lits
        elif op == "Between":
            ok = lits[0] <= k <= lits[1]
        else:
            raise AssertionError(op)
        if ok:
            out.append(i)
    return out

