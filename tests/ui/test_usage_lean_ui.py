"""The Usage tab's lean widgets (issue 19) against plain references: the heatmap image written in
place holds every cell's level, and the usage table over column rows answers every cell and role
as over a list of row objects, sorted by any column with the current row following its row."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from PySide6.QtCore import QItemSelectionModel, Qt

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import UsageEvent
from rockskills_gui.core.usage.report import usage_rows
from rockskills_gui.core.usage.signals import derive
from rockskills_gui.core.usage.stats import UsageWindow, analyze
from rockskills_gui.ui.usage.heatmap_view import indexed_image
from rockskills_gui.ui.usage.usage_widgets import BAR_ROLE, NAME_ROLE, UsageTableModel
from tests.property_budget import budgeted

NOW = Timestamp.parse("2026-11-01T00:00:00+00:00")
ROLES = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
         Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ForegroundRole, NAME_ROLE, BAR_ROLE)


@budgeted(10, 25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 37), st.integers(1, 37), st.integers(0, 2**32 - 1))
def test_the_image_holds_every_level(qapp, rows: int, cols: int, seed: int) -> None:  # type: ignore[no-untyped-def]
    levels = np.random.default_rng(seed).integers(0, 256, (rows, cols)).astype(np.uint8)
    image = indexed_image(levels, [0xFF000000 | i for i in range(256)])
    got = np.array([[image.pixelIndex(c, r) for c in range(cols)] for r in range(rows)])
    assert image.width() == cols and image.height() == rows
    assert np.array_equal(got, levels)


def table_models(qapp):  # type: ignore[no-untyped-def]
    """The same report in two tables: over its column rows, and over a list of their rows."""
    names = ["b", "a", "C", "d/x", "A"]
    skills = [Skill(name=name, summary="", content="", created_at=NOW.add_days(-40 * k),
                    last_used_at=NOW.add_days(-k) if k % 2 else None)
              for k, name in enumerate(names)]
    log = [UsageEvent(None, name, f"s{k % 3}", NOW.add_days(-10 + k / 10))
           for k, name in enumerate(["a", "b", "a", "gone", "C", "a", "gone", "b"])]
    stats = analyze(log, UsageWindow.all_time())
    rows, _gone = usage_rows(skills, stats, derive(skills, stats, stats, NOW))
    lean, plain = UsageTableModel(), UsageTableModel()
    lean.set_rows(rows)
    plain.set_rows(list(rows))
    return lean, plain


def cells(model: UsageTableModel) -> list[object]:
    return [model.data(model.index(r, c), role) for r in range(model.rowCount())
            for c in range(model.columnCount()) for role in ROLES]


def test_column_rows_answer_as_a_list_of_rows(qapp) -> None:  # type: ignore[no-untyped-def]
    lean, plain = table_models(qapp)
    assert lean.rowCount() == plain.rowCount() == 6
    assert cells(lean) == cells(plain)
    assert lean.row_of("GONE") == plain.row_of("GONE") == 5
    for column in range(4):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            for model in (lean, plain):
                selection = QItemSelectionModel(model)
                selection.setCurrentIndex(model.index(model.row_of("C"), 0),
                                          QItemSelectionModel.SelectionFlag.NoUpdate)
                model.sort(column, order)
                assert model.data(selection.currentIndex(), NAME_ROLE) == "C"
            assert cells(lean) == cells(plain), (column, order)
            assert list(lean.rows) == list(plain.rows)
