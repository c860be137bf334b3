"""Services laid out for a cluster: a snapshot planned (or its indexes decoded) in Spark tasks.

* ``spark_plan.py``: the driver reads the snapshot and its manifest list; tasks read the manifests,
  a shuffle groups the entries by (partition, bucket), and each group runs the single-process
  services (``explain``, ``file_indexes``) on a reader restricted to it.
"""
