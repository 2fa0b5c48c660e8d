"""The main window: toolbar, Library dock, workspace tabs, Problems dock, status bar.

The window wires commands (from :mod:`rockskills_gui.ui.common.actions`) to the context and places the
panes; it owns no library state itself (that is :class:`~rockskills_gui.ui.common.context.AppContext`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QProgressBar,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from rockskills_gui import __version__
from rockskills_gui.ui.archive.archive_purger import ArchivePurger
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.journal_watcher import JournalWatcher
from rockskills_gui.ui.common.library_watcher import folders_to_watch
from rockskills_gui.ui.common.operation_status import OperationStatus
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.common.usage_archiver import UsageArchiver
from rockskills_gui.ui.common.workers import LibraryLoader
from rockskills_gui.ui.editor.editor_face import listed_names
from rockskills_gui.ui.library.problems_pane import ProblemsPane, skill_problems
from rockskills_gui.ui.library.tree_pane import TreePane, prepare_tree
from rockskills_gui.ui.shell.no_library_page import NoLibraryPage
from rockskills_gui.ui.shell.recall_warmup import LargeLibraryFeed, RecallWarmup, prepare_large_recall
from rockskills_gui.ui.shell.status_bar import ElidingStatusBar, PathLabel
from rockskills_gui.ui.shell.window_deferred import WindowDeferred
from rockskills_gui.ui.shell.window_geometry import restore_geometry
from rockskills_gui.ui.shell.window_loading import FREEZE_FROM, WindowLoading, _plural
from rockskills_gui.ui.shell.window_menus import (
    WindowMenus,
    _can_edit,
    _escape_mnemonic,
    _text_widget,
)
from rockskills_gui.ui.shell.window_preferences import WindowPreferences
from rockskills_gui.ui.shell.window_prefs import SplitterMemory
from rockskills_gui.ui.shell.window_tabs import WindowTabs

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from PySide6.QtWidgets import QMessageBox

    from rockskills_gui.ui.archive.archive_view import ArchiveView
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.dream.wizard import DreamWizard
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.shell.window_menus import TextWidget
    from rockskills_gui.ui.usage.usage_pane import UsagePane

PANES = ("tree", "editor", "recall", "heatmap", "dream")
# Python threads hand the GIL over every 5 ms by default. The UI thread calls into Python a few
# hundred times per layout or paint, each call waiting for a worker (reading a library, a usage
# log) to hand it over: 5 ms each added up to stalls of a second. 0.5 ms keeps them short.
SWITCH_INTERVAL_S = 0.0005


__all__ = [  # names that lived here before the window was split
    "FREEZE_FROM", "PANES", "SWITCH_INTERVAL_S", "MainWindow", "NoLibraryPage",
    "_can_edit", "_escape_mnemonic", "_plural", "_text_widget",
]


class MainWindow(WindowDeferred, WindowTabs, WindowLoading, WindowMenus, WindowPreferences,
                 QMainWindow):
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
        self.error_box: QMessageBox | None = None
        self.dream_wizard: DreamWizard | None = None
        self.archive_view: ArchiveView | None = None  # Tools ▸ Skill Archive…, made when first shown
        self._close_confirmed = False  # the unsaved-edits prompt was answered
        self._load_text = ""  # what the current load says it opens
        self._opening: Path | None = None  # the folder the current load opens, as given
        self._opening_format: str | None = None  # the format the user chose for it, if any
        self._opened: dict[int, Path] = {}  # the open library's folder as given (Reopen As)
        self._opened_format: dict[int, str | None] = {}  # and the format it was opened as
        self._links_declined: set[Path] = set()  # libraries whose link prompt was declined (session)
        self._show_pending = False  # shown when its library arrives (show_when_loaded)
        self.splitter_memory: SplitterMemory | None = None  # interactive windows only
        self.setWindowTitle("No library")

        self.commands = ActionRegistry(self)
        self._build_panes()
        self._build_chrome()
        self._wire()
        self._wire_preferences()
        self._on_library_changed(None)
        if interactive:
            self._restore_layout()

    # ---------------------------------------------------------------- construction

    def _build_panes(self) -> None:
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workspaceTabs")
        self.tabs.setDocumentMode(True)
        self._place_deferred_parts()  # the Skill tab's editor: after the first paint
        # The Recall tab, too, holds a placeholder until first shown (or ``recall_pane`` is asked
        # for); its index is built after the tree's first paint (recall_warmup, issue 19).
        self._recall_pane: RecallPane | None = None
        self._recall_placeholder = QWidget(self.tabs)
        self._recall_placeholder.setObjectName("recallPlaceholder")
        self.tabs.addTab(self._recall_placeholder, "Recall")
        # The Usage tab holds a placeholder until it is first shown (or ``usage_pane`` is asked
        # for): reading the usage logs and the analysis (numpy, scipy) wait until then.
        self._usage_pane: UsagePane | None = None
        self._usage_placeholder = QWidget(self.tabs)
        self._usage_placeholder.setObjectName("usagePlaceholder")
        self.tabs.addTab(self._usage_placeholder, "Usage")
        self._budget_pane: BudgetPane | None = None  # the same for the Budget tab
        self._budget_placeholder = QWidget(self.tabs)
        self._budget_placeholder.setObjectName("budgetPlaceholder")
        self.tabs.addTab(self._budget_placeholder, "Budget")
        self.tabs.currentChanged.connect(self._build_shown_tab)
        self.empty_page = NoLibraryPage(self.commands["file.open"], self.commands["file.demo"],
                                        self)
        self.empty_demo = self.empty_page.demo_button
        self.central = QStackedWidget(self)
        self.central.setObjectName("centralStack")
        self.central.addWidget(self.tabs)
        self.central.addWidget(self.empty_page)
        self.setCentralWidget(self.central)

        self.library_dock = QDockWidget("Library", self)
        self.library_dock.setObjectName("libraryDock")
        self.library_pane = TreePane(self.ctx, self.library_dock)
        self.library_pane.openRequested.connect(lambda _name: self.show_pane("editor"))
        self.library_dock.setWidget(self.library_pane)
        self.recall_warmup = RecallWarmup(self.ctx, self.library_pane.view.painted,
                                          lambda: self._recall_pane is not None, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library_dock)

        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problemsDock")
        self.problems_pane = ProblemsPane(self.ctx, self.problems_dock)
        self.problems_pane.openSkillRequested.connect(self._open_from_health)
        self.problems_pane.lintFinished.connect(self._on_lint_finished)
        self._problems_auto = False
        self._problems_sized = False
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


    def _build_chrome(self) -> None:
        self.commands.adopt("view.library", self.library_dock.toggleViewAction())
        self.commands.adopt("view.problems", self.problems_dock.toggleViewAction())
        self.problems_dock.toggleViewAction().triggered.connect(
            lambda _checked: setattr(self, "_problems_auto", False))  # the user chose
        self.commands.adopt("view.health", self.health_dock.toggleViewAction())
        self.menus = self.commands.fill_menus(self.menuBar())
        self.recent_menu = self.commands.submenu("file.recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self.empty_page.recent_button.setMenu(self.recent_menu)
        self._fill_recent_menu()
        self.menus["edit"].aboutToShow.connect(self.update_clipboard_actions)
        self.reopen_menu = self.commands.submenu("file.reopen_as")
        self.reopen_menu.aboutToShow.connect(self._fill_reopen_menu)
        self._fill_reopen_menu()

        toolbar = QToolBar("Main", self)
        toolbar.setObjectName("mainToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setMovable(False)
        self.commands.fill_toolbar(toolbar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

        status = ElidingStatusBar(self)  # a long message is elided, not cut into the path
        self.setStatusBar(status)
        status.setObjectName("statusBar")
        self.progress = QProgressBar(status)
        self.progress.setObjectName("loadProgress")
        self.progress.setRange(0, 0)  # busy until the scan knows how many files there are
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(False)
        self.cancel_button = QToolButton(status)
        self.cancel_button.setObjectName("cancelLoad")
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop waiting for this library")
        self.path_label = PathLabel(status)  # a long path is elided: the message keeps room
        self.path_label.setObjectName("statusPath")
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.skills_label = QLabel(status)
        self.skills_label.setObjectName("statusSkills")
        self.problems_label = QLabel(status)
        self.problems_label.setObjectName("statusProblems")
        self._separators = [secondary(QLabel("·", status)) for _ in range(2)]
        self.operation_status = OperationStatus(self.ctx, status)  # a long operation, if any
        for widget in (self.operation_status, self.progress, self.cancel_button, self.path_label,
                       self._separators[0],
                       self.skills_label, self._separators[1], self.problems_label):
            status.addPermanentWidget(widget)
        self.progress.hide()
        self.cancel_button.hide()
        self.operation_status.hide()

    def _wire(self) -> None:
        a = self.commands
        a.on("file.open", self.choose_library)
        a.on("file.demo", self.open_demo)
        a.on("file.new_skill", self.new_skill)
        a.on("file.quit", self.close)
        a.on("edit.undo", self.ctx.request_undo)  # off the UI thread when the step is big
        a.on("edit.redo", self.ctx.request_redo)
        a.on("edit.palette", self.show_command_palette)
        a.on("edit.cut", lambda: self._edit_text("cut"))
        a.on("edit.copy", lambda: self._edit_text("copy"))
        a.on("edit.paste", lambda: self._edit_text("paste"))
        self._text_target: TextWidget | None = None  # (window_menus)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
        QGuiApplication.clipboard().dataChanged.connect(self.update_clipboard_actions)
        self.ctx.dirtyChanged.connect(self._update_modified)
        a.on("view.skill", lambda: self.show_pane("editor"))
        a.on("view.recall", lambda: self.show_pane("recall"))
        a.on("view.usage", lambda: self.show_pane("heatmap"))
        a.on("tools.dream", lambda: self.show_pane("dream"))
        a.on("tools.archive", self.show_archive)
        a.on("help.about", self.show_about)
        a.on("help.shortcuts", self.show_shortcuts)
        a.on("help.logs", self.show_log_folder)
        a.on("app.preferences", self.show_preferences)
        a.on("view.focus_tree", lambda: self.show_pane("tree"))
        self.library_pane.bind_actions(a)
        self._wire_deferred_parts()

        self.ctx.libraryChanged.connect(self._on_library_changed)
        self.journal_watcher = JournalWatcher(self.ctx, self)  # `rockskills undo` meanwhile
        self.usage_archiver = UsageArchiver(self.ctx, self)  # on open and reload, off this thread
        self.archive_purger = ArchivePurger(self.ctx, self)  # Preferences: purge after N days
        self.ctx.historyChanged.connect(self._update_history_actions)
        self.ctx.changeApplied.connect(self._on_change_applied)
        self.ctx.statusMessage.connect(self.statusBar().showMessage)
        self.ctx.operationFailed.connect(
            lambda message: self.show_error("The library was not changed", message))
        self.ctx.recentChanged.connect(self._fill_recent_menu)

        self.loader.started.connect(self._on_load_started)
        self.loader.progress.connect(self._on_load_progress)
        self.loader.add_preparer("tree", prepare_tree)
        self.loader.add_preparer("skill_problems", skill_problems)
        self.loader.add_preparer("recall", prepare_large_recall, feed=LargeLibraryFeed)
        self.loader.add_preparer("listed_names", listed_names)  # the editor's see-also names
        self.loader.add_preparer("watch_folders", lambda library: folders_to_watch(library.skill_roots()))
        self.loader.busyChanged.connect(self._on_busy_changed)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.failed.connect(self._on_load_failed)
        self.loader.cancelled.connect(self._on_load_cancelled)
        self.cancel_button.clicked.connect(self.loader.cancel)

    # ---------------------------------------------------------------- commands

    def show_pane(self, name: str) -> None:
        """Bring a pane forward: tree, editor, recall, heatmap or dream."""
        if name == "tree":
            self.library_dock.show()
            self.library_dock.raise_()
            self.library_pane.view.setFocus()
        elif name in ("editor", "recall", "heatmap"):
            # Asked for by name, a pane shows even with no library (it says so itself).
            self.central.setCurrentWidget(self.tabs)
            pane = {"editor": lambda: self.skill_pane, "recall": lambda: self.recall_pane,
                    "heatmap": lambda: self.usage_pane}[name]()
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

    def _forget_dream_wizard(self) -> None:
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

        self._build_skill_pane()  # the editor's commands show their real states
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

    def show_error(self, title: str, message: str) -> None:
        """A transient status message and, when interactive, a non-blocking message box."""
        self.statusBar().showMessage(f"{title}: {message}", 15000)
        if not self.interactive:
            return
        if self.error_box is not None:
            self.error_box.close()
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, title, message,
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(self._forget_error_box)
        self.error_box = box
        box.open()

    def _forget_error_box(self) -> None:
        self.error_box = None

    # ---------------------------------------------------------------- layout memory

    def _restore_layout(self) -> None:
        settings = self.ctx.settings
        state = settings.value("window/state")
        restore_geometry(self, settings.value("window/geometry"))  # only what fits a screen now
        self.splitter_memory = SplitterMemory(self, settings)
        if isinstance(state, QByteArray):
            # After restoring, the Problems dock still follows the library (hidden when empty).
            self._problems_sized = self.restoreState(state)  # (its remembered height stays)
            QTimer.singleShot(0, lambda: self._on_library_changed(self.ctx.library))

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
