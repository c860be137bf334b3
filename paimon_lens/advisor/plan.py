"""A tuning plan: one snapshot's recommendations and findings resolved into one configuration.

Each finding's fix and each recommendation is computed alone from today's options; run one after
another they would undo each other. :func:`plan` merges them:

1. **Target configuration.** The file indexes :func:`~.advise.recommend` measured decide their
   columns (added, changed, kept or dropped, with its ``in-manifest-threshold``); a finding's fix
   (:class:`~.finding.FixAction`) applies where no recommendation decided, highest score first,
   and a fix that would set an option to a second value is declined and named with the reason.
   Every option ends with one value: one ``ALTER TABLE`` sets and one unsets them.
2. **Steps, in order**: the options; ``rewrite_file_index`` when file-index options change
   (existing files keep their index bytes until rewritten, drops included); global indexes;
   one compaction of the table naming every partition a finding wants compacted.
3. **Predicted effect**: every workload query before (the table's indexes today) and after (the
   planned indexes built for every data file by the byte-identical writers and evaluated as
   Paimon's ``FileIndexPredicate`` does: :func:`~.whatif.measure` with the current indexes and
   the planned configuration as two candidates). A compaction's effect cannot be computed
   without running it: it is an estimate, labelled as one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..errors import PaimonLensError
from ..rendering import render, render_html
from ..writer.file_index import PREFIX, IndexSpec
from .advise import alter_table, index_option_changes, table_identifier
from .candidates import CURRENT, configuration
from .finding import Finding, FixAction, Procedure

if TYPE_CHECKING:
    import pandas as pd

    from ..engines.base import Engine
    from ..metadata.snapshot_reader import SnapshotReader
    from ..pruning.versions import PaimonRules
    from .advise import Advice, Recommendation
    from .findings import Findings
    from .whatif import WhatIfResult

DIALECTS = ("spark", "flink")


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan: what it does, why, the evidence, and its statements per dialect."""

    kind: str
    """``options``, ``rewrite-file-index``, ``global-index`` or ``compact``."""
    title: str
    reason: str
    evidence: tuple[str, ...]
    statements: Mapping[str, tuple[str, ...]]
    """Dialect (``spark``, ``flink``) -> statements, in order, each without its ``;``."""
    sources: tuple[str, ...] = ()
    """The recommendations and findings the step carries out."""
    estimated: bool = False
    """Its effect on the workload is estimated, not computed (compaction)."""

    def to_dict(self) -> dict[str, Any]:
        """The ``plan --format json`` record of the step."""
        return {"kind": self.kind, "title": self.title, "reason": self.reason, "evidence": list(self.evidence),
                "statements": {d: list(s) for d, s in self.statements.items()}, "sources": list(self.sources),
                "estimated": self.estimated}


@dataclass(frozen=True)
class QueryEffect:
    """One workload query before and after the plan's index changes."""

    where: str
    weight: float
    before: Mapping[str, int]
    """``read_files``, ``read_bytes``, ``rows`` with the table's indexes today."""
    after: Mapping[str, int]
    """The same with the planned indexes built for every file."""
    estimated: bool = False
    """A sample of the files was measured: the counts are extrapolated."""

    def to_dict(self) -> dict[str, Any]:
        """``{"where", "weight", "before", "after", "estimated"}``."""
        return {"where": self.where, "weight": self.weight, "before": dict(self.before), "after": dict(self.after),
                "estimated": self.estimated}


@dataclass(frozen=True)
class Declined:
    """A fix the plan did not take, and why."""

    source: str
    fix: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        """``{"source", "fix", "reason"}``."""
        return {"source": self.source, "fix": self.fix, "reason": self.reason}


