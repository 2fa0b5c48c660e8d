"""A dream plan's accepted proposals as a SKILL.md library's file changes (RockBot's:
:func:`~rockskills_gui.core.dream.apply.build_change_set`).

The accepted proposals are first replayed in plan order on the names (what exists at the end,
with which text); then each skill is written the format's way:

- a skill that stays is rewritten in its own file, only what changed (``edited_bytes``: its
  frontmatter keys, comments, line endings and resources are kept);
- a new skill goes to ``<root>/<name>/SKILL.md`` of the library's first root, written from the
  frontmatter of its first source that exists (a merge keeps ``license``, ``metadata``,
  ``allowed-tools``… of what it merges; name, description and body are the proposal's), or as a
  fresh SKILL.md when it has none;
- a skill that is gone (deleted, pruned, merged away) loses its whole folder, as the library's
  delete removes it, and is archived in the same change (:mod:`~rockskills_gui.core.library.archive`);
  a merged-away source's resources go to the folder of the skill it was merged into (a file that
  would land on a different file of the same name refuses the apply).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.dream.apply_resources import PlanRefused, Writes, proposed_skill
from rockskills_gui.core.dream.fingerprint import Reads
from rockskills_gui.core.dream.formats import SkillMdRules
from rockskills_gui.core.dream.plan import Plan, Proposal, ProposalKind
from rockskills_gui.core.library.archive import archive_writes
from rockskills_gui.core.library.archive_records import ArchiveInfo
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.library.skillmd.store import SkillMdEntry, edited_bytes, new_skill_bytes
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profile import Delete
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet, FileChange, LibraryError


@dataclass
class _End:
    """One skill at the end of the accepted proposals."""

    skill: Skill
    path: Path  # its SKILL.md
    template: SkillMdEntry | None  # the loaded file its bytes are made from (None: a fresh one)
    changed: bool


def skill_md_change_set(library: SkillMdLibrary, plan: Plan, accepted: Iterable[str],
                        reads: Reads | None = None) -> ChangeSet:
    """The whole-file changes of the accepted proposals on a SKILL.md library (see the module
    doc); PlanRefused (nothing written) for a name the format refuses or a folder in the way."""
    wanted = set(accepted)
    rules = SkillMdRules(library.profile)
    originals: dict[str, SkillMdEntry] = {fold(e.skill.name): e for e in library.entries()
                                          if isinstance(e, SkillMdEntry)}
    end: dict[str, _End] = {k: _End(e.skill, e.path, e, False) for k, e in originals.items()}
    removed_by: dict[str, Proposal] = {}
    owners: dict[str, tuple[str, str]] = {}  # folded source -> (proposal id, folded target)
    created: list[str] = []
    updated: list[str] = []
    deleted: list[str] = []
    for proposal in plan.proposals:
        if proposal.id not in wanted:
            continue
        for name in proposal.deletes:
            if end.pop(fold(name), None) is not None:
                removed_by.setdefault(fold(name), proposal)
                deleted.append(name)
        if proposal.record is None:
            continue
        name = proposal.record.name
        skill = proposed_skill(proposal, rules.name_problem(name)
                               or rules.description_problem(proposal.record.summary or ""))
        key = fold(name)
        known = end.get(key)
        if known is not None:
            end[key] = _End(skill, known.path, known.template, True)
            updated.append(skill.name)
            continue
        original = originals.get(key)  # deleted earlier in this plan and saved again: its file
        template = original or next((originals[fold(s)] for s in proposal.sources
                                     if fold(s) in originals), None)
        path = original.path if original is not None else library.layout.path_for(name)
        end[key] = _End(skill, path, template, True)
        (updated if original is not None else created).append(skill.name)
        for source in proposal.sources:
            if fold(source) != key:
                owners.setdefault(fold(source), (proposal.id, key))
    writes = Writes(library.layout, reads)
    gone = [entry for key, entry in originals.items() if key not in end]
    for entry in gone:
        for fc in _guarded(library, entry):
            writes.put(fc.path, None)
    for key, item in end.items():
        if not item.changed:
            continue
        writes.put(item.path, _bytes(library, item))
        if key not in originals:
            _check_folder(library, item.path.parent, writes)
    for entry in gone:
        owner = _owner(owners, fold(entry.skill.name), end)
        if owner is not None:
            _carry(library, entry, end[owner[1]], owner[0], writes)
    _archive(library, plan, gone, removed_by, owners, end, writes)
    count = len(wanted)
    return ChangeSet(label=f"Apply dream plan ({count} proposal{'s' if count != 1 else ''})",
                     files=writes.changes(), created=tuple(dict.fromkeys(created)),
                     updated=tuple(dict.fromkeys(updated)), deleted=tuple(dict.fromkeys(deleted)))


def _bytes(library: SkillMdLibrary, item: _End) -> bytes:
    """``item``'s SKILL.md: its template's file with what differs rewritten, or a fresh one."""
    if item.template is None:
        return new_skill_bytes(item.skill, library.profile)
    return edited_bytes(item.template, item.skill, library.profile)


def _guarded(library: SkillMdLibrary, entry: SkillMdEntry) -> list[FileChange]:
    """The files a delete of ``entry`` removes; PlanRefused when that is refused (a linked folder,
    a FIFO among its files)."""
    try:
        return library._delete_files(entry)
    except LibraryError as exc:
        raise PlanRefused(f"{exc}", [str(exc)]) from None


def _check_folder(library: SkillMdLibrary, folder: Path, writes: Writes) -> None:
    """A new skill's folder must be free: absent, or emptied by this very change."""
    if not folder.exists() and not folder.is_symlink():
        return
    leaving = {p for p, data in writes.after.items() if data is None}
    try:
        inside = [p for p in folder.rglob("*") if p.is_file() or p.is_symlink()]
    except OSError:
        inside = [folder]
    if folder.is_symlink() or any(p not in leaving and p not in writes.after for p in inside):
        shown = library.layout.display_path(folder)
        raise PlanRefused(f"{shown} is already on disk; nothing was written",
                          [f"{shown} is already on disk and is not a skill this plan replaces: move "
                           "it away first"])


