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

A library is untrusted input, and so is any journal found in it: every entry is sealed with this
user's key and bound to the library's real path (:mod:`.journal_seal`); recovery, undo and pruning
see only sealed entries, and touch only paths that stay inside the library's skills folder without
passing a symbolic link. An entry that does not verify is reported (:attr:`RecoveryReport.untrusted`)
and left exactly as it is. Whether an interrupted writer still runs is decided by the lock it holds
on the entry's ``owner`` file, never by a process id.

This module does not import the library packages (a library calls :func:`recover` when it
opens).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socket
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.storage import fileio, journal_seal
from rockskills_gui.core.storage.changes import ConflictError, FileChange, LibraryError
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.layout import Layout

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


def journal_root(agent_dir: Path) -> Path:
    return Path(agent_dir) / JOURNAL_DIR


def _root_link(agent_dir: Path) -> Path | None:
    """``.rockskills`` or ``.rockskills/journal`` when either is a symbolic link or not a folder
    (it could lead anywhere: the journal is never read or written through it)."""
    current = Path(agent_dir)
    for part in JOURNAL_DIR.parts:
        current = current / part
        try:
            mode = current.lstat().st_mode
        except FileNotFoundError:
            return None
        except OSError:
            return current
        if not stat.S_ISDIR(mode):
            return current
    return None


def _check_root(agent_dir: Path) -> None:
    odd = _root_link(agent_dir)
    if odd is not None:
        raise LibraryError(f"refusing to use the journal folder {odd}: it is a symbolic link or not a "
                           "folder (it could point outside the library); remove it first")


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
    _check_root(layout.agent_dir)
    tx_id = _new_id()
    folder = journal_root(layout.agent_dir) / tx_id
    folder.mkdir(parents=True)
    fileio.checkpoint()
    lock = journal_seal.create_owner(folder, layout.agent_dir, tx_id)
    try:
        return _prepare_in(layout, changes, kind, label, meta, undoes, folder, tx_id, lock)
    except BaseException:
        lock.release()
        raise


def _prepare_in(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
                meta: dict[str, Any] | None, undoes: str | None, folder: Path, tx_id: str,
                lock: journal_seal.WriterLock) -> Transaction:
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
                     created_dirs=_missing_dirs(layout, changes), lock=lock)
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
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE, last=journal_seal.OWNER_FILE)
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
    try:
        return _run_prepared(layout, tx, changes, crash_after)
    finally:
        tx.release()  # a real crash drops the lock with the process; a simulated one, here


def _run_prepared(layout: Layout, tx: Transaction, changes: Sequence[FileChange],
                  crash_after: int | None) -> Transaction:
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


@dataclass
class _Scan:
    """One look at a journal folder: sealed entries, unfinished ones, and what is not ours."""

    sealed: list[Transaction] = field(default_factory=list)
    unfinished: list[Path] = field(default_factory=list)  # ours (or empty), writer gone: safe to drop
    untrusted: list[str] = field(default_factory=list)  # one readable line each, left untouched
    busy: int = 0


MAX_JOURNAL_BYTES = 256 * 1024 * 1024


