"""The HTML tuning report: one self-contained file about one snapshot of a table.

:func:`build_report` gathers the sections (overview, files, index inventory, deletion-vector
health, an explain funnel per workload predicate, recommendations when given) into a
:class:`TuningReport`; :meth:`TuningReport.save` writes it. The file needs nothing but itself:
CSS is inline, plots are SVG ``data:`` URIs in ``<img>`` tags, there is no script at all, and a
Content-Security-Policy forbids any network request or script a table value might smuggle in.
Every table-derived string goes through jinja2's autoescaping.

One failing part (a corrupt index, a predicate that does not parse) becomes a message in its
section; the rest of the report is still built. The sections are the model the explorer's tabs
show too (:func:`render_section`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..errors import PaimonLensError
from ..metadata.consistency import run_consistently
from ..workload.model import Workload, as_workload
from .blocks import Code, Definitions, Details, FindingItem, Findings, Frame, Statements, heading, paragraph
from .frame_columns import INDEX_COLUMNS, INDEX_INVENTORY_COLUMNS, SHOWN_FILE_COLUMNS
from .lens_frame import human_bytes, human_count, human_percent
from .section import Section, guarded, plot

if TYPE_CHECKING:
    import pandas as pd

    from ..table.facade import Table

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
"""Content-Security-Policy of the saved report: inline CSS and data-URI images only."""

MAX_FILES_LISTED = 50


@dataclass
class TuningReport:
    """A rendered tuning report; ``html`` is the whole document."""

    table: Table
    workload: Workload
    sections: list[Section]
    generated_at: str
    explains: list[Any] = field(default_factory=list)

    @property
    def html(self) -> str:
        """The self-contained HTML document."""
        return _render(self, standalone=True)

    def to_dict(self) -> dict[str, Any]:
        """The report as data: the snapshot it describes and its sections, each with its facts,
        blocks (:mod:`~paimon_lens.presentation.blocks`), plots and problems."""
        t = self.table
        return {"table": t.path, "name": t.name, "branch": t.branch, "snapshot_id": t.snapshot_id,
                "schema_id": t.schema.id, "paimon_version": t.paimon_version, "generated_at": self.generated_at,
                "paimon_lens_version": __version__, "workload_source": self.workload.source,
                "sections": [s.to_dict() for s in self.sections]}

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the report to ``path`` (UTF-8) and return the path (never inside the table): the HTML
        document, or :meth:`to_dict` as JSON when ``path`` ends in ``.json``. The document is
        written as it is rendered, into a file beside ``path`` that then replaces it."""
        check_output_path(os.fspath(path), self.table.path)
        p = Path(path)
        partial_path = p.with_name(f".{p.name}.{uuid.uuid4().hex[:12]}.partial")
        try:
            with open(partial_path, "x", encoding="utf-8") as out:
                if p.suffix.lower() == ".json":
                    json.dump(self.to_dict(), out, ensure_ascii=False, indent=1)
                    out.write("\n")
                else:
                    out.writelines(_generate(self, standalone=True))
            os.replace(partial_path, p)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial_path)
            raise
        return p

    def _repr_html_(self) -> str:
        return _render(self, standalone=False)

    def __repr__(self) -> str:
        names = ", ".join(s.title for s in self.sections)
        return f"<TuningReport {self.table.path!r} snapshot={self.table.snapshot_id}: {names}>"


def _render(report: TuningReport, standalone: bool) -> str:
    return "".join(_generate(report, standalone))


def _generate(report: TuningReport, standalone: bool) -> Iterator[str]:
    from .html import environment

    t = report.table
    return environment().get_template("report.html.j2").generate(
        standalone=standalone, csp=CSP, table_name=t.name, table_path=t.path, snapshot_id=t.snapshot_id,
        schema_id=t.schema.id, branch=t.branch, paimon_version=t.paimon_version,
        generated_at=report.generated_at, version=__version__,
        workload_source=report.workload.source, sections=report.sections)


