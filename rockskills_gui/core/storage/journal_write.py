"""Writing a journaled transaction: blobs and a *prepared* entry, then each file (conflict-checked),
then *committed*; on a failure every file already written is put back (see :mod:`.journal`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rockskills_gui.core.storage import fileio, journal_seal, links
from rockskills_gui.core.storage.changes import ConflictError, FileChange, LibraryError
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.journal_entries import mark_undone, prune_finished
from rockskills_gui.core.storage.journal_paths import journal_root
from rockskills_gui.core.storage.journal_tx import (
    BLOBS_FILE,
    JOURNAL_FILE,
    SimulatedCrash,
    Transaction,
    TxFile,
    TxState,
    check_root,
    is_inside,
    new_id,
)
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import JOURNALING, WRITING, Progress, counted


def check_target(layout: Layout, path: Path) -> None:
    """Refuse a skill-file path outside ``skills/``, not normalised (``..``, ``.``), with a NUL,
    that is a symbolic link, or reached through a link leading out of the library to a folder
    not trusted (:mod:`.links`: a link target the user confirmed, another skill root)."""
    text = str(path)
    if "\0" in text or not path.is_absolute() or os.path.normpath(text) != text \
            or not is_inside(path, layout.skills_dir):
        raise LibraryError(f"refusing to write outside the skills folder: {text!r}")
    found = links.blocking_link(path, layout.agent_dir, layout.trusted)
    if found is not None:
        link, target = found
        if link == path:
            raise LibraryError(f"refusing to write to the symbolic link {layout.display_path(link)} "
                               f"(it points to {target}); edit the file it points to instead")
        raise LibraryError(link_refusal(layout, link, target))


def link_refusal(layout: Layout, link: Path, target: str) -> str:
    """Why a write through ``link`` is refused, and how to allow it."""
    where = links.link_target(link)
    return (f"refusing to write through the symbolic link {layout.display_path(link)}: it leads to "
            f"{where}, outside the library (it points to {target}). To write there, allow that "
            f"folder: answer the app's prompt, or run the command with --allow-link-target {where}")


def _write(layout: Layout, path: Path, expected: bytes | None, data: bytes | None) -> None:
    fileio.replace_checked(path, expected, data, layout.stop_for(path))


def safe_order(changes: Sequence[FileChange]) -> list[FileChange]:
    """Every creation and update first, every deletion last (each group in the caller's order).

    So every skill exists, old or new, at every instant, even when the change is never finished
    nor recovered (a crash, and then no journal key, the library moved, ...): a rename writes the
    new file before it removes the old one, a folder move writes the whole new folder before the
    old one goes, a merge writes the merged skill before its sources go, and undoing any of them
    puts the old files back before the new ones go."""
    return [c for c in changes if c.after is not None] + [c for c in changes if c.after is None]


def aliases(changes: Sequence[FileChange]) -> dict[Path, FileChange]:
    """The deletions whose file is also the file a creation of the same change writes, by the
    creation's path: a case-only rename on a case-insensitive file system (``Foo.json`` and
    ``foo.json`` are one file there). Such a pair is written as one: the file's bytes replaced
    (checked, atomically), then renamed to the new spelling, so it never disappears."""
    deleted = {str(c.path).casefold(): c for c in changes if c.after is None and c.before is not None}
    found: dict[Path, FileChange] = {}
    if not deleted:
        return found
    for change in changes:
        if change.before is not None or change.after is None:
            continue
        gone = deleted.get(str(change.path).casefold())
        if gone is not None and gone.path != change.path and fileio.same_file(gone.path, change.path):
            found[change.path] = gone
    return found


def _write_alias(layout: Layout, gone: FileChange, created: FileChange, forward: bool = True) -> None:
    """Write a pair of :func:`aliases` (``forward``) or put it back: bytes first, then the name."""
    old, new = (gone, created) if forward else (created, gone)
    fileio.replace_checked(old.path, old.before if forward else old.after,
                           new.after if forward else new.before, layout.stop_for(old.path))
    os.replace(old.path, new.path)
    fileio.checkpoint()


def _missing_dirs(layout: Layout, changes: Sequence[FileChange]) -> list[str]:
    """Folders below ``skills/`` that the after-state needs and that do not exist yet (parents first)."""
    missing: dict[str, None] = {}
    for change in changes:
        if change.after is None:
            continue
        chain: list[Path] = []
        folder = change.path.parent
        while folder != layout.skills_dir and is_inside(folder, layout.skills_dir) \
                and not folder.is_dir():
            chain.append(folder)
            folder = folder.parent
        for directory in reversed(chain):
            missing.setdefault(layout.display_path(directory))
    return list(missing)


def prepare(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
            meta: dict[str, Any] | None = None, undoes: str | None = None,
            progress: Progress | None = None,
            before_shas: Mapping[Path, str | None] | None = None) -> Transaction:
    """Write the blobs and a *prepared* ``journal.json``; nothing in ``skills/`` is touched yet.

    ``before_shas``: the sha256 of a change's ``before`` bytes when the caller has it already
    (it must be of exactly those bytes: recovery refuses a blob that does not match)."""
    for change in changes:
        check_target(layout, change.path)
    check_root(layout.agent_dir)
    tx_id = new_id()
    folder = journal_root(layout.agent_dir) / tx_id
    folder.mkdir(parents=True)
    fileio.checkpoint()
    lock = journal_seal.create_owner(folder, layout.agent_dir, tx_id)
    try:
        return _prepare_in(layout, changes, kind, label, meta, undoes, folder, tx_id, lock,
                           progress, before_shas or {})
    except BaseException:
        lock.release()
        raise


def _prepare_in(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
                meta: dict[str, Any] | None, undoes: str | None, folder: Path, tx_id: str,
                lock: journal_seal.WriterLock, progress: Progress | None,
                before_shas: Mapping[Path, str | None]) -> Transaction:
    fileio.checkpoint()
    files: list[TxFile] = []
    offset = 0
    with open(folder / BLOBS_FILE, "xb") as pack:
        fileio.checkpoint()
        for change in counted(changes, len(changes), JOURNALING, progress, cancellable=False):
            names: list[str | None] = []
            for data in (change.before, change.after):
                if data is None:
                    names.append(None)
                    continue
                pack.write(data)
                names.append(f"pack:{offset}:{len(data)}")
                offset += len(data)
            before_sha = before_shas.get(change.path) if change.before is not None else None
            files.append(TxFile(layout.display_path(change.path), names[0], names[1],
                                before_sha or sha256(change.before), sha256(change.after)))
        pack.flush()
        fileio.checkpoint()
        os.fsync(pack.fileno())
    fileio.checkpoint()
    import socket  # (loads with the first journaled write, not at start-up)

    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    where: dict[str, Any] = {"skillsDir": layout.display_path(layout.skills_dir)}  # recovery's bounds
    if layout.floors:  # (several roots, or the agent folder with skills/ and the archive)
        where["floors"] = [layout.display_path(f) for f in layout.floors]
    tx = Transaction(folder, tx_id, kind, label, TxState.PREPARED, datetime.now(UTC).isoformat(),
                     files, {**(meta or {}), **where, "owner": owner}, undoes,
                     created_dirs=_missing_dirs(layout, changes), lock=lock)
    tx.save()
    return tx


def remove_created_dirs(layout: Layout, tx: Transaction) -> None:
    """Remove the folders ``tx`` created, when empty (deepest first): the state before it."""
    for rel in reversed(tx.created_dirs):
        folder = layout.agent_dir / rel
        if is_inside(folder, layout.skills_dir) and not folder.is_symlink():
            with contextlib.suppress(OSError):
                folder.rmdir()
                fileio.checkpoint()


def finish(layout: Layout, tx: Transaction, state: TxState) -> None:
    """Record the final state; an ephemeral transaction's folder is removed instead."""
    tx.state = state
    if tx.ephemeral:
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE, last=journal_seal.OWNER_FILE)
    else:
        tx.save()


