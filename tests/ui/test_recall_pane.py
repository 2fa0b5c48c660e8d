"""The Recall tab against real widgets: every number and message equals the core's for the same
query and session (the core itself is checked against RockBot's vectors and fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.bm25 import document_text, parse_query, tokenize
from rockskills_gui.core.recall.compare import ComparisonRanker
from rockskills_gui.core.recall.queryset import evaluate, load_query_set
from rockskills_gui.core.recall.session import RecallSession
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.common import queries
from rockskills_gui.ui.recall.recall_model import (
    HIDDEN,
    INJECT,
    NAME_ROLE,
    RECALLED,
    SCORE_ROLE,
    SHIFT_ROLE,
    STATUS_ROLE,
    CompareModel,
    ResultsModel,
)
from rockskills_gui.ui.recall.recall_pane import RESULT_LIMIT, RecallPane
from rockskills_gui.ui.recall.score_bar_delegate import CUT_ROLE, SEGMENTS_ROLE, segment_colour
from rockskills_gui.ui.shell import app
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import EXPECTED

DEMO = json.loads((EXPECTED / "recall-demo.json").read_text("utf-8"))
TURNS = [turn["user"] for turn in DEMO]


@pytest.fixture
def pane(window: MainWindow) -> RecallPane:
    window.show_pane("recall")
    pane = window.recall_pane
    assert isinstance(pane, RecallPane)
    assert pane.recall is not None  # 24 skills: indexed on the UI thread
    return pane


def lib_of(pane: RecallPane) -> RockBotLibrary:
    assert pane.ctx.library is not None
    return pane.ctx.library


def core_hits(pane: RecallPane, query: str, top: int | None = RESULT_LIMIT) -> list[tuple[str, float]]:
    """A fresh core index over the library as it is now (not the pane's)."""
    recall = SkillRecall(lib_of(pane).skills())
    return [(h.name, h.score) for h in recall.search(query, top=top)]


def shown(pane: RecallPane) -> list[tuple[str, float]]:
    model = pane.model
    return [(model.index(r, 0).data(NAME_ROLE), model.index(r, 0).data(SCORE_ROLE))
            for r in range(model.rowCount())]


def statuses(pane: RecallPane) -> dict[str, str]:
    model = pane.model
    return {model.index(r, 0).data(NAME_ROLE): model.index(r, 0).data(STATUS_ROLE)
            for r in range(model.rowCount())}


def search(pane: RecallPane, text: str) -> None:
    pane.set_query(text, immediate=True)


# ---------------------------------------------------------------- typing and results


def test_typing_updates_results_after_the_debounce_and_equals_the_core(pane: RecallPane,
                                                                       qtbot) -> None:
    pane.query.setFocus()
    qtbot.keyClicks(pane.query, "summarize")
    assert pane.busy and pane.model.rowCount() == 0  # debounced: nothing searched yet
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        qtbot.keyClicks(pane.query, " this arxiv paper")
    query = "summarize this arxiv paper"
    assert pane.query.text() == query
    assert shown(pane) == core_hits(pane, query)
    assert shown(pane)[0][0] == "research/summarize-paper"
    assert "skills match" in pane.count_label.text()
    # Rank and display columns
    model = pane.model
    assert [model.index(r, ResultsModel.RANK).data() for r in range(model.rowCount())] == \
        list(range(1, model.rowCount() + 1))
    assert model.index(0, ResultsModel.SCORE).data() == f"{shown(pane)[0][1]:.4f}"


def test_bar_segments_add_up_and_the_tooltip_shows_idf_and_tf(pane: RecallPane) -> None:
    query = "meeting schedule"
    search(pane, query)
    recall = SkillRecall(lib_of(pane).skills())
    top = recall.search(query, top=1, explain=True)[0]
    assert top.explanation is not None
    index = pane.model.index(0, ResultsModel.BAR)
    segments = index.data(SEGMENTS_ROLE)
    assert [(s.label, s.phrase) for s in segments] == \
        [(t, False) for t in top.explanation.terms] + [(p, True) for p in top.explanation.phrases]
    assert any(s.phrase for s in segments)  # "meeting schedule" spans name and summary
    total = 0.0
    for segment in segments:
        total += segment.value
    assert total == top.score
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    for part in top.explanation.terms.values():
        assert f"{part.idf:.4f}" in tip and f"{part.tfn:.4f}" in tip
        assert f"{part.contribution:.4f}" in tip


def test_the_bar_is_painted_in_the_segment_colours(pane: RecallPane, qtbot) -> None:
    search(pane, "summarize this arxiv paper")
    qtbot.waitExposed(pane.table)
    pane.table.viewport().repaint()
    rect = pane.table.visualRect(pane.model.index(0, ResultsModel.BAR))
    image = pane.table.viewport().grab(rect).toImage()
    colours = {QColor(image.pixel(x, image.height() // 2)).name()
               for x in range(0, image.width(), 2)}
    first = pane.model.index(0, ResultsModel.BAR).data(SEGMENTS_ROLE)[0]
    assert segment_colour(first.slot).name() in colours


def test_an_empty_or_short_query_explains_why_nothing_is_shown(pane: RecallPane) -> None:
    search(pane, "a an to")
    assert pane.model.rowCount() == 0
    assert "3 letters" in pane.empty_note.text() and not pane.empty_note.isHidden()
    search(pane, "xyzzy")
    assert "No skill matches" in pane.empty_note.text()
    search(pane, "email")
    rest = len(lib_of(pane)) - pane.model.rowCount()
    assert pane.empty_note.text().startswith(f"{rest} other skills score 0")


# ---------------------------------------------------------------- session


def test_top5_cut_and_inject_markers_follow_the_session(pane: RecallPane) -> None:
    first, second = TURNS[0], TURNS[1]
    search(pane, first)
    model = pane.model
    assert model.rowCount() > 5
    cut = [r for r in range(model.rowCount()) if model.index(r, 0).data(CUT_ROLE)]
    assert cut == [4]  # the line under rank 5
    marks = statuses(pane)
    assert [n for n, s in marks.items() if s == INJECT] == [n for n, _ in DEMO[0]["bm25_top5"]]
    assert all(s == "" for n, s in list(marks.items())[5:])

    pane.add_turn()  # turn 1: injects the top 5; its see-also line names mcp/calendar
    search(pane, second)
    marks = statuses(pane)
    top5 = [n for n, _ in core_hits(pane, second, top=5)]
    assert top5[0] == "mcp/calendar"
    assert marks["mcp/calendar"] == HIDDEN  # ranked first, yet the see-also line hid it
    assert all(marks[n] == RECALLED for n in top5[1:])
    assert "no skill" in pane.inject_label.text()

    pane.reset_session()
    assert statuses(pane)["mcp/calendar"] == INJECT
    assert "session index" in pane.inject_label.text()


def test_see_also_line_and_what_it_hides(pane: RecallPane) -> None:
    search(pane, TURNS[0])
    expected = DEMO[0]["injected_system_messages"][-1]
    assert pane.see_also_label.text() == expected == "Related skills (see-also): mcp/calendar"
    assert not pane.see_also_label.isHidden()
    assert "Hidden from later recall: mcp/calendar" in pane.hidden_label.text()
    pane.add_turn()
    search(pane, TURNS[2])  # injects two skills whose see-also names were all marked before
    assert pane.preview is not None and len(pane.preview.injected) == 2
    assert pane.see_also_label.isHidden()
    assert "No see-also line" in pane.hidden_label.text()


def test_session_turns_show_exactly_recall_sessions_messages(pane: RecallPane) -> None:
    reference = RecallSession(SkillRecall(lib_of(pane).skills()))
    for number, text in enumerate(TURNS, 1):
        search(pane, text)
        expected = reference.turn(text)
        assert pane.session_panel.messages(0) == list(expected.messages)  # the preview
        pane.add_turn()
        assert pane.session_panel.messages(number) == list(expected.messages)
        assert [n for n, _ in DEMO[number - 1]["bm25_top5"]] == [h.name for h in expected.top]
    turn1 = pane.session_panel.messages(1)
    assert turn1[0] == DEMO[0]["injected_system_messages"][0]  # the index, turn 1 only
    assert pane.session_panel.messages(2) == []  # "Check my calendar": nothing new
    assert pane.sim is not None and len(pane.sim.turns) == len(TURNS)
    tree = pane.session_panel.tree
    assert tree.topLevelItemCount() == len(TURNS) + 1  # + the next turn's preview
    item = tree.topLevelItem(0).child(1)
    tree.setCurrentItem(item)
    assert pane.session_panel.text.toPlainText() == turn1[1]  # the exact text, shown


def test_enter_in_the_query_box_adds_a_turn(pane: RecallPane, qtbot) -> None:
    pane.query.setFocus()
    qtbot.keyClicks(pane.query, TURNS[0])
    qtbot.keyClick(pane.query, Qt.Key.Key_Return)
    assert pane.sim is not None and [t.user for t in pane.sim.turns] == [TURNS[0]]
    assert pane.side.currentWidget() is pane.session_panel


# ---------------------------------------------------------------- why not this skill?


def test_pinning_shows_rank_score_and_missing_terms(pane: RecallPane, qtbot) -> None:
    query = "summarize the meeting notes"
    search(pane, query)
    full = core_hits(pane, query, top=None)
    below = full[6]  # a skill below the top-5 cut
    pane.why_panel.edit.setText(below[0].upper())  # any spelling
    qtbot.keyClick(pane.why_panel.edit, Qt.Key.Key_Return)
    assert pane.pins == [below[0]]
    [report] = pane.pin_reports
    assert (report.rank, report.score) == (7, below[1])
    assert not report.in_top and report.gap == pytest.approx(full[4][1] - below[1])
    skill = lib_of(pane).get(below[0])
    assert skill is not None
    tokens = set(tokenize(document_text(skill.name, skill.summary)))
    assert set(report.lacks_terms) == {t for t in parse_query(query).terms if t not in tokens}
    [card] = pane.why_panel.card_widgets()
    assert "#7" in card.title.text() and "below the top-5 cut" in card.title.text()
    assert "Lacks terms:" in card.details.text() or "In no skill" in card.details.text()
    row = [n for n, _ in shown(pane)].index(below[0])
    assert pane.model.index(row, ResultsModel.STATUS).data() == "pinned"

    pane.pin("no-such-skill")
    assert pane.pin_reports[1].found is False
    card.close_button.click()
    assert pane.pins == ["no-such-skill"]


def test_a_pinned_skill_that_scores_zero(pane: RecallPane) -> None:
    pane.pin("legacy/fax-sender")
    search(pane, "summarize this arxiv paper")
    [report] = pane.pin_reports
    assert report.rank is None and report.score == 0.0
    assert set(report.lacks_terms) == set(parse_query("summarize this arxiv paper").terms)


# ---------------------------------------------------------------- compare


def test_compare_column_with_a_rank_bm25_ranker_and_arrows(pane: RecallPane) -> None:
    query = "meeting schedule"  # the phrase bonus (RockBot only) decides the order
    search(pane, query)
    pane.set_compare("okapi-lucene")
    assert pane.compare_table.isVisible()
    other = ComparisonRanker.for_skills("okapi-lucene", lib_of(pane).skills()).search(
        query, top=RESULT_LIMIT)
    model = pane.compare_model
    rows = [(model.index(r, 0).data(NAME_ROLE), model.index(r, 0).data(SCORE_ROLE))
            for r in range(model.rowCount())]
    assert rows == other
    base = [n for n, _ in core_hits(pane, query, top=None)]
    shifts = [model.index(r, 0).data(SHIFT_ROLE) for r in range(model.rowCount())]
    assert shifts == [base.index(n) - r if n in base else None
                      for r, (n, _) in enumerate(other)]
    assert shifts[:2] == [1, -1]  # no phrase bonus: the first two swap
    for r, shift in enumerate(shifts):
        text = model.index(r, CompareModel.SHIFT).data()
        assert text == ("new" if shift is None else "=" if shift == 0
                        else f"▲ {shift}" if shift > 0 else f"▼ {-shift}")
    pane.set_compare("")
    assert not pane.compare_table.isVisible()


def test_what_if_compares_with_unsaved_editor_edits(window: MainWindow, pane: RecallPane,
                                                    qtbot) -> None:
    path = lib_of(pane).entry("legacy/fax-sender").path
    before = path.read_bytes()
    query = "summarize this arxiv paper"
    search(pane, query)
    pane.set_compare("edits")
    assert "no unsaved edits" in pane.compare_title.text()
    assert pane.compare_model.names() == pane.model.names()
    # Edit a summary in the real editor, without saving.
    assert window.ctx.select_skill("legacy/fax-sender")
    window.show_pane("editor")
    editor = window.skill_pane
    editor.header.summary.selectAll()
    qtbot.keyClicks(editor.header.summary, "Summarize an arxiv paper and fax it")
    assert "legacy/fax-sender" in window.ctx.dirty_names
    window.show_pane("recall")
    qtbot.waitUntil(lambda: "legacy/fax-sender" in pane.compare_model.names(), timeout=2000)
    model = pane.compare_model
    row = model.names().index("legacy/fax-sender")
    assert model.index(row, 0).data(SHIFT_ROLE) is None  # RockBot does not rank it today
    assert model.index(row, CompareModel.SHIFT).data() == "new"
    edited = [s if s.name != "legacy/fax-sender" else s.model_copy(
        update={"summary": "Summarize an arxiv paper and fax it"}) for s in lib_of(pane).skills()]
    expected = [(h.name, h.score) for h in SkillRecall(edited).search(query, top=RESULT_LIMIT)]
    assert [(model.index(r, 0).data(NAME_ROLE), model.index(r, 0).data(SCORE_ROLE))
            for r in range(model.rowCount())] == expected
    assert "legacy/fax-sender" in pane.compare_title.text()
    assert shown(pane) == core_hits(pane, query)  # the main column is the library on disk
    assert path.read_bytes() == before  # nothing written


# ---------------------------------------------------------------- query sets


def test_query_sets_are_saved_beside_the_library_with_metrics(pane: RecallPane,
                                                              agent: Path) -> None:
    panel = pane.sets_panel
    pane.side.setCurrentWidget(panel)
    assert panel.create_set("smoke")
    path = agent / "recall-tests" / "smoke.json"
    assert path.is_file()
    search(pane, "summarize this arxiv paper")
    panel.expected.setText("research/summarize-paper")
    assert panel.add_current()
    search(pane, "Check my calendar for Thursday")
    pane.table.selectRow(1)  # the selected results become the expected skills
    assert panel.expected.text() == pane.model.names()[1]
    panel.expected.setText("plan-meeting")  # not in that query's top 5: fails
    assert panel.add_current()
    saved = load_query_set(path)
    assert [c.query for c in saved.queries] == ["summarize this arxiv paper",
                                                "Check my calendar for Thursday"]
    assert not list((agent / "skills").rglob("smoke*"))
    report = evaluate(SkillRecall(lib_of(pane).skills()), saved)
    assert panel.report is not None
    assert (panel.report.hit_at_1, panel.report.hit_at_5, panel.report.mrr) == \
        (report.hit_at_1, report.hit_at_5, report.mrr)
    text = panel.metrics.text()
    assert f"hit@1 <b>{report.hit_at_1:.2f}</b>" in text and f"MRR <b>{report.mrr:.3f}</b>" in text
    assert "1 failing" in text
    tree = panel.tree
    assert [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())] == ["✔", "✘"]
    assert "missing plan-meeting" in tree.topLevelItem(1).text(4)
    # Replace a case by saving the same query again; remove one.
    panel.expected.setText("mcp/calendar")
    assert panel.add_current()
    assert panel.report.failing == []
    tree.setCurrentItem(tree.topLevelItem(0))
    assert panel.remove_selected()
    assert [c.query for c in load_query_set(path).queries] == ["Check my calendar for Thursday"]


def test_a_query_set_follows_library_changes(pane: RecallPane, qtbot) -> None:
    panel = pane.sets_panel
    assert panel.create_set("rename")
    search(pane, "summarize this arxiv paper")
    panel.expected.setText("research/summarize-paper")
    assert panel.add_current()
    assert panel.report is not None and panel.report.failing == []
    with qtbot.waitSignal(panel.evaluated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.rename("research/summarize-paper", "research/papers"))
    assert [c.missing for c in panel.report.failing] == [("research/summarize-paper",)]


# ---------------------------------------------------------------- following the library


def test_index_follows_rename_delete_and_undo_through_ctx_apply(pane: RecallPane,
                                                                 qtbot) -> None:
    query = "summarize this arxiv paper"
    search(pane, query)
    before = shown(pane)
    top = before[0][0]
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.rename(top, "research/paper-digest"))
    assert shown(pane) == core_hits(pane, query)
    assert "research/paper-digest" in pane.model.names() and top not in pane.model.names()
    second = pane.model.names()[1]
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.delete(second))
    assert second not in pane.model.names()
    assert shown(pane) == core_hits(pane, query)
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.update("legacy/fax-sender", summary="arxiv paper fax"))
    assert shown(pane) == core_hits(pane, query)
    pane.ctx.undo()
    pane.ctx.undo()
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.undo()
    assert shown(pane) == before
    assert pane.recall is not None and [s.name for s in pane.recall.skills()] == \
        lib_of(pane).names()


