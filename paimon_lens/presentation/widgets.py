"""The ipywidgets explorer of one table: snapshots, files, indexes, deletion vectors, explain.

::

    import paimon_lens
    paimon_lens.explore("warehouse/db.db/orders")

* a snapshot picker (every snapshot still present; the latest is selected);
* tabs: **Files** (the snapshot's data files and their size histogram), **Indexes** (pick a column:
  its file indexes, the bytes they take, its bitmap value distribution), **Deletion vectors**,
  and **Explain** (type a WHERE clause, press *Explain* or Enter: the funnel, the funnel plot and
  the per-file verdicts update; *truth* reads the data files too), and **History** (the table's
  timeline; with a WHERE clause, what it read at the earliest snapshot and at the selected one, and
  the commits that changed it). All but Explain show the tuning report's sections
  (:mod:`paimon_lens.presentation.report`): one model, two views.

Errors (a predicate that does not parse, a corrupt file) are shown inline in red; the explorer
keeps working. Every view is an ``HTML`` widget holding escaped HTML and inline SVG images, so the
explorer renders the same in Jupyter, VS Code and a static HTML export. Tests drive it through
its public widgets (``explorer.where.value = ...; explorer.explain_button.click()``).

Requires the ``notebook`` extra (``pip install 'paimon-lens[notebook]'``).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

try:
    import ipywidgets as widgets
except ImportError:  # pragma: no cover - depends on the environment
    from ..errors import PaimonLensError

    raise PaimonLensError("the explorer needs ipywidgets: pip install 'paimon-lens[notebook]'") from None

from ..errors import PaimonLensError
from .frame_columns import VERDICT_COLUMNS
from .lens_frame import frame_html
from .report import deletion_vectors_section, files_section, global_indexes_section, indexes_section, render_section

if TYPE_CHECKING:
    from ..table.facade import Table

TABS = ("Files", "Indexes", "Deletion vectors", "Explain", "History")


def error_html(message: str) -> str:
    """An inline error message (escaped)."""
    return f'<div class="paimon-lens-error" style="color:#c00;white-space:pre-wrap">{html.escape(message)}</div>'


def _img(fig: Any) -> str:
    from .plots import figure_data_uri

    return f'<img src="{figure_data_uri(fig)}" style="max-width:100%">'


def _snapshot_label(row: Any) -> str:
    import datetime as _dt

    when = _dt.datetime.fromtimestamp(int(row["commit_time"]) / 1000, tz=_dt.UTC) \
        if isinstance(row["commit_time"], (int, float)) else row["commit_time"]
    when_text = when.strftime("%Y-%m-%d %H:%M") if hasattr(when, "strftime") else str(when)
    return f"{row['snapshot_id']} · {row['commit_kind']} · {when_text}"


class Explorer(widgets.VBox):
    """Browse a table's snapshots, files, indexes and deletion vectors; explain a WHERE clause."""

    def __init__(self, table: Table) -> None:
        self.base_table = table
        self.table = table
        self.header = widgets.HTML()
        self.snapshot = widgets.Dropdown(description="snapshot", layout=widgets.Layout(width="420px"))
        self.error = widgets.HTML()
        # tabs
        self.files_view = widgets.HTML()
        self.column = widgets.Dropdown(description="column", layout=widgets.Layout(width="320px"))
        self.indexes_view = widgets.HTML()
        self.dv_view = widgets.HTML()
        self.where = widgets.Text(placeholder="e.g. country = 'DE' AND score > 90", description="WHERE",
                                  continuous_update=False, layout=widgets.Layout(width="70%"))
        self.truth = widgets.Checkbox(value=False, description="truth (read data files)", indent=False)
        self.explain_button = widgets.Button(description="Explain", button_style="primary")
        self.explain_error = widgets.HTML()
        self.funnel_view = widgets.HTML()
        self.funnel_plot = widgets.HTML()
        self.verdicts_view = widgets.HTML()
        self.history_view = widgets.HTML()
        self.report: Any = None
        self.tabs = widgets.Tab(children=[
            self.files_view,
            widgets.VBox([self.column, self.indexes_view]),
            self.dv_view,
            widgets.VBox([widgets.HBox([self.where, self.truth, self.explain_button]), self.explain_error,
                          self.funnel_view, self.funnel_plot, self.verdicts_view]),
            self.history_view,
        ])
        for i, title in enumerate(TABS):
            self.tabs.set_title(i, title)
        self._rendered: set[int] = set()
        super().__init__([self.header, self.snapshot, self.error, self.tabs])
        self._init_snapshots()
        self.snapshot.observe(self._on_snapshot, names="value")
        self.column.observe(self._on_column, names="value")
        self.tabs.observe(self._on_tab, names="selected_index")
        self.explain_button.on_click(lambda _b: self.run_explain())
        self.where.observe(lambda _change: self.run_explain(), names="value")
        self._load()

    # ---- state ---------------------------------------------------------------------------------
    def _init_snapshots(self) -> None:
        try:
            frame = self.base_table.snapshots()
            options = [(_snapshot_label(row), int(row["snapshot_id"])) for _, row in frame.iterrows()]
        except PaimonLensError as e:
            options = []
            self.error.value = error_html(f"cannot list snapshots: {e}")
        if not options and self.base_table.snapshot_id is not None:
            options = [(str(self.base_table.snapshot_id), self.base_table.snapshot_id)]
        self.snapshot.options = options
        if self.base_table.snapshot_id is not None:
            self.snapshot.value = self.base_table.snapshot_id

    def _on_snapshot(self, change: dict[str, Any]) -> None:
        if change.get("new") is None:
            return
        try:
            self.table = self.base_table.at(int(change["new"]))
        except PaimonLensError as e:
            self.error.value = error_html(str(e))
            return
        self._load()

    def _load(self) -> None:
        """Re-render the header and the visible tab for the selected snapshot."""
        self.error.value = ""
        self._rendered.clear()
        self.header.value = self.table._repr_html_()
        try:
            indexed = sorted(self.table.file_indexes()["column"].unique())
        except PaimonLensError as e:
            indexed = []
            self.error.value = error_html(f"cannot read file indexes: {e}")
        current = self.column.value
        self.column.options = indexed
        self.column.value = current if current in indexed else (indexed[0] if indexed else None)
        self._render_tab(self.tabs.selected_index or 0)
        if self.where.value.strip():
            self.run_explain()

    def _on_column(self, _change: dict[str, Any]) -> None:
        if 1 in self._rendered:  # the Indexes tab has been shown: keep it current
            self._guard(self.indexes_view, self.render_indexes)

    def _on_tab(self, change: dict[str, Any]) -> None:
        if change.get("new") is not None:
            self._render_tab(int(change["new"]))

    def _render_tab(self, index: int) -> None:
        if index in self._rendered:
            return
        self._rendered.add(index)
        if index == 0:
            self._guard(self.files_view, self.render_files)
        elif index == 1:
            self._guard(self.indexes_view, self.render_indexes)
        elif index == 2:
            self._guard(self.dv_view, self.render_deletion_vectors)
        elif index == 4:
            self._guard(self.history_view, self.render_history)

    def _guard(self, target: Any, fn: Callable[[], str]) -> None:
        try:
            target.value = fn()
        except PaimonLensError as e:
            target.value = error_html(str(e))
        except (OSError, ValueError, KeyError, TypeError) as e:
            target.value = error_html(f"{type(e).__name__}: {e}")

    # ---- views ---------------------------------------------------------------------------------
    def render_files(self) -> str:
        """HTML of the Files tab (the report's files section, every file listed)."""
        return render_section(files_section(self.table, detail=True))

    def render_indexes(self) -> str:
        """HTML of the Indexes tab for the selected column (the report's index section of that column)."""
        column = self.column.value
        extra = global_indexes_section(self.table)
        tail = "" if extra is None else render_section(extra)
        if column is None:
            return "<p>No data file of this snapshot has a file index.</p>" + tail
        return render_section(indexes_section(self.table, column)) + tail

    def render_deletion_vectors(self) -> str:
        """HTML of the Deletion vectors tab (the report's deletion-vector section)."""
        return render_section(deletion_vectors_section(self.table))

    def render_history(self) -> str:
        """HTML of the History tab: the report's history section up to the selected snapshot, with
        the WHERE clause typed in the Explain tab as its workload."""
        from ..workload.model import as_workload
        from .history_section import history_section

        text = self.where.value.strip()
        return render_section(history_section(self.table, as_workload([text]) if text else None))

    def run_explain(self) -> None:
        """Explain the WHERE clause in :attr:`where` and update the Explain tab."""
        from .plots import funnel

        text = self.where.value.strip()
        self.explain_error.value = ""
        if not text:
            self.explain_error.value = error_html("type a WHERE clause first")
            return
        try:
            report = self.table.explain(text, truth=self.truth.value)
        except PaimonLensError as e:
            self.explain_error.value = error_html(str(e))
            return
        self.report = report
        from .html import render_explain

        self.funnel_view.value = render_explain(report, include_files=False)
        self.funnel_plot.value = _img(funnel(report))
        frame = report.to_frame()
        self.verdicts_view.value = frame_html(frame[[c for c in VERDICT_COLUMNS if c in frame.columns]], max_rows=200)
        self._rendered.discard(4)  # the History tab compares this clause: show it anew
        if self.tabs.selected_index == 4:
            self._render_tab(4)
