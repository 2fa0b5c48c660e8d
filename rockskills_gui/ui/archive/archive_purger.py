"""Purges the open library's skill archive when it opens, as Preferences ▸ Dream runs ▸ "Purge
archived skills after (days)" asks (default: never). The purge is the core's ``purge_archive``
run through the context: one journaled change, one step of Edit ▸ Undo."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.context import AppContext

STATUS_MS = 8000
OPEN_DELAY_MS = 1000  # after a library opens: its tree and editor come first


class ArchivePurger(QObject):
    """Runs the purge the preferences ask for, a moment after each library opens."""

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(OPEN_DELAY_MS)
        self.timer.timeout.connect(self.purge)
        ctx.libraryChanged.connect(lambda library: self.timer.start() if library is not None else None)

    def purge(self) -> ChangeSet | None:
        """Purge now what the setting says is too old (nothing when it says never)."""
        days = self.ctx.prefs.archive_purge_days
        if days <= 0 or self.ctx.library is None:
            return None
        from rockskills_gui.core.library.archive import purge_archive

        change = self.ctx.apply(lambda lib: purge_archive(lib, days))
        if change is not None and not change.empty:
            self.ctx.status(f"{change.label} (Edit ▸ Undo brings them back)", STATUS_MS)
        return change
