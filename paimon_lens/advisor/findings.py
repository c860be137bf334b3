"""Findings: what is wrong with a table's layout and indexes, ranked by what it costs, with the fix.

Each finding is derived from measured numbers of one snapshot (file sizes, decoded index
summaries, deletion vectors, and with a workload the explain of every predicate) and carries its
evidence, its cost and the statement that fixes it. The checks:

``index-size``
    A file index as big as a quarter of the data it indexes (or more): every query that consults
    it reads those bytes, and the table stores them.
``bloom-oversized``
    A bloom filter sized for many more items than its files hold rows (Paimon's default is
    1,000,000 items, 600 KB per file): the filter stays almost empty and costs its bytes on every
    lookup. Fix: ``items`` near the rows per file.
``index-unused`` (workload)
    An index on a column no workload predicate names.
``index-never-skips`` (workload)
    An index on a column the workload filters on, where no predicate naming the column skipped a
    file or selected rows with an index.
``unindexed-filter`` (workload)
    A column the workload filters on without a file index, whose predicates still read most of the
    files partition and stats pruning leave.
``no-stats`` (workload)
    A column the workload filters on whose ``metadata.stats-mode`` (or ``fields.<col>.stats-mode``,
    or ``metadata.stats-keep-first-n-columns``) keeps no min/max in the manifests: stats pruning
    cannot skip a file on it.
``read-for-nothing`` (workload)
    A query that reads files holding no row it matches (at least a quarter of the files it reads),
    found by reading the predicate's columns of the files it reads (ground truth), when those are
    at most :data:`TRUTH_MAX_FILES` files over the workload (else the check is named in ``notes``).
``dv-bloat``
    A bucket whose deletion vectors mark a fifth of its rows deleted (or more): readers still read
    and drop them until a compaction rewrites the files.
``small-files``
    A bucket of at least :data:`SMALL_FILES_MIN` files whose median is below an eighth of
    ``target-file-size``: each file costs an open, a footer and index lookups per query.
``uncompacted-bucket``
    A primary-key bucket holding at least ``num-sorted-run.compaction-trigger`` (5) level-0 files:
    each is a sorted run every read merges with the others until a compaction folds them in.
``embedded-indexes``
    At least :data:`EMBEDDED_MIN` bytes of index containers embedded in the manifests
    (``file-index.in-manifest-threshold``): every scan plan reads and decodes them, for every file,
    whether the query consults those indexes or not.

A finding's ``impact`` says what it costs in its own unit (bytes, rows, files); ``score`` ranks
findings in one unit, bytes: read per run of the workload (or of a scan, without one) or stored
(deleted rows at their bucket's bytes per row, a small file at the footer read each open costs:
its size up to :data:`FILE_OPEN_BYTES`). Bucket findings of one kind (small files, deleted
rows, level-0 runs) are one finding per table, its buckets listed the most costly first.
Statements use Spark SQL (``ALTER TABLE ... SET TBLPROPERTIES``, ``CALL sys.compact``); option
changes apply to files written from then on (a full compaction rewrites the existing ones).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..formats.bloom import DEFAULT_FPP, DEFAULT_ITEMS, bloom_filter_sizing
from ..inventory.global_indexes import global_index_columns
from ..metadata.options import SMALL_FILE_DIVISOR, target_file_size
from ..metadata.snapshot_reader import IndexLocation
from ..predicate.model import leaves
from ..rendering import render
from ..units import human_bytes, human_count, human_percent
from .advise import INDEX_SIZE_RATIO, alter_table
from .finding import Finding, FixAction, Procedure, table_ref
from .global_findings import global_index_findings

if TYPE_CHECKING:
    import pandas as pd

    from ..engines.base import Engine
    from ..inventory.file_indexes import IndexRow
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..pruning.versions import PaimonRules
    from ..workload.model import Workload

BLOOM_OVERSIZE = 10
"""A bloom filter sized for at least this many times the rows of its largest files is reported."""
DV_BLOAT_RATIO = 0.2
"""A bucket whose deleted rows are at least this fraction of its rows is reported."""
SMALL_FILES_MIN = 5
"""Files a bucket needs before its file sizes are judged."""
FILE_OPEN_BYTES = 64 << 10
"""Bytes one open of a data file reads before its rows (the footer read Parquet and ORC readers
make, 64 KiB, or the whole file when smaller): what a small file costs per query."""
TRUTH_MAX_FILES = 500
"""Files the workload reads, at most, for the ground-truth check (read-for-nothing) to run."""
READ_FOR_NOTHING_RATIO = 0.25
"""A query is reported when at least this fraction of the files it reads hold no matching row."""
EMBEDDED_MIN = 256 << 10
"""Embedded index bytes from which the manifests' load is reported."""
UNINDEXED_READ_RATIO = 0.5
"""An unindexed filter column is reported when its predicates read at least this fraction of files."""



