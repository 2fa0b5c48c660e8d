"""The window on SKILL.md libraries (a real public corpus, copied): detection in the title, the
format override, editing in place without damage, rename/undo with folders, and the panes that
need RockBot data (usage, dream) explaining instead of failing."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from rockskills_gui.core.library.formats import FORMAT_LABELS, detect
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.ui.library.tree_model import Badge
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.usage.usage_pane import UsagePane
from tests.conftest import SHARED
from tests.ui.conftest import make_writable, open_window
from tests.ui.test_editor_pane import editor_text, open_skill, type_at_end
from tests.ui.test_main_window import list_names

CORPUS = SHARED / "corpora" / "anthropics-skills" / "skills"
CTRL = Qt.KeyboardModifier.ControlModifier


def hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".rockskills" not in p.parts}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    dest = tmp_path / "anthropic-skills"  # (a folder named skills/ would open as RockBot's, empty)
    shutil.copytree(CORPUS, dest)
    return make_writable(dest)


@pytest.fixture
def md_window(qtbot, corpus: Path):
    win = open_window(qtbot, corpus)
    yield win
    win._close_confirmed = True
    win.loader.cancel()
    win.loader.wait()


def reopen(qtbot, window: MainWindow, format: str) -> str:
    with qtbot.waitSignal(window.loadFinished, timeout=10_000) as blocker:
        window.reopen_menu.aboutToShow.emit()
        action = next(a for a in window.reopen_menu.actions() if a.objectName().endswith(f".{format}"))
        action.trigger()
    return blocker.args[0]


def test_a_skill_md_corpus_opens_with_its_format_in_the_title(md_window: MainWindow,
                                                              corpus: Path) -> None:
    library = md_window.ctx.library
    assert isinstance(library, SkillMdLibrary)
    expected = open_library(corpus)
    label = FORMAT_LABELS[detect(corpus).format]
    assert md_window.windowTitle() == f"{corpus.name}[*] — {label}"
    assert sorted(list_names(md_window)) == sorted(expected.names())
    assert md_window.skills_label.text() == f"{len(expected)} skills"
    checked = [a.objectName() for a in md_window.reopen_menu.actions() if a.isChecked()]
    assert checked == [f"file.reopen_as.{library.format}"]


def test_reopen_as_overrides_the_format_and_a_wrong_one_is_refused(md_window: MainWindow, qtbot,
                                                                   corpus: Path) -> None:
    assert reopen(qtbot, md_window, "picobot") == ""
    assert md_window.ctx.library.format == "picobot"
    assert md_window.windowTitle().endswith(FORMAT_LABELS["picobot"])
    before = hashes(corpus)
    error = reopen(qtbot, md_window, "rockbot")
    assert "not a RockBot library" in error
    assert md_window.ctx.library.format == "picobot"  # the open library stays
    assert hashes(corpus) == before


def test_edit_and_save_keeps_frontmatter_line_endings_and_every_other_file(
        qtbot, corpus: Path) -> None:
    name = sorted(open_library(corpus).names())[0]
    path = corpus / name / "SKILL.md"
    raw = path.read_bytes().replace(b"\r\n", b"\n")
    head, _, body = raw[4:].partition(b"\n---\n")
    # an unknown key and CRLF line endings: both must survive a save
    raw = b"---\n" + head + b"\nx-curator-note: keep me\n---\n" + body
    path.write_bytes(raw.replace(b"\n", b"\r\n"))
    front = path.read_bytes().split(b"\r\n---\r\n", 1)[0]
    others = {k: v for k, v in hashes(corpus).items() if k != f"{name}/SKILL.md"}

    window = open_window(qtbot, corpus)
    try:
        pane = open_skill(window, name)
        assert "\r" not in editor_text(pane)
        type_at_end(qtbot, pane, "\nChecked by the curator.")
        qtbot.keyClick(pane.editor, Qt.Key.Key_S, CTRL)
        assert not pane.current.dirty
        saved = path.read_bytes()
        assert saved.startswith(front + b"\r\n---\r\n")
        assert saved.rstrip(b"\r\n").endswith(b"Checked by the curator.")
        assert b"\n" not in saved.replace(b"\r\n", b"")  # every line still ends in CRLF
        assert {k: v for k, v in hashes(corpus).items() if k != f"{name}/SKILL.md"} == others
        window.commands["edit.undo"].trigger()
        assert path.read_bytes() == raw.replace(b"\n", b"\r\n")
    finally:
        window._close_confirmed = True
        window.loader.wait()


def test_rename_moves_the_folder_with_its_resources_and_undo_restores_bytes(
        md_window: MainWindow, corpus: Path) -> None:
    name = sorted(md_window.ctx.library.names())[0]
    script = corpus / name / "scripts" / "run.py"
    script.parent.mkdir()
    script.write_text("print('hi')\n")
    md_window.ctx.refresh_from_disk([script])
    before = hashes(corpus)
    md_window.library_pane.edits.rename_now({name: f"{name}-renamed"}, "")
    assert (corpus / f"{name}-renamed" / "scripts" / "run.py").read_text() == "print('hi')\n"
    assert not (corpus / name).exists()
    assert f"{name}-renamed" in list_names(md_window)
    md_window.commands["edit.undo"].trigger()
    assert hashes(corpus) == before
    assert not (corpus / f"{name}-renamed").exists()


def test_resources_are_listed_in_the_skill_header(md_window: MainWindow, corpus: Path) -> None:
    name = sorted(md_window.ctx.library.names())[-1]
    for rel in ("scripts/a.py", "references/b.md"):
        (corpus / name / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name / rel).write_text("x\n")
    md_window.ctx.refresh_from_disk([corpus / name])
    pane = open_skill(md_window, name)
    assert pane.header.files.isVisibleTo(pane)
    assert pane.header.files.text() == "references/b.md, scripts/a.py"
    assert not pane.header.updated.isVisibleTo(pane)  # SKILL.md keeps no dates
    assert pane.header.created.text().startswith("file modified ")


def test_a_name_the_format_cannot_hold_is_refused_while_typing(md_window: MainWindow) -> None:
    error = md_window.library_pane.edits.creation_error("tools/.new-skill")
    assert error is not None and "no leading '.'" in error
    assert md_window.library_pane.edits.creation_error("brand-new-skill") is None
    assert md_window.library_pane.edits.creation_error("tools/new-skill") is None  # a category folder


def test_a_skill_md_rename_is_checked_with_its_own_rules_not_rockbots(md_window: MainWindow,
                                                                       qtbot) -> None:
    """Create and rename ask the library's own name rule (issue 29): a SKILL.md folder may hold
    a space or a dot, which RockBot's rule refuses, and refuses a folder starting with '.', which
    RockBot's allows ('/' makes category folders, issue 31); a name taken says nothing about
    RockBot."""
    pane = md_window.library_pane
    library = md_window.ctx.library
    old = sorted(library.names())[0]
    folder_rule = "cannot be a skill folder name (each '/'-separated part is a folder: not empty"
    assert folder_rule in (pane.edits._rename_error({old: "tools/.renamed"}) or "")
    assert pane.edits._rename_error({old: "tools/renamed"}) is None  # into a category folder
    assert pane.edits._rename_error({old: "Brew Tea v1.2"}) is None  # RockBot: "invalid characters"
    taken = sorted(library.names())[1]
    assert pane.edits._rename_error({old: taken.upper()}) == f"A skill named '{taken}' already exists."
    assert pane.edits.creation_error(taken) == f"A skill named '{taken}' already exists."
    pane.request_rename({old: "Brew Tea v1.2"})
    qtbot.waitUntil(lambda: library.get("Brew Tea v1.2") is not None)
    assert md_window.error_box is None


def test_usage_and_dream_explain_what_a_skill_md_library_lacks(md_window: MainWindow,
                                                               qtbot) -> None:
    md_window.show_pane("heatmap")
    usage = md_window.usage_pane
    assert isinstance(usage, UsagePane)
    usage.refresh()
    assert "no usage log" in usage.view.empty_text
    assert usage.summary.text().startswith("No usage log")
    model = md_window.library_pane.model
    badges = {b for name in md_window.ctx.library.names()
              for b in model.badges(model.node(model.index_for(name)))}
    assert Badge.NEVER_USED not in badges  # no usage log: "never used" would be a guess
    md_window.show_pane("dream")
    wizard = md_window.dream_wizard
    assert wizard is not None
    notice = wizard.setup.library_label.text()
    # issue 32: the wizard dreams over SKILL.md directly and says which passes need RockBot's data
    assert FORMAT_LABELS[md_window.ctx.library.format] in notice, notice
    assert "written as SKILL.md" in notice and "need RockBot's logs and dates" in notice, notice
    assert "convert" not in notice, notice


def test_a_mixed_folder_opens_as_the_stronger_format_and_says_what_else_it_saw(
        qtbot, tmp_path: Path) -> None:
    """A skills/ folder of SKILL.md skills with package.json and state files in an example folder
    and one loose JSON record shaped like a RockBot skill: Agent Skills wins on evidence, and the
    status bar says what else was seen (File ▸ Reopen As reads the other)."""
    folder = tmp_path / "mixed"
    shutil.copytree(CORPUS, folder / "skills" / "md")
    make_writable(folder)
    first = sorted(p.parent for p in folder.rglob("SKILL.md"))[0]
    (first / "examples").mkdir(exist_ok=True)
    (first / "examples" / "package.json").write_text('{"name": "demo", "version": "1.0.0"}')
    (first / "examples" / "state.json").write_text('{"step": 3}')
    (folder / "skills" / "loose.json").write_text('{"name": "loose", "content": "a RockBot record"}')
    window = open_window(qtbot, folder)
    try:
        library = window.ctx.library
        assert isinstance(library, SkillMdLibrary) and library.format == "agentskills"
        assert sorted(list_names(window)) == sorted(open_library(folder).names())
        note = library.detection_note
        assert "1 RockBot skill file" in note and "Reopen As" in note
        assert note in window.statusBar().full_message()
    finally:
        window._close_confirmed = True
        window.loader.cancel()
        window.loader.wait()
