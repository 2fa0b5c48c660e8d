"""Dream review defaults that protect the library (issue 16), driven through the real wizard on
writable copies of the demo library and the sample agent: risky proposals start unticked with
their reason on the row, Apply is blocked while a ticked proposal touches unsaved edits, Cancel
asks after a tick changed, the wizard remembers its proposer, endpoint and model, the summary says
when the plan was undone, and the setup page says where RockBot would not run a pass."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWizard

from rockskills_gui.core.dream.ledger import skill_corpus_fingerprint
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.prompts import prune_candidates
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.rules import LEDGER_FILE
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.dream.wizard import DreamWizard
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import REPO, tree_hashes
from tests.ui.conftest import make_writable, open_window
from tests.ui.test_dream_wizard import open_wizard as open_wizard_at
from tests.ui.test_editor_pane import open_skill, type_at_end

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
DEMO = REPO / "resources" / "demo-library"
NEXT = QWizard.WizardButton.NextButton
COMMIT = QWizard.WizardButton.CommitButton


@pytest.fixture
def demo(qtbot, tmp_path: Path) -> Iterator[tuple[MainWindow, Path]]:
    agent = tmp_path / "demo"
    shutil.copytree(DEMO, agent)
    make_writable(agent)
    window = open_window(qtbot, agent)
    yield window, agent
    if window.dream_wizard is not None:
        window.dream_wizard.run.stop()
    window.loader.cancel()
    window.loader.wait()


def open_wizard(window: MainWindow) -> DreamWizard:
    return open_wizard_at(window, NOW)


def offline_review(qtbot, window: MainWindow) -> DreamWizard:
    wizard = open_wizard(window)
    wizard.setup.offline_radio.setChecked(True)
    wizard.next()
    qtbot.waitUntil(lambda: not wizard.run.running, timeout=20_000)
    wizard.next()
    assert wizard.currentId() == wizard.page_id("review")
    return wizard


def merge_ids(wizard: DreamWizard) -> tuple[str, str]:
    """The demo's merge of writing/copy-edit into writing/proofread, and its deletion."""
    assert wizard.plan is not None
    merge = next(p for p in wizard.plan.proposals if p.kind.value == "merge"
                 and p.record is not None and p.record.name == "writing/proofread")
    return merge.id, wizard.plan.dependents(merge.id)[0]


# ---------------------------------------------------------------- defaults and the row


def test_a_recently_used_skill_is_not_merged_away_by_default_and_the_row_says_why(
        qtbot, demo: tuple[MainWindow, Path]) -> None:
    window, agent = demo
    wizard = offline_review(qtbot, window)
    review = wizard.review
    merge, delete = merge_ids(wizard)
    checked = set(review.checked_ids())
    assert merge not in checked and delete not in checked
    assert checked, "the proposals that touch nothing risky are still ticked"
    # the reason is text on the row (a line under it), not only a tooltip
    line = review.items[merge].child(0)
    assert line is not None and not line.isHidden()
    assert line.text(0) == "↳ Starts unticked: 'writing/copy-edit' used 6× in 30 days"
    assert review.reason_text(delete) == line.text(0)
    rect = review.tree.visualItemRect(line)
    assert rect.isValid() and rect.height() > 0
    assert all(review.reason_text(i) == "" for i in checked)
    # the detail says the whole reason, and the reviewer may still tick it
    review.show_proposal_id(merge)
    assert "Started unticked: merges away 'writing/copy-edit', used 6× in the last 30 days" \
        in review.view.state.text()
    review.tree.setCurrentItem(line)  # the reason line shows its proposal
    assert review.current_id() == merge
    review.set_checked(delete, True)
    assert {merge, delete} <= set(review.checked_ids())
    assert tree_hashes(agent)  # nothing written by the review