@dataclass
class Findings:
    """The ranked findings of one snapshot (most costly first) and what could not be checked."""

    table: SnapshotReader
    items: list[Finding]
    workload_source: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Checks that were not run, and why (not errors: the answer is complete for the others)."""

    def __iter__(self) -> Any:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def frame(self) -> pd.DataFrame:
        """One row per finding, ranked (:meth:`Finding.to_dict`; columns:
        :data:`~paimon_lens.presentation.frame_columns.FINDING_COLUMNS`)."""
        return cast("pd.DataFrame", render(self, "frame"))

    def to_dict(self) -> dict[str, Any]:
        """The ``findings --format json`` document."""
        t = self.table
        return {"table": t.path, "branch": t.branch, "snapshot_id": t.snapshot_id,
                "workload": self.workload_source, "findings": [f.to_dict() for f in self.items],
                "problems": list(self.problems), "notes": list(self.notes)}


# ---- helpers ------------------------------------------------------------------------------------

def set_options(table: SnapshotReader, options: dict[str, str | None]) -> list[str]:
    """Spark ``ALTER TABLE`` statements setting (or, for None, unsetting) table options."""
    return alter_table(table_ref(table), {k: v for k, v in options.items() if v is not None},
                       [k for k, v in options.items() if v is None])


def _index_columns(options: dict[str, str], index_type: str) -> list[str]:
    raw = options.get(f"file-index.{index_type}.columns", "")
    return [c.strip() for c in raw.split(",") if c.strip()]


def _drop_index(table: SnapshotReader, column: str, index_type: str) -> list[str]:
    """Statements removing ``column`` from ``file-index.<type>.columns`` (and its own options)."""
    opts = table.schema.options
    rest = [c for c in _index_columns(opts, index_type) if c != column]
    change: dict[str, str | None] = {f"file-index.{index_type}.columns": ",".join(rest) if rest else None}
    prefix = f"file-index.{index_type}.{column}."
    change.update({k: None for k in opts if k.startswith(prefix)})
    return set_options(table, change)


def _partition_text(partition: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in partition.items())


def buckets(table: SnapshotReader) -> dict[tuple[str, int], list[LiveFile]]:
    """The live files of each (partition, bucket), keyed by the partition's text and the bucket."""
    out: dict[tuple[str, int], list[LiveFile]] = defaultdict(list)
    for lf in table.live_files():
        out[(_partition_text(lf.partition), lf.entry.bucket)].append(lf)
    return out


def deleted_rows(table: SnapshotReader, engine: Engine | None = None) -> dict[str, int]:
    """Rows each data file's deletion vector marks deleted (files whose vector decodes)."""
    from ..inventory.deletion_vectors import deletion_vector_infos

    return {dv.data_file: dv.cardinality for dv in deletion_vector_infos(table, engine)
            if dv.error is None and dv.cardinality}


def _compact(table: SnapshotReader, partition: dict[str, Any]) -> str:
    return _compact_many(table, [partition]).sql()


def _compaction(partition: dict[str, Any]) -> FixAction:
    return FixAction(compact=(tuple(partition.items()),))


