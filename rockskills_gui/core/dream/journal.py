"""Crash-safe multi-file transactions for the skills folder, journaled outside it.

Every change to more than one skill file goes through here: the Library's own operations (rename
with see-also rewrite, delete, folder moves, their undo/redo; kind ``library``) and accepted dream
plans (kind ``apply``, and ``undo`` of them).

A transaction lives in ``<agent>/.rockskills/journal/<id>/``: the bytes of every file before and
after, packed into one ``blobs`` file (never ``*.json``; older entries kept ``N.before`` /
``N.after`` files, still read), and ``journal.json`` with the list of files, the folders the
transaction creates, and a state. Order of work: blobs (fsync), then ``journal.json`` as
*prepared*, then each file (conflict-checked atomic replace or removal, see
:func:`fileio.replace_checked`), then the state *committed*. A transaction found *prepared* when
the library is next opened was interrupted: :func:`recover` completes it (default) or rolls it back,
file by file, touching only files that are still in the before or after state, and removes the
folders it created or emptied. Committed ``apply``/``undo`` transactions stay as the undo record of
what they changed (the newest :data:`KEEP_FINISHED`); ``library`` ones are removed once finished.

This module does not import :mod:`rockskills_gui.core.library` (the library calls :func:`recover`
when it opens).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from rockskills_gui.core import fileio
from rockskills_gui.core.changes import ConflictError, FileChange, LibraryError
from rockskills_gui.core.stores.rockbot import Layout

from .fingerprint import sha256

JOURNAL_DIR = Path(".rockskills") / "journal"
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
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        fileio.atomic_write(self.folder / JOURNAL_FILE, text.encode("utf-8"))

    def blob(self, name: str | None) -> bytes | None:
        """A file's bytes: ``pack:<offset>:<length>`` in ``blobs``, or a blob file (older entries)."""
        if name is None:
            return None
        if name.startswith("pack:"):
            _, offset, length = name.split(":")
            with open(self.folder / BLOBS_FILE, "rb") as handle:
                handle.seek(int(offset))
                data = handle.read(int(length))
            if len(data) != int(length):
                raise OSError(f"{self.folder / BLOBS_FILE}: truncated")
            return data
        return (self.folder / name).read_bytes()


def journal_root(agent_dir: Path) -> Path:
    return Path(agent_dir) / JOURNAL_DIR


def _new_id() -> str:
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}-p{os.getpid()}-{secrets.token_hex(3)}"


def _is_inside(path: Path, folder: Path) -> bool:
    return folder in path.parents


def check_target(layout: Layout, path: Path) -> None:
    """Refuse a skill-file path outside ``skills/``, not normalised (``..``, ``.``), with a NUL,
    or reached through a symbolic link below ``skills/`` (which may point anywhere)."""
    text = str(path)
    if "\0" in text or not path.is_absolute() or os.path.normpath(text) != text \
            or not _is_inside(path, layout.skills_dir):
        raise LibraryError(f"refusing to write outside the skills folder: {text!r}")
    link = fileio.symlink_below(path, layout.skills_dir)
    if link is not None:
        raise LibraryError(f"refusing to write through the symbolic link {layout.display_path(link)} "
                           f"(it points to {os.readlink(link)}); edit the file it points to instead")


def _write(layout: Layout, path: Path, expected: bytes | None, data: bytes | None) -> None:
    fileio.replace_checked(path, expected, data, layout.skills_dir)


def _missing_dirs(layout: Layout, changes: Sequence[FileChange]) -> list[str]:
    """Folders below ``skills/`` that the after-state needs and that do not exist yet (parents first)."""
    missing: dict[str, None] = {}
    for change in changes:
        if change.after is None:
            continue
        chain: list[Path] = []
        folder = change.path.parent
        while folder != layout.skills_dir and _is_inside(folder, layout.skills_dir) \
                and not folder.is_dir():
            chain.append(folder)
            folder = folder.parent
        for directory in reversed(chain):
            missing.setdefault(layout.display_path(directory))
    return list(missing)


def prepare(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
            meta: dict[str, Any] | None = None, undoes: str | None = None) -> Transaction:
    """Write the blobs and a *prepared* ``journal.json``; nothing in ``skills/`` is touched yet."""
    for change in changes:
        check_target(layout, change.path)
    tx_id = _new_id()
    folder = journal_root(layout.agent_dir) / tx_id
    folder.mkdir(parents=True)
    fileio.checkpoint()
    files: list[TxFile] = []
    offset = 0
    with open(folder / BLOBS_FILE, "xb") as pack:
        fileio.checkpoint()
        for change in changes:
            names: list[str | None] = []
            for data in (change.before, change.after):
                if data is None:
                    names.append(None)
                    continue
                pack.write(data)
                names.append(f"pack:{offset}:{len(data)}")
                offset += len(data)
            files.append(TxFile(layout.display_path(change.path), names[0], names[1],
                                sha256(change.before), sha256(change.after)))
        pack.flush()
        fileio.checkpoint()
        os.fsync(pack.fileno())
    fileio.checkpoint()
    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    where = {"skillsDir": layout.display_path(layout.skills_dir)}  # recovery's bounds (several roots)
    tx = Transaction(folder, tx_id, kind, label, TxState.PREPARED, datetime.now(UTC).isoformat(),
                     files, {**(meta or {}), **where, "owner": owner}, undoes,
                     created_dirs=_missing_dirs(layout, changes))
    tx.save()
    return tx


