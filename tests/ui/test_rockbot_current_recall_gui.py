"""The Recall tab shows what a current RockBot injects (issue 30), on real widgets.

The expected texts are the core tests', written out from upstream (MarimerLLC/rockbot), not taken
from the app: the preamble from ``src/RockBot.Host/SkillRecallFraming.cs`` @ 5c27c24, the ranks
2-5 header and the tagged index header from ``src/RockBot.Host/AgentContextBuilder.cs`` @ a1d3999,
the 30-unit gate from ``src/RockBot.Host.Abstractions/ShortMessageHeuristics.cs`` @ 0874c0e. The core's own
tests check every byte (tests/core/test_rockbot_current_injection.py); here the pane must show
the same session the core computes for the library's profile, and 64e82cc's stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.model.profiles import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.core.recall.session import RecallSession
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.recall.recall_jobs import PreparedRecall
from rockskills_gui.ui.recall.recall_model import INJECT, LISTS, NAME_ROLE, NO_RECALL, STATUS_ROLE
from rockskills_gui.ui.recall.recall_pane import RecallPane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.test_rockbot_current_injection import INDEX_HEADER as TAGGED_HEADER
from tests.core.test_rockbot_current_injection import LONG, OTHERS, PREAMBLE, SHORT
from tests.rockbot_current_rules import SKILLS, make_rules_agent
from tests.ui.conftest import open_window


def open_recall(qtbot, agent: Path) -> tuple[MainWindow, RecallPane]:
    window = open_window(qtbot, agent)
    window.show_pane("recall")
    return window, recall_of(qtbot, window)


def recall_of(qtbot, window: MainWindow) -> RecallPane:
    pane = window.recall_pane
    assert isinstance(pane, RecallPane)
    qtbot.waitUntil(lambda: pane.sim is not None, timeout=10_000)
    return pane


@pytest.fixture
def current(qtbot, tmp_path: Path) -> Iterator[tuple[MainWindow, RecallPane]]:
    window, pane = open_recall(qtbot, make_rules_agent(tmp_path / "agent"))
    assert window.ctx.library is not None and window.ctx.library.profile is ROCKBOT_CURRENT
    yield window, pane
    window.loader.cancel()
    window.loader.wait()


def statuses(pane: RecallPane) -> dict[str, str]:
    model = pane.model
    return {model.index(r, 0).data(NAME_ROLE): model.index(r, 0).data(STATUS_ROLE)
            for r in range(model.rowCount())}


def tree_rows(pane: RecallPane, turn: int) -> list[tuple[str, str]]:
    """``(kind, detail)`` of every child row the session tree shows under ``turn``."""
    item = pane.session_panel._find(turn, -1)
    assert item is not None
    return [(item.child(i).text(0), item.child(i).text(1)) for i in range(item.childCount())]


def test_a_29_character_message_shows_no_recall_instead_of_a_ranking(qtbot, current) -> None:
    _window, pane = current
    pane.set_query(SHORT, immediate=True)
    assert len(SHORT) == 29
    assert pane.preview is not None and pane.preview.no_recall == "no recall: 30 characters or fewer"
    assert "no recall: 30 characters or fewer" in pane.inject_label.text()
    assert "injects <b>no skill</b>" in pane.inject_label.text()
    top5 = [name for name, status in statuses(pane).items() if status]
    assert top5 and all(statuses(pane)[n] == NO_RECALL for n in top5)  # ranked, never used
    # the session view: the index only (first turn), and why nothing else
    assert pane.session_panel.messages(0) == [pane.preview.index]
    assert pane.preview.index is not None and pane.preview.index.startswith(TAGGED_HEADER + "\n")
    assert ("No recall", "no recall: 30 characters or fewer") in tree_rows(pane, 0)
    assert "30 characters or fewer recalls nothing" in pane.session_panel.rules.text()
    pane.side.setCurrentWidget(pane.hybrid_panel)  # no query embedding either
    qtbot.waitUntil(lambda: pane.hybrid_panel.header.text() != "", timeout=5000)
    assert pane.hybrid_panel.header.text().startswith(
        "<b>no recall: 30 characters or fewer</b>: the agent neither embeds nor searches")
    pane.pin(top5[0])  # "Why not?": ranked, but the agent does not search for this message
    (card,) = pane.why_panel.card_widgets()
    assert "no recall: 30 characters or fewer: the agent does not search" in card.title.text()


def test_a_longer_message_shows_the_framed_rank1_body_the_list_and_the_aging(current) -> None:
    window, pane = current
    lib = window.ctx.library
    assert lib is not None
    core = RecallSession.of_profile(SkillRecall(lib.skills()), lib.profile).turn(LONG)
    top = [h.name for h in SkillRecall(lib.skills()).search(LONG, top=5)]
    pane.set_query(LONG, immediate=True)
    preview = pane.preview
    assert preview is not None and preview.messages == core.messages  # the core's exact texts
    assert preview.injected == (top[0],) and preview.listed == tuple(top[1:])
    # the "This turn" column: rank 1 injects, ranks 2-5 are listed
    shown = statuses(pane)
    assert shown[top[0]] == INJECT and all(shown[n] == LISTS for n in top[1:])
    assert "lists <b>4 other skills</b> by summary" in pane.inject_label.text()
    # the session view: every message's exact text, labelled
    messages = pane.session_panel.messages(0)
    assert messages == list(core.messages)
    assert messages[1].startswith(PREAMBLE + "\n\n")
    assert f"\n\nSkill: {SKILLS[top[0]]['name']}\n{SKILLS[top[0]]['content']}" in messages[1]
    assert messages[2] == OTHERS + "".join(
        f"\n- {n}: {SKILLS[n]['summary'] or '(summary pending)'}" for n in top[1:])
    rows = tree_rows(pane, 0)
    assert rows[1][0] == f"Skill: {top[0]}" and rows[1][1].endswith("framed as reference material")
    assert rows[2] == ("Other skills (by summary)", ", ".join(top[1:]))
    # the aging rule, per turn: a framed body is never unloaded (AgentLoopRunner matches 'Skill: ')
    aging = [detail for kind, detail in rows if kind == "Body aging"]
    assert aging == [f"{top[0]}: framed body, never unloaded (RockBot's aging removes only messages "
                     "that start with 'Skill: '; SkillBodyUnloadAfterIterations = 5)"]
    # sent as a turn: the listed skills are marked, so the next turn neither injects nor lists them
    pane.add_turn()
    pane.set_query(LONG, immediate=True)
    assert pane.preview is not None and pane.preview.injected == () and pane.preview.listed == ()
    assert ("Body aging", aging[0]) in tree_rows(pane, 1)


def test_the_64e82cc_profile_of_the_same_directory_shows_bare_bodies(qtbot, current) -> None:
    window, _pane = current
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.reopen_as(ROCKBOT_64E82CC.id)  # File > Reopen As: the same directory, 64e82cc's rules
    pane = recall_of(qtbot, window)
    lib = window.ctx.library
    assert lib is not None and lib.profile is ROCKBOT_64E82CC
    pane.set_query(SHORT, immediate=True)
    assert pane.preview is not None and pane.preview.no_recall is None and pane.preview.injected
    messages = pane.session_panel.messages(0)
    assert messages[0].startswith("Available skills (use get_skill to load full instructions):\n")
    assert all(m.startswith("Skill: ") for m in messages[1:len(pane.preview.injected) + 1])
    assert not any(kind in ("Body aging", "No recall") for kind, _ in tree_rows(pane, 0))
    assert "recalls nothing" not in pane.session_panel.rules.text()


def test_the_index_prepared_after_paint_is_the_current_agents_tagged_one(qtbot, tmp_path: Path) -> None:
    """The session index built on a worker after the first paint (recall_warmup) is the profile's."""
    window = open_window(qtbot, make_rules_agent(tmp_path / "agent"))
    try:
        qtbot.waitUntil(lambda: isinstance(window.ctx.prepared.get("recall"), PreparedRecall),
                        timeout=10_000)
        prepared = window.ctx.prepared["recall"]
        assert isinstance(prepared, PreparedRecall)
        window.show_pane("recall")
        pane = recall_of(qtbot, window)
        assert pane.recall is prepared.recall
        pane.set_query(SHORT, immediate=True)
        assert pane.preview is not None and pane.preview.index is not None
        assert pane.preview.index.startswith(TAGGED_HEADER + "\n")
        assert "\n- email/digest [JsonSchema, Python, Wisp*]: " in pane.preview.index
    finally:
        window.loader.cancel()
        window.loader.wait()


def test_the_budget_tab_shows_the_tagged_session_index(qtbot, tmp_path: Path) -> None:
    """The Budget tab's own agent for a current directory is RockBot (current): its text is the
    index with the header that explains the tags and each skill's tag (FormatResourceTag)."""
    from rockskills_gui.core.budget.limits import LimitsStore
    from rockskills_gui.core.library.open import open_library
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.common.context import AppContext

    library = open_library(make_rules_agent(tmp_path / "agent"))
    ctx = AppContext()
    pane = BudgetPane(ctx, store=LimitsStore(tmp_path / "budget.json"))
    qtbot.addWidget(pane)
    ctx.set_library(library, remember=False)
    assert pane.agent_box.currentData() == "rockbot-current"
    lines = pane.text_view.toPlainText().split("\n")
    assert lines[0] == TAGGED_HEADER
    assert "- email/digest [JsonSchema, Python, Wisp*]: Summarize email threads into a daily digest" in lines
    assert "- email/send [Markdown, Python]: Send email messages to the team" in lines
    assert "- notes/journal: (summary pending)" in lines
    assert "11 of 11 skills listed" in pane.summary.text()
