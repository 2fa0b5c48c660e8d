"""Showing a usage report in the Usage tab: the heatmap and legend, the summary line, the usage
table, RockBot's top pairs, the sessions behind a cell; and exporting the heatmap (PNG, CSV).
A part of ``UsagePane``."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QRect
from PySide6.QtGui import QImage, QPainter, QPalette
from PySide6.QtWidgets import QFileDialog, QTreeWidgetItem

from rockskills_gui.core.storage.layout import USAGE_ARCHIVE_DIR
from rockskills_gui.core.usage.archive_read import describe_days
from rockskills_gui.core.usage.heatmap import save_heatmap_csv
from rockskills_gui.core.usage.report import UsageReport
from rockskills_gui.core.usage.stats import TOP_PAIRS, PairView, UsageStats
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.usage.usage_layout import UsageLayout
from rockskills_gui.ui.usage.usage_signals_tab import UsageSignalsTab

NOTE_WIDTH = 60  # characters per line of the notes under the top pairs
ARCHIVE_MARK = "\N{BLACK DIAMOND}"  # marks what comes from the usage archive
ARCHIVE_DAYS_LISTED = 40  # days the archive note's tooltip lists one by one


class UsageReportView(QObject):
    """Puts a ``UsageReport`` on the ``widgets`` of ``UsagePane`` (its Signals list through
    ``signals``) and exports what is shown; it keeps the report on screen."""

    def __init__(self, ctx: AppContext, widgets: UsageLayout, signals: UsageSignalsTab) -> None:
        super().__init__(widgets)
        self.ctx = ctx
        self.w = widgets
        self.signals = signals
        self.report: UsageReport | None = None  # the report on screen
        self.fit_next = True  # the next report shown fits the matrix to the view

    # ---------------------------------------------------------------- showing

    def show_nothing(self, loading: bool) -> None:
        w = self.w
        w.archive_note.hide()
        w.view.set_data(None)
        w.legend.set_scale(None, 1, False)
        w.usage_model.set_rows([])
        w.pairs_text.setPlainText("")
        w.sessions_tree.clear()
        w.signals_tree.clear()
        w.summary.setText("Reading the usage log…" if loading else "No library open.")

    def show_steps(self, report: UsageReport) -> list[Callable[[], None]]:
        """Showing ``report``, in parts: the heatmap, the usage table, the rest."""
        w = self.w
        data = report.heatmap
        same_axis = w.view.data is not None and w.view.data.names == data.names

        def heatmap() -> None:
            w.view.set_data(data, keep_selection=True)
            w.view.set_show_links(w.links_check.isChecked())
            if self.fit_next:
                w.view.fit()
                self.fit_next = False
            w.legend.set_scale(data.scale, data.options.min_count, w.links_check.isChecked())
            self._update_summary(report)
            self._show_archive_days(report.archive_days)

        def rest() -> None:
            self._fill_pairs(report.stats, report.pairs)
            self.signals.fill(report)
            if w.view.selected is not None and same_axis:
                self.show_sessions(*w.view.selected, switch=False)
            elif w.view.selected is None:
                w.sessions_title.setText("Click a cell to list the sessions behind it.")
                w.sessions_tree.clear()

        return [heatmap, lambda: self._fill_usage(report), rest]

    def _update_summary(self, report: UsageReport) -> None:
        stats, data = report.stats, report.heatmap
        window = stats.window
        parts = [f"{len(stats.events)} event(s) in {stats.session_count} session(s), "
                 f"{window.describe()}"]
        if window.since is not None and window.days is not None:
            parts[0] += f" (since {window.since.isoformat()[:16].replace('T', ' ')} UTC)"
        parts.append(f"{len(data)} skill(s) shown, {data.hidden} hidden")
        deleted = report.gone
        if deleted:
            parts.append(f"{sum(u.events for u in deleted)} event(s) for "
                         f"{len(deleted)} skill(s) that no longer exist")
        if stats.truncated:
            parts.append(f"RockBot reads only the first {window.cap} events: {stats.truncated} newer "
                         "left out")
        if stats.skipped:
            parts.append(f"{len(stats.skipped)} event(s) without skill name or session id "
                         "(RockBot's dream would fail on them)")
        unread = [m for m in report.log.malformed if m.line == 0]  # whole files (FIFO, too large)
        parts.extend(f"{m.path}: {m.reason}" for m in unread)
        if len(report.log.malformed) > len(unread):
            parts.append(f"{len(report.log.malformed) - len(unread)} unreadable line(s) skipped")
        if data.note:
            parts.append(data.note)
        parts.append(f"computed in {report.seconds * 1000:.0f} ms")
        self.w.summary.setText(" · ".join(parts))

    def _show_archive_days(self, days: dict[str, int]) -> None:
        """Say which days of the window come from the usage archive (RockBot deleted their logs)."""
        self.w.archive_note.setVisible(bool(days))
        if not days:
            return
        events = sum(days.values())
        self.w.archive_note.setText(
            f"{ARCHIVE_MARK} <b>From the usage archive:</b> {events} event(s) on {len(days)} "
            f"day(s): {describe_days(days)}. RockBot's log retention deleted these lines; the app "
            f"kept them in {USAGE_ARCHIVE_DIR}/.")
        shown = [f"{day}: {n} event(s)" for day, n in list(days.items())[:ARCHIVE_DAYS_LISTED]]
        if len(days) > ARCHIVE_DAYS_LISTED:
            shown.append(f"… {len(days) - ARCHIVE_DAYS_LISTED} more day(s)")
        self.w.archive_note.setToolTip("Events only the usage archive still has, per day (UTC):\n"
                                     + "\n".join(shown))

    def _fill_usage(self, report: UsageReport) -> None:
        self.w.usage_model.set_rows(report.rows, report.sorted_rows, report.request.table_sort)

    def _fill_pairs(self, stats: UsageStats, view: PairView) -> None:
        window = stats.window
        if window.days is not None:
            header = f"Frequently co-used skill pairs (across sessions in last {window.days} days):"
        else:
            header = f"Frequently co-used skill pairs (across sessions in {window.describe()}):"
        pairs = view.pairs
        lines = [header, *(pair.line() for pair in pairs[:TOP_PAIRS])] if pairs else \
            [f"No skill pairs in {window.describe()}: RockBot's prompt would have no pairs section."]
        if not view.complete:
            lines = [header] if pairs else []
            lines += [pair.line() for pair in pairs[:TOP_PAIRS]]
            shown = (f"the {len(pairs):,} pairs used together in at least {view.min_count} sessions "
                     "are listed" if view.min_count else "none can be listed")
            note = (f"This window's sessions hold {view.occurrences:,} pair occurrences, too many "
                    f"to count in memory: {shown}. Choose a shorter window for the whole list "
                    "(RockBot's own dream reads at most 10,000 events of 30 days).")
            lines += ["", *textwrap.wrap(note, NOTE_WIDTH)]  # the pair lines do not wrap
        elif len(pairs) > TOP_PAIRS:
            lines += ["", *textwrap.wrap(f"({len(pairs):,} pairs in all; RockBot's prompt shows "
                                         f"the top {TOP_PAIRS}, ties in first-seen order)", NOTE_WIDTH)]
        self.w.pairs_text.setPlainText("\n".join(lines))

    # ---------------------------------------------------------------- links and sessions

    def on_links_toggled(self, show: bool) -> None:
        self.w.view.set_show_links(show)
        if self.report is not None:
            data = self.report.heatmap
            self.w.legend.set_scale(data.scale, data.options.min_count, show)

    def show_sessions(self, row: int, col: int, switch: bool = True) -> None:
        """List the sessions behind cell (row, col) in the Sessions tab."""
        report = self.report
        if report is None or not (0 <= row < len(report.heatmap) and 0 <= col < len(report.heatmap)):
            return
        w = self.w
        a, b = report.heatmap.names[row], report.heatmap.names[col]
        sessions = report.stats.sessions_with(a, None if row == col else b)
        if row == col:
            w.sessions_title.setText(f"{len(sessions)} session(s) used {a} "
                                        f"({report.stats.window.describe()})")
        else:
            w.sessions_title.setText(f"{len(sessions)} session(s) used both {a} and {b} "
                                     f"({report.stats.window.describe()})")
        w.sessions_tree.clear()
        for session in sessions:
            first = session.first.isoformat()[:16].replace("T", " ")
            last = session.last.isoformat()[:16].replace("T", " ")
            item = QTreeWidgetItem(w.sessions_tree, [
                session.id, first[:10], str(session.events), ", ".join(session.skills)])
            item.setToolTip(0, f"{session.id}\nfirst event {first} UTC\nlast event {last} UTC\n"
                               f"{session.events} event(s) in the window")
            item.setToolTip(1, f"{first} – {last} UTC")
            item.setToolTip(3, "\n".join(session.skills))
        for col_index in range(3):
            w.sessions_tree.resizeColumnToContents(col_index)
        if switch:
            w.side.setCurrentIndex(2)

    # ---------------------------------------------------------------- export

    def export_image(self) -> QImage:
        """The whole matrix with labels, the legend below it."""
        matrix = self.w.view.render_full()
        legend_height = self.w.legend.sizeHint().height() + 8
        width = max(matrix.width(), 720)
        image = QImage(width, matrix.height() + legend_height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(self.w.palette().color(QPalette.ColorRole.Base))
        painter = QPainter(image)
        try:
            painter.drawImage(0, 0, matrix)
            self.w.legend.paint(painter, QRect(8, matrix.height() + 4, min(width, 900) - 16,
                                             legend_height - 8))
        finally:
            painter.end()
        return image

    def export_png(self, path: Path | str) -> bool:
        # PySide6 stub gap: the stubs type the format as bytes, but QImage.save accepts only a str
        return self.report is not None and self.export_image().save(str(path), "PNG")  # type: ignore[call-overload]

    def export_csv(self, path: Path | str) -> None:
        if self.report is None:
            return
        save_heatmap_csv(self.report.heatmap, Path(path))

    def _export_start(self, suffix: str) -> str:
        library = self.ctx.library
        base = library.agent_dir.parent if library is not None else Path.home()
        return str(base / f"skill-cooccurrence.{suffix}")

    def choose_png(self) -> None:
        if self.report is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.w, "Export the heatmap as PNG",
                                              self._export_start("png"), "PNG images (*.png)")
        if path:
            if self.export_png(path):
                self.ctx.status(f"Saved {path}")
            else:
                self.ctx.status(f"Could not write {path}", 10000)

    def choose_csv(self) -> None:
        if self.report is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.w, "Export the matrix as CSV",
                                              self._export_start("csv"), "CSV files (*.csv)")
        if path:
            try:
                self.export_csv(path)
            except OSError as exc:
                self.ctx.status(f"Could not write {path}: {exc.strerror or exc}", 10000)
            else:
                self.ctx.status(f"Saved {path}")
