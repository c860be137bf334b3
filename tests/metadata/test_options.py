"""Table options typed once (metadata/options.py: CoreOptions) and read through it everywhere."""

from __future__ import annotations

import ast
import pathlib

import pytest

from paimon_lens.metadata.options import CoreOptions, parse_memory_size
from paimon_lens.metadata.schema import TableSchema

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "paimon_lens"

#: options CoreOptions types: no other module reads them as text (writers write them)
TYPED = {"deletion-vectors.enabled", "deletion-vectors.bitmap64", "deletion-vectors.merge-on-read",
         "data-evolution.enabled", "row-tracking.enabled", "global-index.enabled", "file-index.read.enabled",
         "index-file-in-data-file-dir", "partition.legacy-name", "partition.default-name", "merge-engine",
         "bucket-function.type", "metadata.stats-mode", "data-file.path-directory",
         "num-sorted-run.compaction-trigger", "source.split.target-size", "source.split.open-file-cost"}
WRITERS = ("writer", "synth")


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("TRUE", True), (" True ", True),
                                                 ("false", False), ("FALSE ", False)])
def test_booleans_read_as_paimon_reads_them(text: str, expected: bool) -> None:
    opts = CoreOptions({"deletion-vectors.enabled": text, "global-index.enabled": text})
    assert opts.deletion_vectors_enabled is expected
    assert opts.global_index_enabled is expected
    assert opts.problems == []


def test_a_boolean_that_is_not_one_reads_as_its_default_and_is_said() -> None:
    opts = CoreOptions({"deletion-vectors.enabled": "yes", "global-index.enabled": "1"})
    assert opts.deletion_vectors_enabled is False
    assert opts.global_index_enabled is True
    assert opts.problems == [
        "table option deletion-vectors.enabled = 'yes' is not a boolean: read as false",
        "table option global-index.enabled = '1' is not a boolean: read as true",
    ]


def test_defaults_are_paimons() -> None:
    opts = CoreOptions({})
    assert (opts.deletion_vectors_enabled, opts.data_evolution_enabled, opts.row_tracking_enabled) == (False,) * 3
    assert (opts.global_index_enabled, opts.file_index_read_enabled, opts.partition_legacy_name) == (True,) * 3
    assert opts.bucket == -1 and opts.merge_engine == "deduplicate" and opts.bucket_function_type == "default"
    assert opts.partition_default_name == "__DEFAULT_PARTITION__" and opts.stats_mode == "truncate(16)"
    assert opts.compaction_trigger == 5 and opts.data_file_path_directory is None
    assert (opts.split_target_size, opts.split_open_file_cost) == (128 << 20, 4 << 20)
    assert (opts.target_file_size(True), opts.target_file_size(False)) == (128 << 20, 256 << 20)


def test_sizes_and_counts() -> None:
    opts = CoreOptions({"source.split.target-size": "64 mb", "num-sorted-run.compaction-trigger": "x",
                        "source.split.open-file-cost": "lots"})
    assert opts.split_target_size == parse_memory_size("64mb")
    assert opts.compaction_trigger == 5 and "not an integer" in opts.problems[0]
    with pytest.raises(ValueError, match=r"source\.split\.open-file-cost"):
        _ = opts.split_open_file_cost


def test_a_schema_parses_its_options_once() -> None:
    schema = TableSchema(0, (), (), (), {"deletion-vectors.enabled": "true"})
    assert schema.core_options is schema.core_options
    assert schema.core_options.deletion_vectors_enabled


def test_typed_options_are_read_nowhere_else_as_text() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in WRITERS or rel == pathlib.Path("metadata/options.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name in ("get", "option_true", "memory_option") and node.args[0].value in TYPED:
                    found.append(f"{rel}:{node.lineno} {node.args[0].value}")
            if isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name in ("option_true", "memory_option") and node.args[1].value in TYPED:
                    found.append(f"{rel}:{node.lineno} {node.args[1].value}")
    assert not found, f"typed options read as text (use TableSchema.core_options): {found}"


def test_check_says_every_value_paimon_would_refuse() -> None:
    opts = CoreOptions({"deletion-vectors.enabled": "yes", "num-sorted-run.compaction-trigger": "many",
                        "source.split.target-size": "big"})
    problems = opts.check()
    assert any("deletion-vectors.enabled = 'yes'" in p for p in problems)
    assert any("num-sorted-run.compaction-trigger = 'many'" in p for p in problems)
    assert any("source.split.target-size" in p for p in problems)
    assert CoreOptions({"deletion-vectors.enabled": "true"}).check() == []


def test_a_refused_option_is_said_by_explain_and_findings(tmp_path: pathlib.Path) -> None:
    import json
    import shutil

    import paimon_lens as pl

    table = tmp_path / "events20"
    shutil.copytree(PACKAGE.parent / "data" / "events20", table)
    latest = max((table / "schema").glob("schema-*"), key=lambda p: int(p.name.split("-")[1]))
    schema = json.loads(latest.read_text(encoding="utf-8"))
    schema["options"]["deletion-vectors.enabled"] = "yes"
    latest.write_text(json.dumps(schema), encoding="utf-8")
    t = pl.open_table(str(table))
    note = "table option deletion-vectors.enabled = 'yes' is not a boolean: read as false"
    assert note in t.explain("country = 'DE'").notes
    assert note in t.find().problems
