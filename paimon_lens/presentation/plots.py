"""Plots of a table's files, indexes, deletion vectors and explain funnels (matplotlib).

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot, so nothing is
added to pyplot's global figure list and a notebook shows each figure once (the returned value).
Text taken from the table (column names, values) is passed to matplotlib with mathtext disabled
(``$`` is shown as a dollar sign, never parsed). :func:`figure_svg` / :func:`figure_data_uri`
turn a figure into the SVG the HTML report embeds.

Requires the ``notebook`` extra (``pip install 'paimon-lens[notebook]'``).
"""

from __future__ import annotations

import base64
import functools
import io
import warnings
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import PaimonLensError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..pruning.explain import ExplainReport
    from ..table.facade import Table

PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")
INDEX_COLORS = {"bloom-filter": "#4c78a8", "bitmap": "#f58518", "range-bitmap": "#54a24b", "bsi": "#b279a2"}
MAX_LABEL = 28


@lru_cache(maxsize=1)
def _figure_class() -> type[Figure]:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise PaimonLensError("plots need matplotlib: pip install 'paimon-lens[notebook]'") from None

    class LensFigure(Figure):
        """A Figure that shows itself in IPython without pyplot or ``%matplotlib inline``."""

        def _repr_png_(self) -> bytes:
            return figure_png(self)

    return LensFigure


