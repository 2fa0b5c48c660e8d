"""Whether another process holds a file open for writing, and its bytes, read in one look.

An agent that saves in place (RockBot: open the path, then truncate and write) may hold the file
we are about to swap out or delete and write into it a moment later; its bytes still look as
expected when we check. Linux tells: a *read lease* (``fcntl(F_SETLEASE, F_RDLCK)``) is refused
with EAGAIN while any open file description has the file open for writing, and is broken by an
open for writing while we hold it. :func:`look` takes one around its read. Elsewhere (macOS,
Windows, a file system without leases, a file of another owner) nothing is known: ``held`` is
False and only the bytes tell.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

_SETLEASE = getattr(fcntl, "F_SETLEASE", None)
_GETLEASE = getattr(fcntl, "F_GETLEASE", None)
_SETSIG = getattr(fcntl, "F_SETSIG", None)
# A lease broken while held signals its holder (SIGIO by default, which would end the process):
# SIGURG instead, ignored unless a handler is installed.
_BREAK_SIGNAL = getattr(signal, "SIGURG", 0)


@dataclass(frozen=True)
class Look:
    """One file as seen at once: its identity, its bytes (None: not a regular file, or gone),
    and whether another process held it open for writing while they were read."""

    ident: tuple[int, int]
    data: bytes | None
    held: bool


def look(path: Path) -> Look | None:
    """The file at ``path`` (not following a final symbolic link), or None when nothing is there."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return None
        return Look((info.st_dev, info.st_ino), None, False)  # a link, a FIFO with no reader...
    try:
        info = os.fstat(fd)
        ident = (info.st_dev, info.st_ino)
        if not stat.S_ISREG(info.st_mode):
            return Look(ident, None, False)
        leased = _take_lease(fd)
        parts = [os.read(fd, info.st_size + 1)]
        while parts[-1]:
            parts.append(os.read(fd, 1 << 20))
        held = leased is None or (leased and not _still_leased(fd))
        return Look(ident, b"".join(parts), held)
    finally:
        os.close(fd)  # (releases the lease)


def _take_lease(fd: int) -> bool | None:
    """True: leased (nobody has the file open for writing); None: someone has; False: unknown."""
    if _SETLEASE is None or fcntl is None:
        return False
    try:
        if _SETSIG is not None and _BREAK_SIGNAL:
            fcntl.fcntl(fd, _SETSIG, _BREAK_SIGNAL)
        fcntl.fcntl(fd, _SETLEASE, fcntl.F_RDLCK)
    except OSError as exc:
        return None if exc.errno in (errno.EAGAIN, errno.EBUSY) else False
    return True


def _still_leased(fd: int) -> bool:
    """False when an open for writing broke the lease while we read."""
    if _GETLEASE is None or fcntl is None:
        return True
    try:
        return bool(fcntl.fcntl(fd, _GETLEASE) == fcntl.F_RDLCK)
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, _SETLEASE, fcntl.F_UNLCK)


def detectable(path: Path) -> bool:
    """Whether this system tells, for the file at ``path``, that someone holds it open to write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        leased = _take_lease(fd)
        if leased:
            _still_leased(fd)
        return leased is not False
    finally:
        os.close(fd)
