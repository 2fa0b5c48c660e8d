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

from rockskills_gui.core.storage import open_writers
from rockskills_gui.core.storage.atomic_exchange import NO_EXCHANGE, mark_unsupported
from rockskills_gui.core.storage.atomic_exchange import exchange as exchange
from rockskills_gui.core.storage.atomic_exchange import exchange_supported as exchange_supported
from rockskills_gui.core.storage.crash_hook import CRASH_ENV as CRASH_ENV
from rockskills_gui.core.storage.crash_hook import arm_crash as arm_crash
from rockskills_gui.core.storage.crash_hook import checkpoint as checkpoint
from rockskills_gui.core.storage.crash_hook import set_checkpoint_hook as set_checkpoint_hook
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


def read_regular(path: Path | str) -> bytes:
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
        # Read to the end with plain reads (no file object: a tenth of a 10,000-file open): the
        # size the file has (and a byte more), then until a read gives nothing, in case it grew.
        parts = [os.read(fd, info.st_size + 1)]
        while parts[-1]:
            parts.append(os.read(fd, READ_CHUNK))
        return parts[0] if len(parts) == 2 else b"".join(parts)
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
    """Replace ``path`` only if it holds ``expected``: our new file is swapped in (an atomic
    exchange where the system has one, else hard links and renames) and what came out is checked;
    a file another writer wrote into or holds open goes back (:func:`_keep_newest`)."""
    current = read_or_none(path)
    if current is None:
        raise ChangedOnDisk(path, "was deleted by someone else")
    if current != expected:
        raise ChangedOnDisk(path)
    tmp = temp_path_for(path)
    try:
        _write_fsynced(tmp, data)
        ours = os.lstat(tmp)
        try:
            _swap(tmp, path)
        except _NoLinks:  # neither an exchange nor hard links here: check, then rename
            if read_or_none(path) != expected:
                raise ChangedOnDisk(path) from None
            os.replace(tmp, path)
            checkpoint()
            _fsync_dir(path.parent)
            return
        checkpoint("swapped")
        out = open_writers.look(tmp)
        if out is not None and out.data == expected and not out.held:
            _fsync_dir(path.parent)
            return
        _keep_newest(path, tmp, {(ours.st_dev, ours.st_ino): data}, out)
        raise _refusal(path, out, expected)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


class _NoLinks(Exception):
    """Neither an atomic exchange nor hard links on this file system."""


def _swap(tmp: Path, path: Path) -> None:
    """Put the file at ``tmp`` at ``path``, and the one that was at ``path`` at ``tmp``: an atomic
    exchange, or (a file system without one) a hard link of the old file, a rename over it, and
    the old one renamed to ``tmp`` (a rename-writer's save landing between the link and the
    rename is then replaced; an in-place writer loses nothing either way)."""
    if exchange_supported(path.parent):
        try:
            exchange(tmp, path)
            return
        except OSError as exc:
            if exc.errno == errno.ENOENT and tmp.exists():
                raise ChangedOnDisk(path, "was deleted by someone else") from None
            if exc.errno not in NO_EXCHANGE:
                raise
            mark_unsupported(path.parent)
    aside = temp_path_for(path)
    try:
        os.link(path, aside)
    except FileNotFoundError:
        raise ChangedOnDisk(path, "was deleted by someone else") from None
    except OSError as exc:
        if exc.errno in _NO_LINKS:
            raise _NoLinks from None
        raise
    try:
        checkpoint()
        os.replace(tmp, path)
        checkpoint()
        os.replace(aside, tmp)
    except BaseException:
        with contextlib.suppress(OSError):
            aside.unlink()
        raise


_HELD = object()  # the baseline of a file that was open for writing when it went in


def _keep_newest(path: Path, tmp: Path, baseline: dict[tuple[int, int], object],
                 out: open_writers.Look | None, tries: int = 1000) -> None:
    """After a refused swap, leave the other writer's newest version at ``path``.

    ``out`` (at ``tmp``) was written into or is held open by the other writer during its turn at
    the path, so it holds that writer's newest version: it goes back. What the swap brings out
    is checked the same way, against its bytes when it went in (``baseline``): our file, or one a
    rename-writer put there, that someone wrote into or opened for writing meanwhile is newer
    still (a single sequential writer's write into the file it opened after a swap is newer than
    one into the file it opened before) and goes back in turn, until what comes out is untouched
    and can go (it is removed with ``tmp``)."""
    for _ in range(tries):
        if out is None:
            return  # nothing at tmp to put back
        baseline[out.ident] = _HELD if out.held else out.data
        try:
            _swap(tmp, path)
        except ChangedOnDisk:  # the path was deleted meanwhile: the other version goes back
            with contextlib.suppress(OSError):
                os.link(tmp, path)
            return
        checkpoint("put back")
        came = open_writers.look(tmp)
        if came is None:
            return
        known = baseline.get(came.ident, _HELD)
        if not came.held and known is not _HELD and came.data == known:
            return
        out = came
    raise ChangedOnDisk(path, "is being replaced continuously by another writer")


def _refusal(path: Path, out: open_writers.Look | None, expected: bytes,
             otherwise: str = "was written by someone else while saving") -> ChangedOnDisk:
    if out is not None and out.held and out.data == expected:
        return ChangedOnDisk(path, "is open for writing in another program (a running agent may be "
                                   "saving it)")
    return ChangedOnDisk(path, otherwise)


def _delete_checked(path: Path, expected: bytes, stop_at: Path) -> None:
    """Delete ``path`` only if it holds ``expected``: moved aside (from then on nobody can open it
    by its name), then checked; one written into or held open for writing goes back, unless the
    other writer has since saved the file anew (that version is newer)."""
    aside = temp_path_for(path)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise ChangedOnDisk(path, "was already deleted by someone else") from None
    checkpoint("moved aside")
    try:
        out = open_writers.look(aside)
        if out is None or out.data != expected or out.held:
            try:
                os.link(aside, path)  # put it back unless someone created the file again
            except FileExistsError:
                pass
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                if not path.exists():
                    os.replace(aside, path)
            raise _refusal(path, out, expected, "changed on disk")
    finally:
        with contextlib.suppress(OSError):
            aside.unlink()
    checkpoint()
    _fsync_dir(path.parent)
    remove_empty_parents(path.parent, stop_at)
