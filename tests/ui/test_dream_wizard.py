"""The dream-run wizard, driven as a user would: real widgets, private copies of the sample agent,
the real 127.0.0.1 chat-completions server, the engine's real apply and undo."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWizard

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus, Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.dream.wizard import DreamWizard
from rockskills_gui.ui.shell import app
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import EXPECTED, NOW_TEXT, tree_hashes
from tests.core.llm_server import ScriptedServer, Step, ok, scripted_server
from tests.ui.conftest import open_window

NOW = Timestamp.parse(NOW_TEXT)
EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))
GOOD = json.dumps(EXAMPLE["llm_result"])
SAVED = (EXPECTED / "apply-consolidation-example.meetings-plan-and-schedule.json").read_bytes()
KEY = "sk-wizard-test-5f3a9c0e11"
NEXT = QWizard.WizardButton.NextButton
COMMIT = QWizard.WizardButton.CommitButton


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server() as running:
        yield running


@pytest.fixture
def main(qtbot, agent: Path) -> Iterator[MainWindow]:
    window = open_window(qtbot, agent, AppContext())
    yield window
    if window.dream_wizard is not None:
        window.dream_wizard.run.stop()
    window.loader.cancel()
    window.loader.wait()


def open_wizard(window: MainWindow, now: Timestamp = NOW) -> DreamWizard:
    window.show_pane("dream")
    wizard = window.dream_wizard
    assert wizard is not None and wizard.currentId() == wizard.page_id("setup")
    wizard.setup.set_now(now)
    return wizard


def use_llm(wizard: DreamWizard, url: str, passes: list[DreamPass], timeout: float = 10) -> None:
    setup = wizard.setup
    setup.llm_radio.setChecked(True)
    setup.preset.setCurrentIndex(setup.preset.findData("custom"))
    setup.base_url.setText(url)
    setup.model.setText("test-model")
    setup.api_key.setText(KEY)
    setup.timeout.setValue(timeout)
    for dream_pass, box in setup.pass_boxes.items():
        box.setChecked(dream_pass in passes)


def run_to_end(qtbot, wizard: DreamWizard) -> None:
    """From the page before the run page to a finished run."""
    wizard.next()
    assert wizard.currentId() == wizard.page_id("run")
    qtbot.waitUntil(lambda: not wizard.run.running, timeout=20_000)


def consolidation_review(qtbot, wizard: DreamWizard, server: ScriptedServer, reply: str) -> None:
    server.queue(ok(reply))
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE])
    wizard.next()  # the prompts page
    assert wizard.currentId() == wizard.page_id("prompts")
    run_to_end(qtbot, wizard)


def wait_for_apply(qtbot, wizard: DreamWizard) -> None:
    """Apply runs off the UI thread: wait until it landed on the summary or said why not."""
    qtbot.waitUntil(lambda: wizard.apply_ticket is None and wizard.apply.ticket is None,
                    timeout=30000)


def checked(wizard: DreamWizard) -> list[str]:
    return sorted(wizard.review.checked_ids())


# ---------------------------------------------------------------- offline, apply, undo


def test_offline_run_review_subset_apply_and_undo(qtbot, main: MainWindow, agent: Path) -> None:
    before = tree_hashes(agent)
    wizard = open_wizard(main)
    wizard.setup.offline_radio.setChecked(True)
    assert wizard.setup.isComplete()
    run_to_end(qtbot, wizard)  # offline: no prompts page
    assert wizard.run.plan is not None and wizard.run.plan.offline
    assert "proposals to review" in wizard.run.summary.text()
    wizard.next()
    review = wizard.review
    assert wizard.currentId() == wizard.page_id("review")
    assert review.view.proposal is not None and review.view.proposal.id == "x2"  # the merge first
    assert [c.title.text() for c in review.view.columns] == [
        "Source 1 of 2 · plan-meeting", "Source 2 of 2 · schedule-meeting", "Merged · plan-meeting"]
    assert tree_hashes(agent) == before  # nothing written by running or reviewing

    review.select_none()
    assert checked(wizard) == [] and not wizard.button(NEXT).isEnabled()
    review.set_checked("x3", True)  # the deletion brings its merge along
    assert checked(wizard) == ["x2", "x3"]
    review.set_checked("x4", True)  # the mcp/ guide
    assert checked(wizard) == ["x2", "x3", "x4"] and wizard.button(NEXT).isEnabled()
    assert tree_hashes(agent) == before

    wizard.next()
    assert wizard.currentId() == wizard.page_id("apply")
    rows = {(wizard.apply.files.topLevelItem(i).text(0), wizard.apply.files.topLevelItem(i).text(1))
            for i in range(wizard.apply.files.topLevelItemCount())}
    assert rows == {("create", "mcp/guide"), ("update", "plan-meeting"), ("delete", "schedule-meeting")}
    assert wizard.button(COMMIT).isEnabled() and wizard.button(COMMIT).text() == "&Apply"
    assert tree_hashes(agent) == before

    wizard.next()  # Apply: off the UI thread, then on to the summary
    wait_for_apply(qtbot, wizard)
    assert wizard.currentId() == wizard.page_id("summary"), wizard.apply.error.text()
    skills = agent / "skills"
    assert not (skills / "schedule-meeting.json").exists()
    assert (skills / "mcp" / "guide.json").is_file()
    merged = RockBotLibrary.open(agent).get("plan-meeting")
    assert merged.content.count("## Also from 'schedule-meeting'") == 1
    library = main.ctx.library  # the open library follows, through the context
    assert library is not None and "schedule-meeting" not in library and "mcp/guide" in library
    assert "## Also from" in library.get("plan-meeting").content
    assert "Applied 3 proposals" in wizard.summary.message.text()

    wizard.summary.undo_button.click()
    assert tree_hashes(agent / "skills") == {k.removeprefix("skills/"): v for k, v in before.items()
                                             if k.startswith("skills/")}
    assert "schedule-meeting" in library and "mcp/guide" not in library
    assert "Undone" in wizard.summary.undo_message.text()
    assert not wizard.summary.undo_button.isEnabled()

    # One story: the wizard's Undo popped the apply from the session history (no extra step);
    # `rockskills undo` finds nothing to undo; Edit ▸ Redo applies the plan again, on record.
    from rockskills_gui.core.storage import journal
    from tests.core.test_dream_apply import _cli_undo

    assert library.history.can_redo and main.commands["edit.redo"].isEnabled()
    assert journal.last_undoable(agent) is None
    assert "nothing to undo" in _cli_undo(agent)
    skills_before = tree_hashes(agent / "skills")
    main.commands["edit.redo"].trigger()
    assert "mcp/guide" in library and tree_hashes(agent / "skills") != skills_before
    assert journal.last_undoable(agent) is not None
    assert "undid" in _cli_undo(agent)
    assert tree_hashes(agent / "skills") == skills_before


# ---------------------------------------------------------------- LLM runs


def test_llm_run_shows_the_exact_prompt_sends_the_edited_directive_and_reviews_the_merge(
        qtbot, main: MainWindow, server: ScriptedServer, agent: Path, tmp_path: Path) -> None:
    wizard = open_wizard(main)
    server.queue(ok(GOOD))
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE])
    wizard.next()
    prompt = wizard.prompts.prompts[DreamPass.CONSOLIDATE]
    expected = (EXPECTED / "dream-2-consolidation.user.txt").read_bytes().decode("utf-8")
    assert prompt.user.toPlainText() == expected.replace("\r\n", "\n")  # the view shows CRLF as \n
    assert "tokens" in prompt.tokens.text() and "built in" in prompt.source.text()
    prompt.system.setPlainText(prompt.system.toPlainText() + "\nKeep every tool name.")
    assert "edited for this run" in prompt.source.text()
    run_to_end(qtbot, wizard)

    request = server.requests[0]
    assert request.body["messages"][0]["content"].endswith("\nKeep every tool name.")
    assert request.body["messages"][1]["content"] == expected
    assert request.headers["authorization"] == f"Bearer {KEY}"
    plan = wizard.plan
    assert plan is not None and [p.id for p in plan.proposals] == ["c1", "c2", "c3", "c4"]
    wizard.next()
    review = wizard.review
    assert review.view.proposal is not None and review.view.proposal.id == "c2"
    codes = [code for code, _message in review.view.findings.rows]
    assert codes == ["source-not-in-todelete", "lost-specifics"]
    assert any("get_calendar_events" in message for _code, message in review.view.findings.rows)
    # issue 16: the merge away of skills used this month starts unticked, its deletions with it;
    # issue 32: so does the 18-month prune (nothing destructive is pre-selected)
    assert checked(wizard) == [] and "used 3× in 30 days" in review.reason_text("c2")
    assert "prunes 'legacy/fax-sender'" in review.reason_text("c1")
    review.select_all()
    assert checked(wizard) == ["c1", "c2", "c3", "c4"]

    # the key is used, never written: not in the plan, the settings or the UI state
    out = tmp_path / "plan.json"
    assert wizard.save_plan(out)
    config = Path(main.ctx.preferences.file).parent
    for path in [out, *config.rglob("*")]:
        if path.is_file():
            assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path
    wizard.next()
    wizard.next()  # Apply
    wait_for_apply(qtbot, wizard)
    assert wizard.currentId() == wizard.page_id("summary"), wizard.apply.error.text()
    assert (agent / "skills" / "meetings" / "plan-and-schedule.json").read_bytes() == SAVED


def test_an_invalid_reply_shows_the_raw_text_and_the_error_and_apply_stays_disabled(
        qtbot, main: MainWindow, server: ScriptedServer, agent: Path) -> None:
    before = tree_hashes(agent)
    wizard = open_wizard(main)
    raw = 'Sure! Here is the plan: {"toDelete": ["plan-meeting",], "toSave": [}'
    consolidation_review(qtbot, wizard, server, raw)
    results = wizard.run.results
    assert results.isVisible()
    assert results.raw.toPlainText() == raw
    assert "invalid JSON" in results.problems.text()
    assert "nothing from it is proposed" in results.problems.text()
    plan = wizard.plan
    assert plan is not None and plan.passes[0].status is PassStatus.FAILED
    wizard.next()  # only the 18-month prune remains, and it is not pre-selected
    assert wizard.currentId() == wizard.page_id("review")
    assert checked(wizard) == []
    assert not wizard.button(NEXT).isEnabled() and not wizard.can_apply()
    assert "failed" in wizard.review.banner.text()
    assert tree_hashes(agent) == before


def test_a_guard_violation_is_shown_and_cannot_be_applied(
        qtbot, main: MainWindow, server: ScriptedServer, agent: Path) -> None:
    before = tree_hashes(agent)
    wizard = open_wizard(main)
    consolidation_review(qtbot, wizard, server, json.dumps(EXAMPLE["guard_example"]["llm_result"]))
    assert "refused" in wizard.run.summary.text()
    wizard.next()
    review = wizard.review
    assert "Safety guard" in review.banner.text()
    review.show_proposal_id("c2")
    assert review.view.findings.rows[0][0] == "safety-guard"
    assert "Cannot be applied" in review.view.state.text()
    item = review.items["c2"]
    assert not item.flags() & Qt.ItemFlag.ItemIsUserCheckable
    review.set_checked("c2", True)
    assert "c2" not in checked(wizard)
    review.select_all()
    assert "c2" not in checked(wizard)
    # even a selection forced past the page is refused by the engine, with nothing written
    review.select_none()
    wizard.selection._nodes = {wizard.selection.graph.pos["c2"]}  # type: ignore[union-attr]
    assert not wizard.can_apply()
    message = wizard.apply_selected()
    assert message is not None and "without any replacement" in message
    assert tree_hashes(agent) == before


def test_rejecting_a_merge_unchecks_what_depends_on_it(
        qtbot, main: MainWindow, server: ScriptedServer) -> None:
    wizard = open_wizard(main)
    consolidation_review(qtbot, wizard, server, GOOD)
    wizard.next()
    review = wizard.review
    review.select_all()  # the merge of skills used this month starts unticked (issue 16)
    assert checked(wizard) == ["c1", "c2", "c3", "c4"]
    review.set_checked("c2", False)
    assert checked(wizard) == ["c1"]
    review.set_checked("c4", True)  # a deletion needs its merge back
    assert checked(wizard) == ["c1", "c2", "c4"]
    review.filter.setCurrentIndex(review.filter.findData("delete"))
    assert review.visible_ids() == ["c3", "c4"]
    review.select_none()  # only the shown ones
    assert checked(wizard) == ["c1", "c2"]


def test_cancel_during_a_slow_reply(qtbot, main: MainWindow, server: ScriptedServer) -> None:
    wizard = open_wizard(main)
    server.queue(Step(content=GOOD, delay=30.0))
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE], timeout=60)
    wizard.next()
    wizard.next()
    qtbot.waitUntil(lambda: len(server.requests) == 1, timeout=10_000)
    assert wizard.run.running and wizard.run.cancel_button.isVisible()
    started = time.monotonic()
    wizard.run.cancel_button.click()
    qtbot.waitUntil(lambda: not wizard.run.running, timeout=15_000)
    assert time.monotonic() - started < 15  # the reply is due after 30 s: it did not wait for it
    plan = wizard.plan
    assert plan is not None and plan.passes[0].status is PassStatus.CANCELLED
    assert wizard.run.status.text() == "Cancelled."


def test_back_during_a_run_abandons_it_and_a_new_run_starts_clean(
        qtbot, main: MainWindow, server: ScriptedServer) -> None:
    wizard = open_wizard(main)
    server.queue(Step(content=GOOD, delay=30.0), ok(GOOD))
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE], timeout=60)
    wizard.next()
    wizard.next()
    qtbot.waitUntil(lambda: len(server.requests) == 1, timeout=10_000)
    started = time.monotonic()
    wizard.back()  # leaving the page cancels the run and waits for its thread
    assert time.monotonic() - started < 15  # not for the reply, due after 30 s
    assert wizard.currentId() == wizard.page_id("prompts") and not wizard.run.running
    run_to_end(qtbot, wizard)
    qtbot.wait(100)  # nothing late from the abandoned run may arrive
    plan = wizard.plan
    assert plan is not None and plan.passes[0].status is PassStatus.OK
    assert [p.id for p in plan.proposals] == ["c1", "c2", "c3", "c4"]
    assert wizard.run.status.text() == "Finished."


# ---------------------------------------------------------------- plans and the command line


def scripted_plan(agent: Path, reply: dict, out: Path) -> Plan:
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW)
    plan = run_dream(RockBotLibrary.open(agent), options, PastedReplies([json.dumps(reply)]))
    plan.save(out)
    return plan


def test_a_saved_plan_opens_on_the_review_page(qtbot, main: MainWindow, agent: Path,
                                               tmp_path: Path) -> None:
    path = scripted_plan(agent, EXAMPLE["llm_result"], tmp_path / "plan.json") and tmp_path / "plan.json"
    wizard = open_wizard(main)
    assert wizard.open_plan(path)
    assert wizard.currentId() == wizard.page_id("review")
    assert wizard.review.view.proposal is not None and wizard.review.view.proposal.id == "c2"
    assert not wizard.save_plan(agent / "skills" / "plan.json")  # never inside the skills folder
    assert not (agent / "skills" / "plan.json").exists()
    # a library changed since the plan: Apply waits for a re-check
    (agent / "skills" / "plan-meeting.json").write_text("{}", encoding="utf-8")
    wizard.next()
    assert wizard.apply.changed_files and not wizard.button(COMMIT).isEnabled()
    wizard.apply.recheck_button.click()
    assert "c2" not in wizard.selection  # type: ignore[operator]
    assert any(f.code == "stale" for f in wizard.plan.get("c2").findings)  # type: ignore[union-attr]


def test_pane_dream_with_plan_starts_on_the_review_page(qtbot, main: MainWindow, agent: Path,
                                                        tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    scripted_plan(agent, EXAMPLE["llm_result"], path)
    args = app.parse_args([str(agent), "--pane", "dream", "--plan", str(path)])
    app._apply_start_options(main, args)
    wizard = main.dream_wizard
    assert wizard is not None and wizard.currentId() == wizard.page_id("review")
    assert [c.title.text() for c in wizard.review.view.columns] == [
        "Source 1 of 2 · plan-meeting", "Source 2 of 2 · schedule-meeting",
        "Merged · meetings/plan-and-schedule"]


def test_screenshot_of_the_review_page(agent: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "plan.json"
    scripted_plan(agent, EXAMPLE["llm_result"], path)
    out = tmp_path / "dream.png"
    assert app.main([str(agent), "--pane", "dream", "--plan", str(path), "--screenshot", str(out)]) == 0
    assert capsys.readouterr().err == ""
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    assert len({image.pixel(x, y) for x in range(0, 1400, 23) for y in range(0, 900, 23)}) > 5


def test_a_bad_plan_file_exits_2(agent: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    assert app.main([str(agent), "--plan", str(bad), "--screenshot", str(tmp_path / "x.png")]) == 2
    assert "is not a dream plan" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_the_review_shows_a_recall_regression_for_a_merge_that_hides_a_logged_request(
        qtbot, main: MainWindow, agent: Path) -> None:
    """A logged session whose first message only the merged-away skill answers: the merge and the
    deletion carry the finding on the review page, with the message quoted."""
    from rockskills_gui.core.recall.bm25 import tokenize

    lib = RockBotLibrary.open(agent)
    keep, drop = lib.get("plan-meeting"), lib.get("schedule-meeting")
    assert keep is not None and drop is not None
    theirs = set(tokenize(f"{keep.name} {keep.summary}"))
    message = " ".join(t for t in dict.fromkeys(tokenize(f"{drop.name} {drop.summary}")) if t not in theirs)
    (agent / "conversation-log").mkdir(exist_ok=True)
    with (agent / "conversation-log" / "turns.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps({"sessionId": "s-review", "role": "user", "content": message,
                              "timestamp": "2026-02-20T09:00:00+00:00"}) + "\n")
    (agent / "skill-usage").mkdir(exist_ok=True)
    (agent / "skill-usage" / "s-review.jsonl").write_text(json.dumps(
        {"id": "r1", "skillName": drop.name, "sessionId": "s-review",
         "timestamp": "2026-02-20T09:00:05+00:00"}) + "\n", encoding="utf-8")
    wizard = open_wizard(main)
    wizard.setup.offline_radio.setChecked(True)
    run_to_end(qtbot, wizard)
    wizard.next()
    review = wizard.review
    merge = next(p for p in wizard.run.plan.proposals if p.kind.value == "merge"
                 and p.record is not None and p.record.name == keep.name)
    review.show_proposal_id(merge.id)
    rows = dict(review.view.findings.rows)
    assert "recall-regression" in rows, rows
    assert message[:20] in rows["recall-regression"] and drop.name in rows["recall-regression"]
    review.select_all()
    dialog = review.show_recall_impact()
    assert dialog is not None
    lost = [row for row in dialog.rows() if row[2].startswith("✘ ")]
    assert any(row[0] == message and row[2] == f"✘ {drop.name} → {keep.name}" and row[4] == "—"
               for row in lost)
    dialog.only_changed.setChecked(False)
    assert len(dialog.rows()) >= len(lost)
    dialog.grab().save(str(agent.parent / "recall-impact.png"))
    dialog.close()


def test_the_review_and_apply_pages_mark_the_proposals_a_library_change_touched(
        qtbot, main: MainWindow, agent: Path) -> None:
    """Issue 16: a loaded plan knows it is stale, proposal by proposal."""
    wizard = open_wizard(main)
    wizard.setup.offline_radio.setChecked(True)
    run_to_end(qtbot, wizard)
    wizard.next()
    review = wizard.review
    assert wizard.currentId() == wizard.page_id("review")
    assert not review.stale_label.isVisible() and wizard.stale == {}
    # An edit elsewhere in the app (the editor's save) rewrites the merge's target.
    main.ctx.apply(lambda lib: lib.update("plan-meeting", content="Rewritten meanwhile."))
    assert set(wizard.stale) >= {"x2"} and "x4" not in wizard.stale
    assert review.stale_label.isVisible() and "x2" in review.stale_label.text()
    assert review.items["x2"].text(1).startswith("changed since the plan")
    assert not review.items["x4"].text(1).startswith("changed since the plan")
    review.select_none()
    review.set_checked("x2", True)
    wizard.next()
    assert wizard.currentId() == wizard.page_id("apply")
    assert "Ticked proposals whose files changed: x2" in wizard.apply.warning.text()
    main.commands["edit.undo"].trigger()  # undone: the plan is current again
    assert wizard.stale == {} and not review.stale_label.isVisible()