def _where(partition: dict[str, Any], bucket: int) -> str:
    return (f"partition {_partition_text(partition)}, " if partition else "") + f"bucket {bucket}"


def _filtering(n: int) -> str:
    return "1 workload query filters" if n == 1 else f"{n} workload queries filter"


def bucket_deletions(table: SnapshotReader, engine: Engine | None = None) -> list[dict[str, Any]]:
    """Per partition and bucket holding a deletion vector: its files, the files with a vector, the
    rows they mark deleted, all the bucket's rows and the deleted ratio (of all its rows: the one
    figure the findings, the report's table and its plot show)."""
    deleted = deleted_rows(table, engine)
    out = []
    for (partition, bucket), files in sorted(buckets(table).items()):
        gone = sum(deleted.get(lf.entry.file.file_name, 0) for lf in files)
        if not gone:
            continue
        rows = sum(lf.entry.file.row_count for lf in files)
        out.append({"partition": partition, "bucket": bucket, "files": len(files),
                    "files_with_dv": sum(1 for lf in files if lf.entry.file.file_name in deleted),
                    "deleted_rows": gone, "rows": rows, "deleted_ratio": gone / rows if rows else None,
                    "bytes": sum(lf.entry.file.file_size for lf in files), "first": files[0]})
    return out


def _compact_many(table: SnapshotReader, partitions: Sequence[dict[str, Any]]) -> Procedure:
    """One compaction of ``partitions`` (the whole table when one of them is the empty partition)."""
    args: tuple[tuple[str, str], ...] = (("table", table_ref(table)),)
    texts = list(dict.fromkeys(_partition_text(p) for p in partitions if p))
    if texts and all(partitions):
        args += (("partitions", ";".join(texts)),)
    return Procedure("compact", args)


class _BucketKind(NamedTuple):
    """How several buckets' findings of one kind read as one: the detail summed, the title and
    impact from the total, the fix."""

    measure: str
    title: str
    impact: str
    fix: str


_BUCKET_KINDS: dict[str, _BucketKind] = {
    "small-files": _BucketKind("files", "{n} buckets hold {total} small files",
                               "{total} file opens, footers and index lookups per query",
                               "compact these partitions so that files approach target-file-size"),
    "dv-bloat": _BucketKind("deleted_rows", "{n} buckets have a fifth or more of their rows deleted",
                            "{total} deleted rows read and dropped per scan",
                            "compact these partitions: the rewrite drops the deleted rows"),
    "uncompacted-bucket": _BucketKind("level0_files", "{n} buckets hold {total} level-0 sorted runs",
                                      "every read of these buckets merges their level-0 runs",
                                      "compact these buckets: a compaction merges the level-0 runs into one level"),
}


def _one_per_table(items: list[Finding], table: SnapshotReader) -> list[Finding]:
    """The bucket findings of one kind as one finding of the table: its buckets listed, the most
    costly first, and one compaction of their partitions."""
    out: list[Finding] = []
    for kind, (measure, title, impact, fix) in _BUCKET_KINDS.items():
        group = sorted((f for f in items if f.kind == kind), key=lambda f: -f.score)
        if len(group) < 2:
            out += group
            continue
        total = sum(int(f.details[measure]) for f in group)
        partitions = [dict(p) for f in group for p in f.action.compact]
        proc = _compact_many(table, partitions)
        out.append(Finding(
            kind, title.format(n=len(group), total=human_count(total)), "; ".join(f.subject for f in group),
            "; ".join(f"{f.subject}: {f.evidence}" for f in group), impact.format(total=human_count(total)),
            sum(f.score for f in group), fix, (proc.sql(),),
            {measure: total, "buckets": [{"subject": f.subject, **f.details} for f in group]},
            FixAction(compact=tuple(p for f in group for p in f.action.compact))))
    return out + [f for f in items if f.kind not in _BUCKET_KINDS]


# ---- the checks ---------------------------------------------------------------------------------

