"""Atomic and conflict-checked file writes, reads that refuse non-regular files, careful removal.

:func:`replace_checked` is the writer for files a running agent may write at the same time: it
replaces (or deletes) a file only when it still holds the expected bytes, and loses no version of
an agent that saves in place (RockBot opens the path, then truncates and writes: its write goes
into whichever file the path named when it opened it). The file is pinned while it is checked and
swapped (:mod:`.open_writers`: on Linux a lease tells that a writer holds it open, or opens it
meanwhile, and makes that writer wait for us), and whatever the swap brings out is compared by its
bytes, not by its inode: the other writer's newest version always ends up at the path.

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


def same_file(a: Path, b: Path) -> bool:
    """True when both paths name one file (e.g. two spellings on a case-insensitive file system);
    a symbolic link at either is not followed."""
    try:
        return os.path.samestat(os.lstat(a), os.lstat(b))
    except (OSError, ValueError):
        return False


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
        except FileNotFoundError:
            pass  # gone already (a crash between two removals): its parent may be empty too
        except OSError:
            break
        else:
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
    exchange where the system has one, else hard links and renames) while both files are pinned
    (:func:`open_writers.pinned`: a writer opening either meanwhile waits, and is seen), and what
    came out is checked; if another writer wrote into it or opened it, the newest version is
    left at the path (:func:`_settle`) and the save is refused."""
    tmp = temp_path_for(path)
    try:
        _write_fsynced(tmp, data)
        with open_writers.pinned(path) as old, open_writers.pinned(tmp) as new:
            if old is None:
                raise ChangedOnDisk(path, "was deleted by someone else")
            if old.look.data != expected:
                if old.look.data is None:
                    read_regular(path)  # NotRegularFile says what it is
                raise ChangedOnDisk(path)
            if old.look.held:
                raise _refusal(path, True)
            assert new is not None
            checkpoint("pinned")
            try:
                _swap(tmp, path)
            except _NoLinks:  # neither an exchange nor hard links here: rename (a tiny window)
                os.replace(tmp, path)
                checkpoint()
                _fsync_dir(path.parent)
                return
            checkpoint("swapped")
            with contextlib.ExitStack() as more_pins:
                kept = _settle(path, tmp, {new: data, old: expected}, new, old, more_pins)
            if kept is None:
                _fsync_dir(path.parent)
                return
        raise _refusal(path, kept)
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


_FOREIGN = object()  # what a file another writer renamed into place held when it "went in": unknown


def _touched(pin: open_writers.Pinned, since: object) -> bool:
    """Written into, or opened for writing, since it held ``since``."""
    return pin.opened_since() or pin.read_now() != since


def _settle(path: Path, tmp: Path, went_in: dict[open_writers.Pinned, object],
            at_path: open_writers.Pinned, at_tmp: open_writers.Pinned,
            more_pins: contextlib.ExitStack, tries: int = 1000) -> bool | None:
    """After our swap, leave the other writer's newest version at ``path``; what is at ``tmp`` then
    goes (unlinked while still pinned). None: our save stands (the old file was untouched);
    True/False: refused, the other writer had the old file open / wrote into it.

    ``went_in``: each pinned file's bytes when it last went in at the path (the old one's: the
    expected bytes). A file that came out touched during its turn at the path holds the other
    writer's newest version (a single sequential writer's write into the file it opened after a
    swap is newer than one into the file it opened before), so it goes back, and what comes out
    then is checked the same way. A writer that opens a pinned file waits for us (the lease), so
    the file it is opening at the path stays there; a file a rename-writer put at the path is
    newer than ours and goes back too."""
    old, expected = at_tmp, went_in[at_tmp]
    for _ in range(tries):
        came = os.lstat(tmp)
        if (came.st_dev, came.st_ino) != at_tmp.look.ident:
            foreign = more_pins.enter_context(open_writers.pinned(tmp))  # a rename-writer's file
            if foreign is None:
                return old.opened_since()
            went_in[foreign] = _FOREIGN  # never ours: newer than the file it replaced
            at_tmp = foreign
        if at_path.opened_since() or not _touched(at_tmp, went_in[at_tmp]):
            break
        went_in[at_tmp] = at_tmp.read_now()
        try:
            _swap(tmp, path)
        except (ChangedOnDisk, _NoLinks):  # the path was deleted meanwhile: it goes back
            with contextlib.suppress(OSError):
                os.link(tmp, path)
            return old.opened_since()
        checkpoint("put back")
        at_path, at_tmp = at_tmp, at_path
    else:
        raise ChangedOnDisk(path, "is being replaced continuously by another writer")
    untouched = at_tmp is old and went_in[old] == expected and not _touched(old, expected)
    with contextlib.suppress(OSError):
        tmp.unlink()  # (still pinned: a writer opening it now waits, then finds it gone)
    return None if untouched else old.opened_since()


def _refusal(path: Path, opened: bool) -> ChangedOnDisk:
    if opened:
        return ChangedOnDisk(path, "is open for writing in another program (a running agent may be "
                                   "saving it)")
    return ChangedOnDisk(path, "was written by someone else while saving")


def _delete_checked(path: Path, expected: bytes, stop_at: Path) -> None:
    """Delete ``path`` only if it holds ``expected``: pinned, checked, moved aside (from then on
    nobody can open it by its name) and checked again; one written into or opened for writing
    goes back, unless the other writer has since saved the file anew (that version is newer)."""
    aside = temp_path_for(path)
    with open_writers.pinned(path) as old:
        if old is None:
            raise ChangedOnDisk(path, "was already deleted by someone else")
        if old.look.data != expected:
            raise ChangedOnDisk(path)
        if old.look.held:
            raise _refusal(path, True)
        checkpoint("pinned")
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            raise ChangedOnDisk(path, "was already deleted by someone else") from None
        checkpoint("moved aside")
        try:
            if _touched(old, expected):
                try:
                    os.link(aside, path)  # put it back unless someone created the file again
                except FileExistsError:
                    pass
                except OSError as exc:
                    if exc.errno not in _NO_LINKS:
                        raise
                    if not path.exists():
                        os.replace(aside, path)
                raise _refusal(path, old.opened_since()) if old.opened_since() \
                    else ChangedOnDisk(path)
        finally:
            with contextlib.suppress(OSError):
                aside.unlink()  # (while pinned)
    checkpoint()
    _fsync_dir(path.parent)
    remove_empty_parents(path.parent, stop_at)