def run(layout: Layout, changes: Sequence[FileChange], kind: str, label: str,
        meta: dict[str, Any] | None = None, undoes: str | None = None,
        crash_after: int | None = None, progress: Progress | None = None,
        before_shas: Mapping[Path, str | None] | None = None) -> Transaction:
    """Prepare, write every file, commit.

    Each file is written only if it still holds its before bytes; if one does not (someone else
    changed it), or writing fails, the files already written are put back, the transaction is
    rolled back, and ConflictError / LibraryError is raised. ``crash_after`` stops dead after that
    many file writes (tests of :func:`recover`). ``progress`` hears each file journaled and
    written; this is past the point of no return, so it is never asked whether to stop (the
    caller calls :meth:`Progress.begin_write` first). ``before_shas``: see :func:`prepare`.
    """
    changes = safe_order(changes)
    tx = prepare(layout, changes, kind, label, meta, undoes, progress, before_shas)
    try:
        return _run_prepared(layout, tx, changes, crash_after, progress)
    finally:
        tx.release()  # a real crash drops the lock with the process; a simulated one, here


def _run_prepared(layout: Layout, tx: Transaction, changes: Sequence[FileChange],
                  crash_after: int | None, progress: Progress | None) -> Transaction:
    if crash_after == 0:
        raise SimulatedCrash(tx.id)
    done: list[FileChange] = []
    paired = aliases(changes)
    with_pair = {gone.path for gone in paired.values()}  # written with their creation
    try:
        writing = counted(changes, len(changes), WRITING, progress, cancellable=False)
        for step, change in enumerate(writing, start=1):
            if change.path in paired:
                _write_alias(layout, paired[change.path], change)
            elif change.path not in with_pair:
                _write(layout, change.path, change.before, change.after)
            done.append(change)
            if crash_after is not None and step >= crash_after:
                raise SimulatedCrash(tx.id)
    except (OSError, fileio.ChangedOnDisk) as exc:
        for change in reversed(done):  # (old files come back before new ones go)
            with contextlib.suppress(OSError, fileio.ChangedOnDisk):
                if change.path in paired:
                    _write_alias(layout, paired[change.path], change, forward=False)
                elif change.path not in with_pair:
                    _write(layout, change.path, change.after, change.before)
        remove_created_dirs(layout, tx)
        tx.notes.append(f"write failed: {exc}")
        with contextlib.suppress(OSError):
            finish(layout, tx, TxState.ROLLED_BACK)
        if isinstance(exc, fileio.ChangedOnDisk):
            shown = layout.display_path(exc.path)
            raise ConflictError([exc.path], f"{shown} changed on disk while writing (a running agent "
                                            "may have written it); nothing was changed. Reload the "
                                            "library to see the new version.") from exc
        raise LibraryError(f"could not write {exc.filename or ''}: {exc.strerror or exc}; "
                           "the transaction was rolled back") from exc
    finish(layout, tx, TxState.COMMITTED)
    if tx.undoes:
        mark_undone(layout.agent_dir, tx.undoes, tx.id)
    if not tx.ephemeral:
        prune_finished(layout.agent_dir)
    return tx