@dataclass
class Plan:
    """One table's tuning plan (see the module docs): ordered steps, their statements, the
    options before and after, and the predicted effect on the workload."""

    table: str
    branch: str | None
    snapshot_id: int | None
    paimon_version: str
    steps: list[PlanStep]
    options_set: dict[str, str]
    options_unset: list[str]
    options_before: dict[str, str | None]
    queries: list[QueryEffect]
    index_bytes: dict[str, float | None]
    estimates: dict[str, Any]
    declined: list[Declined] = field(default_factory=list)
    workload: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def statements(self, dialect: str = "spark") -> list[str]:
        """Every step's statements in one dialect, in order (``spark`` or ``flink``)."""
        if dialect not in DIALECTS:
            raise PaimonLensError(f"statements for 'spark' or 'flink', not {dialect!r}")
        return [s for step in self.steps for s in step.statements.get(dialect, ())]

    def totals(self, when: str) -> dict[str, float]:
        """The workload's weighted ``read_files``, ``read_bytes`` and ``rows`` per run (``before`` or ``after``)."""
        out = {"read_files": 0.0, "read_bytes": 0.0, "rows": 0.0}
        for q in self.queries:
            got = q.before if when == "before" else q.after
            for k in out:
                out[k] += q.weight * got[k]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``plan --format json`` document."""
        return {
            "table": self.table, "branch": self.branch, "snapshot_id": self.snapshot_id,
            "paimon_version": self.paimon_version,
            "steps": [s.to_dict() for s in self.steps],
            "statements": {d: self.statements(d) for d in DIALECTS},
            "options": {"set": dict(self.options_set), "unset": list(self.options_unset),
                        "before": dict(self.options_before)},
            "predicted": {"queries": [q.to_dict() for q in self.queries],
                          "totals": {"before": self.totals("before"), "after": self.totals("after")},
                          "index_bytes": dict(self.index_bytes), "estimates": dict(self.estimates)},
            "declined": [d.to_dict() for d in self.declined],
            "workload": dict(self.workload), "notes": list(self.notes), "problems": list(self.problems),
        }

    def query_records(self) -> list[dict[str, Any]]:
        """One record per workload query: its weight, and read files, bytes and rows before and after."""
        return [{"where": q.where, "weight": q.weight, **{f"{k}_before": v for k, v in q.before.items()},
                 **{f"{k}_after": v for k, v in q.after.items()}, "estimated": q.estimated} for q in self.queries]

    def frame(self) -> pd.DataFrame:
        """One row per workload query, before and after the plan (:meth:`query_records`)."""
        return cast("pd.DataFrame", render(self, "frame"))

    def _repr_html_(self) -> str | None:
        return render_html(self)

    def __repr__(self) -> str:
        return f"<Plan {self.table!r} snapshot {self.snapshot_id}: {len(self.steps)} steps>"


# ---- resolving ----------------------------------------------------------------------------------

@dataclass
class _Target:
    """The configuration being resolved: file indexes, other options, compactions, procedures."""

    indexes: dict[tuple[str, str], dict[str, str]]
    decided_columns: set[str]
    decided_pairs: set[tuple[str, str]]
    measured: set[str]
    options: dict[str, str | None] = field(default_factory=dict)
    option_sources: dict[str, str] = field(default_factory=dict)
    index_sources: list[str] = field(default_factory=list)
    compact: dict[tuple[tuple[str, Any], ...], list[str]] = field(default_factory=dict)
    procedures: dict[str, tuple[Procedure, list[str]]] = field(default_factory=dict)
    declined: list[Declined] = field(default_factory=list)

    def decided(self, column: str, index_type: str) -> bool:
        return column in self.decided_columns or (column, index_type) in self.decided_pairs


def _source(f: Finding) -> str:
    return f"finding {f.kind}: {f.title}"


def _take(target: _Target, f: Finding) -> None:
    """Merge one finding's fix into the target (or record why a part of it is declined)."""
    src = _source(f)
    a = f.action
    for column, index_type in a.drop_indexes:
        if not target.decided(column, index_type):
            target.indexes.pop((column, index_type), None)
            target.index_sources.append(src)
        elif (column, index_type) not in target.indexes:
            target.index_sources.append(src)  # the recommendations drop it too
        else:
            target.declined.append(Declined(src, f"drop the {index_type} index on {column}",
                                            "recommend measured this column's indexes and keeps this one"))
    for column, index_type in a.add_indexes:
        if (column, index_type) in target.indexes:
            target.index_sources.append(src)  # already in the plan
            continue
        if column in target.measured:
            target.declined.append(Declined(src, f"add a {index_type} index on {column}",
                                            "recommend measured this column's candidates: none is worth its bytes"))
        else:
            target.indexes[(column, index_type)] = {}
            target.index_sources.append(src)
    for (column, index_type), pairs in a.index_options:
        fix = f"{index_type} on {column}: " + ", ".join(f"{k}={v}" for k, v in pairs)
        if target.decided(column, index_type):
            target.declined.append(Declined(src, fix, "recommend sizes this index from its measurements"))
        elif (column, index_type) not in target.indexes:
            target.declined.append(Declined(src, fix, "the plan drops this index"))
        else:
            target.indexes[(column, index_type)].update(pairs)
            target.index_sources.append(src)
    for key, value in a.options:
        if key == "file-index.in-manifest-threshold":
            target.declined.append(Declined(src, f"{key} = {value}",
                                            "recommend measures the threshold for the workload"))
        elif key in target.options and target.options[key] != value:
            target.declined.append(Declined(src, f"{key} = {value}",
                                            f"a costlier finding sets it to {target.options[key]}"))
        else:
            target.options[key] = value
            target.option_sources[key] = src
    for partition in a.compact:
        target.compact.setdefault(partition, []).append(src)
    for proc in a.procedures:
        sql = proc.sql()
        if sql in target.procedures:
            target.procedures[sql][1].append(src)
        else:
            target.procedures[sql] = (proc, [src])


