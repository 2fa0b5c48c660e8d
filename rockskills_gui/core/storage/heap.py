"""Keep freed memory in the process during a burst of large array work (glibc only).

glibc takes every allocation over 32 MB from the system (``mmap``) and gives it back when it is
freed; the merge search of a dream over 100,000 skills makes and drops hundreds of arrays of tens
of MB, and each new one is paid again in page faults and page zeroing in the kernel -- on a
virtual machine, more than the arithmetic (measured: 6.3 s of system time in a 16 s index build,
2.3 s inside :func:`reuse_freed_memory`). Inside it, large blocks come from the heap and stay
there when freed, for the next array to reuse; when the last user leaves, glibc's defaults come
back and the free heap is returned to the system. Elsewhere (macOS, musl) it does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from contextlib import AbstractContextManager
from typing import Any

from rockskills_gui.core.storage.shared_switch import SharedSwitch

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
DEFAULT_TRIM_THRESHOLD = 128 * 1024  # glibc's defaults
DEFAULT_MMAP_MAX = 65536
KEEP = 2**31 - 1  # the largest trim threshold mallopt takes (2 GB of free heap top)



def _glibc() -> Any | None:
    """The process's C library when it is glibc (it has ``mallopt`` and ``malloc_trim``)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def _keep_freed() -> None:
    if _LIBC is not None:
        _LIBC.mallopt(M_MMAP_MAX, 0)
        _LIBC.mallopt(M_TRIM_THRESHOLD, KEEP)


def _give_back() -> None:
    if _LIBC is not None:
        _LIBC.mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX)
        _LIBC.mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD)
        _LIBC.malloc_trim(0)


_SWITCH = SharedSwitch(_keep_freed, _give_back)


def reuse_freed_memory() -> AbstractContextManager[None]:
    """Large allocations come from the heap and stay there inside (see the module doc); nests
    and overlaps across threads."""
    return _SWITCH.held()


def give_back_freed_memory() -> None:
    """Return the free heap to the system now (glibc's ``malloc_trim``; elsewhere nothing): after
    a burst that freed more than it keeps (a usage report's temporaries, ~60 MB at 100,000
    skills), so the process's resident size falls back instead of staying at the burst's."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
