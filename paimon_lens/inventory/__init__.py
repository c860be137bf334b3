"""Inventories: what one snapshot's indexes and deletion vectors hold, decoded on an engine.

* ``file_indexes.py``: every data file's file-index container (embedded or ``.index`` file),
  each index decoded and summarised (:class:`IndexInfo`, the lean :class:`IndexFact` rows).
* ``deletion_vectors.py``: deletion vectors per data file and the HASH (dynamic bucket) index.
* ``global_indexes.py``: global and primary-key index files (Paimon 1.4 / 2.0), decoded, and
  the row ranges each covers.
"""
