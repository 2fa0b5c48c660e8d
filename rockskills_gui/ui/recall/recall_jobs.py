"""The recall pane's work off the UI thread: the jobs that build an index or a comparison model
on a worker and hand it over, and the recall prepared while a library loads.

Each job builds its own object (never shared with the UI thread until handed over).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall


class JobSignals(QObject):
    done = Signal(str, int, object)
    failed = Signal(str, int, str)


class BuildJob(QRunnable):
    """Builds one object (an index, a comparison model) off the UI thread and hands it over."""

    def __init__(self, kind: str, ticket: int, build: Callable[[], object],
                 signals: JobSignals) -> None:
        super().__init__()
        self.kind, self.ticket, self.build, self.signals = kind, ticket, build, signals

    def run(self) -> None:
        try:
            result = self.build()
        except Exception as exc:  # a bug must not kill the worker silently
            self._emit(self.signals.failed, f"could not build the {self.kind}: {exc!r}")
        else:
            self._emit(self.signals.done, result)

    def _emit(self, signal: Any, value: object) -> None:
        try:
            signal.emit(self.kind, self.ticket, value)
        except RuntimeError:  # the pane is gone
            pass


class Built:
    """A session index text built on a worker (``None`` is a valid text: an empty library)."""

    def __init__(self, text: str | None) -> None:
        self.text = text


class PreparedRecall:
    """The recall index, session index text and skill names of a library, built while it loaded."""

    def __init__(self, recall: SkillRecall, index_text: str | None, names: list[str]) -> None:
        self.recall = recall
        self.index_text = index_text
        self.names = names


def prepare_recall(library: Library, fed: RecallBuilder | None = None) -> PreparedRecall:
    """Build :class:`PreparedRecall` on the loader's worker thread (LibraryLoader.add_preparer),
    finishing the index ``fed`` was given while the library was read, if any."""
    skills = library.skills()
    recall = fed.build(skills) if fed is not None else SkillRecall(skills)
    return PreparedRecall(recall, session_index_text(skills), library.names())

