"""Benchmark records: the current result of every benchmark, one section each, in ``benchmarks/RESULTS.md``.

A benchmark's full run turns its results into :class:`Record` rows and calls :func:`update_results`,
which rewrites only that benchmark's section (between ``<!-- <name>:begin -->`` and
``<!-- <name>:end -->``), creating it at the end of the file when missing and leaving the header and
every other section byte for byte as they were::

    from benchmarks.records import Record, git_commit, update_results, verdict

    commit = git_commit()  # before the run: the code the numbers belong to
    ...
    update_results("bench_example", "python -m benchmarks.bench_example",
                   [Record("decode >= 50 % of pyroaring", "worst case 0.61", 0.61, verdict(True))],
                   summary="Decode speed of the example format against pyroaring.", commit=commit)

A section is a heading naming the benchmark, one sentence saying what it measures, one table
(target | result | ratio | verdict) and one line each for the machine, the command, the commit and
the date (and optionally a link to the benchmark's details page). Its text depends only on the
arguments: the same call writes the same bytes. Earlier results live in git history, not in the file.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TextIO

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
RESULTS = BENCHMARKS / "RESULTS.md"

HEADER = """# Benchmark results

The current result of every benchmark, one section each. A benchmark's full run rewrites its own
section (see `README.md` here for the commands and `benchmarks/records.py` for the format); earlier
results are in the git history of this file. The `results_*.md` files linked from a section hold
that run's details.
"""

#: packages whose versions :func:`machine_facts` reports by default
DEFAULT_PACKAGES = ("pyarrow", "fastavro", "pyroaring", "numpy", "pandas")
NO_TARGET = "no target"
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_SECTION = re.compile(r"<!-- ([A-Za-z0-9_.-]+):begin -->\n.*?\n<!-- \1:end -->", re.DOTALL)
LINES = ("machine", "command", "commit", "date")
"""The lines under every section's table, in this order (``details`` may follow)."""


@dataclass(frozen=True)
class Record:
    """One row of a benchmark's table.

    ``target`` says what is measured and, when there is one, the goal; ``result`` the measured
    value(s); ``ratio`` the comparison the row reports (against a baseline, an anchor or a smaller
    size; a float is written with two decimals, ``None`` as ``-``); ``verdict`` ``MET``,
    ``MISSED`` or ``no target``.
    """

    target: str
    result: str
    ratio: str | float | None = None
    verdict: str = NO_TARGET


def verdict(met: bool | None) -> str:
    """``MET``, ``MISSED`` or (``None``) ``no target``."""
    return NO_TARGET if met is None else ("MET" if met else "MISSED")


@dataclass(frozen=True)
class MachineFacts:
    """What a result depends on besides the code: CPUs, CPU model, OS, Python, package versions.

    Empty fields are left out of :meth:`line`, so facts recorded only in part can be written too.
    """

    nproc: int | None
    cpu: str
    os: str
    python: str
    packages: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        """One line, e.g. ``nproc 2, AMD EPYC, Linux 6.18 x86_64, Python 3.11.7; numpy 2.4.6``."""
        parts = [f"nproc {self.nproc}" if self.nproc else "", self.cpu, self.os,
                 f"Python {self.python}" if self.python else ""]
        text = ", ".join(p for p in parts if p)
        if self.packages:
            text += "; " + ", ".join(f"{name} {version}" for name, version in self.packages)
        return text

    def __str__(self) -> str:
        return self.line()


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or ""


def _nproc() -> int | None:
    """CPUs this process may run on (``nproc``)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def machine_facts(packages: Sequence[str] = DEFAULT_PACKAGES) -> MachineFacts:
    """This machine: nproc, CPU model, OS (system, release, architecture), Python and ``packages``' versions."""
    versions = []
    for name in packages:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, "-"))
    return MachineFacts(_nproc(), cpu_model(), f"{platform.system()} {platform.release()} {platform.machine()}",
                        platform.python_version(), tuple(versions))


