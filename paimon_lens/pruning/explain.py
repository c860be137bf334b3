"""Explain a predicate file by file: what Paimon's scan and read would do, and why.

Stages, in Paimon's order (see :mod:`paimon_lens.pruning.scan` for the planning rules):

1. partition      partition values (and manifest partition stats) against the partition predicate
2. bucket         bucket-key equality / IN, with Paimon's bucket hash
3. level          primary-key tables whose batch scan reads only levels above 0 (deletion vectors,
                  ``first-row``): level-0 files
4. stats          manifest min/max/null counts (append tables; PK tables only with deletion vectors)
5. index (plan)   embedded file indexes, evaluated while planning
6. whole_bucket   primary-key tables: a bucket of overlapping files none of which passes is dropped
   ------------- the scan plan ends here: ``planned``
7. index (read)   external ``.index`` files, evaluated when the file is opened
8. index rows     a bitmap index result selects the rows the reader returns (Paimon 1.0+); a file
                  whose selection is empty is not read (``index_selected_rows``)
9. deletion vector  the deleted rows are taken out of that selection (``[0, rowCount)`` without a
                  bitmap); a file left with no row is not read (``dv_removed_rows``)
   ------------- ``read``; ``rows_after_dv`` rows are handed to the row-level filter

The funnel (:meth:`ExplainReport.funnel`) has a row per stage (``level`` and ``whole_bucket`` on
primary-key tables only): files, bytes and rows still in play;
rows are whole files up to the read index stage, then the rows the index selects ("after index row
selection"), then those the deletion vectors leave ("after deletion vector").

With ``truth=True`` the predicate's columns are read from each data file and the rows that really
match are reported, so a skipped file that holds a match (a Paimon bug) or a read file without
matches (wasted I/O, e.g. a bloom-filter false positive) is visible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from pyroaring import BitMap

from ..errors import PaimonLensError
from ..formats.result import BitmapIndexResult, FileIndexResult, first_positions
from ..formats.roaring import to_bitmap32
from ..frame_columns import EXPLAIN_COLUMNS
from ..metadata.gc_pause import gc_paused
from ..metadata.row_ranges import RowRangeGroup, data_evolution_enabled, row_range_groups
from ..options import option_true
from ..predicate.model import Predicate, leaves
from ..rendering import render_html
from ..snapshot_deletion_vectors import deletion_vector_infos
from ..values import to_json, to_python
from .verdict import FileVerdict
from .versions import rules_of

if TYPE_CHECKING:
    import pandas as pd

    from ..metadata.manifest import ManifestFileMeta
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .global_index import GlobalIndexSelection
    from .scan import PlanDecision, Undecided
    from .topn import TopN
    from .versions import PaimonRules

STAGES = ("partition", "bucket", "row ids", "global index", "level", "stats", "index", "whole_bucket",
          "primary-key index", "topn", "read index", "index rows", "deletion vector")
#: stages of the indexes and clauses only some tables and queries have: shown when the explanation used them
_OPTIONAL_STAGES = {"row ids": "row_id_ranges", "global index": "global_index", "primary-key index": "pk_index",
                    "topn": "topn"}

_STAGE_ORDER = {stage: i for i, stage in enumerate(STAGES)}
_PRIMARY_KEY_STAGES = frozenset({"level", "whole_bucket"})

#: the funnel's label of each stage (what is still in play after it)
STAGE_LABELS = {"level": "after level-0 rule", "whole_bucket": "after whole-bucket rule",
                "index rows": "after index row selection"}

_new = object.__new__




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
        self.rules: PaimonRules = rules or rules_of(table)
        self.skipped_manifests: list[ManifestFileMeta] = []
        self._rest: Callable[[list[FileVerdict]], tuple[list[FileVerdict], list[str]]] | None = None
        # the files the value stats remove: their verdicts are built on first use of the files
        self._later: tuple[_UndecidedVerdicts, list[FileVerdict | None]] | None = None
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

    def _defer(self, rest: Callable[[list[FileVerdict]], tuple[list[FileVerdict], list[str]]],
               skipped: list[ManifestFileMeta]) -> None:
        """List the remaining files with ``rest(candidate verdicts) -> (every verdict in order, every
        note)`` on first use."""
        self._rest = rest
        self.skipped_manifests = list(skipped)

    def _built(self) -> None:
        """Build the verdicts of the files the value stats removed, if not built yet."""
        later, self._later = self._later, None
        if later is not None:
            self._files = later[0].fill(later[1])

    def _complete(self) -> None:
        self._built()
        rest, self._rest = self._rest, None
        if rest is not None:
            self._files, self._notes = rest(self._files)

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
    def funnel(self, complete: bool = True) -> list[dict[str, Any]]:
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
        rows = []
        alive = [sum(t[k] for t in tally) for k in range(5)]
        pk = self.table.is_primary_key_table
        for i, stage in enumerate(("", *STAGES)):
            if i:
                alive = [a - b for a, b in zip(alive, tally[i - 1])]
            if stage in _PRIMARY_KEY_STAGES and not pk:
                continue  # append tables have no level-0 or whole-bucket rule
            if stage in _OPTIONAL_STAGES and getattr(self, _OPTIONAL_STAGES[stage]) is None:
                continue  # only tables whose scan consults such indexes, queries with such a clause
            n, size, count = extra if i <= stats_at else (0, 0, 0)
            measure = 4 if stage == "deletion vector" else 3 if stage == "index rows" else 2
            rows.append({"stage": STAGE_LABELS.get(stage, f"after {stage}") if stage else label,
                         "files": alive[0] + n, "bytes": alive[1] + size, "rows": alive[measure] + count})
        return rows

    def summary(self, complete: bool = True) -> dict[str, Any]:
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
        out: dict[str, Any] = {
            "files": len(files) + n + rn,
            "bytes": sum(f.file_size for f in files) + size + rsize,
            "rows": sum(f.row_count for f in files) + count + rcount,
            "planned_files": len(planned) + rn,
            "planned_bytes": sum(f.file_size for f in planned) + rsize,
            "read_files": len(read) + rn,
            "read_bytes": sum(f.file_size for f in read) + rsize,
            "rows_after_dv": sum(f.rows_after_dv for f in read) + rcount,
            "skipped_by": {s: sum(1 for f in files if f.stage == s) + (n if s == "stats" else 0) for s in STAGES
                           if s not in _OPTIONAL_STAGES or getattr(self, _OPTIONAL_STAGES[s]) is not None},
            "funnel": self.funnel(complete),
            "files_with_errors": sum(1 for f in files if f.error),
        }
        if self.truth:
            out["matching_files"] = sum(1 for f in files if f.matching_rows)
            out["matching_rows"] = sum(f.matching_rows or 0 for f in files)
            out["read_files_without_match"] = sum(1 for f in read if not f.matching_rows)
            out["skipped_files_with_match"] = sum(1 for f in files if not f.read and f.matching_rows)
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
                    max_positions: int | None = None) -> dict[str, Any]:
        """One file as the ``explain --format json`` contract prints it.

        ``max_positions``: at most this many positions per list; a list cut short is named in the
        record's ``positions_truncated``.
        """
        ptypes = {p.name: p.type for p in self.table.schema.partition_fields}
        cut: list[str] = []

        def listed(name: str, bm: Any) -> list[int] | None:
            if bm is None:
                return None
            head, more = first_positions(bm, max_positions)
            if more:
                cut.append(name)
            return head

        index_positions = (f.index_positions if positions and f.index_positions is not None
                           and (not f.index_positions or f.index_positions.max() < f.row_count)
                           else None)  # a corrupt index's positions beyond the file are not listed
        rec: dict[str, Any] = {
            "file_name": f.file_name, "path": f.path,
            "partition": {k: to_json(v, ptypes[k]) for k, v in f.partition.items()},
            "bucket": f.bucket, "level": f.level, "row_count": f.row_count, "file_size": f.file_size,
            "index_location": f.index_location,
            "partition_keep": f.partition_keep, "bucket_keep": f.bucket_keep, "stats_keep": f.stats_keep,
            "stats_used": f.stats_used, "index_result": f.index_result, "index_result_kind": f.index_kind,
            "index_positions": listed("index_positions", index_positions),
            "planned": f.planned, "read": f.read, "deleted_rows": f.deleted_rows,
            "rows_after_dv": f.rows_after_dv, "stage": f.stage or None, "reason": f.reason,
            "flags": list(f.flags), "error": f.error, "branch": f.branch,
            "index_selected_rows": f.index_selected_rows, "dv_removed_rows": f.dv_removed_rows,
        }
        if self.truth:
            rec["matching_positions"] = listed("matching_positions", f.matching_positions)
            rec["matching_live_positions"] = listed("matching_live_positions", f.matching_live_positions)
            rec["matching_rows"] = f.matching_rows
        if cut:
            rec["positions_truncated"] = cut
        return rec

    def to_dict(self, positions: bool = False, max_positions: int | None = None) -> dict[str, Any]:
        """JSON-ready dict: ``{"where", "predicate", "snapshot_id", "files": [...], "summary": {...}}``
        (``max_positions``: see :meth:`file_record`)."""
        return {
            "where": self.where, "predicate": str(self.predicate), "table": self.table.path,
            "branch": self.table.branch, "paimon_version": self.paimon_version,
            "snapshot_id": self.snapshot_id, "notes": list(self.notes),
            "files": [self.file_record(f, positions, max_positions) for f in self.files],
            "summary": self.summary(),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per data file (see :data:`EXPLAIN_COLUMNS`); displays with human units."""
        from ..lens_frame import LensFrame

        ptypes = {p.name: p.type for p in self.table.schema.partition_fields}
        rows = []
        for f in self.files:
            rows.append({
                "file_name": f.file_name, "partition": {k: to_python(v, ptypes[k]) for k, v in f.partition.items()},
                "bucket": f.bucket, "level": f.level, "row_count": f.row_count, "file_size": f.file_size,
                "partition_keep": f.partition_keep, "bucket_keep": f.bucket_keep, "stats_keep": f.stats_keep,
                "index_location": f.index_location, "index_result": f.index_result, "index_kind": f.index_kind,
                "index_rows": None if f.index_positions is None else len(f.index_positions),
                "planned": f.planned, "read": f.read, "deleted_rows": f.deleted_rows,
                "rows_after_dv": f.rows_after_dv, "matching_rows": f.matching_rows, "stage": f.stage,
                "reason": f.reason, "flags": ", ".join(f.flags), "error": f.error, "branch": f.branch,
                "index_selected_rows": f.index_selected_rows, "dv_removed_rows": f.dv_removed_rows,
            })
        frame = LensFrame(rows, columns=list(EXPLAIN_COLUMNS))
        if rows:  # ints, None where no bitmap selects (not floats with NaN)
            import pandas as pd

            frame["index_selected_rows"] = pd.Series([r["index_selected_rows"] for r in rows], index=frame.index,
                                                     dtype=object)
        return frame

    def _repr_html_(self) -> str | None:
        return render_html(self)



