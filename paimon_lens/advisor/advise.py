"""Advice: which file indexes a table should have, from measured what-if results.

:func:`recommend` runs the whole pipeline on a table: column profiles (:mod:`.profile`), the
workload (given, or derived from the profiles and said so: :mod:`.derive`), a candidate grid per
column the workload names (:mod:`.candidates`), the what-if measurement of every candidate on
the table's own files (:mod:`.whatif`), then picks per column with these rules:

1. **Files first.** A candidate's gain is the data bytes it avoids per query on the column's
   queries (whole files skipped, measured). When the best candidate avoids at least
   :data:`MIN_FILE_GAIN` of the bytes of the files partition pruning leaves to those queries
   (what they would read if min/max stats pruned nothing), every candidate within
   :data:`NEAR_BEST` of the best gain is eligible.
2. **Else rows.** Otherwise, when the best candidate removes at least :data:`MIN_ROW_GAIN` of the
   rows of those files (bitmap selections Paimon hands to the reader), candidates within
   :data:`NEAR_BEST` of the best row gain are eligible. A column whose files min/max stats
   already separate therefore gets no index: an index could only trim the one file left.

Candidates: bloom-filter, bitmap (v2) and range-bitmap grids (:func:`.candidates.candidate_grid`);
range-bitmap (built for ranges) only for columns the workload queries by range, the legacy ``bsi``
never (range-bitmap answers the same predicates); a table's existing indexes of any type are
measured with their own options. ``index_types`` overrides the choice of types.
3. **Cheapest eligible.** Among eligible candidates the index type that stores the fewest bytes
   wins (a bloom filter over a bitmap for unique ids, a bitmap over a range-bitmap for a few
   values); among that type's options the lowest cost wins:
   ``index bytes stored + query_runs x index bytes the column's queries read`` (each workload
   query run ``query_runs`` times over the index's life, default 1,000). This is what moves
   bitmap ``index-block-size`` and range-bitmap ``chunk-size`` with the workload and the
   dictionary size, and what sizes bloom filters (``items`` from the per-file distinct counts,
   ``fpp`` as large as the gain allows). Costs within 1 % prefer Paimon's default options.
4. **Else no index**, with the reason (min/max stats already prune, or nothing helps).

Existing indexes are measured too (with their own options); one that no query of the workload
gains from is advised to be dropped. A column a global or primary-key index serves has that index's
pruning in its baseline (explain applies it), so a file index is advised there only for a gain on
top. On data-evolution tables a btree global index is measured too (:mod:`.global_whatif`) and
advised instead of a column's file index when it avoids at least 1.25 times the bytes (or when
``index_types`` asks for ``btree`` only); it is applied with ``CALL sys.create_global_index``.
``file-index.in-manifest-threshold`` is advised from the recommended containers' sizes and the
current manifest size. :meth:`Advice.statements` gives the
Spark and Flink SQL to apply it, and ``CALL sys.rewrite_file_index`` to rebuild old files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from ..errors import PaimonLensError
from ..inventory.global_indexes import global_index_columns
from ..metadata.consistency import consistent
from ..pruning.versions import PaimonRules, rules_of_newest
from ..rendering import render, render_html
from ..workload.model import Workload, as_workload
from ..writer.file_index import DEFAULT_IN_MANIFEST_THRESHOLD, PREFIX, in_manifest_threshold, parse_index_options
from .candidates import (
    BSI,
    DEFAULT_BLOOM_FPP,
    DEFAULT_BLOOM_ITEMS,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_INDEX_BLOCK_SIZE,
    RANGE_BITMAP,
    Candidate,
    candidate_grid,
    predicate_kinds,
    threshold_choices,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..engines.base import Engine
    from ..metadata.snapshot_reader import SnapshotReader
    from .profile import TableProfile
    from .whatif import WhatIfResult

MIN_FILE_GAIN = 0.05
"""Smallest share of the baseline bytes a file-skipping index must avoid to be worth it."""
MIN_ROW_GAIN = 0.2
"""Smallest share of the baseline rows a row-selecting index must remove to be worth it."""
NEAR_BEST = 0.9
"""Candidates within this fraction of the best gain compete on cost."""
QUERY_RUNS = 1000
"""Default number of times each workload query runs over the life of an index."""
MAX_EMBED_THRESHOLD = 64 * 1024
"""Largest ``in-manifest-threshold`` advised."""


@dataclass(frozen=True)
class Recommendation:
    """The advice for one column (or one existing index to drop)."""

    column: str
    action: str  # "add", "keep", "change", "drop", "none"
    index_type: str | None
    options: dict[str, str]
    label: str
    index_bytes: float
    files_skipped_per_query: float
    bytes_avoided_per_query: float
    rows_avoided_per_query: float
    index_bytes_read_per_query: float
    baseline_bytes_per_query: float
    baseline_rows_per_query: float
    column_queries: int
    confidence: str
    reason: str
    scope: str = "file"
    """``file`` (a file index, set by table options) or ``global`` (a global index, built by
    ``CALL sys.create_global_index``)."""

    def to_dict(self) -> dict[str, Any]:
        """The ``recommend --format json`` record (fields are added, never renamed)."""
        return {"scope": self.scope, **self._fields()}

    def _fields(self) -> dict[str, Any]:
        return {
            "column": self.column, "index_type": self.index_type, "options": dict(self.options),
            "action": self.action, "label": self.label,
            "index_bytes": round(self.index_bytes), "files_skipped_per_query": self.files_skipped_per_query,
            "bytes_avoided_per_query": self.bytes_avoided_per_query,
            "rows_avoided_per_query": self.rows_avoided_per_query,
            "index_bytes_read_per_query": self.index_bytes_read_per_query,
            "baseline_bytes_per_query": self.baseline_bytes_per_query,
            "column_queries": self.column_queries, "confidence": self.confidence, "reason": self.reason,
        }


@dataclass
class Advice:
    """Recommendations for a table, the measurements behind them and the SQL to apply them."""

    table: SnapshotReader
    workload: Workload
    workload_derived: bool
    recommendations: list[Recommendation]
    whatif: WhatIfResult
    profile: TableProfile
    tradeoffs: list[dict[str, Any]]
    threshold: int
    threshold_reason: str
    query_runs: int
    notes: list[str] = field(default_factory=list)
    skipped_queries: list[dict[str, Any]] = field(default_factory=list)
    rules: PaimonRules = field(default_factory=rules_of_newest)
    """The Paimon release whose planning the measurements followed."""
    """Workload queries left out because they do not parse (``where``, ``line``, ``label``, ``error``)."""

    @property
    def problems(self) -> list[str]:
        """What the advice could not use: workload queries that do not parse, data files that could
        not be profiled or indexed (each named). Empty when every input was used."""
        out = [f"workload {q['label']} skipped: {q['error']}" for q in self.skipped_queries]
        out += [f"data file {e.file_name} could not be profiled: {e.message}" for e in self.profile.errors]
        for m in self.whatif.measures:
            out += [f"{m.candidate.column} {m.candidate.label}: {err}" for err in m.errors]
        return out

    # -- frames -------------------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """One row per recommendation."""
        return cast("pd.DataFrame", render(self, "frame"))

    def tradeoff_frame(self) -> pd.DataFrame:
        """Every candidate of every column with its measured gain, cost, and whether it was eligible/chosen."""
        return cast("pd.DataFrame", render(self, "tradeoff_frame"))

    def pareto_frame(self) -> pd.DataFrame:
        """Candidates on the Pareto front of index bytes (less is better) vs bytes avoided (more is better)."""
        return cast("pd.DataFrame", render(self, "pareto_frame"))

    # -- SQL -----------------------------------------------------------------------------------
    def table_identifier(self) -> str:
        """``db.table`` from the warehouse layout (``<db>.db/<table>``), else the table directory name."""
        return table_identifier(self.table.path)

    def target_indexes(self) -> dict[tuple[str, str], dict[str, str]]:
        """``(column, index type) -> explicit options`` of every file index the advice leaves
        configured: today's indexes with each recommendation applied (dropped, changed, added)."""
        current = dict(self.table.schema.options)
        specs = {(s.column, s.index_type): explicit_options(s.index_type, s.options)
                 for s in parse_index_options(current)}
        for r in self.recommendations:
            if r.scope != "file":
                continue
            if r.action == "drop" and r.index_type:
                specs.pop((r.column, r.index_type), None)
            elif r.action in ("add", "change", "keep") and r.index_type:
                for key in [k for k in specs if k[0] == r.column]:
                    specs.pop(key)
                for spec_type, opts in _split_types(r.index_type, r.options):
                    specs[(r.column, spec_type)] = opts
        return specs

    def option_changes(self) -> tuple[dict[str, str], list[str]]:
        """(options to set, option keys to unset) that turn the current options into the advised ones."""
        return index_option_changes(self.table.schema.options, self.target_indexes(), self.threshold)

    def statements(self, engine: str = "spark") -> list[str]:
        """SQL that applies the advice: ``spark`` or ``flink``; empty when nothing changes."""
        ident = self.table_identifier()
        to_set, to_unset = self.option_changes()
        out: list[str] = []
        if to_set or to_unset:
            out = alter_table(ident, to_set, to_unset, engine)
            out.append(f"CALL sys.rewrite_file_index(table => '{ident}')" if engine == "spark"
                       else f"CALL sys.rewrite_file_index('{ident}')")
        for r in self.recommendations:
            if r.scope == "global" and r.action == "add" and r.index_type:
                q = "" if engine == "spark" else "`"
                out.append(f"CALL sys.create_global_index({q}table{q} => '{ident}', {q}index_column{q} => "
                           f"'{_sql_text(r.column)}', {q}index_type{q} => '{r.index_type}')")
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"recommendations": [...], "statements": [...], ...}`` (the CLI contract)."""
        spark, flink = self.statements("spark"), self.statements("flink")
        return {
            "table": self.table.path, "branch": self.table.branch, "paimon_version": self.rules.version,
            "snapshot_id": self.whatif.snapshot_id,
            "recommendations": [r.to_dict() for r in self.recommendations],
            "statements": spark + flink,
            "statements_by_engine": {"spark": spark, "flink": flink},
            "in_manifest_threshold": {"bytes": self.threshold, "reason": self.threshold_reason},
            "workload": {"derived": self.workload_derived, "source": self.workload.source,
                         "queries": [{"where": q.where, "weight": q.weight} for q in self.workload]},
            "skipped_queries": [dict(q) for q in self.skipped_queries], "problems": self.problems,
            "query_runs": self.query_runs,
            "files": self.whatif.files, "sampled_files": self.whatif.sampled_files,
            "notes": list(self.notes) + list(self.whatif.notes),
        }

    def _repr_html_(self) -> str | None:
        return render_html(self)

    def __repr__(self) -> str:
        def what(r: Recommendation) -> str:  # a drop's label already says "drop <type>"
            return r.label if r.label.split(" ", 1)[0] in (r.action, "keep") else f"{r.action} {r.label}"

        return f"<Advice {self.table.path!r}: " + "; ".join(
            f"{r.column}: {what(r)}" for r in self.recommendations) + ">"



def table_identifier(path: str) -> str:
    """``db.table`` of a table directory in a warehouse (``<db>.db/<table>``), else its directory name."""
    path = path.rstrip("/")
    name = path.rsplit("/", 1)[-1]
    parent = path.rsplit("/", 2)[-2] if path.count("/") >= 1 else ""
    return f"{parent[:-3]}.{name}" if parent.endswith(".db") else name


def index_option_changes(options: Mapping[str, str], indexes: Mapping[tuple[str, str], Mapping[str, str]],
                         threshold: int) -> tuple[dict[str, str], list[str]]:
    """(options to set, option keys to unset) that configure exactly ``indexes`` (``(column, index
    type) -> explicit options``) and the ``in-manifest-threshold`` on a table with ``options``."""
    wanted: dict[str, str] = {}
    columns: dict[str, list[str]] = {}
    for (col, t), opts in indexes.items():
        columns.setdefault(t, []).append(col)
        for k, v in opts.items():
            wanted[f"{PREFIX}{t}.{col}.{k}"] = v
    for t, cols in columns.items():
        wanted[f"{PREFIX}{t}.columns"] = ",".join(cols)
    if threshold != in_manifest_threshold(dict(options)):
        wanted["file-index.in-manifest-threshold"] = _size_text(threshold)
    old = {k: v for k, v in options.items() if k.startswith(PREFIX) and k != "file-index.in-manifest-threshold"}
    to_set = {k: v for k, v in wanted.items() if options.get(k) != v}
    to_unset = sorted(k for k in old if k not in wanted)
    return to_set, to_unset


def alter_table(ident: str, to_set: Mapping[str, str], to_unset: Sequence[str], engine: str = "spark") -> list[str]:
    """``ALTER TABLE`` statements (``spark`` or ``flink``) setting and unsetting table options."""
    if engine not in ("spark", "flink"):
        raise PaimonLensError(f"statements for 'spark' or 'flink', not {engine!r}")
    props = ", ".join(f"'{k}' = '{_sql_text(v)}'" for k, v in to_set.items())
    keys = ", ".join(f"'{k}'" for k in to_unset)
    out = []
    if to_set:
        out.append(f"ALTER TABLE {ident} SET TBLPROPERTIES ({props})" if engine == "spark"
                   else f"ALTER TABLE {ident} SET ({props})")
    if to_unset:
        out.append(f"ALTER TABLE {ident} UNSET TBLPROPERTIES ({keys})" if engine == "spark"
                   else f"ALTER TABLE {ident} RESET ({keys})")
    return out


def _sql_text(value: str) -> str:
    return value.replace("'", "''")


def _size_text(n: int) -> str:
    if n % 1024 == 0 and n >= 1024:
        return f"{n // 1024} kb"
    return f"{n} b"


def _split_types(index_type: str, options: Mapping[str, str]) -> list[tuple[str, dict[str, str]]]:
    types = index_type.split("+")
    return [(types[0], explicit_options(types[0], options)), *[(t, {}) for t in types[1:]]]


_DEFAULTS: dict[str, dict[str, str]] = {
    "bloom-filter": {"fpp": repr(DEFAULT_BLOOM_FPP), "items": str(DEFAULT_BLOOM_ITEMS)},
    "bitmap": {"version": "2", "index-block-size": DEFAULT_INDEX_BLOCK_SIZE},
    "range-bitmap": {"chunk-size": DEFAULT_CHUNK_SIZE},
}


def _same_value(key: str, a: str, b: str) -> bool:
    if key == "fpp":
        return float(a) == float(b)
    if key in ("index-block-size", "chunk-size"):
        from ..metadata.options import parse_memory_size

        return bool(parse_memory_size(a) == parse_memory_size(b))
    return a.strip() == b.strip()


def explicit_options(index_type: str, options: Mapping[str, str]) -> dict[str, str]:
    """``options`` without the ones equal to Paimon's defaults (what a statement needs to set)."""
    defaults = _DEFAULTS.get(index_type, {})
    return {k: v for k, v in options.items() if k not in defaults or not _same_value(k, v, defaults[k])}


