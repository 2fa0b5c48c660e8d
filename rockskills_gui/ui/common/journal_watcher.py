"""Notices ``rockskills undo`` (or another window) taking back a dream plan this window applied.

While the open library's undo history holds a step linked to a journaled apply, the journal
folder (``.rockskills/journal``) is watched; when it changes, the history follows the journal
(``core.library.outside_undos``): Edit ▸ Undo stops offering the plan, Edit ▸ Redo offers to
apply it again, the files are re-read and the status bar says what happened. Never while an
operation of this window runs (its own journal writes are not news): then it looks right after.
"""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from rockskills_gui.core.storage.journal_paths import journal_root, root_link
from rockskills_gui.ui.common.context import AppContext

DEBOUNCE_MS = 300


class JournalWatcher(QObject):
    """Follows the journal of ``ctx``'s library for outside undos (see the module)."""

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.check)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(lambda _path: self._debounce.start())
        ctx.historyChanged.connect(self._update)
        ctx.runner.busyChanged.connect(lambda busy: None if busy else self._debounce.start())

    def _linked(self) -> bool:
        library = self.ctx.library
        return library is not None and any(
            e.journal is not None for e in library.history.undo_stack)

    def _update(self) -> None:
        """Watch the journal folder while a journaled step can be undone, else nothing."""
        library = self.ctx.library
        wanted: list[str] = []
        if library is not None and self._linked() and root_link(library.agent_dir) is None:
            root = journal_root(library.agent_dir)
            if root.is_dir():
                wanted = [str(root)]
        watched = self._watcher.directories()
        if watched != wanted:
            if watched:
                self._watcher.removePaths(watched)
            if wanted:
                self._watcher.addPaths(wanted)

    def check(self) -> None:
        """Bring the history in line with the journal now (see the module)."""
        library = self.ctx.library
        if library is None or self.ctx.runner.busy or not self._linked():
            return
        from rockskills_gui.core.library.outside_undos import follow_outside_undos

        try:
            moved = follow_outside_undos(library)
        except OSError:
            return
        if not moved:
            return
        self.ctx.refresh_from_disk([f.path for step in moved for f in step.files])
        self.ctx.historyChanged.emit()
        last = library.history.redo_stack[-1] if library.history.redo_stack else None
        what = ", ".join(f"'{step.label}'" for step in moved)
        then = "Edit ▸ Redo applies it again" if last is not None and last is moved[-1] \
            else "it is no longer in Edit ▸ Undo"
        self.ctx.status(f"{what} was undone outside this window (rockskills undo); {then}", 20000)
