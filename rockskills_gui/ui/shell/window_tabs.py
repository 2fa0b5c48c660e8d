"""The Recall, Usage and Budget tabs of the main window, each built in place of its placeholder
the first time it is shown or asked for. A mixin of ``MainWindow``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from rockskills_gui.ui.shell.window_state import WindowState

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.usage.usage_pane import UsagePane


class WindowTabs(WindowState):
    """The panes of ``MainWindow`` built on first use."""

    @property
    def recall_pane(self) -> RecallPane:
        """The Recall tab's pane, built (in its tab) the first time it is shown or asked for; it
        takes the index prepared for the library, if there is one yet, else builds it."""
        if self._recall_pane is None:
            from rockskills_gui.ui.recall.recall_pane import RecallPane

            pane = RecallPane(self.ctx, self.tabs)
            pane.openSkillRequested.connect(lambda _name: self.show_pane("editor"))
            pane.set_edits_provider(
                lambda: [b.edited_skill() for b in self.unsaved_edits()])
            self._recall_pane = pane
            self._install_pane(self._recall_placeholder, pane, "Recall")
        return self._recall_pane

    @property
    def recall_busy(self) -> bool:
        """The Recall tab is building an index or model (False while it is not built)."""
        return self._recall_pane is not None and self._recall_pane.busy

    @property
    def usage_pane(self) -> UsagePane:
        """The Usage tab's pane, built (in its tab) the first time it is shown or asked for."""
        if self._usage_pane is None:
            from rockskills_gui.ui.usage.usage_pane import UsagePane

            pane = UsagePane(self.ctx, self.tabs)
            pane.openSkillRequested.connect(lambda _name: self.show_pane("editor"))
            pane.reloadRequested.connect(self.usage_archiver.archive)
            self._usage_pane = pane
            self._install_pane(self._usage_placeholder, pane, "Usage")
        return self._usage_pane

    def _install_pane(self, placeholder: QWidget, pane: QWidget, label: str) -> None:
        """A pane built late takes its placeholder's tab; its controls are named and its
        splitters remembered like the window's own."""
        self._swap_tab(placeholder, pane, label)
        placeholder.deleteLater()
        self._name_controls_of(pane)
        if self.splitter_memory is not None:
            self.splitter_memory.watch(pane)

    def _swap_tab(self, placeholder: QWidget, pane: QWidget, label: str) -> None:
        """Put ``pane`` in ``placeholder``'s tab, keeping which tab is current."""
        index = self.tabs.indexOf(placeholder)
        current = self.tabs.currentIndex()
        blocked = self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, pane, label)
            self.tabs.setCurrentIndex(current)
        finally:
            self.tabs.blockSignals(blocked)
        placeholder.hide()

    @property
    def budget_pane(self) -> BudgetPane:
        """The Budget tab's pane (each agent's advertised skill list), built when first shown."""
        if self._budget_pane is None:
            from rockskills_gui.ui.budget.budget_pane import BudgetPane

            pane = BudgetPane(self.ctx, self.tabs)
            self._budget_pane = pane
            self._install_pane(self._budget_placeholder, pane, "Budget")
        return self._budget_pane

    def _build_shown_tab(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if self._recall_pane is None and widget is self._recall_placeholder:
            _ = self.recall_pane
        elif self._usage_pane is None and widget is self._usage_placeholder:
            _ = self.usage_pane
        elif self._budget_pane is None and widget is self._budget_placeholder:
            _ = self.budget_pane