def _index_size(table: SnapshotReader, infos: Sequence[IndexRow]) -> list[Finding]:
    by_index: dict[tuple[str, str], list[IndexRow]] = defaultdict(list)
    for info in infos:
        if info.column:
            by_index[(info.column, info.index_type)].append(info)
    out = []
    for (column, index_type), part in sorted(by_index.items()):
        index_bytes = sum(i.bytes for i in part if i.bytes is not None)  # None only on container errors
        data_bytes = sum(i.file.entry.file.file_size for i in part)
        if not data_bytes or index_bytes < INDEX_SIZE_RATIO * data_bytes:
            continue
        ratio = index_bytes / data_bytes
        out.append(Finding(
            "index-size", f"{index_type} index on {column} is {human_percent(ratio)} of the data it indexes",
            column, f"{human_bytes(index_bytes)} of {index_type} index over {len(part)} files holding "
            f"{human_bytes(data_bytes)} of data", f"{human_bytes(index_bytes)} stored, read by every query "
            "that consults it", float(index_bytes),
            f"drop the {index_type} index on {column} unless queries need it (see index-unused / recommend)"
            + ("; a bloom-filter is a fraction of the size for = and IN" if index_type in ("bitmap", "bsi",
                                                                                          "range-bitmap") else ""),
            tuple(_drop_index(table, column, index_type)),
            {"index_bytes": index_bytes, "data_bytes": data_bytes, "files": len(part), "ratio": ratio},
            FixAction(drop_indexes=((column, index_type),))))
    return out


