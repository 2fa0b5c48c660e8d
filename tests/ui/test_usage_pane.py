"""The Usage tab against real widgets (offscreen): hover, click, window, measure, overlay, actions."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPalette
from PySide6.QtWidgets import QToolTip

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.usage.usage_pane import UsagePane
from tests.conftest import NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)
FIXTURE_PAIR_SESSIONS = ["blazor-session", "session-2026-11-03-a41f", "session-2026-11-10-9c2e",
                         "cli-session", "session-2026-11-20-e5d3"]  # dream-derived.json "sessions"


def open_window(qtbot, agent: Path) -> MainWindow:
    """The main window on ``agent``, its clock fixed at the fixtures' now (Usage tab not shown)."""
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.ctx.set_library(RockBotLibrary.open(agent, clock=lambda: NOW), remember=False)
    return window


@pytest.fixture
def win(qtbot, agent: Path) -> Iterator[MainWindow]:
    """The main window on the sample library, Usage tab shown and computed."""
    window = open_window(qtbot, agent)
    window.show_pane("heatmap")
    pane = window.usage_pane
    qtbot.waitUntil(lambda: pane.report is not None, timeout=5000)
    yield window
    pane.wait()


def cell(pane: UsagePane, a: str, b: str) -> tuple[int, int]:
    data = pane.view.data
    assert data is not None
    i, j = data.index(a), data.index(b)
    assert i is not None and j is not None, (a, b, data.names)
    return i, j


def changed(qtbot, pane: UsagePane, action) -> None:
    with qtbot.waitSignal(pane.updated, timeout=5000):
        action()


def test_pane_replaces_the_placeholder_and_shows_rockbots_numbers(win: MainWindow) -> None:
    pane = win.usage_pane
    assert isinstance(pane, UsagePane)
    assert win.tabs.currentWidget() is pane
    report = pane.report
    assert report is not None
    assert len(report.stats.events) == 32
    lines = pane.pairs_text.toPlainText().splitlines()
    assert lines[0] == "Frequently co-used skill pairs (across sessions in last 30 days):"
    assert lines[1] == "- mcp/calendar + mcp/email: 5 session(s)"
    assert len([line for line in lines if line.startswith("- ")]) == 10
    names = pane.view.data.names
    assert "old-meeting-notes" in names and not pane.view.data.exists[names.index("old-meeting-notes")]
    assert "a2a" not in names  # never used: hidden while "Only skills with pairs" is on


def test_hover_text_names_both_skills_counts_and_measure(win: MainWindow) -> None:
    pane = win.usage_pane
    i, j = cell(pane, "mcp/email", "mcp/calendar")
    pos = pane.view.cell_center(i, j)
    text = pane.view.hover_text(pos)
    assert text.splitlines()[:5] == [
        "mcp/email  ×  mcp/calendar", "5 sessions together", "mcp/email: 8 uses in 5 sessions",
        "mcp/calendar: 7 uses in 5 sessions", "Jaccard 1.00 · lift 1.20×"]
    assert "linked by see-also" in text
    event = QHelpEvent(QEvent.Type.ToolTip, pos, pane.view.viewport().mapToGlobal(pos))
    pane.view.viewportEvent(event)
    assert QToolTip.text() == text
    QToolTip.hideText()
    label = pane.view.hover_text(pane.view.row_label_center(i))
    assert label.startswith("mcp/email\n8 use(s) in 5 session(s)")


def test_clicking_a_cell_lists_the_sessions_behind_it(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    i, j = cell(pane, "mcp/calendar", "mcp/email")
    qtbot.mouseClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=pane.view.cell_center(i, j))
    assert pane.view.selected == (i, j)
    assert pane.side.currentIndex() == 2
    tree = pane.sessions_tree
    ids = [tree.topLevelItem(k).text(0) for k in range(tree.topLevelItemCount())]
    assert ids == FIXTURE_PAIR_SESSIONS
    a41f = tree.topLevelItem(1)
    assert (a41f.text(1), a41f.text(2), a41f.text(3)) == (
        "2026-11-03", "3", "mcp/email, mcp/calendar, plan-meeting")
    assert pane.sessions_title.text().startswith("5 session(s) used both mcp/calendar and mcp/email")