def same_index(index_type: str | None, a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether two option sets configure the same index (defaults filled in)."""
    if index_type is None:
        return True
    return explicit_options(index_type, a) == explicit_options(index_type, b)


# ---- measuring a column's candidates ------------------------------------------------------------

@dataclass
class _Score:
    cand: Candidate
    index_bytes: float
    files_skipped: float = 0.0
    bytes_avoided: float = 0.0
    rows_avoided: float = 0.0
    bytes_read: float = 0.0
    cost: float = 0.0
    eligible: bool = False


@dataclass(frozen=True)
class _Base:
    bytes: float  # read without file indexes (after partition, stats, DVs)
    rows: float
    partition_bytes: float  # kept by partition and bucket pruning alone
    partition_rows: float


def _column_scores(result: WhatIfResult, column: str, query_runs: int) -> tuple[list[_Score], _Base, int]:
    """Per candidate of ``column``: weighted means over the queries naming it; the baseline."""
    qs = [(qi, q) for qi, q in enumerate(result.queries) if column in q.columns]
    weight = sum(q.weight for _, q in qs) or 1.0
    base = _Base(sum(q.weight * q.read_bytes for _, q in qs) / weight,
                 sum(q.weight * q.read_rows for _, q in qs) / weight,
                 sum(q.weight * q.partition_bytes for _, q in qs) / weight,
                 sum(q.weight * q.partition_rows for _, q in qs) / weight)
    scores = []
    for ci, cand in enumerate(result.candidates):
        if cand.current or cand.column != column:
            continue
        s = _Score(cand, sum(result.measures[ci].sizes) * result.file_scale)
        for qi, q in qs:
            t = result.tallies[ci][qi]
            w = q.weight / weight
            s.files_skipped += w * t.files_skipped * q.scale
            s.bytes_avoided += w * t.bytes_avoided * q.scale
            s.rows_avoided += w * t.rows_avoided * q.scale
            s.bytes_read += w * t.index_bytes_read * q.scale
        s.cost = s.index_bytes + query_runs * len(qs) * s.bytes_read
        scores.append(s)
    return scores, base, len(qs)


INDEX_SIZE_RATIO = 0.25
"""An index storing this share of the bytes of the data it indexes (or more) is too big: the
findings flag it (``index-size``) and :func:`recommend` never proposes one."""


def _is_default(cand: Candidate) -> bool:
    o = cand.options
    return (o.get("index-block-size", DEFAULT_INDEX_BLOCK_SIZE) == DEFAULT_INDEX_BLOCK_SIZE
            and o.get("chunk-size", DEFAULT_CHUNK_SIZE) == DEFAULT_CHUNK_SIZE
            and float(o.get("fpp", DEFAULT_BLOOM_FPP)) == DEFAULT_BLOOM_FPP
            and int(o.get("items", DEFAULT_BLOOM_ITEMS)) == DEFAULT_BLOOM_ITEMS)


def _cheapest(scores: Sequence[_Score]) -> _Score:
    """The index type that stores least, then its options with the lowest cost (defaults on ties)."""
    smallest: dict[str, float] = {}
    for s in scores:
        t = str(s.cand.index_type)
        smallest[t] = min(smallest.get(t, float("inf")), s.index_bytes)
    family = min(smallest, key=lambda t: smallest[t])
    members = [s for s in scores if str(s.cand.index_type) == family]
    low = min(s.cost for s in members)
    near = [s for s in members if s.cost <= low * 1.01 + 1]
    return min(near, key=lambda s: (not _is_default(s.cand), s.cost))


def _choose(scores: list[_Score], base: _Base, max_index_bytes: float) -> tuple[_Score | None, str]:
    """Rules 1-4 of the module docs; gains are shares of what partition pruning alone leaves. A
    candidate storing more than ``max_index_bytes`` (:data:`INDEX_SIZE_RATIO` of the data) is
    never chosen, the findings would flag it: the choice is made again without those, and
    ``too-big`` says that nothing else qualifies."""
    real = [s for s in scores if s.cand.index_type is not None]
    if not real:
        return None, "no index type Paimon offers answers the predicates on this column"
    best, kind = _pick(real, base)
    if best is None or best.index_bytes <= max_index_bytes:
        return best, kind
    small = [s for s in real if s.index_bytes <= max_index_bytes]
    for s in real:
        s.eligible = False
    best, kind = _pick(small, base) if small else (None, "none")
    return (best, kind) if best is not None else (None, "too-big")


def _pick(real: list[_Score], base: _Base) -> tuple[_Score | None, str]:
    best_bytes = max(s.bytes_avoided for s in real)
    if base.partition_bytes > 0 and best_bytes >= MIN_FILE_GAIN * base.partition_bytes:
        for s in real:
            s.eligible = s.bytes_avoided >= NEAR_BEST * best_bytes
        return _cheapest([s for s in real if s.eligible]), "files"
    best_rows = max(s.rows_avoided for s in real)
    if base.partition_rows > 0 and best_rows >= MIN_ROW_GAIN * base.partition_rows:
        for s in real:
            s.eligible = s.rows_avoided >= NEAR_BEST * best_rows
        return _cheapest([s for s in real if s.eligible]), "rows"
    return None, "none"


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f} %" if whole else "0 %"


def _reason(kind: str, s: _Score | None, column: str, base: _Base, profile: Any, n_queries: int) -> str:
    from ..units import human_bytes

    base_bytes, base_rows = base.bytes, base.rows
    if kind == "files" and s is not None:
        return (f"skips {s.files_skipped:.1f} files ({human_bytes(s.bytes_avoided)}, "
                f"{_pct(s.bytes_avoided, base_bytes)} of what min/max stats leave) per query on {column}, "
                f"for {human_bytes(s.index_bytes)} of index; "
                f"the cheapest of the candidates within {NEAR_BEST:.0%} of the best gain")
    if kind == "rows" and s is not None:
        return (f"no candidate skips enough files, but it removes {s.rows_avoided:,.0f} rows "
                f"({_pct(s.rows_avoided, base_rows)} of the rows read) per query on {column} before they are "
                f"decoded, for {human_bytes(s.index_bytes)} of index")
    if kind == "too-big":
        return (f"the candidates that would help on {column} store more than {INDEX_SIZE_RATIO:.0%} of the "
                "table's data bytes (the findings flag such an index as too big); no smaller one helps enough")
    if base.partition_bytes and base_bytes <= 0.5 * base.partition_bytes:
        return (f"min/max stats already prune {column}: {_queries(n_queries)} on it read "
                f"{human_bytes(base_bytes)} per query without a file index, {_pct(base_bytes, base.partition_bytes)} "
                f"of the bytes of the partitions they touch; no candidate saves {MIN_FILE_GAIN:.0%} of those "
                f"bytes or {MIN_ROW_GAIN:.0%} of their rows")
    return (f"no candidate saves {MIN_FILE_GAIN:.0%} of the bytes or {MIN_ROW_GAIN:.0%} of the rows "
            f"{_queries(n_queries)} on {column} read without an index")


def _queries(n: int) -> str:
    return "the 1 query" if n == 1 else f"the {n} queries"


# ---- in-manifest threshold ---------------------------------------------------------------------

def _advise_threshold(table: SnapshotReader, result: WhatIfResult, chosen: Sequence[Candidate]) -> tuple[int, str]:
    from ..units import human_bytes

    current = in_manifest_threshold(table.schema.options)
    index = {id(c): i for i, c in enumerate(result.candidates)}
    per_file = [0] * result.sampled_files
    for cand in chosen:
        sizes = result.measures[index[id(cand)]].sizes
        for i, s in enumerate(sizes):
            per_file[i] += s
    sizes = [s for s in per_file if s > 0]
    if not sizes:
        return current, "no index recommended: the threshold does not matter"
    try:
        manifest_bytes = sum(m.file_size or 0 for m in table.manifest_files())
    except (PaimonLensError, KeyError, OSError):
        manifest_bytes = 0
    scale = result.file_scale
    budget = max(256 * 1024, manifest_bytes)
    best: tuple[int, int, float] | None = None  # threshold, embedded files, growth
    for t in sorted(threshold_choices(sizes), reverse=True):
        t = -(-t // 1024) * 1024 if t > 1024 else t  # a round size in the option
        embedded = [s for s in sizes if s <= t]
        growth = sum(embedded) * scale
        if t <= MAX_EMBED_THRESHOLD and growth <= budget:
            best = (t, len(embedded), growth)
            break
    default = max(current, DEFAULT_IN_MANIFEST_THRESHOLD)
    median = sorted(sizes)[len(sizes) // 2]
    if best is None or best[1] < 0.5 * len(sizes) or best[0] <= default:
        return default, (f"keep {_size_text(default)}: the recommended containers (median {human_bytes(median)} per "
                         f"file) would grow the manifests ({human_bytes(manifest_bytes)}) by more than "
                         f"{human_bytes(budget)} if embedded; as .index files they are read only for the files a "
                         f"query keeps")
    t, n, growth = best
    return t, (f"embeds {n} of {len(sizes)} (sampled) containers (median {human_bytes(median)}) so Paimon prunes "
               f"with them at planning time; manifests grow by ~{human_bytes(growth)} before compression "
               f"(they are {human_bytes(manifest_bytes)} now; budget {human_bytes(budget)})")


# ---- the pipeline ------------------------------------------------------------------------------

@consistent
def recommend(table: SnapshotReader, workload: Any = None, *, columns: Sequence[str] | None = None,
              index_types: Sequence[str] | None = None, max_files: int | None = None,
              sample_rows_per_file: int | None = None, seed: int = 0, query_runs: int = QUERY_RUNS,
              progress: bool | None = None, engine: Engine | None = None,
              rules: PaimonRules | None = None) -> Advice:
    """Measure candidate indexes on the table's own data and advise which to add, change or drop.

    Args:
        table: the table's snapshot.
        workload: WHERE clauses (a :class:`~paimon_lens.workload.Workload`, a workload file, a list
            of strings or ``(where, weight)`` pairs); None derives one from the column profiles
            (point lookups on present and absent values, IN lists, ranges) and says so.
        columns: restrict the advice to these columns (default: every column the workload names,
            partition keys excepted).
        index_types: propose only these index types (e.g. ``["bitmap"]`` to size a bitmap).
        max_files: profile and measure a seeded sample of this many data files (totals are
            extrapolated; the notes say how).
        sample_rows_per_file: profile only this many rows per file (top values and quantiles).
        query_runs: how many times each query runs over the index's life (weighs read bytes
            against stored bytes).
        progress: progress bars for profiling and measuring: True at once, False never, None once
            the work is long (:mod:`paimon_lens.progress`).
        engine: where the files are profiled and measured (default: here).
        rules: the Paimon release whose planning is followed (default: the newest modelled).
    """
    from .derive import derive_workload
    from .profile import profile_table
    from .whatif import measure

    rules = rules or rules_of_newest()
    profile = profile_table(table, max_files=max_files, sample_rows_per_file=sample_rows_per_file, seed=seed,
                            progress=progress, engine=engine)
    derived = workload is None
    wl: Workload = derive_workload(table, profile, seed=seed) if derived else as_workload(workload)
    if not len(wl):
        raise PaimonLensError("the workload is empty: give at least one WHERE clause")
    fields = table.schema.fields
    wl, predicates, skipped = _parse_workload(wl, fields)
    kinds = predicate_kinds(predicates)
    partition_keys = set(table.schema.partition_keys)
    wanted_cols = [c for c in kinds if c not in partition_keys and (columns is None or c in columns)]
    by_name = {f.name: f for f in fields}
    existing = parse_index_options(dict(table.schema.options))
    cands: list[Candidate] = []
    for col in wanted_cols:
        cp = profile.column(col) if col in {c.name for c in profile.columns} else None
        per_file = [fc.distinct_count for fp in profile.files for fc in fp.columns if fc.column == col]
        if cp is None and not per_file:
            continue
        grid = candidate_grid(col, by_name[col].type, per_file, workload_kinds=kinds[col])
        ranges = "range" in kinds[col]
        cands.extend(c for c in grid if c.index_type != BSI  # existing bsi indexes are measured below
                     and (ranges or c.index_type is None or RANGE_BITMAP not in c.index_type
                          or index_types is not None)
                     and (index_types is None or c.index_type is None or c.index_type in index_types))
    labels = {(c.column, c.label) for c in cands}
    for spec in existing:
        if "[" in spec.column or spec.column not in by_name:
            continue
        label = f"existing {spec.index_type} " + " ".join(f"{k}={v}" for k, v in spec.options.items())
        if (spec.column, label.strip()) not in labels:
            cands.append(Candidate(spec.column, spec.index_type, dict(spec.options), label.strip()))
    result = measure(table, wl, cands, max_files=max_files, seed=seed, progress=progress, engine=engine, rules=rules)
    advice = _advise(table, wl, derived, profile, result, wanted_cols, existing, query_runs)
    advice.rules = rules
    _global_advice(table, wl, advice, wanted_cols, profile, index_types, rules)
    advice.skipped_queries = skipped
    advice.notes[:0] = [f"workload {q['label']} skipped: {q['error']}" for q in skipped]
    return advice


GLOBAL_OVER_FILE = 1.25
"""A global index is advised over a column's file index when it avoids this many times the bytes."""