def render_section(section: Section) -> str:
    """One section as an HTML fragment styled as in the report (what the explorer's tabs show)."""
    from .html import environment

    return environment().get_template("section_view.html.j2").render(s=section)


# ---- sections ----------------------------------------------------------------------------------
def _overview(table: Table) -> Section:
    s = Section("overview", "Table overview")
    schema = table.schema
    snap = table.snapshot
    s.facts += [
        ("table", table.path),
        ("kind", "primary-key table" if table.is_primary_key_table else "append table"),
        ("primary keys", ", ".join(schema.primary_keys) or "-"),
        ("partition keys", ", ".join(schema.partition_keys) or "-"),
        ("bucket", _bucket_text(schema.options.get("bucket", "-1"), bool(schema.primary_keys))),
        ("snapshot", "-" if snap is None else f"{snap.id} ({snap.commit_kind}, {_commit_time(snap.time_millis)})"),
        ("records", "-" if snap is None or snap.total_record_count is None else human_count(snap.total_record_count)),
        ("schema", f"{schema.id} ({len(schema.fields)} columns)"),
    ]

    def snapshots() -> None:
        frame = table.snapshots()
        s.facts.append(("snapshots kept", human_count(len(frame))))

    guarded(s, "snapshots", snapshots)
    if snap is not None and snap.time_millis is not None:
        age = _dt.datetime.now(tz=_dt.UTC) - _dt.datetime.fromtimestamp(snap.time_millis / 1000, tz=_dt.UTC)
        s.facts.append(("snapshot age", _age(age)))
    guarded(s, "data and index bytes", lambda: _sizes(s, table))
    import pandas as pd

    cols = pd.DataFrame([{"column": f.name, "type": str(f.type), "id": f.id,
                          "key": ("primary key" if f.name in schema.primary_keys
                                  else "partition" if f.name in schema.partition_keys else "")}
                         for f in schema.fields])
    folded: list[Any] = [Frame(cols, max_rows=200)]
    index_opts = {k: v for k, v in sorted(schema.options.items()) if k.startswith(("file-index", "deletion-vectors",
                                                                                      "metadata.stats", "bucket"))}
    if index_opts:
        folded.append(Frame(pd.DataFrame({"option": list(index_opts), "value": list(index_opts.values())})))
    s.blocks.append(Details(f"columns ({len(schema.fields)}) and index options ({len(index_opts)})", tuple(folded)))
    return s


