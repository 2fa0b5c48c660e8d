"""Whether another process has a file open for writing, or opens it while we hold a look at it.

An agent that saves in place (RockBot: open the path, then truncate and write) may hold the file
we are about to swap out or delete, and write into it a moment later: its bytes still look as
expected when we check. Linux tells: a *read lease* (``fcntl(F_SETLEASE, F_RDLCK)``) is refused
with EAGAIN while any process has the file open for writing, and an open for writing while we
hold it *breaks* it (``F_GETLEASE`` says so) and waits until we let go. So :func:`pinned` takes a
lease, reads the bytes, and keeps both across a swap: afterwards :meth:`Pinned.opened_since` says
whether a writer opened the file meanwhile (it is then waiting for us, so it has written nothing
else). Elsewhere (macOS, Windows, a file system without leases, a file of another owner) nothing
is known: ``held`` is False, ``opened_since`` too, and only the bytes tell.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
from collections.abc import Iterator
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
# SIGURG instead, which is ignored unless a handler is installed.
_BREAK_SIGNAL = getattr(signal, "SIGURG", 0)
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_BINARY", 0))


@dataclass(frozen=True)
class Look:
    """One file as seen at once: its identity, its bytes (None: not a regular file), and whether
    another process had it open for writing while they were read."""

    ident: tuple[int, int]
    data: bytes | None
    held: bool


class Pinned:
    """A look at a file kept open with its lease (see the module doc)."""

    def __init__(self, fd: int, look: Look, leased: bool) -> None:
        self._fd = fd
        self.look = look
        self._leased = leased

    def read_now(self) -> bytes | None:
        """The file's bytes now (None: not a regular file); with the lease unbroken they are
        still those of the look (writing needs an open for writing, which breaks the lease)."""
        if self.look.data is None:
            return None
        if self._leased and not self.opened_since():
            return self.look.data
        parts = [os.pread(self._fd, max(os.fstat(self._fd).st_size, 0) + 1, 0)]
        while parts[-1]:
            parts.append(os.pread(self._fd, 1 << 20, sum(len(p) for p in parts)))
        return b"".join(parts)

    def opened_since(self) -> bool:
        """True when a process opened the file for writing since the look (known with a lease only)."""
        if not self._leased or _GETLEASE is None or fcntl is None:
            return False
        try:
            return bool(fcntl.fcntl(self._fd, _GETLEASE) != fcntl.F_RDLCK)
        except OSError:
            return True


@contextlib.contextmanager
def pinned(path: Path) -> Iterator[Pinned | None]:
    """The file at ``path`` (a final symbolic link is not followed) looked at and held (its lease
    until the block ends: a writer opening it meanwhile waits for that); None when nothing is there."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        yield None
        return
    except OSError:  # a symbolic link, a FIFO without a reader, no permission...
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            yield None
            return
        yield Pinned(-1, Look((info.st_dev, info.st_ino), None, False), False)
        return
    try:
        info = os.fstat(fd)
        ident = (info.st_dev, info.st_ino)
        if not stat.S_ISREG(info.st_mode):
            yield Pinned(fd, Look(ident, None, False), False)
            return
        leased = _take_lease(fd)
        parts = [os.read(fd, info.st_size + 1)]
        while parts[-1]:
            parts.append(os.read(fd, 1 << 20))
        pin = Pinned(fd, Look(ident, b"".join(parts), leased is None), bool(leased))
        if pin.opened_since():  # opened for writing while we read: as good as held
            pin.look = Look(ident, pin.look.data, True)
        yield pin
    finally:
        os.close(fd)  # (releases the lease)


def look(path: Path) -> Look | None:
    """The file at ``path`` seen at once (see :class:`Look`), or None when nothing is there."""
    with pinned(path) as pin:
        return None if pin is None else pin.look


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


def detectable(path: Path) -> bool:
    """Whether this system tells, for the file at ``path``, that someone has it open to write."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return False
    try:
        return _take_lease(fd) is not False
    finally:
        os.close(fd)
