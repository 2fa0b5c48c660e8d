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
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector is off inside (see the module doc)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
