"""Atomic and conflict-checked file writes, reads that refuse non-regular files, careful removal.

:func:`replace_checked` is the writer for files a running agent may write at the same time: it
replaces (or deletes) a file only when it still holds the expected bytes, and notices an agent
write that lands between that check and the swap (RockBot truncates and rewrites files in place,
so such a write goes into the old file, which we keep hard-linked until the swap is verified).

Temp file names live in :mod:`.tempfiles`, the fault-injection crash hook in :mod:`.crash_hook`,
the atomic exchange of two names in :mod:`.atomic_exchange`; their names are re-exported here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from rockskills_gui.core.model.size_limits import too_large
from rockskills_gui.core.storage.atomic_exchange import NO_EXCHANGE, mark_unsupported
from rockskills_gui.core.storage.atomic_exchange import exchange as exchange
from rockskills_gui.core.storage.atomic_exchange import exchange_supported as exchange_supported
from rockskills_gui.core.storage.crash_hook import CRASH_ENV as CRASH_ENV
from rockskills_gui.core.storage.crash_hook import arm_crash as arm_crash
from rockskills_gui.core.storage.crash_hook import checkpoint as checkpoint
from rockskills_gui.core.storage.crash_hook import steps as steps
from rockskills_gui.core.storage.tempfiles import NAME_MAX as NAME_MAX
from rockskills_gui.core.storage.tempfiles import TEMP_SUFFIX as TEMP_SUFFIX
from rockskills_gui.core.storage.tempfiles import is_temp_name as is_temp_name
from rockskills_gui.core.storage.tempfiles import process_alive as process_alive
from rockskills_gui.core.storage.tempfiles import remove_stale_temps as remove_stale_temps
from rockskills_gui.core.storage.tempfiles import stale_temp as stale_temp
from rockskills_gui.core.storage.tempfiles import temp_owner as temp_owner
from rockskills_gui.core.storage.tempfiles import temp_path_for as temp_path_for


class ChangedOnDisk(Exception):
    """The file did not hold the expected bytes (someone else wrote or removed it); ``path``."""

    def __init__(self, path: Path, message: str = "changed on disk") -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


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


READ_CHUNK = 1 << 20  # what read_regular asks for after the size it saw


class NotRegularFile(OSError):
    """A path that is not a plain file (a FIFO, device, socket or folder): never read or replaced."""

    def __init__(self, path: Path | str, kind: str) -> None:
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


class TooLarge(OSError):
    """A regular file larger than the caller's limit (see ``core/model/size_limits``): not read."""

    def __init__(self, path: Path | str, size: int, limit: int, what: str = "not read") -> None:
        self.reason = too_large(size, limit, what)
        super().__init__(errno.EFBIG, self.reason)
        self.filename = os.fspath(path)
        self.size = size
        self.limit = limit


def open_regular(path: Path | str, limit: int | None = None) -> tuple[int, int]:
    """``(descriptor, size)`` of ``path`` opened for reading, which must be a regular file (a
    symlink to one is followed) no larger than ``limit`` bytes (None: any size).

    Opened non-blocking and checked with ``fstat`` before anything is read, so a FIFO, device or
    socket planted in a library raises :class:`NotRegularFile` at once instead of blocking
    forever (a link to ``/dev/zero`` never starts an endless read), and a file over ``limit``
    raises :class:`TooLarge`. The caller closes the descriptor.
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
        if limit is not None and info.st_size > limit:
            raise TooLarge(path, info.st_size, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (see :func:`open_regular`:
    :class:`NotRegularFile` for a FIFO, device, socket or folder, :class:`TooLarge` for a file
    over ``limit``, also one that grows past it while being read)."""
    fd, size = open_regular(path, limit)
    try:
        # Read to the end with plain reads (no file object: a tenth of a 10,000-file open): the
        # size the file has (and a byte more), then until a read gives nothing, in case it grew.
        parts = [os.read(fd, size + 1)]
        total = len(parts[0])
        while parts[-1]:
            if limit is not None and total > limit:
                raise TooLarge(path, total, limit)
            parts.append(os.read(fd, READ_CHUNK if limit is None else min(READ_CHUNK, limit + 1 - total)))
            total += len(parts[-1])
        return parts[0] if len(parts) == 2 else b"".join(parts)
    finally:
        os.close(fd)


def read_head(path: Path | str, limit: int) -> tuple[bytes, int]:
    """The first ``limit`` bytes of the regular file ``path`` (at most; fewer at its end) and its
    size: for showing the start of a file that may be huge (never blocks, see :func:`open_regular`)."""
    fd, size = open_regular(path)
    try:
        parts: list[bytes] = []
        got = 0
        while got < limit and (part := os.read(fd, min(READ_CHUNK, limit - got))):
            parts.append(part)
            got += len(part)
        return b"".join(parts), max(size, got)
    finally:
        os.close(fd)


def is_regular(path: Path) -> bool:
    """True when ``path`` is a regular file (following symlinks), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_or_none(path: Path, limit: int | None = None) -> bytes | None:
    """The file's bytes, or None when it does not exist; :class:`NotRegularFile` for a FIFO,
    device, socket or folder (never blocks), :class:`TooLarge` beyond ``limit`` bytes."""
    try:
        return read_regular(path, limit)
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
        if exc.errno in NO_EXCHANGE:
            mark_unsupported(path.parent)
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