def test_large_libraries_are_indexed_on_a_worker(window: MainWindow, qtbot, agent: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "INLINE_BUDGET_S", 0)  # every index is built on a worker
    pane = window.recall_pane
    pane.set_query("summarize this arxiv paper")
    with qtbot.waitSignal(pane.indexReady, timeout=10_000):
        window.ctx.set_library(RockBotLibrary.open(agent), remember=False)
        assert pane.recall is None and pane.busy
        assert "Indexing" in pane.empty_note.text()
    assert shown(pane) == core_hits(pane, "summarize this arxiv paper")
    reference = RecallSession(SkillRecall(lib_of(pane).skills())).turn("summarize this arxiv paper")
    assert pane.preview == reference  # incl. the session index text built on the worker
    # A change made while the index is being built is caught up when it arrives.
    with qtbot.waitSignal(pane.indexReady, timeout=10_000):
        window.ctx.set_library(RockBotLibrary.open(agent), remember=False)
        window.ctx.apply(lambda lib: lib.update("legacy/fax-sender", summary="arxiv paper fax"))
        assert pane.recall is None
    assert "legacy/fax-sender" in pane.model.names()
    assert shown(pane) == core_hits(pane, "summarize this arxiv paper")
    pane.set_compare("bm25plus")
    qtbot.waitUntil(lambda: pane.compare_model.rowCount() > 0, timeout=10_000)
    assert [(n, s) for n, s in zip(pane.compare_model.names(),
                                   [pane.compare_model.index(r, 0).data(SCORE_ROLE)
                                    for r in range(pane.compare_model.rowCount())], strict=True)] \
        == ComparisonRanker.for_skills("bm25plus", lib_of(pane).skills()).search(
            "summarize this arxiv paper", top=RESULT_LIMIT)
    pane.wait()


