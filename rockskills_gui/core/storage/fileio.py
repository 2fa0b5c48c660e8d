"""Atomic and conflict-checked file writes, careful removal, and the crash hook for fault tests.

Temporary files are hidden siblings named ``.<name>.<pid>-<hex>.rsg-tmp``: never ``*.json`` (RockBot
loads every ``skills/**/*.json``), and carrying the writer's process id so that a later open can
tell a crashed writer's leftovers (:func:`stale_temp`) from a live writer's temp file.

:func:`replace_checked` is the writer for files a running agent may write at the same time: it
replaces (or deletes) a file only when it still holds the expected bytes, and notices an agent
write that lands between that check and the swap (RockBot truncates and rewrites files in place,
so such a write goes into the old file, which we keep hard-linked until the swap is verified).

Fault injection: ``ROCKSKILLS_CRASH_AFTER=N`` in the environment (or :func:`arm_crash`) makes the
process kill itself with SIGKILL at the N-th :func:`checkpoint` — every step of a write that a
crash could interrupt calls one. Disarmed, a checkpoint costs one comparison.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import stat
import sys
import time
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".rsg-tmp"
NAME_MAX = 255  # bytes in one file name on every file system we target
CRASH_ENV = "ROCKSKILLS_CRASH_AFTER"

_steps = 0
_crash_at: int | None = None
with contextlib.suppress(ValueError):
    _crash_at = int(os.environ[CRASH_ENV]) if os.environ.get(CRASH_ENV) else None


class ChangedOnDisk(Exception):
    """The file did not hold the expected bytes (someone else wrote or removed it); ``path``."""

    def __init__(self, path: Path, message: str = "changed on disk") -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


# ---------------------------------------------------------------- crash hook (fault-injection tests)


def arm_crash(after: int | None) -> None:
    """Kill this process with SIGKILL at the ``after``-th checkpoint from now (None disarms)."""
    global _crash_at, _steps
    _steps = 0
    _crash_at = after


def steps() -> int:
    """Checkpoints passed since the process started or :func:`arm_crash` was last called."""
    return _steps


def checkpoint() -> None:
    """A point where a crash may happen; dies here when the armed count is reached."""
    global _steps
    _steps += 1
    if _crash_at is not None and _steps >= _crash_at:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


# ---------------------------------------------------------------- names


def temp_path_for(path: Path) -> Path:
    """A hidden sibling temp name that RockBot's ``*.json`` scan can never pick up.

    The original name is shortened when needed so that the temp name fits in NAME_MAX bytes.
    """
    tail = f".{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"
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


def symlink_below(path: Path, root: Path) -> Path | None:
    """The first symbolic link among ``path`` and its folders strictly below ``root`` (None if none).

    Writes never go through such a link: it may point anywhere, even outside the library.
    """
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    current = root
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


# ---------------------------------------------------------------- writing


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_fsynced(path: Path, data: bytes) -> None:
    """Create ``path`` (it must not exist), write, fsync."""
    with open(path, "xb") as handle:
        checkpoint()
        handle.write(data)
        handle.flush()
        checkpoint()
        os.fsync(handle.fileno())
    checkpoint()


def _make_parents(folder: Path) -> None:
    missing: list[Path] = []
    current = folder
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir()
        checkpoint()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same folder, fsync, rename."""
    _make_parents(path.parent)
    tmp = temp_path_for(path)
    try:
        _write_fsynced(tmp, data)
        os.replace(tmp, path)
        checkpoint()
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data`` and fsync it (no rename: for files only a journal points to)."""
    _write_fsynced(path, data)


class NotRegularFile(OSError):
    """A path that is not a plain file (a FIFO, device, socket or folder): never read or replaced."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{path}: is a {kind}, not a regular file")
        self.path = path
        self.kind = kind


def file_kind(mode: int) -> str:
    """A readable name for what ``mode`` (``st_mode``) describes."""
    for test, name in ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "named pipe (FIFO)"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISLNK, "symbolic link")):
        if test(mode):
            return name
    return "regular file" if stat.S_ISREG(mode) else "special file"


