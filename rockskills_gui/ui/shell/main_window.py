"""The main window: toolbar, Library dock, workspace tabs, Problems dock, status bar.

The window wires commands (from :mod:`rockskills_gui.ui.common.actions`) to the context and places the
panes; it owns no library state itself (that is :class:`~rockskills_gui.ui.common.context.AppContext`).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QTextEdit,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui import __version__
from rockskills_gui.core.app.logs import log_dir
from rockskills_gui.core.library.formats import (
    OPEN_FORMAT_LABELS,
    OPEN_FORMATS,
    format_label,
    open_format_of,
)
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.accessibility import name_controls
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.library_watcher import folders_to_watch
from rockskills_gui.ui.common.operation_status import OperationStatus
from rockskills_gui.ui.common.theme import apply_theme, heading, secondary
from rockskills_gui.ui.common.workers import LibraryLoader, Opener, demo_opener, path_opener
from rockskills_gui.ui.editor.editor_pane import EditorPane, listed_names
from rockskills_gui.ui.health.health_table import HealthPane
from rockskills_gui.ui.library.problems_pane import ProblemsPane, skill_problems
from rockskills_gui.ui.library.tree_pane import TreePane, prepare_tree
from rockskills_gui.ui.shell.recall_warmup import LargeLibraryFeed, RecallWarmup, prepare_large_recall
from rockskills_gui.ui.shell.status_bar import ElidingStatusBar
from rockskills_gui.ui.shell.window_prefs import SplitterMemory, apply_editor_font

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from rockskills_gui.ui.budget.budget_pane import BudgetPane
    from rockskills_gui.ui.dream.wizard import DreamWizard
    from rockskills_gui.ui.recall.recall_pane import RecallPane
    from rockskills_gui.ui.shell.preferences import PreferencesDialog
    from rockskills_gui.ui.usage.usage_pane import UsagePane

PANES = ("tree", "editor", "recall", "heatmap", "dream")
FREEZE_FROM = 10_000  # skills from which a loaded library is moved out of the collector's way
# Python threads hand the GIL over every 5 ms by default. The UI thread calls into Python a few
# hundred times per layout or paint, each call waiting for a worker (reading a library, a usage
# log) to hand it over: 5 ms each added up to stalls of a second. 0.5 ms keeps them short.
SWITCH_INTERVAL_S = 0.0005


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _escape_mnemonic(text: str) -> str:
    return text.replace("&", "&&")


TextWidget = QLineEdit | QPlainTextEdit | QTextEdit


def _text_widget(widget: QWidget | None) -> TextWidget | None:
    """The text field Cut, Copy and Paste act on for the focused ``widget``, if any."""
    if isinstance(widget, QComboBox):
        widget = widget.lineEdit()
    elif isinstance(widget, QAbstractSpinBox):
        widget = widget.findChild(QLineEdit)
    return widget if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)) else None


def _can_edit(widget: TextWidget) -> tuple[bool, bool, bool]:
    """Whether cut, copy and paste apply to ``widget`` now."""
    if isinstance(widget, QLineEdit):
        selected = widget.hasSelectedText() and widget.echoMode() == QLineEdit.EchoMode.Normal
        writable = not widget.isReadOnly()
        pastes = bool(QGuiApplication.clipboard().text())
    else:
        selected = widget.textCursor().hasSelection()
        writable = not widget.isReadOnly()
        pastes = widget.canPaste()
    return selected and writable, selected, writable and pastes


class NoLibraryPage(QWidget):
    """What the window shows with no library open: how to open one."""

    def __init__(self, open_action: QAction, demo_action: QAction,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noLibraryPage")
        keys = open_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.title = heading(QLabel("No library open", self), scale=1.25)
        self.text = secondary(QLabel(
            f"Open a skill library folder (a RockBot agent directory, SKILL.md skills or a "
            f"CortexPrism project) with File ▸ Open Library… ({keys}), pick one from "
            f"File ▸ Open Recent, or look around in the demo library.", self))
        self.text.setObjectName("noLibraryText")
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setFixedWidth(460)
        self.open_button = QPushButton("&Open Library…", self)
        self.open_button.setObjectName("noLibraryOpen")
        self.open_button.clicked.connect(open_action.trigger)
        self.recent_button = QPushButton("Open &Recent", self)  # the window gives it its menu
        self.recent_button.setObjectName("noLibraryRecent")
        self.demo_button = QPushButton("Open &Demo Library", self)
        self.demo_button.setObjectName("noLibraryDemo")
        self.demo_button.clicked.connect(demo_action.trigger)
        for button, action in ((self.open_button, open_action), (self.demo_button, demo_action)):
            button.setToolTip(action.toolTip())
            action.enabledChanged.connect(button.setEnabled)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.open_button, self.recent_button, self.demo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        text_row = QHBoxLayout()  # (no alignment flag: a wrapped label keeps its full height)
        text_row.addStretch(1)
        text_row.addWidget(self.text)
        text_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addLayout(text_row)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addStretch(2)


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
        self.error_box: QMessageBox | None = None
        self.dream_wizard: DreamWizard | None = None
        self._close_confirmed = False  # the unsaved-edits prompt was answered
        self._load_text = ""  # what the current load says it opens
        self._opening: Path | None = None  # the folder the current load opens, as given
        self._opening_format: str | None = None  # the format the user chose for it, if any
        self._opened: dict[int, Path] = {}  # the open library's folder as given (Reopen As)
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
        name_controls(self)

    # ---------------------------------------------------------------- construction

    def _build_panes(self) -> None:
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workspaceTabs")
        self.tabs.setDocumentMode(True)
        self.skill_pane = EditorPane(self.ctx, remember=self.interactive, parent=self.tabs)
        self.tabs.addTab(self.skill_pane, "Skill")
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
        self.library_pane.resourceSelected.connect(self.skill_pane.show_resource)
        self.library_dock.setWidget(self.library_pane)
        self.recall_warmup = RecallWarmup(self.ctx, self.library_pane.view,
                                          lambda: self._recall_pane is not None, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library_dock)

        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problemsDock")
        self.problems_pane = ProblemsPane(self.ctx, self.problems_dock)
        self.problems_pane.openSkillRequested.connect(self._open_from_health)
        self.problems_dock.setWidget(self.problems_pane)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems_dock)
        self.health_dock = QDockWidget("Skill health", self)
        self.health_dock.setObjectName("healthDock")
        self.health_pane = HealthPane(self.ctx, self.health_dock)
        self.health_pane.openSkillRequested.connect(self._open_from_health)
        self.health_pane.availabilityChanged.connect(self._on_health_available)
        self.health_dock.setWidget(self.health_pane)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.health_dock)
        self.tabifyDockWidget(self.problems_dock, self.health_dock)
        self.health_dock.hide()
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.resizeDocks([self.library_dock], [300], Qt.Orientation.Horizontal)
        self.resizeDocks([self.problems_dock], [160], Qt.Orientation.Vertical)

    @property
    def recall_pane(self) -> RecallPane:
        """The Recall tab's pane, built (in its tab) the first time it is shown or asked for; it
        takes the index prepared for the library, if there is one yet, else builds it."""
        if self._recall_pane is None:
            from rockskills_gui.ui.recall.recall_pane import RecallPane

            pane = RecallPane(self.ctx, self.tabs)
            pane.openSkillRequested.connect(lambda _name: self.show_pane("editor"))
            pane.set_edits_provider(
                lambda: [b.edited_skill() for b in self.skill_pane.unsaved_buffers()])
            self._recall_pane = pane
            self._swap_tab(self._recall_placeholder, pane, "Recall")
            self._recall_placeholder.deleteLater()
            name_controls(pane)
            if self.splitter_memory is not None:
                self.splitter_memory.watch(pane)
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
            self._usage_pane = pane
            self._swap_tab(self._usage_placeholder, pane, "Usage")
            self._usage_placeholder.deleteLater()
            name_controls(pane)
            if self.splitter_memory is not None:
                self.splitter_memory.watch(pane)
        return self._usage_pane

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
            self._swap_tab(self._budget_placeholder, pane, "Budget")
            self._budget_placeholder.deleteLater()
            name_controls(pane)
        return self._budget_pane

    def _build_shown_tab(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if self._recall_pane is None and widget is self._recall_placeholder:
            _ = self.recall_pane
        elif self._usage_pane is None and widget is self._usage_placeholder:
            _ = self.usage_pane
        elif self._budget_pane is None and widget is self._budget_placeholder:
            _ = self.budget_pane

    def _build_chrome(self) -> None:
        self.commands.adopt("view.library", self.library_dock.toggleViewAction())
        self.commands.adopt("view.problems", self.problems_dock.toggleViewAction())
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
        self.path_label = QLabel(status)
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
        self._text_target: TextWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
        QGuiApplication.clipboard().dataChanged.connect(self.update_clipboard_actions)
        self.ctx.dirtyChanged.connect(self._update_modified)
        a.on("view.skill", lambda: self.show_pane("editor"))
        a.on("view.recall", lambda: self.show_pane("recall"))
        a.on("view.usage", lambda: self.show_pane("heatmap"))
        a.on("tools.dream", lambda: self.show_pane("dream"))
        a.on("help.about", self.show_about)
        a.on("help.shortcuts", self.show_shortcuts)
        a.on("help.logs", self.show_log_folder)
        a.on("app.preferences", self.show_preferences)
        a.on("view.focus_tree", lambda: self.show_pane("tree"))
        self.library_pane.bind_actions(a)
        self.skill_pane.connect_actions(a)

        self.ctx.libraryChanged.connect(self._on_library_changed)
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
        self.loader.add_preparer("listed_names", listed_names)
        self.loader.add_preparer("watch_folders", lambda library: folders_to_watch(library.skill_roots()))
        self.loader.busyChanged.connect(self._on_busy_changed)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.failed.connect(self._on_load_failed)
        self.loader.cancelled.connect(lambda: self.statusBar().showMessage("Opening cancelled",
                                                                           5000))
        self.cancel_button.clicked.connect(self.loader.cancel)

    # ---------------------------------------------------------------- opening

    def open_path(self, path: Path | str, format: str | None = None) -> None:
        """Open a skill library folder off the UI thread, as its detected format or ``format``."""
        path = Path(path).expanduser()
        if format is None:  # the format the user last chose for this folder, if any
            format = self.ctx.recent.format_of(path) if self.interactive else None
        format = format if format in OPEN_FORMAT_LABELS else None
        as_what = f" as {OPEN_FORMAT_LABELS[format]}" if format is not None else ""
        self._opening = path
        self._opening_format = format
        self._load(path_opener(path, format, self.ctx.prefs), f"Opening {path}{as_what}…")

    def reopen_as(self, format: str) -> None:
        """Open the current library's folder again, as ``format`` (overrides detection)."""
        library = self.ctx.library
        if library is not None:
            self.open_path(self._opened.get(id(library), library.agent_dir), format)

    def open_demo(self) -> None:
        """Install the demo library on first use and open it, off the UI thread."""
        self._opening = None
        self._opening_format = None
        self._load(demo_opener(), "Opening the demo library…")

    def _load(self, opener: Opener, description: str) -> None:
        if self.ctx.busy:  # the open library is being written: never read it half-way
            self.show_error("Not now", "an operation on the library is still running; open the "
                            "library again when it has finished")
            return
        self.skill_pane.resolve_unsaved(lambda: self.loader.load(opener, description),
                                        "opening another library")

    def choose_library(self) -> None:
        start = str(self.ctx.library.agent_dir.parent) if self.ctx.library else str(Path.home())
        chosen = QFileDialog.getExistingDirectory(
            self, "Open a skill library folder (RockBot, SKILL.md skills or CortexPrism)", start)
        if chosen:
            self.open_path(chosen)

    def _on_loaded(self, library: Library) -> None:
        big = len(library) >= FREEZE_FROM
        if big:
            # A big library's objects live as long as it is open: keep the cyclic collector from
            # walking them on every full pass (pauses of 0.3-0.5 s at 100,000 skills; bench_tree),
            # from now on, while the panes install it (no gc.collect() here: it would walk them).
            gc.freeze()
        previous = self.ctx.library
        self._opened = {id(library): self._opening} if self._opening is not None else {}
        self.ctx.set_library(library, remember=self.interactive, prepared=self.loader.prepared,
                             chosen_format=self._opening_format)
        self.loader.prepared = {}
        if big:
            gc.freeze()  # and what the panes built for it
        elif previous is not None:
            gc.unfreeze()  # a previous big library's objects were freed as it was dropped
        problems = len(library.problems)
        message = f"Opened {library.agent_dir} as {format_label(library)}"
        if problems:
            message += f" ({_plural(problems, 'file')} could not be loaded: see Problems)"
        note = getattr(library, "detection_note", "")
        if note:
            message += f" — {note}"
        self.statusBar().showMessage(message, 15000 if note else 8000)
        self.loadFinished.emit("")

    def _on_load_started(self, text: str) -> None:
        self._load_text = text
        self.progress.setRange(0, 0)
        self.statusBar().showMessage(text)

    def _on_load_progress(self, done: int, total: int) -> None:
        """The scan's progress: a real bar, and the count in the status bar."""
        if total <= 0:
            return
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setToolTip(f"{done:,} of {total:,} skill files read")
        step = "building the tree and the recall index" if done >= total else \
            f"{done:,} of {total:,} skill files read"
        self.statusBar().showMessage(f"{self._load_text} {step}")

    def _on_load_failed(self, message: str) -> None:
        self.show_error("Could not open the library", message)
        self.loadFinished.emit(message)

    def _on_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        for action_id in ("file.open", "file.demo", "file.new_skill"):
            self.commands[action_id].setEnabled(not busy and (
                action_id != "file.new_skill" or self.ctx.library is not None))
        self.recent_menu.setEnabled(not busy)

    # ---------------------------------------------------------------- state shown

    def _on_library_changed(self, library: Library | None) -> None:
        self.central.setCurrentWidget(self.tabs if library is not None else self.empty_page)
        if library is None:
            self.setWindowModified(False)
            self.setWindowTitle("No library")
            self.path_label.setText("No library open")
            self.path_label.setToolTip("")
            self.skills_label.clear()
            self.problems_label.clear()
            for separator in self._separators:
                separator.hide()
            self.problems_dock.hide()
        else:
            # [*]: Qt shows its unsaved-edits marker there (see _update_modified).
            self.setWindowTitle(f"{library.agent_dir.name}[*] — {format_label(library)}")
            self._update_modified()
            self.path_label.setText(str(library.agent_dir))
            self.path_label.setToolTip(f"Format: {format_label(library)} (File > Reopen As to "
                                       f"change it)\nSkills folder: {library.skills_dir}")
            self._update_counts()
            for separator in self._separators:
                separator.show()
            self.problems_dock.setVisible(bool(library.problems)
                                          or bool(self.problems_pane.skill_count()))
        self.commands["file.new_skill"].setEnabled(library is not None and not self.loader.busy)
        if hasattr(self, "reopen_menu"):
            self._fill_reopen_menu()
        self._update_history_actions()

    def _update_counts(self) -> None:
        library = self.ctx.library
        if library is None:
            return
        # Two kinds, counted apart: files that did not load (or loaded with a warning), and
        # skills with problems, which are what the Library's Flags ▸ Has problems lists.
        files = self.problems_pane.count()
        skills = self.problems_pane.skill_count()
        parts = []
        if files:
            parts.append(_plural(files, "file problem"))
        if skills:
            parts.append(f"{_plural(skills, 'skill')} with problems")
        self.skills_label.setText(_plural(len(library), "skill"))
        self.problems_label.setText(" · ".join(parts) or "0 problems")
        self.problems_label.setToolTip(
            f"Files not loaded or loaded with a warning: {files}\n"
            f"Skills with problems (Library ▸ Flags ▸ Has problems): {skills}\n"
            "See the Problems panel")
        total = files + skills
        self.problems_dock.setWindowTitle(f"Problems ({total})" if total else "Problems")

    def _on_change_applied(self, change: ChangeSet) -> None:
        del change
        self._update_counts()

    def _update_modified(self, _name: str = "") -> None:
        """The title's unsaved marker: some skill's editor holds unsaved edits."""
        self.setWindowModified(self.ctx.library is not None and bool(self.ctx.dirty_names))

    # ---------------------------------------------------------------- cut, copy, paste

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        target = _text_widget(new) if new is not None and self.isAncestorOf(new) else None
        if target is not self._text_target:
            previous = self._text_target
            if previous is not None:
                try:
                    previous.selectionChanged.disconnect(self.update_clipboard_actions)
                except (RuntimeError, TypeError):  # already deleted
                    pass
            self._text_target = target
            if target is not None:
                target.selectionChanged.connect(self.update_clipboard_actions)
        self.update_clipboard_actions()

    def update_clipboard_actions(self) -> None:
        """Enable Cut, Copy and Paste as the focused text field allows."""
        focused = QApplication.focusWidget()
        target = _text_widget(focused) if focused is not None and self.isAncestorOf(focused) \
            else None
        can = _can_edit(target) if target is not None else (False, False, False)
        for action_id, enabled in zip(("edit.cut", "edit.copy", "edit.paste"), can, strict=True):
            self.commands[action_id].setEnabled(enabled)

    def _edit_text(self, operation: str) -> None:
        focused = QApplication.focusWidget()
        target = _text_widget(focused)
        if target is not None and self.isAncestorOf(target):
            getattr(target, operation)()
        self.update_clipboard_actions()

    def _update_history_actions(self) -> None:
        library = self.ctx.library
        history = library.history if library is not None else None
        for action_id, word, label in (
            ("edit.undo", "&Undo", history.undo_label() if history else None),
            ("edit.redo", "&Redo", history.redo_label() if history else None),
        ):
            action = self.commands[action_id]
            action.setEnabled(label is not None)
            action.setText(f"{word} {_escape_mnemonic(label)}" if label else word)

    def _fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = self.ctx.recent.paths()
        for index, path in enumerate(paths, start=1):
            prefix = f"&{index} " if index < 10 else ""
            action = menu.addAction(f"{prefix}{_escape_mnemonic(str(path))}")
            action.setData(str(path))
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not paths:
            menu.addAction("No recent libraries").setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear List")
        clear.setObjectName("file.recent.clear")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(self.clear_recent)

    def _on_health_available(self, available: bool) -> None:
        """Show the health table (in front of Problems) when the library has CortexPrism data."""
        self.health_dock.setVisible(available)
        if available:
            self.health_dock.raise_()

    def _open_from_health(self, name: str) -> None:
        if self.ctx.select_skill(name):
            self.library_pane.reveal(name)
            self.show_pane("editor")

    def _fill_reopen_menu(self) -> None:
        """One checkable entry per format, RockBot's two profiles by name besides "RockBot"
        (the profile the directory's evidence says); the open library's format (for RockBot:
        its profile) is checked."""
        menu = self.reopen_menu
        menu.clear()
        library = self.ctx.library
        opened_as = open_format_of(library) if library is not None else None
        for format in OPEN_FORMATS:
            label = OPEN_FORMAT_LABELS[format]
            if format == "rockbot":
                label += " (profile detected)"
            action = menu.addAction(_escape_mnemonic(label))
            action.setObjectName(f"file.reopen_as.{format}")
            action.setCheckable(True)
            action.setChecked(opened_as == format)
            action.setEnabled(library is not None and not self.loader.busy)
            action.triggered.connect(lambda _checked=False, f=format: self.reopen_as(f))

    def clear_recent(self) -> None:
        try:
            self.ctx.recent.clear()
        except OSError as exc:
            self.show_error("Could not clear the recent list", str(exc.strerror or exc))
        self._fill_recent_menu()

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

        palette = CommandPalette(self.commands, self)
        palette.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        palette.open()

    def show_about(self) -> None:
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
        box = QMessageBox(QMessageBox.Icon.Warning, title, message,
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(self._forget_error_box)
        self.error_box = box
        box.open()

    def _forget_error_box(self) -> None:
        self.error_box = None

    # ---------------------------------------------------------------- preferences

    def _wire_preferences(self) -> None:
        """Theme actions, and the preferences that shape this window (font, preview layout)."""
        self.preferences_dialog: PreferencesDialog | None = None
        self.theme_override: str | None = None  # --theme for this run only
        group = QActionGroup(self)
        for mode in ("system", "light", "dark"):
            action = self.commands[f"view.theme_{mode}"]
            group.addAction(action)
            self.commands.on(f"view.theme_{mode}", lambda m=mode: self.choose_theme(m))
        self.ctx.preferencesChanged.connect(self._on_preferences_changed)
        self.skill_pane.modeChanged.connect(self._remember_preview_layout)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme_changed)
        self._on_preferences_changed(frozenset({"editor_font", "editor_font_size",
                                                "preview_layout"}))
        self._check_theme_action()

    def _on_preferences_changed(self, changed: frozenset[str]) -> None:
        prefs = self.ctx.prefs
        if changed & {"editor_font", "editor_font_size"}:
            apply_editor_font(self.skill_pane.editor, prefs)
        if "preview_layout" in changed and self.skill_pane.mode != prefs.preview_layout:
            self.skill_pane.set_mode(prefs.preview_layout)
        if "theme" in changed:
            self.theme_override = None
            self.apply_theme_mode(prefs.theme)

    def _remember_preview_layout(self, mode: str) -> None:
        if self.interactive and mode != self.ctx.prefs.preview_layout:
            self.ctx.preferences.update(preview_layout=mode)

    def choose_theme(self, mode: str) -> None:
        """The View menu's theme commands: save the choice (which applies it)."""
        if mode == self.ctx.prefs.theme and self.theme_override not in (None, mode):
            self.theme_override = None
            self.apply_theme_mode(mode)
        self.ctx.preferences.update(theme=mode)

    def apply_theme_mode(self, mode: str, override: bool = False) -> str:
        """Apply ``system``, ``light`` or ``dark`` to the whole application; returns light/dark."""
        if override:
            self.theme_override = mode
        app = QApplication.instance()
        kind = apply_theme(app, mode) if isinstance(app, QApplication) else "light"
        self._check_theme_action()
        return kind

    def _check_theme_action(self) -> None:
        mode = self.theme_override or self.ctx.prefs.theme
        self.commands[f"view.theme_{mode}"].setChecked(True)

    def _on_system_scheme_changed(self) -> None:
        if (self.theme_override or self.ctx.prefs.theme) == "system":
            self.apply_theme_mode("system")

    def show_preferences(self) -> None:
        if self.preferences_dialog is None:
            from rockskills_gui.ui.shell.preferences import PreferencesDialog

            dialog = PreferencesDialog(self.ctx, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(self._forget_preferences)
            name_controls(dialog)
            self.preferences_dialog = dialog
        self.preferences_dialog.load(self.ctx.prefs)
        self.preferences_dialog.open()
        self.preferences_dialog.raise_()

    def _forget_preferences(self) -> None:
        self.preferences_dialog = None

    def show_shortcuts(self) -> None:
        from rockskills_gui.ui.shell.shortcuts import ShortcutsDialog

        dialog = ShortcutsDialog(self.commands, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def show_log_folder(self) -> None:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.statusBar().showMessage(f"The log is in {folder}", 15000)

    # ---------------------------------------------------------------- layout memory

    def _restore_layout(self) -> None:
        settings = self.ctx.settings
        geometry = settings.value("window/geometry")
        state = settings.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        self.splitter_memory = SplitterMemory(self, settings)
        if isinstance(state, QByteArray):
            # After restoring, the Problems dock still follows the library (hidden when empty).
            self.restoreState(state)
            QTimer.singleShot(0, lambda: self._on_library_changed(self.ctx.library))

    def save_layout(self) -> None:
        settings = self.ctx.settings
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        if self.splitter_memory is not None:
            self.splitter_memory.save()
        settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._close_confirmed and self.skill_pane.unsaved_buffers():
            event.ignore()  # ask first (Save all / Discard / Cancel), then close again
            self.skill_pane.resolve_unsaved(self._close_after_prompt)
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
