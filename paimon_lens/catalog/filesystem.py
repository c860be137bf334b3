"""Paimon's filesystem catalog: a warehouse of databases and tables, referred to as ``db.table``.

Layout (Paimon's ``FileSystemCatalog``)::

    <warehouse>/
        <database>.db/
            <table>/             a table: schema/schema-N, snapshot/, manifest/ ...
            <table>/ ...

:func:`open_catalog` reads the layout through the same file systems as :func:`open_table` (local
paths, or ``s3://``/``oss://``/``hdfs://`` with fsspec and ``storage_options``). Nothing is read
beyond directory listings until a table is opened; nothing is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError, TableNotFoundError
from ..io.fileio import get_file_io, normalize_uri

if TYPE_CHECKING:
    from ..engines.base import Engine
    from ..presentation.health import WarehouseHealth
    from ..table.facade import Table

DB_SUFFIX = ".db"


def split_identifier(identifier: str) -> tuple[str, str]:
    """``"db.table"`` -> ``("db", "table")``; a name with backquotes keeps its dots (```a.b`.t``)."""
    text = identifier.strip()
    parts: list[str] = []
    current, quoted = "", False
    for c in text:
        if c == "`":
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    if quoted or len(parts) != 2 or not all(parts):
        raise PaimonLensError(f"not a table identifier {identifier!r}: expected database.table")
    return parts[0], parts[1]


class Catalog:
    """A filesystem catalog (warehouse) of Paimon tables.

    Args:
        warehouse: the warehouse directory (local, or a URI fsspec reads).
        storage_options: passed to fsspec for remote warehouses (and to every table opened).
        table_options: defaults for :meth:`table` (``engine``, ``paimon_version`` ...), see
            :func:`~paimon_lens.table.open_table`.
    """

    def __init__(self, warehouse: str, storage_options: dict[str, Any] | None = None, **table_options: Any) -> None:
        self.warehouse = normalize_uri(str(warehouse)).rstrip("/") or "/"
        self.storage_options = storage_options
        self.table_options = table_options
        self.file_io = get_file_io(self.warehouse, storage_options)
        if not self.file_io.exists(self.warehouse):
            raise TableNotFoundError(f"warehouse {warehouse} does not exist")

    def databases(self) -> list[str]:
        """The databases: directories ``<name>.db`` of the warehouse, sorted."""
        return [n[: -len(DB_SUFFIX)] for n in self.file_io.list_names(self.warehouse)
                if n.endswith(DB_SUFFIX) and len(n) > len(DB_SUFFIX)]

    def _database_path(self, database: str) -> str:
        return self.file_io.join(self.warehouse, database + DB_SUFFIX)

    def tables(self, database: str) -> list[str]:
        """The tables of ``database``: its directories holding ``schema/schema-N`` files, sorted."""
        db = self._database_path(database)
        if not self.file_io.exists(db):
            raise TableNotFoundError(f"no database {database!r} in warehouse {self.warehouse}: "
                                     f"databases are {', '.join(self.databases()) or 'none'}")
        return [name for name in self.file_io.list_names(db) if self._is_table(self.file_io.join(db, name))]

    def _is_table(self, path: str) -> bool:
        return any(n.startswith("schema-") for n in self.file_io.list_names(self.file_io.join(path, "schema")))

    def identifiers(self) -> list[str]:
        """Every table of the warehouse as ``db.table``."""
        return [f"{db}.{t}" for db in self.databases() for t in self.tables(db)]

    def table_path(self, identifier: str) -> str:
        """The directory of table ``db.table``."""
        database, name = split_identifier(identifier)
        return self.file_io.join(self._database_path(database), name)

    def table(self, identifier: str, **options: Any) -> Table:
        """Open table ``db.table`` (``snapshot=``, ``branch=`` ... as :func:`~paimon_lens.table.open_table`)."""
        from ..table.facade import open_table

        path = self.table_path(identifier)
        database, name = split_identifier(identifier)
        if not self._is_table(path):  # one listing, not one per table of the database
            raise TableNotFoundError(f"no table {name!r} in database {database!r} of {self.warehouse}: "
                                     f"tables are {', '.join(self.tables(database)) or 'none'}")
        kwargs = {**self.table_options, **options}
        if self.storage_options is not None:
            kwargs.setdefault("storage_options", self.storage_options)
        return open_table(path, **kwargs)

    def health(self, workload_dir: str | None = None, engine: str | Engine | None = None) -> WarehouseHealth:
        """Every table in one row, the most to save first
        (:class:`~paimon_lens.presentation.health.WarehouseHealth`: ``frame()``, ``to_dict()``, ``html``);
        ``workload_dir`` holds ``<db>.<table>.sql`` (or ``<table>.sql``) workload files. On
        ``engine="spark"`` (or a :class:`~paimon_lens.engines.spark.SparkEngine`) the tables are Spark
        tasks (default: the catalog's ``engine`` option)."""
        from ..presentation.health import warehouse_health

        return warehouse_health(self, workload_dir, engine=engine)

    def __repr__(self) -> str:
        return f"<paimon_lens.Catalog {self.warehouse!r}>"


def open_catalog(warehouse: str, storage_options: dict[str, Any] | None = None, **table_options: Any) -> Catalog:
    """The filesystem catalog at ``warehouse`` (see :class:`Catalog`)."""
    return Catalog(warehouse, storage_options, **table_options)
