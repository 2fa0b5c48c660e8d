"""The state the main window's parts share: its widgets, its context and what a load is
opening. ``WindowState`` is the base of ``MainWindow``'s mixins."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QWidget,
)

from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_status import OperationStatus
from rockskills_gui.ui.common.workers import LibraryLoader
from rockskills_gui.ui.library.problems_pane import ProblemsPane
from rockskills_gui.ui.library.tree_pane import TreePane
from rockskills_gui.ui.shell.no_library_page import NoLibraryPage
from rockskills_gui.ui.shell.recall_warmup import RecallWarmup
from rockskills_gui.ui.shell.window_prefs import SplitterMemory

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from collections.abc import Callable

    from PySide6.QtWidgets import QMessageBox

    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.common.buffers import Buffer
    from rockskills_gui.ui.common.usage_archiver import UsageArchiver
    from rockskills_gui.ui.dream.wizard import DreamWizard
    from rockskills_gui.ui.editor.editor_pane import EditorPane
    from rockskills_gui.ui.health.health_table import HealthPane
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.shell.preferences import PreferencesDialog
    from rockskills_gui.ui.usage.usage_pane import UsagePane

if TYPE_CHECKING:  # the window is a QMainWindow; at run time this is a plain mixin
    _WindowBase = QMainWindow
else:
    _WindowBase = object


class WindowState(_WindowBase):
    """Declares the state that the parts of ``MainWindow`` share."""

    loadFinished: SignalInstance
    ctx: AppContext
    interactive: bool
    loader: LibraryLoader
    error_box: QMessageBox | None
    dream_wizard: DreamWizard | None
    _close_confirmed: bool
    _load_text: str
    _opening: Path | None
    _opening_format: str | None
    _opened: dict[int, Path]
    _opened_format: dict[int, str | None]
    _links_declined: set[Path]
    _show_pending: bool
    splitter_memory: SplitterMemory | None
    commands: ActionRegistry
    tabs: QTabWidget
    _skill_pane: EditorPane | None
    _recall_pane: RecallPane | None
    _recall_placeholder: QWidget
    _usage_pane: UsagePane | None
    _usage_placeholder: QWidget
    usage_archiver: UsageArchiver
    _budget_pane: BudgetPane | None
    _budget_placeholder: QWidget
    empty_page: NoLibraryPage
    central: QStackedWidget
    library_dock: QDockWidget
    library_pane: TreePane
    recall_warmup: RecallWarmup
    problems_dock: QDockWidget
    problems_pane: ProblemsPane
    _problems_auto: bool  # the dock follows this opening's first lint (the user has not chosen)
    _problems_sized: bool  # the dock was given its first height
    health_dock: QDockWidget
    menus: dict[str, QMenu]
    recent_menu: QMenu
    reopen_menu: QMenu
    progress: QProgressBar
    cancel_button: QToolButton
    path_label: QLabel
    skills_label: QLabel
    problems_label: QLabel
    _separators: list[QWidget]
    operation_status: OperationStatus
    preferences_dialog: PreferencesDialog | None
    theme_override: str | None

    if TYPE_CHECKING:  # behaviour from the other parts (MainWindow and its mixins)
        @property
        def skill_pane(self) -> EditorPane: ...  # (window_deferred: built after the first paint)
        @property
        def health_pane(self) -> HealthPane: ...  # (window_deferred: built when first shown)
        def unsaved_edits(self) -> list[Buffer]: ...
        def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None: ...
        def _name_controls_of(self, root: QWidget) -> None: ...
        def show_pane(self, name: str) -> None: ...
        def show_error(self, title: str, message: str) -> None: ...
        def open_path(self, path: Path | str, format: str | None = None) -> None: ...
        def reopen_as(self, format: str) -> None: ...
        def _fill_reopen_menu(self) -> None: ...
        def _update_history_actions(self) -> None: ...
