"""Test utilities: oracle predicate trees -> predicate models, and index containers of oracle files.

* :func:`tree_to_predicate` converts an oracle/case.json ``tree`` (leaves ``{op, field,
  field_index, type, literals}``, compounds ``{op: And|Or, children}``) into
  :mod:`paimon_lens.predicate.model` objects, decoding literals with
  :func:`paimon_lens.values.from_json` and types with :func:`paimon_lens.types.parse_type`.
* :class:`OracleTable` gives, for each data file of a table oracle, its row type (the file's
  schema) and its index container bytes: the external ``.index`` file, or the
  ``_EMBEDDED_FILE_INDEX`` of its manifest entry (read here with fastavro directly, so these tests
  do not depend on paimon-lens's own manifest reader).
"""

from __future__ import annotations

import os
import zlib
from functools import cached_property
from pathlib import Path
from typing import Any

import fastavro

from paimon_lens.predicate.model import CompoundPredicate, LeafPredicate, Predicate
from paimon_lens.types import DataField, field_from_json, parse_type
from paimon_lens.values import from_json
from tests.conftest import load_json


def tree_to_predicate(tree: dict[str, Any]) -> Predicate:
    """An oracle ``tree`` as a predicate model."""
    op = tree["op"]
    if op in ("And", "Or"):
        return CompoundPredicate(op, tuple(tree_to_predicate(c) for c in tree["children"]))
    dtype = parse_type(tree["type"])
    literals = tuple(from_json(v, dtype) for v in tree.get("literals") or ())
    return LeafPredicate(op, tree["field"], int(tree.get("field_index", -1)), dtype, literals)


def tree_fields(tree: dict[str, Any]) -> set[str]:
    """Field names used by a tree."""
    if tree["op"] in ("And", "Or"):
        out: set[str] = set()
        for c in tree["children"]:
            out |= tree_fields(c)
        return out
    return {tree["field"]}


def row_type_from_json(fields: list[dict[str, Any]]) -> list[DataField]:
    """``[{id, name, type}]`` -> fields."""
    return [field_from_json(f) for f in fields]


def positions_crc32(positions: list[int]) -> int:
    """The oracle's ``*_crc32``: zlib.crc32 of the sorted positions as little-endian int32s."""
    if not positions:
        return 0
    data = b"".join(int(p).to_bytes(4, "little", signed=True) for p in sorted(positions))
    return zlib.crc32(data)


def embedded_file_indexes(table_dir: Path) -> dict[str, bytes]:
    """``_FILE._FILE_NAME`` -> ``_EMBEDDED_FILE_INDEX`` over every manifest of a table."""
    out: dict[str, bytes] = {}
    manifest_dir = table_dir / "manifest"
    for name in sorted(os.listdir(manifest_dir)):
        if not name.startswith("manifest-") or name.startswith("manifest-list-"):
            continue
        with open(manifest_dir / name, "rb") as f:
            for rec in fastavro.reader(f):
                file_meta = rec.get("_FILE") if isinstance(rec, dict) else None
                if not isinstance(file_meta, dict):
                    break  # not a data manifest
                data = file_meta.get("_EMBEDDED_FILE_INDEX")
                if data is not None:
                    out[file_meta["_FILE_NAME"]] = bytes(data)
    return out


class OracleTable:
    """One ``oracle_<table>.json`` and the warehouse beside it."""

    def __init__(self, oracle_path: Path) -> None:
        self.oracle_path = oracle_path
        self.oracle: dict[str, Any] = load_json(oracle_path)
        self.version: str = self.oracle["paimon_version"]
        self.table_dir = oracle_path.parent / self.oracle["table"]["path"]
        self.files: dict[str, dict[str, Any]] = {f["file_name"]: f for f in self.oracle["files"]}

    @property
    def name(self) -> str:
        """``<scenario>/<table>``."""
        return f"{self.oracle_path.parent.name}/{self.oracle['table']['name']}"

    @property
    def is_09(self) -> bool:
        """Written and judged by Paimon 0.9."""
        return self.version.startswith("0.9")

    @cached_property
    def embedded(self) -> dict[str, bytes]:
        """Embedded index bytes by data file name."""
        return embedded_file_indexes(self.table_dir)

    def row_type(self, file: dict[str, Any]) -> list[DataField]:
        """The row type of the schema the file was written with."""
        for s in self.oracle.get("schemas") or ():
            if int(s["id"]) == int(file["schema_id"]):
                return row_type_from_json(s["row_type"])
        return row_type_from_json(self.oracle["table"]["row_type"])

    def index_path(self, file: dict[str, Any]) -> Path:
        """Path of an external ``.index`` file: table dir + dirname(file path) + file name."""
        fi = file["file_index"]
        return self.table_dir / os.path.dirname(file["path"]) / os.path.basename(fi["file"])

    def container(self, file: dict[str, Any]) -> tuple[bytes, str] | None:
        """``(container bytes, path for errors)`` of a file, or None without an index."""
        fi = file["file_index"]
        if fi["location"] == "external":
            p = self.index_path(file)
            return p.read_bytes(), str(p)
        if fi["location"] == "embedded":
            return self.embedded[file["file_name"]], f"{file['file_name']}: _EMBEDDED_FILE_INDEX"
        return None
