"""RockBot (current): what a dream apply does to the skills' ``{name}.resources/`` folders.

:func:`~rockskills_gui.core.dream.apply.build_change_set` first decides every skill file the
accepted proposals write; :func:`carry_resources` then compares the skills at the end with the
skills as loaded and adds the resource files' changes to the same change set (one transaction:
journaled, undone together), through the library's own operations:

- a skill that is gone (delete, prune) loses its folder as the library's delete removes it
  (``Library.delete_changes``, as FileSkillStore.DeleteAsync); a folder emptied is removed when
  the change is taken in, and comes back on undo;
- a skill whose file moved (a case-only rename, a save over it spelled differently) takes its
  folder along (``Library.resource_moves``);
- a source merged away into another skill that exists at the end hands its files to that skill's
  folder and its manifest entries to that skill's ``manifest`` (entries whose filename the
  manifest already lists are not repeated). Nothing is lost; a file that would land on a
  different file of the same name refuses the apply. Upstream is silent here (README notes).

The 64e82cc profile has no resources: nothing is added.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rockskills_gui.core.dream.fingerprint import Reads
from rockskills_gui.core.dream.plan import Proposal
from rockskills_gui.core.library.library import Where
from rockskills_gui.core.library.rockbot.library import RockBotLibrary, SkillEntry, manifest_of, with_manifest
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import TimestampError
from rockskills_gui.core.storage.changes import FileChange, LibraryError


class PlanRefused(LibraryError):
    """The plan (or the accepted subset) cannot be applied; ``reasons`` lists why."""

    def __init__(self, message: str, reasons: list[str]) -> None:
        super().__init__(message)
        self.reasons = reasons


def proposed_skill(proposal: Proposal, problem: str | None) -> Skill:
    """The skill ``proposal`` writes; refuses the whole plan when its name or text has
    ``problem`` or its record does not make a valid skill (nothing written)."""
    assert proposal.record is not None
    if problem is not None:
        raise PlanRefused(f"{proposal.id} cannot be applied; nothing was written",
                          [f"{proposal.id}: '{display_name(proposal.record.name)}': {problem}"])
    try:
        return proposal.record.skill()
    except (TimestampError, ValueError) as exc:
        raise PlanRefused(f"{proposal.id} cannot be applied; nothing was written",
                          [f"{proposal.id}: {exc}"]) from None


class Writes:
    """The whole-file writes of one apply: a path's ``before`` is read from disk on first use
    (through ``reads``, shared with the rest of the apply), its ``after`` is the last bytes put
    there (None: removed)."""

    def __init__(self, layout: Where, reads: Reads | None = None) -> None:
        self.layout = layout
        self.reads = reads if reads is not None else Reads()
        self.before: dict[Path, bytes | None] = {}
        self.after: dict[Path, bytes | None] = {}

    def read(self, path: Path) -> bytes | None:
        """What is on disk at ``path`` (None: nothing); PlanRefused when it cannot be read."""
        if path not in self.before:
            try:
                self.before[path] = self.reads.read(path)
            except OSError as exc:
                raise PlanRefused(f"cannot read {self.layout.display_path(path)} "
                                  f"({exc.strerror or exc}); nothing was written", []) from None
        return self.before[path]

    def put(self, path: Path, data: bytes | None) -> None:
        self.read(path)
        self.after[path] = data

    def planned(self, path: Path) -> bytes | None:
        """What ``path`` holds after the writes so far."""
        return self.after[path] if path in self.after else self.read(path)

    def changes(self) -> tuple[FileChange, ...]:
        return tuple(FileChange(path, self.before[path], data) for path, data in self.after.items()
                     if self.before[path] != data)


@dataclass
class EndState:
    """The skill files after the accepted proposals' writes, as build_change_set left them."""

    originals: dict[str, SkillEntry]  # folded name -> the skill as loaded
    final: dict[str, Path]  # folded name -> its file at the end (absent: gone)
    written: dict[str, Skill]  # folded name -> the record last written for it
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)  # folded source -> (proposal
    # id, folded target) of the first accepted proposal that merges it into another skill


