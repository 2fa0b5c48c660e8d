"""The window paints before its editor, health table and accessible names exist (issue 19), and
nothing a user can do in that moment is lost: a skill opened or created, an editor command, a
file changed on disk. After the first paint the window finishes building by itself."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QApplication, QSplitter

from rockskills_gui.ui.common.accessibility import unnamed_controls
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_face import EMPTY_TEXT, EmptySkillPage
from rockskills_gui.ui.editor.editor_pane import EditorPane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import open_window
from tests.ui.test_editor_pane import editor_text
from tests.ui.test_main_window import list_names


def _skill_names(agent: Path) -> list[str]:
    names = []
    for path in sorted((agent / "skills").rglob("*.json")):
        names.append(json.loads(path.read_text("utf-8-sig"))["name"])
    return names


def test_the_skill_tab_paints_its_empty_page_first_and_the_rest_follows(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    assert window.deferred.skill.built is None and window.deferred.health is None  # (no paint yet)
    placeholder = window.tabs.widget(0)
    assert isinstance(placeholder, EmptySkillPage)
    assert window.tabs.tabText(0) == "Skill" and placeholder.label.text() == EMPTY_TEXT
    for action_id in ("file.save", "edit.find", "view.focus_editor"):
        assert not window.commands[action_id].isEnabled()  # no skill is open
    qtbot.waitUntil(lambda: window.startup_finished, timeout=5000)  # after the first paint
    assert isinstance(window.tabs.widget(0), EditorPane) and window.tabs.tabText(0) == "Skill"
    assert window.tabs.currentIndex() == 0
    assert window.health_dock.widget() is window.health_pane
    assert unnamed_controls(window) == []
    assert window.commands["view.layout_split"].isChecked()  # the layout in force


def test_the_window_starts_without_a_splitter(qtbot) -> None:
    """SplitterMemory does not scan the window at start: each pane with a splitter is watched as
    it is built. A splitter in the window's own start would not be remembered."""
    window = MainWindow(AppContext(), interactive=True)
    qtbot.addWidget(window)
    assert window.findChildren(QSplitter) == []


def test_a_skill_opened_before_the_editor_exists_is_shown(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    name = _skill_names(agent)[0]
    assert window.deferred.skill.built is None
    assert window.ctx.select_skill(name)
    pane = window.skill_pane
    assert pane.current is not None and pane.current.name == name
    body = window.ctx.library.get(name).content
    assert editor_text(pane).splitlines() == body.splitlines()  # (the editor shows \n lines)
    assert window.commands["edit.find"].isEnabled()


def test_an_editor_command_before_the_editor_exists_runs_it(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    assert window.deferred.skill.built is None
    window.commands["view.layout_preview"].trigger()
    assert window.deferred.skill.built is not None and window.skill_pane.mode == "preview"
    assert window.commands["view.layout_preview"].isChecked()


def test_a_skill_created_before_the_editor_exists_gets_the_focus(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    window.activateWindow()
    assert window.deferred.skill.built is None
    window.new_skill("drafts/early-bird")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.skill_pane.editor, timeout=3000)
    assert window.skill_pane.current is not None
    assert window.skill_pane.current.name == "drafts/early-bird"


def test_a_change_on_disk_before_the_editor_exists_is_noticed(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    assert window.deferred.skill.built is None
    source = sorted((agent / "skills").rglob("*.json"))[0]
    data = json.loads(source.read_text("utf-8-sig"))
    data["name"] = "added-outside"
    (agent / "skills" / "added-outside.json").write_text(json.dumps(data), encoding="utf-8")
    qtbot.waitUntil(lambda: "added-outside" in list_names(window), timeout=5000)


def test_quitting_before_the_editor_exists_asks_nothing(qtbot, agent: Path) -> None:
    window: MainWindow = open_window(qtbot, agent)
    assert window.unsaved_edits() == []
    assert window.close()
    assert window.deferred.skill.built is None


def test_the_first_frame_is_laid_out_for_the_library(qtbot, tmp_path: Path) -> None:
    """The window shows as its library arrives (app.main: show_when_loaded): the first frame the
    tree paints is already laid out for that library (the Problems tabs' new titles fit, the
    status message has the room beside the path) — no frame with a stale layout."""
    import shutil

    from tests.ui.conftest import make_writable

    demo = make_writable(shutil.copytree(Path(__file__).parents[2] / "resources" / "demo-library",
                                         tmp_path / "demo"))
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    seen: dict[str, object] = {}

    def painted() -> None:
        if "bar" not in seen and window.library_pane.model.rowCount() > 0:
            bar = window.problems_pane.groups
            seen["bar"] = (bar.width(), bar.sizeHint().width(), bar.tabText(0))
            seen["message"] = window.statusBar().currentMessage()

    window.library_pane.view.painted.connect(painted)
    window.show_when_loaded(60_000)
    assert not window.isVisible()
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_path(demo)
    assert window.isVisible()
    qtbot.waitUntil(lambda: "bar" in seen, timeout=5000)
    width, wanted, title = seen["bar"]  # type: ignore[misc]
    assert title.startswith("Load problems (") and width >= wanted, seen
    assert seen["message"] == window.statusBar().full_message(), seen  # not elided
