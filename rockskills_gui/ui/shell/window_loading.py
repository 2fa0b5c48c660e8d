"""Opening a library in the main window (a folder, as a format, the demo) off the UI thread: the
loader's requests and what arrives, the window shown as its library arrives, and the question
about writes through symbolic links. A part of ``MainWindow``."""

from __future__ import annotations

import gc
import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QMainWindow

from rockskills_gui.core.app.link_targets import LinkTargets
from rockskills_gui.core.library.formats import OPEN_FORMAT_LABELS, format_label
from rockskills_gui.core.library.library import Library
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.workers import LibraryLoader, Opener, demo_opener, path_opener
from rockskills_gui.ui.shell.window_status import WindowStatus, _plural

FREEZE_FROM = 10_000  # skills from which a loaded library is moved out of the collector's way
LOAD_COMMANDS = ("file.open", "file.demo", "file.new_skill")  # off while a library loads


class WindowLoading(QObject):
    """Opens libraries for ``host`` through ``loader`` and installs them in ``ctx``.

    ``resolve_unsaved(then, doing)`` runs ``then`` once no edits would be lost (the editor asks),
    ``show_skill(name)`` opens a skill in the window (True if it exists), ``status`` says what
    happens. ``interactive=False`` (screenshots): no dialogs, nothing added to the recent list.

    Signals:
        loadFinished(str): a load ended; "" on success, else the one-line reason.
    """

    loadFinished = Signal(str)

    def __init__(self, ctx: AppContext, host: QMainWindow, loader: LibraryLoader,
                 commands: ActionRegistry, status: WindowStatus, interactive: bool,
                 resolve_unsaved: Callable[[Callable[[], None], str], None],
                 show_skill: Callable[[str], bool]) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.loader = loader
        self.commands = commands
        self.status = status
        self.interactive = interactive
        self._resolve_unsaved = resolve_unsaved
        self._show_skill = show_skill
        self.opening: Path | None = None  # the folder the current load opens, as given
        self.opening_format: str | None = None  # the format the user chose for it, if any
        self.opened: dict[int, Path] = {}  # the open library's folder as given (Reopen As)
        self.opened_format: dict[int, str | None] = {}  # and the format it was opened as
        self.links_declined: set[Path] = set()  # libraries whose link prompt was declined
        self._show_pending = False  # shown when its library arrives (show_when_loaded)
        loader.started.connect(status.load_started)
        loader.progress.connect(status.load_progress)
        loader.busyChanged.connect(self._on_busy_changed)
        loader.loaded.connect(self._on_loaded)
        loader.failed.connect(self._on_load_failed)
        loader.cancelled.connect(self._on_load_cancelled)
        status.cancel_button.clicked.connect(loader.cancel)

    # ---------------------------------------------------------------- opening

    def open_path(self, path: Path | str, format: str | None = None) -> None:
        """Open a skill library folder off the UI thread, as its detected format or ``format``."""
        path = Path(path).expanduser()
        if format is None:  # the format the user last chose for this folder, if any
            format = self.ctx.recent.format_of(path) if self.interactive else None
        format = format if format in OPEN_FORMAT_LABELS else None
        as_what = f" as {OPEN_FORMAT_LABELS[format]}" if format is not None else ""
        self.opening = path
        self.opening_format = format
        self._load(path_opener(path, format, lambda: self.ctx.prefs,
                               lambda: LinkTargets().confirmed(path)), f"Opening {path}{as_what}…")

    def reopen_as(self, format: str) -> None:
        """Open the current library's folder again, as ``format`` (overrides detection)."""
        library = self.ctx.library
        if library is not None:
            self.open_path(self.opened.get(id(library), library.agent_dir), format)

    def open_demo(self) -> None:
        """Install the demo library on first use and open it, off the UI thread."""
        self.opening = None
        self.opening_format = None
        self._load(demo_opener(), "Opening the demo library…")

    def _load(self, opener: Opener, description: str) -> None:
        if self.ctx.busy:  # the open library is being written: never read it half-way
            self.status.show_error("Not now", "an operation on the library is still running; "
                                   "open the library again when it has finished")
            return
        self._resolve_unsaved(lambda: self.loader.load(opener, description),
                              "opening another library")

    def choose_library(self) -> None:
        start = str(self.ctx.library.agent_dir.parent) if self.ctx.library else str(Path.home())
        from PySide6.QtWidgets import QFileDialog

        chosen = QFileDialog.getExistingDirectory(
            self.host, "Open a skill library folder (RockBot, SKILL.md skills or CortexPrism)",
            start)
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
        self.host.show()
        return True

    # ---------------------------------------------------------------- what arrives

    def _on_loaded(self, library: Library) -> None:
        first_frame = self._show_now()
        big = len(library) >= FREEZE_FROM
        if big:
            # A big library's objects live as long as it is open: keep the cyclic collector from
            # walking them on every full pass (pauses of 0.3-0.5 s at 100,000 skills; bench_tree),
            # from now on, while the panes install it (no gc.collect() here: it would walk them).
            gc.freeze()
        previous = self.ctx.library
        self.opened = {id(library): self.opening} if self.opening is not None else {}
        self.opened_format = {id(library): self.opening_format}
        self.ctx.set_library(library, remember=self.interactive, prepared=self.loader.prepared,
                             chosen_format=self.opening_format)
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
        opened_file = self.opening if self.opening is not None and self.opening.is_file() else None
        if opened_file is not None:  # a skill's own file: its library is open, the skill shown
            name = library.name_of_file(opened_file)
            if name is not None and self._show_skill(name):
                message += f" — showing '{name}', the skill in {opened_file.name}"
            else:
                message += f" — {opened_file.name} did not load as a skill: see Problems"
                note = note or "file"
        self.status.message(message, 15000 if note else 8000)
        self._ask_about_links(library)
        self.loadFinished.emit("")

    def _ask_about_links(self, library: Library) -> None:
        """Once per library: ``skills/`` (or a skill's folder) is a symbolic link to a folder
        outside the library. Ask whether writes may go there (remembered, core.app.link_targets);
        until then they are refused, and a change interrupted there is not finished."""
        found = library.unconfirmed_links()
        key = library.agent_dir
        if not found or not self.interactive or key in self.links_declined:
            return
        from PySide6.QtWidgets import QMessageBox

        shown = "".join(f"<li>{html.escape(library.layout.display_path(link))} → "
                        f"{html.escape(str(target))}</li>" for link, target in found.items())
        box = QMessageBox(QMessageBox.Icon.Question, "Write through symbolic links?",
                          f"<p>This library reaches skills through symbolic links to folders "
                          f"outside it:</p><ul>{shown}</ul><p>Saving, renaming or deleting those "
                          "skills changes files there (other agents may share them). Allow this "
                          "app to write there? Your answer is remembered for this library.</p>",
                          QMessageBox.StandardButton.NoButton, self.host)
        box.setObjectName("linkTargetsBox")
        allow = box.addButton("Allow", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Not Now", QMessageBox.ButtonRole.RejectRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        opened = self.opened.get(id(library)) or library.agent_dir

        def answered() -> None:
            if box.clickedButton() is not allow:
                self.links_declined.add(key)
                self.status.message(
                    "Writes through the symbolic links are refused until you allow them "
                    "(open the library again to be asked again)", 15000)
                return
            LinkTargets().confirm([opened, key], found.values())
            self.open_path(opened, self.opened_format.get(id(library)))

        box.finished.connect(answered)
        box.open()

    def _on_load_cancelled(self) -> None:
        self._show_now()
        self.status.message("Opening cancelled", 5000)

    def _on_load_failed(self, message: str) -> None:
        self._show_now()
        self.status.show_error("Could not open the library", message)
        self.loadFinished.emit(message)

    def _on_busy_changed(self, busy: bool) -> None:
        self.status.show_loading(busy)
        self.enable_commands()

    def enable_commands(self) -> None:
        """Open, the demo and New Skill are off while a library loads (New Skill without one)."""
        busy = self.loader.busy
        for action_id in LOAD_COMMANDS:
            self.commands[action_id].setEnabled(not busy and (
                action_id != "file.new_skill" or self.ctx.library is not None))
