"""The Budget tab: advertised text, sizes, invisible skills (marked in the tree), limits, preview."""

from __future__ import annotations

from PySide6.QtCore import Qt

from rockskills_gui.core.budget.limits import Limits, LimitsStore
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.ui.budget.budget_pane import BudgetPane
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.library.tree_model import BADGES_ROLE, Badge
from tests.conftest import SHARED, tree_hashes
from tests.skill_layouts import skill

CORPUS = SHARED / "corpora" / "anthropics-skills"


def make_pane(qtbot, library, tmp_path) -> tuple[BudgetPane, AppContext]:
    ctx = AppContext()
    pane = BudgetPane(ctx, store=LimitsStore(tmp_path / "budget.json"))
    qtbot.addWidget(pane)
    ctx.set_library(library, remember=False)
    return pane, ctx


def choose(pane: BudgetPane, agent_id: str) -> None:
    pane.agent_box.setCurrentIndex(pane.agent_box.findData(agent_id))


def test_rockbot_library_shows_the_session_index(qtbot, agent, tmp_path) -> None:
    library = RockBotLibrary.open(agent)
    pane, ctx = make_pane(qtbot, library, tmp_path)
    assert pane.agent_box.currentData() == "rockbot"
    assert pane.text_view.toPlainText() == session_index_text(library.skills())
    assert "24 of 24 skills listed" in pane.summary.text() and "459 tokens" in pane.summary.text()
    assert pane.hidden_list.topLevelItemCount() == 0 and ctx.invisible_skills == frozenset()
    assert "cl100k_base" in pane.tokenizer_label.text()


def test_a_limit_hides_skills_and_a_previewed_guide_shows_them(qtbot, agent, tmp_path) -> None:
    before = tree_hashes(agent)
    pane, ctx = make_pane(qtbot, RockBotLibrary.open(agent), tmp_path)
    with qtbot.waitSignal(ctx.invisibleSkillsChanged, timeout=2000):
        pane.limit_boxes["max_skills"].setValue(20)
        pane.refresh()
    assert pane.hidden_list.topLevelItemCount() == 4
    assert ctx.invisible_skills == {"travel/expense-report", "web", "web/dotnet-docs", "write-report"}
    assert LimitsStore(tmp_path / "budget.json").limits("rockbot") == Limits(max_skills=20)  # saved
    assert not pane.preview_button.isEnabled()
    item = pane.suggestion_list.item(0)
    assert "mcp/" in item.text()
    item.setCheckState(Qt.CheckState.Checked)
    assert pane.preview_button.isEnabled()
    qtbot.mouseClick(pane.preview_button, Qt.MouseButton.LeftButton)
    assert pane.preview is not None and pane.preview.revealed == ("travel/expense-report", "web")
    assert "- mcp/guide: " in pane.preview_view.toPlainText()
    assert "Becomes visible: travel/expense-report, web." in pane.preview_label.text()
    assert "20 of 24 skills listed" in pane.summary.text()  # the current budget is unchanged
    assert tree_hashes(agent) == before  # nothing written
    pane.mark_box.setChecked(False)
    assert ctx.invisible_skills == frozenset()
    pane.reset_limits()
    assert pane.limit_boxes["max_skills"].value() == 0 and pane.hidden_list.topLevelItemCount() == 0


def test_skill_md_corpus_with_picobot_limits(qtbot, tmp_path) -> None:
    library = open_library(CORPUS)
    pane, _ctx = make_pane(qtbot, library, tmp_path)
    assert pane.agent_box.currentData() == "agentskills"
    assert pane.text_view.toPlainText().startswith("<available_skills>")
    choose(pane, "picobot")
    assert pane.limit_boxes["max_chars"].value() == 4000 and pane.limit_boxes["max_skills"].value() == 32
    assert "assumed" in pane.what_label.text()
    assert pane.budget is not None and pane.budget.chars <= 4000
    assert pane.hidden_list.topLevelItemCount() == len(pane.budget.hidden) > 0


def test_the_tree_marks_invisible_skills(qtbot, window, tmp_path) -> None:
    assert window.workspace.budget.built is None  # built when the tab is first shown
    window.tabs.setCurrentIndex(window.tabs.indexOf(window.workspace.budget.placeholder))
    pane = window.budget_pane
    assert window.tabs.indexOf(pane) >= 0 and window.tabs.currentWidget() is pane
    pane.store = LimitsStore(tmp_path / "budget.json")
    pane.limit_boxes["max_skills"].setValue(22)
    pane.refresh()
    model = window.library_pane.model
    node = model.tree.skill_node("write-report")
    assert node is not None and Badge.INVISIBLE in model.badges(node)
    assert Badge.INVISIBLE in model.index_of(node).data(BADGES_ROLE)
    assert Badge.INVISIBLE not in model.badges(model.tree.skill_node("a2a"))
    pane.limit_boxes["max_skills"].setValue(0)
    pane.refresh()
    assert Badge.INVISIBLE not in model.badges(node)
    window.tabs.setCurrentWidget(pane)
    pane.grab().save(str(tmp_path / "budget.png"))


def test_codex_shows_its_8000_character_cap_with_shortened_and_omitted_skills(qtbot, tmp_path) -> None:
    """Issue 31: the Budget tab shows what ``rockskills budget --profile codex`` shows."""
    for i in range(120):
        name = f"a-rather-long-skill-name-for-the-list-{i:03}"
        skill(tmp_path / "lib" / "skills" / name, name, f"Skill {i} does its own thing, at length. " * 8)
    pane, ctx = make_pane(qtbot, open_library(tmp_path / "lib"), tmp_path)
    choose(pane, "codex")
    assert pane.limit_boxes["max_chars"].value() == 8000 and pane.limit_boxes["context_window"].value() == 0
    budget = pane.budget
    assert budget is not None and budget.hidden and budget.shortened
    summary = pane.summary.text()
    assert "Codex's budget: 8,000 characters of skill lines (context window unknown)." in summary
    assert f"Codex: {budget.warning}" in summary and "were not included in the model-visible" in summary
    rows = {pane.hidden_list.topLevelItem(i).text(0): pane.hidden_list.topLevelItem(i).text(1)
            for i in range(pane.hidden_list.topLevelItemCount())}
    assert rows == {**{h.name: h.reason for h in budget.hidden},
                    **{s.name: f"shortened: {s.reason}" for s in budget.shortened}}
    assert pane.hidden_title.text() == f"Invisible to this agent ({len(budget.hidden)}, " \
                                       f"{len(budget.shortened)} shortened)"
    assert ctx.invisible_skills == {h.name for h in budget.hidden}  # the tree marks the omitted only
    assert pane.text_view.toPlainText() == budget.text
    pane.limit_boxes["context_window"].setValue(1_000_000)  # 2% of it: 20,000 tokens, room for all
    pane.refresh()
    assert "Codex's budget: 20,000 tokens of skill lines (2% of the context window)." in pane.summary.text()
    assert pane.budget is not None and pane.budget.hidden == () and ctx.invisible_skills == frozenset()