def _git(*args: str) -> str:
    return subprocess.run(["git", "--no-optional-locks", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def git_commit() -> str:
    """``git rev-parse --short HEAD``, with ``+dirty`` when tracked files other than Markdown differ from it.

    Read-only (``--no-optional-locks``: no index refresh). Markdown is left out so that result files a
    benchmark wrote do not mark the next run dirty. ``unknown`` outside a git checkout.
    """
    try:
        head = _git("rev-parse", "--short", "HEAD").strip()
        status = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    changed = [line[3:].split(" -> ")[-1].strip('"') for line in status.splitlines() if line.strip()]
    dirty = any(not path.endswith(".md") for path in changed)
    return f"{head}+dirty" if dirty else head


def command_line(module: str, argv: Sequence[str] | None = None, drop: Sequence[str] = ("--cache-dir",)) -> str:
    """``python -m benchmarks.<module>`` with ``argv`` (default ``sys.argv[1:]``), less the options in ``drop``.

    Dropped options (with their value) are the ones naming local paths, which say nothing about the run.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    kept: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in drop:
            skip = True
            continue
        if any(a.startswith(d + "=") for d in drop):
            continue
        kept.append(shlex.quote(a))
    return " ".join([f"python -m benchmarks.{module}", *kept])


def utc_now() -> str:
    """The current time as written in a section: ``YYYY-MM-DD HH:MM UTC``."""
    return _dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _cell(value: str) -> str:
    """A table cell: one line, pipes escaped, ``-`` when empty."""
    text = " ".join(value.split()).replace("|", "\\|")
    return text or "-"


def _ratio(value: str | float | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return _cell(value)
    return f"{value:.2f}"


def render_section(benchmark: str, summary: str, command: str, records: Sequence[Record], machine: str,
                   commit: str, date: str, details: str | None = None, ratio_label: str = "ratio") -> str:
    """The text of one section, markers included (no trailing newline); a pure function of its arguments."""
    if not _NAME.fullmatch(benchmark):
        raise ValueError(f"benchmark name {benchmark!r}: letters, digits, '_', '.', '-' only")
    if not records:
        raise ValueError(f"{benchmark}: no records")
    lines = [f"<!-- {benchmark}:begin -->", f"## {benchmark}", "", " ".join(summary.split()), "",
             f"| target | result | {_cell(ratio_label)} | verdict |", "| --- | --- | --- | --- |"]
    lines += [f"| {_cell(r.target)} | {_cell(r.result)} | {_ratio(r.ratio)} | {_cell(r.verdict)} |" for r in records]
    lines += ["", f"- machine: {_cell(machine)}", f"- command: `{command.strip()}`", f"- commit: `{commit}`",
              f"- date: {date}"]
    if details:
        lines.append(f"- details: [{details}]({details})")
    lines.append(f"<!-- {benchmark}:end -->")
    return "\n".join(lines)


def sections(text: str) -> dict[str, str]:
    """Every section of a results file by benchmark name (each text from its begin to its end marker)."""
    return {m.group(1): m.group(0) for m in _SECTION.finditer(text)}


def replace_section(text: str, benchmark: str, section: str) -> str:
    """``text`` with ``benchmark``'s section replaced by ``section`` (appended when missing)."""
    found = [m for m in _SECTION.finditer(text) if m.group(1) == benchmark]
    if len(found) > 1:
        raise ValueError(f"{benchmark}: {len(found)} sections in the results file")
    if found:
        m = found[0]
        return text[:m.start()] + section + text[m.end():]
    if not text.strip():
        text = HEADER
    return text.rstrip("\n") + "\n\n" + section + "\n"


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on ``directory`` (POSIX ``flock``) while two benchmarks finish at once."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


DETAILS_BEGIN, DETAILS_END = "<!-- results:begin -->", "<!-- results:end -->"


def write_details(path: Path, body: str, title: str) -> None:
    """Replace the part of a details page between ``<!-- results:begin/end -->`` with ``body``.

    Text outside the markers (notes on method) is kept; a page without them gets ``# title``, the
    marked body and nothing else.
    """
    marked = f"{DETAILS_BEGIN}\n{body.strip(chr(10))}\n{DETAILS_END}"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if DETAILS_BEGIN in old and DETAILS_END in old:
        head, rest = old.split(DETAILS_BEGIN, 1)
        new = head + marked + rest.split(DETAILS_END, 1)[1]
    else:
        new = f"# {title}\n\n{marked}\n"
    if new != old:
        path.write_text(new, encoding="utf-8")


class Tee(io.TextIOBase):
    """A text stream that writes to ``stream`` and keeps a copy (:meth:`text`): a run's output for its details page."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._copy = io.StringIO()

    def write(self, s: str) -> int:
        self._copy.write(s)
        return self._stream.write(s)

    def flush(self) -> None:
        self._stream.flush()

    def text(self) -> str:
        """Everything written so far."""
        return self._copy.getvalue()


def update_results(benchmark: str, command: str, records: Sequence[Record], *, summary: str,
                   machine: MachineFacts | str | None = None, commit: str | None = None, date: str | None = None,
                   details: str | None = None, ratio_label: str = "ratio", path: Path = RESULTS) -> str:
    """Rewrite ``benchmark``'s section of ``path`` (``benchmarks/RESULTS.md``); returns the section.

    ``summary`` is the one sentence under the heading (what the benchmark measures); ``command`` the
    exact command line; ``machine``, ``commit`` and ``date`` default to this machine's
    :func:`machine_facts`, :func:`git_commit` and :func:`utc_now` (pass ``commit`` taken before the
    run); ``details`` names a page beside ``path`` with the run's details; ``ratio_label`` heads the
    third column (e.g. ``anchor``). Other sections and the header are kept byte for byte; a missing
    file starts with :data:`HEADER`. The file is replaced atomically, under a lock.
    """
    facts = machine_facts() if machine is None else machine
    section = render_section(benchmark, summary, command, records,
                             facts.line() if isinstance(facts, MachineFacts) else facts,
                             git_commit() if commit is None else commit, utc_now() if date is None else date,
                             details, ratio_label)
    path = Path(path)
    with _locked(path.parent):
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        new = replace_section(old, benchmark, section)
        if new != old:
            mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
            try:
                os.chmod(tmp, mode)
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                    f.write(new)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
    return section