def deletion_vector_bitmaps(table: SnapshotReader) -> dict[str, BitMap]:
    """Deleted positions per data file name, for the deletion vectors (32- or 64-bit) that decode and
    agree with their file (the others are in :func:`deletion_vector_errors`)."""
    if not table.index_entries():
        return {}
    return _bitmaps(deletion_vector_infos(table))


def _bitmaps(infos: Any) -> dict[str, BitMap]:
    out: dict[str, BitMap] = {}
    for dv in infos:
        if dv.positions is None or dv.error is not None:
            continue
        bm = dv.positions if isinstance(dv.positions, BitMap) else to_bitmap32(dv.positions)
        if bm is not None:  # positions of a file's rows fit 32 bits (rows beyond the file are an error)
            out[dv.data_file] = BitMap(bm)
    return out


def _version_notes(table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
                   files: Sequence[LiveFile]) -> list[str]:
    """What the modelled ``rules`` leave out for this table, predicate and live ``files``."""
    notes: list[str] = []
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


def _groups_by_file(table: SnapshotReader) -> dict[str, RowRangeGroup]:
    """Data-evolution tables: each file's row-range group (empty for other tables)."""
    if not data_evolution_enabled(table):
        return {}
    return {lf.entry.file.file_name: g for g in row_range_groups(table.live_files()) for lf in g.files}


