"""What-if: build candidate file indexes for the table's own data files and measure what they buy.

``measure(table, workload, candidates)`` does, for every sampled live data file:

1. read the candidate columns once (:func:`paimon_lens.pruning.truth.read_columns`, by field id in
   the file's own schema) and build each candidate's file-index container with
   :func:`paimon_lens.writer.file_index.build_container` (byte-identical to Paimon's writer);
   the container size and the build time are recorded;
2. for each workload query whose baseline reads the file, evaluate the container with the query
   devolved to the file's schema, as Paimon's ``FileIndexPredicate`` does, and record SKIP
   (the data file is not read: its bytes and rows are avoided), a bitmap of candidate rows
   (rows outside it, and rows a deletion vector removes, are avoided; the file is skipped when
   nothing is left) or REMAIN; and the index bytes that lookup reads.

The **baseline** of a query is ``explain(where, index_enabled=False)``: the files partition,
bucket, level, value stats and deletion vectors leave to be read without any file index. Only
those files are evaluated. Each candidate is measured *alone* (a container with just that index);
:data:`~.candidates.CURRENT` measures the table's own containers as they are, and agrees with
``explain(where)`` (indexes enabled) file for file.

What is measured and what is estimated:

* **index bytes**: ``len(container)`` of every built container (measured); with ``max_files``
  the total is the sample's sum times ``files / sampled files`` (estimated; the factor is in
  ``notes``).
* **files skipped, data bytes and rows avoided**: measured per evaluated file; with a sample, a
  query's sums are scaled by ``baseline files read / sampled baseline files read`` (a ratio
  estimate, per query). Data bytes avoided counts whole skipped files only (``file_size``); a
  bitmap row selection avoids rows, not bytes (Paimon hands it to the format reader).
* **index bytes read per query**: the parts of the index a lookup reads in Paimon's access
  pattern, taken from what the paimon-lens readers actually touched: the container head; the
  whole entry for ``bloom-filter`` and ``bsi`` (their Java readers read it at creation, for every
  column the predicate names); for ``bitmap`` V2 the header and index-block directory, each
  index block a key was looked up in and each bitmap deserialised (V1: header and the whole
  dictionary, then the bitmaps), only when an ``=``/``IN``/``<>``/``NOT IN``/``IS [NOT] NULL``
  leaf reaches it; for ``range-bitmap`` the header, and when the min/max short-cuts do not
  answer, the dictionary header with its chunk directory, the keys of the chunk searched, the
  bit-slice header, the existence bitmap and the slices loaded. These are logical bytes; Java reads
  bitmap V2 headers and index blocks through a ``BufferedInputStream`` (8 KiB buffers), so
  the I/O for small blocks is larger. An embedded container arrives with the manifest whether or
  not it is used.
* **manifest growth**: the container bytes of files whose container is at most the
  ``in-manifest-threshold`` (Paimon embeds ``size <= threshold``), before manifest compression.
* **build seconds**: wall time of building the containers in Python (paimon-lens writers), a
  relative cost only; Paimon builds them in Java while writing.
"""

from __future__ import annotations

import copy
import os
import random
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from pyroaring import BitMap

from ..engines.base import Engine
from ..engines.files import map_file_chunks, task_count
from ..engines.local import LOCAL
from ..errors import PaimonLensError
from ..formats.bit_slice import BitSliceIndexBitmap, trailing_ones
from ..formats.bitmap import BitmapFileIndexReader, BitmapIndexWriter
from ..formats.bloom import BloomFilterFileIndexWriter, hash_present
from ..formats.file_index_format import FileIndexFormatReader, IndexEntry, write_file_index
from ..formats.index_reader import EmptyFileIndexReader, FileIndexReader
from ..formats.range_bitmap import RangeBitmapFileIndexReader, RangeBitmapWriter
from ..formats.range_bitmap_dictionary import ChunkedDictionary, Key
from ..formats.registry import UnsupportedIndexReader, create_reader
from ..formats.result import BitmapIndexResult
from ..metadata.consistency import consistent
from ..metadata.options import parse_memory_size
from ..metadata.row_ranges import is_blob_file
from ..metadata.snapshot_reader import IndexLocation
from ..predicate.model import LeafPredicate, Predicate
from ..progress import progress as show_progress
from ..pruning.evolution import devolve_filter, field_names
from ..pruning.file_index_predicate import FileIndexPredicate, index_field_type
from ..pruning.run import explain_many
from ..rendering import render, render_html
from ..types import DataType
from ..workload.model import Workload, as_workload
from ..writer.file_index import IndexSpec, build_container, in_manifest_threshold, make_index_writer
from .candidates import ALL_COLUMNS, Candidate, threshold_choices

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.schema import TableSchema
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from ..pruning.versions import PaimonRules

