"""What makes a journal entry ours: a per-user key outside every library, and a writer lock.

A library is untrusted input: a folder can arrive (git clone, zip, shared drive) with a planted
``.rockskills/journal/`` entry that asks recovery to write anywhere. So every entry this user's
app writes is sealed with an HMAC-SHA256 under a random key kept in the user's data folder (mode
0600, never inside a library), bound to the real path of the library that holds it. Recovery and
undo act only on entries whose seal verifies; anything else is reported and left untouched.

Whether the writer of an unfinished entry is still at work is decided by a lock, not by a process
id (ids are reused, and a reboot makes any old id look alive or dead at random): the writer holds
an exclusive ``flock`` on the entry's ``owner`` file while it writes. The kernel drops the lock when
the process ends, however it ends, so a lock that can be taken means the writer is gone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import threading
from pathlib import Path
from typing import Any

from rockskills_gui.core.storage import appdirs
from rockskills_gui.core.storage.file_lock import try_lock as _try_lock

KEY_FILE = "journal.key"
KEY_BYTES = 32
OWNER_FILE = "owner"  # never *.json: RockBot loads every skills/**/*.json (the journal is outside)
_DOMAIN = b"rockskills-journal-seal-v1\0"

_key_lock = threading.Lock()
_memory_key: bytes | None = None  # when no key file can be kept, entries are trusted for this run only


def key_path() -> Path:
    return appdirs.data_dir() / KEY_FILE


def _read_key(path: Path) -> bytes | None:
    """The key in ``path`` when it is a regular file of ours that only we can read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            return None  # someone else could have written or read it: not a secret any more
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else None


def _create_key(path: Path) -> bytes | None:
    key = secrets.token_bytes(KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def user_key() -> bytes:
    """This user's journal key: read, or created once (0600); in memory when no file works."""
    global _memory_key
    with _key_lock:
        path = key_path()
        key = _read_key(path)
        if key is None and not path.exists():
            key = _create_key(path) or _read_key(path)  # a racing process may have created it
        if key is None:
            if _memory_key is None:
                _memory_key = secrets.token_bytes(KEY_BYTES)
            key = _memory_key
        return key


def _library_id(home: Path) -> bytes:
    """The real path of the folder the journal belongs to (a copy elsewhere does not verify)."""
    return os.fsencode(os.path.realpath(home))


def seal(home: Path, data: dict[str, Any]) -> str:
    """The seal of a journal entry's JSON (every key but ``seal``) for the library at ``home``."""
    body = {k: v for k, v in data.items() if k != "seal"}
    canonical = json.dumps(body, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(user_key(), _DOMAIN + _library_id(home) + b"\0" + canonical, hashlib.sha256).hexdigest()


def verify(home: Path, data: dict[str, Any]) -> bool:
    given = data.get("seal")
    return isinstance(given, str) and hmac.compare_digest(given, seal(home, data))


def owner_token(home: Path, tx_id: str) -> bytes:
    """What the ``owner`` file of a transaction holds: proof that this user's app created it."""
    return seal(home, {"owner": tx_id}).encode() + b"\n"


# ---------------------------------------------------------------- the writer's lock


class WriterLock:
    """An exclusive lock on a transaction's ``owner`` file, held while the transaction is written."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing drops the flock
            self._fd = None


def create_owner(folder: Path, home: Path, tx_id: str) -> WriterLock:
    """Lock and write ``folder/owner`` (complete before it appears: written aside, then renamed)."""
    aside = folder / f".{OWNER_FILE}.{secrets.token_hex(4)}.rsg-tmp"
    fd = os.open(aside, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        if not _try_lock(fd):
            raise OSError(errno.EWOULDBLOCK, f"{aside}: locked by another process")
        os.write(fd, owner_token(home, tx_id))
        os.fsync(fd)
        os.rename(aside, folder / OWNER_FILE)  # the lock stays with the open file
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            aside.unlink()
        raise
    return WriterLock(fd)


def owner_state(folder: Path, home: Path, tx_id: str) -> str:
    """``"ours"`` (sealed by this user, writer gone), ``"busy"`` (its writer still holds the lock),
    ``"missing"`` (no owner file) or ``"foreign"`` (not made by this user's app)."""
    path = folder / OWNER_FILE
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "foreign"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 256:
            return "foreign"
        token = os.read(fd, 256)
        if not hmac.compare_digest(token, owner_token(home, tx_id)):
            return "foreign"
        return "ours" if _try_lock(fd) else "busy"
    finally:
        os.close(fd)  # also drops the lock we just took