def _group_dv(group: RowRangeGroup, dvs: dict[str, BitMap]) -> BitMap | None:
    """The deleted positions of a row-range group: those of any of its files (they share positions)."""
    found = [dvs[lf.entry.file.file_name] for lf in group.files if lf.entry.file.file_name in dvs]
    return BitMap.union(*found) if found else None


def _needed_deletion_vectors(table: SnapshotReader, wanted: set[str] | None, files: Sequence[LiveFile]
                             ) -> tuple[dict[str, BitMap], dict[str, str], dict[str, int] | None]:
    """The deletion vectors the read stage needs: decoded for the ``wanted`` data files only (the
    index files holding them), with every other file's deleted-row count taken from the index
    manifest (Paimon 2.x records it); everything decoded when ``wanted`` is None, when a count is
    not recorded (0.9) or when the snapshot's vectors are decoded already. Returns (bitmaps, errors,
    counts of the files not decoded, or None)."""
    from ..snapshot_deletion_vectors import DELETION_VECTORS

    entries = [e for e in table.index_entries() if e.index_type == DELETION_VECTORS]
    if not entries:
        return {}, {}, None
    counts = {dv.data_file: dv.cardinality for e in entries for dv in e.deletion_vectors or ()}
    if wanted is None or table.memoized("deletion_vectors") or any(c is None for c in counts.values()):
        return deletion_vector_bitmaps(table), deletion_vector_errors(table), None
    from ..snapshot_deletion_vectors import table_deletion_vectors

    needed = [e for e in entries if any(dv.data_file in wanted for dv in e.deletion_vectors or ())]
    decoded: dict[str, list[Any]] = table.memo("deletion_vectors_by_index_file", dict)  # kept for the next explain
    todo = [e for e in needed if e.file_name not in decoded]
    if todo:
        part = table.restricted([lf.entry for lf in files], todo)
        for info in table_deletion_vectors(part):
            decoded.setdefault(info.index_file.rsplit("/", 1)[-1], []).append(info)
        for e in todo:
            decoded.setdefault(e.file_name, [])
    infos = [info for e in needed for info in decoded[e.file_name]]
    return (_bitmaps(infos), {dv.data_file: dv.error for dv in infos if dv.error},
            {k: int(v or 0) for k, v in counts.items()})