def read_regular(path: Path) -> bytes:
    """The bytes of ``path``, which must be a regular file (a symlink to one is followed).

    Opened non-blocking and checked with ``fstat`` before reading, so a FIFO, device or socket
    planted in a library raises :class:`NotRegularFile` at once instead of blocking forever.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFile(path, "folder") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path, file_kind(info.st_mode))
        with open(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def is_regular(path: Path) -> bool:
    """True when ``path`` is a regular file (following symlinks), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_or_none(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist; :class:`NotRegularFile` for a FIFO,
    device, socket or folder (never blocks)."""
    try:
        return read_regular(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def remove_empty_parents(folder: Path, stop_at: Path) -> None:
    """Remove ``folder`` and its parents while they are empty, up to (not including) ``stop_at``."""
    parent = folder
    while parent != stop_at and stop_at in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        checkpoint()
        parent = parent.parent


def remove_file(path: Path, stop_at: Path) -> None:
    """Delete ``path`` and then any parent folders it left empty, up to (not including) ``stop_at``."""
    path.unlink()
    checkpoint()
    _fsync_dir(path.parent)
    remove_empty_parents(path.parent, stop_at)


def remove_tree(folder: Path, first: str | None = None, last: str | None = None) -> None:
    """Remove a folder of plain files (a journal entry), ``first`` before the others and ``last``
    after them. A symbolic link is removed, never followed."""
    if first is not None:
        with contextlib.suppress(FileNotFoundError):
            (folder / first).unlink()
            checkpoint()
    try:
        if stat.S_ISLNK(folder.lstat().st_mode):
            folder.unlink()
            return
        entries = sorted(os.scandir(folder), key=lambda e: e.name == last)
    except FileNotFoundError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            remove_tree(path)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        checkpoint()
    with contextlib.suppress(FileNotFoundError):
        folder.rmdir()
    checkpoint()


# ---------------------------------------------------------------- conflict-checked writes

_NO_LINKS = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


def replace_checked(path: Path, expected: bytes | None, data: bytes | None, stop_at: Path) -> None:
    """Make ``path`` hold ``data`` (None: delete it) only if it holds ``expected`` (None: absent).

    Raises :class:`ChangedOnDisk` (nothing changed, or the other writer's version put back) when
    the file is not as expected, including a write by someone else that lands during the swap.
    Deleting removes parent folders left empty, up to ``stop_at``.
    """
    if data is None:
        if expected is None:
            if path.exists():
                raise ChangedOnDisk(path, "exists (expected absent)")
            return
        _delete_checked(path, expected, stop_at)
    elif expected is None:
        _create_exclusive(path, data)
    else:
        _swap_checked(path, expected, data)


def _create_exclusive(path: Path, data: bytes) -> None:
    """Create ``path`` atomically, failing when it already exists (hard link of a complete temp)."""
    _make_parents(path.parent)
    tmp = temp_path_for(path)
    try:
        _write_fsynced(tmp, data)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise ChangedOnDisk(path, "was created by someone else") from None
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            if path.exists():  # no hard links here: check, then rename (a tiny window)
                raise ChangedOnDisk(path, "was created by someone else") from None
            os.replace(tmp, path)
        checkpoint()
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    checkpoint()
    _fsync_dir(path.parent)


def _swap_checked(path: Path, expected: bytes, data: bytes) -> None:
    """Replace ``path`` only if it holds ``expected``: an atomic exchange where the system has one
    (what was swapped out is then exactly what is checked), else the hard-link method."""
    current = read_or_none(path)
    if current is None:
        raise ChangedOnDisk(path, "was deleted by someone else")
    if current != expected:
        raise ChangedOnDisk(path)
    tmp = temp_path_for(path)
    try:
        _write_fsynced(tmp, data)
        if exchange_supported(path.parent) and _swap_by_exchange(path, tmp, expected):
            return
        _swap_by_link(path, tmp, expected, data)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _swap_by_exchange(path: Path, tmp: Path, expected: bytes) -> bool:
    """Exchange ``tmp`` (our new file) with ``path``, then check what came out; on a mismatch the
    other writer's file goes back (False: the exchange is not available here after all).

    A writer that renames its file into place before the exchange has its file swapped out and
    put back; one that renames after it replaces ours, as it would without us. Nothing it saved
    is ever lost, however it saves.
    """
    ours = os.lstat(tmp)
    try:
        exchange(tmp, path)
    except OSError as exc:
        if exc.errno in _NO_EXCHANGE:
            _exchange_unsupported.add(os.lstat(path.parent).st_dev)
            return False
        if exc.errno == errno.ENOENT:
            raise ChangedOnDisk(path, "was deleted by someone else") from None
        raise
    checkpoint()
    try:
        out = read_regular(tmp)
    except OSError:
        out = None
    if out == expected:
        _fsync_dir(path.parent)
        return True
    _put_back(path, tmp, (ours.st_dev, ours.st_ino))
    raise ChangedOnDisk(path, "was written by someone else while saving")


def _put_back(path: Path, tmp: Path, displaced: tuple[int, int], tries: int = 1000) -> None:
    """Exchange the other writer's file in ``tmp`` back into ``path``, where ``displaced`` (ours)
    should be. If a newer file was renamed over ours meanwhile, the exchange brings that one out
    instead: it goes back in, and so on until what comes out is the file we put in last (each
    round only ever swaps out a version older than the one it puts in)."""
    for _ in range(tries):
        put_in = os.lstat(tmp)
        exchange(tmp, path)
        checkpoint()
        out = os.lstat(tmp)
        if (out.st_dev, out.st_ino) == displaced:
            return
        displaced = (put_in.st_dev, put_in.st_ino)
    raise ChangedOnDisk(path, "is being replaced continuously by another writer")


def _swap_by_link(path: Path, tmp: Path, expected: bytes, data: bytes) -> None:
    """The fallback without an atomic exchange: keep the old file hard-linked, replace, re-check."""
    old = temp_path_for(path)  # the replaced file, kept to verify nobody wrote into it meanwhile
    try:
        try:
            os.link(path, old)
            linked = True
        except FileNotFoundError:
            raise ChangedOnDisk(path, "was deleted by someone else") from None
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            linked = False
        checkpoint()
        current = read_regular(old) if linked else read_or_none(path)
        if current != expected:
            raise ChangedOnDisk(path)
        os.replace(tmp, path)
        checkpoint()
        if linked and read_regular(old) != expected:
            # Written into while we swapped: put the other writer's file back (unless it has
            # already replaced ours too), and report the conflict.
            if read_or_none(path) == data:
                os.replace(old, path)
                checkpoint()
            raise ChangedOnDisk(path, "was written by someone else while saving")
    finally:
        with contextlib.suppress(OSError):
            old.unlink()
    checkpoint()
    _fsync_dir(path.parent)


# ---------------------------------------------------------------- atomic exchange of two names

_NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EXDEV}
_exchange_unsupported: set[int] = set()  # st_dev of file systems that refused an exchange
_exchange_fn: Any = None


def _exchange_call() -> Any:
    """The C function that swaps two names atomically: Linux ``renameat2(RENAME_EXCHANGE)``, macOS
    ``renamex_np(RENAME_SWAP)``; None elsewhere (Windows)."""
    global _exchange_fn
    if _exchange_fn is None:
        _exchange_fn = False
        if sys.platform.startswith("linux") or sys.platform == "darwin":
            import ctypes
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
                fn = libc.renamex_np
                fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
                _exchange_fn = lambda a, b: fn(a, b, 0x2)  # noqa: E731 - RENAME_SWAP
            elif hasattr(libc, "renameat2"):
                fn = libc.renameat2
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                _exchange_fn = lambda a, b: fn(-100, a, -100, b, 0x2)  # noqa: E731 - AT_FDCWD, EXCHANGE
    return _exchange_fn or None


def exchange_supported(folder: Path) -> bool:
    """Whether :func:`exchange` may work in ``folder`` (not yet refused by its file system)."""
    if _exchange_call() is None:
        return False
    try:
        return os.lstat(folder).st_dev not in _exchange_unsupported
    except OSError:
        return False


def exchange(a: Path, b: Path) -> None:
    """Swap the two names atomically (both must exist); OSError with the system's errno."""
    import ctypes

    call = _exchange_call()
    if call is None:
        raise OSError(errno.ENOSYS, "atomic exchange is not available on this system")
    if call(os.fsencode(a), os.fsencode(b)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{os.strerror(code)}: exchanging {a} and {b}")


def _delete_checked(path: Path, expected: bytes, stop_at: Path) -> None:
    aside = temp_path_for(path)
    try:
        os.rename(path, aside)  # atomic: from here on, nobody else can write into this file
    except FileNotFoundError:
        raise ChangedOnDisk(path, "was already deleted by someone else") from None
    checkpoint()
    try:
        if aside.read_bytes() != expected:
            try:
                os.link(aside, path)  # put it back unless someone created the file again
            except FileExistsError:
                pass
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                if not path.exists():
                    os.replace(aside, path)
            raise ChangedOnDisk(path)
    finally:
        with contextlib.suppress(OSError):
            aside.unlink()
    checkpoint()
    _fsync_dir(path.parent)
    remove_empty_parents(path.parent, stop_at)
