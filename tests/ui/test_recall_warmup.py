"""The Recall tab builds when first shown; a small library's index is built after the tree's
first paint, off the UI thread, and is exactly the index of the library's skills (issue 19)."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.recall.recall_pane import PreparedRecall, RecallPane
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.shell.recall_warmup import FEED_FROM

QUERIES = ("plan a meeting", "email draft reply", "search the web for news", "zzz")


def ranking(recall: SkillRecall, query: str) -> list[tuple[str, float]]:
    return [(h.skill.name, h.score) for h in recall.search(query, top=None)]


def assert_same_index(recall: SkillRecall, fresh: SkillRecall) -> None:
    assert [s.name for s in recall.skills()] == [s.name for s in fresh.skills()]
    for query in QUERIES:
        assert ranking(recall, query) == ranking(fresh, query)


def prepared_after_paint(qtbot, window: MainWindow) -> PreparedRecall:
    qtbot.waitUntil(lambda: isinstance(window.ctx.prepared.get("recall"), PreparedRecall),
                    timeout=10_000)
    prepared = window.ctx.prepared["recall"]
    assert isinstance(prepared, PreparedRecall)
    return prepared


def test_the_recall_tab_is_a_placeholder_until_shown_and_takes_the_index_built_after_paint(
        qtbot, window: MainWindow) -> None:
    library = window.ctx.library
    assert library is not None and len(library) < FEED_FROM
    assert window.workspace.recall.built is None and not window.findChildren(RecallPane)
    index = window.tabs.indexOf(window.workspace.recall.placeholder)
    assert window.tabs.tabText(index) == "Recall"

    prepared = prepared_after_paint(qtbot, window)  # built on a worker after the first paint
    assert_same_index(prepared.recall, SkillRecall(library.skills()))
    assert prepared.names == library.names()

    window.tabs.setCurrentIndex(index)  # clicking the tab builds the pane, with that index
    pane = window.workspace.recall.built
    assert isinstance(pane, RecallPane) and window.tabs.currentWidget() is pane
    assert window.tabs.indexOf(pane) == index and window.tabs.count() == 5
    assert pane.recall is prepared.recall
    pane.set_query("plan a meeting", immediate=True)
    assert [h.name for h in pane.hits] == [n for n, _ in ranking(prepared.recall,
                                                                 "plan a meeting")][:len(pane.hits)]


def test_a_change_before_the_tab_is_shown_drops_the_index_and_builds_it_anew(
        qtbot, window: MainWindow) -> None:
    first = prepared_after_paint(qtbot, window)
    name = window.ctx.library.names()[0]
    window.ctx.apply(lambda lib: lib.update(name, summary="zzz quokka meeting planner"))
    assert window.ctx.prepared.get("recall") is not first  # out of date: dropped at once
    second = prepared_after_paint(qtbot, window)
    assert second is not first
    library = window.ctx.library
    assert library is not None
    assert_same_index(second.recall, SkillRecall(library.skills()))
    assert [n for n, _ in ranking(second.recall, "quokka")] == [name]
    assert window.recall_pane.recall is second.recall


def test_a_tab_shown_before_the_index_is_ready_builds_its_own(qtbot, agent: Path) -> None:
    from rockskills_gui.ui.common.context import AppContext

    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.show_pane("recall")  # before any library: the pane says so itself
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_path(agent)
    library = window.ctx.library
    assert library is not None
    qtbot.waitUntil(lambda: window.recall_pane.recall is not None, timeout=10_000)
    assert_same_index(window.recall_pane.recall, SkillRecall(library.skills()))
    assert not window.recall_warmup.busy  # the tab has its own: nothing built after the paint
    window.recall_warmup.wait()
