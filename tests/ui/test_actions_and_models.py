"""The action registry (one place for titles, shortcuts, placement) and the item models."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.ui.common.actions import ACTIONS, MENUS, TOOLBAR
from rockskills_gui.ui.common.models import ProblemsModel, SkillListModel
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.shell.palette import CommandPalette


def test_specs_are_unique_and_placed() -> None:
    ids = [spec.id for spec in ACTIONS]
    assert len(ids) == len(set(ids))
    menus = {key for key, _ in MENUS}
    assert all(spec.menu in menus for spec in ACTIONS if spec.menu is not None)
    by_id = {spec.id: spec for spec in ACTIONS}
    assert all(by_id[i].toolbar for i in TOOLBAR if i is not None)


def test_shortcuts_do_not_clash(window: MainWindow) -> None:
    seen: dict[str, str] = {}
    for spec, action in window.commands:
        for sequence in action.shortcuts():
            key = sequence.toString(QKeySequence.SequenceFormat.PortableText)
            assert key not in seen, f"{spec.id} and {seen[key]} share {key}"
            seen[key] = spec.id
    assert window.commands["file.open"].shortcut() == QKeySequence("Ctrl+O")
    assert window.commands["file.quit"].shortcut() == QKeySequence("Ctrl+Q")


def test_menus_and_toolbar_are_built_from_the_registry(window: MainWindow) -> None:
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == [title for _, title in MENUS]
    file_menu = window.menus["file"]
    names = [a.objectName() for a in file_menu.actions() if not a.isSeparator()]
    assert names[:4] == ["file.open", "file.recent", "file.reopen_as", "file.demo"]
    assert names[-1] == "file.quit"
    view_names = [a.objectName() for a in window.menus["view"].actions()]
    assert "view.library" in view_names and "view.problems" in view_names
    toolbar = [a.iconText() for a in window.toolbar.actions() if not a.isSeparator()]
    assert toolbar == ["Open", "New skill", "Save", "Recall", "Usage", "Dream…", "Commands"]


def test_command_palette_runs_a_command(window: MainWindow, qtbot) -> None:
    palette = CommandPalette(window.commands, window)
    qtbot.addWidget(palette)
    palette.show()
    qtbot.keyClicks(palette.query, "usage heat")
    assert palette.proxy.rowCount() == 1
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert window.tabs.currentWidget() is window.usage_pane
    shown = [a.objectName() for a in palette.actions_shown]
    assert "file.save" not in shown  # disabled commands are not offered


def test_skill_list_model(qtmodeltester, agent) -> None:
    model = SkillListModel()
    model.set_skills(RockBotLibrary.open(agent).listed())
    qtmodeltester.check(model)
    assert model.rowCount() == 24
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_problems_model(qtmodeltester) -> None:
    model = ProblemsModel()
    model.set_problems([
        Problem(path="skills/a.json", kind=ProblemKind.PARSE_ERROR, message="bad JSON"),
        Problem(path="skills/B.json", kind=ProblemKind.CASE_COLLISION, message="case"),
    ])
    qtmodeltester.check(model)
    assert model.headerData(2, Qt.Orientation.Horizontal) == "Message"
    assert model.index(1, 1).data() == "case-collision"
