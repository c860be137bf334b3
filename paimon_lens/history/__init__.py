"""A table over its snapshots: the timeline (:mod:`.timeline`) and what changed between two
snapshots, for the table and for a query (:mod:`.diff`)."""
