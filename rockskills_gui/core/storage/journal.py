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
opens). It is the one import path for the journal; the work is split by responsibility:
:mod:`.journal_tx` (one entry as stored), :mod:`.journal_write` (running a transaction),
:mod:`.journal_entries` (reading the folder, bookkeeping) and :mod:`.journal_recover` (recovery).
"""

from __future__ import annotations

from rockskills_gui.core.storage.journal_entries import (
    MAX_JOURNAL_BYTES,
    has_pending,
    last_undoable,
    mark_undone,
    prune_finished,
    transactions,
    untrusted_entries,
)
from rockskills_gui.core.storage.journal_paths import JOURNAL_DIR, journal_root
from rockskills_gui.core.storage.journal_recover import (
    RecoveryReport,
    journal_problems,
    recover,
    recover_if_needed,
)
from rockskills_gui.core.storage.journal_tx import (
    BLOBS_FILE,
    EPHEMERAL_KINDS,
    JOURNAL_FILE,
    JOURNAL_FORMAT,
    KEEP_FINISHED,
    SimulatedCrash,
    Transaction,
    TxFile,
    TxState,
    UntrustedJournal,
    changes_of,
    states_of,
)
from rockskills_gui.core.storage.journal_write import check_target, prepare, run

__all__ = [
    "BLOBS_FILE", "EPHEMERAL_KINDS", "JOURNAL_DIR", "JOURNAL_FILE", "JOURNAL_FORMAT", "KEEP_FINISHED",
    "MAX_JOURNAL_BYTES", "RecoveryReport", "SimulatedCrash", "Transaction", "TxFile", "TxState",
    "UntrustedJournal", "changes_of", "check_target", "has_pending", "journal_problems", "journal_root",
    "last_undoable", "mark_undone", "prepare", "prune_finished", "recover", "recover_if_needed", "run",
    "states_of", "transactions", "untrusted_entries",
]
