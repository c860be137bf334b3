"""What changed between two snapshots of a table, and why a query reads more (or less) at one.

:func:`diff` reads snapshot ``a`` whole, then walks the commits up to ``b`` through their delta
manifests (as the timeline does), so every file added or removed in between is tied to the commit
that did it: appends, overwrites, and compactions (per partition and bucket, which files were
merged into which; a file deleted and added again under its name was moved to another level
without being rewritten, an *upgrade*). It also compares index coverage (``type(column)`` labels
of the files' index containers), deletion vectors (deleted rows per bucket), the schema (fields
by id: added, dropped, renamed, retyped) and the options.

:func:`explain_diff` explains one predicate at both snapshots and splits the difference in bytes
read into causes, which add up to it exactly:

* a commit's files: what its new files read at ``b`` minus what the files it removed read at
  ``a`` ("compaction at snapshot 42 merged 12 indexed files into 1 file without a bitmap index on
  `status`: +180 MiB read");
* files live at both snapshots whose verdict changed (a deletion vector, a schema change, ...).
"""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..errors import PaimonLensError
from ..metadata.manifest import FILE_KIND_ADD
from ..metadata.options import configured_indexes
from ..metadata.snapshot_reader import SnapshotReader
from ..rendering import render, render_html
from ..units import human_bytes
from .timeline import _File, _Timeline

if TYPE_CHECKING:
    import pandas as pd

    from ..engines.base import Engine
    from ..pruning.versions import PaimonRules


_KINDS = {"COMPACT": "compaction", "APPEND": "append", "OVERWRITE": "overwrite"}


