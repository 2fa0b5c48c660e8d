"""How a long core operation says how far it is, and where it may still be cancelled.

A long operation (applying a change set, an undo or redo of many files, a bulk delete or move, a
dream apply) is given a :class:`Progress` and calls it as it goes: :meth:`~Progress.report` after
each unit of work of a phase ("Checking", "Writing"), :meth:`~Progress.check` while it only reads
(it raises :class:`Cancelled` when the caller asked to stop), and :meth:`~Progress.begin_write`
once, just before the first byte is written: the point of no return, after which a cancel is
refused and the write runs to its end (crash-safe, all or nothing). Nothing here knows of threads
or of a UI; the UI's operation runner is one implementation (it throttles what it shows).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar

T = TypeVar("T")

CHECKING = "Checking"  # reading and comparing files; cancel still possible
JOURNALING = "Backing up"  # the journal's copy of each file (for undo and recovery), before any is written
WRITING = "Writing"  # files are being written; never interrupted


class Cancelled(Exception):
    """The operation was cancelled before it wrote anything.

    Not a ``LibraryError`` on purpose: nothing in the core may catch it as a refusal."""


class Progress(Protocol):
    """What a long operation reports to, and asks whether to stop (see the module doc)."""

    def report(self, phase: str, done: int, total: int) -> None:
        """``done`` of ``total`` units of ``phase`` are finished (``done`` never goes down
        within one phase)."""

    def check(self) -> None:
        """Raise :class:`Cancelled` when a cancel was asked (only called before the write)."""

    def begin_write(self) -> None:
        """The write starts: raise :class:`Cancelled` when a cancel was asked before, else refuse
        every cancel from now on."""


class Silent:
    """A :class:`Progress` that reports nowhere and is never cancelled (the CLI, tests)."""

    def report(self, phase: str, done: int, total: int) -> None:
        del phase, done, total

    def check(self) -> None:
        return None

    def begin_write(self) -> None:
        return None


SILENT: Progress = Silent()


def counted(items: Iterable[T], total: int, phase: str, progress: Progress | None,
            cancellable: bool = True) -> Iterator[T]:
    """Yield ``items``, reporting ``phase`` after each (``done`` of ``total``) and, when
    ``cancellable``, checking for a cancel before each; reports ``total`` of ``total`` at the end
    even when ``items`` held fewer."""
    if progress is None or progress is SILENT:
        yield from items
        return
    done = 0
    progress.report(phase, 0, total)
    for item in items:
        if cancellable:
            progress.check()
        yield item
        done += 1
        progress.report(phase, done, total)
    if done != total:
        progress.report(phase, total, total)