def _global_advice(table: SnapshotReader, wl: Workload, advice: Advice, columns: Sequence[str], profile: Any,
                   index_types: Sequence[str] | None, rules: PaimonRules) -> None:
    """Data-evolution tables: a btree global index instead of a column's file-index advice where it
    avoids clearly more bytes (see :mod:`.global_whatif`), measured on the table's data."""
    from ..units import human_bytes
    from .global_whatif import measure_global

    if index_types is not None and "btree" not in index_types:
        return
    distinct = {c.name: c.distinct_count for c in profile.columns}
    gains, notes = measure_global(table, wl, list(columns), rules, distinct)
    advice.notes.extend(notes)
    for col, g in gains.items():
        current = next((r for r in advice.recommendations if r.column == col and r.scope == "file"
                        and r.action in ("add", "change", "none")), None)
        best = current.bytes_avoided_per_query if current is not None and current.action != "none" else 0.0
        if g.bytes_avoided_per_query < MIN_FILE_GAIN * g.baseline_bytes_per_query or \
                g.bytes_avoided_per_query < GLOBAL_OVER_FILE * best or g.bytes_avoided_per_query <= 0:
            continue
        share = _pct(g.bytes_avoided_per_query, g.baseline_bytes_per_query)
        reason = (f"a btree global index on {col} skips {g.files_skipped_per_query:.1f} files "
                  f"({human_bytes(g.bytes_avoided_per_query)}, {share} of what {_queries(g.queries)} "
                  "read without an index) per query, measured on the table's rows"
                  + (f"; the best file index avoids {human_bytes(best)}" if best else "")
                  + f"; its size is estimated at {human_bytes(g.estimated_index_bytes)}")
        rec = Recommendation(col, "add", "btree", {}, "global btree index", float(g.estimated_index_bytes),
                             g.files_skipped_per_query, g.bytes_avoided_per_query, g.rows_avoided_per_query, 0.0,
                             g.baseline_bytes_per_query, g.baseline_rows_per_query, g.queries,
                             current.confidence if current is not None else "medium", reason, scope="global")
        recs = advice.recommendations
        if current is not None:
            recs[recs.index(current)] = rec
        else:
            recs.append(rec)
    if gains:  # the threshold follows the file indexes still advised
        kept = {(r.column, r.label) for r in advice.recommendations
                if r.scope == "file" and r.action in ("add", "change", "keep") and r.index_type}
        chosen = [c for c in advice.whatif.candidates if (c.column, c.label) in kept]
        advice.threshold, advice.threshold_reason = _advise_threshold(table, advice.whatif, chosen)


