"""Anchor for ``benchmarks/bench_anchors.py``: pypaimon's scan planning, per predicate, as JSON.

Runs in the interpreter of a virtual environment with pypaimon 2.1 (it pins ``pyarrow < 20``, so it
cannot live in the project's environment), never imports paimon-lens::

    <pypaimon-venv>/bin/python benchmarks/anchors/pypaimon_plan.py SPEC.json

``SPEC.json``: ``{"warehouse": DIR, "table": "db.name", "mode": "bench" | "once", "fresh_reps": N,
"warm_reps": N, "preds": [{"name": ..., "terms": [[op, column, [values]], ...]}, ...]}`` with op one of
``eq ne lt le gt ge between`` (the terms are ANDed). pypaimon opens tables through its filesystem
catalog, so the table directory must be linked into the warehouse as ``<warehouse>/<db>.db/<name>``.

What is timed (``time.perf_counter``):

``import``
    ``from pypaimon import CatalogFactory`` (the package imports its dependencies eagerly).
``first``
    In a fresh interpreter: ``CatalogFactory.create`` + ``catalog.get_table`` (``open``), then
    ``new_read_builder().with_filter(p).new_scan().plan().splits()`` of the first predicate (``plan``).
``fresh``
    Per predicate, ``fresh_reps`` times: a new catalog and table object, then the plan.
``warm``
    Per predicate, ``warm_reps`` times: the plan again on one table object (after one untimed plan of
    every predicate); a new read builder and scan each time, as a user would.

Every plan is also counted: splits and data files kept (pypaimon 2.1 prunes by partition, bucket
and value stats; it does not evaluate file indexes while planning). ``mode: once`` only opens the
table and plans the first predicate (for the fresh-process comparison with the CLI).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

_T0 = time.perf_counter()
from pypaimon import CatalogFactory  # noqa: E402  (timed import)

_IMPORT_S = time.perf_counter() - _T0


def build_predicate(builder: Any, terms: list[list[Any]]) -> Any:
    """The pypaimon predicate of ANDed ``[op, column, values]`` terms (None for no term)."""
    parts = []
    for op, column, values in terms:
        if op == "eq":
            parts.append(builder.equal(column, values[0]))
        elif op == "ne":
            parts.append(builder.not_equal(column, values[0]))
        elif op == "lt":
            parts.append(builder.less_than(column, values[0]))
        elif op == "le":
            parts.append(builder.less_or_equal(column, values[0]))
        elif op == "gt":
            parts.append(builder.greater_than(column, values[0]))
        elif op == "ge":
            parts.append(builder.greater_or_equal(column, values[0]))
        elif op == "between":
            parts.append(builder.between(column, values[0], values[1]))
        else:
            raise ValueError(f"unknown op {op!r}")
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else builder.and_predicates(parts)


def plan(table: Any, terms: list[list[Any]]) -> tuple[float, int, int]:
    """Seconds of one plan, its splits and its data files."""
    t0 = time.perf_counter()
    builder = table.new_read_builder()
    predicate = build_predicate(builder.new_predicate_builder(), terms)
    if predicate is not None:
        builder = builder.with_filter(predicate)
    splits = builder.new_scan().plan().splits()
    seconds = time.perf_counter() - t0
    return seconds, len(splits), sum(len(s.files) for s in splits)


def open_table(warehouse: str, name: str) -> Any:
    """A new catalog and table object."""
    return CatalogFactory.create({"warehouse": warehouse}).get_table(name)


def main(spec_path: str) -> dict[str, Any]:
    """Run the measurements of the spec file; their JSON-able result."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    warehouse, name, preds = spec["warehouse"], spec["table"], spec["preds"]
    import pypaimon

    out: dict[str, Any] = {"version": _version(pypaimon), "import_s": _IMPORT_S, "pid": os.getpid()}
    t0 = time.perf_counter()
    table = open_table(warehouse, name)
    opened = time.perf_counter() - t0
    seconds, splits, files = plan(table, preds[0]["terms"])
    out["first"] = {"name": preds[0]["name"], "open_s": opened, "plan_s": seconds, "splits": splits,
                    "files": files}
    if spec.get("mode", "bench") == "once":
        return out
    fresh: dict[str, list[float]] = {p["name"]: [] for p in preds}
    for _ in range(int(spec.get("fresh_reps", 3))):
        for p in preds:
            t0 = time.perf_counter()
            t = open_table(warehouse, name)
            plan(t, p["terms"])
            fresh[p["name"]].append(time.perf_counter() - t0)
    counts: dict[str, dict[str, int]] = {}
    for p in preds:  # one untimed plan of each on the warm table
        _, splits, files = plan(table, p["terms"])
        counts[p["name"]] = {"splits": splits, "files": files}
    warm: dict[str, list[float]] = {p["name"]: [] for p in preds}
    for r in range(int(spec.get("warm_reps", 5))):
        for j in range(len(preds)):
            p = preds[(j + r) % len(preds)]
            warm[p["name"]].append(plan(table, p["terms"])[0])
    out.update({"fresh": fresh, "warm": warm, "counts": counts})
    return out


def _version(module: Any) -> str:
    try:
        from importlib import metadata

        return metadata.version("pypaimon")
    except Exception:  # pragma: no cover - no metadata
        return str(getattr(module, "__version__", "?"))


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