@dataclass(frozen=True)
class FileFacts:
    """A data file as a diff shows it."""

    file_name: str
    partition: dict[str, Any]
    bucket: int
    level: int
    file_size: int
    row_count: int
    indexes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (partition values as text)."""
        out = dict(self.__dict__)
        out["partition"] = {k: None if v is None else str(v) for k, v in self.partition.items()}
        out["indexes"] = list(self.indexes)
        return out


@dataclass
class Commit:
    """One commit between the two snapshots: what it added and removed, per partition and bucket."""

    snapshot_id: int
    commit_kind: str | None
    time: _dt.datetime | None
    added: list[FileFacts] = field(default_factory=list)
    removed: list[FileFacts] = field(default_factory=list)
    upgraded: list[tuple[FileFacts, int]] = field(default_factory=list)
    """Files moved to another level without rewriting: the file at its new level, and the old level."""
    problems: list[str] = field(default_factory=list)

    def groups(self) -> dict[tuple[str, int], tuple[list[FileFacts], list[FileFacts]]]:
        """Per (partition text, bucket): the files removed and the files added."""
        out: dict[tuple[str, int], tuple[list[FileFacts], list[FileFacts]]] = defaultdict(lambda: ([], []))
        for f in self.removed:
            out[(_partition_text(f.partition), f.bucket)][0].append(f)
        for f in self.added:
            out[(_partition_text(f.partition), f.bucket)][1].append(f)
        return dict(out)

    def describe(self) -> str:
        """One line: what the commit did."""
        verb = _KINDS.get(self.commit_kind or "", (self.commit_kind or "commit").lower())
        parts = [f"{verb} at snapshot {self.snapshot_id}"]
        if self.commit_kind == "COMPACT" and self.removed:
            parts.append(f"merged {len(self.removed)} files ({human_bytes(sum(f.file_size for f in self.removed))}) "
                         f"into {len(self.added)} ({human_bytes(sum(f.file_size for f in self.added))})")
        else:
            if self.added:
                parts.append(f"added {len(self.added)} files ({human_bytes(sum(f.file_size for f in self.added))})")
            if self.removed:
                parts.append(f"removed {len(self.removed)} ({human_bytes(sum(f.file_size for f in self.removed))})")
        if self.upgraded:
            parts.append(f"moved {len(self.upgraded)} files to another level")
        return " ".join(parts[:1]) + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"snapshot_id": self.snapshot_id, "commit_kind": self.commit_kind,
                "time": None if self.time is None else self.time.isoformat(), "description": self.describe(),
                "added": [f.to_dict() for f in self.added], "removed": [f.to_dict() for f in self.removed],
                "upgraded": [{**f.to_dict(), "from_level": lvl} for f, lvl in self.upgraded],
                "problems": list(self.problems)}


def _partition_text(partition: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in partition.items())


class _Walk:
    """Snapshot ``a`` whole, then each commit up to ``b`` from its delta manifests."""

    def __init__(self, table: SnapshotReader, a: int, b: int) -> None:
        self.timeline = _Timeline(table)
        self.problems: list[str] = []
        self.reader_a = table.at(a)
        self.reader_b = table.at(b)
        state = self.timeline.read_whole(self.reader_a, self.problems)
        self.at_a: dict[str, _File] = {f.name: f for f in state.files.values()}
        self.commits: list[Commit] = []
        self.partitions: dict[bytes, dict[str, Any]] = {}
        live = dict(state.files)
        walked = True
        ids = [i for i in table.snapshot_manager.list_ids() if a < i <= b]
        if ids != list(range(a + 1, b + 1)):
            walked = False
            self.problems.append(f"snapshots {a + 1}..{b} are not all kept: the commits between cannot be told apart")
        for sid in ids if walked else []:
            try:
                reader = table.at(sid)
                snap = reader.snapshot
                assert snap is not None
                commit = Commit(sid, snap.commit_kind,
                                _dt.datetime.fromtimestamp(snap.time_millis / 1000, tz=_dt.UTC))
                added: dict[str, tuple[_File, bytes]] = {}
                removed: dict[str, _File] = {}
                for e in reader.delta_entries():
                    key = e.identifier()
                    if e.kind == FILE_KIND_ADD:
                        f = self.timeline.file_facts(reader, e, commit.problems)
                        live[key] = f
                        added[f.name] = (f, e.partition)
                    elif key in live:
                        gone = live.pop(key)
                        removed[gone.name] = gone
                for name, (f, _) in added.items():
                    if name in removed:
                        commit.upgraded.append((self._facts(reader, f), removed[name].level))
                    else:
                        commit.added.append(self._facts(reader, f))
                commit.removed = [self._facts(reader, f) for n, f in removed.items() if n not in added]
                self.commits.append(commit)
            except (PaimonLensError, OSError) as e:
                self.problems.append(f"snapshot {sid}: {e}; the commits from there on cannot be told apart")
                walked = False
                break
        if not walked:  # the end state from snapshot b itself
            live = self.timeline.read_whole(self.reader_b, self.problems).files
        self.walked = walked
        self.at_b: dict[str, _File] = {f.name: f for f in live.values()}

    def _facts(self, reader: SnapshotReader, f: _File) -> FileFacts:
        partition = self.partitions.get(f.partition)
        if partition is None:
            partition = self.partitions[f.partition] = reader.decode_partition(f.partition, f"{f.name} _PARTITION")
        return FileFacts(f.name, dict(partition), f.bucket, f.level, f.size, f.rows, tuple(sorted(f.indexes)))

    def facts(self, name: str, at_b: bool) -> FileFacts:
        return self._facts(self.reader_b if at_b else self.reader_a, (self.at_b if at_b else self.at_a)[name])


@dataclass
class SnapshotDiff:
    """What changed from snapshot ``a`` to snapshot ``b`` (see the module docs)."""

    table: str
    a: int
    b: int
    added: list[FileFacts]
    removed: list[FileFacts]
    commits: list[Commit]
    index_coverage: dict[str, tuple[int, int]]
    """Per index label (configured at either snapshot, or found): files holding it at ``a`` and at ``b``."""
    index_bytes: tuple[int, int]
    deleted_rows: tuple[int, int]
    bucket_deleted_rows: dict[tuple[str, int], tuple[int, int]]
    """Per (partition, bucket) whose deleted rows changed: at ``a`` and at ``b``."""
    schema: dict[str, Any]
    options: dict[str, tuple[str | None, str | None]]
    """Options set, changed or removed: the value at ``a`` and at ``b`` (None: unset)."""
    files: tuple[int, int] = (0, 0)
    bytes: tuple[int, int] = (0, 0)
    problems: list[str] = field(default_factory=list)

    @property
    def compactions(self) -> list[Commit]:
        """The compaction commits in between."""
        return [c for c in self.commits if c.commit_kind == "COMPACT"]

    def summary(self) -> list[str]:
        """The changes in words, most telling first."""
        lines = [f"{self.files[0]} files ({human_bytes(self.bytes[0])}) at snapshot {self.a}, "
                 f"{self.files[1]} ({human_bytes(self.bytes[1])}) at snapshot {self.b}: "
                 f"{len(self.added)} added, {len(self.removed)} removed, {len(self.commits)} commits"]
        kinds: dict[str, int] = defaultdict(int)
        for c in self.commits:
            kinds[c.commit_kind or "?"] += 1
        if kinds:
            lines.append("commits: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
        for label, (x, y) in self.index_coverage.items():
            if (x, y) != self.files:  # not on every file at both snapshots
                lines.append(f"index {label}: {x} of {self.files[0]} files at snapshot {self.a}, "
                             f"{y} of {self.files[1]} at snapshot {self.b}")
        if self.deleted_rows != (0, 0):
            lines.append(f"deletion vectors: {self.deleted_rows[0]:,} deleted rows at snapshot {self.a}, "
                         f"{self.deleted_rows[1]:,} at snapshot {self.b}")
        for kind in ("added", "dropped", "renamed", "retyped"):
            for item in self.schema.get(kind, []):
                lines.append(f"schema: column {item} {kind}")
        for key, (old, new) in self.options.items():
            lines.append(f"option {key}: {old if old is not None else '(unset)'} -> "
                         f"{new if new is not None else '(unset)'}")
        return lines

    def file_records(self) -> list[dict[str, Any]]:
        """One record per file added or removed: the change, the file's facts (partition values as
        the manifests hold them, Paimon's internal values) and the commit that made it."""
        by: dict[str, Commit] = {}
        for c in self.commits:
            for f in c.added + c.removed:
                by.setdefault(f.file_name, c)
        rows = []
        for change, files in (("added", self.added), ("removed", self.removed)):
            for f in files:
                commit = by.get(f.file_name)
                rows.append({"change": change, "file_name": f.file_name, "partition": f.partition, "bucket": f.bucket,
                             "level": f.level, "file_size": f.file_size, "row_count": f.row_count,
                             "indexes": list(f.indexes), "snapshot_id": None if commit is None else commit.snapshot_id,
                             "commit_kind": None if commit is None else commit.commit_kind})
        return rows

    def frame(self) -> pd.DataFrame:
        """One row per file added or removed (:meth:`file_records`; columns:
        :data:`~paimon_lens.presentation.frame_columns.DIFF_COLUMNS`)."""
        return cast("pd.DataFrame", render(self, "frame"))

    def to_dict(self) -> dict[str, Any]:
        """The ``diff --format json`` document."""
        return {
            "table": self.table, "a": self.a, "b": self.b, "files": list(self.files), "bytes": list(self.bytes),
            "added": [f.to_dict() for f in self.added], "removed": [f.to_dict() for f in self.removed],
            "commits": [c.to_dict() for c in self.commits],
            "index_coverage": {k: list(v) for k, v in self.index_coverage.items()},
            "index_bytes": list(self.index_bytes), "deleted_rows": list(self.deleted_rows),
            "bucket_deleted_rows": [{"partition": p, "bucket": b, "a": x, "b": y}
                                    for (p, b), (x, y) in self.bucket_deleted_rows.items()],
            "schema": self.schema, "options": {k: list(v) for k, v in self.options.items()},
            "summary": self.summary(), "problems": list(self.problems),
        }


