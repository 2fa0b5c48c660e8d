"""Exclusive locks on a file between processes: ``flock`` (POSIX) or ``msvcrt.locking`` (Windows).

The kernel drops such a lock when its process ends, however it ends (SIGKILL included), so a lock
that can be taken means no one else is at work.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.05  # how often a waiting :func:`held` tries again


class LockBusy(OSError):
    """Another process held the lock for longer than the caller would wait."""


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting: False when someone else holds it."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


@contextlib.contextmanager
def held(path: Path, timeout_s: float) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing, a symbolic link refused) for the
    ``with`` block, waiting at most ``timeout_s`` seconds for another holder (:class:`LockBusy`)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        deadline = time.monotonic() + timeout_s
        while not try_lock(fd):
            if time.monotonic() >= deadline:
                raise LockBusy(errno.EWOULDBLOCK, f"{path}: locked by another process")
            time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)  # closing drops the lock