def _remove_created_dirs(layout: Layout, tx: Transaction) -> None:
    """Remove the folders ``tx`` created, when empty (deepest first): the state before it."""
    for rel in reversed(tx.created_dirs):
        folder = layout.agent_dir / rel
        if _is_inside(folder, layout.skills_dir) and not folder.is_symlink():
            with contextlib.suppress(OSError):
                folder.rmdir()
                fileio.checkpoint()


def _finish(layout: Layout, tx: Transaction, state: TxState) -> None:
    """Record the final state; an ephemeral transaction's folder is removed instead."""
    tx.state = state
    if tx.ephemeral:
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE)
    else:
        tx.save()


def run(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
        meta: dict[str, Any] | None = None, undoes: str | None = None,
        crash_after: int | None = None) -> Transaction:
    """Prepare, write every file, commit.

    Each file is written only if it still holds its before bytes; if one does not (someone else
    changed it), or writing fails, the files already written are put back, the transaction is
    rolled back, and ConflictError / LibraryError is raised. ``crash_after`` stops dead after that
    many file writes (tests of :func:`recover`).
    """
    tx = prepare(layout, changes, kind, label, meta, undoes)
    if crash_after == 0:
        raise SimulatedCrash(tx.id)
    done: list[FileChange] = []
    try:
        for step, change in enumerate(changes, start=1):
            _write(layout, change.path, change.before, change.after)
            done.append(change)
            if crash_after is not None and step >= crash_after:
                raise SimulatedCrash(tx.id)
    except (OSError, fileio.ChangedOnDisk) as exc:
        for change in reversed(done):
            with contextlib.suppress(OSError, fileio.ChangedOnDisk):
                _write(layout, change.path, change.after, change.before)
        _remove_created_dirs(layout, tx)
        tx.notes.append(f"write failed: {exc}")
        with contextlib.suppress(OSError):
            _finish(layout, tx, TxState.ROLLED_BACK)
        if isinstance(exc, fileio.ChangedOnDisk):
            shown = layout.display_path(exc.path)
            raise ConflictError([exc.path], f"{shown} changed on disk while writing (a running agent "
                                            "may have written it); nothing was changed. Reload the "
                                            "library to see the new version.") from exc
        raise LibraryError(f"could not write {exc.filename or ''}: {exc.strerror or exc}; "
                           "the transaction was rolled back") from exc
    _finish(layout, tx, TxState.COMMITTED)
    if tx.undoes:
        mark_undone(layout.agent_dir, tx.undoes, tx.id)
    if not tx.ephemeral:
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


def _owner_of_id(tx_id: str) -> int | None:
    """The process id in a transaction id (``<time>-p<pid>-<hex>``; older ids have none)."""
    for part in tx_id.split("-"):
        if part.startswith("p") and part[1:].isdigit():
            return int(part[1:])
    return None


def _unfinished_folders(agent_dir: Path) -> list[Path]:
    """Transaction folders whose ``journal.json`` never got written (crash while preparing, or a
    finished ephemeral entry partly removed); one another live process is preparing is skipped."""
    root = journal_root(agent_dir)
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not (p / JOURNAL_FILE).exists()):
        pid = _owner_of_id(folder.name)
        if pid is not None and pid != os.getpid() and _pid_alive(pid):
            continue
        found.append(folder)
    return found


def _leftovers(agent_dir: Path) -> list[Transaction]:
    """Finished ephemeral transactions whose folder was not removed yet (a crash right after)."""
    return [t for t in transactions(agent_dir) if t.ephemeral and t.state is not TxState.PREPARED]


def has_pending(agent_dir: Path) -> bool:
    """True when a transaction was interrupted (recovery needed) or left something to clean up."""
    return bool(_unfinished_folders(agent_dir)) or any(
        t.state is TxState.PREPARED or t.ephemeral for t in transactions(agent_dir)) or bool(
        _journal_temps(agent_dir))


def _journal_temps(agent_dir: Path) -> list[Path]:
    """Temp files of an interrupted ``journal.json`` save inside kept transaction folders."""
    root = journal_root(agent_dir)
    if not root.is_dir():
        return []
    return [p for folder in root.iterdir() if folder.is_dir()
            for p in folder.iterdir() if fileio.is_temp_name(p.name)]


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
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE)


