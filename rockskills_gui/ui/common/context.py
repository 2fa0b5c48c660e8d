"""The application context handed to every pane: the open library, its signals, the settings.

There is one context per main window and no global: panes receive it in their constructor,
read ``ctx.library`` and listen to the signals. Every change to the library goes through
:meth:`AppContext.apply` (a core operation returning a change set), :meth:`undo` or :meth:`redo`,
so panes refresh from ``changeApplied`` and never write files themselves.

Each of them runs through the one :class:`~rockskills_gui.ui.common.operation_runner.
OperationRunner`: :meth:`apply`, :meth:`undo` and :meth:`redo` on the UI thread with the result at
once (refused while a long operation runs); :meth:`run`, :meth:`request_undo` and
:meth:`request_redo` off the UI thread when the work is long, with progress, cancel before the
write starts, and an :class:`OperationTicket` whose result arrives after the same signals.

Reads go the other way, through :meth:`AppContext.query` (:mod:`~rockskills_gui.ui.common.queries`):
a read-only job off the UI thread, newest request wins per key, its result on the UI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QSettings, Signal

from rockskills_gui.core.app.recent import RecentLibraries
from rockskills_gui.core.app.secrets import KeyStore
from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.appdirs import config_dir, demo_library_dir, home_dir
from rockskills_gui.core.storage.changes import ChangeSet, DiskChanges
from rockskills_gui.ui.common.operation_runner import (
    LONG_CHANGE,
    OperationResult,
    OperationRunner,
    OperationTicket,
)
from rockskills_gui.ui.common.queries import QueryChannel, QueryControl, channel

if TYPE_CHECKING:
    from rockskills_gui.core.app.settings import Settings

Operation = Callable[[Library], ChangeSet | None]  # None: nothing to do
T = TypeVar("T")
log = logging.getLogger(__name__)


class AppContext(QObject):
    """The open library and what happens to it.

    Signals:
        libraryChanged(object): a library was opened (or ``None`` when closed).
        changeApplied(object): a :class:`ChangeSet` was written (by an operation, undo or redo).
        historyChanged(): the undo/redo stacks changed.
        currentSkillChanged(str): the skill the user is looking at ("" for none).
        statusMessage(str, int): a transient status-bar message and its timeout in ms.
        operationFailed(str): a core operation refused or failed; one readable sentence.
        recentChanged(): the recent-libraries list changed.
        dirtyChanged(str): that skill's editor buffer became dirty or clean (see ``dirty_names``).
        preferencesChanged(object): the user's settings changed; carries the changed names
            (a frozenset of :class:`~rockskills_gui.core.app.settings.Settings` field names).
        invisibleSkillsChanged(object): the skills the Budget tab's agent never sees (a frozenset
            of names; see ``invisible_skills``), for the tree to mark.
        machineChanged(object): the machine view wrote (or undid) a change in agents' folders or
            settings (a :class:`~rockskills_gui.core.machine.changes.MachineChange`).

    ``home`` is the home folder whose agents' roots and settings are read (the machine view, the
    Budget tab's switched-off skills); tests hand a generated one.

    ``preferences`` holds the typed settings (``ctx.prefs`` is the current value), ``keys`` the
    API keys (OS keyring or memory), ``settings`` the window layout (QSettings, not user-facing).
    """

    libraryChanged = Signal(object)
    changeApplied = Signal(object)
    historyChanged = Signal()
    currentSkillChanged = Signal(str)
    statusMessage = Signal(str, int)
    operationFailed = Signal(str)
    recentChanged = Signal()
    dirtyChanged = Signal(str)
    preferencesChanged = Signal(object)
    invisibleSkillsChanged = Signal(object)
    machineChanged = Signal(object)

    def __init__(self, recent: RecentLibraries | None = None,
                 settings: QSettings | None = None, parent: QObject | None = None,
                 preferences: SettingsStore | None = None, keys: KeyStore | None = None) -> None:
        super().__init__(parent)
        self.library: Library | None = None
        self.prepared: dict[str, object] = {}  # built off the UI thread for ``library``
        self.current_skill: str = ""
        # Skills (spelled as the library spells them) whose editor buffer holds unsaved edits.
        self.dirty_names: set[str] = set()
        self.invisible_skills: frozenset[str] = frozenset()  # set by the Budget tab
        self.home: Path = home_dir()
        self._disk_news = False
        self._holding = False  # a deleted skill with unsaved edits stays current (see _run)
        self.last_verb = ""  # "Undid: ", "Redid: " or "" for the change being delivered
        self.recent = recent if recent is not None else RecentLibraries()
        self.settings = settings if settings is not None else QSettings(
            str(config_dir() / "ui.ini"), QSettings.Format.IniFormat, self)
        self.preferences = preferences if preferences is not None else SettingsStore()
        self.keys = keys if keys is not None else KeyStore()
        self._unsubscribe = self.preferences.subscribe(
            lambda _settings, changed: self.preferencesChanged.emit(changed))
        self.destroyed.connect(lambda *_: self._unsubscribe())
        self.runner = OperationRunner(self._delivered, self)
        self._deferred_paths: list[Path] = []  # news from disk that arrived during a long operation
        self.runner.busyChanged.connect(self._runner_busy)

    @property
    def prefs(self) -> Settings:
        """The current user settings (immutable; change them with ``preferences.update``). The
        first call loads the schema (pydantic); the first paint reads ``preferences.startup()``."""
        return self.preferences.settings

    def api_key(self) -> str | None:
        """The API key for the configured endpoint (keyring or this run's memory), if any."""
        return self.keys.get(self.prefs.effective_base_url)

    # ---------------------------------------------------------------- reading in the background

    def query(self, owner: QObject, key: str, op: Callable[[QueryControl], T],
              success: Callable[[T], object], *,
              failure: Callable[[Exception], object] | None = None,
              progress: Callable[[object], object] | None = None, delay_ms: int = 0,
              inline: bool = False, detached: bool = False) -> QueryChannel:
        """Run the read-only ``op(control)`` off the UI thread on the app's one pool and hand its
        result to ``success`` on the UI thread; a newer request of the same ``key`` on the same
        ``owner`` makes this one stale (dropped, never delivered). An exception goes to
        ``failure``, else it is logged and shown in the status bar, once. ``inline``: the work
        is cheap (``queries.runs_inline``): done now, on this thread. Returns the key's channel
        (``busy``, ``cancel``, ``wait``). See :mod:`~rockskills_gui.ui.common.queries`."""
        found = self.channel(owner, key, detached)
        found.request(op, success, failure=failure, progress=progress, delay_ms=delay_ms,
                      inline=inline)
        return found

    def channel(self, owner: QObject, key: str, detached: bool = False) -> QueryChannel:
        """The channel of ``owner``'s ``key`` (made on first use; a pane that shows whether
        it is busy takes it once, then asks :meth:`query`). ``detached``: its jobs wait on the
        network, and quitting does not wait for them."""
        return channel(owner, key, self._query_failed, detached)

    def _query_failed(self, key: str, error: Exception) -> None:
        log.error("reading in the background (%s) failed", key, exc_info=error)
        self.status(f"Could not finish reading ({key}): {type(error).__name__}: {error}", 10000)

    # ---------------------------------------------------------------- library

    def set_library(self, library: Library | None, remember: bool = True,
                    prepared: Mapping[str, object] | None = None,
                    chosen_format: str | None = None) -> None:
        """Make ``library`` the open one; ``remember`` adds it to the recent list (not the demo),
        with ``chosen_format`` when the user chose the format (it is used again next time).

        ``prepared`` holds what was built for it off the UI thread while it loaded (by key, e.g.
        ``tree``, ``recall``); panes take it from :attr:`prepared` while ``libraryChanged`` is
        delivered instead of building it on the UI thread.
        """
        self.library = library
        self.prepared = dict(prepared or {})
        self.current_skill = ""
        if remember and library is not None and not self.is_demo(library.agent_dir):
            try:
                self.recent.add(library.agent_dir, chosen_format)
            except OSError as exc:
                self.status(f"Could not update the recent list: {exc.strerror or exc}")
            self.recentChanged.emit()
        self.libraryChanged.emit(library)
        self.historyChanged.emit()
        self.currentSkillChanged.emit("")

    @staticmethod
    def is_demo(path: Path) -> bool:
        try:
            return path.resolve().is_relative_to(demo_library_dir().resolve())
        except OSError:
            return False

    def select_skill(self, name: str) -> bool:
        """Make ``name`` the current skill (case-insensitive); False if there is no such skill.

        Ignored while news from disk is delivered: a view re-selecting a row as it rebuilds must
        not move the user away from the skill they are editing (even one whose file vanished).
        """
        if self._disk_news or self._holding:
            return self.library is not None and self.library.get(name) is not None
        lib = self.library
        skill = lib.get(name) if lib is not None and name else None
        # A skill deleted under unsaved edits stays open in the editor (marked, restorable).
        kept = next((n for n in self.dirty_names if fold(n) == fold(name)), None) \
            if skill is None and name else None
        shown = skill.name if skill is not None else kept or ""
        if shown != self.current_skill:
            self.current_skill = shown
            self.currentSkillChanged.emit(shown)
        return skill is not None or kept is not None or not name

    # ---------------------------------------------------------------- changes

    def apply(self, operation: Operation) -> ChangeSet | None:
        """Run one core operation on the open library now, on the UI thread; refusals become
        ``operationFailed`` (as does asking while a long operation runs: nothing is changed)."""
        if self.library is None:
            return None
        library = self.library
        return self._now(lambda: operation(library), "", "")

    def undo(self) -> ChangeSet | None:
        return self._now(self.library.undo, "Undid: ", "Undo") if self.library is not None else None

    def redo(self) -> ChangeSet | None:
        return self._now(self.library.redo, "Redid: ", "Redo") if self.library is not None else None

    def run(self, operation: Operation, label: str, *, long: bool = True) -> OperationTicket | None:
        """Run one core operation through the runner: off the UI thread when ``long`` (or while
        another one runs: it is queued), else at once. The ticket's ``finished`` carries the
        :class:`OperationResult` after ``changeApplied``/``operationFailed``/``historyChanged``
        were emitted exactly as :meth:`apply` emits them. None when no library is open."""
        if self.library is None:
            return None
        library = self.library
        return self.runner.submit(library, lambda: operation(library), label, "", off_thread=long)

    def request_undo(self) -> OperationTicket | None:
        """Edit ▸ Undo: off the UI thread when the step touches more than ``LONG_CHANGE`` files."""
        return self._step(undo=True)

    def request_redo(self) -> OperationTicket | None:
        return self._step(undo=False)

    def _step(self, undo: bool) -> OperationTicket | None:
        library = self.library
        if library is None:
            return None
        stack = library.history.undo_stack if undo else library.history.redo_stack
        long = bool(stack) and len(stack[-1].files) > LONG_CHANGE
        label = (f"Undo {stack[-1].label}" if undo else f"Redo {stack[-1].label}") if stack else ""
        return self.runner.submit(library, library.undo if undo else library.redo, label,
                                  "Undid: " if undo else "Redid: ", off_thread=long)

    @property
    def busy(self) -> bool:
        """A long operation is running (or queued): the library must not be changed meanwhile."""
        return self.runner.busy

    def _now(self, call: Callable[[], ChangeSet | None], verb: str, label: str) -> ChangeSet | None:
        running = self.runner.current
        if running is not None or self.runner.busy:
            what = running.label if running is not None else "another operation"
            self.operationFailed.emit(f"{what} is still running; nothing was changed. Try again "
                                      "when it has finished.")
            return None
        result = self.runner.submit(self.library, call, label, verb, off_thread=False).result
        return result.change if result is not None and result.error is None else None

    def _delivered(self, ticket: OperationTicket) -> None:
        """A result, on the UI thread: the signals every pane listens to (same for both paths)."""
        result: OperationResult | None = ticket.result
        if result is None or result.cancelled:
            self.status(f"Cancelled: {ticket.label}. Nothing was written.", 8000)
            return
        if result.error is not None:
            self.operationFailed.emit(result.error)
            return
        library = self.library
        if library is None or ticket.library is not library:  # another library was opened meanwhile
            self.status(f"{ticket.label}: done in {ticket.library.agent_dir}, which is no longer "
                        "open", 10000)
            return
        change, verb = result.change, ticket.verb
        if change is not None and not change.empty:
            self.last_verb = verb
            # Views rebuilding must not move the user away from a skill deleted under their
            # unsaved edits: the editor keeps it open, marked (as for news from disk).
            self._holding = self._follow_current(change)
            try:
                self.changeApplied.emit(change)
            finally:
                self._holding = False
            note = library.agent_note()  # what a running agent of this format does
            self.status(f"{verb}{change.label}" + (f" · {note.short}" if note else ""), 10000)
        self.historyChanged.emit()

    def _runner_busy(self, busy: bool) -> None:
        if not busy and self._deferred_paths:  # news from disk held back during the operation
            paths, self._deferred_paths = self._deferred_paths, []
            self.refresh_from_disk(paths)

    def _follow_current(self, change: ChangeSet) -> bool:
        """Keep ``current_skill`` pointing at the same skill across a rename or delete; True when
        it was deleted but stays current (its editor buffer holds unsaved edits)."""
        current = fold(self.current_skill)
        if not current:
            return False
        for old, new in change.renamed:
            if fold(old) == current:
                self.current_skill = new
                self.currentSkillChanged.emit(new)
                return False
        if any(fold(name) == current for name in change.deleted):
            if any(fold(name) == current for name in self.dirty_names):
                return True
            self.current_skill = ""
            self.currentSkillChanged.emit("")
        return False

    def refresh_from_disk(self, paths: Iterable[Path]) -> DiskChanges | None:
        """Re-read files someone else changed (see :meth:`Library.refresh`).

        Listeners hear the news as a file-less change set on ``changeApplied``; the current
        skill is kept even when its file vanished (the editor marks it, it is not dropped).
        """
        if self.library is None:
            return None
        if self.runner.busy:  # the library is being changed on the worker: re-read it after
            self._deferred_paths.extend(paths)
            return None
        try:
            changes = self.library.refresh(paths)
        except OSError as exc:
            self.operationFailed.emit(f"could not re-read the library: {exc.strerror or exc}")
            return None
        if not changes.empty:
            self._disk_news = True
            try:
                self.changeApplied.emit(changes.as_change_set())
            finally:
                self._disk_news = False
        return changes

    @property
    def delivering_disk_news(self) -> bool:
        """True while ``changeApplied`` carries news from disk (see :meth:`select_skill`)."""
        return self._disk_news

    def set_dirty(self, name: str, dirty: bool) -> None:
        """Record whether ``name``'s editor buffer holds unsaved edits (emits dirtyChanged)."""
        if dirty == (name in self.dirty_names):
            return
        if dirty:
            self.dirty_names.add(name)
        else:
            self.dirty_names.discard(name)
        self.dirtyChanged.emit(name)

    def set_invisible_skills(self, names: frozenset[str]) -> None:
        """The skills an agent's skill list leaves out (the Budget tab); the tree marks them."""
        if names != self.invisible_skills:
            self.invisible_skills = names
            self.invisibleSkillsChanged.emit(names)

    def status(self, message: str, timeout_ms: int = 5000) -> None:
        self.statusMessage.emit(message, timeout_ms)
