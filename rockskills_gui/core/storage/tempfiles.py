"""Temporary file names: hidden siblings that no library scan picks up, and their cleanup.

Temporary files are hidden siblings named ``.<name>.<pid>-<hex>.rsg-tmp``: never ``*.json`` (RockBot
loads every ``skills/**/*.json``), and carrying the writer's process id so that a later open can
tell a crashed writer's leftovers (:func:`stale_temp`) from a live writer's temp file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

TEMP_SUFFIX = ".rsg-tmp"
NAME_MAX = 255  # bytes in one file name on every file system we target


def temp_path_for(path: Path) -> Path:
    """A hidden sibling temp name that RockBot's ``*.json`` scan can never pick up.

    The original name is shortened when needed so that the temp name fits in NAME_MAX bytes.
    """
    tail = f".{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}"
    base = path.name
    room = NAME_MAX - 1 - len(tail.encode())
    if len(base.encode("utf-8", "surrogateescape")) > room:
        base = base.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return path.with_name(f".{base}{tail}")


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def temp_owner(name: str) -> int | None:
    """The process id in a temp name written by :func:`temp_path_for` (None for other names)."""
    if not is_temp_name(name):
        return None
    stem = name[: -len(TEMP_SUFFIX)]
    _, _, token = stem.rpartition(".")
    pid, _, rest = token.partition("-")
    return int(pid) if pid.isdigit() and len(rest) == 8 else None


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (never signals it: on Windows os.kill ends it)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # ERROR_ACCESS_DENIED: it exists  # type: ignore[attr-defined]
        code = ctypes.c_ulong()
        try:
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        finally:
            kernel32.CloseHandle(handle)
        return bool(ok) and code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists (owned by another user)
    return True


def stale_temp(path: Path, max_age_s: float = 3600.0) -> bool:
    """True for a temp file whose writer is gone: its process no longer runs (this machine), or,
    for a name without a process id, it is older than ``max_age_s``."""
    pid = temp_owner(path.name)
    if pid is not None:
        return not process_alive(pid)
    if not is_temp_name(path.name):
        return False
    try:
        return time.time() - path.lstat().st_mtime > max_age_s
    except OSError:
        return False


def remove_stale_temps(paths: list[Path]) -> list[Path]:
    """Remove the stale temp files among ``paths`` (see :func:`stale_temp`); returns those removed."""
    removed: list[Path] = []
    for path in paths:
        if stale_temp(path):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                if stat.S_ISDIR(path.lstat().st_mode):
                    continue  # a folder with a temp name (a staging folder) is not a temp file
                path.unlink()
                removed.append(path)
    return removed


@contextlib.contextmanager
def replaced_privately(path: Path) -> Iterator[BinaryIO]:
    """Write ``path`` (the app's own cache files, readable by the user only) through a temp
    sibling that takes its place atomically when the block ends; on an error the temp file is
    removed and ``path`` is left as it was.

    The temp file is a new file (never a link or file planted under its name: those make the
    write fail) and the rename replaces a symbolic link at ``path`` itself, never its target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f"{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_BINARY", 0), 0o600)
        with open(fd, "wb") as handle:
            yield handle
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
