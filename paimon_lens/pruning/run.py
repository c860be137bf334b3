"""The explain service: predicates explained on an engine, the fallback branch followed.

Paimon's planning is independent between (partition, bucket) groups (the whole-bucket rule,
deletion vectors and every cache are per group), so on an engine running several tasks at once
the groups are packed into tasks; each task plans its groups, evaluates the file indexes planning
needs, applies their deletion vectors and, with ``truth``, reads their data files, for every
predicate at once. An engine running one task at a time gets one task: the whole snapshot, on the
reader itself.

A verdict leaving a task's process carries the index answers its planning computed; the others
(files planning removed by partition, bucket or stats without asking their index) travel as a
marker and are answered here on first use (see :meth:`PlanDecision.__reduce__
<paimon_lens.pruning.scan.PlanDecision.__reduce__>`). Only this process merges: verdicts back in
live-file order, notes in file order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ..engines.files import task_count
from ..engines.local import LOCAL
from ..metadata.manifest import IndexFileMeta, ManifestEntry
from ..predicate.model import Predicate
from .explain import ExplainReport, FileVerdict, after_planning, explain, note_position, parse_query
from .fallback import with_fallback
from .plan_stages import Query
from .scan import IndexAnswers, Pending
from .versions import PaimonRules, rules_of_newest

if TYPE_CHECKING:
    from ..engines.base import Engine
    from ..metadata.snapshot_reader import LiveFile, ReaderHandle, SnapshotReader
    from .topn import TopN

Task = tuple[list[ManifestEntry], list[IndexFileMeta]] | None
"""A task's live entries and index-manifest entries; None: the whole snapshot."""


def explain_many(table: SnapshotReader, wheres: Sequence[str | Predicate | None], *, engine: Engine | None = None,
                 rules: PaimonRules | None = None, truth: bool = False, index_enabled: bool = True,
                 search_mode: str | None = None, topn: TopN | None = None) -> list[ExplainReport]:
    """:func:`~paimon_lens.pruning.explain.explain` of each predicate on ``engine`` (default: here),
    each report with the files of the table's fallback branch (``scan.fallback-branch``) added."""
    engine = engine or LOCAL
    rules = rules or rules_of_newest()
    reports = explain_branch(table, wheres, engine=engine, rules=rules, truth=truth, index_enabled=index_enabled,
                             search_mode=search_mode, topn=topn)

    def on_branch(branch: SnapshotReader, where: str | None) -> ExplainReport:
        return explain_branch(branch, [where], engine=engine, rules=rules, truth=truth,
                              index_enabled=index_enabled, search_mode=search_mode, topn=topn)[0]

    return [with_fallback(table, r, on_branch, rules=rules) for r in reports]


def explain_branch(table: SnapshotReader, wheres: Sequence[str | Predicate | None], *, engine: Engine,
                   rules: PaimonRules, truth: bool = False, index_enabled: bool = True,
                   search_mode: str | None = None, topn: TopN | None = None) -> list[ExplainReport]:
    """:func:`explain_many` of this branch's files alone (``scan.fallback-branch`` not followed)."""
    queries = [parse_query(table, w, rules) for w in wheres]
    texts = [w if isinstance(w, str) else "" if w is None else str(w) for w in wheres]
    reports = _explain_branch(table, [q[1] for q in queries], texts, engine=engine, rules=rules, truth=truth,
                              index_enabled=index_enabled)
    for report, (full, predicate, row_ranges) in zip(reports, queries):  # the whole snapshot's verdicts
        after_planning(report, table, Query(full, predicate, row_ranges, truth, search_mode, topn), rules)
    return reports


def _explain_branch(table: SnapshotReader, predicates: Sequence[Predicate | None], texts: Sequence[str], *,
                    engine: Engine, rules: PaimonRules, truth: bool = False,
                    index_enabled: bool = True) -> list[ExplainReport]:
    """The scan's own plan of each predicate (what Paimon plans with) on the engine's tasks."""
    parts = task_count(engine)
    tasks: list[Task] = [None] if parts == 1 else _pack(_groups(table), parts) if table.live_files() else []
    fn = partial(_explain_task, table.handle(), predicates, truth, index_enabled, rules)
    results = engine.map(fn, tasks)
    if len(results) == 1 and not results[0].pickled:  # one task here: its own reports
        reports = []
        for report, predicate, text in zip(results[0], predicates, texts):
            report.where, report.predicate = text, predicate
            reports.append(report)
        return reports
    if len(results) == 1:  # one task elsewhere: its verdicts, in order already
        reports = [ExplainReport(table, text, predicate, verdicts, truth, notes, rules=rules)
                   for (verdicts, notes), predicate, text in zip(results[0], predicates, texts)]
    else:
        reports = _merge(table, results, predicates, texts, truth, rules)
    by_name: dict[str, LiveFile] | None = None
    for report in reports:
        if any(isinstance(v.decision.index_state, Pending) for v in report.files):
            by_name = by_name or {lf.entry.file.file_name: lf for lf in table.live_files()}
            _answer_pending(table, report, index_enabled, rules, by_name)
    return reports