WorkloadLike = Workload | str | os.PathLike[str] | Iterable[str | tuple[str, float]]

_BITMAP_FUNCTIONS = frozenset({"Equal", "NotEqual", "In", "NotIn", "IsNull", "IsNotNull"})


# ---- results ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QueryBaseline:
    """One workload query without file indexes (``explain(where, index_enabled=False)``)."""

    where: str
    weight: float
    predicate: Predicate
    columns: frozenset[str]
    read_files: int
    read_bytes: int
    read_rows: int
    sampled_read_files: int
    partition_bytes: int = 0  # bytes of the files partition and bucket pruning keep (before stats)
    partition_rows: int = 0  # their rows

    @property
    def scale(self) -> float:
        """Factor from the sampled baseline-read files to all of them (1 without sampling)."""
        if self.sampled_read_files == 0:
            return 0.0
        return self.read_files / self.sampled_read_files


@dataclass
class QueryTally:
    """One candidate x one query, summed over the evaluated (sampled, baseline-read) files."""

    evaluated_files: int = 0
    files_skipped: int = 0
    bytes_avoided: int = 0
    rows_avoided: int = 0
    index_bytes_read: int = 0
    head_bytes_read: int = 0
    skipped_file_names: list[str] = field(default_factory=list)


@dataclass
class CandidateMeasure:
    """What building one candidate cost on the sampled files (one entry per sampled file)."""

    candidate: Candidate
    sizes: list[int] = field(default_factory=list)  # container bytes, 0 without a container
    build_seconds: float = 0.0
    embedded: list[bool] = field(default_factory=list)  # current: where the container really is
    errors: list[str] = field(default_factory=list)


