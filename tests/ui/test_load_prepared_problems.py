"""Opening a library: the Problems dock's skill rows are made on the loader's worker (a 100,000-
skill library froze the UI ~0.5 s making them on load, issue 19) and equal what the pane makes
itself; a RockBot library's health table stays empty without making a row per skill."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.health.health_table import rows_of
from rockskills_gui.ui.library.problems_pane import skill_problems
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.test_fileio_and_scan import make_library

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")


def test_the_problem_rows_come_from_the_worker_and_equal_the_panes_own(qtbot, tmp_path: Path) -> None:
    agent = make_library(tmp_path, 300)
    for name, see_also in (("dangling", ("no-such-skill",)), ("selfish", ("selfish", "dangling"))):
        (agent / "skills" / f"{name}.json").write_bytes(skill_to_bytes(Skill(
            name=name, summary="s", content="c", created_at=NOW, see_also=see_also)))
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.loadFinished, timeout=30_000):
        window.open_path(agent)
    library = window.ctx.library
    assert library is not None and len(library) == 302
    prepared = window.ctx.prepared.get("skill_problems")
    pane = window.problems_pane
    assert pane.skill_rows() is not prepared and pane.skill_rows() == prepared
    assert pane.skill_rows() == skill_problems(library)
    assert [name for name, _ in pane.skill_rows()] == ["dangling", "selfish"]
    assert pane.skill_count() == 2 and pane.count() == 2  # and the two files that did not load
    assert rows_of(library) == [] and not window.health_pane.available
    pane.refresh(library)  # after a change the pane makes its rows itself: the same
    assert pane.skill_rows() == prepared