def deletion_vector_errors(table: SnapshotReader) -> dict[str, str]:
    """Why the deletion vector of a data file could not be read, per data file name."""
    if not table.index_entries():
        return {}
    return {dv.data_file: dv.error for dv in deletion_vector_infos(table) if dv.error}


def _read_stage(d: PlanDecision, lf: LiveFile, result: FileIndexResult | None, dv: BitMap | None,
                bitmap_selection: bool = True) -> tuple[bool, int, str, str, int | None, int]:
    """(read, rows_after_dv, stage, reason, index_selected_rows, dv_removed_rows) for a planned file.

    ``bitmap_selection`` (Paimon 1.0+): a bitmap index result selects the rows the reader returns.
    """
    n = lf.entry.file.row_count
    if d.index_location == "external" and result is not None and not result.remain():
        return False, 0, "read index", d.reason or "external index: no row can match", None, 0
    selection: BitMap | None = None
    if bitmap_selection and isinstance(result, BitmapIndexResult) and n <= 2**31 - 1:
        selection = BitMap(result.bitmap)
    selected = None if selection is None else len(selection)
    if selected == 0:
        return False, 0, "index rows", "index selects no row", 0, 0
    if dv is not None:
        if selection is None:
            selection = BitMap()
            selection.add_range(0, n)
        selection = selection - dv
    rows = n if selection is None else len(selection)
    removed = (n if selected is None else selected) - rows
    if rows == 0:
        return False, 0, "deletion vector", "every candidate row is deleted", selected, removed
    return True, rows, "", "", selected, removed


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
        rules: the Paimon release's rules (default: those of ``table.paimon_version``, else the
            newest release modelled).
        search_mode: ``scalar-index.search-mode`` of the query (``fast``, ``full``, ``detail``; default:
            the table's option, else ``fast``) for data-evolution tables with global indexes.
        global_index: apply the global index stage (a task explaining part of the snapshot leaves it
            to the caller, who applies :func:`global_index_stage` to the whole snapshot's report).
        topn: an ``ORDER BY ... LIMIT`` of the query (see :mod:`.topn`); ``where`` may then be None.
    """
    rules = rules or rules_of(table)
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
        report._defer(partial(_all_files, table, predicate, index_enabled, rules, notes), found[1])
    if global_index:
        after_planning(report, table, full, predicate, row_ranges, rules, truth, search_mode, topn)
    return report


def parse_query(table: SnapshotReader, where: str | Predicate | None, rules: PaimonRules
                ) -> tuple[Predicate | None, Predicate | None, list[tuple[int, int]] | None]:
    """(the whole filter, the filter Paimon plans with, the ``_ROW_ID`` ranges it pushes) of a WHERE:
    tables with row tracking also know ``_ROW_ID`` (see :mod:`.row_ids`)."""
    from ..predicate.parser import parse_where

    if not option_true(table.schema.options, "row-tracking.enabled"):  # no _ROW_ID (and nothing more to import)
        full = parse_where(where, table.schema.fields) if isinstance(where, str) else where
        return full, full, None
    from . import row_ids

    full = parse_where(where, row_ids.fields_with_row_id(table)) if isinstance(where, str) else where
    if full is None or not row_ids.has_row_id(full):
        return full, full, None
    ranges = row_ids.ranges(full) if rules.global_index else None  # 1.4+
    return full, row_ids.residual(full, rules), ranges


def after_planning(report: ExplainReport, table: SnapshotReader, full: Predicate | None,
                   predicate: Predicate | None, row_ranges: list[tuple[int, int]] | None, rules: PaimonRules,
                   truth: bool, search_mode: str | None = None, topn: TopN | None = None) -> None:
    """The stages after the scan's own plan, on the whole snapshot's verdicts (in place): ``_ROW_ID``
    ranges (else the global index), the primary-key indexes, TopN; ``predicate`` is what Paimon plans
    with, ``full`` the whole filter (the ground truth's, and the report's)."""
    if full is not predicate:
        _row_id_stage(report, table, full, row_ranges, truth)
    if row_ranges is None:
        global_index_stage(report, table, predicate, rules, truth, search_mode)
    pk_index_stage(report, table, predicate, rules, truth)
    if topn is not None:
        topn_stage(report, table, predicate, rules, topn, truth)
    report.predicate = full


def _row_id_stage(report: ExplainReport, table: SnapshotReader, full: Predicate | None,
                  row_ranges: list[tuple[int, int]] | None, truth: bool) -> None:
    """A filter naming ``_ROW_ID``: the truth of the whole filter, then the files and rows its ranges keep."""
    from . import row_ids

    files = {lf.file.file_name: lf for lf in table.live_files()}
    dvs = deletion_vector_bitmaps(table)
    verdicts, notes = report.files, list[str]()
    if truth and full is not None:
        verdicts, notes = row_ids.full_truth(table, verdicts, full, files, dvs)
    if row_ranges is not None:
        verdicts, _ = row_ids.apply(verdicts, files, row_ranges, dvs, truth)
        report.row_id_ranges = row_ranges
        notes.append("_ROW_ID: the scan reads row ids " + (", ".join(f"{a}-{b}" for a, b in row_ranges[:6])
                                                           or "(none)") + " (the global index is not consulted)")
    else:
        notes.append("_ROW_ID: no row-id range is pushed for this filter; its _ROW_ID conditions are left to "
                     "the reader")
    extra = report.notes + notes
    report.files = verdicts
    report.notes = extra


def topn_stage(report: ExplainReport, table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
               topn: TopN, truth: bool) -> None:
    """``ORDER BY ... LIMIT``: the splits and rows TopN leaves (see :mod:`.topn_stage`), in place."""
    from . import topn_stage as stage

    verdicts, notes, facts = stage.apply(report.files, table, predicate, rules, topn, truth,
                                         deletion_vector_bitmaps(table))
    extra = report.notes + notes
    report.files = verdicts
    report.notes = extra
    report.topn = facts


def pk_index_stage(report: ExplainReport, table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
                   truth: bool) -> None:
    """Primary-key tables with primary-key indexes (Paimon 2.0): per planned file, the rows the index
    selects (see :mod:`.pk_index`), applied to ``report`` in place."""
    opts = table.schema.options
    if not table.schema.primary_keys or not any(opts.get(f"pk-{k}.index.columns") for k in ("btree", "bitmap")):
        return  # (pk_index.applies would say so too, after importing the decoders)
    from . import pk_index
    from .global_index_stage import apply_selection

    if not pk_index.applies(table, rules):
        return
    by_name = {lf.file.file_name: lf for lf in table.live_files()}
    planned = [by_name[v.file_name] for v in report.files if v.planned and v.file_name in by_name]
    got = pk_index.select(table, predicate, rules, planned)
    if got is None:
        return
    selections, notes = got

    def choose(v: FileVerdict) -> tuple[BitMap, int, str] | None:
        s = selections.get(v.file_name)
        if s is None or s.positions is None:
            return None
        return s.positions, 0, f"primary-key index ({', '.join(s.index_files)}) selects no row of this file"

    verdicts, _ = apply_selection(report.files, choose, "primary-key index", "the primary-key index selects",
                                  deletion_vector_bitmaps(table), truth)
    whole = {n: s.reason for n, s in selections.items() if s.positions is None}
    report.files = verdicts
    report.notes = report.notes + notes + [f"{n}: {r}" for n, r in whole.items()]
    report.pk_index = {
        "files_indexed": sum(1 for s in selections.values() if s.positions is not None),
        "files_read_whole": len(whole),
        "index_files": sorted({f for s in selections.values() for f in s.index_files}),
    }


def global_index_stage(report: ExplainReport, table: SnapshotReader, predicate: Predicate | None, rules: PaimonRules,
                       truth: bool, search_mode: str | None = None) -> None:
    """Data-evolution tables with global indexes: the files and rows the index selection leaves
    (see :mod:`.global_index_stage`), applied to ``report`` in place."""
    if not option_true(table.schema.options, "data-evolution.enabled"):
        return  # (global_index.applies would say so too, after importing the decoders)
    from . import global_index, global_index_stage
    from .scan import partition_filter

    if not global_index.applies(table, rules):
        return
    sel = global_index.select(table, predicate, rules,
                              partition_filter(table, predicate, rules.partition_conjuncts_whole), search_mode)
    if sel is None:
        return
    report.global_index = sel
    notes = [f"global index: {e}" for e in sel.errors]
    if sel.rows is None:
        report.notes = report.notes + notes + [
            "global index: the predicate is not answered by the indexes of its columns: the scan reads as without them"]
        return
    files = {lf.file.file_name: lf for lf in table.live_files()}
    verdicts, missed = global_index_stage.apply(report.files, files, sel, deletion_vector_bitmaps(table), truth)
    extra = report.notes + notes + [sel.describe()]
    report.files = verdicts
    report.notes = extra
    report.global_index_missed = missed if truth else None


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
               ) -> tuple[list[FileVerdict | None], list[str], _UndecidedVerdicts | None]:
    """The verdicts of ``files`` (planned together) and the notes about them; ``defer``: the
    verdicts of the files the value stats remove are built later (None in their place)."""
    from .scan import plan_deferring

    planned, removed = plan_deferring(table, predicate, index_enabled=index_enabled, rules=rules, files=files,
                                      defer=defer and not truth)
    decisions = {d.file_name: d for d in planned if d is not None}
    return _verdicts(table, predicate, decisions, truth, index_enabled, rules, files, removed)


def _explained_all(table: SnapshotReader, predicate: Predicate | None, files: list[LiveFile], truth: bool,
                   index_enabled: bool, rules: PaimonRules) -> tuple[list[FileVerdict], list[str]]:
    """The verdict of every file of ``files`` (planned together) and the notes about them."""
    verdicts, notes, _ = _explained(table, predicate, files, truth, index_enabled, rules)
    return cast("list[FileVerdict]", verdicts), notes


def _all_files(table: SnapshotReader, predicate: Predicate | None, index_enabled: bool, rules: PaimonRules,
               kept_notes: list[str], kept: list[FileVerdict]) -> tuple[list[FileVerdict], list[str]]:
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
    """The position of the file a note is about (file notes start with ``file_name:``); last if none."""
    name = note.split(":", 1)[0]
    return order.get(name, len(order))


def _pruned_verdict(lf: LiveFile, d: PlanDecision, dvs: dict[str, BitMap], dv_counts: dict[str, int] | None
                   ) -> FileVerdict:
    """The verdict of a file planning removed, with nothing to say about its index."""
    f = lf.entry.file
    dv = dvs.get(f.file_name)
    # FileVerdict(...) for thousands of files: fill the frozen instance directly (same object,
    # without one object.__setattr__ per field; FileVerdict has no __post_init__)
    verdict = _new(FileVerdict)
    verdict.__dict__.update(
        file_name=f.file_name, path=lf.path, partition=lf.partition, bucket=lf.entry.bucket,
        level=f.level, row_count=f.row_count, file_size=f.file_size, index_location=d.index_location,
        partition_keep=d.partition_keep, bucket_keep=d.bucket_keep, stats_used=d.stats_used,
        decision=d, planned=False, read=False,
        deleted_rows=len(dv) if dv is not None else dv_counts.get(f.file_name, 0) if dv_counts else 0,
        rows_after_dv=0, stage=d.stage, reason=d.__dict__["reason"], matching_positions=None,
        matching_live_positions=None, flags=(), error=None, branch=None, index_selected_rows=None,
        dv_removed_rows=0,
    )
    return verdict


def _totals(files: Sequence[LiveFile], positions: Sequence[int]) -> tuple[int, int, int]:
    """(files, bytes, rows) of ``files`` at ``positions``."""
    metas = [files[k].entry.file for k in positions]
    return len(metas), sum(f.file_size for f in metas), sum(f.row_count for f in metas)


class _UndecidedVerdicts:
    """The verdicts of the files planning left undecided (:class:`~.scan.Undecided`), built on first
    use of the report's files: until then their totals come from their metadata (those the value
    stats remove: removed at the stats stage, no error; those read whole: planned and read, every row,
    no error)."""

    def __init__(self, removed: Undecided, files: Sequence[LiveFile], read_stage: _ReadStage) -> None:
        self.removed = removed
        self._files = files
        self._read_stage = read_stage
        self.removed_totals = _totals(files, removed.positions)
        self.read_totals = _totals(files, removed.read_whole)

    def fill(self, slots: list[FileVerdict | None]) -> list[FileVerdict]:
        """``slots`` (the verdicts in file order, None where an undecided file goes) completed."""
        removed, files, stage = self.removed, self._files, self._read_stage
        for k in removed.positions:
            slots[k] = _pruned_verdict(files[k], removed.decision(k), stage.dvs, stage.dv_counts)
        notes: list[str] = []
        for k in removed.read_whole:
            slots[k] = v = stage.verdict(files[k], removed.decision(k), notes)
            if notes or not (v.planned and v.read and v.rows_after_dv == v.row_count and v.error is None):
                raise AssertionError(f"{v.file_name}: planned to be read whole, but {v.stage or v.reason or notes}")
        return cast("list[FileVerdict]", slots)


class _ReadStage:
    """The read stage (and the ground truth) of one explanation, a planned file at a time."""

    def __init__(self, table: SnapshotReader, predicate: Predicate | None, truth: bool, index_enabled: bool,
                 rules: PaimonRules, dvs: dict[str, BitMap], dv_errors: dict[str, str],
                 dv_counts: dict[str, int] | None) -> None:
        self.table, self.predicate, self.truth, self.index_enabled, self.rules = (
            table, predicate, truth, index_enabled, rules)
        self.dvs, self.dv_errors, self.dv_counts = dvs, dv_errors, dv_counts
        self.groups = _groups_by_file(table)
        self.external_only = not rules.read_embedded_index  # 0.9: the reader consults external index files only
        self.no_pk_index = table.is_primary_key_table and not rules.pk_file_index  # 0.9: none on primary-key tables

    def verdict(self, lf: LiveFile, d: PlanDecision, notes: list[str]) -> FileVerdict:
        """The verdict of ``lf`` planned as ``d`` (what it has to say appended to ``notes``)."""
        truth, dvs, dv_counts = self.truth, self.dvs, self.dv_counts
        f = lf.entry.file
        dv = dvs.get(f.file_name)
        if not d.planned and not truth:
            state = getattr(d.index_state, "computed", None)
            if state is None or state[1] is None:  # pruned at planning, nothing to say: the short way
                return _pruned_verdict(lf, d, dvs, dv_counts)
        if truth:
            from .truth import group_matching_positions, matching_positions
        table, predicate, index_enabled, rules = self.table, self.predicate, self.index_enabled, self.rules
        external_only, no_pk_index, dv_errors = self.external_only, self.no_pk_index, self.dv_errors
        group = self.groups.get(f.file_name)
        stage, reason = d.stage, d.__dict__["reason"]  # the text, or what writes it (see lazy_text)
        read, rows = False, 0
        selected: int | None = None
        removed = 0
        index_rows_error: str | None = None
        if d.planned:
            # the reader's file-index skip over a merged row-range group is not modelled: read whole
            result = d.index if index_enabled and (group is None or not group.merged) else None
            if (external_only and d.index_location != "external") or no_pk_index:
                result = None
            if (isinstance(result, BitmapIndexResult) and result.bitmap
                    and result.bitmap.max() >= lf.entry.file.row_count):
                index_rows_error = (f"index selects row {result.bitmap.max()} of a file with "
                                    f"{lf.entry.file.row_count} rows (corrupt index): its row selection is ignored")
                result = None
            read, rows, stage, reason, selected, removed = _read_stage(d, lf, result, dv, rules.read_embedded_index)
        flags: list[str] = []
        errors: list[str] = [index_rows_error] if index_rows_error else []
        state = getattr(d.index_state, "computed", None)  # errors of answers already computed only
        if state is not None and state[1] is not None:
            errors.append(f"index could not be read ({state[1]}): counted as REMAIN, it cannot rule the file out")
        dv_error = dv_errors.get(f.file_name)
        if dv_error is not None and read:
            errors.append(f"deletion vector could not be read ({dv_error}): its deleted rows are not subtracted")
        if errors:
            notes.extend(f"{f.file_name}: {e}" for e in errors)
        match = live = None
        if truth and group is not None and group.merged and lf is not group.anchor:
            anchor = group.anchor.entry.file.file_name
            flags.append(f"row ids [{group.first_row_id}, {group.last_row_id}] are merged from "
                         f"{len(group.files)} files: their matching rows are counted on {anchor}")
        elif truth:
            try:
                if group is not None and group.merged:
                    match = group_matching_positions(table, group, predicate)
                    dv = _group_dv(group, dvs)
                else:
                    match = matching_positions(table, lf, predicate)
                live = match - dv if dv is not None else None
            except PaimonLensError as e:
                notes.append(f"{f.file_name}: ground truth unavailable: {e}")
                errors.append(f"data file could not be read for the ground truth ({e})")
            matched = len(live if live is not None else match) if match is not None else 0
            if matched and not read:
                flags.append(f"PAIMON SKIPPED A FILE WITH {matched} MATCHING ROWS at stage {stage!r}")
            elif read and match is not None and not matched:
                flags.append("read without any matching row")
                if lf.index_location != "none" and d.index_result == "REMAIN":
                    flags.append("index could not rule the file out (false positive or no index on the columns)")
        verdict = _new(FileVerdict)  # as in _pruned_verdict
        verdict.__dict__.update(
            file_name=f.file_name, path=lf.path, partition=lf.partition, bucket=lf.entry.bucket, level=f.level,
            row_count=f.row_count, file_size=f.file_size, index_location=d.index_location,
            partition_keep=d.partition_keep, bucket_keep=d.bucket_keep,
            stats_used=d.stats_used, decision=d, planned=d.planned, read=read,
            deleted_rows=len(dv) if dv is not None else dv_counts.get(f.file_name, 0) if dv_counts else 0,
            rows_after_dv=rows,
            stage=stage, reason=reason, matching_positions=match, matching_live_positions=live,
            flags=tuple(flags), error="; ".join(errors) or None, branch=None,
            index_selected_rows=selected, dv_removed_rows=removed,
        )
        return verdict


def _verdicts(table: SnapshotReader, predicate: Predicate | None, decisions: dict[str, PlanDecision],
              truth: bool, index_enabled: bool, rules: PaimonRules, files: list[LiveFile],
              undecided: Undecided | None = None
              ) -> tuple[list[FileVerdict | None], list[str], _UndecidedVerdicts | None]:
    """The read stage (and the ground truth) after planning, file by file: (verdicts, notes, the
    verdicts of the files planning left undecided (``undecided``), to build later: None at their
    positions)."""
    wanted = None if truth else {name for name, d in decisions.items() if d.planned}
    dvs, dv_errors, dv_counts = _needed_deletion_vectors(table, wanted, files)
    stage = _ReadStage(table, predicate, truth, index_enabled, rules, dvs, dv_errors, dv_counts)
    verdicts: list[FileVerdict | None] = [None] * len(files)
    notes: list[str] = []
    deferred = frozenset(()) if undecided is None else frozenset(
        undecided.positions + undecided.read_whole)
    todo = [k for k in range(len(files)) if k not in deferred] if deferred else range(len(files))
    verdict = stage.verdict
    for k in todo:  # the others are decided later (see Undecided)
        lf = files[k]
        verdicts[k] = verdict(lf, decisions[lf.entry.file.file_name], notes)
    later = None if undecided is None else _UndecidedVerdicts(undecided, files, stage)
    return verdicts, notes, later