@dataclass
class WhatIfResult:
    """Measured sizes and pruning of every candidate on a table's files and workload.

    ``frame()`` has one row per candidate; ``query_frame()`` one per query x candidate;
    ``threshold_frame()`` the manifest growth per ``in-manifest-threshold``. ``notes`` say what
    was sampled and estimated.
    """

    table_path: str
    snapshot_id: int | None
    candidates: list[Candidate]
    queries: list[QueryBaseline]
    measures: list[CandidateMeasure]
    tallies: list[list[QueryTally]]  # [candidate][query]
    files: int
    sampled_files: int
    threshold: int
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def file_scale(self) -> float:
        """``files / sampled_files``: the factor per-file totals are extrapolated with."""
        return self.files / self.sampled_files if self.sampled_files else 0.0

    # -- per candidate --------------------------------------------------------------------------
    def _weighted(self, ci: int, value: Callable[[QueryTally, QueryBaseline], float],
                  only_column: bool = False) -> float | None:
        cand = self.candidates[ci]
        num = den = 0.0
        for q, t in zip(self.queries, self.tallies[ci]):
            if only_column and not cand.current and cand.column not in q.columns:
                continue
            num += q.weight * value(t, q)
            den += q.weight
        return num / den if den else None

    def records(self) -> list[dict[str, Any]]:
        """One dict per candidate (the rows of :meth:`frame`)."""
        out = []
        scale = self.file_scale
        for ci, (cand, m) in enumerate(zip(self.candidates, self.measures)):
            sizes = [s for s in m.sizes if s > 0]
            embedded = m.embedded if cand.current else [0 < s <= self.threshold for s in m.sizes]
            baseline = self._weighted(ci, lambda t, q: q.read_bytes) or 0.0
            avoided = self._weighted(ci, lambda t, q: t.bytes_avoided * q.scale)
            out.append({
                "column": cand.column, "index_type": cand.index_type or ("current" if cand.current else "none"),
                "label": cand.label, "options": _options_text(cand),
                "index_bytes": sum(m.sizes) * scale,
                "sampled_index_bytes": sum(m.sizes),
                "mean_index_bytes_per_file": (sum(sizes) / len(sizes)) if sizes else 0.0,
                "max_index_bytes_per_file": max(sizes, default=0),
                "embedded_files": sum(embedded) * scale,
                "manifest_growth_bytes": sum(s for s, e in zip(m.sizes, embedded) if e) * scale,
                "files_skipped_per_query": self._weighted(ci, lambda t, q: t.files_skipped * q.scale),
                "files_skipped_per_column_query": self._weighted(ci, lambda t, q: t.files_skipped * q.scale, True),
                "bytes_avoided_per_query": avoided,
                "bytes_avoided_ratio": (avoided or 0.0) / baseline if baseline else None,
                "rows_avoided_per_query": self._weighted(ci, lambda t, q: t.rows_avoided * q.scale),
                "index_bytes_read_per_query": self._weighted(ci, lambda t, q: t.index_bytes_read * q.scale),
                "column_queries": sum(1 for q in self.queries if cand.current or cand.column in q.columns),
                "build_seconds": m.build_seconds * scale,
                "errors": len(m.errors),
            })
        return out

    def frame(self) -> pd.DataFrame:
        """One row per candidate (see :meth:`records`)."""
        return cast("pd.DataFrame", render(self, "frame"))

    def query_records(self) -> list[dict[str, Any]]:
        """One record per query x candidate: the baseline and what the candidate changes (scaled)."""
        rows = []
        for cand, tallies in zip(self.candidates, self.tallies):
            for qi, (q, t) in enumerate(zip(self.queries, tallies)):
                rows.append({
                    "query": qi, "where": q.where, "weight": q.weight, "column": cand.column, "label": cand.label,
                    "constrains_column": cand.current or cand.column in q.columns,
                    "baseline_files": q.read_files, "baseline_bytes": q.read_bytes, "baseline_rows": q.read_rows,
                    "evaluated_files": t.evaluated_files, "scale": q.scale,
                    "files_skipped": t.files_skipped * q.scale, "bytes_avoided": t.bytes_avoided * q.scale,
                    "rows_avoided": t.rows_avoided * q.scale, "index_bytes_read": t.index_bytes_read * q.scale,
                    "index_head_bytes_read": t.head_bytes_read * q.scale,
                })
        return rows

    def query_frame(self) -> pd.DataFrame:
        """One row per query x candidate (see :meth:`query_records`)."""
        return cast("pd.DataFrame", render(self, "query_frame"))

    def threshold_records(self, thresholds: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Manifest growth per candidate x ``in-manifest-threshold`` (default: :func:`threshold_choices`)."""
        rows = []
        scale = self.file_scale
        for cand, m in zip(self.candidates, self.measures):
            if not any(m.sizes):
                continue
            for t in thresholds if thresholds is not None else threshold_choices(m.sizes):
                inside = [s for s in m.sizes if 0 < s <= t]
                outside = [s for s in m.sizes if s > t]
                rows.append({"column": cand.column, "label": cand.label, "threshold": t,
                             "is_table_threshold": t == self.threshold,
                             "embedded_files": len(inside) * scale, "manifest_growth_bytes": sum(inside) * scale,
                             "external_files": len(outside) * scale, "external_bytes": sum(outside) * scale})
        return rows

    def threshold_frame(self, thresholds: Sequence[int] | None = None) -> pd.DataFrame:
        """Manifest growth per candidate x ``in-manifest-threshold`` (see :meth:`threshold_records`)."""
        return cast("pd.DataFrame", render(self, "threshold_frame", thresholds))

    def _repr_html_(self) -> str | None:
        return render_html(self)

    def __repr__(self) -> str:
        return (f"<WhatIfResult {self.table_path}: {len(self.candidates)} candidates x {len(self.queries)} queries "
                f"on {self.sampled_files}/{self.files} files in {self.seconds:.1f}s>")



def _options_text(cand: Candidate) -> str:
    parts = [f"{k}={v}" for k, v in cand.options.items()]
    for spec in cand.also:
        parts.append(spec.index_type + (" " + ", ".join(f"{k}={v}" for k, v in spec.options.items())
                                        if spec.options else ""))
    return ", ".join(parts)


# ---- metering the readers --------------------------------------------------------------------

@dataclass
class _RangeBitmapLog:
    """The lazily read parts of one range-bitmap index for one query."""

    first_keys: list[Key]
    dictionary: bool = False
    chunks: set[int] = field(default_factory=set)
    bsi: bool = False
    slices: set[int] = field(default_factory=set)


class _MeteredDictionary(ChunkedDictionary):
    """A :class:`ChunkedDictionary` that logs what Paimon's ``ChunkedDictionary.find`` reads."""

    log: _RangeBitmapLog

    def find(self, key: Key) -> int:
        """``find`` as usual; logs the chunk directory and the chunk whose keys are searched."""
        log = self.log
        log.dictionary = True
        firsts = log.first_keys
        i = bisect_left(firsts, key)
        if not (i < len(firsts) and firsts[i] == key) and i > 0 and self.chunks[i - 1].size > 0:
            log.chunks.add(i - 1)
        return super().find(key)


class _MeteredBsi(BitSliceIndexBitmap):
    """A :class:`BitSliceIndexBitmap` that logs the EBM and the slices Paimon's reader loads."""

    log: _RangeBitmapLog

    def is_not_null(self, found: BitMap | None = None) -> BitMap:
        """The EBM (logged)."""
        self.log.bsi = True
        return super().is_not_null(found)

    def eq(self, code: int) -> BitMap:
        """``eq``: Java loads every slice (when the EBM is not empty)."""
        self.log.bsi = True
        if self.ebm:
            self.log.slices.update(range(len(self.slices)))
        return super().eq(code)

    def gt(self, code: int) -> BitMap:
        """``gt``: Java loads the slices from the first zero bit of ``code`` up."""
        self.log.bsi = True
        if code >= 0 and self.ebm:
            self.log.slices.update(range(trailing_ones(code), len(self.slices)))
        return super().gt(code)


def _rewrap(obj: Any, cls: type, log: _RangeBitmapLog) -> Any:
    """A ``cls`` (a metering subclass of ``obj``'s dataclass) with ``obj``'s fields and ``log``."""
    new = cls(**{f.name: getattr(obj, f.name) for f in fields(obj)})
    object.__setattr__(new, "log", log)
    return new


@dataclass
class _Meter:
    """One index reader of one query and the leaf functions it was visited with."""

    index_type: str
    entry: IndexEntry
    reader: FileIndexReader
    functions: set[str] = field(default_factory=set)
    log: _RangeBitmapLog | None = None

    def bytes_read(self) -> int:
        """Index bytes this reader read (see the module docs)."""
        if self.entry.empty or isinstance(self.reader, UnsupportedIndexReader):
            return 0
        reader = self.reader
        if isinstance(reader, BitmapFileIndexReader):
            return _bitmap_bytes_read(reader) if self.functions & _BITMAP_FUNCTIONS else 0
        if isinstance(reader, RangeBitmapFileIndexReader) and self.log is not None:
            return _range_bitmap_bytes_read(reader, self.log)
        return self.entry.length  # bloom-filter, bsi (and unknown types): read whole at creation


def _bitmap_bytes_read(reader: BitmapFileIndexReader) -> int:
    """Header (+ V1 dictionary / V2 block directory), the blocks decoded and the bitmaps read."""
    total = reader.index_block_start
    total += sum(b.size for b in reader._blocks if b is not None)
    for key in reader._cache:
        entry = reader._find_entry(key)
        if entry is not None and entry[0] >= 0:
            start, end = reader._bitmap_range(entry[0], entry[1], key)
            total += end - start
    return total


def _range_bitmap_bytes_read(reader: RangeBitmapFileIndexReader, log: _RangeBitmapLog) -> int:
    rb = reader.index
    total = 4 + rb.header_length
    if log.dictionary:
        d = rb.dictionary
        total += 4 + d.header_length + d.offsets_length + d.chunks_length
        total += sum(d.chunks[i].offsets_length + d.chunks[i].keys_length for i in log.chunks)
    if log.bsi:
        b = rb.bsi
        total += 4 + b.header_length + b.ebm_length + sum(b.slice_lengths[i] for i in log.slices)
    return total


class _MeteredPredicate(FileIndexPredicate):
    """Paimon's ``FileIndexPredicate`` for one query, with readers that record what they read.

    Readers are fresh per query, as Paimon creates them per evaluation; decoded range-bitmap
    indexes are shared through ``decoded`` (keyed by entry start) and re-wrapped with a new log.
    """

    def __init__(self, index: FileIndexFormatReader, row_type: Sequence[Any],
                 decoded: dict[int, RangeBitmapFileIndexReader]) -> None:
        super().__init__(index, row_type)
        self._decoded = decoded
        self.meters: dict[int, _Meter] = {}  # id(reader) -> meter

    def readers(self, column: str) -> list[tuple[str, FileIndexReader]]:
        """``(index_type, reader)`` per index of ``column``, created once per query and metered."""
        got = self._readers.get(column)
        if got is not None:
            return got
        got = []
        if self.index.has_column(column):
            dtype = index_field_type(self.row_type, column)
            for index_type, entry in self.index.index_entries(column).items():
                log = None
                reader: FileIndexReader
                if entry.empty:
                    reader = EmptyFileIndexReader()
                elif dtype is None:
                    reader = UnsupportedIndexReader(index_type, f"column {column!r} is not in the file's row type")
                elif index_type == "range-bitmap":
                    reader, log = self._range_bitmap(entry, dtype)
                else:
                    reader = create_reader(index_type, dtype, self.index.read_entry(entry) or b"")
                self.meters[id(reader)] = _Meter(index_type, entry, reader, log=log)
                got.append((index_type, reader))
        self._readers[column] = got
        return got

    def _range_bitmap(self, entry: IndexEntry, dtype: Any) -> tuple[FileIndexReader, _RangeBitmapLog]:
        base = self._decoded.get(entry.start)
        if base is None:
            base = self._decoded[entry.start] = RangeBitmapFileIndexReader(dtype, self.index.read_entry(entry) or b"")
        rb = base.index
        log = _RangeBitmapLog([c.first_key for c in rb.dictionary.chunks])
        metered = copy.copy(base)
        metered.index = replace(rb, dictionary=_rewrap(rb.dictionary, _MeteredDictionary, log),
                                bsi=_rewrap(rb.bsi, _MeteredBsi, log))
        return metered, log

    def visit_leaf(self, leaf: LeafPredicate) -> Any:
        for _, reader in self.readers(leaf.field):
            meter = self.meters.get(id(reader))
            if meter is not None:
                meter.functions.add(leaf.function)
        return super().visit_leaf(leaf)

    def bytes_read(self) -> int:
        """Index bytes read by every reader created so far (heads excluded)."""
        return sum(m.bytes_read() for m in self.meters.values())


def evaluate_container(container: FileIndexFormatReader, row_type: Sequence[Any], predicate: Predicate,
                       decoded: dict[int, RangeBitmapFileIndexReader] | None = None) -> tuple[Any, int]:
    """Evaluate ``predicate`` (devolved to the file's schema) on a container as Paimon does.

    Returns the :class:`~paimon_lens.formats.result.FileIndexResult` and the index bytes read
    (container head included). Readers are created for every column the predicate names, as
    Paimon's ``FileIndexPredicate.evaluate`` does, then the predicate is walked.
    """
    mp = _MeteredPredicate(container, row_type, {} if decoded is None else decoded)
    for name in sorted(field_names(predicate)):
        mp.readers(name)
    result = mp.evaluate(predicate)
    return result, container.layout.head_length + mp.bytes_read()


# ---- measuring ----------------------------------------------------------------------------------

def _sample(files: list[LiveFile], max_files: int | None, seed: int) -> list[LiveFile]:
    if max_files is None or max_files >= len(files):
        return list(files)
    if max_files < 1:
        raise PaimonLensError(f"max_files must be at least 1, not {max_files}")
    picked = set(random.Random(seed).sample(range(len(files)), max_files))
    return [lf for i, lf in enumerate(files) if i in picked]


@dataclass
class _Baseline:
    query: QueryBaseline
    rows: dict[str, int]  # file name -> rows after deletion vectors, for the files read
    sizes: dict[str, int]


def _baselines(table: SnapshotReader, workload: Workload, sampled: set[str], engine: Engine,
               rules: PaimonRules | None) -> list[_Baseline]:
    from ..predicate.parser import parse_where

    predicates = [q.predicate if q.predicate is not None else parse_where(q.where, table.schema.fields)
                  for q in workload]
    reports = explain_many(table, predicates, engine=engine, rules=rules, index_enabled=False)
    out = []
    for q, predicate, report in zip(workload, predicates, reports):
        read = [f for f in report.files if f.read]
        rows = {f.file_name: f.rows_after_dv for f in read}
        sizes = {f.file_name: f.file_size for f in read}
        kept = [f for f in report.files if f.stage not in ("partition", "bucket")]
        qb = QueryBaseline(q.where, q.weight, predicate, frozenset(field_names(predicate)), len(read),
                           sum(sizes.values()), sum(rows.values()), sum(1 for n in rows if n in sampled),
                           sum(f.file_size for f in kept), sum(f.row_count for f in kept))
        out.append(_Baseline(qb, rows, sizes))
    return out


class _FileContext:
    """One sampled data file: its schema, columns and the devolved queries (computed once)."""

    def __init__(self, table: SnapshotReader, lf: LiveFile, schema: TableSchema,
                 columns: Mapping[int, Sequence[Any]]) -> None:
        self.lf = lf
        self.name = lf.entry.file.file_name
        self.schema = schema
        self.columns = columns
        self.by_id = {f.id: f for f in schema.fields}
        self._table = table
        self._devolved: dict[int, Predicate | None] = {}

    def devolved(self, qi: int, predicate: Predicate) -> Predicate | None:
        if qi not in self._devolved:
            same = self.schema.id == self._table.schema.id
            self._devolved[qi] = devolve_filter(predicate, self._table.schema.fields, self.schema.fields, same)
        return self._devolved[qi]


class IndexBuilder:
    """Index bytes of one column of one data file, for many candidates, sharing their common work.

    Candidates that differ only in sizing share the expensive part: the values' hashes for
    ``bloom-filter`` (then one filter per ``items``/``fpp``), the value -> rows map for ``bitmap``
    (then one serialisation per ``index-block-size``) and for ``range-bitmap`` (one per
    ``chunk-size``). The bytes are the paimon-lens writers' own, byte-identical to
    :func:`~paimon_lens.writer.file_index.build_container` (tested).
    """

    def __init__(self, dtype: DataType, values: Sequence[Any]) -> None:
        self.dtype = dtype
        self.values = values
        self._hashes: Any = None
        self._bitmap: dict[int, BitmapIndexWriter] = {}
        self._range: RangeBitmapWriter | None = None
        self.shared_seconds: dict[str, float] = {}  # time spent on each shared part
        self.reused_seconds = 0.0  # shared time the last index_bytes() call reused instead of spending

    def _shared(self, key: str, make: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        out = make()
        self.shared_seconds[key] = time.perf_counter() - t0
        return out

    def index_bytes(self, spec: IndexSpec) -> bytes:
        """The serialized index of ``spec`` (its column is ignored: this builder's column)."""
        t, opts = spec.index_type, spec.options
        self.reused_seconds = 0.0
        if t == "bloom-filter":
            writer = BloomFilterFileIndexWriter.from_options(self.dtype, opts)
            if self._hashes is None:
                self._hashes = self._shared(t, self._bloom_hashes)
            else:
                self.reused_seconds = self.shared_seconds[t]
            if len(self._hashes):
                writer.filter.add_hashes(self._hashes)
            return writer.serialized_bytes()
        if t == "bitmap":
            version = int(opts.get("version", "2"))
            base = self._bitmap.get(version)
            if base is None:
                base = self._bitmap[version] = self._shared(f"bitmap v{version}", lambda: self._bitmap_writer(version))
            else:
                self.reused_seconds = self.shared_seconds[f"bitmap v{version}"]
            bitmap = copy.copy(base)  # shares the value -> rows map; serialized_bytes only reads it
            bitmap.index_block_size = parse_memory_size(opts.get("index-block-size", "16kb"))
            return bitmap.serialized_bytes()
        if t == "range-bitmap":
            sized = RangeBitmapWriter(self.dtype, opts.get("chunk-size"))
            if self._range is None:
                self._range = self._shared(t, self._range_writer)
            else:
                self.reused_seconds = self.shared_seconds[t]
            ranged = copy.copy(self._range)
            ranged.chunk_size = sized.chunk_size
            return ranged.serialized_bytes()
        writer = make_index_writer(spec, self.dtype)
        writer.write_many(self.values)
        data: bytes = writer.serialized_bytes()
        return data

    def _bloom_hashes(self) -> Any:
        return hash_present(self.dtype, self.values)

    def _bitmap_writer(self, version: int) -> BitmapIndexWriter:
        writer = BitmapIndexWriter(self.dtype, version)
        writer.write_many(self.values)
        return writer

    def _range_writer(self) -> RangeBitmapWriter:
        writer = RangeBitmapWriter(self.dtype)
        writer.write_many(self.values)
        return writer


def _build(cand: Candidate, ctx: _FileContext, field_ids: Mapping[str, int],
           builders: dict[int, IndexBuilder]) -> tuple[bytes | None, float]:
    """The candidate's container for one file (None when the file lacks the column) and the
    seconds building it alone would take (shared work reused from another candidate included)."""
    t0 = time.perf_counter()
    if cand.column == ALL_COLUMNS:  # a configuration: every spec's column the file has
        built: list[IndexSpec] = []
        by_column: dict[str, Sequence[Any]] = {}
        for s in cand.specs:
            own = ctx.by_id.get(field_ids[s.column])
            column = ctx.columns.get(field_ids[s.column])
            if own is not None and column is not None:  # a column the file lacks gets no index (as Paimon)
                built.append(replace(s, column=own.name))
                by_column[own.name] = column
        data = build_container(built, ctx.schema.fields, by_column) if built else None
        return data, time.perf_counter() - t0
    fid = field_ids[cand.column]
    f = ctx.by_id.get(fid)
    values = ctx.columns.get(fid)
    if f is None or values is None:
        return None, 0.0
    specs = [replace(s, column=f.name) for s in cand.specs]
    if len(specs) > 1:  # combinations: build_container orders the types as Paimon's HashMaps do
        data = build_container(specs, ctx.schema.fields, {f.name: values})
        return data, time.perf_counter() - t0
    builder = builders.get(fid)
    if builder is None:
        builder = builders[fid] = IndexBuilder(f.type, values)
    data = write_file_index({f.name: {specs[0].index_type: builder.index_bytes(specs[0])}})
    return data, time.perf_counter() - t0 + builder.reused_seconds


def _evaluate(tally: QueryTally, container: FileIndexFormatReader, ctx: _FileContext, predicate: Predicate,
              rows: int, size: int, dv: BitMap | None, decoded: dict[int, RangeBitmapFileIndexReader]) -> None:
    result, read = evaluate_container(container, ctx.schema.fields, predicate, decoded)
    tally.index_bytes_read += read
    tally.head_bytes_read += container.layout.head_length
    selection = None
    if isinstance(result, BitmapIndexResult) and result.remain():
        selection = result.bitmap - dv if dv is not None else result.bitmap
    if not result.remain() or (selection is not None and not selection):
        tally.files_skipped += 1
        tally.bytes_avoided += size
        tally.rows_avoided += rows
        tally.skipped_file_names.append(ctx.name)
    elif selection is not None:
        tally.rows_avoided += rows - len(selection)


@dataclass
class _ChunkMeasure:
    """What a run of sampled files (one task) contributes: per candidate, and per candidate x query."""

    measures: list[CandidateMeasure]
    tallies: list[list[QueryTally]]


def _add_tally(into: QueryTally, part: QueryTally) -> None:
    into.evaluated_files += part.evaluated_files
    into.files_skipped += part.files_skipped
    into.bytes_avoided += part.bytes_avoided
    into.rows_avoided += part.rows_avoided
    into.index_bytes_read += part.index_bytes_read
    into.head_bytes_read += part.head_bytes_read
    into.skipped_file_names.extend(part.skipped_file_names)


def _measure_chunk(table: SnapshotReader, lfs: Sequence[LiveFile],
                   extras: Sequence[tuple[list[tuple[int, int, int]], BitMap | None]], *,
                   cands: Sequence[Candidate], field_ids: Mapping[str, int], wanted_ids: Sequence[int],
                   predicates: Sequence[Predicate], progress: bool | None = False) -> _ChunkMeasure:
    """Build every candidate for ``lfs`` and evaluate the queries that read each file.

    ``extras``: per file, the ``(query, rows after deletion vectors, file bytes)`` of the queries
    whose baseline reads it, and its deletion vector.
    """
    from ..inventory.file_indexes import open_container
    from ..pruning.truth import read_columns

    measures = [CandidateMeasure(c) for c in cands]
    tallies = [[QueryTally() for _ in predicates] for _ in cands]
    iterator: Iterable[tuple[LiveFile, tuple[list[tuple[int, int, int]], BitMap | None]]] = zip(lfs, extras)
    if progress is not False:
        iterator = show_progress(iterator, total=len(lfs), desc="measuring candidate indexes", enabled=progress)
    for lf, (reads, dv) in iterator:
        schema = table.schema_manager.schema(lf.entry.file.schema_id)
        # the file's own types: Paimon builds a file's index from the values as it stores them
        try:
            columns = read_columns(table, lf, wanted_ids, cast=False) if wanted_ids else {}
        except PaimonLensError as e:  # the file is left out of every candidate's measure, and said so
            for m in measures:
                m.errors.append(f"{lf.entry.file.file_name}: data file could not be read: {e}")
                m.sizes.append(0)
            continue
        ctx = _FileContext(table, lf, schema, columns)
        builders: dict[int, IndexBuilder] = {}
        for ci, cand in enumerate(cands):
            m = measures[ci]
            container: FileIndexFormatReader | None = None
            try:
                if cand.current:
                    container = open_container(table, lf)
                    m.embedded.append(lf.index_location == IndexLocation.EMBEDDED)
                elif cand.specs:
                    data, seconds = _build(cand, ctx, field_ids, builders)
                    m.build_seconds += seconds
                    container = None if data is None else FileIndexFormatReader(data)
            except (PaimonLensError, ValueError, OverflowError) as e:
                m.errors.append(f"{ctx.name}: {type(e).__name__}: {e}")
            m.sizes.append(0 if container is None else container.size)
            if container is None:
                continue
            decoded: dict[int, RangeBitmapFileIndexReader] = {}
            for qi, rows, size in reads:
                predicate = ctx.devolved(qi, predicates[qi])
                if predicate is None:
                    continue
                _evaluate(tallies[ci][qi], container, ctx, predicate, rows, size, dv, decoded)
    return _ChunkMeasure(measures, tallies)


@consistent
def measure(table: SnapshotReader, workload: WorkloadLike, candidates: Sequence[Candidate], *,
            max_files: int | None = None, seed: int = 0, progress: bool | None = None,
            engine: Engine | None = None, rules: PaimonRules | None = None) -> WhatIfResult:
    """Build every candidate's index for the table's data files and run the workload against it.

    Args:
        table: an opened table (its current snapshot is measured).
        workload: the queries (a :class:`~paimon_lens.workload.Workload`, a workload file, or a
            list of WHERE strings / ``(where, weight)`` pairs).
        candidates: from :func:`~.candidates.candidate_grid` (any columns); include
            :data:`~.candidates.CURRENT` to measure the table's own indexes the same way.
        max_files: build and evaluate a seeded random sample of this many live files; totals are
            extrapolated (see the module docs and ``notes``).
        seed: the sample's seed.
        progress: a progress bar over the files: True at once, False never, None once the work is
            long (:mod:`paimon_lens.progress`); in process only (on a distributed engine the files
            are measured in tasks).

    Returns:
        A :class:`WhatIfResult`; ``.frame()`` is the per-candidate table.
    """
    started = time.perf_counter()
    wl = as_workload(workload)
    cands = list(candidates)
    labels = [(c.column, c.label) for c in cands]
    if len(set(labels)) != len(labels):
        raise PaimonLensError("candidates must have distinct (column, label) pairs")
    by_name = {f.name: f for f in table.schema.fields}
    named = {c.column for c in cands if not c.current and c.column != ALL_COLUMNS}
    missing = sorted((named | {s.column for c in cands for s in c.specs}) - by_name.keys())
    if missing:
        raise PaimonLensError(f"no such column(s) in {table.path}: {', '.join(missing)}")
    field_ids = {name: f.id for name, f in by_name.items()}
    wanted_ids = sorted({field_ids[s.column] for c in cands for s in c.specs})

    files = [lf for lf in table.live_files() if not is_blob_file(lf.entry.file.file_name)]  # BLOB columns only
    sample = _sample(files, max_files, seed)
    sampled_names = {lf.entry.file.file_name for lf in sample}
    engine = engine or LOCAL
    baselines = _baselines(table, wl, sampled_names, engine, rules)
    from ..pruning.read_stages import deletion_vector_bitmaps

    dvs = deletion_vector_bitmaps(table)
    measures = [CandidateMeasure(c) for c in cands]
    # every sampled baseline-read file is evaluated (one without a container skips nothing)
    tallies = [[QueryTally(evaluated_files=b.query.sampled_read_files) for b in baselines] for _ in cands]
    notes: list[str] = []
    extras = []
    for lf in sample:
        name = lf.entry.file.file_name
        reads = [(qi, b.rows[name], b.sizes[name]) for qi, b in enumerate(baselines) if name in b.rows]
        extras.append((reads, dvs.get(name)))
    run = partial(_measure_chunk, cands=cands, field_ids=field_ids, wanted_ids=wanted_ids,
                  predicates=[b.query.predicate for b in baselines],
                  progress=progress if task_count(engine) == 1 else False)
    chunks = map_file_chunks(engine, table, sample, run, extras)
    for chunk in chunks:
        for m, part in zip(measures, chunk.measures):
            m.sizes.extend(part.sizes)
            m.embedded.extend(part.embedded)
            m.errors.extend(part.errors)
            m.build_seconds += part.build_seconds
        for row, part_row in zip(tallies, chunk.tallies):
            for tally, part_tally in zip(row, part_row):
                _add_tally(tally, part_tally)

    notes.extend(_notes(table, files, sample, baselines, measures))
    return WhatIfResult(table.path, table.snapshot_id, cands, [b.query for b in baselines], measures, tallies,
                        len(files), len(sample), in_manifest_threshold(table.schema.options),
                        time.perf_counter() - started, notes)


def _notes(table: SnapshotReader, files: Sequence[LiveFile], sample: Sequence[LiveFile], baselines: Sequence[_Baseline],
           measures: Sequence[CandidateMeasure]) -> list[str]:
    notes = []
    if len(sample) < len(files):
        notes.append(f"sampled {len(sample)} of {len(files)} live files (seeded); index bytes, embedded files, "
                     f"manifest growth and build time are the sample's x {len(files) / len(sample):.3g}; each "
                     "query's skips, bytes, rows and index bytes read are the sampled baseline files' x "
                     "(baseline files read / sampled baseline files read)")
        for b in baselines:
            if b.query.read_files and not b.query.sampled_read_files:
                notes.append(f"no sampled file is read by {b.query.where!r} without indexes: its gains are 0 "
                             "(unknown), sample more files")
    else:
        notes.append(f"every one of the {len(files)} live files was built and evaluated: all numbers are measured")
    if table.schema.primary_keys and not table.schema.core_options.deletion_vectors_enabled:
        notes.append("primary-key table without deletion vectors: Paimon does not use file indexes at planning "
                     "for it; the gains measured assume deletion vectors are enabled")
    for m in measures:
        if m.errors:
            notes.append(f"{m.candidate.column} {m.candidate.label}: {len(m.errors)} file(s) could not be "
                         f"indexed, first: {m.errors[0]}")
    notes.append("index bytes read are the parts Paimon's readers read (container head, bloom-filter/bsi whole, "
                 "bitmap header + directory + blocks + bitmaps, range-bitmap header + dictionary chunk + slices), "
                 "from what the paimon-lens readers touched; Java reads bitmap V2 headers and blocks through "
                 "8 KiB buffers, so the I/O of small blocks is larger")
    notes.append("data bytes avoided count whole skipped files; bitmap row selections count as rows avoided only")
    notes.append("manifest growth is the embedded container bytes before manifest compression")
    return notes
