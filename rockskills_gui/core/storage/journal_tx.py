"""One journal entry as stored: its files, state and blobs (see :mod:`.journal` for the whole story).

The entry lives in ``<agent>/.rockskills/journal/<id>/``; :class:`Transaction` reads and writes its
sealed ``journal.json`` and the bytes packed in ``blobs``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from rockskills_gui.core.storage import fileio, journal_seal
from rockskills_gui.core.storage.changes import FileChange, LibraryError
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.journal_paths import root_link
from rockskills_gui.core.storage.layout import Layout

JOURNAL_FILE = "journal.json"
JOURNAL_FORMAT = "rockskills-journal"
BLOBS_FILE = "blobs"
KEEP_FINISHED = 20
EPHEMERAL_KINDS = frozenset({"library"})  # removed once finished: the session's history undoes them


class TxState(StrEnum):
    PREPARED = "prepared"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled-back"
    UNDONE = "undone"


class UntrustedJournal(LibraryError):
    """A journal entry that this user's app did not write for this library (or that was altered)."""


class SimulatedCrash(BaseException):
    """Raised by ``crash_after`` (tests): the process 'dies' with the journal left as it is."""


@dataclass(frozen=True)
class TxFile:
    path: str  # relative to the agent directory, '/'-separated
    before: str | None  # blob name
    after: str | None
    before_sha: str | None
    after_sha: str | None


@dataclass
class Transaction:
    """One journaled transaction as read from (or written to) disk."""

    folder: Path
    id: str
    kind: str
    label: str
    state: TxState
    created_at: str
    files: list[TxFile]
    meta: dict[str, Any] = field(default_factory=dict)
    undoes: str | None = None
    undone_by: str | None = None
    notes: list[str] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)  # relative, parents first
    lock: journal_seal.WriterLock | None = field(default=None, repr=False, compare=False)

    @property
    def home(self) -> Path:
        """The folder whose ``.rockskills/journal/`` holds this entry (the seal binds to it)."""
        return self.folder.parent.parent.parent

    @property
    def ephemeral(self) -> bool:
        return self.kind in EPHEMERAL_KINDS

    def to_json(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT, "version": 1, "id": self.id, "kind": self.kind,
            "label": self.label, "state": self.state.value, "createdAt": self.created_at,
            "undoes": self.undoes, "undoneBy": self.undone_by, "meta": self.meta, "notes": self.notes,
            "createdDirs": self.created_dirs,
            "files": [{"path": f.path, "before": f.before, "after": f.after,
                       "beforeSha": f.before_sha, "afterSha": f.after_sha} for f in self.files],
        }

    @classmethod
    def from_json(cls, folder: Path, data: dict[str, Any]) -> Transaction:
        if data.get("format") != JOURNAL_FORMAT:
            raise ValueError("not a rockskills journal")
        files = [TxFile(f["path"], f.get("before"), f.get("after"), f.get("beforeSha"), f.get("afterSha"))
                 for f in data.get("files", [])]
        return cls(folder, data["id"], data.get("kind", "apply"), data.get("label", ""),
                   TxState(data["state"]), data.get("createdAt", ""), files, data.get("meta") or {},
                   data.get("undoes"), data.get("undoneBy"), list(data.get("notes") or []),
                   [str(d) for d in data.get("createdDirs") or []])

    def save(self) -> None:
        """Write ``journal.json``, sealed with this user's key for this library."""
        data = self.to_json()
        data["seal"] = journal_seal.seal(self.home, data)
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        fileio.atomic_write(self.folder / JOURNAL_FILE, text.encode("utf-8"))

    def release(self) -> None:
        """Drop the writer's lock (the process is done with this entry, or 'died' in a test)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def blob(self, name: str | None, sha: str | None = None) -> bytes | None:
        """A file's bytes: ``pack:<offset>:<length>`` in ``blobs``, or a blob file (older entries).

        With ``sha``, bytes whose sha256 differs raise :class:`UntrustedJournal` (never written)."""
        if name is None:
            return None
        packed = _PACKED.fullmatch(name)
        if packed:
            offset, length = int(packed[1]), int(packed[2])
            fd = os.open(self.folder / BLOBS_FILE, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0))
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise UntrustedJournal(f"{self.folder / BLOBS_FILE}: not a regular file")
                data = os.pread(fd, length, offset) if length else b""
            finally:
                os.close(fd)
            if len(data) != length:
                raise OSError(f"{self.folder / BLOBS_FILE}: truncated")
        elif _LEGACY_BLOB.fullmatch(name):
            data = fileio.read_regular(self.folder / name)
        else:
            raise UntrustedJournal(f"{self.folder.name}: unexpected blob name {name[:80]!r}")
        if sha is not None and sha256(data) != sha:
            raise UntrustedJournal(f"{self.folder.name}: the saved bytes of a file do not match "
                                   "their checksum (the journal was altered or damaged)")
        return data


_PACKED = re.compile(r"pack:(\d{1,15}):(\d{1,15})")
_LEGACY_BLOB = re.compile(r"\d{1,9}\.(?:before|after)")


def check_root(agent_dir: Path) -> None:
    odd = root_link(agent_dir)
    if odd is not None:
        raise LibraryError(f"refusing to use the journal folder {odd}: it is a symbolic link or not a "
                           "folder (it could point outside the library); remove it first")


def new_id() -> str:
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}-p{os.getpid()}-{secrets.token_hex(3)}"


def is_inside(path: Path, folder: Path) -> bool:
    return folder in path.parents



def changes_of(tx: Transaction, layout: Layout, inverse: bool = False) -> list[FileChange]:
    """The transaction's file changes (or their inverse, for undo), with paths made absolute."""
    changes = [FileChange(layout.agent_dir / f.path, tx.blob(f.before, f.before_sha),
                          tx.blob(f.after, f.after_sha)) for f in tx.files]
    return [c.inverse() for c in reversed(changes)] if inverse else changes


def states_of(tx: Transaction, layout: Layout) -> Iterable[tuple[TxFile, str | None]]:
    """Each file of ``tx`` with the sha256 it has on disk now."""
    for entry in tx.files:
        yield entry, sha256(fileio.read_or_none(layout.agent_dir / entry.path))