# ---------------------------------------------------------------- opening a skill


def test_double_click_and_enter_open_the_skill_in_the_editor(window: MainWindow, pane: RecallPane,
                                                            qtbot) -> None:
    search(pane, "summarize this arxiv paper")
    qtbot.waitExposed(pane.table)
    rect = pane.table.visualRect(pane.model.index(1, ResultsModel.NAME))
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.tabs.currentWidget() is window.skill_pane
    assert window.ctx.current_skill == pane.model.names()[1]
    window.show_pane("recall")
    pane.table.setFocus()
    pane.table.setCurrentIndex(pane.model.index(2, ResultsModel.NAME))
    qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    assert window.tabs.currentWidget() is window.skill_pane
    assert window.ctx.current_skill == pane.model.names()[2]


# ---------------------------------------------------------------- command line


def test_query_option_shows_the_results_for_that_query(agent: Path, qapp: QApplication) -> None:
    seen: dict[str, object] = {}

    def poll() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow)]
        window = windows[0] if windows else None
        if window is None or window.ctx.library is None or window.recall_pane.busy:
            QTimer.singleShot(20, poll)
            return
        QTimer.singleShot(20, lambda: finish(window))

    def finish(window: MainWindow) -> None:
        seen["tab"] = window.tabs.currentWidget() is window.recall_pane
        seen["query"] = window.recall_pane.query.text()
        seen["names"] = window.recall_pane.model.names()
        qapp.exit(0)

    QTimer.singleShot(0, poll)
    assert app.main([str(agent), "--query", "meeting schedule"]) == 0
    expected = [h.name for h in SkillRecall(RockBotLibrary.open(agent).skills()).search(
        "meeting schedule", top=RESULT_LIMIT)]
    assert seen == {"tab": True, "query": "meeting schedule", "names": expected}
    assert expected[0] == "plan-meeting"


def test_query_screenshot(agent: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "recall.png"
    assert app.main([str(agent), "--pane", "recall", "--query", "summarize this arxiv paper",
                     "--screenshot", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert out.is_file()


def test_hover_point_is_inside_the_bar(pane: RecallPane, qtbot) -> None:
    """The tooltip is served for the bar cell the mouse is over (a real help event)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent

    search(pane, "summarize this arxiv paper")
    qtbot.waitExposed(pane.table)
    rect = pane.table.visualRect(pane.model.index(0, ResultsModel.BAR))
    viewport = pane.table.viewport()
    point = rect.center()
    event = QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(QPoint(point)))
    QApplication.sendEvent(viewport, event)
    from PySide6.QtWidgets import QToolTip
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "idf" in QToolTip.text() and "research/summarize-paper" in QToolTip.text()
    QToolTip.hideText()
