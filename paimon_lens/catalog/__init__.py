"""Warehouses: Paimon's filesystem catalog of databases and tables (``db.table``).

* ``filesystem.py``: :class:`Catalog` and :func:`open_catalog` over ``<warehouse>/<db>.db/<table>``.
"""

from __future__ import annotations

from .filesystem import DB_SUFFIX, Catalog, open_catalog, split_identifier

__all__ = ["DB_SUFFIX", "Catalog", "open_catalog", "split_identifier"]
