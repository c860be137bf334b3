"""paimon-lens: see what an Apache Paimon table's metadata, file indexes and deletion vectors hold.

``import paimon_lens`` is light: notebook, plotting and Spark packages load only when used.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import CorruptFileError, PaimonLensError, SnapshotNotFoundError, TableNotFoundError

__all__ = [
    "CorruptFileError",
    "PaimonLensError",
    "SnapshotNotFoundError",
    "TableNotFoundError",
    "__version__",
    "open_table",
]


def open_table(path: str, snapshot: int | str | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
    """Open a Paimon table directory; see :func:`paimon_lens.table.open_table`."""
    from .table import open_table as _open

    return _open(path, snapshot=snapshot, **kwargs)  # type: ignore[arg-type]
