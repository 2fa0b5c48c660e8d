"""The recall index of a library, built where it does not delay the first paint (issue 19).

A large library (:data:`FEED_FROM` skills or more) gets its index while it is read: the loader's
scan feeds a :class:`~rockskills_gui.core.recall.skill_recall.RecallBuilder` chunk by chunk, so
indexing overlaps reading (numpy and the recall engine load on the loader's worker). A small one
opens without it: the window paints its tree first, and :class:`RecallWarmup` builds the index on
a worker shortly after that first paint, into ``ctx.prepared["recall"]``, where the Recall tab
takes it when it is first shown. A tab shown before that builds its own, as it does for any
library it was given no index for (the same index: ``SkillRecall(library.skills())``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, SignalInstance

from rockskills_gui.ui.common.after_paint import AfterPaint

if TYPE_CHECKING:
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.model.profile import ListingKind
    from rockskills_gui.core.model.skill import Skill
    from rockskills_gui.core.recall.skill_recall import RecallBuilder
    from rockskills_gui.core.storage.changes import ChangeSet
    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.recall.recall_pane import PreparedRecall

FEED_FROM = 1_000  # skills from which the index is built while the library is read
WARMUP_DELAY_MS = 250  # after the first paint: the window's own first frames go first
log = logging.getLogger(__name__)


class LargeLibraryFeed:
    """The loader's feed for the recall index (``LibraryLoader.add_preparer``): it holds the
    skills of the first chunks, and once the scan has read :data:`FEED_FROM` skills, feeds them
    and every later chunk to a ``RecallBuilder``. A smaller library never loads the engine."""

    def __init__(self) -> None:
        self.held: list[Skill] = []
        self.builder: RecallBuilder | None = None

    def feed(self, skills: Iterable[Skill]) -> None:
        if self.builder is not None:
            self.builder.feed(skills)
            return
        self.held.extend(skills)
        if len(self.held) >= FEED_FROM:
            from rockskills_gui.core.recall.skill_recall import RecallBuilder

            self.builder = RecallBuilder()
            self.builder.feed(self.held)
            self.held = []


def prepare_large_recall(library: Library, fed: LargeLibraryFeed | None = None
                         ) -> PreparedRecall | None:
    """The recall index of a library of :data:`FEED_FROM` skills or more (on the loader's
    worker): the one kept beside the library's scan cache when it still holds (see
    ``core.recall.index_cache``), else finishing what ``fed`` was given, else built; None for a
    smaller library (:class:`RecallWarmup` builds it after the first paint)."""
    if len(library) < FEED_FROM:
        return None
    from rockskills_gui.core.recall.index_cache import RecallCache, cached_recall
    from rockskills_gui.ui.recall.recall_pane import PreparedRecall

    kept = library.recall_cache()  # (beside a RockBot library's scan cache, when it keeps one)
    cache = RecallCache(kept) if kept is not None else None
    skills = library.skills()
    recall, text = cached_recall(skills, cache, fed.builder if fed is not None else None)
    return PreparedRecall(recall, text, library.names())


def build_prepared(skills: list[Skill], names: list[str], kind: ListingKind) -> PreparedRecall:
    """The index of a snapshot of the library's skills (immutable records) and its session index
    text as the profile's listing ``kind`` words it, off the UI thread."""
    from rockskills_gui.core.recall.index_text import session_index_text
    from rockskills_gui.core.recall.skill_recall import SkillRecall
    from rockskills_gui.ui.recall.recall_pane import PreparedRecall

    return PreparedRecall(SkillRecall(skills), session_index_text(skills, kind), names, kind)


class RecallWarmup(QObject):
    """Builds the open library's recall index on a worker after the tree's first paint, unless it
    was prepared while the library loaded or the Recall tab (``pane_built()``) has its own."""

    def __init__(self, ctx: AppContext, painted: SignalInstance, pane_built: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._build = ctx.channel(self, "recall warmup")  # (ctx.query: newest request wins)
        self._painted = painted  # the tree's paint signal (SkillTreeView.painted)
        self._after_paint: AfterPaint | None = None
        self._pane_built = pane_built
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(WARMUP_DELAY_MS)
        self._timer.timeout.connect(self._start)
        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)

    def _wanted(self) -> bool:
        return (self.ctx.library is not None and not self._pane_built()
                and self.ctx.prepared.get("recall") is None)

    def _on_library_changed(self, _library: object) -> None:
        self._build.cancel()
        self._timer.stop()
        if self._after_paint is not None:
            self._after_paint.cancel()
            self._after_paint = None
        if self._wanted():  # start after the next paint
            self._after_paint = AfterPaint(self._painted, self._after_painted, self)

    def _after_painted(self) -> None:
        self._after_paint = None
        self._timer.start()

    def _on_change_applied(self, _change: ChangeSet) -> None:
        """An index built or prepared before a change is out of date: drop it, build anew."""
        self._build.cancel()
        if not self._pane_built():
            self.ctx.prepared.pop("recall", None)
            self._timer.start()

    def _start(self) -> None:
        library = self.ctx.library
        if library is None or not self._wanted():
            return
        skills, names, kind = library.skills(), library.names(), library.profile.listing.kind
        self.ctx.query(self, "recall warmup", lambda _control: build_prepared(skills, names, kind),
                       self._on_done, failure=self._on_failed)

    def _on_done(self, prepared: PreparedRecall) -> None:
        if self._wanted():
            self.ctx.prepared["recall"] = prepared

    def _on_failed(self, error: Exception) -> None:  # the Recall tab builds it itself when shown
        log.error("building the recall index after the first paint failed", exc_info=error)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or self._build.busy

    def wait(self, msecs: int = -1) -> bool:
        """Block until the worker is idle (for shutdown and tests)."""
        self._timer.stop()
        return self._build.wait(msecs)
