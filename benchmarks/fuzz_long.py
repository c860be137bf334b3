"""Long mutation-fuzzing run: the blob cases of ``tests/test_fuzz.py`` and the whole-table cases of
``tests/test_fuzz_tables.py``, many more mutations than the tests make.

Run from the repository root::

    python -m benchmarks.fuzz_long --mutations 100000              # ~80% table, ~20% blob mutations
    python -m benchmarks.fuzz_long --mutations 20000 --jobs 2      # two worker processes
    python -m benchmarks.fuzz_long --only events20/ --mutations 2000
    python -m benchmarks.fuzz_long --repro 'events20/manifest#17'  # one mutation again, full traceback

Every mutation is seeded from ``"<case id>:<iteration>"`` alone (table cases use the same seeds as
the test, which runs iterations ``0 .. PAIMON_LENS_FUZZ_TABLES-1``), so a bug is reproduced by its
id ``<case>#<iteration>``. A blob case id is ``blob:<kind>:<fixture path>`` (its mutations are
seeded per iteration, so they differ from the stream ``tests/test_fuzz.py`` draws).

Outcome of one mutation: ``answer`` (every call returned), ``typed error`` (a
:class:`~paimon_lens.errors.PaimonLensError`) or ``bug`` (any other exception, or a call longer
than ``--seconds``). Bugs are deduplicated by exception type and innermost paimon-lens frame; each
distinct one is printed with its id and traceback tail and saved under ``--out`` (default
``/tmp/fuzzcrash``) as ``<n>/``: the mutated file(s), ``info.txt`` and a ``repro.py`` that
copies the fixture table, applies the files and makes the failing call.

The summary is a markdown table: cases, mutations, answers, typed errors, bugs, seconds. ``--write``
records it in ``benchmarks/results_fuzz.md`` and as the benchmark's section of
``benchmarks/RESULTS.md`` (:func:`records`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import records as rec

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results_fuzz.md"
SUMMARY = ("Mutation fuzzing of every decoder and metadata reader: the blob cases of `tests/test_fuzz.py` and the "
           "whole-table cases of `tests/test_fuzz_tables.py`, each mutation ending in an answer, a typed error "
           "(`PaimonLensError`) or a bug (any other exception, a call over the time limit, a worker that died).")


# ---- cases ---------------------------------------------------------------------------------------------

def _blob_cases() -> dict[str, tuple[str, Path, Any]]:
    from tests.conftest import FIXTURES
    from tests.test_fuzz import CASES

    out: dict[str, tuple[str, Path, Any]] = {}
    for kind, path, decode in CASES:
        cid = f"blob:{kind}:{path.relative_to(FIXTURES)}"
        while cid in out:  # the same file reached twice (e.g. an .index file of two oracles)
            cid += "+"
        out[cid] = (kind, path, decode)
    return out


def _table_cases() -> dict[str, Any]:
    from tests.test_fuzz_tables import CASES

    return {c.id: c for c in CASES}


@dataclass
class Stats:
    """Counts of one case (or of a group of cases)."""

    cases: int = 0
    mutations: int = 0
    answers: int = 0
    typed: int = 0
    bugs: int = 0
    seconds: float = 0.0

    def add(self, other: Stats) -> None:
        for name in ("cases", "mutations", "answers", "typed", "bugs", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class CaseResult:
    case: str
    group: str  # "blob" | "table"
    stats: Stats
    bugs: list[Any] = field(default_factory=list)  # tests.test_fuzz_tables.Bug
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)  # repro id -> {rel: bytes | None | "dir"}
    table: str | None = None


def records(blob: Stats, table: Stats, wall: float, jobs: int, dead: int, limit: float) -> list[rec.Record]:
    """The RESULTS.md rows: the blob and the table cases, then every case with the workers that died."""
    def row(name: str, st: Stats) -> rec.Record:
        return rec.Record(f"{name}: no bug (every mutation an answer or a typed error within {limit:g} s)",
                          f"{st.cases} cases, {st.mutations:,} mutations: {st.answers:,} answers, {st.typed:,} typed "
                          f"errors, {st.bugs} bugs; {st.seconds:.1f} s (cpu)", None, rec.verdict(st.bugs == 0))

    bugs = blob.bugs + table.bugs + dead
    return [row("blob cases (tests/test_fuzz.py)", blob), row("table cases (tests/test_fuzz_tables.py)", table),
            rec.Record("every case: no bug, no worker died (native crash or OOM kill)",
                       f"{blob.cases + table.cases} cases, {blob.mutations + table.mutations:,} mutations, "
                       f"{bugs} bugs, {dead} workers died; wall {wall:.1f} s with {jobs} job(s)", None,
                       rec.verdict(bugs == 0))]


# ---- running one case ----------------------------------------------------------------------------------

def _blob_iteration(cid: str, i: int, data: bytes, decode: Any, seconds: float) -> tuple[str, Any, bytes]:
    """(outcome, bug or None, mutated bytes) of iteration ``i`` of blob case ``cid``."""
    from paimon_lens.errors import PaimonLensError
    from tests.test_fuzz import mutate
    from tests.test_fuzz_tables import Bug, Hang, _innermost_lens_frame, traceback_tail, watchdog

    bad = mutate(data, random.Random(f"{cid}:{i}"))
    start = time.perf_counter()
    err: BaseException | None = None
    try:
        with watchdog(seconds):
            decode(bad)
    except PaimonLensError:
        return "typed", None, bad
    except (Exception, Hang) as e:
        err = e
    took = time.perf_counter() - start
    if err is None and took > seconds:
        err = Hang(f"decode took {took:.1f}s (limit {seconds:g}s)")
    if err is None:
        return "answer", None, bad
    kind = cid.split(":", 2)[1]
    return "bug", Bug(cid, i, cid.split(":", 2)[2], f"bytes ({kind} decoder)", "decode", type(err).__name__,
                      str(err), _innermost_lens_frame(err.__traceback__), traceback_tail(err)), bad


#: where each worker writes the id of the mutation it is about to run (``<pid>``): a worker that dies
#: in native code (a segfault, the kernel's OOM killer) leaves the id that killed it there
BREADCRUMBS = Path(tempfile.gettempdir()) / "paimon-lens-fuzz-breadcrumbs"


def _breadcrumb(cid: str, i: int) -> None:
    (BREADCRUMBS / str(os.getpid())).write_text(f"{cid}#{i}\n")


def _dead_workers() -> list[str]:
    """The mutation ids the workers were running when they died (read after a broken pool)."""
    out = []
    for f in sorted(BREADCRUMBS.glob("*")):
        try:
            os.kill(int(f.name), 0)
        except (ProcessLookupError, ValueError):
            out.append(f.read_text().strip())
    return out


def run_case(cid: str, n: int, start: int, seconds: float) -> CaseResult:
    """Iterations ``start .. start+n-1`` of case ``cid``."""
    t0 = time.perf_counter()
    if cid.startswith("blob:"):
        _, path, decode = _blob_cases()[cid]
        data = path.read_bytes()
        stats = Stats(cases=1)
        result = CaseResult(cid, "blob", stats)
        seen: set[tuple[str, str]] = set()
        for i in range(start, start + n):
            _breadcrumb(cid, i)
            outcome, bug, bad = _blob_iteration(cid, i, data, decode, seconds)
            stats.mutations += 1
            if outcome == "answer":
                stats.answers += 1
            elif outcome == "typed":
                stats.typed += 1
            else:
                stats.bugs += 1
                result.bugs.append(bug)
                if bug.key not in seen:
                    seen.add(bug.key)
                    result.changes[bug.repro_id] = {path.name: bad}
        stats.seconds = time.perf_counter() - t0
        return result

    from tests.test_fuzz_tables import Sandbox, make_mutation, run_iteration

    case = _table_cases()[cid]
    stats = Stats(cases=1)
    result = CaseResult(cid, "table", stats, table=case.table.name)
    seen = set()
    with tempfile.TemporaryDirectory(prefix="paimon-lens-fuzz-long-") as tmp:
        sandbox = Sandbox(case.table, Path(tmp))
        for i in range(start, start + n):
            _breadcrumb(cid, i)
            out = run_iteration(case, i, sandbox, seconds)
            stats.mutations += 1
            if out.result == "answer":
                stats.answers += 1
            elif out.result == "typed":
                stats.typed += 1
            else:
                stats.bugs += 1
                result.bugs.extend(out.bugs)
                new = [b for b in out.bugs if b.key not in seen]
                if new:
                    seen.update(b.key for b in new)
                    m = make_mutation(case, i, sandbox)
                    result.changes[out.bugs[0].repro_id] = {
                        rel: ("dir" if not isinstance(c, bytes) and c is not None else c)
                        for rel, c in m.changes.items()}
    stats.seconds = time.perf_counter() - t0
    return result


# ---- reproducers -----------------------------------------------------------------------------------------

_STEP_CODE = {
    "open_table": "pass",
    "snapshots": "t.snapshots()",
    "schemas": "t.schemas()",
    "manifests": "t.manifests()",
    "files": "t.files()",
    "index_manifest": "t.index_manifest()",
    "file_indexes": "t.file_indexes()",
    "deletion_vectors": "t.deletion_vectors()",
    "hash_index": "t.hash_index()",
    "_repr_html_": "t._repr_html_()",
}


def _step_code(step: str) -> str:
    if step.startswith("explain("):
        where = step[len("explain("):].rsplit(", truth=True)", 1)[0]
        return (f"r = t.explain({where}, truth=True)\nr.summary()\n"
                "json.dumps(r.to_dict(positions=True), default=str)\nr.to_frame()\nrepr(r)\nr._repr_html_()")
    return _STEP_CODE.get(step, f"# step {step}")


def save_repro(out_dir: Path, n: int, bug: Any, changes: dict[str, Any], repo: str, table: str | None) -> Path:
    """``out_dir/<n>/``: the mutated file(s), info.txt and repro.py for one distinct bug."""
    d = out_dir / str(n)
    if d.exists():
        import shutil

        shutil.rmtree(d)
    (d / "files").mkdir(parents=True)
    listing = []
    for rel, content in changes.items():
        if isinstance(content, bytes):
            dest = d / "files" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(content)
            listing.append((rel, "bytes"))
        else:
            listing.append((rel, "deleted" if content is None else "dir"))
    (d / "info.txt").write_text(
        f"id: {bug.repro_id}\nexception: {bug.exc_type}: {bug.message}\nframe: {bug.frame}\nstep: {bug.step}\n"
        f"mutated: {bug.target}\nmutation: {bug.mutation}\nfiles: {listing}\n\n{bug.tb_tail}")
    if table is None:  # a blob case
        name = next(iter(changes))
        code = f'''"""Reproduce {bug.repro_id}: {bug.exc_type} at {bug.frame}."""
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("PAIMON_LENS_REPO", {repo!r}))
from tests.test_fuzz import CASES  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402

kind, rel = {bug.case.split(":", 2)[1]!r}, {bug.case.split(":", 2)[2].rstrip("+")!r}
decode = next(d for k, p, d in CASES if k == kind and p == FIXTURES / rel)
decode((Path(__file__).parent / "files" / {name!r}).read_bytes())
print("no bug: the decode returned")
'''
    else:
        code = f'''"""Reproduce {bug.repro_id}: {bug.exc_type} at {bug.frame}.

