"""Benchmark: what a table costs on object storage, in requests, bytes and time (local S3 server).

Run from the repository root (needs the dev extra: moto[server], s3fs)::

    python -m benchmarks.bench_s3              # 1,000-file primary-key table: RESULTS.md section, results_s3.md
    python -m benchmarks.bench_s3 --files 200  # another size, prints only

The synthetic primary-key table of :mod:`benchmarks.bench_explain` (cached under
``<tmp>/paimon-lens-bench/``) is uploaded to a moto S3 server on 127.0.0.1, then each step runs on
``s3://`` with ``storage_options`` in this process, counted by
:func:`paimon_lens.io.fileio.remote_reads`: ``open_table``, the first ``explain`` (all stages),
``explain`` with ground truth (data files read), ``file_indexes()`` and ``deletion_vectors()``,
``findings()``, one after the other on one table object, so a step counts only what the steps
before it did not read already (``deletion_vectors()`` after ``explain`` reads nothing: explain
decoded them). The same steps on the local copy give the reference time. The server runs in this
process on loopback, so the times show request overhead, not network latency: on a real store
multiply the request counts by its latency.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import records as rec

RESULTS = Path(__file__).resolve().parent / "results_s3.md"
WHERE = ("dt >= '2025-01-05' AND dt <= '2025-01-12' AND country = 'DE' AND status = 'pending' "
         "AND score BETWEEN 300 AND 700")
BUCKET = "lens-bench"
SUMMARY = ("Requests, bytes, retries and time of each step on the primary-key table of `bench_explain` uploaded to a "
           "moto S3 server on 127.0.0.1 (s3fs), the steps one after the other on one table object, beside the time "
           "of the same steps on the local copy.")
Step = tuple[str, float, dict[str, int]]


def _steps(path: str, options: dict[str, Any] | None) -> list[tuple[str, float, dict[str, int]]]:
    import paimon_lens as pl
    from paimon_lens.io.fileio import remote_reads

    out = []
    table: Any = None

    def step(name: str, fn: Any) -> None:
        before = remote_reads()
        t0 = time.perf_counter()
        fn()
        seconds = time.perf_counter() - t0
        after = remote_reads()
        out.append((name, seconds, {k: after[k] - before[k] for k in after}))

    def open_() -> None:
        nonlocal table
        table = pl.open_table(path, storage_options=options, progress=False)

    step("open_table", open_)
    step("first explain (all stages)", lambda: table.explain(WHERE))
    step("explain with truth (data files read)", lambda: table.explain(WHERE, truth=True))
    step("file_indexes()", lambda: table.file_indexes())
    step("deletion_vectors()", lambda: table.deletion_vectors())
    step("findings()", lambda: table.findings())
    return out


def records(files: int, remote: Sequence[Step], reference: Sequence[Step]) -> list[rec.Record]:
    """The RESULTS.md rows: one per step (its reads on S3, its S3 and local time)."""
    return [rec.Record(f"{name}, {files:,}-file table on `s3://`",
                       f"{reads['requests']:,} requests, {reads['bytes']:,} bytes read, {reads['retries']} retries; "
                       f"{seconds:.2f} s (local {local_seconds:.2f} s)")
            for (name, seconds, reads), (_, local_seconds, _) in zip(remote, reference)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "paimon-lens-bench")
    args = ap.parse_args(argv)

    import boto3
    from moto.server import ThreadedMotoServer

    from benchmarks.bench_explain import cached_table

    commit = rec.git_commit()  # before the run: the code the numbers belong to
    local, _ = cached_table(args.cache_dir, args.files, primary_key=True, rebuild=False)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id="test", aws_secret_access_key="test")
        client.create_bucket(Bucket=BUCKET)
        t0 = time.perf_counter()
        uploaded = 0
        for p in local.rglob("*"):
            if p.is_file():
                client.upload_file(str(p), BUCKET, f"t/{p.relative_to(local)}")
                uploaded += 1
        upload = time.perf_counter() - t0
        options = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": endpoint,
                                                                      "region_name": "us-east-1"}}
        remote = _steps(f"s3://{BUCKET}/t", options)
        reference = _steps(str(local), None)
    finally:
        server.stop()
    lines = [f"Measured {_dt.datetime.now(tz=_dt.UTC):%Y-%m-%d %H:%M} with "
             f"`python -m benchmarks.bench_s3 --files {args.files}`.", "",
             f"* machine: {platform.platform()}, Python {platform.python_version()}; paimon-lens commit {commit}",
             f"* table: the synthetic primary-key table of `bench_explain` ({args.files:,} data files, "
             f"{uploaded:,} objects uploaded in {upload:.1f} s) on a moto S3 server on 127.0.0.1 (s3fs)",
             f"* predicate: `{WHERE}`",
             "* the steps run one after the other on one table object: each counts only what the ones before "
             "it did not read (explain already decoded the deletion vectors)", "",
             "| step | requests | bytes read | retries | s3 time | local time |",
             "| --- | --- | --- | --- | --- | --- |"]
    for (name, seconds, reads), (_, local_seconds, _) in zip(remote, reference):
        lines.append(f"| {name} | {reads['requests']:,} | {reads['bytes']:,} | {reads['retries']} | "
                     f"{seconds:.2f} s | {local_seconds:.2f} s |")
    text = "\n".join(lines)
    print(text)
    if args.files == 1000:
        RESULTS.write_text("# A 1,000-file table on object storage: requests, bytes, time\n\n"
                           "`python -m benchmarks.bench_s3` regenerates this file; see its module docstring.\n\n"
                           + text + "\n", encoding="utf-8")
        rec.update_results("bench_s3", rec.command_line("bench_s3", argv), records(args.files, remote, reference),
                           summary=SUMMARY, machine=rec.machine_facts((*rec.DEFAULT_PACKAGES, "moto", "s3fs")),
                           commit=commit, details=RESULTS.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
