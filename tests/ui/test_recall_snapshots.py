"""Recall ▸ Query sets: skills to avoid, named snapshots and the per-query comparison, driven as a
user would on the demo library and on a real SKILL.md collection."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.app.demo import demo_source_dir
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.recall.recall_pane import RecallPane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import SHARED
from tests.ui.conftest import open_window

CORPUS = SHARED / "corpora" / "anthropics-skills"


@pytest.fixture(params=["demo", "skillmd"])
def library(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    dest = tmp_path / request.param
    shutil.copytree(demo_source_dir() if request.param == "demo" else CORPUS, dest)
    return dest


def self_recalled(skills: list[Skill]) -> tuple[str, str]:
    """A skill that its own name, read as a message, recalls first -- and that message."""
    recall = SkillRecall(skills)
    for skill in skills:
        query = skill.name.replace("/", " ").replace("-", " ")
        hits = recall.search(query)
        if hits and hits[0].name == skill.name:
            return skill.name, query
    raise AssertionError("no skill is recalled first by its own name")


def recall_pane(window: MainWindow) -> RecallPane:
    window.show_pane("recall")
    pane = window.recall_pane
    assert pane.recall is not None
    return pane


def test_snapshot_then_compare_shows_what_a_change_did_per_query(qtbot, library: Path,
                                                                 tmp_path: Path) -> None:
    window = open_window(qtbot, library)
    pane = recall_pane(window)
    panel = pane.sets_panel
    pane.side.setCurrentWidget(panel)
    lib = window.ctx.library
    assert lib is not None
    assert not panel.snapshot_button.isEnabled()  # no set yet
    assert panel.create_set("guard")
    target, query = self_recalled(lib.skills())
    pane.query.setText(query)
    panel.expected.setText(target)
    assert panel.add_current()
    qtbot.waitUntil(lambda: panel.report is not None and not panel.busy, timeout=5000)
    assert panel.report is not None and not panel.report.failing

    name = panel.save_snapshot("before")
    assert name == "before" and panel.snapshot_box.currentText() == "before"
    assert panel.compare_button.isEnabled()
    diffs = panel.compare_snapshot()
    assert [d.changed for d in diffs] == [False]
    assert panel.tree.topLevelItem(0).text(5) == "same"

    window.ctx.apply(lambda library: library.delete(target))  # the skill goes away
    qtbot.waitUntil(lambda: panel.report is not None and not panel.busy, timeout=5000)
    diffs = panel.compare_snapshot("before")
    assert diffs[0].regressed and diffs[0].lost == [target]
    assert panel.tree.topLevelItem(0).text(5) == f"✘ lost {target}"
    panel.grab().save(str(tmp_path / f"snapshots-{library.name}.png"))


def test_a_query_that_must_avoid_a_skill_fails_when_it_recalls_it(qtbot, library: Path) -> None:
    window = open_window(qtbot, library)
    pane = recall_pane(window)
    panel = pane.sets_panel
    lib = window.ctx.library
    assert lib is not None
    assert panel.create_set("near-miss")
    from rockskills_gui.core.recall.queryset import QueryCase

    recall = SkillRecall(lib.skills())
    query = lib.names()[0].replace("/", " ").replace("-", " ")
    top = recall.search(query)[0].name
    assert panel.query_set is not None
    assert panel._save(panel.query_set.model_copy(update={"queries": [QueryCase(query=query, avoid=[top])]}))
    qtbot.waitUntil(lambda: panel.report is not None and not panel.busy, timeout=5000)
    assert panel.report is not None and panel.report.failing
    row = panel.tree.topLevelItem(0)
    assert row.text(0) == "✘" and f"recalls {top} (to avoid)" in row.text(4)
    assert row.text(2) == f"not {top}"


def test_unsaved_edits_are_replayed_over_the_set_before_saving(qtbot, library: Path) -> None:
    window = open_window(qtbot, library)
    pane = recall_pane(window)
    panel = pane.sets_panel
    assert panel.edits_provider is pane.edits_provider  # the editor's unsaved buffers
    lib = window.ctx.library
    assert lib is not None and panel.create_set("edits")
    target, query = self_recalled(lib.skills())
    pane.query.setText(query)
    panel.expected.setText(target)
    assert panel.add_current()
    qtbot.waitUntil(lambda: panel.report is not None and not panel.busy, timeout=5000)
    skill = lib.get(target)
    assert skill is not None
    renamed = skill.model_copy(update={"summary": "zzz unrelated words"})
    before = {str(p): p.read_bytes() for p in library.rglob("*") if p.is_file()}
    panel.edits_provider = lambda: [renamed]
    diffs = panel.compare_edits()
    assert len(diffs) == 1
    # the name still carries the query's words: whether it stays in the top 5 is recall's call
    still = target in [h.name for h in SkillRecall([renamed if s.name == target else s
                                                    for s in lib.skills()]).search(query)]
    assert diffs[0].regressed == (not still)
    assert panel.tree.headerItem().text(5) == "vs unsaved edits"
    assert {str(p): p.read_bytes() for p in library.rglob("*") if p.is_file()} == before  # nothing saved