Copies fixture table {table!r} to a temporary directory, applies the mutated file(s) in files/
(and deletions), then makes the failing call. Run from anywhere; PAIMON_LENS_REPO selects the checkout.
"""
import json  # noqa: F401
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.environ.get("PAIMON_LENS_REPO", {repo!r}))
from paimon_lens import open_table  # noqa: E402
from tests.test_fuzz_tables import FUZZ_TABLES  # noqa: E402

HERE = Path(__file__).parent
CHANGES = {listing!r}
table = FUZZ_TABLES[{table!r}].copy_to(Path(tempfile.mkdtemp()) / {table!r})
for rel, what in CHANGES:
    p = table / rel
    p.unlink()
    if what == "bytes":
        shutil.copyfile(HERE / "files" / rel, p)
    elif what == "dir":
        p.mkdir()
print("table:", table)
t = open_table(str(table))
{_step_code(bug.step)}
print("no bug: the call returned")
'''
    (d / "repro.py").write_text(code)
    return d


# ---- main --------------------------------------------------------------------------------------------

def _set_memory_limit(gb: float) -> None:
    if gb <= 0:
        return
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        limit = int(gb * (1 << 30))
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _worker_init(gb: float) -> None:
    import warnings

    BREADCRUMBS.mkdir(exist_ok=True)
    warnings.simplefilter("ignore")  # pandas/pyarrow warnings about odd values are not what is counted
    _set_memory_limit(gb)
    os.chdir(ROOT)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _plan(args: argparse.Namespace) -> list[tuple[str, int]]:
    blob = sorted(_blob_cases())
    table = sorted(_table_cases())
    if args.only:
        blob = [c for c in blob if any(o in c for o in args.only)]
        table = [c for c in table if any(o in c for o in args.only)]
    share = args.blob_share if blob and table else (1.0 if blob else 0.0)
    n_blob = round(args.mutations * share)
    n_table = args.mutations - n_blob
    plan: list[tuple[str, int]] = []
    for cases, total in ((table, n_table), (blob, n_blob)):
        for k, cid in enumerate(cases):
            n = total // len(cases) + (1 if k < total % len(cases) else 0) if cases else 0
            if n:
                plan.append((cid, n))
    return plan


def _chunks(plan: list[tuple[str, int]]) -> Iterator[tuple[str, int, int]]:
    """(case, count, start) pieces of about a second each, so that workers stay busy and a time limit
    still lets every case run a little."""
    for cid, n in plan:
        size = 400 if cid.startswith("blob:") else 40
        for s in range(0, n, size):
            yield cid, min(size, n - s), s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--mutations", type=int, default=20000, help="total mutations (default 20000)")
    ap.add_argument("--blob-share", type=float, default=0.2,
                    help="share of the mutations for the blob cases of tests/test_fuzz.py (default 0.2)")
    ap.add_argument("--only", action="append", help="run only cases whose id contains this (repeatable)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--seconds", type=float, default=5.0, help="longest call before it counts as a hang")
    ap.add_argument("--memory-gb", type=float, default=6.0,
                    help="address-space limit per process, so a huge allocation is a MemoryError (0: none)")
    ap.add_argument("--out", default="/tmp/fuzzcrash", help="where reproducers go (default /tmp/fuzzcrash)")
    ap.add_argument("--repro-repo", default=str(ROOT), help="checkout the saved repro.py scripts import")
    ap.add_argument("--time-limit", type=float, default=0, help="stop starting new work after this many seconds")
    ap.add_argument("--repro", help="run one mutation '<case>#<iteration>' and print its outcome")
    ap.add_argument("--write", action="store_true", help="write the summary to benchmarks/results_fuzz.md")
    args = ap.parse_args(argv)
    _worker_init(args.memory_gb)

    if args.repro:
        cid, _, it = args.repro.rpartition("#")
        r = run_case(cid, 1, int(it), args.seconds)
        print(f"{args.repro}: answers {r.stats.answers}, typed errors {r.stats.typed}, bugs {r.stats.bugs}")
        for b in r.bugs:
            print(f"\n{b.describe()}")
        return 1 if r.bugs else 0

    commit = rec.git_commit() if args.write else ""  # before the run: the code the numbers belong to
    plan = _plan(args)
    total = sum(n for _, n in plan)
    print(f"fuzz_long: {len(plan)} cases, {total} mutations, {args.jobs} job(s), python {sys.version.split()[0]}",
          flush=True)
    started = time.perf_counter()
    results: list[CaseResult] = []
    done = 0
    last_print = started
    pieces = sorted(_chunks(plan), key=lambda p: (p[2], p[0]))  # interleaved: first pieces of every case first

    printed: set[Any] = set()

    def report(r: CaseResult) -> None:
        nonlocal done, last_print
        results.append(r)
        done += r.stats.mutations
        for b in r.bugs:  # each new kind of bug at once: a later crash of the run cannot lose it
            if b.key not in printed:
                printed.add(b.key)
                print(f"  new bug {b.repro_id}: {b.exc_type} at {b.frame}: {str(b.message)[:200]}", flush=True)
        now = time.perf_counter()
        if now - last_print > 20 or done == total:
            bugs = sum(x.stats.bugs for x in results)
            print(f"  {done}/{total} mutations, {bugs} bug(s), {now - started:.0f}s", flush=True)
            last_print = now

    shutil.rmtree(BREADCRUMBS, ignore_errors=True)  # only this run's workers leave breadcrumbs
    BREADCRUMBS.mkdir()
    dead: list[str] = []  # mutation ids a worker died running
    if args.jobs <= 1:
        for cid, n, s in pieces:
            if args.time_limit and time.perf_counter() - started > args.time_limit:
                break
            report(run_case(cid, n, s, args.seconds))
    else:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        # workers are replaced every few pieces: what a long-lived worker accumulates over tens of
        # thousands of table copies (the harness's, not a table reader's) stays under the memory limit
        with ProcessPoolExecutor(args.jobs, mp_context=ctx, initializer=_worker_init,
                                 initargs=(args.memory_gb,), max_tasks_per_child=4) as pool:
            futures = {}
            it = iter(pieces)
            for piece in it:  # keep 2 pieces per worker queued
                futures[pool.submit(run_case, *piece, args.seconds)] = piece
                if len(futures) >= 2 * args.jobs:
                    break
            while futures:
                fut = next(as_completed(futures))
                futures.pop(fut)
                try:
                    report(fut.result())
                except Exception as e:  # a worker died (e.g. killed): say so, go on
                    print(f"  worker failed on {fut}: {type(e).__name__}: {e}", flush=True)
                    dead.extend(_dead_workers())
                    for rid in dead[-2:]:
                        print(f"  BUG: a worker died running {rid} (native crash or OOM kill); replay it "
                              f"with --repro '{rid}'", flush=True)
                if not (args.time_limit and time.perf_counter() - started > args.time_limit):
                    for piece in it:
                        futures[pool.submit(run_case, *piece, args.seconds)] = piece
                        break
    elapsed = time.perf_counter() - started

    # ---- summary
    groups = {"blob": Stats(), "table": Stats()}
    per_case: dict[str, Stats] = {}
    for r in results:
        per_case.setdefault(r.case, Stats()).add(r.stats)
        groups[r.group].add(r.stats)
    for g, st in groups.items():
        st.cases = len({r.case for r in results if r.group == g})
    all_stats = Stats()
    for st in groups.values():
        all_stats.add(st)
    all_stats.seconds = elapsed
    lines = ["| cases | count | mutations | answers | typed errors | bugs | seconds (cpu) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for g, st in (("blob (tests/test_fuzz.py)", groups["blob"]), ("table (tests/test_fuzz_tables.py)",
                                                                   groups["table"])):
        lines.append(f"| {g} | {st.cases} | {st.mutations} | {st.answers} | {st.typed} | {st.bugs} | "
                     f"{st.seconds:.1f} |")
    lines.append(f"| **total** (wall {elapsed:.1f}s, {args.jobs} job(s)) | {all_stats.cases} | {all_stats.mutations} | "
                 f"{all_stats.answers} | {all_stats.typed} | {all_stats.bugs + len(dead)} | "
                 f"{groups['blob'].seconds + groups['table'].seconds:.1f} |")
    print("\n" + "\n".join(lines))
    for rid in dead:
        print(f"worker died running {rid}: replay with --repro '{rid}'")
    if args.write:
        RESULTS.write_text(
            "# Fuzzing: every decoder and metadata reader\n\n"
            f"Regenerate with `python -m benchmarks.fuzz_long --mutations {args.mutations} --jobs {args.jobs} "
            "--write` (see its module docstring). Outcomes: an answer, a typed error (`PaimonLensError`) or a "
            "bug (anything else, a call over the time limit, a worker that died).\n\n" + "\n".join(lines) + "\n\n"
            + (f"{all_stats.bugs + len(dead)} bug(s).\n" if all_stats.bugs or dead else "No bugs.\n"),
            encoding="utf-8")
        rec.update_results("fuzz_long", rec.command_line("fuzz_long", argv, drop=("--out", "--repro-repo")),
                           records(groups["blob"], groups["table"], elapsed, args.jobs, len(dead), args.seconds),
                           summary=SUMMARY, machine=rec.machine_facts(()), commit=commit, details=RESULTS.name)

    # ---- distinct bugs
    bugs: dict[tuple[str, str], list[Any]] = {}
    changes: dict[str, dict[str, Any]] = {}
    tables: dict[str, str | None] = {}
    for r in sorted(results, key=lambda r: (r.case, min((b.iteration for b in r.bugs), default=0))):
        changes.update(r.changes)
        for b in r.bugs:
            bugs.setdefault(b.key, []).append(b)
            tables[b.repro_id] = r.table
    if not bugs:
        print("\nno bugs" if not dead else "")
        return 1 if dead else 0
    out_dir = Path(args.out)
    print(f"\n{len(bugs)} distinct bug(s) (exception type x innermost paimon_lens frame); reproducers in {out_dir}/:\n")
    print("| # | exception | frame | kinds mutated | calls | first id |")
    print("| ---: | --- | --- | --- | ---: | --- |")
    ordered = sorted(bugs.values(), key=lambda bs: -len(bs))
    for n, bs in enumerate(ordered, 1):
        kinds = Counter(b.case.split("/", 1)[-1] if not b.case.startswith("blob:") else b.case.split(":")[1]
                        for b in bs)
        first = next((b for b in bs if b.repro_id in changes), bs[0])
        print(f"| {n} | {first.exc_type} | {first.frame} | {', '.join(k for k, _ in kinds.most_common())} | "
              f"{len(bs)} | `{first.repro_id}` |")
    for n, bs in enumerate(ordered, 1):
        first = next((b for b in bs if b.repro_id in changes), bs[0])
        saved = ""
        if first.repro_id in changes:
            d = save_repro(out_dir, n, first, changes[first.repro_id], args.repro_repo, tables.get(first.repro_id))
            saved = f"  saved: {d}/repro.py\n"
        print(f"\n--- bug {n}: {len(bs)} call(s), e.g. {', '.join(sorted({b.repro_id for b in bs})[:5])}\n{saved}"
              f"{first.describe()}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
