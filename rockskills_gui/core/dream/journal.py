"""Crash-safe multi-file transactions for the skills folder, journaled outside it.

A transaction lives in ``<agent>/.rockskills/journal/<id>/``: the bytes of every file before and
after (``N.before`` / ``N.after``, never ``*.json``) and ``journal.json`` with the list of files and
a state. Order of work: blobs, then ``journal.json`` as *prepared*, then each file (atomic rename
or removal), then the state *committed*. A transaction found *prepared* when the library is next
opened was interrupted: :func:`recover` completes it (default) or rolls it back, file by file,
touching only files that are still in the before or after state. Committed transactions stay as
the undo record of what they changed.

This module does not import :mod:`rockskills_gui.core.library` (the library calls :func:`recover`
when it opens).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from rockskills_gui.core import fileio
from rockskills_gui.core.changes import FileChange, LibraryError
from rockskills_gui.core.stores.rockbot import Layout

from .fingerprint import sha256

JOURNAL_DIR = Path(".rockskills") / "journal"
JOURNAL_FILE = "journal.json"
JOURNAL_FORMAT = "rockskills-journal"
KEEP_FINISHED = 20


class TxState(StrEnum):
    PREPARED = "prepared"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled-back"
    UNDONE = "undone"


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

    def to_json(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT, "version": 1, "id": self.id, "kind": self.kind,
            "label": self.label, "state": self.state.value, "createdAt": self.created_at,
            "undoes": self.undoes, "undoneBy": self.undone_by, "meta": self.meta, "notes": self.notes,
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
                   data.get("undoes"), data.get("undoneBy"), list(data.get("notes") or []))

    def save(self) -> None:
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        fileio.atomic_write(self.folder / JOURNAL_FILE, text.encode("utf-8"))

    def blob(self, name: str | None) -> bytes | None:
        return None if name is None else (self.folder / name).read_bytes()


def journal_root(agent_dir: Path) -> Path:
    return Path(agent_dir) / JOURNAL_DIR


def _new_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + "-" + secrets.token_hex(3)


def _is_inside(path: Path, folder: Path) -> bool:
    return folder in path.parents


def _apply_bytes(layout: Layout, path: Path, data: bytes | None) -> None:
    if data is None:
        if path.exists():
            fileio.remove_file(path, layout.skills_dir)
    else:
        fileio.atomic_write(path, data)


def prepare(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
            meta: dict[str, Any] | None = None, undoes: str | None = None) -> Transaction:
    """Write the blobs and a *prepared* ``journal.json``; nothing in ``skills/`` is touched yet."""
    for change in changes:
        if not _is_inside(change.path, layout.skills_dir):
            raise LibraryError(f"refusing to write outside the skills folder: {change.path}")
    tx_id = _new_id()
    folder = journal_root(layout.agent_dir) / tx_id
    folder.mkdir(parents=True)
    files: list[TxFile] = []
    for index, change in enumerate(changes):
        before = after = None
        if change.before is not None:
            before = f"{index}.before"
            fileio.atomic_write(folder / before, change.before)
        if change.after is not None:
            after = f"{index}.after"
            fileio.atomic_write(folder / after, change.after)
        files.append(TxFile(layout.display_path(change.path), before, after, sha256(change.before),
                            sha256(change.after)))
    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    tx = Transaction(folder, tx_id, kind, label, TxState.PREPARED,
                     datetime.now(UTC).isoformat(), files, {**(meta or {}), "owner": owner}, undoes)
    tx.save()
    return tx


def run(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
        meta: dict[str, Any] | None = None, undoes: str | None = None,
        crash_after: int | None = None) -> Transaction:
    """Prepare, write every file, commit. On an OSError the files already written are put back
    and the transaction is marked rolled back (LibraryError). ``crash_after`` stops dead after that
    many file writes (tests of :func:`recover`)."""
    tx = prepare(layout, changes, kind, label, meta, undoes)
    if crash_after == 0:
        raise SimulatedCrash(tx.id)
    done: list[FileChange] = []
    try:
        for step, change in enumerate(changes, start=1):
            _apply_bytes(layout, change.path, change.after)
            done.append(change)
            if crash_after is not None and step >= crash_after:
                raise SimulatedCrash(tx.id)
    except OSError as exc:
        for change in reversed(done):
            with contextlib.suppress(OSError):
                _apply_bytes(layout, change.path, change.before)
        tx.state = TxState.ROLLED_BACK
        tx.notes.append(f"write failed: {exc}")
        with contextlib.suppress(OSError):
            tx.save()
        raise LibraryError(f"could not write {exc.filename or ''}: {exc.strerror or exc}; "
                           "the transaction was rolled back") from exc
    tx.state = TxState.COMMITTED
    tx.save()
    if tx.undoes:
        mark_undone(layout.agent_dir, tx.undoes, tx.id)
    prune_finished(layout.agent_dir)
    return tx


# ---------------------------------------------------------------- reading the journal


def transactions(agent_dir: Path) -> list[Transaction]:
    """Every readable transaction, oldest first."""
    root = journal_root(agent_dir)
    if not root.is_dir():
        return []
    found: list[Transaction] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            data = json.loads((folder / JOURNAL_FILE).read_text(encoding="utf-8"))
            found.append(Transaction.from_json(folder, data))
        except (OSError, ValueError, KeyError):
            continue
    return found


def _unfinished_folders(agent_dir: Path) -> list[Path]:
    """Transaction folders whose ``journal.json`` never got written (crash while preparing)."""
    root = journal_root(agent_dir)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not (p / JOURNAL_FILE).exists())


def has_pending(agent_dir: Path) -> bool:
    """True when a transaction was interrupted (recovery needed)."""
    return bool(_unfinished_folders(agent_dir)) or any(
        t.state is TxState.PREPARED for t in transactions(agent_dir))


def last_undoable(agent_dir: Path, kind: str = "apply") -> Transaction | None:
    """The most recent committed transaction of ``kind`` that was not undone."""
    for tx in reversed(transactions(agent_dir)):
        if tx.kind == kind and tx.state is TxState.COMMITTED:
            return tx
    return None


def mark_undone(agent_dir: Path, tx_id: str, by: str) -> None:
    for tx in transactions(agent_dir):
        if tx.id == tx_id:
            tx.state = TxState.UNDONE
            tx.undone_by = by
            tx.save()


def prune_finished(agent_dir: Path, keep: int = KEEP_FINISHED) -> None:
    """Drop the oldest finished transactions beyond ``keep`` (never a prepared one)."""
    finished = [t for t in transactions(agent_dir) if t.state is not TxState.PREPARED]
    for tx in finished[:-keep] if keep else finished:
        shutil.rmtree(tx.folder, ignore_errors=True)


# ---------------------------------------------------------------- recovery


@dataclass
class RecoveryReport:
    """What :func:`recover` did: transactions completed, rolled back or discarded, and files it
    left alone because someone else changed them."""

    completed: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.completed or self.rolled_back or self.discarded or self.conflicts)

    def lines(self) -> list[str]:
        return ([f"completed an interrupted change ({t})" for t in self.completed]
                + [f"rolled back an interrupted change ({t})" for t in self.rolled_back]
                + [f"discarded an unfinished journal entry ({t})" for t in self.discarded]
                + [f"left alone (changed by someone else): {p}" for p in self.conflicts])


def recover(layout: Layout, policy: str = "complete") -> RecoveryReport:
    """Finish every interrupted transaction: ``complete`` writes the after state, ``rollback`` the
    before state. A file in neither state was changed by someone else and is left as it is. A
    transaction still owned by a live process on this machine is left to that process."""
    if policy not in ("complete", "rollback"):
        raise ValueError("policy must be 'complete' or 'rollback'")
    report = RecoveryReport()
    for folder in _unfinished_folders(layout.agent_dir):
        shutil.rmtree(folder, ignore_errors=True)
        report.discarded.append(folder.name)
    for tx in transactions(layout.agent_dir):
        if tx.state is not TxState.PREPARED or _in_progress(tx):
            continue
        forward = policy == "complete"
        for entry in tx.files:
            path = layout.agent_dir / entry.path
            current = sha256(fileio.read_or_none(path))
            wanted_sha, wanted = ((entry.after_sha, entry.after) if forward
                                  else (entry.before_sha, entry.before))
            other_sha = entry.before_sha if forward else entry.after_sha
            if current == wanted_sha:
                continue
            if current != other_sha:
                report.conflicts.append(entry.path)
                tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
                continue
            _apply_bytes(layout, path, tx.blob(wanted))
        tx.state = TxState.COMMITTED if forward else TxState.ROLLED_BACK
        tx.notes.append(f"recovered ({policy}) at next open")
        tx.save()
        (report.completed if forward else report.rolled_back).append(tx.id)
        if forward and tx.undoes:
            mark_undone(layout.agent_dir, tx.undoes, tx.id)
    return report


def _in_progress(tx: Transaction) -> bool:
    """True when another live process on this machine owns the transaction (still writing it)."""
    owner = tx.meta.get("owner") or {}
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid == os.getpid() or owner.get("host") != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def recover_if_needed(layout: Layout) -> RecoveryReport | None:
    """:func:`recover` when a transaction is pending, else None (cheap: one folder listing)."""
    if not journal_root(layout.agent_dir).is_dir() or not has_pending(layout.agent_dir):
        return None
    return recover(layout)


def changes_of(tx: Transaction, layout: Layout, inverse: bool = False) -> list[FileChange]:
    """The transaction's file changes (or their inverse, for undo), with paths made absolute."""
    changes = [FileChange(layout.agent_dir / f.path, tx.blob(f.before), tx.blob(f.after))
               for f in tx.files]
    return [c.inverse() for c in reversed(changes)] if inverse else changes


def states_of(tx: Transaction, layout: Layout) -> Iterable[tuple[TxFile, str | None]]:
    """Each file of ``tx`` with the sha256 it has on disk now."""
    for entry in tx.files:
        yield entry, sha256(fileio.read_or_none(layout.agent_dir / entry.path))


