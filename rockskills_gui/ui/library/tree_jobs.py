"""The tree's background work: last-use times from the usage logs and the lint marks, read off
the UI thread and handed back by ticket; and the tree built on the loader's worker."""

from __future__ import annotations

import gc
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import SkillTree, last_used_by_name
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.ui.common.usage_prefetch import UsagePrefetch

FREEZE_EVENTS = 20_000  # usage events from which the result is frozen (see UsageJob.run)


class JobSignals(QObject):
    """A job's result, delivered on the UI thread: (ticket, result)."""

    done = Signal(int, object)


class UsageJob(QRunnable):
    """Read ``skill-usage/*.jsonl`` and reduce it to the latest use per name."""

    def __init__(self, ticket: int, agent_dir: Path, signals: JobSignals,
                 prefetch: object = None) -> None:
        super().__init__()
        self.ticket = ticket
        self.agent_dir = agent_dir
        self.signals = signals  # kept alive by the job while it runs
        # The same result, read by a helper process while the library loaded (ui.common).
        self.prefetch = prefetch if isinstance(prefetch, UsagePrefetch) \
            and prefetch.agent_dir == agent_dir else None

    def run(self) -> None:
        if self.prefetch is not None:
            latest = self.prefetch.result()  # waits for the helper (no lock held meanwhile)
            if latest is not None:
                gc.freeze()  # long-lived: out of the collector's way (see below)
                _deliver(self.signals, self.ticket, latest)
                return
        from rockskills_gui.core.usage.events import read_usage  # (loads on this worker)

        try:
            with gc_paused():  # 100,000 events must not trigger full collections of a big heap
                events = read_usage(self.agent_dir).events
                result: dict[str, Timestamp] = last_used_by_name(events)
                if len(events) >= FREEZE_EVENTS:
                    # The result lives as long as the library: out of the collector's way. The first
                    # collection after the pause walked it (and every young object) for 120 ms.
                    del events
                    gc.freeze()
        except OSError:
            result = {}
        _deliver(self.signals, self.ticket, result)


class LintJob(QRunnable):
    """The tree's lint marks: each skill's warning-or-worse findings in its format."""

    def __init__(self, ticket: int, library: Library, signals: JobSignals) -> None:
        super().__init__()
        self.ticket = ticket
        self.library = library
        self.signals = signals

    def run(self) -> None:
        try:
            from rockskills_gui.core.lint.linter import skill_marks  # numpy: not at startup

            result = skill_marks(self.library)
        except Exception:  # advisory marks never break the tree
            result = {}
        _deliver(self.signals, self.ticket, result)


def _deliver(signals: JobSignals, ticket: int, result: object) -> None:
    """Hand a job's result to the pane; a pane closed meanwhile (the window quit while the job
    ran) has nobody to tell, and an exception must not escape the worker thread."""
    try:
        signals.done.emit(ticket, result)
    except RuntimeError:  # the signals object was deleted with the pane
        pass


def prepare_tree(library: Library) -> SkillTree:
    """The tree of ``library``, built on the loader's worker thread (see LibraryLoader.add_preparer),
    with its folder count (a walk over every node) already cached."""
    tree = SkillTree(library.skills())
    tree.folder_count()
    return tree