def _age(delta: _dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds // size:,} {unit}"
    return f"{seconds} seconds"


def _sizes(s: Section, table: Table) -> None:
    """Files, data bytes, index bytes (and their share) and deleted rows of the snapshot."""
    from ..advisor.findings import deleted_rows
    from ..metadata.snapshot_reader import IndexLocation

    files = table.reader.live_files()
    data = sum(lf.entry.file.file_size for lf in files)
    rows = sum(lf.entry.file.row_count for lf in files)
    s.facts += [("files", human_count(len(files))), ("data", human_bytes(data))]
    sizes = [table.reader.index_size(lf) for lf in files if lf.index_location != IndexLocation.NONE]
    unread = sum(1 for n in sizes if n is None)
    index = sum(n for n in sizes if n is not None)  # whole containers, as the plan counts them
    share = f" ({human_percent(index / data)} of the data)" if data else ""
    s.facts.append(("file indexes", f"{human_bytes(index)}{share}"
                    + (f"; the size of {unread:,} containers could not be read" if unread else "")))
    gone = sum(deleted_rows(table.reader, table.engine).values())
    s.facts.append(("deleted rows", f"{human_count(gone)}" + (f" ({human_percent(gone / rows)} of the rows)"
                                                             if rows else "")))


#: every abbreviation and term of art the report uses, explained once
TERMS = (
    ("DV, deletion vector", "a bitmap of the rows of one data file that are deleted; readers skip them "
                            "until a compaction rewrites the file"),
    ("bloom-filter", "a bit set answering 'maybe present' or 'surely absent' for = and IN; sized by items "
                     "(distinct values per file) and fpp"),
    ("fpp", "false-positive probability: how often a bloom filter says 'maybe' for an absent value"),
    ("bitmap", "per distinct value, the rows holding it (Roaring bitmaps); answers =, <>, IN, IS NULL exactly"),
    ("range-bitmap", "a dictionary of sorted values and a bit-sliced index of their codes: answers ranges too"),
    ("bsi", "bit-sliced index: the values' bits as bitmaps; answers ranges on numbers"),
    ("embedded / external", "an index container stored in the manifest, or in its own .index file"),
    ("in-manifest threshold", "file-index.in-manifest-threshold: containers up to this size are embedded"),
    ("stats", "each file's min, max and null count per column, in the manifest"),
    ("funnel", "files, bytes and rows left after each pruning stage of one predicate"),
    ("bucket -1", "append table without buckets (bucket-unaware), or dynamic bucket mode for a primary-key table"),
    ("PK", "primary key"),
)


def _terms() -> Section:
    s = Section("terms", "Terms used", collapsed=True)
    s.blocks.append(Definitions(TERMS))
    return s


def _bucket_text(bucket: str, primary_key: bool) -> str:
    """The ``bucket`` option with what it means (-1 and -2 are modes, not bucket counts)."""
    if bucket.strip() == "-1":
        return ("-1: dynamic bucket mode (buckets assigned by a key index as data grows)" if primary_key
                else "-1: bucket-unaware append table (no bucket key; every file in bucket 0)")
    if bucket.strip() == "-2":
        return "-2: postpone bucket mode (rows wait in bucket -2 until a compaction assigns buckets)"
    return f"{bucket} fixed buckets (rows placed by the hash of the bucket key)"


def _commit_time(millis: int | None) -> str:
    if millis is None:
        return "-"
    return _dt.datetime.fromtimestamp(millis / 1000, tz=_dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def files_section(table: Table, detail: bool = False) -> Section:
    """The data files: counts, rows and bytes per partition and bucket, the size histogram; with
    ``detail`` every file too (the explorer's Files tab)."""
    s = Section("files", "Data files")

    def body() -> None:
        frame = table.files() if detail else _file_facts(table)
        if frame.empty:
            s.blocks.append(paragraph("The snapshot has no data files."))
            return
        s.facts += [("data files", human_count(len(frame))), ("rows", human_count(int(frame["row_count"].sum()))),
                    ("bytes", human_bytes(int(frame["file_size"].sum()))),
                    ("median file", human_bytes(float(frame["file_size"].median()))),
                    ("formats", ", ".join(sorted(str(x) for x in frame["file_format"].dropna().unique())))]
        by = ["partition", "bucket"] if table.schema.partition_keys else ["bucket"]
        part = frame.assign(partition=frame["partition"].map(_partition_text)) if detail else frame
        grouped = part.groupby(by, sort=True).agg(files=("file_name", "size"), rows=("row_count", "sum"),
                                                  file_size=("file_size", "sum")).reset_index()
        s.blocks.append(Frame(grouped, max_rows=30))
        if detail:
            s.blocks.append(Frame(frame[[c for c in SHOWN_FILE_COLUMNS if c in frame.columns]]))
        from .plots import file_sizes

        plot(s, "file sizes and rows per file", lambda: file_sizes(table))

    guarded(s, "data files", body)
    return s


def _file_facts(table: Table) -> pd.DataFrame:
    """The columns of :meth:`Table.files` the summary uses (not every column's decoded stats: a
    report on 100,000 files would hold them all at once)."""
    import pandas as pd

    from ..values import to_python
    from .frames import file_format

    files = table.reader.live_files()
    types = {p.name: p.type for p in table.schema.partition_fields}
    texts: dict[int, str] = {}  # files of a partition share its mapping
    rows: dict[str, list[Any]] = {c: [] for c in ("partition", "bucket", "file_name", "row_count", "file_size",
                                                   "file_format")}
    for lf in files:
        f = lf.entry.file
        key = id(lf.partition)
        text = texts.get(key)
        if text is None:
            text = texts[key] = _partition_text({k: to_python(v, types[k]) for k, v in lf.partition.items()})
        rows["partition"].append(text)
        rows["bucket"].append(lf.entry.bucket)
        rows["file_name"].append(f.file_name)
        rows["row_count"].append(f.row_count)
        rows["file_size"].append(f.file_size)
        rows["file_format"].append(file_format(f.file_name))
    return pd.DataFrame(rows)


def _partition_text(p: Any) -> str:
    if isinstance(p, dict):
        return ", ".join(f"{k}={v}" for k, v in p.items()) or "-"
    return str(p)


def index_inventory(frame: pd.DataFrame, total_files: int) -> pd.DataFrame:
    """Per column and index type: files indexed, where stored, bytes, errors."""
    import pandas as pd

    if frame.empty:
        return pd.DataFrame(columns=list(INDEX_INVENTORY_COLUMNS))
    rows = []
    for (column, index_type), part in frame.groupby(["column", "index_type"], sort=True, observed=True):
        n = len(part)
        rows.append({
            "column": column, "index_type": index_type, "files": n,
            "coverage_ratio": n / total_files if total_files else None,
            "embedded_files": int((part["storage"] == "embedded").sum()),
            "external_files": int((part["storage"] == "external").sum()),
            # None: some container's size could not be read (never counted as 0)
            "bytes": int(part["bytes"].sum()) if part["bytes"].notna().all() else None,
            "mean_bytes": float(part["bytes"].mean()) if part["bytes"].notna().all() else None,
            "error_files": int(part["error"].notna().sum()),
        })
    return pd.DataFrame(rows, columns=list(INDEX_INVENTORY_COLUMNS))


def indexes_section(table: Table, column: str | None = None) -> Section:
    """The file indexes (of one ``column``, with every file's index, for the explorer's Indexes tab):
    inventory, bytes, decoding problems, and the plots of their bytes, bloom fill and bitmap values."""
    s = Section("indexes", "File indexes" if column is None else f"File indexes of {column}")

    def body() -> None:
        from ..inventory.file_indexes import index_facts
        from .index_frames import index_facts_frame

        # the whole table: the facts the summary uses, not every decoded summary of every index
        frame = table.file_indexes() if column is not None else index_facts_frame(
            index_facts(table.reader, table.engine).facts)
        files = len(table.reader.live_files())
        part = frame if column is None else frame[frame["column"] == column]
        if part.empty:
            s.blocks.append(paragraph("No data file of this snapshot has a file index"
                                      + ("." if column is None else f" on {column}.")))
            return
        inv = index_inventory(part, files)
        unread = "" if inv["bytes"].notna().all() else " + the containers whose size could not be read"
        s.facts += [("indexes", human_count(len(part))),
                    ("index bytes", human_bytes(int(inv["bytes"].sum())) + unread),
                    ("columns indexed", human_count(inv["column"].nunique()))]
        s.blocks.append(Frame(inv, max_rows=100))
        if column is not None:
            s.blocks.append(Frame(part[[c for c in INDEX_COLUMNS if c in part.columns]]))
        errors = part[part["error"].notna()]
        for _, row in errors.head(20).iterrows():
            s.errors.append(f"{row['file_name']} / {row['column']} / {row['index_type']}: {row['error']}")
        if len(errors) > 20:
            s.errors.append(f"… and {len(errors) - 20} more corrupt indexes")
        from . import plots

        plot(s, "index bytes by column", lambda: plots.index_bytes(table, frame))
        if (part["index_type"] == "bloom-filter").any():
            blooms = frame[frame["index_type"] == "bloom-filter"]
            plot(s, "bloom filters", lambda: plots.bloom_fill(table, blooms))
        for name in sorted(part.loc[part["index_type"] == "bitmap", "column"].unique())[:6]:
            plot(s, f"bitmap values of {name}", partial(plots.bitmap_distribution, table, name))

    guarded(s, "file indexes", body)
    return s


GLOBAL_INDEX_SHOWN = ("kind", "column", "index_type", "file_name", "partition", "bucket", "first_row_id",
                      "last_row_id", "source_level", "file_size", "row_count", "min_key", "max_key", "keys",
                      "null_rows", "added_snapshot", "payload", "error")
COVERAGE_SHOWN = ("column", "index_type", "data_file", "level", "row_count", "uncovered_rows", "status", "reason")


def global_indexes_section(table: Table) -> Section | None:
    """The global (data-evolution) and primary-key index files, their bytes and keys, and the data
    files they do not cover; None when the snapshot has none."""
    from ..inventory.global_indexes import global_index_files

    if not global_index_files(table.reader):
        return None
    s = Section("global-indexes", "Global and primary-key indexes")

    def body() -> None:
        frame = table.global_indexes()
        coverage = table.global_index_coverage()
        gaps = coverage[coverage["status"] != "covered"]
        s.facts += [("index files", human_count(len(frame))),
                    ("index bytes", human_bytes(int(frame["file_size"].fillna(0).sum()))),
                    ("columns indexed", human_count(frame["column"].nunique())),
                    ("data files not fully covered", human_count(gaps["data_file"].nunique()))]
        s.blocks.append(Frame(frame[list(GLOBAL_INDEX_SHOWN)], max_rows=100))
        if len(gaps):
            s.blocks.append(paragraph("Data files an index does not (fully) cover:"))
            s.blocks.append(Frame(gaps[list(COVERAGE_SHOWN)], max_rows=100))
        for _, row in frame[frame["error"].notna()].head(20).iterrows():
            s.errors.append(f"{row['file_name']}: {row['error']}")

    guarded(s, "global indexes", body)
    return s


def deletion_vectors_section(table: Table) -> Section:
    """The deletion vectors: files with one, deleted rows and ratio per partition and bucket, CRC
    mismatches and decoding problems, the deleted-ratio plot."""
    s = Section("dv", "Deletion vectors")

    def body() -> None:
        frame = table.deletion_vectors()
        if frame.empty:
            enabled = str(table.schema.core_options.deletion_vectors_enabled).lower()
            s.blocks.append(paragraph(f"No deletion vectors in this snapshot (deletion-vectors.enabled = {enabled})."))
            return
        deleted = int(frame["cardinality"].fillna(0).sum())
        rows = int(frame["row_count"].fillna(0).sum())
        bad_crc = int((frame["crc_ok"] == False).sum())  # noqa: E712 - column of bools and None
        s.facts += [("files with a DV", human_count(len(frame))), ("deleted rows", human_count(deleted)),
                    ("deleted ratio in those files", human_percent(deleted / rows if rows else 0.0)),
                    ("CRC mismatches", human_count(bad_crc))]
        import pandas as pd

        from ..advisor.findings import bucket_deletions

        per_bucket = [{k: v for k, v in b.items() if k != "first"}
                      for b in bucket_deletions(table.reader, table.engine)]
        s.blocks.append(paragraph("Per bucket: the rows its deletion vectors mark deleted, of all its rows "
                                  "(the ratio the findings judge).", small=True))
        s.blocks.append(Frame(pd.DataFrame(per_bucket), max_rows=40))
        for _, row in frame[frame["error"].notna()].head(20).iterrows():
            s.errors.append(f"{row['data_file']}: {row['error']}")
        from .plots import dv_deleted_ratio

        plot(s, "deleted ratio", lambda: dv_deleted_ratio(table))

    guarded(s, "deletion vectors", body)
    return s


def _explain_batch(table: Table, workload: Workload) -> dict[int, Any]:
    """The explains of the workload's queries that parse, in one run on the table's engine (one
    Spark job, not one per query); empty when that run fails (each query is then explained alone,
    so its own error reaches the report)."""
    from ..predicate.parser import parse_where

    queries = list(workload)
    good = []
    for k, q in enumerate(queries):
        try:
            parse_where(q.where, table.schema.fields)
        except PaimonLensError:
            continue
        good.append(k)
    if len(good) < 2:
        return {}
    try:
        reports = table.explain_many([queries[k].where for k in good])
    except (PaimonLensError, OSError, ValueError, KeyError, TypeError, IndexError):
        return {}
    return dict(zip(good, reports))


def _workload(table: Table, workload: Workload, explains: list[Any],
              pairs: list[tuple[Any, Any]] | None = None) -> Section:
    s = Section("workload", "Workload: explain per predicate")
    if not len(workload):
        if workload.source in ("none", "list"):
            s.blocks.append(paragraph("No workload was given: pass ", Code("--workload FILE"),
                                      " (one WHERE clause per line) to see which files each query reads and why."))
        else:
            s.errors.append(f"the workload {workload.source} holds no query (one WHERE clause per line; "
                            "lines starting with # are comments)")
        return s
    import pandas as pd

    from .plots import funnel

    overview = []
    batch = _explain_batch(table, workload)
    for i, q in enumerate(workload, 1):
        def one(q: Any = q, i: int = i) -> None:
            report = batch.get(i - 1) or table.explain(q.where)
            explains.append(report)
            if pairs is not None:
                pairs.append((q, report))
            summ = report.summary()
            overview.append({"#": i, "where": q.where, "weight": q.weight, "files": summ["files"],
                             "planned_files": summ["planned_files"], "read_files": summ["read_files"],
                             "read_bytes": summ["read_bytes"],
                             "read_ratio": summ["read_bytes"] / summ["bytes"] if summ["bytes"] else None,
                             "rows_after_dv": summ["rows_after_dv"]})
            funnel_frame = pd.DataFrame(summ["funnel"])
            read = [f for f in report.files if f.read][:MAX_FILES_LISTED]
            files = pd.DataFrame([{"file_name": f.file_name, "partition": _partition_text(f.partition),
                                   "bucket": f.bucket, "row_count": f.row_count, "rows_after_dv": f.rows_after_dv,
                                   "reason": f.reason} for f in read])
            reasons = pd.Series([f.stage for f in report.files if not f.read and f.stage]).value_counts()
            skipped = pd.DataFrame({"stage": reasons.index, "skipped_files": reasons.to_numpy()})
            block: list[Any] = [heading(f"{i}. ", Code(q.where)),
                                paragraph("bound as ", Code(str(report.predicate)), f" · weight {q.weight:g}",
                                          small=True), Frame(funnel_frame)]
            if len(skipped):
                block.append(Frame(skipped))
            if len(files):
                block.append(Details(f"files read ({summ['read_files']:,}; first {len(files)} listed)",
                                     (Frame(files, max_rows=MAX_FILES_LISTED),)))
            s.blocks += block
            plot(s, f"funnel {i}", lambda: funnel(report))

        where = f"workload line {q.line}" if q.line is not None else f"predicate {i}"
        guarded(s, f"{where} ({q.where})", one)
    if overview:
        s.blocks.insert(0, Frame(pd.DataFrame(overview), max_rows=200))
    return s


def _recommendations(advice: Any) -> Section | None:
    """The advice section: recommendations, the SQL to apply them, the trade-off plot."""
    if advice is None:
        return None
    s = Section("recommendations", "Index recommendations")
    if hasattr(advice, "recommendations"):  # an Advice
        if advice.workload_derived:
            s.blocks.append(paragraph("No workload was given: the recommendations are measured on a workload "
                                      "derived from the column profiles (point lookups on present and absent "
                                      "values, IN lists, ranges)."))
        s.facts += [("files measured", f"{advice.whatif.sampled_files:,} of {advice.whatif.files:,}"),
                    ("queries", f"{len(advice.workload):,}"),
                    ("in-manifest-threshold", f"{advice.threshold:,} B: {advice.threshold_reason}")]
        s.blocks.append(Frame(advice.frame(), max_rows=100))
        _dialect_blocks(s, {d: advice.statements(d) for d in ("spark", "flink")})
        s.blocks.append(Details("every candidate measured", (Frame(advice.tradeoff_frame(), max_rows=400),)))
        for note in [*advice.notes, *advice.whatif.notes]:
            s.blocks.append(paragraph(note, small=True))
        from .plots import pareto

        plot(s, "index bytes vs bytes avoided per query", lambda: pareto(advice))
    else:  # a frame computed elsewhere
        s.blocks.append(Frame(advice, max_rows=100))
    return s


def _dialect_blocks(s: Section, statements: dict[str, list[str]]) -> None:
    """One block of statements per SQL dialect."""
    for dialect, name in (("spark", "Spark SQL"), ("flink", "Flink SQL")):
        if statements.get(dialect):
            s.blocks.append(paragraph(f"Apply with {name}:"))
            s.blocks.append(Statements(tuple(statements[dialect])))


def plan_section(table: Table, advice: Any, workload: Workload, explained: list[tuple[Any, Any]],
                 found: Any = None) -> Section | None:
    """The plan: the recommendations and the findings' fixes as one ordered set of statements, and
    what they change for each workload query (:mod:`paimon_lens.advisor.plan`). ``found``: the
    findings of the same workload when the findings section has them (else they are found here)."""
    if advice is None or not hasattr(advice, "recommendations"):
        return None
    s = Section("plan", "The plan: what to run, and what it changes")

    def body() -> None:
        from ..advisor.findings import find
        from ..advisor.plan import plan_from

        findings = found
        if findings is None or findings.workload_source != ("none" if advice.workload_derived
                                                            else workload.source):
            findings = find(table.reader, None if advice.workload_derived else workload,
                            explained=None if advice.workload_derived else explained, engine=table.engine,
                            rules=table.rules)
        sampled = advice.whatif.sampled_files < advice.whatif.files
        made = plan_from(table.reader, advice, findings, max_files=advice.whatif.sampled_files if sampled else None,
                         engine=table.engine, rules=table.rules)
        known = {*advice.problems, *findings.problems}  # said by the recommendations and findings sections
        s.errors += [p for p in made.problems if p not in known]
        before, after = made.totals("before"), made.totals("after")
        s.facts += [("steps", human_count(len(made.steps))),
                    ("workload per run", f"{human_count(round(before['read_files']))} files, "
                                         f"{human_bytes(before['read_bytes'])} -> "
                                         f"{human_count(round(after['read_files']))} files, "
                                         f"{human_bytes(after['read_bytes'])}"),
                    ("file indexes", f"{human_bytes(made.index_bytes['before'] or 0)} -> "
                                     f"{human_bytes(made.index_bytes['after'] or 0)}")]
        if not made.steps:
            s.blocks.append(paragraph("Nothing to change: the table's indexes and layout suit the workload."))
            return
        s.blocks.append(Definitions(tuple((f"{i}. {step.title}" + (" (effect estimated)" if step.estimated else ""),
                                           step.reason) for i, step in enumerate(made.steps, 1))))
        _dialect_blocks(s, {d: made.statements(d) for d in ("spark", "flink")})
        s.blocks.append(heading("Predicted effect per query (after: the planned indexes built for every file)"))
        s.blocks.append(Frame(made.frame(), max_rows=100))
        compaction = made.estimates.get("compaction")
        if compaction:
            s.blocks.append(paragraph(f"Compaction (an estimate, not computed): {compaction['files_before']:,} files "
                                      f"become about {compaction['files_after']:,}.", small=True))
        if made.declined:
            s.blocks.append(Details(f"fixes the plan does not take ({len(made.declined)})", (Definitions(tuple(
                (d.fix, f"{d.reason} ({d.source})") for d in made.declined)),)))

    guarded(s, "plan", body)
    return s


def findings_section(table: Table, workload: Workload | None = None,
                     explained: list[tuple[Any, Any]] | None = None, keep: dict[str, Any] | None = None) -> Section:
    """The findings, most costly first: each with its evidence, its cost and the statements that fix it."""
    from ..advisor.findings import find

    s = Section("findings", "Findings: what to fix first")

    def body() -> None:
        found = find(table.reader, workload, explained=explained, engine=table.engine, rules=table.rules)
        if keep is not None:  # for the plan section, which merges them with the recommendations
            keep["findings"] = found
        s.errors += found.problems
        s.facts.append(("findings", human_count(len(found))))
        s.blocks += [paragraph(note, small=True) for note in found.notes]
        if not len(found):
            s.blocks.append(paragraph("Nothing found: index sizes, bloom-filter sizing, deletion vectors and file "
                                      "sizes" + (", and how the workload uses the indexes," if workload is not None
                                                 and len(workload) else "") + " look fine."))
            return
        s.blocks.append(Findings(tuple(FindingItem(f.title, f.kind, f.evidence, f.fix, tuple(f.statements), f.impact)
                                       for f in found)))

    guarded(s, "findings", body)
    return s


def _history(table: Table, workload: Workload) -> Section:
    from .history_section import history_section

    return run_consistently(table.reader, lambda: history_section(table, workload if len(workload) else None))


def build_report(table: Table, workload: Any = None, recommendations: Any = None, *,
                 after_section: Callable[[], None] | None = None) -> TuningReport:
    """Gather every section of the tuning report for ``table`` (a :class:`Table`).

    The report leads with what to do: the findings (:mod:`paimon_lens.advisor.findings`), the
    recommendations when given (an :class:`~paimon_lens.advisor.advise.Advice` or a frame), the
    workload's funnels and the history (:mod:`~paimon_lens.presentation.history_section`; right
    after the findings when a workload query reads more than it did, or the timeline shows a
    problem); the inventory (overview, files, indexes, deletion vectors) follows, folded.
    ``after_section`` is called after each section is built (the CLI gives freed memory back there).
    """
    from ..progress import progress

    wl = as_workload(workload)
    explains: list[Any] = []
    pairs: list[tuple[Any, Any]] = []
    built: dict[str, Section | None] = {}
    shared: dict[str, Any] = {}  # the findings, found once for their section and the plan
    steps: list[tuple[str, Callable[[], Section | None]]] = [
        ("workload", lambda: _workload(table, wl, explains, pairs)),
        ("findings", lambda: findings_section(table, wl if len(wl) else None, pairs if len(wl) else None, shared)),
        ("recommendations", lambda: _recommendations(recommendations)),
        ("plan", lambda: plan_section(table, recommendations, wl, pairs, shared.get("findings"))),
        ("history", lambda: _history(table, wl)),
        ("overview", lambda: _overview(table)), ("files", lambda: files_section(table)),
        ("indexes", lambda: indexes_section(table)), ("global-indexes", lambda: global_indexes_section(table)),
        ("dv", lambda: deletion_vectors_section(table)),
    ]
    for key, make in progress(steps, total=len(steps), desc="building the report", unit="section"):
        built[key] = make()
        if after_section is not None:
            after_section()
    history = built["history"]
    urgent = history is not None and history.urgent
    order = ("overview", "plan", "findings", "history", "recommendations", "workload") if urgent else (
        "overview", "plan", "findings", "recommendations", "workload", "history")
    sections = [s for key in order if (s := built[key]) is not None]
    for key in ("files", "indexes", "global-indexes", "dv"):
        inventory = built[key]
        if inventory is None:  # global-indexes: the snapshot has none
            continue
        inventory.collapsed = True
        sections.append(inventory)
    sections.append(_terms())
    now = _dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return TuningReport(table, wl, sections, now, explains)


def check_output_path(output: str, table_path: str) -> None:
    """Raise :class:`PaimonLensError` unless the report can be written to ``output``: its directory
    exists, it is not a directory, and it is not inside the table (paimon-lens never writes there)."""
    target = os.path.abspath(output)
    parent = os.path.dirname(target) or "."
    if os.path.isdir(target):
        raise PaimonLensError(f"cannot write the report to {output}: it is a directory (give a file name)")
    if not os.path.isdir(parent):
        raise PaimonLensError(f"cannot write the report to {output}: directory {parent} does not exist")
    if "://" not in table_path:
        table_dir = os.path.realpath(table_path)
        if os.path.commonpath([os.path.realpath(parent), table_dir]) == table_dir:
            raise PaimonLensError(f"refusing to write the report inside the table directory {table_path}: "
                                  "paimon-lens never writes into a table")
