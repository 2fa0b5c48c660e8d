"""The one careful writer both libraries use for a :class:`ChangeSet`.

Every target is checked (inside the skills folder, normalised, not through a symbolic link),
every file must still hold the bytes the change expects (a running agent may have written it),
and then: a single file rewritten or created in an existing folder is replaced atomically on its
own; anything else (several files, a folder created or emptied) goes through the journal, so a
crash leaves the state before or after the change, never a mix.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rockskills_gui.core.storage import fileio, journal, untrusted
from rockskills_gui.core.storage.changes import ChangeSet, ConflictError, LibraryError
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import CHECKING, SILENT, Progress, counted

ConflictFactory = Callable[[list[Path]], ConflictError]


def check_conflicts(change: ChangeSet, progress: Progress | None = None) -> list[Path]:
    """Files whose disk bytes are not what ``change`` expects to replace (``progress`` hears
    each file checked and may cancel)."""
    files = counted(change.files, len(change.files), CHECKING, progress)
    return [fc.path for fc in files if fileio.read_or_none(fc.path) != fc.before]


def needs_journal(layout: Layout, change: ChangeSet) -> bool:
    """False only for one file rewritten or created in an existing folder, or deleted from a
    folder that keeps other entries: the cases one atomic file operation covers."""
    if len(change.files) != 1:
        return True
    fc = change.files[0]
    folder = fc.path.parent
    if fc.after is not None:
        return not folder.is_dir()
    if folder == layout.skills_dir:
        return False
    try:
        with os.scandir(folder) as entries:
            return not any(e.name != fc.path.name and not fileio.is_temp_name(e.name) for e in entries)
    except OSError:
        return True


def write_change(layout: Layout, change: ChangeSet, conflict: ConflictFactory,
                 writer: Callable[[ChangeSet], object] | None = None, kind: str = "library",
                 progress: Progress | None = None, read_now: bool = False) -> object:
    """Check and write ``change`` all or nothing (raises ConflictError / LibraryError).

    ``writer`` replaces the plain writer (e.g. a dream apply's own journaled transaction); what
    it returns is returned (a change set linked to its journal transaction, for the history).
    ``progress`` hears the checks (and may cancel them: :class:`Cancelled`) and the write, whose
    start is :meth:`Progress.begin_write`. ``read_now``: every ``before`` was read from disk by
    this operation, so the files are not read again before the write (each file's checked swap
    still refuses one changed since).
    """
    if change.empty:
        return None
    for fc in change.files:
        journal.check_target(layout, fc.path)
    try:
        conflicts = [] if read_now else check_conflicts(change, progress)
    except OSError as exc:  # a FIFO or folder where a skill file should be, no permission...
        where = exc.filename or getattr(exc, "path", None)
        why = untrusted.reason(where, exc) if where else str(exc)
        raise LibraryError(f"cannot read {where or 'a file'}: {why}; nothing was written") from exc
    if conflicts:
        raise conflict(conflicts)
    (progress or SILENT).begin_write()  # the point of no return: cancelled before, never after
    if writer is not None:
        return writer(change)
    if needs_journal(layout, change):
        journal.run(layout, change.files, kind, change.label, progress=progress)
    else:
        fc = change.files[0]
        try:
            fileio.replace_checked(fc.path, fc.before, fc.after, layout.stop_for(fc.path))
        except fileio.ChangedOnDisk as exc:
            raise conflict([exc.path]) from exc
        except OSError as exc:
            raise LibraryError(f"could not write {exc.filename or fc.path}: "
                               f"{exc.strerror or exc}; nothing was written") from exc
    return None
