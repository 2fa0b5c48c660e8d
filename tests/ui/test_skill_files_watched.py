"""Outside edits to an open SKILL.md skill are noticed live (issue 15): the editor watches the file
the library loaded the skill from, whatever the format, and every skills root's folders.

The corpus is copied whole (its skills sit in ``skills/`` below the opened folder), so a skill's
file is not ``<opened folder>/<name>/SKILL.md``: only the library knows where it is.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import SHARED
from tests.ui.conftest import make_writable, open_window
from tests.ui.test_editor_pane import editor_text, open_skill, type_at_end
from tests.ui.test_main_window import list_names

CORPUS = SHARED / "corpora" / "anthropics-skills"
NAME = "brand-guidelines"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    dest = tmp_path / "anthropics-skills"
    shutil.copytree(CORPUS, dest)
    return make_writable(dest)


@pytest.fixture
def md_window(qtbot, corpus: Path):
    win = open_window(qtbot, corpus)
    assert isinstance(win.ctx.library, SkillMdLibrary)
    yield win
    win._close_confirmed = True
    win.loader.cancel()
    win.loader.wait()


def rewrite_body(path: Path, old: str, new: str) -> None:
    """What another editor does: rewrite the file in place."""
    text = path.read_bytes().decode("utf-8")
    assert old in text
    path.write_bytes(text.replace(old, new, 1).encode("utf-8"))


def first_heading(pane) -> str:
    return next(line for line in editor_text(pane).splitlines() if line.startswith("# "))


def test_the_open_skill_md_file_is_the_one_watched(md_window: MainWindow, corpus: Path) -> None:
    pane = open_skill(md_window, NAME)
    path = corpus / "skills" / NAME / "SKILL.md"
    assert md_window.ctx.library.skill_path(NAME) == path
    assert str(path) in pane.watcher._watcher.files()


def test_dirty_buffer_shows_the_disk_conflict_live(md_window: MainWindow, qtbot,
                                                   corpus: Path) -> None:
    pane = open_skill(md_window, NAME)
    path = corpus / "skills" / NAME / "SKILL.md"
    heading = first_heading(pane)
    type_at_end(qtbot, pane, "\nMy unsaved line.")
    assert pane.current.dirty
    rewrite_body(path, heading, "# Rewritten by another editor")
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None and pane.conflict_dialog.isVisible(),
                    timeout=5000)
    diff = pane.conflict_dialog.diff.toPlainText()
    assert "-# Rewritten by another editor" in diff and f"+{heading}" in diff
    assert "+My unsaved line." in diff
    assert pane.current.dirty and editor_text(pane).endswith("My unsaved line.")
    pane.conflict_dialog.take_button.click()
    assert first_heading(pane) == "# Rewritten by another editor"
    assert not pane.current.dirty


def test_clean_buffer_reloads_live(md_window: MainWindow, qtbot, corpus: Path) -> None:
    pane = open_skill(md_window, NAME)
    path = corpus / "skills" / NAME / "SKILL.md"
    rewrite_body(path, first_heading(pane), "# Rewritten by another editor")
    qtbot.waitUntil(lambda: first_heading(pane) == "# Rewritten by another editor", timeout=5000)
    assert not pane.current.dirty and pane.conflict_dialog is None
    assert "changed on disk and was reloaded" in md_window.statusBar().full_message()


def test_every_skills_root_is_watched(qtbot, tmp_path: Path) -> None:
    """A project with .agents/skills and .claude/skills: a skill added to either shows up."""
    project = tmp_path / "project"
    for root in (".agents/skills", ".claude/skills"):
        (project / root).mkdir(parents=True)
    shutil.copytree(CORPUS / "skills" / NAME, project / ".agents/skills" / NAME)
    make_writable(project)
    window = open_window(qtbot, project)
    try:
        library = window.ctx.library
        assert [r.path for r in library.roots] == [project / ".agents/skills",
                                                     project / ".claude/skills"]
        added = project / ".claude/skills/added-outside"
        added.mkdir()
        (added / "SKILL.md").write_text("---\nname: added-outside\ndescription: Added by hand.\n"
                                        "---\n\n# Added\n", encoding="utf-8")
        qtbot.waitUntil(lambda: "added-outside" in list_names(window), timeout=5000)
    finally:
        window._close_confirmed = True
        window.loader.wait()
