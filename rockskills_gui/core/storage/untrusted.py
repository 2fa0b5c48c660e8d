"""A library is untrusted input: what a path really is, and where a symbolic link really leads.

Readers never open what is not a regular file (``fileio.read_regular`` refuses FIFOs, devices,
sockets and folders without blocking); these helpers turn such paths into one readable reason,
and tell whether a symbolic link leaves the library (its target resolves outside every folder
the library consists of). "Inside the library" means inside one of those folders after
resolving links: a RockBot ``skills/`` folder (and ``.skillgui/`` beside it), or the skill roots
of a SKILL.md tree.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES
from rockskills_gui.core.storage import fileio


def real(path: Path | str) -> str:
    """``path`` with every symbolic link resolved (as far as they resolve)."""
    return os.path.realpath(path)


def is_inside(path: Path | str, folders: Iterable[Path | str]) -> bool:
    """True when ``path``, resolved, is one of ``folders`` (resolved) or below one of them."""
    target = real(path)
    for folder in folders:
        base = real(folder)
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def leaves(path: Path | str, folders: Iterable[Path | str]) -> bool:
    """True when ``path`` is a symbolic link whose target resolves outside ``folders``."""
    return os.path.islink(path) and not is_inside(path, folders)


def link_target(path: Path | str) -> str:
    """What a symbolic link says it points to (its text), or '?' when it cannot be read."""
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def not_regular(path: Path | str) -> str | None:
    """Why ``path`` is not a readable regular file (``"a named pipe (FIFO), not a regular
    file"``, ``"a symbolic link to a missing file"``...), or None when it is one or is absent.

    Never opens the path: ``lstat``/``stat`` only.
    """
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode):
        return None
    if not stat.S_ISLNK(info.st_mode):
        return f"a {fileio.file_kind(info.st_mode)}, not a regular file"
    try:
        target = os.stat(path)
    except FileNotFoundError:
        return "a symbolic link to a missing file"
    except OSError as exc:
        return f"a symbolic link that cannot be followed ({exc.strerror or exc})"
    if stat.S_ISREG(target.st_mode):
        return None
    return f"a symbolic link to a {fileio.file_kind(target.st_mode)}, not to a regular file"


def reason(path: Path | str, exc: OSError) -> str:
    """One readable reason for an error reading ``path`` (no path in it: callers show the path)."""
    if isinstance(exc, fileio.NotRegularFile | FileNotFoundError | IsADirectoryError):
        why = not_regular(path)
        if why is not None:
            return why
        if isinstance(exc, fileio.NotRegularFile):
            return f"a {exc.kind}, not a regular file"
    return str(exc.strerror or exc)


def read_inside(path: Path, folders: Iterable[Path | str], limit: int = RESOURCE_MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing one reached through a symbolic link that
    leaves ``folders``; raises :class:`Refused` (a readable reason) for that, a FIFO, device,
    folder, dangling link, a file over ``limit`` bytes or any read error. Never blocks."""
    if not is_inside(path, folders):
        raise Refused(path, f"a symbolic link leaving the library (to {link_target(path)})"
                      if os.path.islink(path) else "outside the library")
    try:
        return fileio.read_regular(path, limit)
    except OSError as exc:
        raise Refused(path, reason(path, exc)) from None


def write_inside(path: Path, data: bytes, root: Path) -> None:
    """Write ``data`` to ``path`` atomically (:func:`fileio.atomic_write`: a temp file renamed
    over it) when ``path`` lies in the folder ``root`` (the library's) and nothing on the way
    leaves it; missing folders are created. Raises :class:`Refused` (nothing written) for a path
    outside ``root``, a folder on the way that is a symbolic link leading outside ``root`` (a
    symlinked ``recall-tests/``), or a ``path`` that is a symbolic link (written through, it would
    change its target, or create the target of a dangling one), a FIFO, a device or a folder."""
    base = Path(os.path.abspath(root))
    target = Path(os.path.abspath(path))
    try:
        rel = target.relative_to(base)
    except ValueError:
        raise Refused(path, f"outside the library ({root}); not written") from None
    if not rel.parts:
        raise Refused(path, "not a file in the library; not written")
    current = base
    for part in rel.parts[:-1]:
        current = current / part
        if os.path.islink(current) and not is_inside(current, (base,)):
            raise Refused(path, f"{current.relative_to(base).as_posix()}/ is a symbolic link leaving "
                                f"the library (to {link_target(current)}); not written through it")
        if os.path.lexists(current) and not os.path.isdir(current):
            raise Refused(path, f"{current.relative_to(base).as_posix()} is not a folder; not written")
    if os.path.islink(target):
        raise Refused(path, f"a symbolic link (to {link_target(target)}); not written through it")
    if os.path.lexists(target):
        why = not_regular(target)
        if why is not None:
            raise Refused(path, f"{why}; not written")
    fileio.atomic_write(target, data)


class Refused(OSError):
    """A file that is not read: ``path`` and a readable ``why`` (its message is ``path: why``)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why
