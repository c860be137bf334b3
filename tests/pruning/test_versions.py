"""``paimon_version``: each modelled rule change between Paimon 0.9 and 2.0, on real tables.

Every test shows one switch of :class:`paimon_lens.pruning.versions.PaimonRules` changing a
decision the way the release notes in ``docs/paimon-versions.md`` say; the golden tests check the
0.9 and 2.0 oracles with their own releases' rules.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import paimon_lens as pl
from paimon_lens.errors import PaimonLensError
from paimon_lens.pruning.versions import RELEASES, PaimonRules, normalize_version, rules_for
from tests.conftest import FIXTURES

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
ORDERS_DV20 = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
SALES = FIXTURES / "tables" / "b_partitioned_append" / "warehouse" / "db.db" / "sales"
STATS_FULL = FIXTURES / "tables20" / "d20_stats_modes" / "warehouse" / "db.db" / "stats_row_tracking"
ROOT = Path(__file__).resolve().parents[2]


def planned(path: Path, where: str, version: str) -> set[str]:
    r = pl.open_table(str(path), paimon_version=version).explain(where)
    return {f.file_name for f in r.files if f.planned}


def test_normalize_version() -> None:
    assert normalize_version("0.9.0") == "0.9" and normalize_version("1.3.1") == "1.3"
    assert normalize_version("2.1") == "2.0" and normalize_version(None) == "2.0" == RELEASES[-1]
    with pytest.raises(ValueError):
        normalize_version("0.8")
    with pytest.raises(ValueError):
        normalize_version("latest-ish")
    with pytest.raises(PaimonLensError, match="older than"):
        pl.open_table(str(EVENTS20), paimon_version="0.5")


def test_docs_table_names_every_rule() -> None:
    doc = (ROOT / "docs" / "paimon-versions.md").read_text()
    for name in PaimonRules.__dataclass_fields__:
        if name != "version":
            assert f"`{name}`" in doc, name


def test_partition_conjuncts_whole_before_1_4() -> None:
    """An OR of per-partition conditions prunes partitions from 1.4 on, not before."""
    where = "(dt = '2025-01-01' AND score > 10) OR (dt = '2025-01-02' AND score > 20)"
    t = pl.open_table(str(EVENTS20))
    parts = {lf.partition["dt"] for lf in t.live_files()}
    assert len(parts) == 3
    new = pl.open_table(str(EVENTS20)).explain(where)
    old = pl.open_table(str(EVENTS20), paimon_version="1.3").explain(where)
    assert {f.partition["dt"] for f in new.files if f.stage == "partition"} == {"2025-01-03"}
    assert not [f for f in old.files if f.stage == "partition"]


def test_bucket_key_in_two_conjuncts() -> None:
    """0.9 gave up bucket pruning when a bucket key appears in two conjuncts; 1.4+ intersects them."""
    where = "user_id IN (3, 5) AND user_id = 5"
    new = pl.open_table(str(SALES)).explain(where)
    old = pl.open_table(str(SALES), paimon_version="0.9").explain(where)
    assert any(f.stage == "bucket" for f in new.files)
    assert not any(f.stage == "bucket" for f in old.files)


def test_bucket_pruning_without_partition_substitution() -> None:
    """1.4+ substitutes partition values per partition, so ORs across partitions prune buckets."""
    where = "(dt = '2024-03-01' AND user_id = 5) OR (dt = '2024-03-02' AND user_id = 7)"
    new = pl.open_table(str(SALES)).explain(where, truth=True)
    old = pl.open_table(str(SALES), paimon_version="1.3").explain(where)
    pruned = [f for f in new.files if f.stage == "bucket"]
    assert {f.partition["dt"] for f in pruned} == {"2024-03-01", "2024-03-02"}
    assert not any(f.matching_rows for f in pruned)
    assert not any(f.stage == "bucket" for f in old.files)


def test_primary_key_file_index_from_1_0() -> None:
    """Paimon 0.9 evaluated no file index on primary-key tables; 1.0+ does with deletion vectors."""
    t_new = pl.open_table(str(ORDERS_DV20))
    t_old = pl.open_table(str(ORDERS_DV20), paimon_version="0.9")
    used_new = used_old = 0
    for where in ("status = 'LOST'", "status = 'SHIPPED'", "customer = 7"):
        used_new += sum(f.decision.index_used_at_planning for f in t_new.explain(where).files)
        used_old += sum(f.decision.index_used_at_planning for f in t_old.explain(where).files)
    assert used_new > 0 and used_old == 0


def test_signed_binary_comparison_before_2_0() -> None:
    """X'FF' is the largest byte for 2.0 and -1 for 0.9-1.4: min/max pruning flips."""
    assert planned(STATS_FULL, "payload > X'FF'", "2.0") == set()
    assert len(planned(STATS_FULL, "payload > X'FF'", "1.4")) == 3
    assert len(planned(STATS_FULL, "payload < X'80'", "2.0")) == 3
    assert planned(STATS_FULL, "payload < X'80'", "0.9") == set()


@pytest.fixture()
def fallback_events(tmp_path: Path) -> Path:
    """events20 whose snapshot 3 is read with ``scan.fallback-branch = late``, a branch holding its
    latest snapshot (laid out as Paimon's createBranch does: snapshot and schemas copied)."""
    import shutil

    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    for schema_file in (copy / "schema").iterdir():
        doc = json.loads(schema_file.read_text())
        doc["options"]["scan.fallback-branch"] = "late"
        schema_file.write_text(json.dumps(doc))
    branch = copy / "branch" / "branch-late"
    (branch / "snapshot").mkdir(parents=True)
    shutil.copytree(EVENTS20 / "schema", branch / "schema")
    shutil.copy(copy / "snapshot" / "snapshot-6", branch / "snapshot" / "snapshot-6")
    (branch / "snapshot" / "LATEST").write_text("6")
    return copy


def test_fallback_partitions_before_1_4(fallback_events: Path) -> None:
    """Before 1.4 a partition whose files the data filter prunes all is read from the fallback
    branch; from 1.4 it is not (the partition exists in the table)."""
    where = "dt = '2025-01-01' AND id > 1300"  # snapshot 3's files of 2025-01-01 hold ids <= 1208
    new = pl.open_table(str(fallback_events), snapshot=3).explain(where, truth=True)
    old = pl.open_table(str(fallback_events), snapshot=3, paimon_version="1.3").explain(where, truth=True)
    assert not [f for f in new.files if f.branch is None and f.planned]
    assert not [f for f in new.files if f.branch == "late" and f.planned]
    late = [f for f in old.files if f.branch == "late" and f.planned]
    assert late and {f.partition["dt"] for f in late} == {"2025-01-01"}
    assert old.summary()["matching_rows"] > 0 == new.summary()["matching_rows"]


def test_every_release_explains_every_fixture_table() -> None:
    for version in RELEASES:
        rules = rules_for(version)
        assert rules.version == version
        for path, where in ((EVENTS20, "id > 3 OR country = 'DE'"), (ORDERS_DV20, "order_id = 7 OR qty > 3"),
                            (SALES, "qty > 3 AND user_id = 5")):
            r = pl.open_table(str(path), paimon_version=version).explain(where, truth=True)
            assert r.paimon_version == version
            assert not [f for f in r.files if f.matching_rows and not f.read and not f.flags], (version, where)


def test_cli_paimon_version() -> None:
    run = subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", "explain", str(SALES),
                          "--where", "user_id IN (3, 5) AND user_id = 5", "--paimon-version", "0.9.0",
                          "--format", "json"], capture_output=True, text=True, check=True)
    doc = json.loads(run.stdout)
    assert doc["paimon_version"] == "0.9"
    text = subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", "explain", str(SALES),
                           "--where", "qty > 3", "--paimon-version", "1.2"], capture_output=True, text=True,
                          check=True).stdout
    assert re.search(r"pruning rules of Paimon 1\.2", text)
    bad = subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", "explain", str(SALES),
                          "--where", "qty > 3", "--paimon-version", "0.1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "older than" in bad.stderr