# ---------------------------------------------------------------- recovery


@dataclass
class RecoveryReport:
    """What :func:`recover` did: transactions completed, rolled back or discarded, and files it
    left alone because someone else changed them."""

    completed: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    removed_temps: list[str] = field(default_factory=list)  # left by a writer that crashed

    @property
    def empty(self) -> bool:
        return not (self.completed or self.rolled_back or self.discarded or self.conflicts
                    or self.removed_temps)

    def lines(self) -> list[str]:
        return ([f"completed an interrupted change ({t})" for t in self.completed]
                + [f"rolled back an interrupted change ({t})" for t in self.rolled_back]
                + [f"discarded an unfinished journal entry ({t})" for t in self.discarded]
                + [f"left alone (changed by someone else): {p}" for p in self.conflicts]
                + [f"removed a temporary file of an interrupted save: {p}"
                   for p in self.removed_temps])


def recover(layout: Layout, policy: str = "complete") -> RecoveryReport:
    """Finish every interrupted transaction: ``complete`` writes the after state, ``rollback`` the
    before state. A file in neither state was changed by someone else and is left as it is. A
    transaction still owned by a live process on this machine is left to that process. Folders
    are left as the finished (or never started) transaction would have left them, and journal
    leftovers (unfinished entries, finished ephemeral ones, temp files) are removed."""
    if policy not in ("complete", "rollback"):
        raise ValueError("policy must be 'complete' or 'rollback'")
    report = RecoveryReport()
    agent_dir = layout.agent_dir
    for folder in _unfinished_folders(agent_dir):
        fileio.remove_tree(folder)
        report.discarded.append(folder.name)
    for tx in _leftovers(agent_dir):
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE)
    for temp in _journal_temps(agent_dir):
        with contextlib.suppress(OSError):
            temp.unlink()
    home = layout
    for tx in transactions(agent_dir):
        if tx.state is not TxState.PREPARED or _in_progress(tx):
            continue
        layout = _layout_of(tx, home)
        forward = policy == "complete"
        for entry in tx.files:
            report.removed_temps.extend(_remove_stale_temps_of(layout, agent_dir / entry.path))
        for entry in tx.files:
            path = agent_dir / entry.path
            raw = fileio.read_or_none(path)
            current = sha256(raw)
            wanted_sha, wanted = ((entry.after_sha, entry.after) if forward
                                  else (entry.before_sha, entry.before))
            other_sha = entry.before_sha if forward else entry.after_sha
            if current == wanted_sha:
                continue
            if current != other_sha:
                report.conflicts.append(entry.path)
                tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
                continue
            stop = layout.skills_dir if forward else path.parent
            try:
                fileio.replace_checked(path, raw, tx.blob(wanted), stop)
            except fileio.ChangedOnDisk:
                report.conflicts.append(entry.path)
                tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
        if forward:  # folders a deletion emptied go, as they do when the transaction runs through
            for entry in tx.files:
                if entry.after is None:
                    folder = (agent_dir / entry.path).parent
                    fileio.remove_empty_parents(folder, layout.skills_dir)
        else:
            _remove_created_dirs(layout, tx)
        tx.notes.append(f"recovered ({policy}) at next open")
        _finish(layout, tx, TxState.COMMITTED if forward else TxState.ROLLED_BACK)
        (report.completed if forward else report.rolled_back).append(tx.id)
        if forward and tx.undoes:
            mark_undone(agent_dir, tx.undoes, tx.id)
    return report


def _layout_of(tx: Transaction, home: Layout) -> Layout:
    """The skills folder ``tx`` was written under (one journal can serve several SKILL.md roots)."""
    rel = tx.meta.get("skillsDir")
    if not isinstance(rel, str) or not rel or "\0" in rel:
        return home
    folder = Path(os.path.normpath(home.agent_dir / rel))
    if folder == home.agent_dir or _is_inside(folder, home.agent_dir):
        return Layout(home.agent_dir, folder)
    return home


def _remove_stale_temps_of(layout: Layout, path: Path) -> list[str]:
    """Remove temp files a crashed writer left next to ``path`` (before folders are tidied)."""
    prefix = f".{path.name}."
    try:
        with os.scandir(path.parent) as entries:
            temps = [Path(e.path) for e in entries
                     if e.name.startswith(prefix) and fileio.is_temp_name(e.name)]
    except OSError:
        return []
    return [layout.display_path(p) for p in fileio.remove_stale_temps(temps)]


def _pid_alive(pid: int) -> bool:
    return fileio.process_alive(pid)


def _in_progress(tx: Transaction) -> bool:
    """True when another live process on this machine owns the transaction (still writing it)."""
    owner = tx.meta.get("owner") or {}
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid == os.getpid() or owner.get("host") != socket.gethostname():
        return False
    return fileio.process_alive(pid)


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


