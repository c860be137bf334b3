"""The official Python client, pypaimon, reads the generated tables: same rows, same files.

pypaimon pins ``pyarrow < 20`` (2.1.0), which conflicts with this project's environment, so it
lives in its own virtual environment, created once under the system temp directory
(``<tmp>/paimon-lens-pypaimon-venv``) and reused by later runs; ``PAIMON_LENS_PYPAIMON_PYTHON``
points at an existing interpreter instead. The test is skipped only when pip cannot reach the
package (no network, no index); any other failure fails the test.

pypaimon opens tables through a filesystem catalog, so the tables are linked into a warehouse as
``<warehouse>/synth.db/<table>``. The script prints, as JSON, the row count, the sorted
``order_id`` values and the data files of the scan's splits.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from paimon_lens.synth.job import SynthResult

VENV = Path(tempfile.gettempdir()) / "paimon-lens-pypaimon-venv"
UNREACHABLE = ("No matching distribution found", "Could not find a version", "NewConnectionError",
               "Failed to establish a new connection", "Temporary failure in name resolution",
               "Network is unreachable", "Max retries exceeded", "ProxyError", "ConnectTimeout")

READ_SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory
catalog = CatalogFactory.create({"warehouse": sys.argv[1]})
table = catalog.get_table(sys.argv[2])
builder = table.new_read_builder()
splits = builder.new_scan().plan().splits()
files = sorted({f.file_name for s in splits for f in s.files})
data = builder.new_read().to_arrow(splits)
import pypaimon
print(json.dumps({"version": getattr(pypaimon, "__version__", "?"), "rows": data.num_rows, "files": files,
                  "columns": data.column_names, "order_ids": sorted(data.column("order_id").to_pylist())}))
"""


def _python_ok(python: Path) -> bool:
    if not python.exists():
        return False
    return subprocess.run([str(python), "-c", "import pypaimon"], capture_output=True).returncode == 0


def _pypaimon_python() -> Path:
    """An interpreter with pypaimon: the override, the cached venv, or a venv built now.

    The venv is built under a staging name and renamed into place (only its ``bin/python`` is
    used, which survives the move), so concurrent or interrupted runs never see half a venv.
    """
    override = os.environ.get("PAIMON_LENS_PYPAIMON_PYTHON")
    if override:
        return Path(override)
    python = VENV / "bin" / "python"
    if _python_ok(python):
        return python
    staging = VENV.with_name(f"{VENV.name}.{uuid.uuid4().hex[:8]}")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(staging)], check=True, capture_output=True)
        pip = subprocess.run([str(staging / "bin" / "python"), "-m", "pip", "install", "--quiet", "pypaimon"],
                             capture_output=True, text=True, timeout=900)
        if pip.returncode != 0:
            output = pip.stdout + pip.stderr
            if any(marker in output for marker in UNREACHABLE):
                pytest.skip(f"pip cannot reach pypaimon: {output.strip().splitlines()[-1]}")
            raise AssertionError(f"pip install pypaimon failed:\n{output}")
        if not _python_ok(python):  # another run may have finished first
            shutil.rmtree(VENV, ignore_errors=True)
            os.replace(staging, VENV)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    assert _python_ok(python), f"{python} cannot import pypaimon"
    return python


@pytest.fixture(scope="module")
def pypaimon_python() -> Path:
    return _pypaimon_python()


def _expected(result: SynthResult) -> dict[str, Any]:
    root = Path(result.path)
    ids: list[int] = []
    for f in result.files:
        column = pq.read_table(root / f.path, columns=["order_id"]).column(0).to_pylist()
        deleted = set(f.deleted)
        ids.extend(v for i, v in enumerate(column) if i not in deleted)
    return {"rows": result.live_rows, "files": sorted(Path(f.path).name for f in result.files),
            "order_ids": sorted(ids)}


def test_pypaimon_reads_the_generated_tables(pypaimon_python: Path, append_table: SynthResult,
                                             pk_table: SynthResult, tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    (warehouse / "synth.db").mkdir(parents=True)
    script = tmp_path / "read.py"
    script.write_text(READ_SCRIPT)
    for name, result in (("orders_append", append_table), ("orders_pk", pk_table)):
        (warehouse / "synth.db" / name).symlink_to(result.path, target_is_directory=True)
        run = subprocess.run([str(pypaimon_python), str(script), str(warehouse), f"synth.{name}"],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        got = json.loads(run.stdout.strip().splitlines()[-1])
        want = _expected(result)
        assert got["rows"] == want["rows"], name
        assert got["files"] == want["files"], name
        assert got["order_ids"] == want["order_ids"], name
        assert got["columns"] == result.spec.column_names, name
        if result.spec.deletion_vectors:
            assert result.deleted_rows > 0 and got["rows"] == result.row_count - result.deleted_rows