def _schema_changes(a: SnapshotReader, b: SnapshotReader) -> dict[str, Any]:
    fa = {f.id: f for f in a.schema.fields}
    fb = {f.id: f for f in b.schema.fields}
    return {
        "schema_ids": [a.schema.id, b.schema.id],
        "added": [f.name for i, f in fb.items() if i not in fa],
        "dropped": [f.name for i, f in fa.items() if i not in fb],
        "renamed": [f"{fa[i].name} -> {f.name}" for i, f in fb.items() if i in fa and fa[i].name != f.name],
        "retyped": [f"{f.name}: {fa[i].type} -> {f.type}" for i, f in fb.items()
                    if i in fa and str(fa[i].type) != str(f.type)],
    }


def _deleted_by_bucket(reader: SnapshotReader, live: dict[str, _File],
                       problems: list[str]) -> dict[tuple[str, int], int]:
    """Deleted rows per (partition, bucket) of the live files; a vector that does not decode is a
    problem (its rows are not counted)."""
    from ..inventory.deletion_vectors import deletion_vector_infos

    out: dict[tuple[str, int], int] = defaultdict(int)
    for dv in deletion_vector_infos(reader):
        if dv.error is not None and dv.data_file in live:
            problems.append(f"snapshot {reader.snapshot_id}: deletion vector of {dv.data_file}: {dv.error}")
        elif dv.cardinality and dv.data_file in live:
            out[(_partition_text(dv.partition), dv.bucket)] += dv.cardinality
    return dict(out)


