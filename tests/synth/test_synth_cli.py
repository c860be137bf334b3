"""The ``synth`` subcommand and the argument checks of the Python API (local engine: no Spark)."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

import paimon_lens as pl
from paimon_lens.synth import add_synth_parser, cmd_synth, synth_table
from paimon_lens.synth.spec import DEFAULT_INDEXES, SynthSpec, parse_indexes


def _run(argv: list[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="paimon-lens")
    add_synth_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    out = io.StringIO()
    code: int = args.func(args, out)
    assert args.func is cmd_synth
    return code, out.getvalue()


def test_cli_local_json(tmp_path: Path) -> None:
    target = tmp_path / "t"
    code, text = _run(["synth", str(target), "--rows", "900", "--files", "3", "--partitions", "2",
                       "--primary-key", "--deletion-vectors", "--buckets", "1", "--indexes", "bitmap:status",
                       "bsi:quantity", "--option", "file-index.in-manifest-threshold=64kb", "--seed", "4",
                       "--local", "--format", "json"])
    assert code == 0
    doc = json.loads(text)
    assert doc["files"] == 3 and doc["rows"] == 900 and doc["engine"] == "local"
    assert doc["spec"]["primary_key"] == ["dt", "order_id"] and doc["spec"]["indexes"] == ["bitmap:status",
                                                                                          "bsi:quantity"]
    assert doc["embedded_indexes"] == 3
    t = pl.open_table(str(target))
    assert len(t.files()) == 3 and t.schema.options["file-index.in-manifest-threshold"] == "64kb"
    assert int(t.deletion_vectors()["cardinality"].sum()) == doc["deleted_rows"]


def test_cli_text_and_errors(tmp_path: Path) -> None:
    code, text = _run(["synth", str(tmp_path / "a"), "--rows", "50", "--files", "2", "--indexes", "none", "--local"])
    assert code == 0 and "append table" in text and "indexes: none" in text
    code, text = _run(["synth", str(tmp_path / "a"), "--rows", "50", "--files", "2", "--local"])
    assert code == 2 and "not an empty directory" in text
    code, text = _run(["synth", str(tmp_path / "b"), "--rows", "50", "--files", "2", "--deletion-vectors",
                       "--local"])
    assert code == 2 and "primary-key tables only" in text
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rows": 1, "files": 2}, "at least files"),
    ({"rows": 10, "files": 0}, "files must be"),
    ({"rows": 10, "files": 1, "primary_key": "customer_id"}, "only order_id is unique"),
    ({"rows": 10, "files": 1, "buckets": 3}, "bucket-unaware"),
    ({"rows": 10, "files": 1, "indexes": "bitmap:nope"}, "not a column"),
    ({"rows": 10, "files": 1, "indexes": "hash:status"}, "unknown index type"),
    ({"rows": 10, "files": 1, "indexes": "status"}, "TYPE:COL"),
    ({"rows": 10, "files": 1, "options": {"bucket": "3"}}, "set by the generator"),
    ({"rows": 10, "files": 1, "engine": "ray"}, "engine must be"),
])
def test_bad_arguments(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        synth_table(tmp_path / "t", **{"engine": "local", **kwargs})
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())


def test_index_spec_forms() -> None:
    want = (("bitmap", "status"), ("bitmap", "country"), ("bloom-filter", "customer_id"))
    assert parse_indexes("bitmap:status,country bloom-filter:customer_id") == want
    assert parse_indexes(["bitmap:status,country", "bloom-filter:customer_id"]) == want
    assert parse_indexes({"bitmap": ["status", "country"], "bloom-filter": "customer_id"}) == want
    assert parse_indexes(list(want)) == want
    assert parse_indexes(None) == DEFAULT_INDEXES
    assert parse_indexes("none") == () == parse_indexes([])


def test_primary_key_includes_the_partition_key() -> None:
    spec = SynthSpec.make(rows=10, files=2, partitions=3, primary_key=True)
    assert spec.primary_key == ("dt", "order_id") and spec.buckets == 2
    assert spec.table_options()["bucket-key"] == "order_id"
    assert SynthSpec.make(rows=10, files=2, primary_key="order_id").primary_key == ("order_id",)
    counts = SynthSpec.make(rows=1001, files=7, seed=3).file_row_counts()
    assert sum(counts) == 1001 and min(counts) >= 1 and max(counts) > min(counts)