def _parse_workload(wl: Workload, fields: Sequence[Any]) -> tuple[Workload, list[Any], list[dict[str, Any]]]:
    """The queries of ``wl`` that parse, their predicates, and the ones that do not (``where``,
    ``line``, ``label``, ``error``): a bad line is left out and said, the others are measured."""
    bound, skipped = wl.bind(fields)
    if not len(bound):
        raise PaimonLensError(f"no query of the workload can be used: {skipped[0]['label']}: {skipped[0]['error']}"
                              + (f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""))
    return bound, [q.predicate for q in bound], skipped


def _confidence(derived: bool, sampled: bool, n_queries: int) -> str:
    if derived or n_queries <= 1:
        return "low" if (derived and sampled) or n_queries == 0 else "medium"
    return "medium" if sampled else "high"


def _advise(table: SnapshotReader, wl: Workload, derived: bool, profile: TableProfile, result: WhatIfResult,
            columns: Sequence[str], existing: Sequence[Any], query_runs: int) -> Advice:
    recs: list[Recommendation] = []
    tradeoffs: list[dict[str, Any]] = []
    chosen_cands: list[Candidate] = []
    sampled = result.sampled_files < result.files
    existing_by_col: dict[str, list[Any]] = {}
    for spec in existing:
        existing_by_col.setdefault(spec.column, []).append(spec)
    served = global_index_columns(table)
    max_index_bytes = INDEX_SIZE_RATIO * sum(lf.entry.file.file_size for lf in table.live_files())
    for col in columns:
        scores, base, n_q = _column_scores(result, col, query_runs)
        if not scores:
            continue
        base_bytes, base_rows = base.bytes, base.rows
        best, kind = _choose(scores, base, max_index_bytes)
        for s in scores:
            tradeoffs.append({"column": col, "label": s.cand.label, "index_type": s.cand.index_type or "none",
                              "options": ", ".join(f"{k}={v}" for k, v in s.cand.options.items()),
                              "index_bytes": s.index_bytes, "bytes_avoided_per_query": s.bytes_avoided,
                              "rows_avoided_per_query": s.rows_avoided, "files_skipped_per_query": s.files_skipped,
                              "index_bytes_read_per_query": s.bytes_read, "cost": s.cost, "eligible": s.eligible,
                              "chosen": s is best})
        reason = _reason(kind, best, col, base, profile, n_q)
        if col in served:
            reason = (f"the {'/'.join(served[col])} global index of {col} already serves its queries (what it "
                      "leaves is the baseline): " + (reason if best is not None else
                                                     f"no file index adds a gain to it ({reason})"))
        conf = _confidence(derived, sampled, n_q)
        have = existing_by_col.get(col, [])
        if best is None:
            action = "drop" if have else "none"
            for spec in have:
                recs.append(_rec(col, "drop", spec.index_type, dict(spec.options), f"drop {spec.index_type}",
                                 _existing_score(scores, spec), base_bytes, base_rows, n_q, conf,
                                 f"the existing {spec.index_type} index does not help: " + reason))
            if not have:
                recs.append(_rec(col, action, None, {}, "no index", None, base_bytes, base_rows, n_q, conf, reason))
            continue
        chosen_cands.append(best.cand)
        same = [spec for spec in have if spec.index_type == best.cand.index_type
                and same_index(spec.index_type, spec.options, best.cand.options)]
        action = "keep" if same and len(have) == 1 else ("change" if have else "add")
        label = best.cand.label
        if same and len(have) > 1:  # the chosen index is already there: the change is the others' drop
            others = ", ".join(s.index_type for s in have if s is not same[0])
            label = f"keep {best.cand.label}, drop {others}"
        recs.append(_rec(col, action, best.cand.index_type, dict(best.cand.options), label, best,
                         base_bytes, base_rows, n_q, conf, reason))
    threshold, threshold_reason = _advise_threshold(table, result, chosen_cands)
    notes = []
    if derived:
        notes.append(f"no workload given: {len(wl)} queries derived from the column profiles "
                     "(point lookups on present and absent values, IN lists, ranges)")
    unnamed = [s for s in existing if s.column not in columns and "[" not in s.column]
    stored, unread = _stored_index_bytes(table) if unnamed else ({}, [])
    if unread:
        notes.append(f"{len(unread)} index containers could not be read and are not counted in the bytes a "
                     f"drop frees, e.g. {unread[0]}")
    for spec in unnamed:
        rec = _rec(spec.column, "drop", spec.index_type, dict(spec.options), f"drop {spec.index_type}", None,
                   0.0, 0.0, 0, "low" if derived else "medium",
                   f"no query of the workload names {spec.column}: its {spec.index_type} index is never used")
        recs.append(replace(rec, index_bytes=float(stored.get((spec.column, spec.index_type), 0))))  # saved
    return Advice(table, wl, derived, recs, result, profile, tradeoffs, threshold, threshold_reason, query_runs,
                  notes)


