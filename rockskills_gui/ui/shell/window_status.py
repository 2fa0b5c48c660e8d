"""What the main window says about the open library and its work: the title, the status bar
(the load's progress and its Cancel, the library's path, its skill and problem counts, a long
operation) and the error message box. A part of ``MainWindow``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QToolButton, QWidget

from rockskills_gui.core.library.formats import format_label
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_status import OperationStatus
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.shell.status_bar import ElidingStatusBar, PathLabel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from rockskills_gui.core.library.library import Library


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class WindowStatus(QObject):
    """The title and the status bar of ``host`` (made here), and its error box.

    ``interactive=False`` (screenshots): errors are only status messages, never a box."""

    def __init__(self, ctx: AppContext, host: QMainWindow, interactive: bool) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.interactive = interactive
        self.error_box: QMessageBox | None = None
        self._load_text = ""  # what the current load says it opens
        status = ElidingStatusBar(host)  # a long message is elided, not cut into the path
        host.setStatusBar(status)
        status.setObjectName("statusBar")
        self.bar = status
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
        self.separators: list[QWidget] = [secondary(QLabel("·", status)) for _ in range(2)]
        self.operation_status = OperationStatus(ctx, status)  # a long operation, if any
        for widget in (self.operation_status, self.progress, self.cancel_button, self.path_label,
                       self.separators[0],
                       self.skills_label, self.separators[1], self.problems_label):
            status.addPermanentWidget(widget)
        self.progress.hide()
        self.cancel_button.hide()
        self.operation_status.hide()
        ctx.statusMessage.connect(status.showMessage)
        ctx.dirtyChanged.connect(self.show_modified)

    def message(self, text: str, timeout_ms: int = 0) -> None:
        self.bar.showMessage(text, timeout_ms)

    # ---------------------------------------------------------------- errors

    def show_error(self, title: str, message: str) -> None:
        """A transient status message and, when interactive, a non-blocking message box."""
        self.bar.showMessage(f"{title}: {message}", 15000)
        if not self.interactive:
            return
        if self.error_box is not None:
            self.error_box.close()
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, title, message,
                          QMessageBox.StandardButton.Ok, self.host)
        box.setObjectName("errorBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(self._forget_error_box)
        self.error_box = box
        box.open()

    def _forget_error_box(self) -> None:
        self.error_box = None

    # ---------------------------------------------------------------- a load

    def load_started(self, text: str) -> None:
        self._load_text = text
        self.progress.setRange(0, 0)
        self.bar.showMessage(text)

    def load_progress(self, done: int, total: int) -> None:
        """The scan's progress: a real bar, and the count in the status bar."""
        if total <= 0:
            return
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setToolTip(f"{done:,} of {total:,} skill files read")
        step = "building the tree and the recall index" if done >= total else \
            f"{done:,} of {total:,} skill files read"
        self.bar.showMessage(f"{self._load_text} {step}")

    def show_loading(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    # ---------------------------------------------------------------- the library

    def show_library(self, library: Library | None) -> None:
        """The title and the path for ``library`` (the counts: :meth:`show_counts`)."""
        host = self.host
        if library is None:
            host.setWindowModified(False)
            host.setWindowTitle("No library")
            self.path_label.setText("No library open")
            self.path_label.setToolTip("")
            self.skills_label.clear()
            self.problems_label.clear()
            for separator in self.separators:
                separator.hide()
            return
        # [*]: Qt shows its unsaved-edits marker there (see show_modified).
        host.setWindowTitle(f"{library.agent_dir.name}[*] — {format_label(library)}")
        self.show_modified()
        self.path_label.setText(str(library.agent_dir))
        self.path_label.setToolTip(f"Format: {format_label(library)} (File > Reopen As to "
                                   f"change it)\nSkills folder: {library.skills_dir}")
        for separator in self.separators:
            separator.show()

    def show_counts(self, skills: int, files: int, with_problems: int,
                    lint: dict[str, int]) -> None:
        """The library's skill count, and its problems of two kinds, counted apart: files that
        did not load (or loaded with a warning), and skills with problems (what the Library's
        Flags ▸ Has problems lists); lint errors and warnings beside them."""
        parts = []
        if files:
            parts.append(_plural(files, "file problem"))
        if with_problems:
            parts.append(f"{_plural(with_problems, 'skill')} with problems")
        lint_parts = [_plural(lint[s], f"lint {s}") for s in ("error", "warning") if lint.get(s)]
        self.skills_label.setText(_plural(skills, "skill"))
        self.problems_label.setText(" · ".join([" · ".join(parts) or "0 problems", *lint_parts]))
        self.problems_label.setToolTip(
            f"Files not loaded or loaded with a warning: {files}\n"
            f"Skills with problems (Library ▸ Flags ▸ Has problems): {with_problems}\n"
            f"Lint: {', '.join(lint_parts) or 'no errors or warnings'}"
            f"{' (and ' + str(lint['info']) + ' info)' if lint.get('info') else ''}\n"
            "See the Problems panel")

    def show_modified(self, _name: str = "") -> None:
        """The title's unsaved marker: some skill's editor holds unsaved edits."""
        self.host.setWindowModified(self.ctx.library is not None and bool(self.ctx.dirty_names))