def _figure(width: float = 7.0, height: float = 3.2, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    fig = _figure_class()(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, list(axes)


def label(value: Any, max_len: int = MAX_LABEL) -> str:
    """Table-derived text as a safe, short plot label (mathtext off via escaped ``$``)."""
    text = "null" if value is None else str(value)
    if isinstance(value, dict):
        text = ", ".join(f"{k}={v}" for k, v in value.items()) or "(unpartitioned)"
    text = text.replace("\n", " ")
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text.replace("$", r"\$")


def _empty(ax: Axes, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def _byte_scale(vmax: float) -> tuple[float, str]:
    import math

    power = min(int(math.log(max(abs(vmax), 1.0), 1024)), 4)
    return 1024.0 ** power, ("B", "KiB", "MiB", "GiB", "TiB")[power]


def _human_axis(ax: Axes, axis: str = "x") -> None:
    """Byte ticks at round numbers of one binary unit chosen from the axis range."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    target = ax.xaxis if axis == "x" else ax.yaxis

    class ByteLocator(MaxNLocator):
        def tick_values(self, vmin: float, vmax: float) -> Any:
            scale, _ = _byte_scale(max(abs(vmin), abs(vmax)))
            return [t * scale for t in super().tick_values(vmin / scale, vmax / scale)]

    target.set_major_locator(ByteLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))

    def fmt(v: float, _pos: int | None) -> str:
        if v < 0:
            return ""
        scale, unit = _byte_scale(max(abs(x) for x in target.get_view_interval()))
        scaled = [t / scale for t in target.get_majorticklocs()]
        decimals = next((d for d in range(3) if all(abs(round(t, d) - t) < 1e-9 for t in scaled)), 3)
        return f"{v / scale:.{0 if unit == 'B' else decimals}f} {unit}"

    target.set_major_formatter(FuncFormatter(fmt))


def _integer_axis(ax: Axes, axis: str = "y") -> None:
    from matplotlib.ticker import MaxNLocator

    (ax.yaxis if axis == "y" else ax.xaxis).set_major_locator(MaxNLocator(integer=True))


# ---- explain ---------------------------------------------------------------------------------
def funnel(report: ExplainReport) -> Figure:
    """Files, bytes and rows left after each pruning stage of one explain report."""
    from .lens_frame import human_bytes, human_count

    rows = report.funnel()
    fig, axes = _figure(10, 2.2 + 0.25 * len(rows), ncols=3)
    stages = [r["stage"] for r in rows][::-1]
    measures = {"files": [r["files"] for r in rows][::-1], "bytes": [r["bytes"] for r in rows][::-1],
                "rows": [r["rows"] for r in rows][::-1]}
    for ax, (key, values), color in zip(axes, measures.items(), PALETTE):
        bars = ax.barh(stages, values, color=color)
        ax.set_title(key)
        top = max(values) if values else 0
        ax.set_xlim(0, (top or 1) * 1.35)
        fmt = human_bytes if key == "bytes" else human_count
        ax.bar_label(bars, labels=[fmt(v) for v in values], padding=2, fontsize=8)
        ax.set_xticks([])
        if ax is not axes[0]:
            ax.set_yticks([])
    fig.suptitle(label(report.where, 110), fontsize=10)
    return fig


# ---- files -----------------------------------------------------------------------------------
def file_sizes(table: Table, bins: int = 30) -> Figure:
    """Histograms of data-file sizes and row counts of the snapshot."""
    files = table.reader.live_files()
    fig, (ax1, ax2) = _figure(9, 3, ncols=2)
    if not files:
        _empty(ax1, "no data files")
        _empty(ax2, "no data files")
        return fig
    sizes = [lf.entry.file.file_size for lf in files]
    rows = [lf.entry.file.row_count for lf in files]
    ax1.hist(sizes, bins=bins, color=PALETTE[0])
    ax1.set_title(f"file size ({len(files):,} files)")
    _human_axis(ax1)
    _integer_axis(ax1)
    _integer_axis(ax2)
    ax1.set_ylabel("files")
    ax2.hist(rows, bins=bins, color=PALETTE[1])
    ax2.set_title("rows per file")
    return fig


# ---- indexes ---------------------------------------------------------------------------------
def index_bytes(table: Table, frame: pd.DataFrame | None = None) -> Figure:
    """Stored file-index bytes by column, stacked by index type (``frame``: the table's
    :meth:`~paimon_lens.Table.file_indexes`, or any frame with its ``column``, ``index_type`` and
    ``bytes``)."""
    frame = table.file_indexes() if frame is None else frame
    fig, (ax,) = _figure(7, 0.8 + 0.35 * max(3, frame["column"].nunique() if len(frame) else 0))
    if frame.empty:
        _empty(ax, "no file indexes")
        return fig
    pivot = frame.pivot_table(index="column", columns="index_type", values="bytes", aggfunc="sum", fill_value=0,
                               observed=True)
    pivot = pivot.loc[pivot.sum(axis=1).sort_values().index]
    left = [0.0] * len(pivot)
    labels = [label(c) for c in pivot.index]
    for i, index_type in enumerate(pivot.columns):
        values = [float(v) for v in pivot[index_type]]
        ax.barh(labels, values, left=left, label=label(index_type),
                color=INDEX_COLORS.get(str(index_type), PALETTE[i % len(PALETTE)]))
        left = [a + b for a, b in zip(left, values)]
    _human_axis(ax)
    ax.set_title("file-index bytes by column")
    ax.legend(fontsize=8, loc="lower right")
    return fig


#: bloom filters drawn per column by :func:`bloom_fill` (a fixed sample beyond)
BLOOM_POINTS = 5000
#: points of one scatter beyond which they are drawn as an image inside the SVG (each point as an
#: SVG element would make a report of megabytes)
RASTER_POINTS = 500


def bloom_fill(table: Table, frame: pd.DataFrame | None = None) -> Figure:
    """Each bloom filter's fill ratio against its estimated false-positive probability.

    The dashed line is the fpp configured for the column (``file-index.bloom-filter.<col>.fpp``,
    Paimon's default 0.1): filters above it hold more distinct values than they were sized for.
    ``frame``: the table's :meth:`~paimon_lens.Table.bloom_filters`, or any frame with their
    ``column``, ``error``, ``fill_ratio`` and ``false_positive_probability``.
    """
    frame = table.bloom_filters() if frame is None else frame
    fig, (ax,) = _figure(7, 3.4)
    if frame.empty:
        _empty(ax, "no bloom-filter indexes")
        return fig
    frame = frame[frame["error"].isna()] if "error" in frame.columns else frame
    sampled = False
    for i, (column, part) in enumerate(frame.groupby("column", sort=True, observed=True)):
        color = PALETTE[i % len(PALETTE)]
        if len(part) > BLOOM_POINTS:  # a readable plot (and a small SVG): a fixed sample of the filters
            part = part.sample(BLOOM_POINTS, random_state=0)
            sampled = True
        ax.scatter(part["fill_ratio"], part["false_positive_probability"], s=14, color=color, label=label(column),
                   rasterized=len(part) > RASTER_POINTS)
        fpp = _configured_fpp(table, str(column))
        ax.axhline(fpp, color=color, linestyle="--", linewidth=0.8)
    ax.set_xlabel("fill ratio (bits set / bits)")
    ax.set_ylabel("estimated fpp")
    ax.set_yscale("log")
    ax.set_title("bloom filters: fill vs fpp (dashed: configured fpp)"
                 + (f"; {BLOOM_POINTS:,} sampled filters per column" if sampled else ""))
    ax.legend(fontsize=8)
    return fig


def _configured_fpp(table: Table, column: str) -> float:
    options = table.schema.options
    raw = options.get(f"file-index.bloom-filter.{column}.fpp", "0.1")
    try:
        return float(raw)
    except ValueError:
        return 0.1


def bitmap_distribution(table: Table, column: str, top: int = 20) -> Figure:
    """Rows per value of ``column``'s bitmap indexes, summed over files (the ``top`` largest)."""
    import pandas as pd

    totals = bitmap_value_rows(table, column)
    fig, (ax,) = _figure(7, 0.8 + 0.28 * min(top, max(3, len(totals))))
    if not totals:
        _empty(ax, f"no bitmap index on {label(column)}")
        return fig
    counts = pd.Series(totals, dtype="int64").sort_values(ascending=False, kind="stable")
    shown = counts.iloc[:top][::-1]
    ax.barh([label(k) for k in shown.index], [int(v) for v in shown], color=PALETTE[1])
    rest = counts.iloc[top:]
    title = f"bitmap values of {label(column)}: {len(counts):,} distinct"
    if len(rest):
        title += f" (top {top}; {len(rest):,} more hold {int(rest.sum()):,} rows)"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("rows")
    return fig


def bitmap_value_rows(table: Table, column: str) -> dict[str, int]:
    """Rows per value (its text; ``NULL`` for nulls) of ``column``'s bitmap indexes, summed over the
    files (what :meth:`~paimon_lens.Table.bitmap_values` sums, gathered with the snapshot's
    :func:`~paimon_lens.inventory.file_indexes.index_facts`, one file's indexes decoded at a time)."""
    from ..inventory.file_indexes import index_facts

    return dict(index_facts(table.reader, table.engine).bitmap_rows.get(column, {}))


# ---- deletion vectors ------------------------------------------------------------------------
def dv_deleted_ratio(table: Table) -> Figure:
    """Deleted-row ratio per partition and bucket (rows deleted / all the bucket's rows, as the
    findings and the report's table)."""
    from ..advisor.findings import bucket_deletions

    rows = bucket_deletions(table.reader, table.engine)
    fig, (ax,) = _figure(7, 3)
    if not rows:
        _empty(ax, "no deletion vectors")
        return fig
    names = [label((b["partition"] + " / " if b["partition"] else "") + f"bucket {b['bucket']}") for b in rows]
    ratio = [float(b["deleted_ratio"] or 0.0) for b in rows]
    ax.bar(names, ratio, color=PALETTE[3])
    ax.set_ylim(0, max(0.05, max(ratio) * 1.2))
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.set_title("deletion vectors: deleted rows / the bucket's rows, per partition and bucket", fontsize=9)
    ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    return fig


def _percent_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0)


# ---- history -------------------------------------------------------------------------------------
def timeline(history: Any) -> Figure:
    """A table's timeline (:class:`~paimon_lens.history.timeline.History`): live files (small ones
    shaded), bytes, the coverage of each configured index, and the deleted-row share (overall and
    the worst bucket), per snapshot; compactions marked by dashed lines, schema changes by dotted
    ones, tags named at the top."""
    rows = [r for r in history.snapshots if not r.problems]
    fig = _figure_class()(figsize=(7.5, 7.0), layout="constrained")
    axes = list(fig.subplots(4, 1, sharex=True, squeeze=False)[:, 0])
    if not rows:
        _empty(axes[0], "no snapshot could be read")
        return fig
    ids = [r.snapshot_id for r in rows]
    files, small = [r.files for r in rows], [r.small_files for r in rows]
    axes[0].plot(ids, files, color=PALETTE[0], label="live files")
    axes[0].fill_between(ids, 0, small, color=PALETTE[1], alpha=0.35, label="small files", step=None)
    axes[0].set_ylabel("files", fontsize=8)
    axes[0].legend(fontsize=7, loc="upper left")
    _integer_axis(axes[0])
    axes[1].plot(ids, [r.bytes for r in rows], color=PALETTE[2], label="data bytes")
    axes[1].plot(ids, [r.index_bytes for r in rows], color=PALETTE[5], label="index bytes")
    axes[1].set_ylabel("bytes", fontsize=8)
    axes[1].legend(fontsize=7, loc="upper left")
    _human_axis(axes[1], "y")
    labels = list(dict.fromkeys(k for r in rows for k in r.index_coverage))
    shares = {name: [r.index_coverage.get(name, 0) / r.files if r.files else 0.0 for r in rows] for name in labels}
    # every index on the plot: the incomplete ones each (the least covered first), the complete ones as one line
    partial = sorted((n for n in labels if min(shares[n]) < 1.0), key=lambda n: min(shares[n]))
    complete = [n for n in labels if n not in partial]
    for i, name in enumerate(partial[:7]):
        axes[2].plot(ids, shares[name], color=PALETTE[i % len(PALETTE)], label=label(name))
    rest = partial[7:]
    if rest:  # beyond seven lines the legend cannot be read: the others as one dotted line of their minimum
        lowest = [min(shares[n][j] for n in rest) for j in range(len(ids))]
        axes[2].plot(ids, lowest, color="#777777", linestyle=":", label=f"{len(rest)} more (their lowest)")
    if complete:
        text = f"{len(complete)} on every file" if len(complete) > 1 else f"{label(complete[0])} (every file)"
        axes[2].plot(ids, [1.0] * len(ids), color="#2a9d8f", linewidth=2.5, alpha=0.5, label=text)
    if not labels:
        _empty(axes[2], "no file index")
    else:
        axes[2].legend(fontsize=6, loc="lower left", ncol=2)
    axes[2].set_ylim(-0.02, 1.05)
    axes[2].yaxis.set_major_formatter(_percent_formatter())
    axes[2].set_ylabel("files indexed", fontsize=8)
    axes[3].plot(ids, [r.dv_ratio or 0.0 for r in rows], color=PALETTE[3], label="deleted rows / rows")
    axes[3].plot(ids, [r.dv_max_bucket_ratio or 0.0 for r in rows], color=PALETTE[3], linestyle="--",
                 label="worst bucket")
    axes[3].yaxis.set_major_formatter(_percent_formatter())
    axes[3].set_ylabel("deleted", fontsize=8)
    axes[3].legend(fontsize=7, loc="upper left")
    axes[3].set_xlabel("snapshot", fontsize=8)
    _integer_axis(axes[3], "x")
    schema = rows[0].schema_id
    for r in rows:
        for ax in axes:
            if r.commit_kind == "COMPACT":
                ax.axvline(r.snapshot_id, color="#888888", linestyle="--", linewidth=0.7, alpha=0.7)
            if r.schema_id != schema:
                ax.axvline(r.snapshot_id, color="#444444", linestyle=":", linewidth=1.0)
        schema = r.schema_id
        if r.tags:
            axes[0].annotate(label(", ".join(r.tags), 16), (r.snapshot_id, 1.0), xycoords=("data", "axes fraction"),
                             fontsize=6, rotation=90, va="top", ha="right", color="#555555")
    axes[0].set_title("table history (dashed: compactions, dotted: schema changes)", fontsize=9)
    return fig


# ---- recommendations ---------------------------------------------------------------------------
def pareto(advice: Any) -> Figure:
    """Every measured candidate: index bytes stored (x, log) against what it avoids per query, data
    bytes (left) and rows (right).

    One colour per column; the recommended candidates are ringed. Candidates up and to the left
    are better; the recommendation is the cheapest one near the best gain (see
    :mod:`paimon_lens.advisor.advise`).
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from .lens_frame import human_bytes, human_count

    frame = advice.tradeoff_frame()
    fig, axes = _figure(9, 3.6, ncols=2)
    frame = frame[(frame["index_type"] != "none") & (frame["index_bytes"] > 0)]
    if frame.empty:
        _empty(axes[0], "no candidate measured")
        return fig
    measures = (("bytes_avoided_per_query", "data bytes avoided / query", human_bytes),
                ("rows_avoided_per_query", "rows avoided / query", human_count))
    for ax, (key, title, fmt) in zip(axes, measures):
        for i, (column, part) in enumerate(frame.groupby("column", sort=True)):
            color = PALETTE[i % len(PALETTE)]
            ax.scatter(part["index_bytes"], part[key], s=18, color=color, label=label(column, 24))
            chosen = part[part["chosen"]]
            if len(chosen):
                ax.scatter(chosen["index_bytes"], chosen[key], s=120, facecolors="none", edgecolors=color,
                           linewidths=2)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=1024, subs=(1.0, 16.0)))  # 1 KiB, 16 KiB, 1 MiB ...
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        if key == "bytes_avoided_per_query":
            _human_axis(ax, "y")
        else:
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _, f=fmt: f(v) if v >= 0 else ""))
        ax.tick_params(labelsize=7)
        ax.set_xlabel("index bytes (all files)", fontsize=8)
        ax.set_title(title, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize=7, title="column (ringed: recommended)",
               title_fontsize=7)
    return fig


# ---- export ----------------------------------------------------------------------------------
def figure_svg(fig: Figure) -> bytes:
    """The figure as standalone SVG bytes; text stays text (escaped XML) so the browser's fonts draw it.
    The same figure gives the same bytes (fixed ids, no date): reports of one snapshot compare equal."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "paimon-lens"}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def figure_data_uri(fig: Figure) -> str:
    """``data:image/svg+xml;base64,...`` for an ``<img>`` tag: inert (an image runs no script)."""
    return "data:image/svg+xml;base64," + base64.b64encode(figure_svg(fig)).decode("ascii")


#: font families with CJK (and other non-Latin) glyphs, used as fallbacks when installed
FALLBACK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR", "Noto Sans CJK TC",
                  "Source Han Sans", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback",
                  "Noto Sans", "Arial Unicode MS")


@functools.lru_cache(maxsize=1)
def _fonts() -> tuple[tuple[str, ...], frozenset[int]]:
    """The installed fallback families, and the characters the PNG fonts (with them) can draw."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    installed = {f.name: f.fname for f in font_manager.fontManager.ttflist}
    fallbacks = tuple(name for name in FALLBACK_FONTS if name in installed)
    chars: set[int] = set()
    for path in [font_manager.findfont("DejaVu Sans"), *(installed[n] for n in fallbacks)]:
        try:
            chars.update(FT2Font(path).get_charmap())
        except (OSError, RuntimeError):  # an unreadable font file draws nothing
            continue
    return fallbacks, frozenset(chars)


def png_text(text: str) -> str:
    """``text`` as the PNG fonts can draw it: a character no installed font has becomes ``<U+4E2D>``
    (instead of an empty box); SVG keeps every character, the browser's fonts draw it."""
    chars = _fonts()[1]
    if all(ord(c) in chars or c.isspace() for c in text):
        return text
    return "".join(c if ord(c) in chars or c.isspace() else f"<U+{ord(c):04X}>" for c in text)


def png_formatter(inner: Any) -> Any:
    """A tick formatter giving ``inner``'s labels as the PNG fonts draw them (:func:`png_text`);
    the tick positions reach ``inner`` too (a ``ScalarFormatter`` labels nothing without them)."""
    from matplotlib.ticker import Formatter

    class PngFormatter(Formatter):
        def set_locs(self, locs: Any) -> None:
            inner.set_locs(locs)

        def __call__(self, x: float, pos: int | None = None) -> str:
            return png_text(inner(x, pos))

        def format_ticks(self, values: Any) -> list[str]:
            return [png_text(t) for t in inner.format_ticks(values)]

        def get_offset(self) -> str:
            return png_text(inner.get_offset())

    return PngFormatter()


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (non-Latin text through fallback fonts, or spelled as code points)."""
    import matplotlib
    from matplotlib.text import Text

    fallbacks, _ = _fonts()
    originals = []
    for t in fig.findobj(Text):
        text = t.get_text()
        drawn = png_text(text)
        if drawn != text:
            originals.append((t, text))
            t.set_text(drawn)
    formatters = []  # tick labels are made while drawing (category names): spelled there
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            fmt = axis.get_major_formatter()
            formatters.append((axis, fmt))
            axis.set_major_formatter(png_formatter(fmt))
    buf = io.BytesIO()
    try:
        with matplotlib.rc_context({"font.sans-serif": ["DejaVu Sans", *fallbacks]}), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(buf, format="png", dpi=dpi)
    finally:  # the figure keeps its text (its SVG shows every character)
        for t, text in originals:
            t.set_text(text)
        for axis, fmt in formatters:
            axis.set_major_formatter(fmt)
    return buf.getvalue()


__all__: Sequence[str] = (
    "bitmap_distribution", "bloom_fill", "dv_deleted_ratio", "figure_data_uri", "figure_png", "figure_svg",
    "file_sizes", "funnel", "index_bytes", "pareto", "timeline",
)
