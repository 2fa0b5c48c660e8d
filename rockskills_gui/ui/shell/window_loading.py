"""Opening a library in the main window (a folder, as a format, the demo) off the UI thread, its
progress, and what the window shows of the open library: title, status bar counts, the
Problems dock. A mixin of ``MainWindow``."""

from __future__ import annotations

import gc
import html
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer

from rockskills_gui.core.app.link_targets import LinkTargets
from rockskills_gui.core.library.formats import OPEN_FORMAT_LABELS, format_label
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.workers import Opener, demo_opener, path_opener
from rockskills_gui.ui.shell.window_state import WindowState

FREEZE_FROM = 10_000  # skills from which a loaded library is moved out of the collector's way
# The Problems dock's first height: up to 30% of the window's, leaving the tabs above at least
# CENTRAL_ROOM px (a 720 px high window keeps the old 160 px; 1400×900 gets 270, about 8 rows).
PROBLEMS_SHARE = 0.3
PROBLEMS_MIN_HEIGHT = 160
CENTRAL_ROOM = 560


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class WindowLoading(WindowState):
    """Opening libraries and showing the open one in ``MainWindow``."""

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
        self._load(path_opener(path, format, lambda: self.ctx.prefs,
                               lambda: LinkTargets().confirmed(path)), f"Opening {path}{as_what}…")

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
        self.resolve_unsaved(lambda: self.loader.load(opener, description),
                             "opening another library")

    def choose_library(self) -> None:
        start = str(self.ctx.library.agent_dir.parent) if self.ctx.library else str(Path.home())
        from PySide6.QtWidgets import QFileDialog

        chosen = QFileDialog.getExistingDirectory(
            self, "Open a skill library folder (RockBot, SKILL.md skills or CortexPrism)", start)
        if chosen:
            self.open_path(chosen)

    def show_when_loaded(self, wait_ms: int) -> None:
        """Show the window as the library it is opening arrives, so that its first frame has the
        tree (not an empty one a moment before), or after ``wait_ms`` if the load takes longer (a
        large library: the window shows how far it is)."""
        self._show_pending = True
        QTimer.singleShot(wait_ms, self, self._show_now)

    def _show_now(self) -> bool:
        """Show the window if it waits for its library (before the library is installed: the
        panes then take it in at the window's real size); True if it was shown now."""
        if not self._show_pending:
            return False
        self._show_pending = False
        self.show()
        return True

    def _on_loaded(self, library: Library) -> None:
        first_frame = self._show_now()
        big = len(library) >= FREEZE_FROM
        if big:
            # A big library's objects live as long as it is open: keep the cyclic collector from
            # walking them on every full pass (pauses of 0.3-0.5 s at 100,000 skills; bench_tree),
            # from now on, while the panes install it (no gc.collect() here: it would walk them).
            gc.freeze()
        previous = self.ctx.library
        self._opened = {id(library): self._opening} if self._opening is not None else {}
        self._opened_format = {id(library): self._opening_format}
        self.ctx.set_library(library, remember=self.interactive, prepared=self.loader.prepared,
                             chosen_format=self._opening_format)
        self.loader.prepared = {}
        if first_frame:  # what the library changed (tab titles, counts) is laid out before it
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        if big:
            gc.freeze()  # and what the panes built for it
        elif previous is not None:
            gc.unfreeze()  # a previous big library's objects were freed as it was dropped
        problems = len(library.problems)
        message = f"Opened {library.agent_dir} as {format_label(library)}"
        if problems:
            message += f" ({_plural(problems, 'file')} could not be loaded: see Problems)"
        note = library.detection_note
        if note:
            message += f" — {note}"
        opened_file = self._opening if self._opening is not None and self._opening.is_file() else None
        if opened_file is not None:  # a skill's own file: its library is open, the skill shown
            name = library.name_of_file(opened_file)
            if name is not None and self.ctx.select_skill(name):
                self.library_pane.reveal(name)
                self.show_pane("editor")
                message += f" — showing '{name}', the skill in {opened_file.name}"
            else:
                message += f" — {opened_file.name} did not load as a skill: see Problems"
                note = note or "file"
        self.statusBar().showMessage(message, 15000 if note else 8000)
        self._ask_about_links(library)
        self.loadFinished.emit("")

    def _ask_about_links(self, library: Library) -> None:
        """Once per library: ``skills/`` (or a skill's folder) is a symbolic link to a folder
        outside the library. Ask whether writes may go there (remembered, core.app.link_targets);
        until then they are refused, and a change interrupted there is not finished."""
        found = library.unconfirmed_links()
        key = library.agent_dir
        if not found or not self.interactive or key in self._links_declined:
            return
        from PySide6.QtWidgets import QMessageBox

        shown = "".join(f"<li>{html.escape(library.layout.display_path(link))} → "
                        f"{html.escape(str(target))}</li>" for link, target in found.items())
        box = QMessageBox(QMessageBox.Icon.Question, "Write through symbolic links?",
                          f"<p>This library reaches skills through symbolic links to folders "
                          f"outside it:</p><ul>{shown}</ul><p>Saving, renaming or deleting those "
                          "skills changes files there (other agents may share them). Allow this "
                          "app to write there? Your answer is remembered for this library.</p>",
                          QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("linkTargetsBox")
        allow = box.addButton("Allow", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Not Now", QMessageBox.ButtonRole.RejectRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        opened = self._opened.get(id(library)) or library.agent_dir

        def answered() -> None:
            if box.clickedButton() is not allow:
                self._links_declined.add(key)
                self.statusBar().showMessage(
                    "Writes through the symbolic links are refused until you allow them "
                    "(open the library again to be asked again)", 15000)
                return
            LinkTargets().confirm([opened, key], found.values())
            self.open_path(opened, self._opened_format.get(id(library)))

        box.finished.connect(answered)
        box.open()

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

    def _on_load_cancelled(self) -> None:
        self._show_now()
        self.statusBar().showMessage("Opening cancelled", 5000)

    def _on_load_failed(self, message: str) -> None:
        self._show_now()
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
            # Shown for load problems now, or for lint warnings when the lint arrives (once per
            # opening, unless the user showed or hid the dock meanwhile: _on_lint_finished).
            self._problems_auto = self.interactive  # (screenshots show what they were posed with)
            self._show_problems(bool(library.problems) or bool(self.problems_pane.skill_count()))
        self.commands["file.new_skill"].setEnabled(library is not None and not self.loader.busy)
        self.commands["tools.dream"].setEnabled(library is not None)  # nothing to dream over
        if hasattr(self, "reopen_menu"):
            self._fill_reopen_menu()
        self._update_history_actions()

    def _show_problems(self, visible: bool) -> None:
        """Show or hide the Problems dock; shown for the first time, it gets a useful height."""
        if visible and self.problems_dock.isHidden() and not self._problems_sized:
            self._problems_sized = True
            height = self.height()
            wanted = max(PROBLEMS_MIN_HEIGHT, min(int(height * PROBLEMS_SHARE), height - CENTRAL_ROOM))
            QTimer.singleShot(0, lambda: self.resizeDocks([self.problems_dock], [wanted],
                                                          Qt.Orientation.Vertical))
        self.problems_dock.setVisible(visible)

    def _on_lint_finished(self) -> None:
        self._update_counts()
        library = self.ctx.library
        if library is None or not self._problems_auto:
            return
        self._problems_auto = False  # the first lint of this opening decides, once
        counts = self.problems_pane.lint_counts()
        if (counts.get("error") or counts.get("warning")) and self.problems_dock.isHidden():
            if not library.problems and not self.problems_pane.skill_count():
                self.problems_pane.show_lint_group()
            self._show_problems(True)

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
        lint = self.problems_pane.lint_counts()
        lint_parts = [_plural(lint[s], f"lint {s}") for s in ("error", "warning") if lint.get(s)]
        self.skills_label.setText(_plural(len(library), "skill"))
        self.problems_label.setText(" · ".join([" · ".join(parts) or "0 problems", *lint_parts]))
        self.problems_label.setToolTip(
            f"Files not loaded or loaded with a warning: {files}\n"
            f"Skills with problems (Library ▸ Flags ▸ Has problems): {skills}\n"
            f"Lint: {', '.join(lint_parts) or 'no errors or warnings'}"
            f"{' (and ' + str(lint['info']) + ' info)' if lint.get('info') else ''}\n"
            "See the Problems panel")
        total = files + skills + lint.get("error", 0) + lint.get("warning", 0)
        self.problems_dock.setWindowTitle(f"Problems ({total})" if total else "Problems")

    def _on_change_applied(self, change: ChangeSet) -> None:
        del change
        self._update_counts()

    def _update_modified(self, _name: str = "") -> None:
        """The title's unsaved marker: some skill's editor holds unsaved edits."""
        self.setWindowModified(self.ctx.library is not None and bool(self.ctx.dirty_names))
