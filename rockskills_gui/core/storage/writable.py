"""Whether a change can be written where it goes, asked before anything is written.

Every folder a change writes in (the nearest existing one, for files in folders it creates) and,
when the change is journaled, the journal's folder must allow writing; a read-only or unreadable
library, a read-only file system or a folder of another user is refused with one sentence naming
the folder, and nothing is written (issue 35, item 16). The check asks the system what this
process may do (``access``), so it holds for the user the app runs as, root included.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.storage.changes import ChangeSet, LibraryError
from rockskills_gui.core.storage.journal_paths import journal_root
from rockskills_gui.core.storage.layout import Layout


class NotWritableError(LibraryError):
    """A folder the change needs to write in does not allow it; ``folder`` is that folder."""

    def __init__(self, folder: Path, message: str) -> None:
        super().__init__(message)
        self.folder = folder


def _existing(path: Path, stop: Path) -> Path:
    """``path`` or its nearest existing ancestor, not above ``stop``."""
    current = path
    while not os.path.isdir(current) and current != stop and current.parent != current:
        current = current.parent
    return current


def _why(folder: Path) -> str:
    """Why ``folder`` cannot be written in, in a few words."""
    try:
        readable = os.access(folder, os.R_OK | os.X_OK)
        fs_read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError as exc:
        return os.strerror(exc.errno or errno.EACCES).lower()
    if fs_read_only:
        return "it is on a read-only file system"
    if not readable:
        return "it cannot be read or written (permission denied)"
    return "it is read-only (permission denied)"


def check_writable(layout: Layout, change: ChangeSet, journaled: bool,
                   folders: Iterable[Path] = ()) -> None:
    """Raise :class:`NotWritableError` when a folder ``change`` writes in (or, when it is
    ``journaled``, the journal's folder; or one of ``folders``) does not allow this process to
    write; nothing has been written then."""
    needed: list[tuple[Path, str]] = []
    for target in [*(fc.path.parent for fc in change.files), *folders]:
        needed.append((_existing(target, layout.agent_dir), ""))
    if journaled:
        needed.append((_existing(journal_root(layout.agent_dir), layout.agent_dir),
                       " (where changes are journaled, so that a crash loses nothing)"))
    seen: set[Path] = set()
    for folder, role in needed:
        if folder in seen:
            continue
        seen.add(folder)
        if os.access(folder, os.W_OK | os.X_OK):
            continue
        shown = layout.display_path(folder)
        where = f"'{shown}' in {layout.agent_dir}" if shown not in (".", "") else f"{layout.agent_dir}"
        raise NotWritableError(folder, f"Cannot write in the folder {where}{role}: {_why(folder)}; "
                                       "nothing was changed.")
