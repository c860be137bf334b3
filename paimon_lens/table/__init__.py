"""The table: one snapshot of a Paimon table with its public face.

* ``facade.py``: :class:`Table` and :func:`open_table`, each question answered by a service on
  the table's engine, with Paimon's rules of the chosen release.
* ``inspect.py``: :class:`InspectTable`, every frame of a table in one namespace (``t.inspect``).
"""

from __future__ import annotations

from .facade import Table, open_table

__all__ = ["Table", "open_table"]
