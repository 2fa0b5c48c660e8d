"""The main window's Problems dock: shown when the open library has problems (or its first lint
finds errors or warnings, once per opening, unless the user chose), given a useful height the
first time, and its counts in its title and the status bar. A part of ``MainWindow``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.library.problems_pane import ProblemsPane
from rockskills_gui.ui.shell.window_status import WindowStatus

if TYPE_CHECKING:
    from rockskills_gui.core.library.library import Library

# The Problems dock's first height: up to 30% of the window's, leaving the tabs above at least
# CENTRAL_ROOM px (a 720 px high window keeps the old 160 px; 1400×900 gets 270, about 8 rows).
PROBLEMS_SHARE = 0.3
PROBLEMS_MIN_HEIGHT = 160
CENTRAL_ROOM = 560


class WindowProblems(QObject):
    """Follows the open library in ``host``'s Problems dock (``dock`` holding ``pane``) and
    shows the counts in ``status``. ``interactive=False`` (screenshots): the dock shows what it
    was posed with, it does not follow the first lint."""

    def __init__(self, ctx: AppContext, host: QMainWindow, dock: QDockWidget, pane: ProblemsPane,
                 status: WindowStatus, interactive: bool) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.dock = dock
        self.pane = pane
        self.status = status
        self.interactive = interactive
        self.auto = False  # the dock follows this opening's first lint (the user has not chosen)
        self.sized = False  # the dock was given its first height
        pane.lintFinished.connect(self._on_lint_finished)
        dock.toggleViewAction().triggered.connect(self._user_chose)
        ctx.changeApplied.connect(lambda _change: self.update_counts())

    def _user_chose(self, _checked: bool) -> None:
        self.auto = False

    def show_library(self, library: Library | None) -> None:
        """Shown for load problems now, or for lint warnings when the lint arrives (once per
        opening, unless the user showed or hid the dock meanwhile: :meth:`_on_lint_finished`)."""
        if library is None:
            self.dock.hide()
            return
        self.update_counts()
        self.auto = self.interactive  # (screenshots show what they were posed with)
        self.show(bool(library.problems) or bool(self.pane.skill_count()))

    def show(self, visible: bool) -> None:
        """Show or hide the dock; shown for the first time, it gets a useful height."""
        if visible and self.dock.isHidden() and not self.sized:
            self.sized = True
            height = self.host.height()
            wanted = max(PROBLEMS_MIN_HEIGHT, min(int(height * PROBLEMS_SHARE), height - CENTRAL_ROOM))
            QTimer.singleShot(0, self.host, lambda: self.host.resizeDocks([self.dock], [wanted],
                                                               Qt.Orientation.Vertical))
        self.dock.setVisible(visible)

    def _on_lint_finished(self) -> None:
        self.update_counts()
        library = self.ctx.library
        if library is None or not self.auto:
            return
        self.auto = False  # the first lint of this opening decides, once
        counts = self.pane.lint_counts()
        if (counts.get("error") or counts.get("warning")) and self.dock.isHidden():
            if not library.problems and not self.pane.skill_count():
                self.pane.show_lint_group()
            self.show(True)

    def update_counts(self) -> None:
        """The counts in the status bar and the dock's title."""
        library = self.ctx.library
        if library is None:
            return
        files = self.pane.count()
        skills = self.pane.skill_count()
        lint = self.pane.lint_counts()
        self.status.show_counts(len(library), files, skills, lint)
        total = files + skills + lint.get("error", 0) + lint.get("warning", 0)
        self.dock.setWindowTitle(f"Problems ({total})" if total else "Problems")
