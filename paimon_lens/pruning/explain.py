"""Explain a predicate file by file: what Paimon's scan and read would do, and why.

Stages, in Paimon's order (:mod:`.pipeline`; each stage is a class, see :mod:`.stage`):

1. partition      partition values (and manifest partition stats) against the partition predicate
2. bucket         bucket-key equality / IN, with Paimon's bucket hash
3. row ids        ``_ROW_ID`` ranges pushed into the scan (1.4+)
4. global index   the rows data-evolution tables' global indexes select (1.4+)
5. level          primary-key tables whose batch scan reads only levels above 0 (deletion vectors,
                  ``first-row``): level-0 files
6. stats          manifest min/max/null counts (append tables; PK tables only with deletion vectors)
7. index (plan)   embedded file indexes, evaluated while planning
8. whole_bucket   primary-key tables: a bucket of overlapping files none of which passes is dropped
9. primary-key index  the rows primary-key indexes select per planned file (2.0)
10. topn          ``ORDER BY ... LIMIT`` pushed into the file indexes (1.3+)
   ------------- the scan plan ends here: ``planned``
11. read index    external ``.index`` files, evaluated when the file is opened
12. index rows    a bitmap index result selects the rows the reader returns (Paimon 1.0+); a file
                  whose selection is empty is not read (``index_selected_rows``)
13. deletion vector  the deleted rows are taken out of that selection (``[0, rowCount)`` without a
                  bitmap); a file left with no row is not read (``dv_removed_rows``)
   ------------- ``read``; ``rows_after_dv`` rows are handed to the row-level filter

The scan's stages (1, 2, 5-8: :mod:`.scan_stages`) run in the planner (:mod:`.scan`), the stages on
its plan (3, 4, 9, 10: :mod:`.plan_stages`) on the whole snapshot's verdicts, the reader's (11-13:
:mod:`.read_stages`) per planned file (:mod:`.file_verdicts`).

The funnel (:meth:`ExplainReport.funnel`) has a row per stage (``level`` and ``whole_bucket`` on
primary-key tables only, 3, 4, 9 and 10 where the explanation consulted them): files, bytes and rows
still in play;
rows are whole files up to the read index stage, then the rows the index selects ("after index row
selection"), then those the deletion vectors leave ("after deletion vector").

With ``truth=True`` the predicate's columns are read from each data file and the rows that really
match are reported, so a skipped file that holds a match (a Paimon bug) or a read file without
matches (wasted I/O, e.g. a bloom-filter false positive) is visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

from ..errors import Note, PaimonLensError, SnapshotNotFoundError, note_file
from ..formats.result import first_positions
from ..metadata.gc_pause import gc_paused
from ..metadata.row_ranges import data_evolution_enabled
from ..metadata.snapshot_reader import IndexLocation
from ..predicate.model import Predicate, leaves
from ..rendering import render, render_html
from ..values import to_json, to_python
from .file_verdicts import UndecidedVerdicts, verdicts
from .pipeline import STAGES, STEPS
from .plan_stages import PLAN_STAGES, Query
from .read_stages import DeletionVectorStage, IndexRowsStage
from .stage import StageName
from .summary import ExplainSummary, FunnelRow
from .verdict import FileVerdict
from .versions import rules_of_newest

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.manifest import ManifestFileMeta
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .global_index import GlobalIndexSelection
    from .topn import TopN
    from .versions import PaimonRules

_STAGE_ORDER = {stage: i for i, stage in enumerate(STAGES)}


T = TypeVar("T")


class ExplainReport:
    """The per-file verdicts of one predicate on one snapshot, and the funnel they make.

    An explanation of a predicate with a partition filter plans the kept partitions' files first
    (reading only the manifests whose partition stats may hold them, as Paimon's scan does); the
    other live files, all removed at the partition stage, are listed on first use of :attr:`files`,
    :attr:`notes`, :meth:`summary`, :meth:`to_dict` or :meth:`to_frame` (:attr:`candidate_files`
    and :attr:`complete` do not list them). On append tables, the files of the kept partitions
    that the value stats remove are decided together (one vectorised stats test per predicate
    leaf, see :mod:`.stats_vector`), and so are the planned files read whole (their index, if any,
    indexes none of the predicate's columns, and they have no deletion vector); the verdicts of
    both are built on first use of :attr:`files` or :attr:`candidate_files`;
    ``summary(complete=False)``, ``funnel(complete=False)`` and ``repr`` count them from their
    metadata without building them.

    Attributes:
        table: the table explained.
        where: the predicate's SQL text.
        predicate: the bound predicate.
        truth: the ground truth was computed (``matching_*`` fields).
        snapshot_id: the snapshot explained (the table's when the report was made; a table that
            follows the latest snapshot may move on later).
        rules: the Paimon release's rules the explanation applies.
        skipped_manifests: the manifests Paimon does not read for this predicate (their partition
            stats exclude it), when they were not read for the explanation.
    """

    def __init__(self, table: SnapshotReader, where: str, predicate: Predicate | None, files: list[FileVerdict],
                 truth: bool = False, notes: list[str] | None = None, snapshot_id: int | None = None,
                 rules: PaimonRules | None = None) -> None:
        self.table = table
        self.where = where
        self.predicate = predicate
        self._files = files
        self.truth = truth
        self._notes: list[str] = [] if notes is None else notes
        self.snapshot_id = table.snapshot_id if snapshot_id is None else snapshot_id
        # what the lazily listed files are read from: this snapshot, whatever the table reads later
        self._source = (table.snapshot, table.schema) if self.snapshot_id == table.snapshot_id else None
        self.rules: PaimonRules = rules or rules_of_newest()
        self.skipped_manifests: list[ManifestFileMeta] = []
        self._rest: Callable[[SnapshotReader, list[FileVerdict]], tuple[list[FileVerdict], list[str]]] | None = None
        # the files the value stats remove: their verdicts are built on first use of the files
        self._later: tuple[UndecidedVerdicts, list[FileVerdict | None]] | None = None
        self.global_index: GlobalIndexSelection | None = None
        """What the table's global indexes select (data-evolution tables), None when none is consulted."""
        self.global_index_missed: list[int] | None = None
        """With the ground truth: global row ids of matching rows the reader does not return."""
        self.pk_index: dict[str, Any] | None = None
        """What the primary-key indexes did (primary-key tables, Paimon 2.0), None when none is consulted."""
        self.topn: dict[str, Any] | None = None
        """What ``ORDER BY ... LIMIT`` pruned (None: no TopN was asked)."""
        self.row_id_ranges: list[tuple[int, int]] | None = None
        """The ``_ROW_ID`` ranges the filter pushes into the scan (None: none)."""

    @property
    def files(self) -> list[FileVerdict]:
        """One verdict per live file of the snapshot, in :meth:`SnapshotReader.live_files` order."""
        self._complete()
        return self._files

    @files.setter
    def files(self, value: list[FileVerdict]) -> None:
        self._rest = self._later = None
        self._files = value

    @property
    def notes(self) -> list[str]:
        """What the explanation could not read or model, and what the modelled release leaves out."""
        self._complete()
        return self._notes

    @notes.setter
    def notes(self, value: list[str]) -> None:
        self._complete()
        self._notes = value

    @property
    def candidate_files(self) -> list[FileVerdict]:
        """The verdicts known without listing the partitions the partition filter removes (all of
        :attr:`files` once :attr:`complete`)."""
        self._built()
        return self._files

    @property
    def candidate_notes(self) -> list[str]:
        """The notes known without listing the partitions the partition filter removes (all of
        :attr:`notes` once :attr:`complete`)."""
        return self._notes

    @property
    def complete(self) -> bool:
        """Every live file has its verdict (the removed partitions' files were listed)."""
        return self._rest is None

    def _defer(self, rest: Callable[[SnapshotReader, list[FileVerdict]], tuple[list[FileVerdict], list[str]]],
               skipped: list[ManifestFileMeta]) -> None:
        """List the remaining files with ``rest(reader of the report's snapshot, candidate verdicts) ->
        (every verdict in order, every note)`` on first use."""
        self._rest = rest
        self.skipped_manifests = list(skipped)

    def _built(self) -> None:
        """Build the verdicts of the files the value stats removed, if not built yet."""
        later, self._later = self._later, None
        if later is not None:
            self._files = later[0].fill(later[1])

    def _complete(self) -> None:
        self._built()
        rest = self._rest
        if rest is not None:
            kept = self._files
            self._files, self._notes = self._at_own_snapshot(lambda reader: rest(reader, kept))
            self._rest = None

    def _at_own_snapshot(self, op: Callable[[SnapshotReader], T]) -> T:
        """``op(reader)`` on a reader of this report's snapshot, which does not move: the table itself
        while it reads that snapshot, else a reader pinned to the report's snapshot (a table that
        moved on; a tag may still keep that snapshot's files). Raises
        :class:`~paimon_lens.errors.SnapshotNotFoundError` when the snapshot expired (the report
        cannot be completed: explain again)."""
        from ..metadata.consistency import run_consistently

        table = self.table
        reader = table if table.snapshot_id == self.snapshot_id and table.snapshot_expired is None else None
        if reader is None:
            if self._source is None:
                raise SnapshotNotFoundError(f"the table reads snapshot {table.snapshot_id}, this explanation "
                                            f"snapshot {self.snapshot_id}: its other files cannot be listed")
            reader = table.pinned(*self._source)
        try:  # at this snapshot or not at all (the table's own setting untouched)
            return run_consistently(reader, lambda: op(reader), follows_latest=False)
        except SnapshotNotFoundError as e:
            raise SnapshotNotFoundError(f"the files of the partitions this explanation of snapshot "
                                        f"{self.snapshot_id} removed can no longer be listed ({e}): "
                                        "explain again") from None

    def _undecided(self, complete: bool) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(files, bytes, rows) of the verdicts not built yet: of the files the value stats removed,
        and of the planned files read whole."""
        if complete or self._later is None:
            return (0, 0, 0), (0, 0, 0)
        later = self._later[0]
        return later.removed_totals, later.read_totals

    def __repr__(self) -> str:
        s = self.summary(complete=False)
        unread = f", {len(self.skipped_manifests)} manifests not read" if self.skipped_manifests else ""
        files = f"{s['files']} files" if self.complete else f"{s['files']} files of the kept partitions{unread}"
        return (f"<ExplainReport {self.where!r}: {files} -> {s['planned_files']} planned -> "
                f"{s['read_files']} read ({s['rows_after_dv']} rows)>")

    @property
    def paimon_version(self) -> str:
        """The Paimon release whose pruning rules this explanation applies."""
        return self.rules.version

    # ---- summaries --------------------------------------------------------------------------
    def funnel(self, complete: bool = True) -> list[FunnelRow]:
        """Files, bytes and rows still in play after each stage (planning, then reading).

        ``complete=False``: over :attr:`candidate_files` (no manifest read for the others); its
        first row is then the files of the kept partitions unless :attr:`complete`.
        """
        files = self.files if complete else self._files
        extra, whole = self._undecided(complete)  # removed at the stats stage; read whole
        last = len(STAGES)  # read files, and those of any other stage, stay in play to the end
        # per stage that removes files (``last``: none): files, bytes, whole rows, rows the index
        # selects, rows the deletion vectors leave
        tally = [[0, 0, 0, 0, 0] for _ in range(last + 1)]
        tally[last] = [*whole, whole[2], whole[2]]  # the files read whole, with every row
        for f in files:
            t = tally[_STAGE_ORDER.get(f.stage, last)]
            t[0] += 1
            t[1] += f.file_size
            t[2] += f.row_count
            t[3] += f.row_count if f.index_selected_rows is None else f.index_selected_rows
            t[4] += f.rows_after_dv
        stats_at = _STAGE_ORDER["stats"]
        label = "all files" if self.complete else "files of the kept partitions"
        rows: list[FunnelRow] = []
        alive = [sum(t[k] for t in tally) for k in range(5)]
        pk = self.table.is_primary_key_table
        rows.append({"stage": label, "files": alive[0] + extra[0], "bytes": alive[1] + extra[1],
                     "rows": alive[2] + extra[2]})
        for i, step in enumerate(STEPS):
            alive = [a - b for a, b in zip(alive, tally[i])]
            if not step.shown(self, pk):
                continue  # a primary-key step on an append table; an index or clause not consulted
            n, size, count = extra if i < stats_at else (0, 0, 0)
            measure = 4 if step is DeletionVectorStage else 3 if step is IndexRowsStage else 2
            rows.append({"stage": step.funnel_label(), "files": alive[0] + n, "bytes": alive[1] + size,
                         "rows": alive[measure] + count})
        return rows

    def summary(self, complete: bool = True) -> ExplainSummary:
        """Totals: files/bytes/rows at each step, and truth when it was computed.

        ``complete=False``: over :attr:`candidate_files` (see :meth:`funnel`); the planned and
        read totals are the same either way, the totals of all files and of the partition stage
        count the kept partitions only until :attr:`complete`.
        """
        files = self.files if complete else self._files
        planned = [f for f in files if f.planned]
        read = [f for f in files if f.read]
        # not built yet: removed at the stats stage, no error; planned and read with every row, no error
        (n, size, count), (rn, rsize, rcount) = self._undecided(complete)
        files_with_errors = sum(1 for f in files if f.error)
        out: ExplainSummary = {
            "files": len(files) + n + rn,
            "bytes": sum(f.file_size for f in files) + size + rsize,
            "rows": sum(f.row_count for f in files) + count + rcount,
            "planned_files": len(planned) + rn,
            "planned_bytes": sum(f.file_size for f in planned) + rsize,
            "read_files": len(read) + rn,
            "read_bytes": sum(f.file_size for f in read) + rsize,
            "rows_after_dv": sum(f.rows_after_dv for f in read) + rcount,
            "skipped_by": {s.name: sum(1 for f in files if f.stage == s.name) + (n if s.name == StageName.STATS else 0)
                           for s in STEPS if s.consulted(self)},
            "funnel": self.funnel(complete),
            "files_with_errors": files_with_errors,
            "partial": files_with_errors > 0,  # a total here depends on something not read
        }
        if self.truth:
            out["matching_files"] = sum(1 for f in files if f.matching_rows)
            out["matching_rows"] = sum(f.matching_rows or 0 for f in files)
            out["read_files_without_match"] = sum(1 for f in read if f.matching_rows == 0)
            out["skipped_files_with_match"] = sum(1 for f in files if not f.read and f.matching_rows)
            # files whose truth could not be computed (their matches are missing from the counts above)
            out["truth_unavailable_files"] = sum(1 for f in files if f.matching_positions is None and f.error)
        if self.global_index is not None:
            from .global_index_stage import summary_fields

            out["global_index"] = summary_fields(self.global_index, self.global_index_missed)
        if self.pk_index is not None:
            out["primary_key_index"] = self.pk_index
        if self.topn is not None:
            out["topn"] = self.topn
        if self.row_id_ranges is not None:
            out["row_id_ranges"] = [list(r) for r in self.row_id_ranges]
        return out

    # ---- output -----------------------------------------------------------------------------
    def file_record(self, f: FileVerdict, positions: bool = False,
                    max_positions: int | None = None, *, as_json: bool = True) -> dict[str, Any]:
        """One file's record: as the ``explain --format json`` contract prints it, or with
        ``as_json=False`` as Python values for the frame (partition values as Python objects, the
        index's and truth's positions as the bitmaps themselves, whole, whatever ``positions`` and
        ``max_positions`` say, the truth fields always present).

        JSON: ``positions`` lists the index's positions (not those of a corrupt index beyond the
        file); ``max_positions``: at most this many positions per list, a list cut short named in
        the record's ``positions_truncated``.
        """
        ptypes = {p.name: p.type for p in self.table.schema.partition_fields}
        convert = to_json if as_json else to_python
        cut: list[str] = []

        def listed(name: str, bm: Any) -> Any:
            if bm is None or not as_json:
                return bm
            head, more = first_positions(bm, max_positions)
            if more:
                cut.append(name)
            return head

        if as_json:  # a corrupt index's positions beyond the file are not listed
            index_positions = (f.index_positions if positions and f.index_positions is not None
                               and (not f.index_positions or f.index_positions.max() < f.row_count)
                               else None)
        else:
            index_positions = f.index_positions
        rec: dict[str, Any] = {
            "file_name": f.file_name, "path": f.path,
            "partition": {k: convert(v, ptypes[k]) for k, v in f.partition.items()},
            "bucket": f.bucket, "level": f.level, "row_count": f.row_count, "file_size": f.file_size,
            "index_location": f.index_location,
            "partition_keep": f.partition_keep, "bucket_keep": f.bucket_keep, "stats_keep": f.stats_keep,
            "stats_used": f.stats_used, "index_result": f.index_result, "index_result_kind": f.index_kind,
            "index_positions": listed("index_positions", index_positions),
            "planned": f.planned, "read": f.read, "deleted_rows": f.deleted_rows,
            "rows_after_dv": f.rows_after_dv, "stage": f.stage or None, "reason": f.reason,
            "flags": list(f.flags), "error": f.error, "branch": f.branch, "index_error": index_error(f),
            "index_selected_rows": f.index_selected_rows, "dv_removed_rows": f.dv_removed_rows,
        }
        if self.truth or not as_json:
            rec["matching_positions"] = listed("matching_positions", f.matching_positions)
            rec["matching_live_positions"] = listed("matching_live_positions", f.matching_live_positions)
            rec["matching_rows"] = f.matching_rows
        if cut:
            rec["positions_truncated"] = cut
        return rec

    def file_records(self, positions: bool = False, max_positions: int | None = None, *,
                     as_json: bool = True) -> Iterator[dict[str, Any]]:
        """:meth:`file_record` of every file, in the report's order."""
        return (self.file_record(f, positions, max_positions, as_json=as_json) for f in self.files)

    def to_dict(self, positions: bool = False, max_positions: int | None = None) -> dict[str, Any]:
        """JSON-ready dict: ``{"where", "predicate", "snapshot_id", "files": [...], "summary": {...}}``
        (``max_positions``: see :meth:`file_record`). What is read for it (the other partitions'
        files, index answers not asked before) is read at the report's snapshot: if that snapshot
        expired meanwhile, :class:`~paimon_lens.errors.SnapshotNotFoundError`, not per-file errors."""
        return self._at_own_snapshot(lambda _: self._to_dict(positions, max_positions))

    def _to_dict(self, positions: bool, max_positions: int | None) -> dict[str, Any]:
        return dict(self._fields(list(self.file_records(positions, max_positions))))

    def _fields(self, files: Iterable[dict[str, Any]]) -> Iterator[tuple[str, Any]]:
        """The document's fields in order, ``files`` as given; the summary taken after the files."""
        yield from (("where", self.where), ("predicate", str(self.predicate)), ("table", self.table.path),
                    ("branch", self.table.branch), ("paimon_version", self.paimon_version),
                    ("snapshot_id", self.snapshot_id), ("notes", list(self.notes)),
                    ("note_details", [note_details(n) for n in self.notes]), ("files", files))
        yield "summary", self.summary()

    def write_json(self, out: IO[str], positions: bool = False, max_positions: int | None = None,
                   extra: Sequence[tuple[str, Any]] = (), **options: Any) -> None:
        """Write :meth:`to_dict` as JSON (``json.dump`` with ``options``) to ``out``, one file record at
        a time (an answer over every file of a large table is never held whole); ``extra`` fields
        (:func:`~paimon_lens.io.json_stream.write_document`'s) follow."""
        from ..io.json_stream import write_document

        def document(_: Any) -> None:
            files = self.file_records(positions, max_positions)
            write_document(out, [*self._fields(files), *extra], **options)

        self._at_own_snapshot(document)

    def to_frame(self) -> pd.DataFrame:
        """One row per data file (see :data:`~paimon_lens.presentation.frame_columns.EXPLAIN_COLUMNS`);
        displays with human units. Read at the report's snapshot, as :meth:`to_dict`."""
        return cast("pd.DataFrame", self._at_own_snapshot(lambda _: render(self, "frame")))

    def _repr_html_(self) -> str | None:
        return render_html(self)



def _version_notes(table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
                   files: Sequence[LiveFile]) -> list[str]:
    """What the modelled ``rules`` leave out for this table, predicate and live ``files``, and the
    table options Paimon would refuse (read as their defaults)."""
    notes: list[str] = list(table.schema.core_options.check())
    if data_evolution_enabled(table) and not rules.data_evolution:
        notes.append(f"Paimon {rules.version} cannot read data-evolution tables (1.3+); the plan shown "
                     "is the one of Paimon 1.3")
    if not rules.unsafe_filter_removed:
        current = {f.id: f.type.copy(True) for f in table.schema.fields}
        columns = {leaf.field for leaf in leaves(predicate)}
        changed = set()
        for sid in {lf.entry.file.schema_id for lf in files} - {table.schema.id}:
            try:
                old = table.schema_manager.schema(sid)
            except PaimonLensError:
                continue
            changed |= {f.name for f in old.fields if f.id in current and f.type.copy(True) != current[f.id]}
        touched = sorted(changed & columns)
        if touched:
            notes.append(f"Paimon {rules.version} tested the stats of files written before the type change of "
                         f"{', '.join(touched)} after casting them to the new type; paimon-lens applies the 1.3 "
                         "rule (such conjuncts are not tested on those files)")
    return notes


def explain(table: SnapshotReader, where: str | Predicate | None, *, truth: bool = False, index_enabled: bool = True,
            rules: PaimonRules | None = None, search_mode: str | None = None,
            global_index: bool = True, topn: TopN | None = None) -> ExplainReport:
    """Simulate Paimon's pruning of ``where`` on every live file of ``table``'s snapshot.

    Args:
        table: an opened table (any snapshot).
        where: SQL WHERE text (parsed against the table schema) or a bound predicate.
        truth: also read the predicate's columns from every data file and report the rows that
            really match.
        index_enabled: ``False`` models ``file-index.read.enabled = false``.
        rules: the Paimon release's rules (default: the newest release modelled).
        search_mode: ``scalar-index.search-mode`` of the query (``fast``, ``full``, ``detail``; default:
            the table's option, else ``fast``) for data-evolution tables with global indexes.
        global_index: apply the global index stage (a task explaining part of the snapshot leaves it
            to the caller, who applies :func:`global_index_stage` to the whole snapshot's report).
        topn: an ``ORDER BY ... LIMIT`` of the query (see :mod:`.topn`); ``where`` may then be None.
    """
    rules = rules or rules_of_newest()
    full, predicate, row_ranges = parse_query(table, where, rules)
    text = where if isinstance(where, str) else "" if where is None else str(where)
    with gc_paused():  # one pause for reading, planning and the read stage (see gc_pause)
        found = None if truth or data_evolution_enabled(table) else _candidates(table, predicate, rules)
        files = table.live_files() if found is None else found[0]
        slots, notes, later = _explained(table, predicate, files, truth, index_enabled, rules, defer=True)
        report = ExplainReport(table, text, predicate, [v for v in slots if v is not None], truth,
                               _version_notes(table, predicate, rules, files) + notes, rules=rules)
    if later is not None:
        report._later = (later, slots)
    if found is not None:
        report._defer(partial(_all_files, predicate=predicate, index_enabled=index_enabled, rules=rules,
                              kept_notes=notes), found[1])
    if global_index:
        after_planning(report, table, Query(full, predicate, row_ranges, truth, search_mode, topn), rules)
    return report


def parse_query(table: SnapshotReader, where: str | Predicate | None, rules: PaimonRules
                ) -> tuple[Predicate | None, Predicate | None, list[tuple[int, int]] | None]:
    """(the whole filter, the filter Paimon plans with, the ``_ROW_ID`` ranges it pushes) of a WHERE:
    tables with row tracking also know ``_ROW_ID`` (see :mod:`.row_ids`)."""
    from ..predicate.parser import parse_where

    if not table.schema.core_options.row_tracking_enabled:  # no _ROW_ID (and nothing more to import)
        full = parse_where(where, table.schema.fields) if isinstance(where, str) else where
        return full, full, None
    from . import row_ids

    full = parse_where(where, row_ids.fields_with_row_id(table)) if isinstance(where, str) else where
    if full is None or not row_ids.has_row_id(full):
        return full, full, None
    ranges = row_ids.ranges(full) if rules.global_index else None  # 1.4+
    return full, row_ids.residual(full, rules), ranges


def index_error(f: FileVerdict) -> str | None:
    """Why the file's index could not be read, whenever its answer was computed (for a file no stage
    asked it of, the answer shown as ``index_result`` is REMAIN for that reason, which this says)."""
    return None if f.index_location == IndexLocation.NONE else f.decision.index_error


def after_planning(report: ExplainReport, table: SnapshotReader, query: Query, rules: PaimonRules) -> None:
    """The stages on the scan's plan (:mod:`.plan_stages`: ``_ROW_ID`` ranges, else the global index;
    the primary-key indexes; TopN), on the whole snapshot's verdicts, in place; the report's
    predicate becomes the whole filter."""
    for stage in PLAN_STAGES:
        if not stage.applies(table, rules, query):
            continue
        out = stage.run(table, rules, query, report.files)
        if out is None:
            continue
        notes = report.notes + out.notes
        if out.verdicts is not None:
            report.files = out.verdicts
        report.notes = notes
        for name, value in out.fields.items():
            setattr(report, name, value)
    report.predicate = query.full


def _candidates(table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules
                ) -> tuple[list[LiveFile], list[ManifestFileMeta]] | None:
    """The live files of the partitions the predicate's partition filter keeps, and the manifests not
    read for them; None when every live file is to be explained (see :mod:`.manifests`)."""
    from .compare import signed_binary_order
    from .manifests import candidates
    from .scan import partition_filter

    with signed_binary_order(rules.signed_binary_compare):
        return candidates(table, partition_filter(table, predicate, rules.partition_conjuncts_whole))


def _explained(table: SnapshotReader, predicate: Predicate | None, files: list[LiveFile], truth: bool,
               index_enabled: bool, rules: PaimonRules, defer: bool = False
               ) -> tuple[list[FileVerdict | None], list[str], UndecidedVerdicts | None]:
    """The verdicts of ``files`` (planned together) and the notes about them; ``defer``: the
    verdicts of the files the value stats remove are built later (None in their place)."""
    from .scan import plan_deferring

    planned, removed = plan_deferring(table, predicate, index_enabled=index_enabled, rules=rules, files=files,
                                      defer=defer and not truth)
    decisions = {d.file_name: d for d in planned if d is not None}
    return verdicts(table, predicate, decisions, truth, index_enabled, rules, files, removed)


def _explained_all(table: SnapshotReader, predicate: Predicate | None, files: list[LiveFile], truth: bool,
                   index_enabled: bool, rules: PaimonRules) -> tuple[list[FileVerdict], list[str]]:
    """The verdict of every file of ``files`` (planned together) and the notes about them."""
    verdicts, notes, _ = _explained(table, predicate, files, truth, index_enabled, rules)
    return cast("list[FileVerdict]", verdicts), notes


def _all_files(table: SnapshotReader, kept: list[FileVerdict], *, predicate: Predicate | None, index_enabled: bool,
               rules: PaimonRules, kept_notes: list[str]) -> tuple[list[FileVerdict], list[str]]:
    """Every live file's verdict in order (``kept``, the candidates', and the others' planned now)
    and every note."""
    with gc_paused():
        files = table.live_files()
        have = {v.file_name for v in kept}
        rest = [lf for lf in files if lf.entry.file.file_name not in have]
        others, other_notes = _explained_all(table, predicate, rest, False, index_enabled, rules)
        by_name = {v.file_name: v for v in kept}
        by_name.update((v.file_name, v) for v in others)
        order = {lf.entry.file.file_name: i for i, lf in enumerate(files)}
        notes = sorted(kept_notes + other_notes, key=lambda n: note_position(n, order))
        return ([by_name[lf.entry.file.file_name] for lf in files],
                _version_notes(table, predicate, rules, files) + notes)


def note_position(note: str, order: dict[str, int]) -> int:
    """The position of the file a note is about (a :class:`~paimon_lens.errors.Note`'s ``file``); last if none."""
    name = note_file(note)
    return len(order) if name is None else order.get(name, len(order))


def note_details(note: str) -> dict[str, Any]:
    """A note's JSON details: the file it is about and the problem behind it (None where none)."""
    return note.to_dict() if isinstance(note, Note) else {"file": None, "text": str(note), "problem": None}


