"""Views of the Recall tab derived from the library follow it: query sets offer to rewrite names
after a rename, and the comparisons with unsaved edits follow library and buffer changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.queryset import load_query_set
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.recall.recall_model import NAME_ROLE, SCORE_ROLE
from rockskills_gui.ui.recall.recall_pane import RESULT_LIMIT, RecallPane
from rockskills_gui.ui.shell.main_window import MainWindow

QUERY = "summarize this arxiv paper"


@pytest.fixture
def pane(window: MainWindow) -> RecallPane:
    window.show_pane("recall")
    pane = window.recall_pane
    assert isinstance(pane, RecallPane)
    assert pane.recall is not None
    return pane


def lib_of(pane: RecallPane) -> RockBotLibrary:
    assert pane.ctx.library is not None
    return pane.ctx.library


def test_a_rename_offers_to_rewrite_the_query_sets(pane: RecallPane, agent: Path, qtbot) -> None:
    panel = pane.sets_panel
    assert panel.create_set("other")  # a second set, not the current one, names it too
    pane.set_query("paper digest", immediate=True)
    panel.expected.setText("mcp/email")
    assert panel.add_current()
    other = load_query_set(agent / "recall-tests" / "other.json")
    panel._save(other.model_copy(update={"queries": [other.queries[0].model_copy(
        update={"avoid": ["research/summarize-paper"]})]}))
    assert panel.create_set("smoke")
    pane.set_query(QUERY, immediate=True)
    panel.expected.setText("research/summarize-paper")
    assert panel.add_current()
    assert panel.report is not None and panel.report.failing == []
    assert panel.rename_banner.isHidden()
    with qtbot.waitSignal(panel.evaluated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.rename("research/summarize-paper", "research/papers"))
    assert [c.missing for c in panel.report.failing] == [("research/summarize-paper",)]
    assert not panel.rename_banner.isHidden()
    assert panel.rename_label.text() == ("2 queries name 'research/summarize-paper' "
                                         "(renamed to 'research/papers') —")
    with qtbot.waitSignal(panel.evaluated, timeout=2000):
        panel.rename_button.click()
    assert panel.rename_banner.isHidden()
    assert panel.report.failing == []
    assert load_query_set(agent / "recall-tests" / "smoke.json").queries[0].expected == \
        ["research/papers"]
    assert load_query_set(agent / "recall-tests" / "other.json").queries[0].avoid == \
        ["research/papers"]
    # Undoing the rename offers the way back.
    pane.ctx.undo()
    assert panel.rename_label.text() == ("2 queries name 'research/papers' "
                                         "(renamed to 'research/summarize-paper') —")
    assert not panel.rename_banner.isHidden()
    # A rename undone before updating drops the offer.
    panel.update_renamed()
    pane.ctx.apply(lambda lib: lib.rename("mcp/email", "mcp/mail"))
    assert not panel.rename_banner.isHidden()
    pane.ctx.undo()
    assert panel.rename_banner.isHidden()


def edited_row_names(pane: RecallPane) -> list[tuple[str, float]]:
    model = pane.compare_model
    return [(model.index(r, 0).data(NAME_ROLE), model.index(r, 0).data(SCORE_ROLE))
            for r in range(model.rowCount())]


def what_if(pane: RecallPane, overlay: dict[str, dict[str, object]]) -> list[tuple[str, float]]:
    skills = [s.model_copy(update=overlay[s.name]) if s.name in overlay else s
              for s in lib_of(pane).skills()]
    return [(h.name, h.score) for h in SkillRecall(skills).search(QUERY, top=RESULT_LIMIT)]


def test_the_what_if_ranking_follows_library_and_buffer_changes(window: MainWindow,
                                                                pane: RecallPane, qtbot) -> None:
    pane.set_query(QUERY, immediate=True)
    pane.set_compare("edits")
    assert window.ctx.select_skill("legacy/fax-sender")
    window.show_pane("editor")
    summary = window.skill_pane.header.summary
    summary.selectAll()
    qtbot.keyClicks(summary, "Summarize an arxiv paper")
    window.show_pane("recall")
    qtbot.waitUntil(lambda: "legacy/fax-sender" in pane.compare_model.names(), timeout=2000)
    edit = {"summary": "Summarize an arxiv paper"}
    assert edited_row_names(pane) == what_if(pane, {"legacy/fax-sender": edit})
    # More typing in the already dirty buffer (no dirtyChanged): followed once shown again.
    window.show_pane("editor")
    qtbot.keyClicks(summary, " and fax it")
    window.show_pane("recall")
    edit = {"summary": "Summarize an arxiv paper and fax it"}
    qtbot.waitUntil(lambda: edited_row_names(pane) == what_if(pane, {"legacy/fax-sender": edit}),
                    timeout=2000)
    # The library changes another skill: the what-if ranking is over the new library.
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.update("research/summarize-paper", summary="nothing"))
    assert edited_row_names(pane) == what_if(pane, {"legacy/fax-sender": edit})
    # The edited skill is renamed: its buffer follows, and so does the what-if ranking.
    with qtbot.waitSignal(pane.resultsUpdated, timeout=2000):
        pane.ctx.apply(lambda lib: lib.rename("legacy/fax-sender", "legacy/fax"))
    assert "legacy/fax" in window.ctx.dirty_names
    assert edited_row_names(pane) == what_if(pane, {"legacy/fax": edit})
    assert "legacy/fax" in pane.compare_title.text()


def test_the_query_sets_comparison_with_unsaved_edits_follows_changes(
        window: MainWindow, pane: RecallPane, qtbot) -> None:
    panel = pane.sets_panel
    assert panel.create_set("edits")
    pane.set_query(QUERY, immediate=True)
    panel.expected.setText("research/summarize-paper")
    assert panel.add_current()
    assert panel.query_set is not None
    case = panel.query_set.queries[0].model_copy(update={"avoid": ["legacy/fax-sender"]})
    assert panel._save(panel.query_set.model_copy(update={"queries": [case]}))
    assert panel.compare_edits()[0].changed is False  # no edit yet
    assert window.ctx.select_skill("legacy/fax-sender")
    window.show_pane("editor")
    summary = window.skill_pane.header.summary
    summary.selectAll()
    qtbot.keyClicks(summary, "Summarize an arxiv paper")
    window.show_pane("recall")
    diff = panel.diffs[QUERY]
    assert diff.regressed and list(diff.pulled_in) == ["legacy/fax-sender"]
    assert panel.tree.topLevelItem(0).text(5).startswith("✘")
    # Saving the buffer: the edits are now the library, the comparison says so (not "lost").
    with qtbot.waitSignal(panel.evaluated, timeout=2000):
        assert window.skill_pane.save()
    assert not panel.diffs[QUERY].regressed
    assert panel.tree.topLevelItem(0).text(5) == "same"
