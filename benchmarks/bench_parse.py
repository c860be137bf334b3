"""Benchmark: parsing large and deep WHERE conditions (``paimon_lens.predicate.parse_where``).

Run from the repository root::

    python -m benchmarks.bench_parse            # full sizes, writes results_parse.md and its RESULTS.md section
    python -m benchmarks.bench_parse --quick    # 1/10 of the sizes, prints only

Each case builds one condition over a 4-column row type and times ``parse_where`` (best of
``--repeat`` runs, ``time.perf_counter``, in this process after one warm-up parse). The targets:
10,000 ORed terms and an IN list of 100,000 values parse in under 1 s each. Conditions nested
past the parser's depth limit must be refused with a ``PredicateError``, quickly, never with a
``RecursionError``. Time grows linearly with the condition's size: the table shows the rate per
term at two sizes.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.records import Record, command_line, git_commit, update_results, verdict
from paimon_lens.predicate.parser import PredicateError, parse_where
from paimon_lens.types import parse_row_type

FIELDS = parse_row_type("id BIGINT, country STRING, score INT, dt DATE")
RESULTS = Path(__file__).resolve().parent / "results_parse.md"
TARGET_SECONDS = 1.0
SUMMARY = ("Time of `parse_where` on large and deeply nested WHERE conditions (best of 3); ratio: time per term at "
           "full size over time per term at the smaller size (1.00 is linear).")


def ors(n: int) -> str:
    return " OR ".join(f"id = {i}" for i in range(n))


def mixed(n: int) -> str:
    return " OR ".join(f"(id = {i} AND country = 'c{i % 97}')" if i % 2 else f"score > {i}" for i in range(n))


def in_list(n: int) -> str:
    return f"id IN ({', '.join(str(i) for i in range(n))})"


def in_strings(n: int) -> str:
    return f"country IN ({', '.join(repr(f'c{i}') for i in range(n))})"


def nested_parens(n: int) -> str:
    return "(" * n + "id = 1" + ")" * n


def nested_nots(n: int) -> str:
    return "NOT " * n + "id = 1"


def nested_and_or(n: int) -> str:
    text = "id = 0"
    for i in range(n):
        text = f"(score > {i} {'AND' if i % 2 else 'OR'} {text})"
    return text


#: (name, builder, full size, whether it must parse (True), be refused as too deep (False) or either
#: (None: the fast parser may refuse deep parentheses and NOTs its recursion cannot follow), target)
CASES: list[tuple[str, Callable[[int], str], int, bool | None, bool]] = [
    ("OR of {n} equalities", ors, 10_000, True, True),
    ("OR of {n} mixed AND/OR terms", mixed, 10_000, True, False),
    ("IN list of {n} BIGINT values", in_list, 100_000, True, True),
    ("IN list of {n} STRING values", in_strings, 100_000, True, False),
    ("{n} nested parentheses", nested_parens, 2_000, None, False),
    ("{n} nested NOTs", nested_nots, 2_000, None, False),
    ("{n} nested AND/OR levels (refused past the depth limit)", nested_and_or, 2_000, False, False),
]


def _time(sql: str, parses: bool | None, repeat: int) -> tuple[float, bool]:
    """Best time of ``repeat`` parses, and whether the condition parsed (else: a PredicateError)."""
    best, ok = float("inf"), False
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            parse_where(sql, FIELDS)
            ok = True
        except PredicateError:
            ok = False
        took = time.perf_counter() - start
        if parses is not None and ok != parses:
            raise SystemExit(f"unexpected outcome: {'parsed' if ok else 'refused'} ({sql[:60]}...)")
        best = min(best, took)
    return best, ok


@dataclass(frozen=True)
class CaseResult:
    """One case timed at its size ``n`` and at a smaller size (a tenth, or half for the too-deep ones)."""

    case: str  # the name with ``N`` for the size
    name: str  # the name with the size
    n: int
    seconds: float
    n_small: int
    seconds_small: float
    outcome: str  # parsed | PredicateError
    parses: bool | None  # must parse (True), must be refused (False), either (None)
    target: str  # MET | MISSED | "" (no target)

    @property
    def us_per_term(self) -> float:
        return self.seconds / self.n * 1e6

    @property
    def us_per_term_small(self) -> float:
        return self.seconds_small / self.n_small * 1e6


def run(quick: bool, repeat: int) -> list[CaseResult]:
    """Time every case at its size and at a smaller one; print RESULT lines."""
    parse_where("id = 1 OR country IN ('a', 'b')", FIELDS)  # warm-up: imports, caches
    rows: list[CaseResult] = []
    for name, build, full, parses, target in CASES:
        n = full // 10 if quick and parses is True else full
        small = max(1, n // 10) if parses is True else n // 2  # both past the depth limit
        t_small, _ = _time(build(small), parses, repeat)
        t_full, ok = _time(build(n), parses, repeat)
        met = "" if not target else ("MET" if t_full < TARGET_SECONDS else "MISSED")
        rows.append(CaseResult(name.format(n="N"), name.format(n=f"{n:,}"), n, t_full, small, t_small,
                               "parsed" if ok else "PredicateError", parses, met))
        verdict_text = f"; target < {TARGET_SECONDS:.0f} s: {met}" if met else ""
        print(f"RESULT parse {name.format(n=f'{n:,}')}: {t_full:.3f} s "
              f"({t_full / n * 1e6:.1f} us/term; {t_small / small * 1e6:.1f} us/term at {small:,}){verdict_text}",
              flush=True)
    return rows


def records(rows: Sequence[CaseResult]) -> list[Record]:
    """The RESULTS.md rows: one per case (a target of 1 s, a refusal that must happen, or no target)."""
    out = []
    for r in rows:
        result = (f"{r.seconds:.3f} s, {r.outcome}; {r.us_per_term:.1f} us per term "
                  f"({r.us_per_term_small:.1f} at {r.n_small:,})")
        ratio = r.us_per_term / r.us_per_term_small
        if r.target:
            out.append(Record(f"{r.name}: parsed in < {TARGET_SECONDS:.0f} s", result, ratio, r.target))
        elif r.parses is False:  # the run stops when such a condition parses
            out.append(Record(f"{r.name}: a PredicateError, not a RecursionError", result, ratio, verdict(True)))
        else:
            out.append(Record(r.name, result, ratio, verdict(None)))
    return out


def write_results(rows: list[CaseResult], repeat: int) -> None:
    """results_parse.md: every case with both sizes."""
    lines = [
        "# Predicate parsing: large and deep conditions",
        "",
        "Regenerate with `python -m benchmarks.bench_parse` (see its module docstring). Best of "
        f"{repeat} runs per case on {platform.machine()} / Python {platform.python_version()}.",
        "",
        "| case | N | seconds | us per term | smaller N | us per term at the smaller N | outcome | target < 1 s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        lines.append(f"| {r.case} | {r.n:,} | {r.seconds:.3f} | {r.us_per_term:.1f} | {r.n_small:,} | "
                     f"{r.us_per_term_small:.1f} | {r.outcome} | {r.target or '-'} |")
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tenth of the sizes, one run, no results file")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case (best kept)")
    args = ap.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    commit = None if args.quick else git_commit()  # before the run: the code the numbers belong to
    rows = run(args.quick, repeat)
    if not args.quick:
        write_results(rows, repeat)
        update_results("bench_parse", command_line("bench_parse", argv), records(rows), summary=SUMMARY,
                       commit=commit, details=RESULTS.name)
    return 0 if all(r.target != "MISSED" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
