"""Issue #18 at real window sizes: a readable heatmap that uses its canvas, names elided in the
middle, columns sized by priority, room for the query-set name and the Compare ranking, the
editor's empty states (no library, a new skill)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo, QFontMetrics, QPalette
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.app.demo import install_demo
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.layout_audit import audit
from rockskills_gui.ui.shell.gallery import Studio, settle, wait_until
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.usage.heatmap_view import HeatmapView

SMALL, MEDIUM, LARGE = (1280, 720), (1400, 900), (1920, 1080)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_demo(tmp_path_factory.mktemp("demo") / "demo")


@pytest.fixture
def studio(qapp, demo: Path, tmp_path: Path, no_quit_on_close) -> Iterator[Studio]:
    studio = Studio(demo, tmp_path / "studio")
    yield studio
    studio.close()


def usage_at(studio: Studio, size: tuple[int, int], problems: bool = False) -> HeatmapView:
    studio.pose_usage(0, problems=problems)
    studio.size_window(size)
    settle()
    return studio.window.usage_pane.view


def app_pixels() -> int:
    return QFontInfo(QApplication.font()).pixelSize()


# ---------------------------------------------------------------- heatmap


@pytest.mark.parametrize(("size", "problems"), [(SMALL, False), (MEDIUM, True), (MEDIUM, False)])
def test_heatmap_labels_are_never_smaller_than_the_ui_font(studio: Studio, size: tuple[int, int],
                                                          problems: bool) -> None:
    view = usage_at(studio, size, problems)
    assert studio.window.problems_dock.isVisible() == problems
    data = view.data
    assert data is not None and len(data) > 30
    for font in view.audit_fonts():
        assert QFontInfo(font).pixelSize() >= app_pixels()
    line = QFontMetrics(view.audit_fonts()[0]).height()
    # What is labelled has a line of text of room: every row, every k-th row or a name family.
    rows = view.labelled(view.ch, 0, len(data))
    if rows:
        assert len(rows) < 2 or (rows[1] - rows[0]) * view.ch >= line
    else:
        assert data.bands and any((b.stop - b.start) * view.ch >= line for b in data.bands)
    assert not [f for f in audit([studio.window]) if f.rule == "small-font"]


@pytest.mark.parametrize(("size", "problems"), [(SMALL, False), (MEDIUM, True)])
def test_the_fitted_matrix_uses_the_whole_canvas(studio: Studio, size: tuple[int, int],
                                                 problems: bool) -> None:
    view = usage_at(studio, size, problems)
    n = len(view.data)
    width = view.viewport().width() - view.gutter
    height = view.viewport().height() - view.gutter
    assert n * view.cw > width - n - 2 and n * view.cw <= width  # within a cell of each side
    assert n * view.ch > height - n - 2 and n * view.ch <= height
    assert view.horizontalScrollBar().maximum() == 0 and view.verticalScrollBar().maximum() == 0


def test_fit_enlarges_as_well_as_shrinks_and_zoom_scrolls(studio: Studio) -> None:
    view = usage_at(studio, MEDIUM)
    fitted = (view.cw, view.ch)
    view.zoom(-3)
    assert view.cell < min(fitted) and not view.auto_fit
    view.fit()
    assert (view.cw, view.ch) == fitted  # Fit enlarged it again
    view.zoom(4)
    assert view.cell > min(fitted)
    assert view.horizontalScrollBar().maximum() > 0 and view.verticalScrollBar().maximum() > 0
    pane = studio.window.usage_pane
    pane.prefix_edit.setText("research/")  # a few skills fill the canvas with large cells
    assert wait_until(lambda: pane.view.data is not None and len(pane.view.data) <= 8, 10)
    pane.view.fit()
    assert pane.view.cell >= 32 and pane.view.every_row()


def test_unlabelled_rows_name_their_skill_on_hover(studio: Studio) -> None:
    view = usage_at(studio, SMALL)
    data = view.data
    assert data is not None and not view.every_row()  # 45 skills in 1280×720: not all labelled
    for row in range(len(data)):
        assert view.hover_text(view.row_label_center(row)).startswith(data.label(row))
        assert view.hover_text(view.column_label_center(row)).startswith(data.label(row))


@pytest.mark.parametrize("size", [SMALL, LARGE])
@pytest.mark.parametrize("order", ["cluster", "name"])
def test_heatmap_labels_stay_whole_name_the_selected_row_and_every_family(
        studio: Studio, order: str, size: tuple[int, int]) -> None:
    """Issue 35 item 7: the clustered order's top row label was half under the column labels,
    a selected row could have no name, and a one-row family had no label at 1280×720."""
    view = usage_at(studio, size)
    pane = studio.window.usage_pane
    pane.order_combo.setCurrentIndex(pane.order_combo.findData(order))
    assert wait_until(lambda: not pane.busy and view.data is not None
                      and bool(view.data.bands) == (order == "name"), 15)
    view.fit()
    settle()
    data = view.data
    step = view.label_step(view.ch)
    row = next(r for r in range(1, len(data)) if r % step) if step > 1 else 7
    view.select(row, 2)
    settle()
    line = QFontMetrics(view.audit_fonts()[0]).height()
    for rows in (True, False):
        placed = view.placed_labels(rows)
        assert placed, rows
        end = (view.viewport().height() if rows else view.viewport().width())
        for label in placed:  # inside the label strip, whole
            assert view.gutter <= label.top and label.top + label.size <= end, (rows, label)
        ordered = sorted(placed, key=lambda p: p.top)
        assert all(a.top + a.size <= b.top for a, b in itertools.pairwise(ordered)), rows
        picked = [p for p in placed if p.selected]
        assert len(picked) == 1, rows  # the selected row (column) is named
        assert data.label(row if rows else 2).endswith(view.label_text(rows, picked[0]))
        if data.bands and step > 1 and len(data.bands) * line <= end - view.gutter:
            assert {p.key for p in placed if not p.selected} == set(range(len(data.bands)))
    # The selected row's name is painted where its row is: highlight in the label strip.
    image = view.viewport().grab().toImage()
    y = view.cell_rect(row, 0).center().y()
    highlight = view.palette().color(QPalette.ColorRole.Highlight).rgb()
    assert any(image.pixel(x, y) == highlight for x in range(2, view.gutter - 2))


# ---------------------------------------------------------------- names and columns


@pytest.mark.parametrize("size", [SMALL, MEDIUM])
def test_the_usage_table_elides_names_in_the_middle(studio: Studio, size: tuple[int, int]) -> None:
    usage_at(studio, size)
    table = studio.window.usage_pane.usage_table
    assert not table.wordWrap() and table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert not [f for f in audit([table]) if f.rule in ("ambiguous", "cramped")]
    model = table.model()
    shown = set()
    metrics = table.fontMetrics()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        rect = table.visualRect(index)
        if rect.bottom() < 0 or rect.top() > table.viewport().height():
            continue
        shown.add(metrics.elidedText(index.data(), Qt.TextElideMode.ElideMiddle, rect.width() - 8))
    names = {model.index(r, 0).data() for r in range(model.rowCount())}
    assert "research/summarize-paper" in names and "research/summarize-article" in names
    assert "research/…" not in shown


@pytest.mark.parametrize("tab", ["session", "signals", "sessions"])
def test_detail_columns_need_no_horizontal_scroll_bar(studio: Studio, tab: str) -> None:
    if tab == "session":
        studio.pose_recall("session")
        view = studio.window.recall_pane.session_panel.tree
    else:
        studio.pose_usage(3 if tab == "signals" else 2)
        pane = studio.window.usage_pane
        view = pane.signals_tree if tab == "signals" else pane.sessions_tree
    studio.size_window(SMALL)
    settle()
    assert view.isVisible() and view.topLevelItemCount() > 0
    assert view.horizontalScrollBar().maximum() == 0 or not view.horizontalScrollBar().isVisible()
    header = view.header()
    assert header.length() <= view.viewport().width() + 1
    assert view.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_the_new_query_set_name_field_has_room(studio: Studio) -> None:
    studio.pose_recall("sets")
    studio.size_window(SMALL)
    settle()
    field = studio.window.recall_pane.sets_panel.new_name
    assert field.isVisible()
    assert field.width() >= field.fontMetrics().horizontalAdvance(field.placeholderText()) + 8
    assert field.width() >= 12 * field.fontMetrics().averageCharWidth()


@pytest.mark.parametrize("size", [SMALL, MEDIUM])
def test_compare_shows_skill_names_and_its_choice_in_full(studio: Studio,
                                                          size: tuple[int, int]) -> None:
    studio.pose_recall("compare")
    studio.size_window(size)
    settle()
    pane = studio.window.recall_pane
    assert pane.compare_table.isVisible()
    for table in (pane.table, pane.compare_table):
        model = table.model()
        metrics = table.fontMetrics()
        column = 1 if table is pane.table else 2
        assert model.rowCount() >= 5
        for row in range(5):
            index = model.index(row, column)
            assert table.visualRect(index).width() - 8 >= metrics.horizontalAdvance(index.data()), (
                index.data(), table.visualRect(index).width())
    box = pane.compare_box
    assert box.width() >= box.sizeHint().width()  # every choice fits: AdjustToContents
    assert not [f for f in audit([pane]) if f.rule in ("clipped", "cramped", "ambiguous")]


# ---------------------------------------------------------------- editor empty states


def test_with_no_library_the_editor_says_to_open_one(qtbot) -> None:
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.resize(*SMALL)
    window.show()
    window.show_pane("editor")
    text = window.skill_pane.empty_label.text()
    assert window.skill_pane.empty_label.isVisible()
    assert "Ctrl+P" not in text and "Open Library" in text and "Ctrl+O" in text


def test_a_new_skill_has_a_placeholder_and_the_editor_has_the_focus(qtbot, agent: Path) -> None:
    from tests.ui.conftest import open_window

    window = open_window(qtbot, agent)
    window.activateWindow()
    tree = window.library_pane
    tree.filter.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree.filter)
    dialog = tree.new_skill("")
    assert dialog is not None
    dialog.name.setText("drafts/fresh-idea")
    dialog.accept()
    editor = window.skill_pane.editor
    qtbot.wait(50)
    window.activateWindow()  # (a window manager does this when the dialog closes)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is editor, timeout=3000)
    assert window.tabs.currentWidget() is window.skill_pane
    assert window.ctx.current_skill == "drafts/fresh-idea"
    assert editor.document().isEmpty() and editor.isEnabled()
    assert "Markdown" in editor.placeholderText()
    assert editor.extraSelections() == []  # no current-line band over the placeholder