def _target(advice: Advice, findings: Findings | None) -> _Target:
    recs = [r for r in advice.recommendations if r.scope == "file"]
    measured = {r.column for r in recs} | {c.column for c in advice.whatif.candidates if not c.current}
    target = _Target(advice.target_indexes(),
                     {r.column for r in recs if r.action in ("add", "change", "keep")},
                     {(r.column, t) for r in recs if r.action == "drop" and r.index_type
                      for t in r.index_type.split("+")}, measured)
    for f in findings or ():
        if f.action == FixAction():  # a finding no statement carries out (its fix is advice)
            target.declined.append(Declined(_source(f), f.fix, "no statement carries it out"))
        else:
            _take(target, f)
    return target


# ---- steps --------------------------------------------------------------------------------------

def _option_step(table: SnapshotReader, advice: Advice, target: _Target,
                 to_set: dict[str, str], to_unset: list[str]) -> PlanStep | None:
    if not to_set and not to_unset:
        return None
    ident = table_identifier(table.path)
    changed = [r for r in advice.recommendations if r.scope == "file" and r.action != "keep"]
    evidence = [f"{r.column}: {_what(r)}: {r.reason}" for r in changed]
    evidence += [f"in-manifest-threshold {advice.threshold} B: {advice.threshold_reason}"] if any(
        k == "file-index.in-manifest-threshold" for k in to_set) else []
    sources = [f"recommendation {r.column}: {_what(r)}" for r in changed]
    sources += list(dict.fromkeys([*target.index_sources, *target.option_sources.values()]))
    keys = sorted({*to_set, *to_unset})
    return PlanStep("options", f"set {len(to_set)} and unset {len(to_unset)} table options",
                    f"one configuration: the {len(keys)} options the recommendations and findings change, each "
                    "set to one value (the statements name them)", tuple(evidence),
                    {d: tuple(alter_table(ident, to_set, to_unset, d)) for d in DIALECTS}, tuple(sources))


def _what(r: Recommendation) -> str:
    """``change bloom-filter fpp=0.1``; ``drop bsi`` (a drop's label already says so)."""
    return r.label if r.label.split(" ", 1)[0] in (r.action, "keep") else f"{r.action} {r.label}"


