"""The main window: toolbar, Library dock, workspace tabs, Problems dock, status bar.

The window wires commands (from :mod:`rockskills_gui.ui.common.actions`) to the context and places the
panes; it owns no library state itself (that is :class:`~rockskills_gui.ui.common.context.AppContext`).

It is made of parts, each an object that owns its state and is handed what it works with
(qutebrowser's ``mainwindow`` composes its status bar, completion and prompts alike):

- :class:`~rockskills_gui.ui.shell.window_status.WindowStatus` (``status``): the title, the
  status bar, the error box;
- :class:`~rockskills_gui.ui.shell.window_problems.WindowProblems` (``problems``): the Problems
  dock following the library, and the counts;
- :class:`~rockskills_gui.ui.shell.window_loading.WindowLoading` (``loading``): opening libraries;
- :class:`~rockskills_gui.ui.shell.window_deferred.WindowDeferred` (``deferred``): the Skill tab's
  editor, the health table, the accessible names, built after the first paint; the file watcher;
- :class:`~rockskills_gui.ui.shell.window_tabs.WindowTabs` (``workspace``): the Recall, Usage
  and Budget tabs, built when first shown;
- :class:`~rockskills_gui.ui.shell.window_menus.WindowMenus` (``edit_menus``): the Edit menu's
  clipboard and history commands, Open Recent, Reopen As;
- :class:`~rockskills_gui.ui.shell.window_preferences.WindowPreferences` (``preferences``): the
  theme and the Preferences, Shortcuts and log-folder commands.

This module builds the docks and the toolbar, composes the parts, and keeps what is the window's
own: showing a pane, the dream wizard, the layout memory, closing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from rockskills_gui import __version__
from rockskills_gui.core.library.library import Library
from rockskills_gui.ui.archive.archive_purger import ArchivePurger
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.journal_watcher import JournalWatcher
from rockskills_gui.ui.common.library_watcher import folders_to_watch
from rockskills_gui.ui.common.operation_status import OperationStatus
from rockskills_gui.ui.common.usage_archiver import UsageArchiver
from rockskills_gui.ui.common.workers import LibraryLoader
from rockskills_gui.ui.editor.editor_face import listed_names
from rockskills_gui.ui.library.problems_pane import ProblemsPane, skill_problems
from rockskills_gui.ui.library.tree_pane import TreePane, prepare_tree
from rockskills_gui.ui.shell.no_library_page import NoLibraryPage
from rockskills_gui.ui.shell.recall_warmup import LargeLibraryFeed, RecallWarmup, prepare_large_recall
from rockskills_gui.ui.shell.window_deferred import WindowDeferred
from rockskills_gui.ui.shell.window_geometry import restore_geometry
from rockskills_gui.ui.shell.window_loading import FREEZE_FROM, WindowLoading
from rockskills_gui.ui.shell.window_menus import (
    WindowMenus,
    _can_edit,
    _escape_mnemonic,
    _text_widget,
)
from rockskills_gui.ui.shell.window_preferences import WindowPreferences
from rockskills_gui.ui.shell.window_prefs import SplitterMemory
from rockskills_gui.ui.shell.window_problems import WindowProblems
from rockskills_gui.ui.shell.window_status import WindowStatus, _plural
from rockskills_gui.ui.shell.window_tabs import WindowTabs

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from PySide6.QtWidgets import QMessageBox

    from rockskills_gui.ui.archive.archive_view import ArchiveView
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.common.buffers import Buffer
    from rockskills_gui.ui.dream.wizard import DreamWizard
    from rockskills_gui.ui.editor.editor_pane import EditorPane
    from rockskills_gui.ui.health.health_table import HealthPane
    from rockskills_gui.ui.machine.machine_pane import MachinePane
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.shell.preferences import PreferencesDialog
    from rockskills_gui.ui.usage.usage_pane import UsagePane

PANES = ("tree", "editor", "recall", "heatmap", "dream", "machine")
# Python threads hand the GIL over every 5 ms by default. The UI thread calls into Python a few
# hundred times per layout or paint, each call waiting for a worker (reading a library, a usage
# log) to hand it over: 5 ms each added up to stalls of a second. 0.5 ms keeps them short.
SWITCH_INTERVAL_S = 0.0005


__all__ = [  # names that lived here before the window was split
    "FREEZE_FROM", "PANES", "SWITCH_INTERVAL_S", "MainWindow", "NoLibraryPage",
    "_can_edit", "_escape_mnemonic", "_plural", "_text_widget",
]


class MainWindow(QMainWindow):
    """The workbench window for one :class:`AppContext`.

    ``interactive=False`` (screenshots) shows no dialogs on errors, does not restore or save the
    window layout and does not add libraries to the recent list.

    Signals:
        loadFinished(str): a load ended; "" on success, else the one-line reason.
    """

    loadFinished = Signal(str)

    def __init__(self, ctx: AppContext, interactive: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.ctx = ctx
        self.interactive = interactive
        self.loader = LibraryLoader(self)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self.dream_wizard: DreamWizard | None = None
        self.archive_view: ArchiveView | None = None  # Tools ▸ Skill Archive…, made when first shown
        self._close_confirmed = False  # the unsaved-edits prompt was answered
        self.splitter_memory: SplitterMemory | None = None  # interactive windows only
        self.setWindowTitle("No library")

        self.commands = ActionRegistry(self)
        self._build_panes()
        self._build_chrome()
        self._wire()
        self._on_library_changed(None)
        if interactive:
            self._restore_layout()

    # ---------------------------------------------------------------- construction

    def _build_panes(self) -> None:
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workspaceTabs")
        self.tabs.setDocumentMode(True)
        self.central = QStackedWidget(self)
        self.central.setObjectName("centralStack")
        self.central.addWidget(self.tabs)
        self.setCentralWidget(self.central)

        self.library_dock = QDockWidget("Library", self)
        self.library_dock.setObjectName("libraryDock")
        self.library_pane = TreePane(self.ctx, self.library_dock)
        self.library_pane.openRequested.connect(lambda _name: self.show_pane("editor"))
        self.library_dock.setWidget(self.library_pane)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library_dock)

        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problemsDock")
        self.problems_pane = ProblemsPane(self.ctx, self.problems_dock)
        self.problems_pane.openSkillRequested.connect(self.show_skill)
        self.problems_dock.setWidget(self.problems_pane)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems_dock)
        self.health_dock = QDockWidget("Skill health", self)
        self.health_dock.setObjectName("healthDock")
        # (its table, health_pane, is built after the first paint: window_deferred)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.health_dock)
        self.tabifyDockWidget(self.problems_dock, self.health_dock)
        self.health_dock.hide()
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.resizeDocks([self.library_dock], [300], Qt.Orientation.Horizontal)
        self.resizeDocks([self.problems_dock], [160], Qt.Orientation.Vertical)

        # The Skill tab (first) holds a placeholder until its editor is built after the first
        # paint; the Recall, Usage and Budget tabs until first shown (their panes are asked for).
        self.deferred = WindowDeferred(self.ctx, self, self.commands, self.tabs, self.library_pane,
                                       self.health_dock, self.interactive, self.show_skill,
                                       self._pane_installed)
        self.usage_archiver = UsageArchiver(self.ctx, self)  # on open and reload, off this thread
        self.workspace = WindowTabs(
            self.ctx, self.tabs, lambda: [b.edited_skill() for b in self.unsaved_edits()],
            lambda: self.show_pane("editor"), self._pane_installed, self.usage_archiver.archive,
            self, lambda path, fmt: self.loading.open_path(path, fmt))
        self.tabs.currentChanged.connect(self.workspace.build_shown)
        # The Recall tab's index is built after the tree's first paint (recall_warmup, issue 19).
        self.recall_warmup = RecallWarmup(self.ctx, self.library_pane.view.painted,
                                          lambda: self.workspace.recall.built is not None, self)
        self.empty_page = NoLibraryPage(self.commands["file.open"], self.commands["file.demo"],
                                        self)
        self.empty_demo = self.empty_page.demo_button
        self.central.addWidget(self.empty_page)

    def _build_chrome(self) -> None:
        self.commands.adopt("view.library", self.library_dock.toggleViewAction())
        self.commands.adopt("view.problems", self.problems_dock.toggleViewAction())
        self.commands.adopt("view.health", self.health_dock.toggleViewAction())
        self.menus = self.commands.fill_menus(self.menuBar())

        toolbar = QToolBar("Main", self)
        toolbar.setObjectName("mainToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setMovable(False)
        self.commands.fill_toolbar(toolbar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

        self.status = WindowStatus(self.ctx, self, self.interactive)
        self.problems = WindowProblems(self.ctx, self, self.problems_dock, self.problems_pane,
                                       self.status, self.interactive)
        self.loading = WindowLoading(self.ctx, self, self.loader, self.commands, self.status,
                                     self.interactive, self.deferred.resolve_unsaved,
                                     self.show_skill)
        self.edit_menus = WindowMenus(self.ctx, self, self.commands, self.loader,
                                      self.loading.open_path, self.loading.reopen_as,
                                      self.status.show_error)
        self.empty_page.recent_button.setMenu(self.edit_menus.recent_menu)
        self.menus["edit"].aboutToShow.connect(self.edit_menus.update_clipboard_actions)
        # The application's own signals reach the parts through the window: it is the receiver
        # Qt disconnects first as the window goes (a part would still hear of the focus moving
        # while the window's widgets are deleted, after its commands were).
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
        QGuiApplication.clipboard().dataChanged.connect(self.update_clipboard_actions)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme_changed)
        self.preferences = WindowPreferences(self.ctx, self, self.commands,
                                             self.deferred.name_controls_of, self.status.message)

    def _wire(self) -> None:
        a = self.commands
        a.on("file.open", self.loading.choose_library)
        a.on("file.demo", self.loading.open_demo)
        a.on("file.new_skill", self.new_skill)
        a.on("file.quit", self.close)
        a.on("edit.undo", self.ctx.request_undo)  # off the UI thread when the step is big
        a.on("edit.redo", self.ctx.request_redo)
        a.on("edit.palette", self.show_command_palette)
        a.on("view.skill", lambda: self.show_pane("editor"))
        a.on("view.recall", lambda: self.show_pane("recall"))
        a.on("view.usage", lambda: self.show_pane("heatmap"))
        a.on("tools.dream", lambda: self.show_pane("dream"))
        a.on("tools.archive", self.show_archive)
        a.on("help.about", self.show_about)
        a.on("help.shortcuts", self.preferences.show_shortcuts)
        a.on("help.logs", self.preferences.show_log_folder)
        a.on("app.preferences", self.preferences.show_preferences)
        a.on("view.focus_tree", lambda: self.show_pane("tree"))
        self.library_pane.bind_actions(a)
        self.deferred.wire(self.menus.values())

        self.ctx.libraryChanged.connect(self._on_library_changed)
        self.journal_watcher = JournalWatcher(self.ctx, self)  # `rockskills undo` meanwhile
        self.archive_purger = ArchivePurger(self.ctx, self)  # Preferences: purge after N days
        self.ctx.operationFailed.connect(
            lambda message: self.show_error("The library was not changed", message))
        self.loading.loadFinished.connect(self.loadFinished)
        self.loadFinished.connect(self.deferred.finish_after_paint)

        self.loader.add_preparer("tree", prepare_tree)
        self.loader.add_preparer("skill_problems", skill_problems)
        self.loader.add_preparer("recall", prepare_large_recall, feed=LargeLibraryFeed)
        self.loader.add_preparer("listed_names", listed_names)  # the editor's see-also names
        self.loader.add_preparer("watch_folders", lambda library: folders_to_watch(library.skill_roots()))

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        self.edit_menus.on_focus_changed(new)

    def _on_system_scheme_changed(self) -> None:
        self.preferences.on_system_scheme_changed()

    def _pane_installed(self, pane: QWidget) -> None:
        """A pane built late took its tab: its controls are named and its splitters remembered
        like the window's own."""
        self.deferred.name_controls_of(pane)
        if self.splitter_memory is not None:
            self.splitter_memory.watch(pane)

    def _on_library_changed(self, library: Library | None) -> None:
        """What the window shows of the open library, part by part."""
        self.central.setCurrentWidget(self.tabs if library is not None else self.empty_page)
        self.status.show_library(library)
        self.problems.show_library(library)
        self.loading.enable_commands()
        self.commands["tools.dream"].setEnabled(library is not None)  # nothing to dream over
        self.edit_menus.fill_reopen_menu()
        self.edit_menus.update_history_actions()

    # ---------------------------------------------------------------- commands

    def show_pane(self, name: str) -> None:
        """Bring a pane forward: tree, editor, recall, heatmap, dream or machine."""
        if name == "tree":
            self.library_dock.show()
            self.library_dock.raise_()
            self.library_pane.view.setFocus()
        elif name in ("editor", "recall", "heatmap", "machine"):
            # Asked for by name, a pane shows even with no library (it says so itself).
            self.central.setCurrentWidget(self.tabs)
            panes: dict[str, Callable[[], QWidget]] = {
                "editor": lambda: self.skill_pane, "recall": lambda: self.recall_pane,
                "heatmap": lambda: self.usage_pane, "machine": lambda: self.machine_pane}
            pane = panes[name]()
            self.tabs.setCurrentWidget(pane)
        elif name == "dream":
            if self.dream_wizard is None:
                from rockskills_gui.ui.dream.wizard import DreamWizard  # openai, scipy: on demand

                self.dream_wizard = DreamWizard(self.ctx, self)
                self.dream_wizard.finished.connect(self._forget_dream_wizard)
                if not self.interactive:
                    self.dream_wizard.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
            self.dream_wizard.show()
            self.dream_wizard.raise_()
        else:
            raise ValueError(f"unknown pane {name!r} (expected one of {', '.join(PANES)})")

    def show_archive(self) -> None:
        """Tools ▸ Skill Archive…: the open library's archived skills (``ui.archive``)."""
        if self.archive_view is None:
            from rockskills_gui.ui.archive.archive_view import ArchiveView

            self.archive_view = ArchiveView(self.ctx, self)
            if not self.interactive:
                self.archive_view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        self.archive_view.refresh()
        self.archive_view.show()
        self.archive_view.raise_()

    def show_skill(self, name: str) -> bool:
        """Make ``name`` current, reveal it in the tree and show the Skill tab (False: no such
        skill)."""
        if not self.ctx.select_skill(name):
            return False
        self.library_pane.reveal(name)
        self.show_pane("editor")
        return True

    def _forget_dream_wizard(self) -> None:
        """The wizard was closed: it is deleted (the next Dream command makes a new one)."""
        if self.dream_wizard is not None:
            self.dream_wizard.deleteLater()
            self.dream_wizard = None

    def new_skill(self, name: str | None = None) -> None:
        """Create an empty skill (asks for its name when not given)."""
        if self.ctx.library is None:
            return
        if name is None:  # the tree pane asks, validating the name as it is typed
            self.library_pane.new_skill()
            return
        change = self.ctx.apply(lambda lib: lib.create(name))
        if change is not None and not change.empty:
            self.ctx.select_skill(name)
            self.show_pane("editor")

    def show_command_palette(self) -> None:
        from rockskills_gui.ui.shell.palette import CommandPalette

        self.deferred.skill.pane()  # the editor's commands show their real states
        palette = CommandPalette(self.commands, self)
        palette.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        palette.open()

    def show_about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self, "About rockskills-gui",
            f"<p><b>rockskills-gui {__version__}</b></p>"
            "<p>A workbench for curating an AI agent's skill library in RockBot's format: "
            "browse and edit skills, test recall, see usage, review a dream run.</p>")

    # ---------------------------------------------------------------- the parts, as before

    def show_error(self, title: str, message: str) -> None:
        """A transient status message and, when interactive, a non-blocking message box."""
        self.status.show_error(title, message)

    @property
    def error_box(self) -> QMessageBox | None:
        return self.status.error_box

    @property
    def progress(self) -> QProgressBar:
        return self.status.progress

    @property
    def cancel_button(self) -> QToolButton:
        return self.status.cancel_button

    @property
    def path_label(self) -> QLabel:
        return self.status.path_label

    @property
    def skills_label(self) -> QLabel:
        return self.status.skills_label

    @property
    def problems_label(self) -> QLabel:
        return self.status.problems_label

    @property
    def operation_status(self) -> OperationStatus:
        return self.status.operation_status

    def open_path(self, path: Path | str, format: str | None = None) -> None:
        """Open a skill library folder off the UI thread, as its detected format or ``format``."""
        self.loading.open_path(path, format)

    def open_demo(self) -> None:
        self.loading.open_demo()

    def reopen_as(self, format: str) -> None:
        self.loading.reopen_as(format)

    def choose_library(self) -> None:
        self.loading.choose_library()

    def show_when_loaded(self, wait_ms: int) -> None:
        self.loading.show_when_loaded(wait_ms)

    @property
    def recent_menu(self) -> QMenu:
        return self.edit_menus.recent_menu

    @property
    def reopen_menu(self) -> QMenu:
        return self.edit_menus.reopen_menu

    def update_clipboard_actions(self) -> None:
        self.edit_menus.update_clipboard_actions()

    @property
    def skill_pane(self) -> EditorPane:
        """The Skill tab's editor, built (in its tab) the first time it is asked for."""
        return self.deferred.skill.pane()

    @property
    def health_pane(self) -> HealthPane:
        return self.deferred.health_pane

    @property
    def recall_pane(self) -> RecallPane:
        return self.workspace.recall.pane()

    @property
    def usage_pane(self) -> UsagePane:
        return self.workspace.usage.pane()

    @property
    def budget_pane(self) -> BudgetPane:
        return self.workspace.budget.pane()

    @property
    def machine_pane(self) -> MachinePane:
        return self.workspace.machine.pane()

    @property
    def recall_busy(self) -> bool:
        return self.workspace.recall_busy

    def unsaved_edits(self) -> list[Buffer]:
        return self.deferred.unsaved_edits()

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        self.deferred.resolve_unsaved(then, doing)

    def finish_startup(self) -> None:
        """Build every part left now (tests, screenshots)."""
        self.deferred.finish_startup()

    @property
    def startup_finished(self) -> bool:
        return self.deferred.startup_finished

    @property
    def preferences_dialog(self) -> PreferencesDialog | None:
        return self.preferences.preferences_dialog

    def show_preferences(self) -> None:
        self.preferences.show_preferences()

    def apply_theme_mode(self, mode: str, override: bool = False, applied: bool = False) -> str:
        return self.preferences.apply_theme_mode(mode, override, applied)

    # ---------------------------------------------------------------- layout memory

    def _restore_layout(self) -> None:
        settings = self.ctx.settings
        state = settings.value("window/state")
        restore_geometry(self, settings.value("window/geometry"))  # only what fits a screen now
        self.splitter_memory = SplitterMemory(self, settings)
        if isinstance(state, QByteArray):
            # After restoring, the Problems dock still follows the library (hidden when empty).
            self.problems.sized = self.restoreState(state)  # (its remembered height stays)
            QTimer.singleShot(0, self, lambda: self._on_library_changed(self.ctx.library))

    def save_layout(self) -> None:
        settings = self.ctx.settings
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        if self.splitter_memory is not None:
            self.splitter_memory.save()
        settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._close_confirmed and self.unsaved_edits():
            event.ignore()  # ask first (Save all / Discard / Cancel), then close again
            self.resolve_unsaved(self._close_after_prompt)
            return
        if self.interactive:
            self.save_layout()
        self.loader.cancel()
        self.ctx.runner.cancel_current()  # stops what has not started writing (nothing written)
        self.ctx.runner.wait()  # a write under way finishes
        self.recall_warmup.wait()
        super().closeEvent(event)

    def _close_after_prompt(self) -> None:
        self._close_confirmed = True
        if not self.close():
            self._close_confirmed = False