@pytest.fixture(scope="module")
def binary_bucketed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table of 2 buckets (bucket key ``id``) whose ``payload`` bytes are all below 0x80 (0x01 to 0x7f),
    each file's ids spanning 0 to 7."""
    import pyarrow as pa

    from paimon_lens.writer import TableWriter

    path = tmp_path_factory.mktemp("binary") / "t"
    w = TableWriter.create(path, pa.schema([("id", pa.int64()), ("payload", pa.binary())]), bucket=2,
                           bucket_key="id")
    w.commit(pa.table({"id": list(range(8)), "payload": [b"\x01", b"\x10", b"\x40", b"\x7f"] * 2}))
    return path


@pytest.mark.parametrize("version, keeps", [("2.0", False), ("1.4", True)])
def test_stats_keep_follows_the_release_byte_order_whenever_it_is_asked(binary_bucketed: Path, version: str,
                                                                       keeps: bool) -> None:
    """``payload > X'80'``: 0x80 is above 0x7f unsigned (2.0) and below 0x01 signed (before 2.0). The stats
    answer of a file the bucket stage removed (its stats decoded on first use, after planning) follows the
    release's order, as the plan of the file in the kept bucket does."""
    report = pl.open_table(str(binary_bucketed), paimon_version=version).explain("id = 3 AND payload > X'80'")
    files = report.files
    removed = [f for f in files if f.stage == "bucket"]
    kept = [f for f in files if f.stage != "bucket"]
    assert len(removed) == len(kept) == 1
    assert kept[0].planned is keeps
    assert removed[0].stats_keep is keeps is kept[0].stats_keep
