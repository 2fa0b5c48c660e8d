"""Long work off the UI thread: opening a library (and installing the demo first when asked).

The loader is a client of the app's one way to read in the background
(:mod:`~rockskills_gui.ui.common.queries`: its one pool, newest request wins). The scan reports
progress (files read of files found), passed on at most every ``queries.PROGRESS_EVERY_S``;
cancel stops the scan itself (the core checks between chunks of files) and the result, if any,
is dropped; only the newest load's result is delivered. After the library is read, the
*preparers* registered by the panes run on the same worker thread (the tree, the recall index:
core objects, no Qt), so that the UI thread only installs finished objects; their results arrive
with the library as :attr:`LibraryLoader.prepared`.
A preparer registered with a *feed* (the recall index) also sees the skills while they are read,
so its work overlaps the reading (which helper processes do on a big library).
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from rockskills_gui.core.library.formats import FORMATS
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.open import OpenOptions, ScanCancelled, UserSettings, open_library
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.appdirs import cache_dir, demo_library_dir
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.layout import NotALibraryError
from rockskills_gui.ui.common.queries import QueryCancelled, QueryChannel, QueryControl
from rockskills_gui.ui.common.usage_prefetch import UsagePrefetch

if TYPE_CHECKING:
    from rockskills_gui.core.app.settings import Settings

FREEZE_FROM = 10_000  # skills from which a loaded library is frozen out of the collector's way
log = logging.getLogger(__name__)


@dataclass
class LoadControl:
    """Handed to an opener: report ``progress(done, total)``; stop when ``cancelled()``; hand
    each chunk of skills read to ``skills_read``; what it starts beside the library (the usage
    prefetch) goes to ``prefetched``, by key: it arrives in :attr:`LibraryLoader.prepared`."""

    progress: Callable[[int, int], None] = lambda done, total: None
    cancel_event: threading.Event = field(default_factory=threading.Event)
    feeds: list[Callable[[list[Skill]], None]] = field(default_factory=list)
    prefetched: dict[str, object] = field(default_factory=dict)

    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def skills_read(self, skills: list[Skill]) -> None:
        for feed in self.feeds:
            feed(skills)


class Feed(Protocol):
    """What a streaming preparer keeps for one load: it is fed the skills as they are read."""

    def feed(self, skills: Iterable[Skill]) -> None: ...


Opener = Callable[[LoadControl], Library]  # opens a library, told how by the load control
Preparer = Callable[..., object]  # prepare(library), or prepare(library, feed) with a feed


def path_opener(path: Path, format: str | None = None,
                settings: Callable[[], Settings] | None = None,
                link_targets: Callable[[], list[Path]] | None = None) -> Opener:
    """Open a skill library folder as its detected format, or as ``format`` (core.formats),
    through the one door (core.library.open).

    ``settings`` (gives the user's preferences) add the assumed SKILL.md profile settings and the
    user-scope skill roots; it is called only for a SKILL.md library. A RockBot library keeps what
    reading its files gave in the user's cache folder (core.library.stores.scan_cache): files that
    did not change are not read again. ``link_targets`` gives the folders the user allowed writes
    to through a symbolic link in this library (core.storage.links); it is called when opening."""

    def open_path(control: LoadControl) -> Library:
        options = OpenOptions(
            format=format, load_settings=(lambda: _user_settings(settings())) if settings else None,
            progress=control.progress, cancel=control.cancelled,
            on_skills=control.skills_read if control.feeds else None, cache_dir=cache_dir() / "scan",
            link_targets=tuple(link_targets()) if link_targets is not None else ())
        # The usage logs are read by a helper process while the library is read (issue 19).
        usage = UsagePrefetch.start(path) if format not in SKILLMD_FORMATS else None
        try:
            library = open_library(path, options)
        except BaseException:
            if usage is not None:
                usage.cancel()
            raise
        if usage is not None:
            control.prefetched["usage"] = usage
        return library

    return open_path


SKILLMD_FORMATS = frozenset(FORMATS[1:])  # (no usage logs to read beside them)


def _user_settings(settings: Settings) -> UserSettings:
    return UserSettings(settings.include_user_skills, settings.profile_overrides)


def demo_opener(dest: Path | None = None) -> Opener:
    """Install the bundled demo library once (at ``dest`` or the data folder) and open it."""

    def open_demo(control: LoadControl) -> Library:
        try:
            from rockskills_gui.core.app.demo import install_demo
        except ModuleNotFoundError as exc:
            if exc.name != "rockskills_gui.core.app.demo":
                raise
            raise LibraryError("the demo library is not part of this build; "
                               "open an agent directory instead") from None
        path = install_demo(dest if dest is not None else demo_library_dir())
        return path_opener(path)(control)

    return open_demo


def _load(opener: Opener, control: LoadControl, preparers: Mapping[str, Preparer],
          feeds: Mapping[str, Feed]) -> tuple[Library, dict[str, object]]:
    """The loader's job on the worker: open, then run the preparers; a load cancelled
    meanwhile raises :class:`QueryCancelled` (what it started beside the library is stopped)."""
    with gc_paused():  # a full collection now would walk every object read so far
        library = opener(control)
        prepared: dict[str, object] = dict(control.prefetched)
        for key, prepare in preparers.items():
            if control.cancelled():
                _cancel_prefetched(control)
                raise QueryCancelled
            try:
                prepared[key] = prepare(library, feeds[key]) if key in feeds else prepare(library)
            except Exception:  # the pane builds it itself then
                log.exception("preparing %s for the library failed", key)
        if len(library) >= FREEZE_FROM:
            # Long-lived from now on: out of every later collection's way (a full pass over a
            # 100,000-skill library holds the GIL for 0.3-0.5 s: a frozen UI).
            gc.freeze()
    if control.cancelled():
        _cancel_prefetched(control)
        raise QueryCancelled
    return library, prepared


def _cancel_prefetched(control: LoadControl) -> None:
    for started in control.prefetched.values():
        if isinstance(started, UsagePrefetch):
            started.cancel()


def _failure_text(error: Exception) -> str | None:
    """The one readable line for a load that failed (None: it was cancelled)."""
    if isinstance(error, ScanCancelled | QueryCancelled):
        return None
    if isinstance(error, NotALibraryError | LibraryError):
        return str(error)
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror or error}"
    return f"unexpected error while opening: {error!r}"  # a bug in a reader


class LibraryLoader(QObject):
    """Open libraries on a worker thread; at most one load is current.

    Signals:
        started(str): a load began; the text says what is being opened.
        progress(int, int): skill files read and found (found = 0 while the folders are listed).
        loaded(object): the :class:`Library`, delivered on the UI thread; what the preparers made
            for it is in :attr:`prepared` (by key) while ``loaded`` is emitted and after.
        failed(str): one readable line (not a library, unreadable, ...).
        cancelled(): the current load was abandoned (its scan stops at the next chunk of files).
        busyChanged(bool)
    """

    started = Signal(str)
    progress = Signal(int, int)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._job = QueryChannel(self, "load")  # on the app's one pool (ui.common.queries)
        self._busy = False
        self.preparers: dict[str, Preparer] = {}
        self.feeds: dict[str, Callable[[], Feed]] = {}
        self.prepared: dict[str, object] = {}

    @property
    def busy(self) -> bool:
        return self._busy

    def add_preparer(self, key: str, prepare: Preparer, feed: Callable[[], Feed] | None = None) -> None:
        """Run ``prepare(library)`` on the worker after each load; the result is ``prepared[key]``.

        With ``feed``, each load makes a new ``feed()``, hands it every chunk of skills as the
        scan reads them (a RockBot library; an opener that takes the load control), and calls
        ``prepare(library, fed)`` at the end."""
        self.preparers[key] = prepare
        if feed is not None:
            self.feeds[key] = feed

    def load(self, opener: Opener, description: str) -> None:
        """Start opening; a load still running is superseded (cancelled, its result dropped)."""
        preparers, makers = dict(self.preparers), dict(self.feeds)

        def job(query: QueryControl) -> tuple[Library, dict[str, object]]:
            feeds = {key: make() for key, make in makers.items()}
            control = LoadControl(progress=query.progress, cancel_event=query.cancel_event,
                                  feeds=[state.feed for state in feeds.values()])
            return _load(opener, control, preparers, feeds)

        self._job.request(job, self._on_loaded, failure=self._on_failed,
                          progress=self._on_progress)
        self.started.emit(description)
        self._set_busy(True)

    def cancel(self) -> None:
        self._job.cancel()
        if self._busy:
            self._set_busy(False)
            self.cancelled.emit()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the load is done (for shutdown and tests)."""
        return self._job.wait(msecs)

    def _on_progress(self, value: object) -> None:
        if self._busy and isinstance(value, tuple):
            done, total = value
            self.progress.emit(done, total)

    def _on_loaded(self, loaded: tuple[Library, dict[str, object]]) -> None:
        library, prepared = loaded
        self._set_busy(False)
        self.prepared = prepared
        self.loaded.emit(library)

    def _on_failed(self, error: Exception) -> None:
        message = _failure_text(error)
        if message is not None:
            self._set_busy(False)
            self.failed.emit(message)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)