def _rewrite_step(table: SnapshotReader, to_set: Mapping[str, str], to_unset: Sequence[str]) -> PlanStep | None:
    changed = [k for k in [*to_set, *to_unset] if k.startswith(PREFIX) and k != "file-index.in-manifest-threshold"]
    if not changed:
        return None
    proc = Procedure("rewrite_file_index", (("table", table_identifier(table.path)),))
    return PlanStep("rewrite-file-index", "rewrite the file indexes of the existing data files",
                    "file-index options apply to files written from now on; the existing files keep their "
                    "index bytes (dropped indexes included) until their indexes are rewritten",
                    tuple(f"changed: {k}" for k in changed), {d: (proc.sql(d),) for d in DIALECTS})


def _global_step(advice: Advice, target: _Target) -> PlanStep | None:
    procs: dict[str, tuple[Procedure, list[str]]] = {}
    ident = table_identifier(advice.table.path)
    for r in advice.recommendations:
        if r.scope == "global" and r.action == "add" and r.index_type:
            proc = Procedure("create_global_index", (("table", ident), ("index_column", r.column),
                                                     ("index_type", r.index_type)))
            procs.setdefault(proc.sql(), (proc, []))[1].append(f"recommendation {r.column}: {r.label}")
    compactions = {sql: v for sql, v in target.procedures.items() if v[0].name == "compact"}
    for sql, (proc, srcs) in target.procedures.items():
        if sql not in compactions:
            procs.setdefault(sql, (proc, []))[1].extend(srcs)
    if not procs:
        return None
    return PlanStep("global-index", f"{len(procs)} global index procedure(s)",
                    "global indexes are built by procedures, not by table options",
                    tuple(sql for sql in procs), {d: tuple(p.sql(d) for p, _ in procs.values()) for d in DIALECTS},
                    tuple(s for _, srcs in procs.values() for s in srcs))


def _compact_step(table: SnapshotReader, target: _Target) -> tuple[PlanStep | None, dict[str, Any]]:
    full = [(p, srcs) for p, srcs in target.procedures.values() if p.name == "compact"]
    if not target.compact and not full:
        return None, {}
    ident = table_identifier(table.path)
    parts = sorted(target.compact, key=str)
    whole = any(not p for p in parts)
    texts = [", ".join(f"{k}={v}" for k, v in p) for p in parts if p]
    sources = [s for srcs in target.compact.values() for s in srcs] + [s for _, srcs in full for s in srcs]
    if full:
        procs = [p for p, _ in full]
        what = "a full compaction of the table"
    else:
        args: tuple[tuple[str, str], ...] = (("table", ident),)
        if texts and not whole:
            args += (("partitions", ";".join(texts)),)
        procs = [Procedure("compact", args)]
        what = "the whole table" if whole or not texts else f"{len(texts)} partition(s): {'; '.join(texts)}"
    estimate = _compaction_estimate(table, parts, whole or bool(full))
    step = PlanStep("compact", f"compact {what}",
                    "small files, deleted rows and level-0 runs cost every query until a compaction rewrites them",
                    tuple(texts) or ("the whole table",), {d: tuple(p.sql(d) for p in procs) for d in DIALECTS},
                    tuple(dict.fromkeys(sources)), estimated=True)
    return step, estimate


def _compaction_estimate(table: SnapshotReader, parts: Sequence[tuple[tuple[str, Any], ...]],
                         whole: bool) -> dict[str, Any]:
    """Files before and (estimated) after compacting ``parts``: per bucket, its live bytes in files
    of ``target-file-size`` (at least one)."""
    from .findings import buckets

    target = table.schema.core_options.target_file_size(bool(table.schema.primary_keys))
    wanted = {", ".join(f"{k}={v}" for k, v in p) for p in parts}
    before = after = 0
    for (partition, _), files in buckets(table).items():
        if not whole and partition not in wanted:
            continue
        before += len(files)
        after += max(1, math.ceil(sum(lf.entry.file.file_size for lf in files) / target))
    return {"compaction": {"files_before": before, "files_after": after, "estimated": True,
                           "method": "per bucket, its bytes in files of target-file-size "
                                     f"({target} B): an estimate, a compaction's result is not computed"}}


# ---- predicted effect ---------------------------------------------------------------------------

