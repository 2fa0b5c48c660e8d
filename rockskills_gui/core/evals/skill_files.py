"""Where a skill's own trigger-eval file lives, and writing one as an undoable change.

- A skill with a folder of its own (a ``SKILL.md``) keeps its file where the field does:
  ``<skill>/evals/trigger-evals.json`` (or an existing ``evals/trigger_eval.json``, the name
  anthropics/claude-plugins-official uses). Writing it is a library operation: one
  :class:`~rockskills_gui.core.storage.changes.ChangeSet` through the library's change-set writer
  (conflict-checked, journaled, undoable), which the library then takes in (the file is one of
  the skill's resources).
- A skill without a folder (RockBot's ``skills/<name>.json``, a CortexPrism ``memory.db`` row)
  keeps it beside the library's query sets, ``recall-tests/trigger-evals/<skill>.json``
  (:func:`~rockskills_gui.core.evals.trigger_file.store_path`), written atomically as query sets
  are: never inside RockBot's ``skills/``, which loads every ``*.json`` as a skill.

Exporting rows elsewhere: into a SKILL.md library's skill roots it is the same undoable change;
into RockBot's ``skills/`` it is refused; anywhere else an atomic write outside the library.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.evals.trigger_file import (
    EVALS_DIR,
    FIELD_FILE,
    TriggerEvalSet,
    TriggerFileError,
    TriggerRow,
    dump_rows,
    read_trigger_file,
    store_path,
    write_beside,
)
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.changes import ChangeSet, FileChange

FIELD_NAMES = (FIELD_FILE, "trigger_eval.json")  # looked for in a skill's evals/, in this order
SKILL_FILE = "skill.md"  # a skill file of this name (any case) has a folder of its own


def skill_folder(library: Library, skill: str) -> Path | None:
    """The folder skill ``skill`` owns (its ``SKILL.md``'s), or None when it has none (a RockBot
    JSON file, a read-only ``memory.db`` row, no such skill)."""
    if library.get(skill) is None or library.is_read_only(skill):
        return None
    path = library.skill_path(skill)
    return path.parent if path.name.lower() == SKILL_FILE else None


def candidates(library: Library, skill: str) -> tuple[Path, ...]:
    """Where the skill's trigger-eval file may be, in order (no file is looked at: cheap on
    the UI thread; :func:`first_file` looks)."""
    folder = skill_folder(library, skill)
    if folder is not None:
        return tuple(folder / EVALS_DIR / n for n in FIELD_NAMES)
    try:
        return (store_path(library.layout, skill),)
    except TriggerFileError:
        return ()


def first_file(paths: Iterable[Path]) -> Path | None:
    """The first of ``paths`` that is a regular file (not a link), or None."""
    return next((p for p in paths if fileio.is_regular(p) and not p.is_symlink()), None)


def own_file(library: Library, skill: str) -> Path | None:
    """The skill's trigger-eval file that exists (a regular file), or None."""
    return first_file(candidates(library, skill))


def home_file(library: Library, skill: str) -> Path:
    """Where the skill's rows are written: its file if it has one, else the field's place
    (``<skill>/evals/trigger-evals.json``), else beside the query sets. Raises
    :class:`TriggerFileError` for a name no file can be stored under."""
    found = own_file(library, skill)
    if found is not None:
        return found
    folder = skill_folder(library, skill)
    if folder is not None:
        return folder / EVALS_DIR / FIELD_FILE
    return store_path(library.layout, skill)


def load_own(library: Library, skill: str) -> TriggerEvalSet | None:
    """The rows of the skill's own file (None when it has none); raises :class:`TriggerFileError`
    for a file that is not a trigger-eval file (it is left as it is)."""
    path = own_file(library, skill)
    return None if path is None else TriggerEvalSet(skill, read_trigger_file(path), path)


@dataclass(frozen=True)
class FoundSets:
    """Every skill's own trigger-eval file that could be read, and one line per file that could
    not (it is left untouched)."""

    sets: tuple[TriggerEvalSet, ...]
    problems: tuple[str, ...]


def read_found(places: Iterable[tuple[str, Sequence[Path]]]) -> FoundSets:
    """The first trigger-eval file of each (skill, :func:`candidates`), read: only files are
    touched (a ``stat`` or two per skill), so it runs off the UI thread."""
    sets: list[TriggerEvalSet] = []
    problems: list[str] = []
    for skill, paths in places:
        path = first_file(paths)
        if path is None:
            continue
        try:
            sets.append(TriggerEvalSet(skill, read_trigger_file(path), path))
        except TriggerFileError as exc:
            problems.append(str(exc))
    return FoundSets(tuple(sets), tuple(problems))


def all_own(library: Library, names: Iterable[str] | None = None) -> FoundSets:
    """The own files of ``names`` (default: every skill), in that order."""
    chosen = names if names is not None else library.names()
    return read_found([(n, candidates(library, n)) for n in chosen])


# ---------------------------------------------------------------- writing


def save_rows(library: Library, skill: str, rows: Sequence[TriggerRow]) -> ChangeSet | None:
    """Write ``rows`` as skill ``skill``'s trigger-eval file (:func:`home_file`). In the skill's
    folder: one undoable change (returned); beside the query sets: an atomic write (None: not
    part of the library's history). Raises :class:`TriggerFileError` (nothing written)."""
    if not rows:
        raise TriggerFileError(f"no rows to save for {skill}: a trigger-eval file needs at least one")
    target = home_file(library, skill)
    return write_rows(library, rows, target, f"Save trigger evals of '{skill}'")


def write_rows(library: Library, rows: Sequence[TriggerRow], target: Path,
               label: str = "") -> ChangeSet | None:
    """Write ``rows`` in the field's format to ``target``: inside a SKILL.md library's skill
    roots as one undoable change (returned), never inside RockBot's ``skills/``, anywhere else
    atomically (None). Raises :class:`TriggerFileError` (nothing written)."""
    data = dump_rows(rows)
    target = Path(os.path.abspath(target.expanduser()))
    roots = library.skill_roots()
    if not _lexically_inside(target, roots):
        write_beside(library.layout, target, data)
        return None
    if not library.layout.skill_folders:  # RockBot loads every *.json below skills/
        raise TriggerFileError(f"{target}: not inside skills/ (RockBot would load the file as a "
                               "skill); keep it beside the library")
    if target.is_symlink() or not untrusted.is_inside(target.parent, roots):
        raise TriggerFileError(f"{target}: a symbolic link on the way leads outside the library; "
                               "nothing was written")
    try:
        before = fileio.read_or_none(target, DOCUMENT_MAX_BYTES)
    except OSError as exc:
        raise TriggerFileError(f"{target}: {untrusted.reason(target, exc)}") from None
    shown = library.layout.display_path(target)
    change = ChangeSet(label=label or f"Export trigger evals to {shown}",
                       files=(FileChange(target, before, data),))
    return library.apply_change_set(change)


def _lexically_inside(path: Path, folders: Sequence[Path]) -> bool:
    for folder in folders:
        base = Path(os.path.abspath(folder))
        if path == base or base in path.parents:
            return True
    return False
