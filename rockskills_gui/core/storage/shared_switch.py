"""A process-wide switch held by nested and overlapping users, from any thread.

The first user to enter turns it on, the last one to leave turns it off; the users in between
change nothing. The collector pause (:mod:`gcpause`) and the allocator setting (:mod:`heap`) are
two such switches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class SharedSwitch:
    """``on()`` when the first holder enters, ``off()`` when the last one leaves."""

    def __init__(self, on: Callable[[], None], off: Callable[[], None]) -> None:
        self._on, self._off = on, off
        self._lock = threading.Lock()
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._on()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._off()
