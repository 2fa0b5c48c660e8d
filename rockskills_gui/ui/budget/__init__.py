"""The Budget tab: what each agent really sees of the library (see ``budget_pane``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTabWidget

    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.common.context import AppContext


class HasTabs(Protocol):
    """What :func:`install` needs of the main window."""

    ctx: AppContext
    tabs: QTabWidget


def install(window: HasTabs) -> BudgetPane:
    """Add the Budget tab to ``window``'s workspace tabs and return the pane."""
    from rockskills_gui.ui.budget.budget_pane import BudgetPane

    pane = BudgetPane(window.ctx, window.tabs)
    window.tabs.addTab(pane, "Budget")
    return pane
