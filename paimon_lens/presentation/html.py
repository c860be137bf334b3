"""HTML rendering of paimon-lens results (jinja2, autoescaped: table values are untrusted)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

    from ..pruning.explain import ExplainReport


def human_bytes(n: float | None) -> str:
    """``1536`` -> ``1.5 KiB``."""
    if n is None:
        return "-"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment (autoescape always on)."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("paimon_lens.presentation", "templates"),
                              autoescape=True, trim_blocks=False, lstrip_blocks=False)


def render_explain(report: ExplainReport) -> str:
    """The explain report as a self-contained HTML fragment."""
    summary = report.summary()
    funnel = summary["funnel"]
    top = max((r["files"] for r in funnel), default=1) or 1
    rows: list[dict[str, Any]] = [
        {**r, "bytes_h": human_bytes(r["bytes"]), "width": int(200 * r["files"] / top)} for r in funnel
    ]
    files = [
        {"file_name": f.file_name, "path": f.path, "bucket": f.bucket, "row_count": f.row_count,
         "partition_text": ", ".join(f"{k}={v}" for k, v in f.partition.items()), "read": f.read,
         "stage": f.stage, "rows_after_dv": f.rows_after_dv, "matching_rows": f.matching_rows,
         "reason": f.reason, "flags": f.flags}
        for f in report.files
    ]
    return environment().get_template("explain.html.j2").render(
        where=report.where, predicate=str(report.predicate), snapshot_id=report.table.snapshot_id,
        funnel=rows, files=files, truth=report.truth, summary=summary)