def diff(table: SnapshotReader, a: int, b: int) -> SnapshotDiff:
    """What changed from snapshot ``a`` to snapshot ``b`` (``a`` < ``b``; see the module docs)."""
    if a > b:
        raise PaimonLensError(f"diff from snapshot {a} to {b}: the first must be the older")
    walk = _Walk(table, a, b)
    ra, rb = walk.reader_a, walk.reader_b
    added = [walk.facts(n, True) for n in walk.at_b if n not in walk.at_a]
    removed = [walk.facts(n, False) for n in walk.at_a if n not in walk.at_b]
    labels = list(dict.fromkeys(configured_indexes(ra.schema.options) + configured_indexes(rb.schema.options)
                                + sorted({x for f in [*walk.at_a.values(), *walk.at_b.values()] for x in f.indexes})))
    coverage = {label: (sum(1 for f in walk.at_a.values() if label in f.indexes),
                        sum(1 for f in walk.at_b.values() if label in f.indexes)) for label in labels}
    problems = list(walk.problems)
    try:
        da, db = _deleted_by_bucket(ra, walk.at_a, problems), _deleted_by_bucket(rb, walk.at_b, problems)
    except (PaimonLensError, OSError) as e:
        problems.append(f"deletion vectors: {e}")
        da = db = {}
    buckets = {k: (da.get(k, 0), db.get(k, 0)) for k in sorted(da.keys() | db.keys()) if da.get(k, 0) != db.get(k, 0)}
    oa, ob = ra.schema.options, rb.schema.options
    options = {k: (oa.get(k), ob.get(k)) for k in sorted(oa.keys() | ob.keys()) if oa.get(k) != ob.get(k)}
    for c in walk.commits:
        problems += [f"snapshot {c.snapshot_id}: {p}" for p in c.problems]
    return SnapshotDiff(
        table.name, a, b, added, removed, walk.commits, coverage,
        (sum(f.index_bytes for f in walk.at_a.values()), sum(f.index_bytes for f in walk.at_b.values())),
        (sum(da.values()), sum(db.values())), buckets, _schema_changes(ra, rb), options,
        (len(walk.at_a), len(walk.at_b)),
        (sum(f.size for f in walk.at_a.values()), sum(f.size for f in walk.at_b.values())), problems)


# ---- a query at two snapshots -----------------------------------------------------------------

@dataclass
class Cause:
    """One reason the bytes a query reads changed between the snapshots."""

    kind: str
    """``append``, ``compaction``, ``overwrite``, ``commit`` (another kind) or ``verdict`` (files live
    at both snapshots that one reads and the other skips)."""
    text: str
    read_bytes_delta: int
    read_files_delta: int
    snapshot_id: int | None = None
    commit_kind: str | None = None
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return dict(self.__dict__)


