"""Keeps the open library's usage archive up to date, off the UI thread: when a library opens and
when the Usage tab reloads its log (``core.usage.archive``: RockBot's retention pass deletes usage
logs after 30 days; the archive keeps them). The archive is the app's own file beside the journal,
not a change to the library: nothing to undo, nothing in the history."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from rockskills_gui.ui.common.context import AppContext

if TYPE_CHECKING:
    from rockskills_gui.core.usage.archive import ArchiveResult

STATUS_MS = 8000
OPEN_DELAY_MS = 1500  # after a library opens: its tree, editor and recall index come first


def _archive(agent_dir: Path) -> ArchiveResult:
    from rockskills_gui.core.usage.archive import archive_usage  # (loads on the worker)

    return archive_usage(agent_dir)


def _bundled(agent_dir: Path) -> bool:
    """``agent_dir`` is a bundled copy of the demo library (``resources/demo-library``)."""
    from rockskills_gui.resources import resource_candidates

    here = agent_dir.resolve()
    return any(here == place.resolve() for place in resource_candidates("demo-library"))


class UsageArchiver(QObject):
    """Archives the open library's new usage lines on a worker thread.

    Signals:
        archived(object): an :class:`~rockskills_gui.core.usage.archive.ArchiveResult`.
        failed(str): the archive could not be written (the reason).
    """

    archived = Signal(object)
    failed = Signal(str)

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.job = ctx.channel(self, "usage archive")  # (ctx.query: newest request wins)
        ctx.libraryChanged.connect(lambda _library: self.archive(soon=False))

    def archive(self, soon: bool = True) -> None:
        """Archive the open library's new usage lines in the background (a RockBot library only;
        never the app's bundled demo, opened in place: every demo install copies it): at once, or
        ``soon=False`` after :data:`OPEN_DELAY_MS`."""
        library = self.ctx.library
        if library is None or not library.profile.holds.usage_log or _bundled(library.agent_dir):
            return
        agent_dir = library.agent_dir
        self.ctx.query(self, "usage archive", lambda _control: _archive(agent_dir), self._on_done,
                       failure=self._on_failed, delay_ms=0 if soon else OPEN_DELAY_MS)

    @property
    def busy(self) -> bool:
        return self.job.busy

    def wait(self, msecs: int = -1) -> bool:
        """Block until no archiving runs (for shutdown and tests)."""
        return self.job.wait(msecs)

    def _on_done(self, result: object) -> None:
        from rockskills_gui.core.usage.archive import ArchiveResult

        assert isinstance(result, ArchiveResult)
        if result.problems:
            first = result.problems[0]
            self.ctx.status(f"Usage archive: {first.path}: {first.reason}", STATUS_MS)
        elif result.lines:
            self.ctx.status(f"Usage archive: kept {result.lines} new usage line(s) from "
                            f"{len(result.added)} log file(s)", STATUS_MS)
        self.archived.emit(result)

    def _on_failed(self, error: Exception) -> None:
        message = f"{type(error).__name__}: {error}"
        self.ctx.status(f"Usage archive not updated: {message}", STATUS_MS)
        self.failed.emit(message)