def _existing_score(scores: Sequence[_Score], spec: Any) -> _Score | None:
    for s in scores:
        if s.cand.index_type == spec.index_type and same_index(spec.index_type, s.cand.options, spec.options):
            return s
    return None


def _stored_index_bytes(table: SnapshotReader) -> tuple[dict[tuple[str, str], int], list[str]]:
    """Bytes of every (column, index type) the snapshot's files store, from the containers' heads;
    and the containers that could not be read (``file: why``)."""
    from ..errors import PaimonLensError
    from ..inventory.file_indexes import open_container

    out: dict[tuple[str, str], int] = {}
    unread: list[str] = []
    for lf in table.live_files():
        try:
            container = open_container(table, lf)
            entries = list(container.layout.entries()) if container is not None else []
        except (PaimonLensError, OSError) as e:
            unread.append(f"{lf.entry.file.file_name}: {e}")
            continue
        for column, entry in entries:
            key = (column, entry.index_type)
            out[key] = out.get(key, 0) + max(entry.length, 0)
    return out, unread


def _rec(col: str, action: str, index_type: str | None, options: dict[str, str], label: str, s: _Score | None,
         base_bytes: float, base_rows: float, n_q: int, conf: str, reason: str) -> Recommendation:
    return Recommendation(
        column=col, action=action, index_type=index_type, options=options, label=label,
        index_bytes=s.index_bytes if s else 0.0, files_skipped_per_query=s.files_skipped if s else 0.0,
        bytes_avoided_per_query=s.bytes_avoided if s else 0.0, rows_avoided_per_query=s.rows_avoided if s else 0.0,
        index_bytes_read_per_query=s.bytes_read if s else 0.0, baseline_bytes_per_query=base_bytes,
        baseline_rows_per_query=base_rows, column_queries=n_q, confidence=conf, reason=reason)