@dataclass
class ExplainDiff:
    """One predicate explained at snapshots ``a`` and ``b``, and why what it reads changed."""

    where: str
    a: Any
    b: Any
    causes: list[Cause]
    problems: list[str] = field(default_factory=list)

    @property
    def read_bytes_delta(self) -> int:
        """Bytes read at ``b`` minus bytes read at ``a``."""
        return int(self.b.summary()["read_bytes"] - self.a.summary()["read_bytes"])

    def lines(self) -> list[str]:
        """The comparison in words: both snapshots, then each cause, the largest first."""
        sa, sb = self.a.summary(), self.b.summary()
        sign = "+" if self.read_bytes_delta >= 0 else "-"
        out = [f"snapshot {self.a.snapshot_id}: reads {sa['read_files']} of {sa['files']} files "
               f"({human_bytes(sa['read_bytes'])})",
               f"snapshot {self.b.snapshot_id}: reads {sb['read_files']} of {sb['files']} files "
               f"({human_bytes(sb['read_bytes'])}), {sign}{human_bytes(abs(self.read_bytes_delta))}"]
        out += [c.text for c in self.causes]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``explain --compare --format json`` document."""
        def side(r: Any) -> dict[str, Any]:
            s = r.summary()
            return {"snapshot_id": r.snapshot_id, **{k: s[k] for k in (
                "files", "bytes", "planned_files", "planned_bytes", "read_files", "read_bytes", "rows_after_dv")}}

        return {"where": self.where, "a": side(self.a), "b": side(self.b),
                "read_bytes_delta": self.read_bytes_delta,
                "read_files_delta": self.b.summary()["read_files"] - self.a.summary()["read_files"],
                "causes": [c.to_dict() for c in self.causes], "lines": self.lines(),
                "problems": list(self.problems)}

    def _repr_html_(self) -> str | None:
        return render_html(self)


def _columns_of(predicate: Any, reader: SnapshotReader) -> list[str]:
    from ..predicate.model import leaves

    fields = reader.schema.fields
    return list(dict.fromkeys(fields[leaf.index].name for leaf in leaves(predicate) if leaf.index < len(fields)))


def _missing(files: Sequence[FileFacts], wanted: list[str]) -> str:
    """``" (3 without a bitmap index on `status`)"``: the predicate's indexes the files lack."""
    parts = []
    for label in wanted:
        lacking = sum(1 for f in files if label not in f.indexes)
        if lacking:
            kind, column = label.split("(", 1)
            parts.append(f"{lacking} without a {kind} index on `{column[:-1]}`")
    return f" ({', '.join(parts)})" if parts else ""


def _lost(inputs: Sequence[FileFacts], outputs: Sequence[FileFacts], columns: list[str]) -> str:
    """``" without the bitmap index on `status` that 12 of the merged files had"``: indexes on the
    predicate's columns that a compaction's inputs had and its outputs lack."""
    parts = []
    for label in sorted({x for f in inputs for x in f.indexes}):
        kind, _, rest = label.partition("(")
        column = rest[:-1]
        if column not in columns:
            continue
        had = sum(1 for f in inputs if label in f.indexes)
        lacking = sum(1 for f in outputs if label not in f.indexes)
        if lacking:
            parts.append(f"{lacking} without the {kind} index on `{column}` that {had} of the merged files had")
    return f" ({'; '.join(parts)})" if parts else ""


def explain_diff(table: SnapshotReader, where: str, a: int, b: int, *, explain: Any = None,
                 engine: Engine | None = None, rules: PaimonRules | None = None) -> ExplainDiff:
    """``where`` explained at snapshots ``a`` and ``b``, the difference in bytes read split into
    causes (see the module docs); ``explain(reader, where)`` explains one snapshot (default:
    Paimon's plan with ``rules`` on ``engine``)."""
    result = explain_diffs(table, [where], a, b, explain=explain, engine=engine, rules=rules)[0]
    if isinstance(result, PaimonLensError):
        raise result
    return result


def explain_diffs(table: SnapshotReader, wheres: Sequence[str], a: int, b: int, *, explain: Any = None,
                  engine: Engine | None = None,
                  rules: PaimonRules | None = None) -> list[ExplainDiff | PaimonLensError]:
    """:func:`explain_diff` of each predicate over one walk of the commits between; a predicate that
    cannot be explained at one of the snapshots gives its error (naming the snapshot) in its place."""
    if a > b:
        raise PaimonLensError(f"compare snapshot {a} with {b}: the first must be the older")
    walk = _Walk(table, a, b)
    def plan(reader: SnapshotReader, text: str) -> Any:
        from ..pruning.run import explain_many

        return explain_many(reader, [text], engine=engine, rules=rules)[0]

    run = explain or plan
    out: list[ExplainDiff | PaimonLensError] = []
    for where in wheres:
        reports = []
        try:
            for sid, reader in ((a, walk.reader_a), (b, walk.reader_b)):
                try:
                    reports.append(run(reader, where))
                except PaimonLensError as e:
                    raise PaimonLensError(f"at snapshot {sid} (schema {reader.schema.id}): {e}") from None
        except PaimonLensError as e:
            out.append(e)
            continue
        out.append(_causes(walk, where, reports[0], reports[1], a, b))
    return out