def _read_entry(folder: Path) -> dict[str, Any] | None:
    """``journal.json`` of ``folder`` (None when there is none); ValueError when unreadable."""
    path = folder / JOURNAL_FILE
    try:
        if path.lstat().st_size > MAX_JOURNAL_BYTES:
            raise ValueError("journal.json is too large")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(fileio.read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"journal.json cannot be read ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise ValueError("journal.json is not an object")
    return data


def _only_plain_leftovers(folder: Path) -> bool:
    """True when ``folder`` holds nothing but temp files of ours (a crash before the owner file)."""
    try:
        with os.scandir(folder) as entries:
            return all(e.is_file(follow_symlinks=False) and fileio.is_temp_name(e.name) for e in entries)
    except OSError:
        return False


def _scan(agent_dir: Path) -> _Scan:
    found = _Scan()
    root = journal_root(agent_dir)
    odd = _root_link(agent_dir)
    if odd is not None:
        found.untrusted.append(f"{odd.relative_to(agent_dir).as_posix()}: a symbolic link or not a "
                               "folder; the journal was not read")
        return found
    try:
        with os.scandir(root) as it:
            names = sorted(e.name for e in it)
    except (FileNotFoundError, NotADirectoryError):
        return found
    for name in names:
        folder = root / name
        shown = f"{JOURNAL_DIR.as_posix()}/{name}"
        try:
            mode = folder.lstat().st_mode
        except OSError:
            continue
        if not stat.S_ISDIR(mode):
            if not (stat.S_ISREG(mode) and fileio.is_temp_name(name)):
                found.untrusted.append(f"{shown}: not a journal entry (not a folder); left alone")
            continue
        try:
            data = _read_entry(folder)
        except ValueError as exc:
            found.untrusted.append(f"{shown}: {exc}; left alone")
            continue
        if data is None:
            owner = journal_seal.owner_state(folder, agent_dir, name)
            if owner == "ours" or (owner == "missing" and _only_plain_leftovers(folder)):
                found.unfinished.append(folder)
            elif owner == "busy":
                found.busy += 1
            else:
                found.untrusted.append(f"{shown}: an unfinished entry not written by rockskills on "
                                       "this account; left alone")
            continue
        if not journal_seal.verify(agent_dir, data):
            found.untrusted.append(f"{shown}: not written by rockskills on this account for this "
                                   "folder (or altered since); ignored and left alone")
            continue
        try:
            tx = Transaction.from_json(folder, data)
        except (ValueError, KeyError, TypeError) as exc:
            found.untrusted.append(f"{shown}: malformed ({exc.__class__.__name__}); left alone")
            continue
        if tx.id != name:
            found.untrusted.append(f"{shown}: sealed for another entry; ignored and left alone")
            continue
        found.sealed.append(tx)
    return found


def transactions(agent_dir: Path) -> list[Transaction]:
    """Every sealed transaction (written by this user's app for this library), oldest first."""
    return _scan(agent_dir).sealed


def untrusted_entries(agent_dir: Path) -> list[str]:
    """One line per journal entry that is not ours (never acted on)."""
    return _scan(agent_dir).untrusted


def _leftovers(found: _Scan) -> list[Transaction]:
    """Finished ephemeral transactions whose folder was not removed yet (a crash right after)."""
    return [t for t in found.sealed if t.ephemeral and t.state is not TxState.PREPARED]


def has_pending(agent_dir: Path) -> bool:
    """True when a transaction was interrupted (recovery needed), left something to clean up, or
    something in the journal is not ours (to be reported)."""
    found = _scan(agent_dir)
    return bool(found.unfinished or found.untrusted or _journal_temps(found)) or any(
        t.state is TxState.PREPARED or t.ephemeral for t in found.sealed)


def _journal_temps(found: _Scan) -> list[Path]:
    """Temp files of an interrupted ``journal.json`` save inside sealed transaction folders."""
    temps: list[Path] = []
    for tx in found.sealed:
        with contextlib.suppress(OSError), os.scandir(tx.folder) as entries:
            temps.extend(Path(e.path) for e in entries
                         if e.is_file(follow_symlinks=False) and fileio.is_temp_name(e.name))
    return temps


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
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE, last=journal_seal.OWNER_FILE)


# ---------------------------------------------------------------- recovery