def test_starter_and_protected_deletions_start_unticked(qtbot, tmp_path: Path) -> None:
    """A consolidation reply (pasted, through the real engine) deleting a starter skill and a
    patrol/ skill of RockBot (current), run with 'patrol/' protected; the starter row says RockBot
    re-creates it. RockBot (current) itself protects no prefix (DreamOptions @ 150a84c)."""
    from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
    from rockskills_gui.core.library.open import open_library
    from tests.rockbot_current import make_current_agent

    agent = make_writable(make_current_agent(tmp_path / "current"))
    (agent / "skills" / "web.json").write_bytes(skill_to_bytes(Skill(  # a starter skill
        name="web", summary="Web search and page browsing tools", content="Use web_search. " * 9,
        created_at=NOW.add_days(-90))))
    library = open_library(agent)
    assert isinstance(library, RockBotLibrary)
    assert library.rules.protected_prefixes == ()
    patrol = next(s.name for s in library.skills() if s.name.startswith("patrol/"))
    starter = "web"
    keep = next(s.name for s in library.skills() if "/" in s.name and not s.name.startswith("patrol/"))
    reply = {"toDelete": [starter, patrol], "toSave": [{"name": keep, "summary": "kept",
                                                        "content": "Kept steps. " * 30}]}
    plan = run_dream(library, RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW,
                                         protected_prefixes=("patrol/",)),
                     PastedReplies([json.dumps(reply)]))
    out = tmp_path / "plan.json"
    plan.save(out)
    window = open_window(qtbot, agent)
    try:
        wizard = open_wizard(window)
        assert wizard.open_plan(out)
        review = wizard.review
        by_deleted = {p.deletes[0]: p.id for p in plan.proposals if p.deletes}
        assert by_deleted[starter] not in review.checked_ids()
        assert by_deleted[patrol] not in review.checked_ids()
        assert f"'{starter}' is a starter skill (RockBot re-creates it)" in review.reason_text(
            by_deleted[starter])
        assert f"'{patrol}' is protected (patrol/)" in review.reason_text(by_deleted[patrol])
        review.show_proposal_id(by_deleted[starter])
        assert (f"'{starter}' is a starter skill: RockBot re-creates it at its next start, so the "
                "deletion does not stick") in review.view.state.text()
    finally:
        window.loader.cancel()
        window.loader.wait()


# ---------------------------------------------------------------- unsaved edits block Apply


def test_apply_is_blocked_while_a_ticked_proposal_touches_unsaved_edits(
        qtbot, demo: tuple[MainWindow, Path]) -> None:
    """The issue's reproduction: an unsaved edit in writing/proofread, the merge into it ticked."""
    window, agent = demo
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nMy own last step.")
    assert window.ctx.dirty_names == {"writing/proofread"}
    wizard = offline_review(qtbot, window)
    review = wizard.review
    merge, delete = merge_ids(wizard)
    assert not review.unsaved.isVisible()  # nothing ticked touches it yet
    review.select_none()
    review.set_checked(delete, True)  # brings the merge along
    assert set(review.checked_ids()) == {merge, delete}
    assert review.unsaved.isVisible()
    assert "'writing/proofread'" in review.unsaved.text() and merge in review.unsaved.text()
    wizard.next()
    assert wizard.currentId() == wizard.page_id("apply")
    assert not wizard.button(COMMIT).isEnabled() and not wizard.can_apply()
    warning = wizard.apply.warning.text()
    assert "Apply is blocked" in warning and "'writing/proofread'" in warning
    before = tree_hashes(agent)
    assert "Apply is blocked" in (wizard.apply_selected() or "")  # the engine call refuses too
    assert tree_hashes(agent) == before

    # discarding the edits in the editor lifts the block at once, on the page as it is
    pane.close_current()  # the buffer is let go, its edits with it
    assert window.ctx.dirty_names == set()
    assert wizard.button(COMMIT).isEnabled() and "Apply is blocked" not in wizard.apply.warning.text()
    # a new unsaved edit blocks again, live
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nAnother.")
    assert not wizard.button(COMMIT).isEnabled() and "Apply is blocked" in wizard.apply.warning.text()
    # unticking lifts it too
    wizard.back()
    review.set_checked(merge, False)
    review.set_checked(next(i for i in review.visible_ids() if review.reason_text(i) == ""
                            and review.selection.can_accept(i)), True)
    assert not review.unsaved.isVisible()
    wizard.next()
    assert wizard.button(COMMIT).isEnabled()
    # and so does saving; the plan then waits for a re-check, as for any change since it was made
    wizard.back()
    review.set_checked(merge, True)
    wizard.next()
    assert not wizard.button(COMMIT).isEnabled()
    assert pane.save()
    assert "Apply is blocked" not in wizard.apply.warning.text()
    assert "changed since this plan was made" in wizard.apply.warning.text()


