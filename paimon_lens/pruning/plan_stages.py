"""The stages applied to the scan's plan of the whole snapshot (see :mod:`.stage`).

In order, each only where the table, the query and the release have it (:meth:`PlanStage.applies`):

1. :class:`RowIdStage` (``row ids``, 1.4+): a filter naming ``_ROW_ID`` pushes row-id ranges into
   the scan (:mod:`.row_ids`); the global index is then not consulted;
2. :class:`GlobalIndexStage` (``global index``, data-evolution tables, 1.4+): the rows the global
   indexes select (:mod:`.global_index`, :mod:`.global_index_stage`);
3. :class:`PrimaryKeyIndexStage` (``primary-key index``, 2.0): the rows the primary-key indexes
   select per planned file (:mod:`.pk_index`);
4. :class:`TopNStage` (``topn``, 1.3+): ``ORDER BY ... LIMIT`` pushed into the file indexes
   (:mod:`.topn`, :mod:`.topn_stage`).

A stage runs on the snapshot's verdicts and returns an :class:`Outcome` (the verdicts it changed,
its notes, what the explanation records of it); the explanation applies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pyroaring import BitMap

from .read_stages import deletion_vector_bitmaps
from .stage import Stage, StageName

if TYPE_CHECKING:
    from ..metadata.snapshot_reader import SnapshotReader
    from ..predicate.model import Predicate
    from .topn import TopN
    from .verdict import FileVerdict
    from .versions import PaimonRules


@dataclass(frozen=True)
class Query:
    """What a query asks of the scan beyond its plan.

    Attributes:
        full: the whole filter (the ground truth's, and the explanation's).
        predicate: the filter Paimon plans with (``full`` without its ``_ROW_ID`` part).
        row_ranges: the ``_ROW_ID`` ranges the filter pushes into the scan (None: none).
        truth: the ground truth is computed.
        search_mode: ``scalar-index.search-mode`` of the query (None: the table's, else the default).
        topn: the query's ``ORDER BY ... LIMIT`` (None: none).
    """

    full: Predicate | None
    predicate: Predicate | None
    row_ranges: list[tuple[int, int]] | None = None
    truth: bool = False
    search_mode: str | None = None
    topn: TopN | None = None


@dataclass
class Outcome:
    """What a stage did: the verdicts after it (None: unchanged), its notes, and the explanation's
    fields it sets (e.g. ``{"global_index": selection}``)."""

    verdicts: list[FileVerdict] | None = None
    notes: list[str] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)


class PlanStage(Stage):
    """A stage on the whole snapshot's verdicts, after the scan's own plan."""

    phase = "plan"

    @classmethod
    def applies(cls, table: SnapshotReader, rules: PaimonRules, query: Query) -> bool:
        """Whether this stage runs for ``query`` on ``table`` under ``rules`` (cheap: it may still
        find nothing to consult)."""
        raise NotImplementedError

    @classmethod
    def run(cls, table: SnapshotReader, rules: PaimonRules, query: Query,
            verdicts: list[FileVerdict]) -> Outcome | None:
        """The stage on ``verdicts`` (every live file's, in order); None when it consults nothing."""
        raise NotImplementedError


class RowIdStage(PlanStage):
    """A filter naming ``_ROW_ID``: the truth of the whole filter, then the files and rows its ranges keep."""

    name = StageName.ROW_IDS
    report_field = "row_id_ranges"

    @classmethod
    def applies(cls, table: SnapshotReader, rules: PaimonRules, query: Query) -> bool:
        return query.full is not query.predicate

    @classmethod
    def run(cls, table: SnapshotReader, rules: PaimonRules, query: Query,
            verdicts: list[FileVerdict]) -> Outcome | None:
        from . import row_ids

        files = {lf.file.file_name: lf for lf in table.live_files()}
        dvs = deletion_vector_bitmaps(table)
        out = Outcome(verdicts)
        if query.truth and query.full is not None:
            verdicts, out.notes = row_ids.full_truth(table, verdicts, query.full, files, dvs)
            out.verdicts = verdicts
        ranges = query.row_ranges
        if ranges is not None:
            out.verdicts, _ = row_ids.apply(verdicts, files, ranges, dvs, query.truth)
            out.fields[cls.report_field] = ranges
            out.notes.append("_ROW_ID: the scan reads row ids " + (
                ", ".join(f"{a}-{b}" for a, b in ranges[:6]) or "(none)") + " (the global index is not consulted)")
        else:
            out.notes.append("_ROW_ID: no row-id range is pushed for this filter; its _ROW_ID conditions are left "
                             "to the reader")
        return out


class GlobalIndexStage(PlanStage):
    """Data-evolution tables with global indexes: the files and rows the index selection leaves
    (see :mod:`.global_index_stage`)."""

    name = StageName.GLOBAL_INDEX
    report_field = "global_index"

    @classmethod
    def applies(cls, table: SnapshotReader, rules: PaimonRules, query: Query) -> bool:
        # (global_index.applies says more, after importing the decoders)
        return query.row_ranges is None and table.schema.core_options.data_evolution_enabled

    @classmethod
    def run(cls, table: SnapshotReader, rules: PaimonRules, query: Query,
            verdicts: list[FileVerdict]) -> Outcome | None:
        from . import global_index, global_index_stage
        from .scan import partition_filter

        if not global_index.applies(table, rules):
            return None
        predicate = query.predicate
        sel = global_index.select(table, predicate, rules,
                                  partition_filter(table, predicate, rules.partition_conjuncts_whole),
                                  query.search_mode)
        if sel is None:
            return None
        notes = [f"global index: {e}" for e in sel.errors]
        if sel.rows is None:
            return Outcome(None, [*notes, "global index: the predicate is not answered by the indexes of its "
                                         "columns: the scan reads as without them"], {cls.report_field: sel})
        files = {lf.file.file_name: lf for lf in table.live_files()}
        out, missed = global_index_stage.apply(verdicts, files, sel, deletion_vector_bitmaps(table), query.truth)
        return Outcome(out, [*notes, sel.describe()],
                       {cls.report_field: sel, "global_index_missed": missed if query.truth else None})


class PrimaryKeyIndexStage(PlanStage):
    """Primary-key tables with primary-key indexes (Paimon 2.0): per planned file, the rows the index
    selects (see :mod:`.pk_index`); files the indexes do not cover are read whole."""

    name = StageName.PRIMARY_KEY_INDEX
    report_field = "pk_index"
    _REASON: ClassVar[str] = "the primary-key index selects"

    @classmethod
    def applies(cls, table: SnapshotReader, rules: PaimonRules, query: Query) -> bool:
        # (pk_index.applies says more, after importing the decoders)
        opts = table.schema.options
        return bool(table.schema.primary_keys) and any(opts.get(f"pk-{k}.index.columns") for k in ("btree", "bitmap"))

    @classmethod
    def run(cls, table: SnapshotReader, rules: PaimonRules, query: Query,
            verdicts: list[FileVerdict]) -> Outcome | None:
        from . import pk_index
        from .global_index_stage import apply_selection

        if not pk_index.applies(table, rules):
            return None
        by_name = {lf.file.file_name: lf for lf in table.live_files()}
        planned = [by_name[v.file_name] for v in verdicts if v.planned and v.file_name in by_name]
        got = pk_index.select(table, query.predicate, rules, planned)
        if got is None:
            return None
        selections, notes = got

        def choose(v: FileVerdict) -> tuple[BitMap, int, str] | None:
            s = selections.get(v.file_name)
            if s is None or s.positions is None:
                return None
            return s.positions, 0, f"primary-key index ({', '.join(s.index_files)}) selects no row of this file"

        out, _ = apply_selection(verdicts, choose, cls.name, cls._REASON, deletion_vector_bitmaps(table), query.truth)
        whole = {n: s.reason for n, s in selections.items() if s.positions is None}
        return Outcome(out, [*notes, *(f"{n}: {r}" for n, r in whole.items())], {cls.report_field: {
            "files_indexed": sum(1 for s in selections.values() if s.positions is not None),
            "files_read_whole": len(whole),
            "index_files": sorted({f for s in selections.values() for f in s.index_files}),
        }})


class TopNStage(PlanStage):
    """``ORDER BY ... LIMIT``: the splits and rows TopN leaves (see :mod:`.topn_stage`)."""

    name = StageName.TOPN
    report_field = "topn"

    @classmethod
    def applies(cls, table: SnapshotReader, rules: PaimonRules, query: Query) -> bool:
        return query.topn is not None

    @classmethod
    def run(cls, table: SnapshotReader, rules: PaimonRules, query: Query,
            verdicts: list[FileVerdict]) -> Outcome | None:
        from . import topn_stage

        assert query.topn is not None
        out, notes, facts = topn_stage.apply(verdicts, table, query.predicate, rules, query.topn, query.truth,
                                             deletion_vector_bitmaps(table))
        return Outcome(out, notes, {cls.report_field: facts})


#: the stages after the scan's plan, in the order they run
PLAN_STAGES: Sequence[type[PlanStage]] = (RowIdStage, GlobalIndexStage, PrimaryKeyIndexStage, TopNStage)
