"""The Recall tab's trigger evals against real widgets and a real chat-completions server on
127.0.0.1 that answers each query with scripted tool calls (tests/core/llm_server.py): a field
file found for the selected skill and run end to end, rates and pass/fail per row, precision and
recall, the confusion view, the estimate before anything is sent, cancel, snapshots compared,
the description what-if asking only the affected rows again, and saving/exporting as undoable
changes (RockBot: beside the query sets, never in skills/)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from rockskills_gui.core.app.secrets import KeyStore
from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.evals.trigger_file import read_trigger_file
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.model.profile import Selection
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.recall.recall_pane import RecallPane
from rockskills_gui.ui.recall.recall_view import PLAYGROUND, TRIGGERS
from rockskills_gui.ui.recall.selection_view import VIEWS, selection_view
from rockskills_gui.ui.recall.trigger_panel import ALL, TriggerEvalPanel
from rockskills_gui.ui.recall.trigger_rows import TriggerRowsModel
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.llm_server import ScriptedServer, Step, activate, by_query, scripted_server
from tests.core.test_trigger_evals import FIELD, field_library
from tests.dict_keyring import DictKeyring
from tests.ui.conftest import open_window

KEY = "sk-trigger-gui-5hQ9wL2x"
FIELD_FILE = FIELD / "evals" / "trigger_eval.json"
MATH = "math-olympiad"


def fires(*names: str | None) -> list[Step]:
    return [activate(n) for n in names]


@pytest.fixture
def skill_lib(tmp_path: Path) -> Path:
    """A SKILL.md library: the field's math-olympiad skill (its evals/trigger_eval.json) and two
    neighbours."""
    return field_library(tmp_path / "lib", {"pdf": "Read, fill and merge PDF forms.",
                                            "code-review": "Review code and proofs written in code."})


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server() as running:
        yield running


def make_ctx(tmp_path: Path, server: ScriptedServer) -> AppContext:
    ctx = AppContext(preferences=SettingsStore(tmp_path / "settings.json"), keys=KeyStore(DictKeyring()))
    ctx.preferences.update(endpoint="custom", base_url=server.base_url, model="test-model", timeout=10.0)
    ctx.keys.set(server.base_url, KEY)
    return ctx


def panel_of(window: MainWindow, qtbot) -> TriggerEvalPanel:
    window.show_pane("recall")
    pane = window.recall_pane
    assert isinstance(pane, RecallPane)
    pane.show_mode(TRIGGERS)
    panel = pane.trigger_panel
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    return panel


@pytest.fixture
def window(qtbot, tmp_path: Path, skill_lib: Path, server: ScriptedServer) -> Iterator[MainWindow]:
    win = open_window(qtbot, skill_lib, make_ctx(tmp_path, server))
    yield win
    pane = win.recall_pane
    if isinstance(pane, RecallPane) and pane._triggers is not None:
        pane.trigger_panel.runs.stop()
        pane.trigger_panel.wait()
    win.loader.cancel()
    win.loader.wait()


@pytest.fixture
def panel(window: MainWindow, qtbot) -> TriggerEvalPanel:
    return panel_of(window, qtbot)


def show(panel: TriggerEvalPanel) -> dict[str, tuple[str, str, str]]:
    """Per query as the table shows it: (mark, rate, fired)."""
    m = panel.model
    return {m.index(r, TriggerRowsModel.QUERY).data(): (m.index(r, TriggerRowsModel.MARK).data(),
                                                        m.index(r, TriggerRowsModel.RATE).data(),
                                                        m.index(r, TriggerRowsModel.FIRED).data())
            for r in range(m.rowCount())}


def run_and_wait(panel: TriggerEvalPanel, qtbot, what_if: bool = False) -> None:
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=10_000)
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        (panel.what_if_button if what_if else panel.run_button).click()
    qtbot.waitUntil(lambda: not panel.runs.busy, timeout=5_000)


def wait_estimate(panel: TriggerEvalPanel, qtbot, wanted: str) -> str:
    qtbot.waitUntil(lambda: wanted in panel.estimate_label.text(), timeout=10_000)
    return panel.estimate_label.text()


# The field's file, scripted: most rows as they should be, a few not.
SIMPLIFY = "Simplify this proof — it feels overly complicated"
CONJECTURE = "Here's a conjecture from a math competition. Is it true?"
LEAN = "Debug this proof assistant code — my Lean tactic isn't working"
FIELD_SCRIPT = {
    **{r.query: fires(MATH) for r in read_trigger_file(FIELD_FILE) if r.should_trigger},
    SIMPLIFY: fires(None, MATH, None),  # 1/3: fails
    CONJECTURE: fires("code-review", "code-review", MATH),  # 1/3, code-review fired instead
    LEAN: fires(MATH, "code-review", MATH),  # a near miss at 2/3: fails
}


def test_the_selected_skills_field_file_runs_end_to_end(window: MainWindow, panel: TriggerEvalPanel,
                                                        server: ScriptedServer, qtbot,
                                                        tmp_path: Path) -> None:
    server.responder = by_query(FIELD_SCRIPT)
    assert window.ctx.select_skill(MATH)
    assert panel.source == MATH and panel.model.rowCount() == 20
    assert "evals/trigger_eval.json" in panel.where.text()
    estimate = wait_estimate(panel, qtbot, "requests to send")
    assert "60 requests to send (0 of 60 cached)" in estimate and server.requests == []
    run_and_wait(panel, qtbot)
    assert len(server.requests) == 60
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    shown = show(panel)
    assert shown[SIMPLIFY] == ("✘", "1/3  0.33", "no skill 2, math-olympiad 1")
    assert shown[CONJECTURE] == ("✘", "1/3  0.33", "code-review 2, math-olympiad 1")
    assert shown[LEAN] == ("✘", "2/3  0.67", "math-olympiad 2, code-review 1")
    assert shown["Help me with this USAMO geometry problem"] == ("✔", "3/3  1.00", "math-olympiad 3")
    assert shown["Compute the integral of x^2 sin(x) dx"] == ("✔", "0/3  0.00", "no skill 3")
    assert "20 rows: <b>17 pass</b>, <b>3 fail</b>" in panel.summary.text()
    # per skill precision and recall, over runs: TP 8*3+1+1, FN 4, FP 2 (the near miss)
    scores = panel.results.scores
    assert [scores.index(0, c).data() for c in range(5)] == [
        MATH, f"{26 / 28:.2f}", f"{26 / 30:.2f}", "17/20", "26 · 2 · 4 · 28"]
    instead = panel.results.instead
    assert [instead.index(0, c).data() for c in range(3)] == [MATH, "code-review", 2]
    competing = panel.results.competing
    pairs = {(competing.index(r, 0).data(), competing.index(r, 1).data()): competing.index(r, 2).data()
             for r in range(competing.rowCount())}
    assert pairs == {("code-review", MATH): 2}
    tip = competing.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("code-review: Review code and proofs written in code.\nmath-olympiad: ")
    assert CONJECTURE in tip and LEAN in tip
    # the key reached the server and nothing else: no file of the library or the cache holds it
    for folder in (window.ctx.library.agent_dir, Path(os.environ["ROCKSKILLS_CACHE_DIR"]), tmp_path):
        for path in folder.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path
    # run again: everything from the cache
    assert "0 requests to send (60 of 60 cached)" in wait_estimate(panel, qtbot, "60 of 60 cached")
    run_and_wait(panel, qtbot)
    assert len(server.requests) == 60 and panel.report is not None and panel.report.cached == 60


def test_the_estimate_follows_the_settings(panel: TriggerEvalPanel, window: MainWindow, qtbot) -> None:
    window.ctx.select_skill(MATH)
    wait_estimate(panel, qtbot, "60 requests to send")
    panel.runs_box.setValue(5)
    wait_estimate(panel, qtbot, "100 requests to send")
    panel.concurrency_box.setValue(10)
    text = wait_estimate(panel, qtbot, "10 at a time")
    assert "about 20 s at 2.0 s per request (assumed)" in text  # 100 requests, 10 at a time
    window.ctx.preferences.update(model="")
    qtbot.waitUntil(lambda: "Preferences" in panel.estimate_label.text())
    assert not panel.run_button.isEnabled()


def test_cancel_keeps_what_finished(panel: TriggerEvalPanel, window: MainWindow, server: ScriptedServer,
                                    qtbot) -> None:
    window.ctx.select_skill("pdf")
    for text in ("merge these pdfs", "fill this form", "write a memo"):
        panel.add_row(text, text != "write a memo")
    slow = {"merge these pdfs": [activate("pdf")],
            "fill this form": [Step(**{**activate("pdf").__dict__, "delay": 60.0})],
            "write a memo": [Step(**{**activate(None).__dict__, "delay": 60.0})]}
    server.responder = by_query(slow)
    qtbot.waitUntil(lambda: panel.run_button.isEnabled())
    started = time.monotonic()
    panel.run_button.click()
    assert panel.cancel_button.isEnabled() and not panel.run_button.isEnabled()
    qtbot.waitUntil(lambda: panel.progress.value() >= 3, timeout=10_000)
    with qtbot.waitSignal(panel.finished, timeout=10_000):
        panel.cancel_button.click()
    assert time.monotonic() - started < 30  # not the 60 s the slow replies take
    shown = show(panel)
    assert shown["merge these pdfs"] == ("✔", "3/3  1.00", "pdf 3")
    assert shown["fill this form"][0] == shown["write a memo"][0] == "—"
    assert "cancelled" in panel.summary.text() and "1 pass" in panel.summary.text()
    qtbot.waitUntil(lambda: not panel.cancel_button.isEnabled())


def test_a_snapshot_compared_with_the_next_run(panel: TriggerEvalPanel, window: MainWindow,
                                               server: ScriptedServer, qtbot) -> None:
    window.ctx.select_skill("pdf")
    panel.add_row("merge these pdfs", True)
    panel.add_row("write a memo", False)
    server.responder = by_query({"merge these pdfs": fires("pdf")})
    run_and_wait(panel, qtbot)
    assert panel.save_snapshot("before") == "before"
    snap = window.ctx.library.agent_dir / "recall-tests" / "trigger-snapshots" / "before.json"
    assert snap.is_file() and not (window.ctx.library.agent_dir / "skills" / "recall-tests").exists()
    # another model answers otherwise (another cache key): the first row regresses
    window.ctx.preferences.update(model="other-model")
    server.responder = by_query({"merge these pdfs": fires(None, None, "pdf")})
    run_and_wait(panel, qtbot)
    panel.snapshot_box.setCurrentText("before")
    panel.compare_button.click()
    m = panel.model
    versus = {m.index(r, TriggerRowsModel.QUERY).data(): m.index(r, TriggerRowsModel.VERSUS).data()
              for r in range(m.rowCount())}
    assert versus == {"merge these pdfs": "✘ 1.00 → 0.33 regressed", "write a memo": "same"}
    assert m.headerData(TriggerRowsModel.VERSUS, Qt.Orientation.Horizontal) == "vs before"
    assert "1 row changed, 1 regressed" in panel.summary.text()


def edit_description(window: MainWindow, qtbot, name: str, text: str) -> None:
    assert window.ctx.select_skill(name)
    window.show_pane("editor")
    editor = window.skill_pane
    editor.header.summary.selectAll()
    qtbot.keyClicks(editor.header.summary, text)
    assert name in window.ctx.dirty_names
    window.show_pane("recall")


def test_the_what_if_asks_only_the_rows_the_edit_affects(panel: TriggerEvalPanel, window: MainWindow,
                                                        server: ScriptedServer, qtbot) -> None:
    window.ctx.select_skill("pdf")
    panel.add_row("merge these pdfs", True)
    panel.add_row("review this diff", False)
    server.responder = by_query({"merge these pdfs": fires("pdf"), "review this diff": fires("code-review")})
    run_and_wait(panel, qtbot)
    assert len(server.requests) == 6 and not panel.what_if_button.isEnabled()
    path = window.ctx.library.skill_path("code-review")
    before = path.read_bytes()
    # an edit the listing shows: every row is affected (its request changes) and asked again
    edit_description(window, qtbot, "code-review", "Review code, diffs and merged PDFs.")
    window.ctx.select_skill("pdf")
    assert "6 more requests" in wait_estimate(panel, qtbot, "With unsaved edits")
    server.responder = by_query({"merge these pdfs": fires("code-review", "pdf", "code-review"),
                                 "review this diff": fires("code-review")})
    run_and_wait(panel, qtbot, what_if=True)
    assert len(server.requests) == 12  # the saved listing's came from the cache
    edited = [r for r in server.requests[6:] if r.body["messages"][1]["content"] == "merge these pdfs"]
    assert all("merged PDFs" in r.body["messages"][0]["content"] for r in edited)
    m = panel.model
    versus = {m.index(r, TriggerRowsModel.QUERY).data(): m.index(r, TriggerRowsModel.VERSUS).data()
              for r in range(m.rowCount())}
    assert versus == {"merge these pdfs": "✘ 1.00 → 0.33 regressed", "review this diff": "same"}
    assert m.headerData(TriggerRowsModel.VERSUS, Qt.Orientation.Horizontal) == "vs saved descriptions"
    assert path.read_bytes() == before  # nothing written
    # the what-if again: the edited listing is cached too, nothing is sent
    run_and_wait(panel, qtbot, what_if=True)
    assert len(server.requests) == 12


def test_an_edit_the_listing_does_not_show_affects_no_row(panel: TriggerEvalPanel, window: MainWindow,
                                                         server: ScriptedServer, qtbot) -> None:
    window.ctx.select_skill("pdf")
    panel.add_row("merge these pdfs", True)
    server.responder = by_query({"merge these pdfs": fires("pdf")})
    run_and_wait(panel, qtbot)
    sent = len(server.requests)
    window.ctx.select_skill("code-review")
    window.show_pane("editor")
    source = window.skill_pane.editor
    source.moveCursor(QTextCursor.MoveOperation.End)
    source.insertPlainText("\nAnother paragraph: the description stays.\n")
    qtbot.waitUntil(lambda: "code-review" in window.ctx.dirty_names)
    window.show_pane("recall")
    window.ctx.select_skill("pdf")
    assert "no row is affected" in wait_estimate(panel, qtbot, "no row is affected")
    run_and_wait(panel, qtbot, what_if=True)
    assert len(server.requests) == sent
    assert "no row is affected" in panel.summary.text()


def test_saving_rows_is_an_undoable_change(panel: TriggerEvalPanel, window: MainWindow, qtbot) -> None:
    ctx = window.ctx
    ctx.select_skill("pdf")
    assert panel.source == "pdf" and panel.model.rowCount() == 0
    panel.new_query.setText("merge these pdfs")
    qtbot.keyClick(panel.new_query, Qt.Key.Key_Return)
    panel.new_should.setChecked(False)
    panel.new_query.setText("write a memo")
    panel.add_button.click()
    assert panel.save_button.isEnabled() and "unsaved" in panel.source_box.currentText()
    target = ctx.library.agent_dir / "skills" / "pdf" / "evals" / "trigger-evals.json"
    panel.save_button.click()
    assert json.loads(target.read_text()) == [{"query": "merge these pdfs", "should_trigger": True},
                                              {"query": "write a memo", "should_trigger": False}]
    assert ctx.library.history.undo_stack[-1].label == "Save trigger evals of 'pdf'"
    qtbot.waitUntil(lambda: not panel.busy and "pdf" not in panel.drafts)
    assert not panel.save_button.isEnabled()
    ctx.undo()
    assert not target.exists()
    qtbot.waitUntil(lambda: not panel.busy)
    assert panel.model.rowCount() == 0  # no file, no draft: the rows went with the undo
    ctx.redo()
    assert target.exists()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)


def test_editing_a_row_in_the_table(panel: TriggerEvalPanel, window: MainWindow, qtbot) -> None:
    window.ctx.select_skill(MATH)
    m = panel.model
    row = next(r for r in range(m.rowCount()) if m.index(r, TriggerRowsModel.QUERY).data() == LEAN)
    assert m.setData(m.index(row, TriggerRowsModel.SHOULD), Qt.CheckState.Checked.value,
                     Qt.ItemDataRole.CheckStateRole)
    assert m.setData(m.index(0, TriggerRowsModel.QUERY), "Solve this IMO problem, please")
    assert MATH in panel.drafts and panel.drafts[MATH][0].query == "Solve this IMO problem, please"
    assert next(r for r in panel.drafts[MATH] if r.query == LEAN).should_trigger
    field = window.ctx.library.agent_dir / "skills" / MATH / "evals" / "trigger_eval.json"
    assert read_trigger_file(field)[0].query.startswith("Solve this IMO problem: ")  # not saved yet
    panel.table.selectRow(0)
    assert panel.remove_rows() == 1 and len(panel.drafts[MATH]) == 19
    panel.table.setFocus()
    panel.table.selectRow(0)
    qtbot.keyClick(panel.table, Qt.Key.Key_Delete)
    assert len(panel.drafts[MATH]) == 18
    panel.revert()
    assert panel.model.rowCount() == 20 and MATH not in panel.drafts


def test_export_into_the_library_is_undoable_and_elsewhere_a_file(panel: TriggerEvalPanel,
                                                                  window: MainWindow, qtbot,
                                                                  tmp_path: Path) -> None:
    ctx = window.ctx
    ctx.select_skill(MATH)
    outside = tmp_path / "out" / "math.json"
    assert panel.export_to(outside)
    assert json.loads(outside.read_bytes()) == json.loads(FIELD_FILE.read_bytes())
    assert not ctx.library.history.undo_stack
    inside = ctx.library.agent_dir / "skills" / "pdf" / "evals" / "trigger-evals.json"
    assert panel.export_to(inside)
    label = ctx.library.history.undo_stack[-1].label
    assert label == "Export trigger evals to skills/pdf/evals/trigger-evals.json"
    ctx.undo()
    assert not inside.exists()


def test_opening_a_field_file_for_the_selected_skill(panel: TriggerEvalPanel, window: MainWindow,
                                                      qtbot) -> None:
    window.ctx.select_skill("code-review")
    assert panel.open_file(FIELD_FILE)  # not in the library: about the skill shown
    assert panel.source == "code-review" and panel.model.rowCount() == 20
    assert "opened from" in panel.where.text()
    assert panel.save()
    stored = window.ctx.library.agent_dir / "skills" / "code-review" / "evals" / "trigger-evals.json"
    assert json.loads(stored.read_bytes()) == json.loads(FIELD_FILE.read_bytes())
    bad = window.ctx.library.agent_dir.parent / "bad.json"
    bad.write_text('[{"query": "q"}]')
    assert not panel.open_file(bad) and "should_trigger" in panel.last_message
    assert bad.read_text() == '[{"query": "q"}]'


def test_all_files_at_once_and_an_unreadable_one_named(panel: TriggerEvalPanel, window: MainWindow,
                                                       server: ScriptedServer, qtbot) -> None:
    broken = window.ctx.library.agent_dir / "skills" / "pdf" / "evals" / "trigger-evals.json"
    broken.parent.mkdir()
    broken.write_bytes(b"[{")
    window.ctx.select_skill("code-review")
    panel.add_row("review my pull request", True)
    panel.rescan(delay_ms=0)
    qtbot.waitUntil(lambda: not panel.busy)
    panel.show_source(ALL)
    assert {panel.model.index(r, TriggerRowsModel.SKILL).data() for r in range(panel.model.rowCount())} \
        == {MATH, "code-review"}
    assert not panel.table.isColumnHidden(TriggerRowsModel.SKILL) and not panel.model.editable
    assert "could not be read" in panel.where.text() and "trigger-evals.json: not JSON" in panel.where.text()
    server.responder = by_query({**FIELD_SCRIPT, "review my pull request": fires("code-review")})
    run_and_wait(panel, qtbot)
    assert [panel.results.scores.index(r, 0).data() for r in range(panel.results.scores.rowCount())] \
        == [MATH, "code-review"]
    assert broken.read_bytes() == b"[{"
    window.ctx.select_skill("pdf")
    assert panel.source == ALL  # chosen: selecting a skill does not leave it


def test_rockbot_keeps_its_rows_beside_the_query_sets(qtbot, tmp_path: Path, agent: Path,
                                                      server: ScriptedServer) -> None:
    window = open_window(qtbot, agent, make_ctx(tmp_path, server))
    panel = panel_of(window, qtbot)
    window.ctx.select_skill("plan-meeting")
    before = sorted(p.relative_to(agent) for p in (agent / "skills").rglob("*"))
    panel.add_row("plan a meeting with the team", True)
    assert panel.save()
    stored = agent / "recall-tests" / "trigger-evals" / "plan-meeting.json"
    assert [(r.query, r.should_trigger) for r in read_trigger_file(stored)] == [
        ("plan a meeting with the team", True)]
    assert sorted(p.relative_to(agent) for p in (agent / "skills").rglob("*")) == before
    server.responder = by_query({"plan a meeting with the team": [
        Step(tool_calls=[{"id": "1", "type": "function",
                          "function": {"name": "get_skill", "arguments": '{"name": "plan-meeting"}'}}])]})
    run_and_wait(panel, qtbot)
    assert server.requests[0].body["tools"][0]["function"]["name"] == "get_skill"
    assert show(panel)["plan a meeting with the team"][:2] == ("✔", "3/3  1.00")
    panel.runs.stop()
    window.loader.cancel()
    window.loader.wait()


def test_the_recall_tab_starts_where_the_agent_selects(window: MainWindow, qtbot, tmp_path: Path,
                                                       agent: Path, server: ScriptedServer) -> None:
    """A SKILL.md library's agent lets the model pick: the tab opens on trigger evals and says so;
    RockBot ranks by BM25: the playground, and the other view one click away."""
    window.show_pane("recall")
    pane = window.recall_pane
    assert isinstance(pane, RecallPane)
    assert pane.mode == TRIGGERS and pane.view.stack.currentWidget() is pane.trigger_panel
    assert pane.view.triggers_button.isChecked()
    note = pane.view.selection_note
    assert note.text().startswith("Agent Skills: the model picks from the listing")
    assert "adding-skills-support.mdx" in note.toolTip()  # the profile's cited selection rule
    rockbot = open_window(qtbot, agent, make_ctx(tmp_path / "rb", server))
    rockbot.show_pane("recall")
    other = rockbot.recall_pane
    assert isinstance(other, RecallPane)
    assert other.mode == PLAYGROUND and other.view.stack.currentWidget() is other.view.playground
    assert other._triggers is None  # not built until asked for
    assert other.view.selection_note.text().startswith("RockBot: BM25 picks what a turn injects")
    assert "top 5" in other.view.selection_note.toolTip()
    other.view.triggers_button.click()
    assert other.mode == TRIGGERS and other.view.stack.currentWidget() is other.trigger_panel
    other.view.playground_button.click()
    assert other.view.stack.currentWidget() is other.view.playground
    other.trigger_panel.wait()
    rockbot.loader.cancel()
    rockbot.loader.wait()


@pytest.mark.parametrize(("format", "selection", "view"), [
    ("rockbot-64e82cc", Selection.BM25, PLAYGROUND), ("rockbot-current", Selection.HYBRID, PLAYGROUND),
    ("agentskills", Selection.LLM_LISTING, TRIGGERS), ("cortex", Selection.EMBEDDING_LEXICAL, TRIGGERS)])
def test_the_view_is_asked_of_the_profiles_selection(format: str, selection: Selection, view: str,
                                                     agent: Path, skill_lib: Path) -> None:
    """Every way of selecting has its view; the note names the agent and cites its rule."""
    assert set(VIEWS) == set(Selection)
    library = open_library(agent if format.startswith("rockbot") else skill_lib, OpenOptions(format=format))
    assert library.profile.selection is selection
    shown = selection_view(library)
    assert shown.view == view and shown.note.startswith(f"{library.profile.label}: ")
    assert library.profile.source("selection") in shown.detail


def test_unsaved_rows_come_back_with_their_library(panel: TriggerEvalPanel, window: MainWindow, qtbot,
                                                   skill_lib: Path, agent: Path) -> None:
    window.ctx.select_skill("pdf")
    panel.add_row("merge these pdfs", True)
    for path in (agent, skill_lib):
        with qtbot.waitSignal(window.loadFinished, timeout=10_000):
            window.open_path(path)
        qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
        assert ("pdf" in panel.drafts) is (path == skill_lib)
    panel.show_source("pdf")
    assert [r.query for r in panel.drafts["pdf"]] == ["merge these pdfs"]
    assert "unsaved" in panel.source_box.currentText()
