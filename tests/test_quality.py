"""Project-wide checks: lint, types, and a light ``import paimon_lens``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_clean() -> None:
    r = _run("ruff", "check", "paimon_lens", "tests", "benchmarks")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_clean() -> None:
    r = _run("mypy", "paimon_lens")
    assert r.returncode == 0, r.stdout + r.stderr


def test_import_is_light() -> None:
    code = ("import sys, paimon_lens; heavy = [m for m in ('IPython', 'ipywidgets', 'matplotlib', 'pyspark', "
            "'pandas', 'pyarrow', 'fastavro', 'sqlglot', 'tqdm', 'fsspec') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("command", [["findings", "--format", "json"], ["health", "--format", "json"],
                                     ["files", "--format", "json"], ["indexes", "--format", "json"],
                                     ["explain", "--where", "id = 3", "--format", "json"]])
def test_json_commands_load_no_frames(command: list[str]) -> None:
    """The JSON answers over metadata need neither pandas nor pyarrow (together ~95 MB resident)."""
    table = ROOT / "tests" / "fixtures" / "tables20" / "a20_append_indexed" / "warehouse" / "db.db" / "events20"
    code = ("import sys, io, contextlib\n"
            "from paimon_lens.presentation.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main([{command[0]!r}, {str(table)!r}, *{command[1:]!r}])\n"
            "print(code, [m for m in ('pandas', 'pyarrow', 'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_readme_commands_match_ci() -> None:
    """.ci/run runs the README's test command verbatim."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    for marker in ("<!-- test-command -->", "<!-- system-packages -->"):
        start = readme.index(marker)
        block = readme[start:].split("```bash\n", 1)[1].split("```", 1)[0].strip()
        assert block and block in ci, marker
