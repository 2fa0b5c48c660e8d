"""Issue 32 in the window: a SKILL.md library runs the dream wizard end to end (propose with a real
127.0.0.1 chat-completions server, review, apply, archive, restore); nothing destructive starts
ticked; the Apply page repeats what it warns about and Apply is no default while something
destructive is ticked; the Skill Archive view restores byte for byte after a restart and refuses
a name that is taken, saying how to restore anyway."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWizard

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.model.profiles import AGENT_SKILLS
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.llm_server import ScriptedServer, scripted_server
from tests.core.test_dream_preselect import reply, skill_md_root, skill_md_text
from tests.ui.conftest import open_window
from tests.ui.test_dream_wizard import checked, consolidation_review, open_wizard, wait_for_apply

COMMIT = QWizard.WizardButton.CommitButton
MERGED = ("visual-art", "algorithmic-art", "canvas-design")
LOSSY = ("web-building", "web-artifacts-builder", "webapp-testing")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server() as running:
        yield running


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def close(window: MainWindow) -> None:
    if window.dream_wizard is not None:
        window.dream_wizard.run.stop()
    window.loader.cancel()
    window.loader.wait()


def test_a_skill_md_library_dreams_end_to_end_and_restores_from_the_archive(
        qtbot, tmp_path: Path, server: ScriptedServer) -> None:
    root = skill_md_root(tmp_path)
    text = {n: skill_md_text(root, n) for n in (*MERGED[1:], *LOSSY[1:])}
    canvas_before = tree(root / "canvas-design")
    window = open_window(qtbot, root, AppContext())
    try:
        assert isinstance(window.ctx.library, SkillMdLibrary)
        wizard = open_wizard(window)
        assert "Proposals are written as SKILL.md" in wizard.setup.library_label.text()
        qtbot.waitUntil(lambda: bool(wizard.setup.outlook_text(DreamPass.GAP)), timeout=10_000)
        assert "needs RockBot's conversation log" in wizard.setup.outlook_text(DreamPass.GAP)
        consolidation_review(qtbot, wizard, server, reply(MERGED, LOSSY, ["slack-gif-creator"], text))
        plan = wizard.plan
        assert plan is not None and plan.library_format == "agentskills"
        wizard.next()
        assert wizard.currentId() == wizard.page_id("review")
        ids = {p.title: p.id for p in plan.proposals}
        merge = next(p.id for p in plan.proposals if p.record is not None and p.record.name == "visual-art")
        lossy = next(p.id for p in plan.proposals if p.record is not None and p.record.name == "web-building")
        lone = ids["Delete 'slack-gif-creator'"]
        ticked = [merge, ids["Delete 'algorithmic-art'"], ids["Delete 'canvas-design'"]]
        assert checked(wizard) == sorted(ticked)
        review = wizard.review
        assert "which nothing replaces" in review.reason_text(lone)
        assert "drops" in review.reason_text(lossy) and "missing" not in review.reason_text(merge)

        # something destructive ticked: the Apply page counts it, repeats its warnings, and Apply
        # is not the default button; untick it and Apply is the default again
        review.set_checked(lone, True)
        wizard.next()
        apply = wizard.apply
        assert wizard.currentId() == wizard.page_id("apply")
        assert apply.destructive == [lone]
        assert "1 destructive proposal ticked" in apply.destructive_label.text()
        assert "which nothing replaces" in apply.ticked_warnings.toPlainText()
        assert not wizard.button(COMMIT).isDefault()
        wizard.back()
        review.set_checked(lone, False)
        wizard.next()
        assert apply.destructive == [] and wizard.button(COMMIT).isDefault()
        assert "source-not-in-todelete" not in apply.ticked_warnings.toPlainText()

        wizard.next()  # Apply
        wait_for_apply(qtbot, wizard)
        assert wizard.currentId() == wizard.page_id("summary"), wizard.apply.error.text()
        assert (root / "visual-art" / "SKILL.md").is_file() and not (root / "canvas-design").exists()
        assert (root / ".archive" / "canvas-design" / "SKILL.md").is_file()
        assert (root / "slack-gif-creator").is_dir()
    finally:
        close(window)

    # a new window (a restart): the undo history is gone, the archive is not
    window = open_window(qtbot, root, AppContext())
    try:
        assert window.ctx.library is not None and not window.ctx.library.history.can_undo
        window.commands["tools.archive"].trigger()
        view = window.archive_view
        assert view is not None
        assert {s.name for s in view.skills} == {"algorithmic-art", "canvas-design"}
        assert view.select("canvas-design")
        assert "absorbed into 'visual-art'" in view.details.text()
        assert "canvas-design" in view.preview.toPlainText()
        assert view.restore() is not None
        assert tree(root / "canvas-design") == canvas_before
        assert "canvas-design" in window.ctx.library
        # a taken name: refused in the view, nothing written; Restore As puts it back renamed
        window.ctx.apply(lambda lib: lib.create("algorithmic-art", "Someone else's art", "Body."))
        view.refresh()
        assert view.select("algorithmic-art")
        archived_bytes = tree(root / ".archive" / "algorithmic-art")
        assert view.restore() is None
        assert "the library has a skill named 'algorithmic-art' now" in view.message.text()
        assert "Restore As" in view.message.text()
        assert tree(root / ".archive" / "algorithmic-art") == archived_bytes
        assert view.restore("algorithmic-art-2") is not None
        restored = (root / "algorithmic-art-2" / "SKILL.md").read_bytes()
        renamed = b"name: algorithmic-art-2"
        assert restored == archived_bytes["SKILL.md"].replace(b"name: algorithmic-art", renamed, 1)
        assert view.skills == []
        window.commands["edit.undo"].trigger()  # the restore is one step of Edit ▸ Undo
        qtbot.waitUntil(lambda: tree(root / ".archive" / "algorithmic-art") == archived_bytes,
                        timeout=10_000)
    finally:
        close(window)


def test_the_plan_file_of_a_window_run_says_why_each_proposal_starts_as_it_does(
        qtbot, tmp_path: Path, server: ScriptedServer) -> None:
    root = skill_md_root(tmp_path)
    text = {n: skill_md_text(root, n) for n in (*MERGED[1:], *LOSSY[1:])}
    window = open_window(qtbot, root, AppContext())
    try:
        wizard = open_wizard(window)
        consolidation_review(qtbot, wizard, server, reply(MERGED, LOSSY, ["slack-gif-creator"], text))
        out = tmp_path / "plan.json"
        assert wizard.save_plan(out)
        saved = json.loads(out.read_text(encoding="utf-8"))
        by_id = {p["id"]: p for p in saved["proposals"]}
        assert wizard.selection is not None
        assert sorted(i for i, p in by_id.items() if p["preselected"]) == sorted(wizard.selection.ids())
        assert all(p["preselectReason"] for p in by_id.values())
    finally:
        close(window)


def test_the_wizard_runs_where_the_profile_has_dream_passes_and_says_so_where_not(
        qtbot, tmp_path: Path) -> None:
    """The wizard asks the profile (``curation.passes``), not the library's format."""
    root = skill_md_root(tmp_path)
    window = open_window(qtbot, root, AppContext())
    try:
        wizard = open_wizard(window)
        assert wizard.dream_library() is window.ctx.library and wizard.setup.load_button.isEnabled()
        no_passes = dataclasses.replace(AGENT_SKILLS.curation, passes=())
        none = dataclasses.replace(AGENT_SKILLS, curation=no_passes)
        window.ctx.set_library(open_library(root, OpenOptions(profile=none)), remember=False)
        assert wizard.dream_library() is None
        assert "not available for Agent Skills (SKILL.md) libraries" in wizard.setup.library_label.text()
        assert not wizard.setup.load_button.isEnabled() and not wizard.setup.isComplete()
    finally:
        close(window)
