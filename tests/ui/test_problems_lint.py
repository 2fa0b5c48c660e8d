"""Issue #15: lint findings in the Problems dock, beside load problems, following every change
(off the UI thread, debounced, only while the dock is shown); one generic row model."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt

from rockskills_gui.ui.common.models import ROW_ROLE, Column, RowModel
from rockskills_gui.ui.library import problems_pane
from rockskills_gui.ui.library.problems_pane import LINT_GROUP, LOAD_GROUP
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import open_window


def dangle(agent: Path, name: str, target: str) -> None:
    path = agent / "skills" / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["seeAlso"] = [target]
    path.write_text(json.dumps(data), encoding="utf-8")


def lint_rows(window: MainWindow) -> list[tuple[str, str, str]]:
    """(severity, skill, kind) of every lint row the dock shows."""
    model = window.problems_pane.lint_model
    return [tuple(model.index(r, c).data() for c in range(3)) for r in range(model.rowCount())]  # type: ignore[misc]


def wait_for_lint(qtbot, window: MainWindow) -> None:
    pane = window.problems_pane
    qtbot.waitUntil(lambda: not pane.linter.busy and not pane._lint_stale, timeout=20_000)


def test_a_dangling_see_also_is_a_lint_row_until_fixed(qtbot, agent: Path) -> None:
    dangle(agent, "a2a", "no-such-skill")
    window = open_window(qtbot, agent)
    pane = window.problems_pane
    assert window.problems_dock.isVisible()  # the dangling see-also is a load-time skill problem
    wait_for_lint(qtbot, window)
    assert ("warning", "a2a", "see-also-dangling") in lint_rows(window)
    assert pane.groups.tabText(LINT_GROUP).startswith("Lint (")
    # Lint does not repeat what the load group lists as a file problem.
    assert not any(kind == "parse-error" for _s, _n, kind in lint_rows(window))

    pane.groups.setCurrentIndex(LINT_GROUP)
    assert pane.lint_view.isVisible() and not pane.view.isVisible()
    row = next(r for r, (_s, name, kind) in enumerate(lint_rows(window))
               if name == "a2a" and kind == "see-also-dangling")
    index = pane.lint_model.index(row, 0)
    pane.lint_view.scrollTo(index)
    center = pane.lint_view.visualRect(index).center()
    with qtbot.waitSignal(pane.openSkillRequested) as opened:
        qtbot.mouseClick(pane.lint_view.viewport(), Qt.MouseButton.LeftButton, pos=center)
        qtbot.mouseDClick(pane.lint_view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    assert opened.args == ["a2a"]
    assert window.ctx.current_skill == "a2a"
    assert window.tabs.currentWidget() is window.skill_pane

    # The fix (one undoable core operation) takes the row away; undo brings it back.
    with qtbot.waitSignal(pane.lintFinished, timeout=20_000):
        window.ctx.apply(lambda lib: lib.update("a2a", see_also=[]))
    assert not any(name == "a2a" and kind == "see-also-dangling"
                   for _s, name, kind in lint_rows(window))
    with qtbot.waitSignal(pane.lintFinished, timeout=20_000):
        window.ctx.undo()
    assert ("warning", "a2a", "see-also-dangling") in lint_rows(window)


def test_a_burst_of_changes_lints_once_and_a_hidden_dock_of_a_large_library_not_at_all(qtbot, agent: Path,
                                                                    monkeypatch) -> None:
    window = open_window(qtbot, agent)
    pane = window.problems_pane
    window.problems_dock.show()
    wait_for_lint(qtbot, window)
    runs: list[object] = []
    pane.lintFinished.connect(lambda: runs.append(pane.findings))
    for k in range(5):  # five saves in a row: one lint after the pause
        window.ctx.apply(lambda lib, k=k: lib.update("a2a", see_also=[f"missing-{k}"]))
    assert pane.linter.busy
    wait_for_lint(qtbot, window)
    qtbot.wait(50)
    assert len(runs) == 1
    assert [n for _s, n, kind in lint_rows(window) if kind == "see-also-dangling"] == ["a2a"]
    assert "missing-4" in pane.lint_model.index(
        next(r for r, row in enumerate(lint_rows(window)) if row[2] == "see-also-dangling"),
        3).data()

    window.problems_dock.hide()
    monkeypatch.setattr(problems_pane, "LINT_LARGE", 0)  # a library large enough to wait
    window.ctx.apply(lambda lib: lib.update("a2a", see_also=[]))
    qtbot.wait(600)  # longer than the debounce
    assert not pane.linter.busy and pane._lint_stale and len(runs) == 1  # nothing ran
    with qtbot.waitSignal(pane.lintFinished, timeout=20_000):
        window.problems_dock.show()  # shown: it catches up
    assert not any(kind == "see-also-dangling" for _s, _n, kind in lint_rows(window))


def test_the_severity_filter_and_the_groups(qtbot, agent: Path) -> None:
    dangle(agent, "a2a", "a2a")  # see-also-self: a warning
    window = open_window(qtbot, agent)
    pane = window.problems_pane
    wait_for_lint(qtbot, window)
    everything = lint_rows(window)
    assert {s for s, _n, _k in everything} >= {"warning", "info"}
    pane.severity.setCurrentIndex(1)  # errors and warnings
    assert {s for s, _n, _k in lint_rows(window)} == {"warning"}
    pane.severity.setCurrentIndex(2)  # errors only: this library has none
    assert lint_rows(window) == []
    pane.groups.setCurrentIndex(LINT_GROUP)
    assert pane.lint_empty.isVisible() and "severity" in pane.lint_empty.text()
    assert pane.severity.isVisible()
    pane.groups.setCurrentIndex(LOAD_GROUP)
    assert not pane.severity.isVisible() and pane.skills_view.isVisible()
    pane.severity.setCurrentIndex(0)
    assert lint_rows(window) == everything


def test_a_reopened_library_drops_the_old_findings(qtbot, agent: Path, tmp_path: Path) -> None:
    dangle(agent, "a2a", "no-such-skill")
    window = open_window(qtbot, agent)
    pane = window.problems_pane
    wait_for_lint(qtbot, window)
    assert lint_rows(window)
    window.ctx.set_library(None)
    assert lint_rows(window) == [] and pane.findings == []
    assert not pane.linter.busy


# ---------------------------------------------------------------- the generic pieces


def test_row_model_is_a_valid_sortable_table(qtmodeltester) -> None:
    model: RowModel[tuple[str, int]] = RowModel((
        Column("Name", lambda r: r[0], tooltip=lambda r: f"name {r[0]}"),
        Column("Count", lambda r: r[1], align=Qt.AlignmentFlag.AlignRight, header_tip="How many",
               roles={Qt.ItemDataRole.UserRole: lambda r: r[1] * 2}),
    ), roles={Qt.ItemDataRole.UserRole + 7: lambda r: r[0].upper()}, sort_role=Qt.ItemDataRole.UserRole + 9)
    model.set_rows([("b", 2), ("a", 3), ("c", 1)])
    qtmodeltester.check(model)
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Count"
    assert model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == "How many"
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "name b"
    assert model.index(0, 1).data(Qt.ItemDataRole.TextAlignmentRole) == int(
        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    assert model.index(0, 1).data(Qt.ItemDataRole.UserRole) == 4
    assert model.index(0, 1).data(Qt.ItemDataRole.UserRole + 7) == "B"
    assert model.index(1, 1).data(ROW_ROLE) == ("a", 3)
    assert model.index(1, 1).data(Qt.ItemDataRole.UserRole + 9) == 3
    from PySide6.QtCore import QPersistentModelIndex

    held = QPersistentModelIndex(model.index(2, 0))  # ("c", 1)
    model.sort(1, Qt.SortOrder.DescendingOrder)
    assert [model.index(r, 0).data() for r in range(3)] == ["a", "b", "c"]
    assert held.row() == 2 and held.data() == "c"
    model.sort(0)
    assert held.row() == 2
    model.set_rows([("z", 0), ("y", 9)])  # new rows keep the sort
    assert [model.index(r, 0).data() for r in range(2)] == ["y", "z"]
    assert model.find(lambda r: r[0] == "z") == 1 and model.row_at(5) is None
    assert model.index(0, 0, model.index(0, 0)).isValid() is False
    assert model.rowCount(model.index(0, 0)) == 0 and model.data(QModelIndex()) is None


def test_a_pane_role_wins_over_the_generic_ones(window: MainWindow) -> None:
    """The palette's menu role (a user role) answers the menu's name, not the row object."""
    from rockskills_gui.ui.shell.palette import MENU_ROLE, SHORTCUT_ROLE, CommandModel, palette_commands

    model = CommandModel()
    model.set_commands(palette_commands(window.commands))
    assert model.rowCount() > 10
    menus = {model.index(r, 0).data(MENU_ROLE) for r in range(model.rowCount())}
    assert menus and all(isinstance(m, str) for m in menus)
    assert all(isinstance(model.index(r, 0).data(SHORTCUT_ROLE), str) for r in range(model.rowCount()))
    assert model.index(0, 0).data(ROW_ROLE) is model.commands[0]


def test_a_large_library_is_linted_when_asked(qtbot, agent: Path, monkeypatch) -> None:
    monkeypatch.setattr(problems_pane, "LINT_AUTO_MAX", 5)  # the fixture's 24 skills are "large"
    dangle(agent, "a2a", "no-such-skill")
    window = open_window(qtbot, agent)
    pane = window.problems_pane
    assert window.problems_dock.isVisible()
    qtbot.wait(600)
    assert not pane.linter.busy and lint_rows(window) == []
    pane.groups.setCurrentIndex(LINT_GROUP)
    assert pane.lint_button.isVisible() and "Run Lint" in pane.lint_empty.text()
    with qtbot.waitSignal(pane.lintFinished, timeout=20_000):
        qtbot.mouseClick(pane.lint_button, Qt.MouseButton.LeftButton)
    assert ("warning", "a2a", "see-also-dangling") in lint_rows(window)
    window.ctx.apply(lambda lib: lib.update("a2a", see_also=[]))
    qtbot.wait(600)
    assert not pane.linter.busy  # a change does not re-lint a large library by itself
    assert "before the last change" in pane.lint_status.text()