def carry_resources(library: RockBotLibrary, state: EndState, writes: Writes) -> None:
    """Add the resource-folder changes of ``state`` to ``writes`` (see the module doc)."""
    if not library.profile.holds.resources:
        return
    moved: list[tuple[SkillEntry, str]] = []
    merged: list[tuple[SkillEntry, str, str]] = []
    gone: list[SkillEntry] = []
    for key, entry in state.originals.items():
        path = state.final.get(key)
        if path is None:
            owner = owner_of(state, key)
            if owner is None:
                gone.append(entry)
            else:
                merged.append((entry, *owner))
        elif path != entry.path and not same_file(entry.path, path):
            moved.append((entry, state.written[key].name))
    for entry, new_name in moved:  # first: a merge into it lands in its new folder
        _place(library, writes, _moves(library, entry, new_name), entry, new_name, None)
    for entry, proposal_id, target in merged:
        name = state.written[target].name if target in state.written else \
            state.originals[target].skill.name
        _place(library, writes, _moves(library, entry, name), entry, name, proposal_id)
        _merge_manifest(state, writes, target, manifest_of(entry.skill) or [])
    for entry in gone:
        for fc in _guarded(library, partial(library.delete_changes, entry)):
            writes.put(fc.path, fc.after)


def same_file(old: Path, new: Path) -> bool:
    """True when ``old`` and ``new`` are one file (the same path, or a case-insensitive file
    system's two spellings of it)."""
    if old == new:
        return True
    try:
        return os.path.samefile(old, new)
    except (OSError, ValueError):
        return False


def owner_of(state: EndState, key: str) -> tuple[str, str] | None:
    """The proposal and the skill existing at the end that ``key`` was merged into (through a
    chain of merges in the same plan), or None."""
    seen = {key}
    owner = state.owners.get(key)
    while owner is not None and owner[1] not in state.final:
        if owner[1] in seen:
            return None
        seen.add(owner[1])
        owner = state.owners.get(owner[1])
    return owner


def _moves(library: RockBotLibrary, entry: SkillEntry, new_name: str) -> list[FileChange]:
    return _guarded(library, partial(library.resource_moves, entry, new_name))


def _guarded(library: RockBotLibrary, changes: Callable[[], list[FileChange]]) -> list[FileChange]:
    """The library's changes for a resource folder; PlanRefused when a file cannot be read."""
    try:
        return list(changes())
    except OSError as exc:
        where = getattr(exc, "path", None) or exc.filename or ""
        shown = library.layout.display_path(Path(where)) if where else "a resource file"
        raise PlanRefused(f"cannot read {shown} ({exc.strerror or exc}); nothing was written",
                          []) from None


def _place(library: RockBotLibrary, writes: Writes, changes: list[FileChange], entry: SkillEntry,
           name: str, proposal_id: str | None) -> None:
    """Put the moves of ``entry``'s files into ``name``'s folder; never over a different file."""
    for fc in changes:
        if fc.after is not None:
            there = writes.planned(fc.path)
            if there is not None and there != fc.after:
                shown = library.layout.display_path(fc.path)
                what = f"'{entry.skill.name}' is merged into '{display_name(name)}'" if proposal_id \
                    else f"'{entry.skill.name}' becomes '{display_name(name)}'"
                reason = (f"{what}, and {shown} already holds a different file; move or rename "
                          "one of them first")
                label = proposal_id or "the plan"
                raise PlanRefused(f"{label} cannot be applied: {reason}; nothing was written",
                                  [f"{label}: {reason}"])
        writes.put(fc.path, fc.after)


def _merge_manifest(state: EndState, writes: Writes, target: str, entries: list[dict[str, Any]]) -> None:
    """Append ``entries`` to the target's manifest (filenames it lists already are skipped)."""
    skill = state.written.get(target)
    if skill is None or not entries:
        return
    value = skill.extra_value("manifest")
    manifest: list[Any] = list(value) if isinstance(value, list) else []
    listed = {fold(e["filename"]) for e in manifest
              if isinstance(e, dict) and isinstance(e.get("filename"), str)}
    added = False
    for item in entries:
        filename = item.get("filename")
        if isinstance(filename, str):
            if fold(filename) in listed:
                continue
            listed.add(fold(filename))
        manifest.append(item)
        added = True
    if not added:
        return
    skill = with_manifest(skill, manifest)
    state.written[target] = skill
    writes.put(state.final[target], skill_to_bytes(skill))


