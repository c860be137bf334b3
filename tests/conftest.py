"""Shared test helpers: where the Paimon-written fixtures live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def load_json(path: Path) -> Any:
    """Read a JSON fixture."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def oracle_paths() -> list[Path]:
    """Every table oracle (Paimon 0.9 and 2.0 tables)."""
    return sorted(FIXTURES.glob("tables*/*/oracle_*.json"))


def blob_cases() -> list[Path]:
    """Every blob ``case.json`` (file-index blobs and deletion vectors)."""
    return sorted(FIXTURES.glob("blobs/**/case.json"))