def _causes(walk: _Walk, where: str, ra: Any, rb: Any, a: int, b: int) -> ExplainDiff:
    read_a = {f.file_name: f for f in ra.files if f.read}
    read_b = {f.file_name: f for f in rb.files if f.read}
    columns = _columns_of(rb.predicate, walk.reader_b)
    wanted = [label for label in configured_indexes(walk.reader_b.schema.options) + configured_indexes(
        walk.reader_a.schema.options) if label.split("(", 1)[1][:-1] in columns]
    wanted = list(dict.fromkeys(wanted))
    causes: list[Cause] = []
    for c in walk.commits:
        new = [f for f in c.added if f.file_name in walk.at_b]
        gone = [f for f in c.removed if f.file_name in walk.at_a]
        read_new = [f for f in new if f.file_name in read_b]
        read_gone = [f for f in gone if f.file_name in read_a]
        delta = sum(f.file_size for f in read_new) - sum(f.file_size for f in read_gone)
        if not read_new and not read_gone:
            continue
        kind = _KINDS.get(c.commit_kind or "", "commit")
        sign = "+" if delta >= 0 else "-"
        if kind == "compaction":
            indexed = sum(1 for f in c.removed if f.indexes)
            lost = _lost(c.removed, c.added, columns)
            before = f"; {len(gone)} of them live at snapshot {a}, {len(read_gone)} read there" if gone else ""
            text = (f"compaction at snapshot {c.snapshot_id} merged {len(c.removed)} files ({indexed} indexed{before}) "
                    f"into {len(c.added)}{lost or _missing(c.added, wanted)}, {len(read_new)} read at snapshot {b}")
        elif kind == "append":
            text = (f"append at snapshot {c.snapshot_id}: {len(read_new)} of its {len(new)} files read"
                    f"{_missing(read_new, wanted)}")
        else:
            text = (f"{kind} at snapshot {c.snapshot_id}: replaced {len(gone)} files "
                    f"({len(read_gone)} read at snapshot {a}) with {len(new)}{_missing(new, wanted)}, "
                    f"{len(read_new)} read at snapshot {b}")
        causes.append(Cause(kind, f"{text}: {sign}{human_bytes(abs(delta))} read", delta,
                            len(read_new) - len(read_gone), c.snapshot_id, c.commit_kind,
                            [f.file_name for f in read_new + read_gone]))
    # files live at both snapshots whose verdict changed (and, when the walk failed, all the rest)
    changed: dict[str, list[tuple[str, int]]] = defaultdict(list)
    attributed = {n for c in causes for n in c.files}
    for name in set(read_a) | set(read_b):
        if name in attributed:
            continue
        if name in walk.at_a and name in walk.at_b:
            was, now = read_a.get(name), read_b.get(name)
            if (was is None) == (now is None):
                continue
            verdict_a = "read" if was is not None else next(f.stage for f in ra.files if f.file_name == name)
            verdict_b = "read" if now is not None else next(f.stage for f in rb.files if f.file_name == name)
            size = (now or was).file_size  # type: ignore[union-attr]
            changed[f"{verdict_a} -> {verdict_b}"].append((name, size if now is not None else -size))
        else:  # the walk could not tie it to a commit
            f = read_b.get(name) or read_a[name]
            size = f.file_size if name in read_b else -f.file_size
            changed["added or removed by an unread commit"].append((name, size))
    for how, items in sorted(changed.items()):
        delta = sum(d for _, d in items)
        sign = "+" if delta >= 0 else "-"
        if "->" in how:
            stage_a, stage_b = how.split(" -> ")
            said = (f"{len(items)} files live at both snapshots: "
                    f"{'read' if stage_a == 'read' else 'skipped by ' + stage_a} at {a}, "
                    f"{'read' if stage_b == 'read' else 'skipped by ' + stage_b} at {b}")
        else:
            said = f"{len(items)} files {how}"
        causes.append(Cause("verdict" if "->" in how else "unknown", f"{said}: {sign}{human_bytes(abs(delta))} read",
                            delta, sum(1 if d > 0 else -1 for _, d in items), files=[n for n, _ in items]))
    causes.sort(key=lambda c: -abs(c.read_bytes_delta))
    return ExplainDiff(where, ra, rb, causes, list(walk.problems))