def _effects(whatif: WhatIfResult) -> list[QueryEffect]:
    sampled = whatif.sampled_files < whatif.files
    out = []
    for qi, q in enumerate(whatif.queries):
        sides = []
        for ci in (0, 1):
            t = whatif.tallies[ci][qi]
            sides.append({"read_files": round(q.read_files - t.files_skipped * q.scale),
                          "read_bytes": round(q.read_bytes - t.bytes_avoided * q.scale),
                          "rows": round(q.read_rows - t.rows_avoided * q.scale)})
        out.append(QueryEffect(q.where, q.weight, sides[0], sides[1], estimated=sampled))
    return out


def plan(table: SnapshotReader, workload: Any = None, *, max_files: int | None = None, seed: int = 0,
         progress: bool | None = None, engine: Engine | None = None, rules: PaimonRules | None = None) -> Plan:
    """The tuning plan of ``table``'s snapshot for ``workload`` (None: derived from the column
    profiles, and the workload checks of the findings are left out). See the module docs.

    ``max_files``: measure a seeded sample of the files (the predicted counts are then estimates,
    marked so).
    """
    from .advise import recommend
    from .findings import find

    advice = recommend(table, workload, max_files=max_files, seed=seed, progress=progress, engine=engine,
                       rules=rules)
    findings = find(table, None if advice.workload_derived else advice.workload, engine=engine, rules=rules)
    return plan_from(table, advice, findings, max_files=max_files, seed=seed, progress=progress, engine=engine,
                     rules=rules)


def plan_from(table: SnapshotReader, advice: Advice, findings: Findings | None, *, max_files: int | None = None,
              seed: int = 0, progress: bool | None = None, engine: Engine | None = None,
              rules: PaimonRules | None = None) -> Plan:
    """The plan of an :class:`~.advise.Advice` and the :class:`~.findings.Findings` of the same
    snapshot, already computed (the report has both); see :func:`plan`."""
    from .whatif import measure

    target = _target(advice, findings)
    current = dict(table.schema.options)
    index_set, index_unset = index_option_changes(current, target.indexes, advice.threshold)
    other_set = {k: v for k, v in target.options.items() if v is not None and current.get(k) != v}
    other_unset = [k for k, v in target.options.items() if v is None and k in current]
    to_set = {**index_set, **other_set}
    to_unset = sorted({*index_unset, *other_unset})
    both = sorted(set(to_set) & set(to_unset))
    if both:  # cannot happen: file-index keys and the other options are disjoint
        raise PaimonLensError(f"plan sets and unsets the same options: {both}")
    steps = [s for s in (_option_step(table, advice, target, to_set, to_unset),
                         _rewrite_step(table, to_set, to_unset), _global_step(advice, target)) if s is not None]
    compact, estimates = _compact_step(table, target)
    if compact is not None:
        steps.append(compact)

    names = {f.name for f in table.schema.fields}
    specs = [IndexSpec(c, t, dict(o)) for (c, t), o in target.indexes.items() if c in names]
    notes = [f"the {t} index on {c} is not rebuilt in the prediction (a map-key index): it prunes nothing there"
             for (c, t) in target.indexes if c not in names]
    whatif = measure(table, advice.workload, [CURRENT, configuration(specs, "plan")], max_files=max_files,
                     seed=seed, progress=progress, engine=engine, rules=rules)
    scale = whatif.file_scale
    index_bytes: dict[str, float | None] = {"before": sum(whatif.measures[0].sizes) * scale,
                                            "after": sum(whatif.measures[1].sizes) * scale}
    notes += list(whatif.notes)
    problems = list(advice.problems) + list(findings.problems if findings is not None else ())
    problems += [f"plan {m.candidate.label}: {e}" for m in whatif.measures for e in m.errors]
    return Plan(table.path, table.branch, table.snapshot_id, advice.rules.version, steps, to_set, to_unset,
                {k: current.get(k) for k in [*to_set, *to_unset]}, _effects(whatif), index_bytes, estimates,
                target.declined,
                {"derived": advice.workload_derived, "source": advice.workload.source,
                 "queries": [{"where": q.where, "weight": q.weight} for q in advice.workload]},
                notes, problems)
