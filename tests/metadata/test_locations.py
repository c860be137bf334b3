"""Where files live: branches, ``index-file-in-data-file-dir``, external data paths, ``path_map``.

Each test takes a table Paimon wrote (``tests/fixtures/tables20``), moves its files where the
feature puts them and rewrites the metadata that names them, as Paimon would have written it with
the feature on; every frame and explanation must then equal the untouched table's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import paimon_lens as pl
from paimon_lens.errors import TableNotFoundError
from paimon_lens.io.fileio import normalize_uri
from tests.conftest import FIXTURES, rewrite_avro

EVENTS20 = FIXTURES / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
ORDERS_DV20 = FIXTURES / "tables20" / "b20_pk_dv" / "warehouse" / "db.db" / "orders_dv20"
PREDICATES = ["country = 'DE'", "score > 50 AND status = 'PAID'", "id IN (1, 2, 3)", "dt = '2025-01-02'",
              "user_id IS NULL OR score < 10"]
PK_PREDICATES = ["status = 'SHIPPED'", "qty > 3", "order_id < 100", "customer = 7 OR note IS NULL"]


def _set_options(table_dir: Path, **options: str) -> None:
    for schema_file in (table_dir / "schema").iterdir():
        doc = json.loads(schema_file.read_text())
        doc["options"].update(options)
        schema_file.write_text(json.dumps(doc))


def _explain_frames(t: pl.Table, wheres: list[str]) -> list[tuple[pd.DataFrame, list[dict[str, Any]]]]:
    out = []
    for w in wheres:
        r = t.explain(w, truth=True)
        assert not r.notes, r.notes
        out.append((r.to_frame(), r.funnel()))
    return out


def _assert_same_explains(got: pl.Table, want: pl.Table, wheres: list[str]) -> None:
    for w, (a, b) in zip(wheres, zip(_explain_frames(got, wheres), _explain_frames(want, wheres))):
        pd.testing.assert_frame_equal(a[0], b[0], obj=w)
        assert a[1] == b[1], w


# ---- index-file-in-data-file-dir -----------------------------------------------------------------
def test_deletion_vectors_in_the_bucket_directory(tmp_path: Path) -> None:
    want = pl.open_table(str(ORDERS_DV20))
    copy = tmp_path / "orders"
    shutil.copytree(ORDERS_DV20, copy)
    _set_options(copy, **{"index-file-in-data-file-dir": "true"})
    moved = 0
    for e in want.index_entries():
        part = want.reader.decode_partition(e.partition, "test")
        target = copy / want.reader.bucket_path(e.bucket, part) / e.file_name
        shutil.move(str(copy / "index" / e.file_name), target)
        moved += 1
    assert moved
    got = pl.open_table(str(copy))
    dvs = got.deletion_vectors()
    assert dvs["error"].isna().all() and dvs["crc_ok"].all()
    pd.testing.assert_frame_equal(dvs.drop(columns=["index_file"]),
                                  want.deletion_vectors().drop(columns=["index_file"]))
    assert all(str(p).startswith("bucket-") for p in dvs["index_file"])
    _assert_same_explains(got, want, PK_PREDICATES)


def test_missing_deletion_vector_file_is_a_per_file_error(tmp_path: Path) -> None:
    copy = tmp_path / "orders"
    shutil.copytree(ORDERS_DV20, copy)
    _set_options(copy, **{"index-file-in-data-file-dir": "true"})  # files stay in index/: not found
    dvs = pl.open_table(str(copy)).deletion_vectors()
    assert len(dvs) > 0 and dvs["error"].notna().all()
    assert all("bucket-" in e and "No such file" in e for e in dvs["error"])


# ---- external data paths -------------------------------------------------------------------------
def _externalize(table_dir: Path, external_root: Path, scheme_prefix: str) -> int:
    """Move every data file (and its ``.index`` file) under ``external_root`` as Paimon's external
    path strategy does, and name them in ``_EXTERNAL_PATH``."""
    moved = 0
    for manifest in (table_dir / "manifest").glob("manifest-*"):
        if manifest.name.startswith("manifest-list"):
            continue

        def change(r: dict[str, Any]) -> None:
            nonlocal moved
            f = r["_FILE"]
            rel = next(p.relative_to(table_dir) for p in table_dir.rglob(f["_FILE_NAME"]))
            target = external_root / rel
            f["_EXTERNAL_PATH"] = scheme_prefix + str(target)
            for name in [f["_FILE_NAME"], *f["_EXTRA_FILES"]]:
                src = table_dir / rel.parent / name
                if src.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(src), target.parent / name)
                    moved += 1

        rewrite_avro(manifest, change)
    return moved


@pytest.fixture(scope="module")
def external_events(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ext")
    copy, external = root / "events20", root / "external"
    shutil.copytree(EVENTS20, copy)
    _set_options(copy, **{"data-file.external-paths": f"FILE://{external}",
                          "data-file.external-paths.strategy": "round-robin"})
    assert _externalize(copy, external, "FILE:") > 0
    assert not list(copy.rglob("data-*"))
    return copy, external


def test_external_data_paths_give_the_same_answers(external_events: tuple[Path, Path]) -> None:
    copy, external = external_events
    want, got = pl.open_table(str(EVENTS20)), pl.open_table(str(copy))
    files = got.files()
    assert all(str(p).startswith("FILE:" + str(external)) for p in files["file_path"])
    assert files["error"].isna().all()
    keep = [c for c in files.columns if c not in ("file_path", "external_path", "index_file")]
    pd.testing.assert_frame_equal(files[keep], want.files()[keep])
    idx = got.file_indexes()
    assert idx["error"].isna().all()
    pd.testing.assert_frame_equal(idx.drop(columns=["index_file"], errors="ignore"),
                                  want.file_indexes().drop(columns=["index_file"], errors="ignore"))
    _assert_same_explains(got, want, PREDICATES)


def test_path_map_finds_moved_external_files(external_events: tuple[Path, Path], tmp_path: Path) -> None:
    copy, external = external_events
    elsewhere = tmp_path / "mounted"
    shutil.copytree(external, elsewhere)
    want = pl.open_table(str(EVENTS20))
    got = pl.open_table(str(copy), path_map={f"file://{external}": str(elsewhere)})
    _assert_same_explains(got, want, PREDICATES[:2])
    assert got.file_indexes()["error"].isna().all()


def test_unreachable_external_path_is_a_per_file_error(external_events: tuple[Path, Path], tmp_path: Path) -> None:
    copy, external = external_events
    t = pl.open_table(str(copy), path_map={f"FILE:{external}": str(tmp_path / "nowhere")})
    r = t.explain("country = 'DE'", truth=True)
    read = [f for f in r.files if f.read]
    assert read and len(r.notes) >= len(read)
    assert all("nowhere" in n for n in r.notes)
    assert sum("ground truth unavailable" in n for n in r.notes) == len(r.files)
    assert all(f.error and "nowhere" in f.error for f in r.files)
    assert r.summary()["files_with_errors"] == len(r.files)
    files = t.files()
    assert files["error"].notna().all() and all("nowhere" in e and "path_map" in e for e in files["error"])
    idx = t.file_indexes()
    external_index = idx[idx["storage"] == "external"] if "storage" in idx else idx
    assert len(external_index) and external_index["error"].notna().all()


def test_missing_external_index_is_an_error_on_the_verdict(tmp_path: Path) -> None:
    copy = tmp_path / "events20"
    shutil.copytree(EVENTS20, copy)
    removed = [p.name for p in copy.rglob("*.index")]
    for p in copy.rglob("*.index"):
        p.unlink()
    r = pl.open_table(str(copy)).explain("country = 'DE'")
    broken = {f.file_name: f.error for f in r.files if f.error}
    assert broken and {n + ".index" for n in broken} <= set(removed)
    assert all("index could not be read" in e and "FileNotFoundError" in e for e in broken.values())
    assert r.summary()["files_with_errors"] == len(broken)
    assert r.to_frame()["error"].notna().sum() == len(broken)
    assert all(rec["error"] for rec in r.to_dict()["files"] if rec["file_name"] in broken)
    assert len([n for n in r.notes if "index could not be read" in n]) == len(broken)


def test_normalize_uri() -> None:
    assert normalize_uri("FILE:/tmp/x") == "/tmp/x"
    assert normalize_uri("file:///tmp/x") == "/tmp/x"
    assert normalize_uri("file:/tmp/x") == "/tmp/x"
    assert normalize_uri("OSS://bucket/k") == "oss://bucket/k"
    assert normalize_uri("relative/path") == "relative/path"


# ---- branches ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def branched_events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """events20 with branch ``dev`` created from snapshot 3 as Paimon's createBranch(tag) lays it out:
    the snapshot and the schemas up to it copied into ``branch/branch-dev``; manifests and data
    files stay shared in the table directory."""
    copy = tmp_path_factory.mktemp("branch") / "events20"
    shutil.copytree(EVENTS20, copy)
    base = pl.open_table(str(copy), snapshot=3)
    branch = copy / "branch" / "branch-dev"
    (branch / "snapshot").mkdir(parents=True)
    (branch / "schema").mkdir()
    shutil.copy(copy / "snapshot" / "snapshot-3", branch / "snapshot" / "snapshot-3")
    (branch / "snapshot" / "LATEST").write_text("3")
    (branch / "snapshot" / "EARLIEST").write_text("3")
    for sid in range(base.snapshot.schema_id + 1):
        shutil.copy(copy / "schema" / f"schema-{sid}", branch / "schema" / f"schema-{sid}")
    (branch / "tag").mkdir()
    shutil.copy(copy / "snapshot" / "snapshot-3", branch / "tag" / "tag-first")
    return copy


def test_branch_reads_its_own_snapshots(branched_events: Path) -> None:
    main = pl.open_table(str(branched_events))
    dev = pl.open_table(str(branched_events), branch="dev")
    assert main.branch == "main" and dev.branch == "dev" and main.branches() == ["dev"]
    assert dev.snapshot_id == 3 and list(dev.snapshots()["snapshot_id"]) == [3]
    at3 = main.at(3)
    pd.testing.assert_frame_equal(dev.files(), at3.files())
    assert dev.at("tag:first").snapshot_id == 3
    assert dev.explain("country = 'DE'").funnel() == at3.explain("country = 'DE'").funnel()
    by_path = pl.open_table(str(branched_events / "branch" / "branch-dev"))
    assert by_path.branch == "dev" and by_path.path == dev.path
    assert "branch='dev'" in repr(dev)


def test_unknown_branch(branched_events: Path) -> None:
    with pytest.raises(TableNotFoundError, match=r"no branch 'nope' \(branches: dev\)"):
        pl.open_table(str(branched_events), branch="nope")


def test_cli_branch(branched_events: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", "files", str(branched_events),
                          "--branch", "dev", "--format", "json"], capture_output=True, text=True, check=True)
    doc = json.loads(run.stdout)
    assert doc["branch"] == "dev" and doc["snapshot_id"] == 3
    run = subprocess.run([sys.executable, "-m", "paimon_lens.presentation.cli", "explain", str(branched_events),
                          "--branch", "dev", "--where", "country = 'DE'", "--format", "json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(run.stdout)["branch"] == "dev"


def test_blank_partition_values_use_the_default_partition_name() -> None:
    """``InternalRowPartitionComputer``: a null, empty or whitespace-only value goes to
    ``partition.default-name`` (Java ``Character.isWhitespace``: not the no-break spaces)."""
    from paimon_lens.metadata.paths import partition_path
    from paimon_lens.types import DataField, parse_type

    f = [DataField(0, "p", parse_type("STRING"))]
    for blank in ("", " ", "\t \n", "\u3000"):
        assert partition_path([blank], f, {}) == "p=__DEFAULT_PARTITION__"
    assert partition_path([None], f, {"partition.default-name": "none"}) == "p=none"
    assert partition_path(["\u00a0"], f, {}) == "p=\u00a0"
    assert partition_path(["a b"], f, {}) == "p=a b"
