"""The CortexPrism health table on a real project (memory.db built from formats.md's DDL), in the
main window: columns from the rows, numeric sorting, each filter, inactive skills marked, and the
explanation shown for a RockBot library."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from rockskills_gui.core.library.skillmd.cortex import INACTIVE_LIFECYCLES, read_memory_db
from rockskills_gui.ui.health.health_table import ACTIVE_ONLY, COLUMNS, NO_DATA_TEXT, HealthPane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.cortex_project import make_cortex
from tests.ui.conftest import open_window


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    db = make_cortex(folder)
    conn = sqlite3.connect(db)  # a fourth row: the highest utility, a low trust tier
    conn.execute("INSERT INTO procedural_memory (id, name, description, steps, success_rate, "
                 "invocation_count, lifecycle, trust_tier, utility_score, freshness, created_at) "
                 "VALUES ('skill_4', 'triage_alerts', 'Triage alerts', '[]', 0.75, 120, 'verified', "
                 "1, 4.0, 0.9, '2026-11-10 10:00:00')")
    conn.commit()
    conn.close()
    return folder


@pytest.fixture
def win(qtbot, project: Path):
    window = open_window(qtbot, project)
    yield window
    window.loader.wait()


def expected_rows(project: Path) -> dict[str, dict]:
    rows, problems = read_memory_db(project / ".cortex" / "memory.db", "memory.db")
    assert not problems
    return {r.name: r.stats() for r in rows}


def cell(pane: HealthPane, row: int, column: str) -> str:
    return pane.proxy.index(row, COLUMNS.index(column)).data()


def test_health_columns_show_each_rows_values(win: MainWindow, project: Path) -> None:
    pane = win.health_pane
    assert win.health_dock.isVisible() and pane.stack.currentIndex() == 1
    stats = expected_rows(project)
    assert set(pane.shown_names()) == set(stats)
    for row, name in enumerate(pane.shown_names()):
        s = stats[name]
        assert cell(pane, row, "Lifecycle") == s["lifecycle"]
        assert cell(pane, row, "Trust tier") == s["trust"]
        assert cell(pane, row, "Success") == f"{s['success_rate']:.0%}"
        assert cell(pane, row, "Uses") == f"{s['invocation_count']:,}"
        assert cell(pane, row, "Health") == f"{s['health']:.2f}"
    # the one with a SKILL.md too is said to be in both places
    sources = {n: cell(pane, r, "Source") for r, n in enumerate(pane.shown_names())}
    assert sources["deploy_service_safely"] == "SKILL.md + memory.db"
    assert sources["summarize_logs"] == "memory.db"


def test_sorting_is_numeric(win: MainWindow, project: Path) -> None:
    pane = win.health_pane
    stats = expected_rows(project)
    for column, key in (("Health", "health"), ("Uses", "invocation_count"), ("Utility", "utility_score")):
        pane.view.sortByColumn(COLUMNS.index(column), Qt.SortOrder.DescendingOrder)
        values = [stats[n][key] for n in pane.shown_names()]
        assert values == sorted(values, reverse=True), column
    # 120 uses sorts above 10 (text order would put "10" first)
    pane.view.sortByColumn(COLUMNS.index("Uses"), Qt.SortOrder.AscendingOrder)
    assert pane.shown_names()[-1] == "triage_alerts"


def test_filters_narrow_the_table(win: MainWindow, project: Path) -> None:
    pane = win.health_pane
    stats = expected_rows(project)
    pane.lifecycle_combo.setCurrentIndex(pane.lifecycle_combo.findData(ACTIVE_ONLY))
    assert set(pane.shown_names()) == {n for n, s in stats.items()
                                       if s["lifecycle"] not in INACTIVE_LIFECYCLES}
    pane.lifecycle_combo.setCurrentIndex(pane.lifecycle_combo.findData("deprecated"))
    assert pane.shown_names() == [n for n, s in stats.items() if s["lifecycle"] == "deprecated"]
    pane.lifecycle_combo.setCurrentIndex(0)
    pane.trust_combo.setCurrentIndex(pane.trust_combo.findData(1))
    assert set(pane.shown_names()) == {n for n, s in stats.items() if s["trust_tier"] == 1}
    pane.trust_combo.setCurrentIndex(0)
    threshold = sorted(s["health"] for s in stats.values())[1] + 0.001
    pane.min_health.setValue(threshold)
    assert set(pane.shown_names()) == {n for n, s in stats.items() if s["health"] >= pane.min_health.value()}
    assert 0 < len(pane.shown_names()) < len(stats)
    pane.min_health.setValue(0)
    pane.text.setText("DEPLOY")
    assert set(pane.shown_names()) == {n for n in stats if "deploy" in n}
    assert pane.count.text().startswith(f"{len(pane.shown_names())} of {len(stats)}")


def test_inactive_skills_are_shown_but_marked(win: MainWindow, project: Path) -> None:
    pane = win.health_pane
    stats = expected_rows(project)
    for row, name in enumerate(pane.shown_names()):
        index = pane.proxy.index(row, 0)
        font = index.data(Qt.ItemDataRole.FontRole)
        inactive = stats[name]["lifecycle"] in INACTIVE_LIFECYCLES
        assert isinstance(font, QFont) == inactive, name
        if inactive:
            assert font.strikeOut() and font.italic()
            reason = stats[name].get("deprecated_reason")
            if reason:
                assert reason in index.data(Qt.ItemDataRole.ToolTipRole)
    model = win.library_pane.model
    for name, s in stats.items():
        badges = model.badges(model.node(model.index_for(name)))
        marked = {str(b) for b in badges} & INACTIVE_LIFECYCLES
        assert marked == ({s["lifecycle"]} & INACTIVE_LIFECYCLES), name


def test_activating_a_row_opens_the_skill(win: MainWindow, qtbot) -> None:
    pane = win.health_pane
    name = pane.shown_names()[0]
    with qtbot.waitSignal(pane.openSkillRequested) as blocker:
        pane.view.activated.emit(pane.proxy.index(0, 0))
    assert blocker.args == [name]
    assert win.ctx.current_skill == name


def test_a_rockbot_library_explains_instead(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    try:
        pane = window.health_pane
        assert not window.health_dock.isVisible()
        assert pane.stack.currentWidget() is pane.empty and pane.empty.text() == NO_DATA_TEXT
    finally:
        window.loader.wait()