class _TaskAnswers(list):
    """A task's report per predicate; once it has left the task's process (``pickled``), each
    report's ``(verdicts, notes)``, every file listed (its verdicts may then carry :class:`Pending`
    index answers)."""

    pickled = False

    def __reduce__(self) -> tuple[Any, ...]:
        return _unpickled_answers, ([(r.files, list(r.notes)) for r in self],)


def _unpickled_answers(items: list[Any]) -> _TaskAnswers:
    answers = _TaskAnswers(items)
    answers.pickled = True
    return answers


def _explain_task(handle: ReaderHandle, predicates: Sequence[Predicate | None], truth: bool, index_enabled: bool,
                  rules: PaimonRules, task: Task) -> _TaskAnswers:
    """A task: every predicate explained on the task's groups (the whole snapshot for None)."""
    part = handle.restricted(*task) if task is not None else handle.reader()
    out = _TaskAnswers()
    for predicate in predicates:
        out.append(explain(part, predicate, truth=truth, index_enabled=index_enabled, rules=rules,
                           global_index=False))
    return out


def _merge(table: SnapshotReader, results: list[_TaskAnswers],
           predicates: Sequence[Predicate | None], texts: Sequence[str], truth: bool, rules: PaimonRules
           ) -> list[ExplainReport]:
    """The tasks' verdicts and notes of each predicate, in live-file order."""
    order = {lf.entry.file.file_name: i for i, lf in enumerate(table.live_files())}
    reports = []
    for k, (predicate, text) in enumerate(zip(predicates, texts)):
        verdicts: list[FileVerdict] = []
        notes: list[tuple[int, str]] = []
        for per_predicate in results:
            answer = per_predicate[k]
            got, got_notes = (answer.files, answer.notes) if isinstance(answer, ExplainReport) else answer
            verdicts.extend(got)
            notes.extend((note_position(n, order), n) for n in got_notes)
        verdicts.sort(key=lambda v: order[v.file_name])
        notes.sort(key=lambda p: p[0])
        reports.append(ExplainReport(table, text, predicate, verdicts, truth, [n for _, n in notes], rules=rules))
    return reports


def _answer_pending(table: SnapshotReader, report: ExplainReport, index_enabled: bool, rules: PaimonRules,
                    files: dict[str, LiveFile]) -> None:
    """Give the verdicts whose index answer is pending an evaluator in this process (lazy, as local)."""
    answers: IndexAnswers | None = None
    for v in report.files:
        d = v.decision
        if isinstance(d.index_state, Pending):
            if answers is None:
                answers = IndexAnswers(table, report.predicate, index_enabled=index_enabled, rules=rules)
            d.__dict__["index_state"] = answers.state(files[v.file_name])


def _groups(table: SnapshotReader) -> list[tuple[list[ManifestEntry], list[IndexFileMeta]]]:
    """Live entries and index entries per (partition, bucket), in live-file order."""
    groups: dict[tuple[bytes, int], tuple[list[ManifestEntry], list[IndexFileMeta]]] = {}
    for lf in table.live_files():
        key = (lf.entry.partition, lf.entry.bucket)
        groups.setdefault(key, ([], []))[0].append(lf.entry)
    for e in table.index_entries():
        g = groups.get((e.partition, e.bucket))
        if g is not None:
            g[1].append(e)
    return list(groups.values())


def _pack(groups: list[tuple[list[ManifestEntry], list[IndexFileMeta]]], parts: int) -> list[Task]:
    """Groups packed into at most ``parts`` tasks of similar file counts (largest group first)."""
    parts = max(1, min(parts, len(groups)))
    bins: list[tuple[list[ManifestEntry], list[IndexFileMeta]]] = [([], []) for _ in range(parts)]
    for entries, index_entries in sorted(groups, key=lambda g: -len(g[0])):
        target = min(bins, key=lambda b: len(b[0]))
        target[0].extend(entries)
        target[1].extend(index_entries)
    return [b for b in bins if b[0]]
