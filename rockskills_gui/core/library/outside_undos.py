"""Steps of a window's undo history that another process took back.

``rockskills undo`` run while the window is open undoes the last applied dream plan through the
journal: it marks the apply transaction undone. The window's history still holds the step
(linked to that transaction) and would offer to undo it again, which can only be refused. This
module finds such steps and moves them where they now belong: the last step goes to the redo
stack (Edit ▸ Redo applies the plan again, through the journal, as after the window's own undo),
an older one leaves the history (the steps after it stay undoable, each conflict-checked).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rockskills_gui.core.storage.changes import ChangeSet, History


class HasHistory(Protocol):
    """What this needs of a library: its history and its folder (the journal's home)."""

    @property
    def history(self) -> History: ...

    @property
    def agent_dir(self) -> Path: ...


def undone_elsewhere(library: HasHistory) -> list[ChangeSet]:
    """Undo-stack steps whose journaled apply is marked undone (by another process)."""
    linked = [e for e in library.history.undo_stack if e.journal is not None and e.journal[0] == "apply"]
    if not linked:
        return []
    from rockskills_gui.core.storage import journal

    undone = {tx.id for tx in journal.transactions(library.agent_dir)
              if tx.kind == "apply" and tx.state is journal.TxState.UNDONE}
    return [e for e in linked if e.journal is not None and e.journal[1] in undone]


def follow_outside_undos(library: HasHistory) -> list[ChangeSet]:
    """Move the steps :func:`undone_elsewhere` finds (see the module); the steps moved."""
    found = undone_elsewhere(library)
    if not found:
        return []
    history = library.history
    ids = {id(e) for e in found}
    top = history.undo_stack[-1]
    history.undo_stack[:] = [e for e in history.undo_stack if id(e) not in ids]
    if id(top) in ids:
        history.redo_stack.append(top)  # as the window's own undo would have put it
    return found