# ---------------------------------------------------------------- Cancel asks


def test_cancel_after_changing_a_tick_asks_and_escape_too(
        qtbot, demo: tuple[MainWindow, Path]) -> None:
    window, _agent = demo
    wizard = offline_review(qtbot, window)
    review = wizard.review
    assert not review.user_changed
    review.set_checked(review.checked_ids()[0], False)
    assert review.user_changed

    wizard.button(QWizard.WizardButton.CancelButton).click()
    box = wizard.discard_prompt
    assert isinstance(box, QMessageBox) and box.isVisible() and wizard.isVisible()
    assert "throw the review away" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert wizard.isVisible() and wizard.discard_prompt is None
    assert wizard.currentId() == wizard.page_id("review")

    qtbot.keyClick(wizard, Qt.Key.Key_Escape)
    box = wizard.discard_prompt
    assert isinstance(box, QMessageBox) and box.isVisible() and wizard.isVisible()
    with qtbot.waitSignal(wizard.finished, timeout=5000):
        box.button(QMessageBox.StandardButton.Discard).click()
    assert not wizard.isVisible()


def test_cancel_without_changes_closes_at_once(qtbot, demo: tuple[MainWindow, Path]) -> None:
    window, _agent = demo
    wizard = offline_review(qtbot, window)
    with qtbot.waitSignal(wizard.finished, timeout=5000):
        wizard.button(QWizard.WizardButton.CancelButton).click()
    assert wizard.discard_prompt is None and not wizard.isVisible()


# ---------------------------------------------------------------- remembered choices


def test_the_wizard_remembers_proposer_endpoint_and_model_but_never_the_key(
        qtbot, demo: tuple[MainWindow, Path]) -> None:
    window, _agent = demo
    key = "sk-remember-test-41c0de"
    wizard = open_wizard(window)
    setup = wizard.setup
    setup.llm_radio.setChecked(True)
    setup.preset.setCurrentIndex(setup.preset.findData("custom"))
    setup.base_url.setText("http://127.0.0.1:9/v1")
    setup.model.setText("remembered-model")
    setup.api_key.setText(key)
    for dream_pass, box in setup.pass_boxes.items():
        box.setChecked(dream_pass is DreamPass.CONSOLIDATE)
    wizard.next()  # the prompts page: a run starts with these choices
    assert wizard.currentId() == wizard.page_id("prompts")
    prefs = window.ctx.prefs
    assert (prefs.dream_proposer, prefs.endpoint, prefs.base_url, prefs.model) == (
        "llm", "custom", "http://127.0.0.1:9/v1", "remembered-model")
    wizard.reject()
    qtbot.waitUntil(lambda: window.dream_wizard is None, timeout=5000)

    again = open_wizard(window).setup
    assert again.llm_radio.isChecked()
    assert again.preset.currentData() == "custom"
    assert again.base_url.text() == "http://127.0.0.1:9/v1" and again.model.text() == "remembered-model"
    assert again.api_key.text() == ""  # the typed key lived only for that run
    config = Path(window.ctx.preferences.file).parent
    for path in config.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(encoding="utf-8", errors="replace"), path

    # a preset's own URL is remembered as the preset; the offline proposer too
    again.preset.setCurrentIndex(again.preset.findData("lmstudio"))
    again.offline_radio.setChecked(True)
    window.dream_wizard.next()
    qtbot.waitUntil(lambda: not window.dream_wizard.run.running, timeout=20_000)
    assert window.ctx.prefs.dream_proposer == "offline"
    window.dream_wizard.reject()
    qtbot.waitUntil(lambda: window.dream_wizard is None, timeout=5000)
    assert open_wizard(window).setup.offline_radio.isChecked()


# ---------------------------------------------------------------- the summary after an undo