@dataclass
class RecoveryReport:
    """What :func:`recover` did: transactions completed, rolled back or discarded, files it left
    alone because someone else changed them, and journal entries it refused to act on."""

    completed: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    removed_temps: list[str] = field(default_factory=list)  # left by a writer that crashed
    untrusted: list[str] = field(default_factory=list)  # entries not ours, or pointing outside

    @property
    def empty(self) -> bool:
        return not (self.completed or self.rolled_back or self.discarded or self.conflicts
                    or self.removed_temps or self.untrusted)

    def merge(self, other: RecoveryReport) -> None:
        for attr in ("completed", "rolled_back", "discarded", "conflicts", "removed_temps", "untrusted"):
            getattr(self, attr).extend(getattr(other, attr))

    def lines(self) -> list[str]:
        return ([f"completed an interrupted change ({t})" for t in self.completed]
                + [f"rolled back an interrupted change ({t})" for t in self.rolled_back]
                + [f"discarded an unfinished journal entry ({t})" for t in self.discarded]
                + [f"left alone (changed by someone else): {p}" for p in self.conflicts]
                + [f"removed a temporary file of an interrupted save: {p}"
                   for p in self.removed_temps]
                + [f"journal entry refused: {u}" for u in self.untrusted])


def journal_problems(report: RecoveryReport | None) -> list[Problem]:
    """The journal entries recovery refused, as Problems (shown beside the skill problems)."""
    if report is None:
        return []
    problems = []
    for line in report.untrusted:
        where, _, why = line.partition(": ")
        problems.append(Problem(path=where, kind=ProblemKind.UNTRUSTED_JOURNAL, severity="warning",
                                message=f"journal entry not acted on: {why}"))
    return problems


def _targets_of(tx: Transaction, layout: Layout) -> list[Path]:
    """Every file path of ``tx``, checked like a new write (inside the skills folder, normalised,
    no symbolic link on the way); UntrustedJournal for the first that is not."""
    paths: list[Path] = []
    for entry in tx.files:
        rel = entry.path
        if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/") or "\\" in rel:
            raise UntrustedJournal(f"{tx.id}: a file path that is not a plain relative path")
        path = layout.agent_dir / rel
        try:
            check_target(layout, path)
        except LibraryError as exc:
            raise UntrustedJournal(f"{tx.id}: {exc}") from None
        paths.append(path)
    for rel in tx.created_dirs:
        if not isinstance(rel, str) or "\0" in rel \
                or not _is_inside(Path(os.path.normpath(layout.agent_dir / rel)), layout.skills_dir):
            raise UntrustedJournal(f"{tx.id}: a folder outside the skills folder")
    return paths


def recover(layout: Layout, policy: str = "complete") -> RecoveryReport:
    """Finish every interrupted transaction: ``complete`` writes the after state, ``rollback`` the
    before state. A file in neither state was changed by someone else and is left as it is. A
    transaction whose writer still holds its lock is left to that writer; one that is not sealed
    by this user's app for this library, or names a path outside its skills folder, is reported in
    :attr:`RecoveryReport.untrusted` and not touched. Folders are left as the finished (or never
    started) transaction would have left them, and journal leftovers (unfinished entries of ours,
    finished ephemeral ones, temp files) are removed."""
    if policy not in ("complete", "rollback"):
        raise ValueError("policy must be 'complete' or 'rollback'")
    report = RecoveryReport()
    agent_dir = layout.agent_dir
    found = _scan(agent_dir)
    report.untrusted.extend(found.untrusted)
    for folder in found.unfinished:
        fileio.remove_tree(folder, last=journal_seal.OWNER_FILE)
        report.discarded.append(folder.name)
    for tx in _leftovers(found):
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE, last=journal_seal.OWNER_FILE)
    for temp in _journal_temps(found):
        with contextlib.suppress(OSError):
            temp.unlink()
    home = layout
    for tx in found.sealed:
        if tx.state is not TxState.PREPARED or _in_progress(tx):
            continue
        try:
            _recover_one(tx, _layout_of(tx, home), policy, report)
        except UntrustedJournal as exc:
            report.untrusted.append(f"{JOURNAL_DIR.as_posix()}/{tx.id}: {exc}; left alone")
    return report