def test_changing_the_window_recounts(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    changed(qtbot, pane, lambda: pane.set_window_days(7))
    # Since 2026-11-15T12:00 both skills were used in blazor-session (11-18, 11-21) and e5d3.
    i, j = cell(pane, "mcp/calendar", "mcp/email")
    assert pane.view.data.together[i, j] == 2
    assert pane.report.stats.window.days == 7
    changed(qtbot, pane, lambda: pane.set_date_range(QDate(2026, 11, 3), QDate(2026, 11, 3)))
    assert pane.date_from.isVisible()
    assert sorted(pane.view.data.names) == ["mcp/calendar", "mcp/email", "plan-meeting"]  # a41f only
    assert pane.view.data.together.max() == 1
    changed(qtbot, pane, lambda: pane.set_window_days(0))
    assert len(pane.report.stats.events) == 35  # every line of the fixture's 7 usage files


def test_changing_the_measure_changes_values_legend_and_colours(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    table_before = pane.view.image.colorTable()
    changed(qtbot, pane, lambda: pane.measure_combo.setCurrentIndex(
        pane.measure_combo.findData(Measure.LIFT.value)))
    i, j = cell(pane, "mcp/calendar", "mcp/email")
    assert pane.view.data.values[i, j] == pytest.approx(6 * 5 / (5 * 5))
    assert pane.legend.title().startswith("Lift (observed / expected) — log scale")
    assert pane.view.image.colorTable() != table_before
    changed(qtbot, pane, lambda: pane.measure_combo.setCurrentIndex(
        pane.measure_combo.findData(Measure.JACCARD.value)))
    assert pane.view.data.values[i, j] == pytest.approx(1.0)
    assert pane.legend.title().startswith("Jaccard")


def test_see_also_overlay_marks_linked_cells(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    view = pane.view
    i, j = cell(pane, "mcp/email", "schedule-meeting")
    assert (i, j) in view.data.links
    view.set_cell_size(24)
    view.ensure_visible(i, j)
    text = QColor(view.palette().color(QPalette.ColorRole.Text)).rgb()

    def centre_colour() -> int:
        return view.viewport().grab().toImage().pixel(view.cell_center(i, j))

    assert centre_colour() == text
    pane.links_check.setChecked(False)
    assert not view.show_links
    assert centre_colour() != text
    k, m = cell(pane, "mcp/calendar", "plan-meeting")  # used together, not linked
    assert (k, m) not in view.data.links and (m, k) not in view.data.links


def test_double_clicking_a_label_opens_the_skill(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    i, _ = cell(pane, "plan-meeting", "plan-meeting")
    qtbot.mouseDClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=pane.view.row_label_center(i))
    assert win.ctx.current_skill == "plan-meeting"
    assert win.tabs.currentWidget() is win.skill_pane


def test_link_suggestion_adds_a_see_also_entry_undoably(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    tree = pane.signals_tree
    group = tree.topLevelItem(0)
    assert group.text(0) == "Link these two (3)"
    first = group.child(0)
    assert first.text(0) == "mcp/calendar + plan-meeting"
    tree.setCurrentItem(first)
    assert pane.link_button.isEnabled()
    changed(qtbot, pane, pane.link_button.click)
    assert win.ctx.library.get("mcp/calendar").see_also == ("mcp/email", "plan-meeting")
    assert tree.topLevelItem(0).text(0) == "Link these two (2)"
    i, j = cell(pane, "mcp/calendar", "plan-meeting")
    assert (i, j) in pane.view.data.links
    changed(qtbot, pane, win.ctx.undo)
    assert win.ctx.library.get("mcp/calendar").see_also == ("mcp/email",)


def test_pruning_signals_follow_the_18_month_rule(win: MainWindow) -> None:
    tree = win.usage_pane.signals_tree
    groups = {tree.topLevelItem(k).text(0): tree.topLevelItem(k) for k in range(tree.topLevelItemCount())}
    prune = groups["Pruned by the next dream (1)"]
    assert prune.child(0).text(0) == "legacy/fax-sender"
    assert prune.child(0).text(1) == "last activity 2025-04-10"
    gone = groups["Used, but no longer in the library (1)"]
    assert gone.child(0).text(0) == "old-meeting-notes"


def test_computation_off_the_ui_thread_delivers_the_newest_request(qtbot, win: MainWindow) -> None:
    pane = win.usage_pane
    pane.force_async = True
    pane.order_combo.setCurrentIndex(pane.order_combo.findData("usage"))
    pane.measure_combo.setCurrentIndex(pane.measure_combo.findData("jaccard"))
    with qtbot.waitSignal(pane.updated, timeout=5000):
        pane.refresh()
        assert pane.busy
    assert not pane.busy
    assert pane.view.data.options.measure is Measure.JACCARD
    assert pane.view.data.names[:2] == ["mcp/email", "mcp/calendar"]  # 8 and 7 uses


def test_exports_write_the_chosen_files(win: MainWindow, tmp_path: Path) -> None:
    pane = win.usage_pane
    assert pane.export_png(tmp_path / "m.png")
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pane.export_csv(tmp_path / "m.csv")
    rows = list(csv.reader((tmp_path / "m.csv").open(encoding="utf-8")))
    assert rows[0][1:] == pane.view.data.names
    i, j = cell(pane, "mcp/calendar", "mcp/email")
    assert rows[i + 1][j + 1] == "5"


def test_zoom_and_keyboard_selection(qtbot, win: MainWindow) -> None:
    view = win.usage_pane.view
    view.set_cell_size(12)
    view.zoom(2)
    assert view.cell == 16
    assert not view.auto_fit
    view.setFocus()
    view.select(0, 0, emit=False)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.selected == (0, 1)
    assert view.cell_at(QPoint(1, 1)) is None  # the corner is not a cell


def test_a_window_with_too_many_pairs_lists_the_strongest_and_says_so(
        qtbot, agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions that used many skills (RockBot's Blazor UI has one session id for everything):
    the pane counts only what fits its budget -- the pairs used together in the most sessions --
    says so, and lists a bounded number of rows per signal group."""
    from rockskills_gui.core.usage import stats as usage
    from rockskills_gui.ui.usage import usage_signals_tab

    names = [f"bulk/skill-{i:03d}" for i in range(120)]
    log = agent / "skill-usage" / "blazor-session.jsonl"
    with log.open("a", encoding="utf-8") as handle:
        for n, name in enumerate(names * 2):
            session = "blazor-session" if n < 120 else "cli-session"
            handle.write(f'{{"id":"{n:012x}","skillName":"{name}","sessionId":"{session}",'
                         f'"timestamp":"2026-11-2{1 + n % 2}T10:{n % 60:02d}:00+00:00"}}\n')
    monkeypatch.setattr(usage, "PAIR_BUDGET", 10_000)  # 2 x C(120+, 2) pair occurrences do not fit
    monkeypatch.setattr(usage_signals_tab, "SIGNALS_SHOWN", 5)
    window = open_window(qtbot, agent)
    window.show_pane("heatmap")
    pane = window.usage_pane
    qtbot.waitUntil(lambda: pane.report is not None, timeout=10_000)
    report = pane.report
    assert report is not None and not report.pairs.complete
    assert report.pairs.min_count is not None and report.pairs.min_count >= 2
    text = pane.pairs_text.toPlainText()
    words = " ".join(text.split())  # the note is wrapped
    assert "too many to count in memory" in words and f"{report.pairs.occurrences:,}" in words
    first = next(line for line in text.splitlines() if line.startswith("- "))
    assert first == report.stats.pairs[0].line()  # the strongest pair, exactly RockBot's first
    tree = pane.signals_tree
    groups = [tree.topLevelItem(k) for k in range(tree.topLevelItemCount())]
    long = [g for g in groups if int(g.text(0).rsplit("(", 1)[1].rstrip(")+").replace(",", "")) > 5]
    assert long, [g.text(0) for g in groups]  # the 120 logged skills the library does not have
    for group in long:
        total = int(group.text(0).rsplit("(", 1)[1].rstrip(")+").replace(",", ""))
        assert group.childCount() == 6
        assert group.child(5).text(0).startswith(f"… and {total - 5:,}")
    pane.wait()


def test_the_usage_table_sorts_itself_stably_and_keeps_the_selection(qtbot, win: MainWindow) -> None:
    from rockskills_gui.core.usage.report import sort_rows
    from rockskills_gui.ui.usage.usage_widgets import UsageTableModel

    pane = win.usage_pane
    table, model = pane.usage_table, pane.usage_model
    assert table.model() is model and model.sort_state == (UsageTableModel.USES, True)
    report = pane.report
    assert report is not None and report.sorted_rows == model.rows  # sorted on the worker
    uses = [row.events for row in model.rows]
    assert uses == sorted(uses, reverse=True)
    ties = [row.name for row in model.rows if row.events == uses[-1]]
    given = [row.name for row in report.rows if row.events == uses[-1]]
    assert ties == given  # equal rows keep the library order, also when descending
    table.selectRow(0)
    chosen = model.rows[0].name
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert model.sort_state == (0, False)
    assert model.rows == sort_rows(report.rows, 0, False)
    assert model.rows[table.currentIndex().row()].name == chosen  # the selection followed its row
    with qtbot.waitSignal(pane.updated, timeout=5000):
        pane.set_window_days(7)
    assert pane.report is not None and pane.report.request.table_sort == (0, False)
    assert model.rows == pane.report.sorted_rows


def test_a_big_report_is_shown_in_parts_and_complete_when_updated_fires(
        qtbot, agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rockskills_gui.ui.common import queries
    from rockskills_gui.ui.usage import usage_pane

    monkeypatch.setattr(usage_pane, "STAGED_FROM", 1)  # every report counts as big here
    monkeypatch.setattr(queries, "INLINE_BUDGET_S", 0)  # and runs on the worker
    window = open_window(qtbot, agent)
    pane = window.usage_pane
    updates: list[int] = []
    pane.updated.connect(lambda: updates.append(pane.usage_model.rowCount()))
    with qtbot.waitSignal(pane.updated, timeout=10_000):
        window.show_pane("heatmap")
    report = pane.report
    assert report is not None and updates == [len(report.rows)]  # once, with everything shown
    assert pane.view.data is report.heatmap
    assert pane.pairs_text.toPlainText().splitlines()[1] == "- mcp/calendar + mcp/email: 5 session(s)"
    assert pane.signals_tree.topLevelItemCount() > 0
    with qtbot.waitSignal(pane.updated, timeout=10_000):
        pane.set_window_days(7)
        pane.set_window_days(0)  # supersedes the 7-day request before it is shown
    assert pane.report is not None and pane.report.stats.window.describe() == "all time"
    assert "all time" in pane.pairs_text.toPlainText().splitlines()[0]
    pane.wait()


def test_the_analysis_says_it_is_out_of_date_after_events_are_appended(
        qtbot, win: MainWindow, agent: Path) -> None:
    """Issue 16: the cached analysis knows the log it was made from; appended events (a running
    agent) mark it out of date until Reload log."""
    pane = win.usage_pane
    assert isinstance(pane, UsagePane)
    before = len(pane.report.stats.events)
    assert not pane.check_log() and not pane.stale.isVisible()
    with (agent / "skill-usage" / "cli-session.jsonl").open("a", encoding="utf-8") as log:
        log.write('{"id":"feedfacecafe","skillName":"mcp/email","sessionId":"cli-session",'
                  '"timestamp":"2026-11-22T11:00:00+00:00"}\n')
    assert pane.check_log() and pane.stale.isVisible()
    assert "out of date" in pane.stale.text().lower()
    assert "new events" in pane.reload_button.text()
    changed(qtbot, pane, pane.reload_button.click)
    assert len(pane.report.stats.events) == before + 1
    assert not pane.check_log() and not pane.stale.isVisible()


def test_a_4gb_usage_log_is_named_with_its_reason_and_the_rest_is_counted(qtbot, agent: Path) -> None:
    """A 4 GB sparse log was read whole (MemoryError): now it is not read, and the tab says why."""
    with open(agent / "skill-usage" / "zz-huge.jsonl", "wb") as handle:
        handle.truncate(4 << 30)
    window = open_window(qtbot, agent)
    window.show_pane("heatmap")
    pane = window.usage_pane
    qtbot.waitUntil(lambda: pane.report is not None, timeout=10000)
    assert len(pane.report.stats.events) == 32
    assert "skill-usage/zz-huge.jsonl: larger than 256 MB (4 GB): not read" in pane.summary.text()
    pane.wait()
