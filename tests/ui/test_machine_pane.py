"""The Machine tab (issue 33), driven offscreen in the real window over a generated home folder
(tests/machine_home.py; ctx.home points there, never at the real one): every root and skill,
copies marked by digest, copy/link/enable/disable/batch archive through the preview with undo,
the Budget tab following a disable, accepting a gate finding, opening a root as the library."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.machine.machine_pane import MachinePane
from rockskills_gui.ui.machine.machine_rows import COPY_ROLE, ROOT_ROLE
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.machine_home import FakeHome, build_home, tree_bytes
from tests.ui.conftest import open_window


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return build_home(tmp_path)


@pytest.fixture
def win(qtbot, fake: FakeHome) -> Iterator[MainWindow]:
    ctx = AppContext()
    ctx.home = fake.home
    window = open_window(qtbot, fake.gemini, ctx)
    yield window
    window.loader.cancel()
    window.loader.wait()


def machine(qtbot, win: MainWindow, fake: FakeHome) -> MachinePane:
    pane = win.machine_pane
    win.show_pane("machine")
    qtbot.waitUntil(lambda: pane.machine is not None and not pane.busy, timeout=10_000)
    with qtbot.waitSignal(pane.scanned, timeout=10_000):
        pane.add_project(fake.project)
    return pane


def click(qtbot, pane: MachinePane, name: str) -> None:
    button = pane.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def apply_preview(qtbot, pane: MachinePane) -> list[str]:
    """Click Apply in the open preview; the lines it showed."""
    dialog = pane.preview
    assert dialog is not None and dialog.isVisible()
    shown = dialog.text.toPlainText().splitlines()
    with qtbot.waitSignal(pane.scanned, timeout=10_000):
        qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    return shown


def undo(qtbot, pane: MachinePane) -> None:
    with qtbot.waitSignal(pane.scanned, timeout=10_000):
        click(qtbot, pane, "machineUndo")


def copy_rows(pane: MachinePane, name: str) -> list:
    return [item for item in pane._items() if item.data(0, COPY_ROLE) is not None and item.text(0) == name]


def test_every_root_and_skill_with_copies_marked(qtbot, win: MainWindow, fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    assert win.tabs.currentWidget() is pane
    roots = {pane.roots.topLevelItem(i).data(0, ROOT_ROLE).path
             for i in range(pane.roots.topLevelItemCount())}
    assert {fake.claude, fake.agents, fake.codex, fake.gemini, fake.project / ".claude" / "skills",
            fake.project / ".gemini" / "skills", fake.project / ".agents" / "skills"} <= roots
    tops = {pane.skills.topLevelItem(i).text(0): pane.skills.topLevelItem(i)
            for i in range(pane.skills.topLevelItemCount())}
    assert tops["pdf-tools"].text(2) == "different" and tops["mcp-builder"].text(2) == "identical"
    marks = {row.data(0, COPY_ROLE).root.path: row.text(1) for row in copy_rows(pane, "pdf-tools")}
    assert marks[fake.claude] == marks[fake.gemini] != marks[fake.agents]
    assert any(row.text(3).endswith("$(id)") for row in copy_rows(pane, "shell-name"))
    edited = copy_rows(pane, "edited-after")[0]
    assert "acme/skills: changed since install" in edited.text(4)
    pane.filter.setText("merge docx")  # a filter: name, description, path, tags... of any copy
    assert pane.skills.topLevelItemCount() == 0
    pane.filter.setText("merge PDF forms")
    assert [pane.skills.topLevelItem(i).text(0) for i in range(pane.skills.topLevelItemCount())] == [
        "pdf-tools"]


def test_copy_then_undo(qtbot, win: MainWindow, fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    pane = machine(qtbot, win, fake)
    assert pane.select_copy(fake.gemini / "gem-only")
    pane.set_target(fake.claude)
    click(qtbot, pane, "machineCopy")
    assert pane.preview is not None and pane.preview.findChild(QPushButton) is not None
    shown = apply_preview(qtbot, pane)
    assert any(line.startswith(f"create {fake.claude / 'gem-only' / 'SKILL.md'}") for line in shown)
    rows = copy_rows(pane, "gem-only")
    assert len(rows) == 2 and {r.text(1) for r in rows} == {"A"}
    assert any("identical" in r.text(4) for r in rows)
    undo(qtbot, pane)
    assert len(copy_rows(pane, "gem-only")) == 1
    assert tree_bytes(fake.home) == before


def test_link_then_undo(qtbot, win: MainWindow, fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    pane.select_copy(fake.gemini / "gem-only")
    pane.set_target(fake.codex)
    click(qtbot, pane, "machineLink")
    apply_preview(qtbot, pane)
    assert (fake.codex / "gem-only").is_symlink()
    assert any("link to" in r.text(4) for r in copy_rows(pane, "gem-only"))
    undo(qtbot, pane)
    assert not (fake.codex / "gem-only").is_symlink()


def test_disable_for_gemini_dims_the_copy_and_the_budget_tab_follows(qtbot, win: MainWindow,
                                                                       fake: FakeHome) -> None:
    budget = win.budget_pane
    budget.agent_box.setCurrentIndex(budget.agent_box.findData("gemini-cli"))
    budget.refresh()
    assert "pdf-tools" in budget.budget.listed
    pane = machine(qtbot, win, fake)
    pane.select_copy(fake.gemini / "pdf-tools")
    pane.set_agent("gemini-cli")
    click(qtbot, pane, "machineDisable")
    shown = apply_preview(qtbot, pane)
    assert any(str(fake.home / ".gemini" / "settings.json") in line for line in shown)
    row = next(r for r in copy_rows(pane, "pdf-tools") if r.data(0, COPY_ROLE).root.path == fake.gemini)
    assert "off for Gemini CLI" in row.text(4)
    dim = pane.dim_colour()
    assert row.foreground(0).color() == dim
    on = next(r for r in copy_rows(pane, "pdf-tools") if r.data(0, COPY_ROLE).root.path == fake.claude)
    assert on.foreground(0).color() != dim
    # the Budget tab recomputes on ctx.machineChanged (no refresh asked for here)
    qtbot.waitUntil(lambda: "pdf-tools" not in budget.budget.listed, timeout=5000)
    hidden = {budget.hidden_list.topLevelItem(i).text(0): budget.hidden_list.topLevelItem(i).text(1)
              for i in range(budget.hidden_list.topLevelItemCount())}
    assert "switched off" in hidden["pdf-tools"]
    undo(qtbot, pane)
    qtbot.waitUntil(lambda: "pdf-tools" in budget.budget.listed, timeout=5000)


def test_batch_archive_is_one_undo_step(qtbot, win: MainWindow, fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    pane = machine(qtbot, win, fake)
    for i in range(pane.skills.topLevelItemCount()):
        top = pane.skills.topLevelItem(i)
        if top.text(0) in ("team-review", "mcp-builder"):
            top.setSelected(True)
    assert len(pane.selected_copies()) == 4
    click(qtbot, pane, "machineArchive")
    shown = apply_preview(qtbot, pane)
    assert sum(line.startswith("remove ") for line in shown) >= 4
    assert not copy_rows(pane, "team-review") and not copy_rows(pane, "mcp-builder")
    assert len(pane.history.undo_stack) == 1
    undo(qtbot, pane)
    assert tree_bytes(fake.home) == before


def test_cancel_writes_nothing(qtbot, win: MainWindow, fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    pane = machine(qtbot, win, fake)
    pane.select_copy(fake.claude / "pdf-tools")
    click(qtbot, pane, "machineArchive")
    assert pane.preview is not None
    pane.preview.reject()
    assert tree_bytes(fake.home) == before and not pane.history.undo_stack


def test_a_finding_accepted_with_a_reason_lets_the_copy_through(qtbot, win: MainWindow,
                                                                 fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    pane.select_copy(fake.agents / "fetcher")
    pane.set_target(fake.claude)
    click(qtbot, pane, "machineCopy")
    assert "lint finding(s) not accepted yet" in pane.preview.text.toPlainText()
    assert not pane.preview.apply_button.isEnabled()
    pane.preview.reject()
    item = pane.findings.topLevelItem(0)
    assert item.checkState(0) == Qt.CheckState.Unchecked  # nothing pre-selected
    item.setCheckState(0, Qt.CheckState.Checked)
    pane.reason.setText("our installer, pinned by digest")
    click(qtbot, pane, "machineAccept")
    apply_preview(qtbot, pane)
    pane.select_copy(fake.agents / "fetcher")
    assert pane.findings.topLevelItem(0).text(2) == "our installer, pinned by digest"
    click(qtbot, pane, "machineCopy")
    apply_preview(qtbot, pane)
    assert (fake.claude / "fetcher" / "SKILL.md").is_file()


def test_tag_is_searchable(qtbot, win: MainWindow, fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    pane.select_copy(fake.claude / "pdf-tools")
    pane.words.setText("forms")
    click(qtbot, pane, "machineTag")
    apply_preview(qtbot, pane)
    pane.filter.setText("forms")
    names = {pane.skills.topLevelItem(i).text(0) for i in range(pane.skills.topLevelItemCount())}
    assert names == {"pdf-tools"}


def test_a_root_opens_as_its_agents_library(qtbot, win: MainWindow, fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    assert pane.select_root(fake.claude)
    with qtbot.waitSignal(win.loadFinished, timeout=10_000):
        click(qtbot, pane, "machineOpenRoot")
    library = win.ctx.library
    assert library is not None and library.profile.id == "claude-code"
    assert fake.claude in [Path(r) for r in library.skill_roots()]


def test_a_disabled_skill_stays_in_the_library_tree_dimmed(qtbot, win: MainWindow, fake: FakeHome) -> None:
    from rockskills_gui.core.model.names import fold
    from rockskills_gui.ui.library.tree_roles import BADGES_ROLE, Badge

    pane = machine(qtbot, win, fake)
    pane.select_root(fake.gemini)
    with qtbot.waitSignal(win.loadFinished, timeout=10_000):
        click(qtbot, pane, "machineOpenRoot")
    assert win.ctx.library.profile.id == "gemini-cli"
    model = win.library_pane.model

    def badges(name: str) -> tuple:
        node = model.tree.by_key[fold(name)]
        return model.index_of(node).data(BADGES_ROLE) or ()

    assert Badge.SWITCHED_OFF not in badges("pdf-tools")
    pane.select_copy(fake.gemini / "pdf-tools")
    pane.set_agent("gemini-cli")
    click(qtbot, pane, "machineDisable")
    apply_preview(qtbot, pane)
    assert Badge.SWITCHED_OFF in badges("pdf-tools") and Badge.SWITCHED_OFF not in badges("gem-only")
    undo(qtbot, pane)
    assert Badge.SWITCHED_OFF not in badges("pdf-tools")


def test_a_filter_result_selected_whole_is_one_batch(qtbot, win: MainWindow, fake: FakeHome) -> None:
    pane = machine(qtbot, win, fake)
    pane.filter.setText("team")
    pane.skills.setFocus()
    qtbot.keyClick(pane.skills, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert {c.folder for c in pane.selected_copies()} == {
        fake.project / ".claude" / "skills" / "team-review",
        fake.project / ".gemini" / "skills" / "team-review"}
    pane.words.setText("review")
    click(qtbot, pane, "machineTag")
    apply_preview(qtbot, pane)
    assert len(pane.history.undo_stack) == 1
    pane.filter.setText("review")
    tagged = [r for r in pane._items() if r.data(0, COPY_ROLE) is not None and "tags: review" in r.text(4)]
    assert len(tagged) == 2
