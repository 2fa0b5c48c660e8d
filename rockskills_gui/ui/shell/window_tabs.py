"""The main window's workspace tabs built on first use: :class:`LazyTab` (a placeholder until
its pane is needed) and :class:`WindowTabs`, the Recall, Usage, Budget and Machine tabs (their
code and what they read load when the tab is first shown or its pane asked for). A part of
``MainWindow``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QTabWidget, QWidget

from rockskills_gui.ui.common.context import AppContext

if TYPE_CHECKING:  # built when first used (the usage analysis: numpy, scipy)
    from rockskills_gui.core.model.skill import Skill
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.machine.machine_pane import MachinePane
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.usage.usage_pane import UsagePane

P = TypeVar("P", bound=QWidget)


class LazyTab(Generic[P]):
    """One workspace tab: ``placeholder`` until :meth:`pane` is first asked for, then the pane
    ``build()`` makes, in the same tab (the current tab stays current). ``installed(pane)`` is
    told of each pane put in (its controls get names, its splitters are remembered)."""

    def __init__(self, tabs: QTabWidget, label: str, placeholder: QWidget, build: Callable[[], P],
                 installed: Callable[[QWidget], None]) -> None:
        self.tabs = tabs
        self.label = label
        self.placeholder = placeholder
        self._build = build
        self._installed = installed
        self.built: P | None = None  # the pane, once built
        tabs.addTab(placeholder, label)

    def pane(self) -> P:
        """The pane, built (in its tab) the first time it is asked for."""
        if self.built is None:
            pane = self._build()
            self.built = pane
            self._swap_in(pane)
            self.placeholder.deleteLater()
            self._installed(pane)
        return self.built

    def showing_placeholder(self, widget: QWidget | None) -> bool:
        return self.built is None and widget is self.placeholder

    def _swap_in(self, pane: QWidget) -> None:
        """Put ``pane`` in the placeholder's tab, keeping which tab is current."""
        tabs = self.tabs
        index = tabs.indexOf(self.placeholder)
        current = tabs.currentIndex()
        blocked = tabs.blockSignals(True)
        try:
            tabs.removeTab(index)
            tabs.insertTab(index, pane, self.label)
            tabs.setCurrentIndex(current)
        finally:
            tabs.blockSignals(blocked)
        self.placeholder.hide()


def _placeholder(tabs: QTabWidget, name: str) -> QWidget:
    widget = QWidget(tabs)
    widget.setObjectName(name)
    return widget


class WindowTabs(QObject):
    """The Recall, Usage and Budget tabs of ``MainWindow``, each a :class:`LazyTab` built the
    first time it is shown or its pane asked for.

    ``edits()`` gives the editor's unsaved edits (the Recall tab's what-if), ``show_editor()``
    brings the Skill tab forward (a pane opened a skill), ``installed(pane)`` as for LazyTab,
    ``archive_usage()`` archives the usage log (the Usage tab read it again), ``open_library(path,
    format)`` opens a folder the Machine tab chose as the window's library.
    """

    def __init__(self, ctx: AppContext, tabs: QTabWidget, edits: Callable[[], list[Skill]],
                 show_editor: Callable[[], None], installed: Callable[[QWidget], None],
                 archive_usage: Callable[[], None], parent: QObject | None = None,
                 open_library: Callable[[str, str | None], None] | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.tabs = tabs
        self._edits = edits
        self._show_editor = show_editor
        self._archive_usage = archive_usage
        self._open_library = open_library
        # The Recall tab's index is built after the tree's first paint (recall_warmup, issue 19);
        # the Usage tab reads the usage logs and loads the analysis (numpy, scipy) when shown.
        self.recall: LazyTab[RecallPane] = LazyTab(
            tabs, "Recall", _placeholder(tabs, "recallPlaceholder"), self._build_recall, installed)
        self.usage: LazyTab[UsagePane] = LazyTab(
            tabs, "Usage", _placeholder(tabs, "usagePlaceholder"), self._build_usage, installed)
        self.budget: LazyTab[BudgetPane] = LazyTab(
            tabs, "Budget", _placeholder(tabs, "budgetPlaceholder"), self._build_budget, installed)
        # Every agent's skill folders on this machine (issue 33): scanned when first shown.
        self.machine: LazyTab[MachinePane] = LazyTab(
            tabs, "Machine", _placeholder(tabs, "machinePlaceholder"), self._build_machine, installed)

    def build_shown(self, index: int) -> None:
        """A tab became current: its pane is built if it is still a placeholder."""
        widget = self.tabs.widget(index)
        for tab in (self.recall, self.usage, self.budget, self.machine):
            if tab.showing_placeholder(widget):
                tab.pane()

    @property
    def recall_busy(self) -> bool:
        """The Recall tab is building an index or model (False while it is not built)."""
        return self.recall.built is not None and self.recall.built.busy

    def _build_recall(self) -> RecallPane:
        """The Recall tab's pane: it takes the index prepared for the library, if there is one
        yet, else builds it."""
        from rockskills_gui.ui.recall.recall_pane import RecallPane

        pane = RecallPane(self.ctx, self.tabs)
        pane.openSkillRequested.connect(lambda _name: self._show_editor())
        pane.set_edits_provider(self._edits)
        return pane

    def _build_usage(self) -> UsagePane:
        from rockskills_gui.ui.usage.usage_pane import UsagePane

        pane = UsagePane(self.ctx, self.tabs)
        pane.openSkillRequested.connect(lambda _name: self._show_editor())
        pane.reloadRequested.connect(self._archive_usage)
        return pane

    def _build_budget(self) -> BudgetPane:
        """The Budget tab's pane (each agent's advertised skill list)."""
        from rockskills_gui.ui.budget.budget_pane import BudgetPane

        return BudgetPane(self.ctx, self.tabs)

    def _build_machine(self) -> MachinePane:
        """The Machine tab's pane; a folder it opens becomes the window's library."""
        from rockskills_gui.ui.machine.machine_pane import MachinePane

        pane = MachinePane(self.ctx, self.tabs)
        opener = self._open_library
        if opener is not None:
            pane.openLibraryRequested.connect(lambda path, fmt: opener(path, fmt or None))
        return pane
