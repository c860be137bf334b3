"""The verdicts of an explanation's files: each planned file through the reader's stages
(:mod:`.read_stages`), and the ground truth beside it.

:func:`verdicts` turns the scan's decisions into :class:`~.verdict.FileVerdict` records, reading
only the deletion vectors of the planned files where the index manifest allows; the files planning
left undecided (:class:`~.scan.Undecided`) get theirs on first use (:class:`UndecidedVerdicts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from pyroaring import BitMap

from ..errors import Note, PaimonLensError, Problem
from ..formats.result import BitmapIndexResult, IndexAnswer
from ..metadata.snapshot_reader import IndexLocation
from ..predicate.model import Predicate
from .read_stages import group_dv, groups_by_file, needed_deletion_vectors, read_file, recorded_deletion_counts
from .verdict import FileVerdict

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import LiveFile, SnapshotReader
    from .scan import PlanDecision, Undecided
    from .versions import PaimonRules

_new = object.__new__


def pruned_verdict(lf: LiveFile, d: PlanDecision, deleted_rows: int | None) -> FileVerdict:
    """The verdict of a file planning removed, with nothing to say about its index (``deleted_rows``:
    see :meth:`FileReader.deleted_rows`)."""
    f = lf.entry.file
    # FileVerdict(...) for thousands of files: fill the frozen instance directly (same object,
    # without one object.__setattr__ per field; FileVerdict has no __post_init__)
    verdict = _new(FileVerdict)
    verdict.__dict__.update(
        file_name=f.file_name, path=lf.path, partition=lf.partition, bucket=lf.entry.bucket,
        level=f.level, row_count=f.row_count, file_size=f.file_size, index_location=d.index_location,
        partition_keep=d.partition_keep, bucket_keep=d.bucket_keep, stats_used=d.stats_used,
        decision=d, planned=False, read=False,
        deleted_rows=deleted_rows, rows_after_dv=0, stage=d.stage, reason=d.__dict__["reason"], matching_positions=None,
        matching_live_positions=None, flags=(), error=None, branch=None, index_selected_rows=None,
        dv_removed_rows=0,
    )
    return verdict


def _totals(files: Sequence[LiveFile], positions: Sequence[int]) -> tuple[int, int, int]:
    """(files, bytes, rows) of ``files`` at ``positions``."""
    metas = [files[k].entry.file for k in positions]
    return len(metas), sum(f.file_size for f in metas), sum(f.row_count for f in metas)


class UndecidedVerdicts:
    """The verdicts of the files planning left undecided (:class:`~.scan.Undecided`), built on first
    use of the report's files: until then their totals come from their metadata (those the value
    stats remove: removed at the stats stage, no error; those read whole: planned and read, every row,
    no error)."""

    def __init__(self, removed: Undecided, files: Sequence[LiveFile], reader: FileReader) -> None:
        self.removed = removed
        self._files = files
        self._reader = reader
        self.removed_totals = _totals(files, removed.positions)
        self.read_totals = _totals(files, removed.read_whole)

    def fill(self, slots: list[FileVerdict | None]) -> list[FileVerdict]:
        """``slots`` (the verdicts in file order, None where an undecided file goes) completed."""
        removed, files, reader = self.removed, self._files, self._reader
        for k in removed.positions:
            name = files[k].entry.file.file_name
            slots[k] = pruned_verdict(files[k], removed.decision(k), reader.deleted_rows(name, reader.dvs.get(name)))
        notes: list[str] = []
        for k in removed.read_whole:
            slots[k] = v = reader.verdict(files[k], removed.decision(k), notes)
            if notes or not (v.planned and v.read and v.rows_after_dv == v.row_count and v.error is None):
                raise AssertionError(f"{v.file_name}: planned to be read whole, but {v.stage or v.reason or notes}")
        return cast("list[FileVerdict]", slots)


class FileReader:
    """The read stage (and the ground truth) of one explanation, a planned file at a time."""

    def __init__(self, table: SnapshotReader, predicate: Predicate | None, truth: bool, index_enabled: bool,
                 rules: PaimonRules, dvs: dict[str, BitMap], dv_errors: dict[str, str],
                 dv_counts: dict[str, int] | None) -> None:
        self.table, self.predicate, self.truth, self.index_enabled, self.rules = (
            table, predicate, truth, index_enabled, rules)
        self.dvs, self.dv_errors, self.dv_counts = dvs, dv_errors, dv_counts
        # the deleted-row counts the index manifest records (None: not recorded), for unreadable vectors
        self.recorded = recorded_deletion_counts(table) if dv_errors else {}
        self.groups = groups_by_file(table)
        self.external_only = not rules.read_embedded_index  # 0.9: the reader consults external index files only
        self.no_pk_index = table.is_primary_key_table and not rules.pk_file_index  # 0.9: none on primary-key tables

    def deleted_rows(self, name: str, dv: BitMap | None) -> int | None:
        """Rows the deletion vector of data file ``name`` deletes: counted in ``dv``, else those the index
        manifest records (an unreadable vector: None when it records none, never 0)."""
        if dv is not None:
            return len(dv)
        if name in self.dv_errors:
            count = self.recorded.get(name)
            return None if count is None else int(count)
        return self.dv_counts.get(name, 0) if self.dv_counts else 0

    def verdict(self, lf: LiveFile, d: PlanDecision, notes: list[str]) -> FileVerdict:
        """The verdict of ``lf`` planned as ``d`` (what it has to say appended to ``notes``)."""
        truth, dvs = self.truth, self.dvs
        f = lf.entry.file
        dv = dvs.get(f.file_name)
        dv_error = self.dv_errors.get(f.file_name) if self.dv_errors else None
        if not d.planned and not truth and dv_error is None:
            state = getattr(d.index_state, "computed", None)
            if state is None or state[1] is None:  # pruned at planning, nothing to say: the short way
                return pruned_verdict(lf, d, self.deleted_rows(f.file_name, dv))
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
            if (external_only and d.index_location != IndexLocation.EXTERNAL) or no_pk_index:
                result = None
            if (isinstance(result, BitmapIndexResult) and result.bitmap
                    and result.bitmap.max() >= lf.entry.file.row_count):
                index_rows_error = (f"index selects row {result.bitmap.max()} of a file with "
                                    f"{lf.entry.file.row_count} rows (corrupt index): its row selection is ignored")
                result = None
            read, rows, stage, reason, selected, removed = read_file(d, lf, result, dv, rules.read_embedded_index)
        flags: list[str] = []
        errors: list[str] = [index_rows_error] if index_rows_error else []
        state = getattr(d.index_state, "computed", None)  # errors of answers already computed only
        if state is not None and state[1] is not None:
            errors.append(f"index could not be read ({state[1]}): counted as REMAIN, it cannot rule the file out")
        if dv_error is not None:
            errors.append(f"deletion vector could not be read ({dv_error})"
                          + (": its deleted rows are not subtracted" if read else ""))
        if errors:
            notes.extend(Note(e, f.file_name) for e in errors)
        match = live = None
        if truth and group is not None and group.merged and lf is not group.anchor:
            anchor = group.anchor.entry.file.file_name
            flags.append(f"row ids [{group.first_row_id}, {group.last_row_id}] are merged from "
                         f"{len(group.files)} files: their matching rows are counted on {anchor}")
        elif truth and (dv_error is not None or (group is not None and group.merged and any(
                g.entry.file.file_name in dv_errors for g in group.files))):
            notes.append(Note("ground truth unavailable: the deletion vector of its rows could not be read",
                              f.file_name))
            errors.append("the ground truth needs the deletion vector of its rows, which could not be read")
        elif truth:
            try:
                if group is not None and group.merged:
                    match = group_matching_positions(table, group, predicate)
                    dv = group_dv(group, dvs)
                else:
                    match = matching_positions(table, lf, predicate)
                live = match - dv if dv is not None else None
            except PaimonLensError as e:
                notes.append(Note(f"ground truth unavailable: {e}", f.file_name, Problem.of(e)))
                errors.append(f"data file could not be read for the ground truth ({e})")
            matched = len(live if live is not None else match) if match is not None else 0
            if matched and not read:
                flags.append(f"PAIMON SKIPPED A FILE WITH {matched} MATCHING ROWS at stage {stage!r}")
            elif read and match is not None and not matched:
                flags.append("read without any matching row")
                if lf.index_location != IndexLocation.NONE and d.index_result == IndexAnswer.REMAIN:
                    flags.append("index could not rule the file out (false positive or no index on the columns)")
        verdict = _new(FileVerdict)  # as in pruned_verdict
        verdict.__dict__.update(
            file_name=f.file_name, path=lf.path, partition=lf.partition, bucket=lf.entry.bucket, level=f.level,
            row_count=f.row_count, file_size=f.file_size, index_location=d.index_location,
            partition_keep=d.partition_keep, bucket_keep=d.bucket_keep,
            stats_used=d.stats_used, decision=d, planned=d.planned, read=read,
            deleted_rows=self.deleted_rows(f.file_name, dv), rows_after_dv=rows,
            stage=stage, reason=reason, matching_positions=match, matching_live_positions=live,
            flags=tuple(flags), error="; ".join(errors) or None, branch=None,
            index_selected_rows=selected, dv_removed_rows=removed,
        )
        return verdict


def verdicts(table: SnapshotReader, predicate: Predicate | None, decisions: dict[str, PlanDecision],
              truth: bool, index_enabled: bool, rules: PaimonRules, files: list[LiveFile],
              undecided: Undecided | None = None
              ) -> tuple[list[FileVerdict | None], list[str], UndecidedVerdicts | None]:
    """The read stage (and the ground truth) after planning, file by file: (verdicts, notes, the
    verdicts of the files planning left undecided (``undecided``), to build later: None at their
    positions)."""
    wanted = None if truth else {name for name, d in decisions.items() if d.planned}
    dvs, dv_errors, dv_counts = needed_deletion_vectors(table, wanted, files)
    stage = FileReader(table, predicate, truth, index_enabled, rules, dvs, dv_errors, dv_counts)
    if dv_errors and undecided is not None:  # a file with an unreadable vector has something to say: decided now
        for k in [k for k in undecided.positions if files[k].entry.file.file_name in dv_errors]:
            undecided.positions.remove(k)
            decisions[files[k].entry.file.file_name] = undecided.decision(k)
    verdicts: list[FileVerdict | None] = [None] * len(files)
    notes: list[str] = []
    deferred = frozenset(()) if undecided is None else frozenset(
        undecided.positions + undecided.read_whole)
    todo = [k for k in range(len(files)) if k not in deferred] if deferred else range(len(files))
    verdict = stage.verdict
    for k in todo:  # the others are decided later (see Undecided)
        lf = files[k]
        verdicts[k] = verdict(lf, decisions[lf.entry.file.file_name], notes)
    later = None if undecided is None else UndecidedVerdicts(undecided, files, stage)
    return verdicts, notes, later
