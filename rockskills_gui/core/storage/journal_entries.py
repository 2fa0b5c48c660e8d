"""Reading the journal folder: which entries are sealed (ours), unfinished or not ours, and the
bookkeeping over them (the last undoable apply, marking one undone, pruning old ones)."""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.storage import fileio, journal_seal
from rockskills_gui.core.storage.journal_paths import JOURNAL_DIR, journal_root, root_link
from rockskills_gui.core.storage.journal_tx import (
    JOURNAL_FILE,
    KEEP_FINISHED,
    Transaction,
    TxState,
)


@dataclass
class Scan:
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
        data = loads_untrusted(fileio.read_regular(path, MAX_JOURNAL_BYTES).decode("utf-8"))
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


def scan(agent_dir: Path) -> Scan:
    found = Scan()
    root = journal_root(agent_dir)
    odd = root_link(agent_dir)
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
            found.untrusted.append(unverified(shown, data, agent_dir))
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


def unverified(shown: str, data: dict[str, Any], agent_dir: Path) -> str:
    """The line for an entry whose seal does not verify. One that says it is an interrupted change
    may be ours, from a run whose key is gone (the data folder could not be written, or
    ``journal.key`` was deleted) or from before the library was moved: say what state its files
    are in and what to do -- nothing it names is acted on (it may as well be forged)."""
    why = (f"{shown}: not written by rockskills on this account for this folder (or altered since); "
           "ignored and left alone")
    if data.get("state") != "prepared":
        return why
    label = data.get("label")
    label = f" ({display_name(label, 60)})" if isinstance(label, str) else ""
    return (f"{shown}: a change{label} was interrupted and cannot be finished here: its journal entry "
            f"cannot be verified as written by rockskills on this account for this folder (its key "
            f"in {journal_seal.key_path()} is gone or new, the library was moved or copied since, or "
            f"the entry was altered), so it is left alone. {_state_of(data, agent_dir)} "
            f"When you have checked, delete the folder {shown}.")


def _state_of(data: dict[str, Any], agent_dir: Path) -> str:
    """Where an interrupted change's files stand, read from its (unverified) entry: only plain
    relative paths inside the library are looked at, and only whether they exist."""
    created: list[tuple[str, bool]] = []
    removed: list[tuple[str, bool]] = []
    files = data.get("files")
    for item in files if isinstance(files, list) else []:
        rel = item.get("path") if isinstance(item, dict) else None
        if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/") or "\\" in rel \
                or ".." in rel.split("/") or os.path.normpath(rel) != rel:
            continue
        there = os.path.lexists(agent_dir / rel)
        if item.get("before") is None and item.get("after") is not None:
            created.append((display_name(rel), there))
        elif item.get("before") is not None and item.get("after") is None:
            removed.append((display_name(rel), there))
    written = [p for p, there in created if there]
    left = [p for p, there in removed if there]
    state = ("Every skill is still there, in its old or its new form (the app writes new files "
             "before it removes old ones).")
    if created and removed and written and left:
        return (f"{state} Both versions exist now: the new {_few(written)} and the old "
                f"{_few(left)}; keep the one you want (the new one finishes the change) and delete "
                "the other.")
    if created and not written:
        return f"{state} Its new files were not written yet: the library is as before the change."
    if removed and not left:
        return f"{state} It had finished writing: the library is as after the change."
    return state


def _few(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def transactions(agent_dir: Path) -> list[Transaction]:
    """Every sealed transaction (written by this user's app for this library), oldest first."""
    return scan(agent_dir).sealed


def untrusted_entries(agent_dir: Path) -> list[str]:
    """One line per journal entry that is not ours (never acted on)."""
    return scan(agent_dir).untrusted


def leftovers(found: Scan) -> list[Transaction]:
    """Finished ephemeral transactions whose folder was not removed yet (a crash right after)."""
    return [t for t in found.sealed if t.ephemeral and t.state is not TxState.PREPARED]


def has_pending(agent_dir: Path) -> bool:
    """True when a transaction was interrupted (recovery needed), left something to clean up, or
    something in the journal is not ours (to be reported)."""
    found = scan(agent_dir)
    return bool(found.unfinished or found.untrusted or journal_temps(found)) or any(
        t.state is TxState.PREPARED or t.ephemeral for t in found.sealed)


def journal_temps(found: Scan) -> list[Path]:
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

