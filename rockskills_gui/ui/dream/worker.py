"""A dream run on a worker thread: progress and the finished plan arrive as Qt signals.

The run reads its own snapshot of the library's files (a fresh read-only library on the same
folder: :func:`snapshot_of`), so the UI thread can keep editing the open library meanwhile; the
plan records the fingerprint of what it read and ``apply`` refuses it if the files changed since.
Cancel sets an event the engine polls; a request in flight is abandoned and the thread ends
within a moment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal

from rockskills_gui.core.dream.formats import DreamLibrary
from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.run import RunOptions, RunProgress, run_dream
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.skillmd_library import SkillMdLibrary
from rockskills_gui.ui.dream.review_start import review_start


def snapshot_of(library: DreamLibrary) -> Callable[[], DreamLibrary]:
    """What makes, on the worker, a read-only copy of ``library`` read from disk again (no
    recovery, no writes): a RockBot library on the same folder, or a SKILL.md library's own
    :meth:`~SkillMdLibrary.snapshot`."""
    if isinstance(library, SkillMdLibrary):
        return library.snapshot
    layout = library.layout
    return lambda: Library(layout)


class DreamRunThread(QThread):
    """Runs :func:`run_dream` once, then makes the review's start (defaults and selection,
    :func:`review_start`) on the same thread: a plan of thousands of proposals and the usage log
    the defaults read cost the UI thread nothing.

    Signals (delivered on the UI thread):
        progressed(object): a :class:`RunProgress`.
        planReady(object, object): the :class:`Plan` (also after a cancel: the passes say so) and
            its :class:`ReviewStart`.
        crashed(str): the run could not start or hit an unexpected error.
    """

    progressed = Signal(object)
    planReady = Signal(object, object)
    crashed = Signal(str)

    def __init__(self, snapshot: Callable[[], DreamLibrary], agent_dir: Path, options: RunOptions,
                 endpoint: Endpoint | None, api_key: str | None, parent: QObject | None = None,
                 prune: bool = True, review_prefixes: list[str] | None = None) -> None:
        super().__init__(parent)
        self.snapshot = snapshot
        self._agent_dir = agent_dir
        self.options = options
        self.endpoint = endpoint
        self.prune = prune
        self.review_prefixes = list(review_prefixes or [])
        self._key = api_key  # memory only; handed to the client and forgotten with the thread
        self.cancel_event = threading.Event()

    @property
    def agent_dir(self) -> Path:
        return self._agent_dir

    def cancel(self) -> None:
        self.cancel_event.set()

    def run(self) -> None:
        try:
            library = self.snapshot()  # a read-only snapshot; no recovery, no writes
            client = None
            if not self.options.offline:
                if self.endpoint is None:
                    raise ValueError("no endpoint to ask")
                client = LlmClient(self.endpoint, self._key)
            plan = run_dream(library, self.options, client, progress=self._report,
                             cancel=self.cancel_event)
            start = review_start(plan, library, self.review_prefixes, self.prune)
        except Exception as exc:  # shown on the run page; the thread must not die silently
            self.crashed.emit(f"{type(exc).__name__}: {exc}")
        else:
            self.planReady.emit(plan, start)
        finally:
            self._key = None

    def _report(self, progress: RunProgress) -> None:
        self.progressed.emit(progress)
