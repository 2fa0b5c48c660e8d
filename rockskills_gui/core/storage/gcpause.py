"""Hold Python's cyclic garbage collector during bursts of allocation, from any thread.

With a large library the heap holds millions of long-lived objects; a full collection triggered by
a burst (reading 100,000 skills, building the tree or the recall index, parsing usage logs) walks
all of them, for hundreds of milliseconds, holding the GIL: the UI thread stalls. Reference
counting still frees everything that is not in a cycle.

Pauses nest and overlap across threads: the collector is switched off by the first and on again
by the last one to end (if it was on when the first began).
"""

from __future__ import annotations

import gc
from contextlib import AbstractContextManager

from rockskills_gui.core.storage.shared_switch import SharedSwitch

_was_enabled = False


def _pause() -> None:
    global _was_enabled
    _was_enabled = gc.isenabled()
    gc.disable()


def _resume() -> None:
    if _was_enabled:
        gc.enable()


_SWITCH = SharedSwitch(_pause, _resume)


def gc_paused() -> AbstractContextManager[None]:
    """The collector is off inside (see the module doc)."""
    return _SWITCH.held()