def _recover_one(tx: Transaction, layout: Layout, policy: str, report: RecoveryReport) -> None:
    agent_dir = layout.agent_dir
    paths = _targets_of(tx, layout)
    forward = policy == "complete"
    for entry in tx.files:  # every blob is checked before any file is touched
        tx.blob(entry.after if forward else entry.before,
                entry.after_sha if forward else entry.before_sha)
    for path in paths:
        report.removed_temps.extend(_remove_stale_temps_of(layout, path))
    for entry, path in zip(tx.files, paths, strict=True):
        try:
            raw = fileio.read_or_none(path)
        except OSError:
            report.conflicts.append(entry.path)
            tx.notes.append(f"recovery left {entry.path} alone: not a readable regular file")
            continue
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
            fileio.replace_checked(path, raw, tx.blob(wanted, wanted_sha), stop)
        except fileio.ChangedOnDisk:
            report.conflicts.append(entry.path)
            tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
    if forward:  # folders a deletion emptied go, as they do when the transaction runs through
        for entry, path in zip(tx.files, paths, strict=True):
            if entry.after is None:
                fileio.remove_empty_parents(path.parent, layout.skills_dir)
    else:
        _remove_created_dirs(layout, tx)
    tx.notes.append(f"recovered ({policy}) at next open")
    _finish(layout, tx, TxState.COMMITTED if forward else TxState.ROLLED_BACK)
    (report.completed if forward else report.rolled_back).append(tx.id)
    if forward and tx.undoes:
        mark_undone(agent_dir, tx.undoes, tx.id)


def _layout_of(tx: Transaction, home: Layout) -> Layout:
    """The skills folder ``tx`` was written under (one journal can serve several SKILL.md roots)."""
    rel = tx.meta.get("skillsDir")
    if not isinstance(rel, str) or not rel or "\0" in rel:
        return home
    folder = Path(os.path.normpath(home.agent_dir / rel))
    if folder == home.agent_dir or (_is_inside(folder, home.agent_dir)
                                    and fileio.symlink_below(folder, home.agent_dir) is None):
        return Layout(home.agent_dir, folder)
    raise UntrustedJournal(f"{tx.id}: its skills folder {rel[:200]!r} is not a real folder inside "
                           "the library")


def _remove_stale_temps_of(layout: Layout, path: Path) -> list[str]:
    """Remove temp files a crashed writer left next to ``path`` (before folders are tidied)."""
    prefix = f".{path.name}."
    try:
        with os.scandir(path.parent) as entries:
            temps = [Path(e.path) for e in entries
                     if e.name.startswith(prefix) and fileio.is_temp_name(e.name)
                     and e.is_file(follow_symlinks=False)]
    except OSError:
        return []
    return [layout.display_path(p) for p in fileio.remove_stale_temps(temps)]


def _in_progress(tx: Transaction) -> bool:
    """True while the writer of ``tx`` still holds the lock on its ``owner`` file (any process,
    this one included); an entry without an owner file is not in progress."""
    return journal_seal.owner_state(tx.folder, tx.home, tx.id) == "busy"


def recover_if_needed(layout: Layout) -> RecoveryReport | None:
    """:func:`recover` when a transaction is pending or the journal holds something that is not
    ours, else None (cheap when there is no journal folder)."""
    if _root_link(layout.agent_dir) is None and not journal_root(layout.agent_dir).is_dir():
        return None
    if not has_pending(layout.agent_dir):
        return None
    return recover(layout)


def changes_of(tx: Transaction, layout: Layout, inverse: bool = False) -> list[FileChange]:
    """The transaction's file changes (or their inverse, for undo), with paths made absolute."""
    changes = [FileChange(layout.agent_dir / f.path, tx.blob(f.before, f.before_sha),
                          tx.blob(f.after, f.after_sha)) for f in tx.files]
    return [c.inverse() for c in reversed(changes)] if inverse else changes


def states_of(tx: Transaction, layout: Layout) -> Iterable[tuple[TxFile, str | None]]:
    """Each file of ``tx`` with the sha256 it has on disk now."""
    for entry in tx.files:
        yield entry, sha256(fileio.read_or_none(layout.agent_dir / entry.path))