def _owner(owners: dict[str, tuple[str, str]], key: str,
           end: dict[str, _End]) -> tuple[str, str] | None:
    """The proposal and the skill existing at the end that ``key`` was merged into (through a
    chain of merges), or None."""
    seen = {key}
    owner = owners.get(key)
    while owner is not None and owner[1] not in end:
        if owner[1] in seen:
            return None
        seen.add(owner[1])
        owner = owners.get(owner[1])
    return owner


def _carry(library: SkillMdLibrary, entry: SkillMdEntry, target: _End, proposal_id: str,
           writes: Writes) -> None:
    """Move a merged-away source's resource files into the folder of the skill it went into."""
    folder = target.path.parent
    for rel in entry.resources:
        source = entry.folder / rel
        data = writes.read(source)
        if data is None:
            continue
        dest = folder / rel
        there = writes.planned(dest)
        if there is not None and there != data:
            shown = library.layout.display_path(dest)
            reason = (f"'{entry.skill.name}' is merged into '{target.skill.name}', and {shown} already "
                      "holds a different file; move or rename one of them first")
            raise PlanRefused(f"{proposal_id} cannot be applied: {reason}; nothing was written",
                              [f"{proposal_id}: {reason}"])
        writes.put(dest, data)


def _archive(library: SkillMdLibrary, plan: Plan, gone: list[SkillMdEntry],
             removed_by: dict[str, Proposal], owners: dict[str, tuple[str, str]],
             end: dict[str, _End], writes: Writes) -> None:
    """Archive every skill the plan removes, in the same change (where the profile's curation
    says a delete archives)."""
    if library.profile.curation.delete is not Delete.ARCHIVE:
        return
    now = library.clock()
    taken: set[str] = set()
    for entry in gone:
        key = fold(entry.skill.name)
        info = archive_info(plan, removed_by.get(key), _owner(owners, key, end),
                            lambda k: end[k].skill.name)
        for fc in archive_writes(library, entry, info, now, taken):
            writes.put(fc.path, fc.after)


def archive_info(plan: Plan, proposal: Proposal | None, owner: tuple[str, str] | None,
                 name_of: Callable[[str], str]) -> ArchiveInfo:
    """Why a skill a plan removes is archived: merged away (and into what), pruned or deleted."""
    absorbed = name_of(owner[1]) if owner is not None else None
    pruned = proposal is not None and proposal.kind is ProposalKind.PRUNE
    action = "merge" if absorbed else ("prune" if pruned else "delete")
    return ArchiveInfo(action=action, reason=proposal.title if proposal is not None else "",
                       plan=plan.created_at, proposal=proposal.id if proposal is not None else None,
                       absorbed_into=absorbed)