def test_the_summary_says_when_the_applied_plan_was_undone_anywhere(
        qtbot, demo: tuple[MainWindow, Path]) -> None:
    window, _agent = demo
    wizard = offline_review(qtbot, window)
    review = wizard.review
    review.select_none()
    guide = next(p.id for p in wizard.plan.proposals if p.title == "Create the guide 'mcp/guide'")
    review.set_checked(guide, True)
    wizard.next()
    wizard.next()  # Apply (off the UI thread)
    qtbot.waitUntil(lambda: wizard.apply.ticket is None, timeout=30000)
    summary = wizard.summary
    assert wizard.currentId() == wizard.page_id("summary"), wizard.apply.error.text()
    assert summary.title() == "Done" and "Applied 1 proposal" in summary.message.text()
    assert "mcp/guide" in window.ctx.library

    window.commands["edit.undo"].trigger()  # undone from the main window, not the wizard
    assert "mcp/guide" not in window.ctx.library
    assert summary.title() == "Undone" and summary.undone
    assert summary.message.text().startswith("<b>Undone</b>")
    assert "Edit ▸ Undo" in summary.undo_message.text()
    assert not summary.undo_button.isEnabled()

    window.commands["edit.redo"].trigger()  # applied again: the page follows
    assert "mcp/guide" in window.ctx.library
    assert summary.title() == "Done" and not summary.undone
    assert "Applied again" in summary.undo_message.text() and summary.undo_button.isEnabled()

    summary.undo_button.click()  # the wizard's own Undo of the redone plan
    assert "mcp/guide" not in window.ctx.library
    assert summary.title() == "Undone" and "Undone" in summary.undo_message.text()


# ---------------------------------------------------------------- would RockBot run the pass?


def test_the_setup_page_says_where_rockbot_would_not_run_a_pass(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    try:
        wizard = open_wizard(window)
        setup = wizard.setup
        qtbot.waitUntil(lambda: not setup.reader.busy, timeout=10_000)  # (read on a worker)
        assert all(setup.outlook_text(p) == "" for p in setup.outlook_labels)  # all would run
        assert not any(label.isVisible() for label in setup.outlook_labels.values())
        wizard.reject()
        qtbot.waitUntil(lambda: window.dream_wizard is None, timeout=5000)

        shutil.rmtree(agent / "conversation-log")
        skills = RockBotLibrary.open(agent).skills()
        latest = max(max(s.created_at.utc_ticks, (s.updated_at or s.created_at).utc_ticks) for s in skills)
        ran = Timestamp.from_utc_ticks(latest).add_days(0.5)
        pruned = {c.name for c in prune_candidates(skills, ran.add_days(1))}  # the catalog after pruning
        same = skill_corpus_fingerprint([s for s in skills if s.name not in pruned], ("mcp/",))  # 150a84c
        (agent / LEDGER_FILE).write_text(json.dumps(  # a current RockBot's ledger: the profile too
            {"skill consolidation": {"fingerprint": same, "lastRunAt": ran.isoformat()}}))
        with qtbot.waitSignal(window.loadFinished, timeout=10_000):
            window.open_path(agent)
        assert window.ctx.library.rules.ledger_file == LEDGER_FILE
        window.show_pane("dream")
        setup = window.dream_wizard.setup
        setup.set_now(ran.add_days(1))
        qtbot.waitUntil(lambda: not setup.reader.busy, timeout=10_000)
        gap = setup.outlook_labels[DreamPass.GAP]
        assert gap.isVisible() and gap.text() == "RockBot would skip it: the conversation log is empty"
        assert gap.toolTip() == "RockBot would not run this pass: the conversation log is empty."
        day = ran.isoformat()[:10]
        consolidation = setup.outlook_labels[DreamPass.CONSOLIDATE]
        assert consolidation.text() == (f"RockBot (current) would skip it: inputs unchanged since "
                                        f"{day} (ledger)")
        assert consolidation.toolTip().startswith(
            f"RockBot (current): the dream-pass ledger says 'skill consolidation' last ran on {day} "
            f"on the same inputs (fingerprint {same})")
        assert consolidation.isVisible() and "inputs unchanged" in setup.outlook_text(DreamPass.CONSOLIDATE)
        setup.set_now(ran.add_days(8))  # past the 7-day floor: RockBot runs it anyway
        qtbot.waitUntil(lambda: not setup.reader.busy, timeout=10_000)
        assert setup.outlook_text(DreamPass.CONSOLIDATE) == ""
    finally:
        window.loader.cancel()
        window.loader.wait()
