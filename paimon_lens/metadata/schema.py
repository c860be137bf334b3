"""Table schemas (``schema/schema-N`` JSON files) and the schema manager that lists them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import CorruptFileError, TableNotFoundError
from ..io.fileio import MAX_JSON_BYTES, FileIO, read_file
from ..types import DataField, TypeParseError, field_from_json
from .options import CoreOptions
from .paths import MAIN_BRANCH, branch_root
from .snapshot import json_field, load_json_object


@dataclass(frozen=True)
class TableSchema:
    """One schema version of a table (Paimon's ``TableSchema``)."""

    id: int
    fields: tuple[DataField, ...]
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]
    options: dict[str, str] = field(hash=False, compare=False)
    comment: str | None = None
    time_millis: int | None = None
    highest_field_id: int | None = None
    version: int | None = None

    @staticmethod
    def from_json(obj: dict[str, Any], path: str | None = None) -> TableSchema:
        """Build from the parsed JSON of a schema file; a field Paimon writes that is missing or of
        another JSON type is a :class:`CorruptFileError` naming it."""
        def get(key: str, kind: type, required: bool = False) -> Any:
            return json_field(obj, key, kind, path, "schema", required)

        for key in ("partitionKeys", "primaryKeys"):
            keys = get(key, list)
            if keys is not None and not all(isinstance(k, str) for k in keys):
                raise CorruptFileError(path, None, f"schema field {key}", "a list of column names", repr(keys)[:80])
        options = get("options", dict) or {}
        bucket = options.get("bucket")
        if bucket is not None and not str(bucket).strip().lstrip("-").isdigit():
            raise CorruptFileError(path, None, "schema option bucket", "an integer", repr(bucket)[:80])
        try:
            schema = TableSchema(
                id=get("id", int, True),
                fields=tuple(field_from_json(f) for f in get("fields", list, True)),
                partition_keys=tuple(get("partitionKeys", list) or ()),
                primary_keys=tuple(get("primaryKeys", list) or ()),
                options={str(k): str(v) for k, v in options.items()},
                comment=get("comment", str),
                time_millis=get("timeMillis", int),
                highest_field_id=get("highestFieldId", int),
                version=get("version", int),
            )
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError, TypeParseError) as e:
            raise CorruptFileError(path, None, "schema JSON", detail=f"{type(e).__name__}: {e}") from None
        names = set(schema.field_names)
        for key, keys in (("partitionKeys", schema.partition_keys), ("primaryKeys", schema.primary_keys)):
            missing = [k for k in keys if k not in names]
            if missing:
                raise CorruptFileError(path, None, f"schema {key}", f"names of fields ({', '.join(sorted(names))})",
                                       ", ".join(map(str, missing)))
        return schema

    @cached_property
    def core_options(self) -> CoreOptions:
        """The options typed as Paimon reads them (parsed once per schema)."""
        return CoreOptions(self.options)

    @property
    def field_names(self) -> list[str]:
        """Column names in order."""
        return [f.name for f in self.fields]

    def field(self, name: str) -> DataField:
        """The field called ``name`` (KeyError if absent)."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def field_by_id(self, field_id: int) -> DataField | None:
        """The field with Paimon field id ``field_id``, or None."""
        for f in self.fields:
            if f.id == field_id:
                return f
        return None

    @property
    def partition_fields(self) -> list[DataField]:
        """Partition columns, in partition-key order."""
        return [self.field(k) for k in self.partition_keys]

    @property
    def trimmed_primary_keys(self) -> list[str]:
        """Primary keys without the partition keys (what ``_MIN_KEY``/``_KEY_STATS`` hold)."""
        return [k for k in self.primary_keys if k not in self.partition_keys]

    @property
    def bucket_keys(self) -> list[str]:
        """``bucket-key`` option, else the trimmed primary keys."""
        opt = self.options.get("bucket-key")
        if opt:
            return [k.strip() for k in opt.split(",") if k.strip()]
        return self.trimmed_primary_keys


class SchemaManager:
    """Reads every ``schema-N`` file of one branch of a table, once."""

    def __init__(self, file_io: FileIO, table_path: str, branch: str | None = None) -> None:
        self.file_io = file_io
        self.table_path = table_path
        self.branch = branch or MAIN_BRANCH
        self.schema_dir = file_io.join(branch_root(table_path, branch, file_io.join), "schema")
        self._cache: dict[int, TableSchema] = {}

    def list_ids(self) -> list[int]:
        """Schema ids present on disk, ascending."""
        ids = []
        for name in self.file_io.list_names(self.schema_dir):
            if name.startswith("schema-") and name[7:].isdigit():
                ids.append(int(name[7:]))
        return sorted(ids)

    def schema(self, schema_id: int) -> TableSchema:
        """Schema ``schema_id`` (read on first use)."""
        if schema_id not in self._cache:
            path = self.file_io.join(self.schema_dir, f"schema-{schema_id}")
            if not self.file_io.exists(path):
                raise TableNotFoundError(f"schema file {path} does not exist")
            raw = read_file(self.file_io, path, limit=MAX_JSON_BYTES)
            self._cache[schema_id] = TableSchema.from_json(load_json_object(raw, path, "schema JSON"), path)
        return self._cache[schema_id]

    def all(self) -> list[TableSchema]:
        """Every schema version, ascending by id."""
        return [self.schema(i) for i in self.list_ids()]

    def latest(self) -> TableSchema:
        """The schema with the highest id."""
        ids = self.list_ids()
        if not ids:
            raise TableNotFoundError(f"{self.table_path} is not a Paimon table: no files in {self.schema_dir}")
        return self.schema(ids[-1])