def _bloom_oversized(table: SnapshotReader, infos: Sequence[IndexRow]) -> list[Finding]:
    opts = table.schema.options
    by_column: dict[str, list[IndexRow]] = defaultdict(list)
    for info in infos:
        if info.index_type == "bloom-filter" and info.column and info.decoded:
            by_column[info.column].append(info)
    out = []
    for column, part in sorted(by_column.items()):
        items = int(opts.get(f"file-index.bloom-filter.{column}.items", DEFAULT_ITEMS))
        fpp = float(opts.get(f"file-index.bloom-filter.{column}.fpp", DEFAULT_FPP))
        rows = sorted(i.file.entry.file.row_count for i in part)
        largest = rows[min(len(rows) - 1, int(0.95 * len(rows)))]
        if largest <= 0 or items < BLOOM_OVERSIZE * largest:
            continue
        now = sum(i.bytes for i in part if i.bytes is not None)
        right_bits, _ = bloom_filter_sizing(largest, fpp)
        right = len(part) * (4 + right_bits // 8)
        if right >= now:
            continue
        out.append(Finding(
            "bloom-oversized", f"bloom filter on {column} is sized for {human_count(items)} items; its files "
            f"hold {human_count(largest)} rows", column,
            f"{len(part)} filters of {human_bytes(now / len(part))} each (items = {human_count(items)}, "
            f"fpp = {fpp:g}) on files of up to {human_count(largest)} rows (95th percentile)",
            f"{human_bytes(now - right)} more than needed", float(now - right),
            f"size the filter for the rows of a file: items = {largest}",
            tuple(set_options(table, {f"file-index.bloom-filter.{column}.items": str(largest)})),
            {"items": items, "rows_p95": largest, "index_bytes": now, "right_bytes": right},
            FixAction(index_options=(((column, "bloom-filter"), (("items", str(largest)),)),))))
    return out


def _deletion_vectors(table: SnapshotReader, engine: Engine | None) -> list[Finding]:
    out = []
    for b in bucket_deletions(table, engine):
        rows, gone, size, first = b["rows"], b["deleted_rows"], b["bytes"], b["first"]
        if not rows or gone < DV_BLOAT_RATIO * rows:
            continue
        where = _where(first.partition, b["bucket"])
        out.append(Finding(
            "dv-bloat", f"{human_percent(gone / rows)} of the rows of {where} are deleted", where,
            f"{human_count(gone)} of {human_count(rows)} rows in {b['files']} files ({human_bytes(size)}) are "
            "marked deleted by deletion vectors", f"{human_count(gone)} deleted rows read and dropped per scan",
            gone * size / rows, "compact the bucket's partition: the rewrite drops the deleted rows",
            (_compact(table, first.partition),), {"deleted_rows": gone, "rows": rows, "files": b["files"]},
            _compaction(first.partition)))
    return out


def _small_files(table: SnapshotReader) -> list[Finding]:
    opts = table.schema.options
    target = target_file_size(opts, bool(table.schema.primary_keys))
    per_bucket = buckets(table)
    out = []
    for (_, bucket), files in sorted(per_bucket.items()):
        if len(files) < SMALL_FILES_MIN:
            continue
        median = statistics.median(lf.entry.file.file_size for lf in files)
        if median >= target / SMALL_FILE_DIVISOR:
            continue
        where = _where(files[0].partition, bucket)
        out.append(Finding(
            "small-files", f"{where} holds {len(files)} small files", where,
            f"{len(files)} files, median {human_bytes(median)} (target-file-size {human_bytes(target)})",
            f"{len(files)} file opens, footers and index lookups per query",
            float(sum(min(lf.entry.file.file_size, FILE_OPEN_BYTES) for lf in files)),
            "compact the partition so that files approach target-file-size",
            (_compact(table, files[0].partition),), {"files": len(files), "median_bytes": median, "target": target},
            _compaction(files[0].partition)))
    return out


def _uncompacted_buckets(table: SnapshotReader) -> list[Finding]:
    if not table.schema.primary_keys:
        return []
    trigger = table.schema.core_options.compaction_trigger
    per_bucket = buckets(table)
    out = []
    for (_, bucket), files in sorted(per_bucket.items()):
        level0 = [lf for lf in files if lf.entry.file.level == 0]
        if len(level0) < trigger:
            continue
        where = _where(files[0].partition, bucket)
        size = sum(lf.entry.file.file_size for lf in level0)
        out.append(Finding(
            "uncompacted-bucket", f"{where} has {len(level0)} level-0 sorted runs", where,
            f"{len(level0)} level-0 files ({human_bytes(size)}) of {len(files)} in the bucket; "
            f"num-sorted-run.compaction-trigger = {trigger}", f"every read merges {len(level0)} sorted runs",
            float(size), "compact the bucket: a compaction merges the level-0 runs into one level",
            (_compact(table, files[0].partition),), {"level0_files": len(level0), "files": len(files),
                                                     "trigger": trigger}, _compaction(files[0].partition)))
    return out


def _embedded_indexes(table: SnapshotReader) -> list[Finding]:
    from ..writer.file_index import DEFAULT_IN_MANIFEST_THRESHOLD, in_manifest_threshold

    # embedded: the container is the manifest's _EMBEDDED_FILE_INDEX, its size always known
    sizes = [table.index_size(lf) or 0 for lf in table.live_files() if lf.index_location == IndexLocation.EMBEDDED]
    total = sum(sizes)
    if total < EMBEDDED_MIN:
        return []
    threshold = in_manifest_threshold(table.schema.options)
    manifests = sum(m.file_size for m in table.manifest_files())
    return [Finding(
        "embedded-indexes", f"the manifests carry {human_bytes(total)} of embedded file indexes", "manifests",
        f"{len(sizes)} containers of up to {human_bytes(max(sizes))} are embedded "
        f"(file-index.in-manifest-threshold = {human_bytes(threshold)}); the manifests take "
        f"{human_bytes(manifests)} compressed", f"{human_bytes(total)} read and decoded by every scan plan",
        float(total), "keep only small containers in the manifests (Paimon's default threshold is "
        f"{DEFAULT_IN_MANIFEST_THRESHOLD} B; recommend measures one for the workload)",
        tuple(set_options(table, {"file-index.in-manifest-threshold": f"{DEFAULT_IN_MANIFEST_THRESHOLD} b"})),
        {"embedded_bytes": total, "containers": len(sizes), "threshold": threshold, "manifest_bytes": manifests},
        FixAction(options=(("file-index.in-manifest-threshold", f"{DEFAULT_IN_MANIFEST_THRESHOLD} b"),)))]


def _workload_checks(table: SnapshotReader, infos: Sequence[IndexRow], workload: Workload,
                     explains: Sequence[Any]) -> list[Finding]:
    """index-unused, index-never-skips and unindexed-filter, from the explain of every workload query."""
    fields = table.schema.fields
    indexed: dict[tuple[str, str], int] = defaultdict(int)  # (column as indexed, col[key] too, type) -> bytes
    for info in infos:
        if info.column and info.bytes is not None:  # None only on a container's error row (no column)
            indexed[(info.column, info.index_type)] += info.bytes
    named: dict[str, list[tuple[Any, float]]] = defaultdict(list)
    for q, report in zip(workload, explains):
        if report is None:
            continue
        for name in {fields[leaf.index].name for leaf in leaves(report.predicate)}:
            named[name].append((report, q.weight))
    out = []
    for (column, index_type), nbytes in sorted(indexed.items()):
        reports = named.get(column.split("[", 1)[0])  # a map-key index serves predicates on its map column
        if not reports:
            out.append(Finding(
                "index-unused", f"no workload query filters on {column}, which has a {index_type} index", column,
                f"{human_bytes(nbytes)} of {index_type} index; the {len(workload)} workload queries name "
                f"{', '.join(sorted(named)) or 'no column'}", f"{human_bytes(nbytes)} stored for nothing",
                float(nbytes), f"drop the {index_type} index on {column}",
                tuple(_drop_index(table, column, index_type)), {"index_bytes": nbytes},
                FixAction(drop_indexes=((column, index_type),))))
            continue
        helped = sum(1 for r, _ in reports for f in r.files
                     if f.stage in ("index", "read index", "index rows")
                     or (f.index_selected_rows is not None and f.index_selected_rows < f.row_count))
        if not helped:
            reached = sum(1 for r, _ in reports for f in r.files if f.stage not in ("partition", "bucket", "stats"))
            why = ("min/max stats already rule out every file they could read, so no index could skip more"
                   if not reached else "none skipped a file or selected rows with the file indexes")
            out.append(Finding(
                "index-never-skips", f"the {index_type} index on {column} never skipped a file", column,
                f"{_filtering(len(reports))} on {column}; {why} "
                f"({human_bytes(nbytes)} of {index_type} index)",
                f"{human_bytes(nbytes)} stored and read for nothing", float(nbytes),
                f"drop the {index_type} index on {column}" + (": stats already answer these queries" if not reached
                                                              else ", or run recommend for one that skips"),
                tuple(_drop_index(table, column, index_type)),
                {"index_bytes": nbytes, "queries": len(reports), "files_reaching_index": reached},
                FixAction(drop_indexes=((column, index_type),))))
    from ..writer.stats import column_modes

    modes = dict(zip(table.schema.field_names, column_modes(table.schema.field_names, table.schema.options)))
    for column, reports in sorted(named.items()):
        if modes.get(column, "").upper() != "NONE" or column in table.schema.partition_keys:
            continue
        out.append(Finding(
            "no-stats", f"{column} is filtered on but its files keep no min/max stats", column,
            f"{_filtering(len(reports))} on {column}; its stats mode is NONE, so the manifests "
            "hold no min/max for it and no file can be skipped on it before the indexes",
            "every file of the partitions the queries touch reaches the index or the reader", float(sum(
                f.file_size for r, _ in reports for f in r.files if f.stage not in ("partition", "bucket"))),
            f"keep min/max for {column}: fields.{column}.stats-mode = full (or truncate(16) for long strings)",
            tuple(set_options(table, {f"fields.{column}.stats-mode": "full"})), {"queries": len(reports)},
            FixAction(options=((f"fields.{column}.stats-mode", "full"),))))
    have_index = {c.split("[", 1)[0] for c, _ in indexed} | set(global_index_columns(table))
    partition_keys = set(table.schema.partition_keys)  # partition pruning serves those
    for column, reports in sorted(named.items()):
        if column in have_index or column in partition_keys:
            continue
        considered = sum(sum(1 for f in r.files if f.stage not in ("partition", "bucket")) * w for r, w in reports)
        read = sum(sum(1 for f in r.files if f.read) * w for r, w in reports)
        read_bytes = sum(sum(f.file_size for f in r.files if f.read) * w for r, w in reports)
        if not considered or read < UNINDEXED_READ_RATIO * considered:
            continue
        ranges = any(leaf.function in ("LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "Between")
                     for r, _ in reports for leaf in leaves(r.predicate) if fields[leaf.index].name == column)
        index_type = "range-bitmap" if ranges else "bloom-filter"
        current = _index_columns(table.schema.options, index_type)
        total_weight = sum(w for _, w in reports)
        out.append(Finding(
            "unindexed-filter", f"queries filtering on {column} read {human_percent(read / considered)} of the files",
            column, f"{_filtering(len(reports))} on {column}, which has no file index; stats "
            f"pruning leaves them {human_bytes(read_bytes / total_weight)} to read per query (weighted)",
            f"{human_bytes(read_bytes / total_weight)} read per query", read_bytes / total_weight,
            f"add a {index_type} index on {column} (recommend measures it first)",
            tuple(set_options(table, {f"file-index.{index_type}.columns": ",".join([*current, column])})),
            {"read_files": read, "files": considered, "index_type": index_type},
            FixAction(add_indexes=((column, index_type),))))
    return out


def _read_for_nothing(table: SnapshotReader, infos: Sequence[IndexRow], workload: Workload,
                      reports: Sequence[Any], engine: Engine | None, rules: PaimonRules | None,
                      notes: list[str]) -> list[Finding]:
    """read-for-nothing: the workload's queries explained again with ground truth, when affordable."""
    from ..pruning.run import explain_many

    pairs = [(q, r) for q, r in zip(workload, reports) if r is not None]
    to_read = sum(sum(1 for f in r.files if f.read) for _, r in pairs)
    if to_read > TRUTH_MAX_FILES:
        notes.append(f"read-for-nothing not checked: the workload reads {to_read:,} files, more than the "
                     f"{TRUTH_MAX_FILES} the ground-truth check reads (explain(..., truth=True) per query does)")
        return []
    if not to_read:
        return []
    truth = explain_many(table, [r.predicate for _, r in pairs], engine=engine, rules=rules, truth=True)
    fields = table.schema.fields
    indexed = {i.column.split("[", 1)[0] for i in infos if i.column}
    out = []
    for n, ((q, _), report) in enumerate(zip(pairs, truth), 1):
        read = [f for f in report.files if f.read]
        empty = [f for f in read if f.matching_rows == 0]
        if len(empty) < 2 or len(empty) < READ_FOR_NOTHING_RATIO * len(read):
            continue
        wasted = sum(f.file_size for f in empty)
        columns = sorted({fields[leaf.index].name for leaf in leaves(report.predicate)})
        bare = [c for c in columns if c not in indexed and c not in table.schema.partition_keys]
        statements: list[str] = []
        adds: list[tuple[str, str]] = []
        if bare:
            for column in bare:
                ranges = any(leaf.function in ("LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual", "Between")
                             for leaf in leaves(report.predicate) if fields[leaf.index].name == column)
                index_type = "range-bitmap" if ranges else "bloom-filter"
                current = _index_columns(table.schema.options, index_type)
                statements += set_options(table, {f"file-index.{index_type}.columns": ",".join([*current, column])})
                adds.append((column, index_type))
            fix = f"index {', '.join(bare)} so that files without a match are ruled out (recommend measures it)"
        else:
            fix = (f"the indexes on {', '.join(columns)} cannot rule these files out: a bloom filter with a lower "
                   "fpp, or a bitmap, would (recommend measures them)")
        out.append(Finding(
            "read-for-nothing", f"query {n} reads {len(empty)} of its {len(read)} files without a matching row",
            q.where, f"{len(empty)} files ({human_bytes(wasted)}) are read for `{q.where}` and hold no row it "
            "matches (ground truth: their columns read)", f"{human_bytes(wasted)} read for nothing per run",
            wasted * q.weight, fix, tuple(statements),
            {"files_read": len(read), "files_without_match": len(empty), "bytes": wasted, "query": n},
            FixAction(add_indexes=tuple(adds))))
    return out


def find(table: SnapshotReader, workload: Workload | None = None, *, infos: Sequence[IndexRow] | None = None,
         explained: Sequence[tuple[Any, Any]] | None = None, engine: Engine | None = None,
         rules: PaimonRules | None = None) -> Findings:
    """Every finding of ``table``'s snapshot, ranked by score (most costly first).

    ``workload`` adds the workload checks (its queries explained in one run on ``engine`` with
    ``rules``; a query that does not parse is named in ``problems``), or ``explained`` gives the
    (query, explain report) pairs already computed. ``infos``: the decoded file indexes when they
    are at hand. A check that cannot run is named in ``problems``; the others still do.
    """
    from ..errors import PaimonLensError
    from ..inventory.file_indexes import index_facts

    problems: list[str] = list(table.schema.core_options.check())  # options Paimon would refuse
    notes: list[str] = []
    items: list[Finding] = []
    try:
        index_infos: Sequence[IndexRow] = list(infos) if infos is not None else index_facts(table, engine).facts
    except (PaimonLensError, OSError) as e:
        index_infos = []
        problems.append(f"file indexes could not be read: {e}")
    broken = [i for i in index_infos if i.error]
    if broken:  # their bytes still count; what they hold (bloom sizing) is not judged
        first = broken[0]
        problems.append(f"{len(broken)} file indexes could not be decoded and are left out of the checks of "
                        f"what they hold, e.g. {first.file.entry.file.file_name}"
                        f"{' / ' + first.column if first.column else ''}: {first.error}")
    checks = [("index sizes", lambda: _index_size(table, index_infos)),
              ("bloom-filter sizing", lambda: _bloom_oversized(table, index_infos)),
              ("deletion vectors", lambda: _deletion_vectors(table, engine)),
              ("file sizes", lambda: _small_files(table)),
              ("embedded indexes", lambda: _embedded_indexes(table)),
              ("level-0 files", lambda: _uncompacted_buckets(table)),
              ("global and primary-key indexes", lambda: global_index_findings(table))]
    if explained is not None and workload is not None:
        def reuse() -> list[Finding]:
            from dataclasses import replace

            pairs = list(explained)
            known = replace(workload, queries=tuple(q for q, _ in pairs))
            reports = [r for _, r in pairs]
            return (_workload_checks(table, index_infos, known, reports)
                    + _read_for_nothing(table, index_infos, known, reports, engine, rules, notes))

        checks.append(("workload", reuse))
    elif workload is not None and len(workload):
        def run_workload() -> list[Finding]:
            from ..pruning.run import explain_many

            bound, skipped = workload.bind(table.schema.fields)
            problems.extend(f"workload {q['label']} ({q['where']}): {q['error']}" for q in skipped)
            if not len(bound):
                return []
            reports = explain_many(table, [q.predicate for q in bound if q.predicate is not None],
                                   engine=engine, rules=rules)
            return (_workload_checks(table, index_infos, bound, reports)
                    + _read_for_nothing(table, index_infos, bound, reports, engine, rules, notes))

        checks.append(("workload", run_workload))
    for what, check in checks:
        try:
            items += check()
        except (PaimonLensError, OSError, ValueError, KeyError, TypeError) as e:
            problems.append(f"{what}: {type(e).__name__}: {e}")
    items = _one_per_table(items, table)
    items.sort(key=lambda f: -f.score)
    return Findings(table, items, "none" if workload is None else workload.source, problems, notes)
