"""Apply the accepted proposals of a plan as one journaled transaction, and undo it.

Nothing is written unless every accepted proposal is acceptable (not blocked, not advisory, its
dependencies accepted too) and the library is the one the plan was made for (same fingerprint), or
the plan was re-checked against the library as it is now. A plan is a file anyone can edit: every
check is run again here, on the library as it is now, whatever findings the plan holds, and the
change set itself refuses a name RockBot would refuse and any file that is not the file of a
loaded skill (a problem file, a folder, a FIFO, a symbolic link). The change goes through
:meth:`Library.apply_change_set` (conflict check, one undo step in the session) with
:mod:`journal` as the writer (crash-safe, and the undo record for ``rockskills undo``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rockskills_gui.core.dream import fingerprint
from rockskills_gui.core.dream.apply_resources import (
    EndState,
    PlanRefused,
    Writes,
    carry_resources,
    owner_of,
    proposed_skill,
    same_file,
)
from rockskills_gui.core.dream.apply_skillmd import archive_info, skill_md_change_set
from rockskills_gui.core.dream.checks import CheckContext, check_plan, name_problem, path_problem
from rockskills_gui.core.dream.formats import DreamLibrary, is_skill_md, rules_of, skill_md_rules
from rockskills_gui.core.dream.plan import Plan, Proposal, ProposalKind, Severity, touched_path_error
from rockskills_gui.core.dream.preselect import preselect
from rockskills_gui.core.dream.review_defaults import guards_for
from rockskills_gui.core.library.archive import archive_writes
from rockskills_gui.core.library.rockbot.library import as_rockbot
from rockskills_gui.core.library.skillmd.library import as_skill_md
from rockskills_gui.core.model.mcp_freshness import carried_baseline
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.profile import Delete
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES
from rockskills_gui.core.model.skill import (
    Skill,
    rendered_property,
    skill_to_bytes,
    with_null_properties,
    with_property,
    with_rendered_property,
)
from rockskills_gui.core.storage import fileio, journal
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import CHECKING, Progress, counted

__all__ = ["ApplyResult", "PlanRefused", "UndoResult", "apply_plan", "build_change_set", "checked",
           "library_changes", "recheck", "selection_problems", "touched_since", "undo_last"]


@dataclass(frozen=True)
class ApplyResult:
    """What was applied: the transaction id (None when nothing had to change) and the change set."""

    tx_id: str | None
    accepted: list[str]
    change: ChangeSet


@dataclass(frozen=True)
class UndoResult:
    tx_id: str | None
    undone: str | None
    change: ChangeSet | None
    message: str
    changed_files: list[str] = field(default_factory=list)


def selection_problems(plan: Plan, accepted: Iterable[str]) -> list[str]:
    """Why the accepted ids cannot be applied together (empty when they can)."""
    ids = list(dict.fromkeys(accepted))
    chosen = set(ids)
    known = set(plan.ids())
    problems: list[str] = []
    for proposal_id in ids:
        if proposal_id not in known:
            problems.append(f"{proposal_id}: no such proposal in the plan")
            continue
        proposal = plan.get(proposal_id)
        if proposal.advisory:
            problems.append(f"{proposal_id}: advisory only (nothing to apply)")
        for finding in proposal.findings:
            if finding.severity is Severity.BLOCK:
                problems.append(f"{proposal_id}: blocked: {display_name(finding.message, 500)}")
        for needed in proposal.depends_on:
            if needed not in chosen:
                problems.append(f"{proposal_id} depends on {needed}, which is not accepted")
        for other in proposal.conflicts_with:
            if other in chosen and other > proposal_id:
                problems.append(f"{proposal_id} and {other} change the same skill; accept only one")
    return problems


def with_carried_baseline(skill: Skill, sources: Iterable[str], catalog: dict[str, Skill]) -> Skill:
    """``skill`` (a merge's or a rewrite's) with the ``surfaceBaseline`` RockBot (current) gives it:
    the oldest of its same-server sources' and its own, as they were before the pass, or null
    (``CarriedSurfaceBaseline``, #615; :func:`carried_baseline`)."""
    carried = carried_baseline(skill.name, list(sources), catalog)
    text = rendered_property(catalog[fold(carried[0])], "surfaceBaseline") if carried else None
    return with_rendered_property(skill, "surfaceBaseline", text or "null")


def build_change_set(library: DreamLibrary, plan: Plan, accepted: Iterable[str],
                     reads: fingerprint.Reads | None = None) -> ChangeSet:
    """The whole-file changes of the accepted proposals, replayed in plan order on the library
    (``reads``: what the apply read so far, shared so that each file is read once).

    Raises :class:`PlanRefused` (nothing written) when a proposal would write a name RockBot
    refuses or a file that is not the file of a loaded skill of that name (a problem file, a
    folder, a FIFO, a symbolic link, a file that appeared since the library was read).

    RockBot (current): a merge or a rewrite gets its carried ``surfaceBaseline``
    (:func:`with_carried_baseline`); a save over a skill keeps the properties the plan's record does not model
    -- the ``manifest`` as FileSkillStore.SaveAsync keeps it when the saved skill has none, and
    ``surfaceBaseline`` and any other alike (also when the plan deletes the skill and saves it
    again) -- and the resource folders follow the skills (:mod:`.apply_resources`): a deleted
    skill's folder goes as the library's delete removes it, a renamed file takes its folder along,
    a merged-away source's files and manifest entries go to the skill it was merged into.

    Every skill the accepted proposals remove (deleted, pruned, merged away) is archived in the
    same change set, byte for byte with a record (:mod:`~rockskills_gui.core.library.archive`).
    A SKILL.md library's changes are made by :func:`~.apply_skillmd.skill_md_change_set`.
    """
    if is_skill_md(library):
        return skill_md_change_set(as_skill_md(library), plan, accepted, reads)
    library = as_rockbot(library)
    wanted = set(accepted)
    layout = library.layout
    originals = {fold(entry.skill.name): entry for entry in library.entries()}
    current: dict[str, Path] = {key: entry.path for key, entry in originals.items()}
    kept: dict[str, tuple[tuple[str, str], ...]] = {}  # unmodelled properties a save-over keeps
    if library.profile.holds.resources:
        kept = {key: entry.skill.extra for key, entry in originals.items() if entry.skill.extra}
    carry = library.profile.curation.carry_mcp_baseline
    nulls = library.profile.storage.null_properties
    catalog = {key: entry.skill for key, entry in originals.items()}
    writes = Writes(layout, reads)
    put = writes.put
    written: dict[str, Skill] = {}
    owners: dict[str, tuple[str, str]] = {}
    created: list[str] = []
    updated: list[str] = []
    deleted: list[str] = []
    removed_by: dict[str, Proposal] = {}
    for proposal in plan.proposals:
        if proposal.id not in wanted:
            continue
        for name in proposal.deletes:
            path = current.pop(fold(name), None)
            if path is not None:
                put(path, None)
                deleted.append(name)
                removed_by.setdefault(fold(name), proposal)
        if proposal.record is not None:
            name = proposal.record.name
            old = current.get(fold(name))
            target = layout.path_for(name)
            mine = target in writes.after or (old is not None and same_file(old, target))  # a skill's file
            skill = proposed_skill(proposal, name_problem(name, layout)
                                   or path_problem(name, layout, library.problems, mine))
            extra = kept.get(fold(name))
            if extra and not skill.extra:
                skill = skill.model_copy(update={"extra": extra})
            skill = with_null_properties(skill, nulls)  # in the agent's order, before any is set
            if carry and proposal.kind in (ProposalKind.MERGE, ProposalKind.REWRITE):
                skill = with_carried_baseline(skill, proposal.sources, catalog)
            if proposal.kind is ProposalKind.MCP_REFRESH:  # the baseline it was refreshed against
                skill = with_property(skill, "surfaceBaseline", proposal.surface_baseline)
            if old is not None and old != target:
                put(old, None)
            (updated if old is not None else created).append(skill.name)
            put(target, skill_to_bytes(skill))
            current[fold(skill.name)] = target
            written[fold(skill.name)] = skill
            for source in proposal.sources:
                if fold(source) != fold(skill.name):
                    owners.setdefault(fold(source), (proposal.id, fold(skill.name)))
    state = EndState(originals, current, written, owners)
    carry_resources(library, state, writes)
    now = library.clock()
    taken: set[str] = set()
    archives = library.profile.curation.delete is Delete.ARCHIVE
    for key, entry in originals.items():
        if key in current or not archives:
            continue
        info = archive_info(plan, removed_by.get(key), owner_of(state, key),
                            lambda k: written[k].name if k in written else originals[k].skill.name)
        for fc in archive_writes(library, entry, info, now, taken):
            put(fc.path, fc.after)
    count = len(wanted)
    return ChangeSet(label=f"Apply dream plan ({count} proposal{'s' if count != 1 else ''})",
                     files=writes.changes(), created=tuple(dict.fromkeys(created)),
                     updated=tuple(dict.fromkeys(updated)), deleted=tuple(dict.fromkeys(deleted)))


def checked(plan: Plan, library: DreamLibrary, reads: fingerprint.Reads | None = None) -> Plan:
    """A copy of ``plan`` with every check run again on the library as it is now.

    The checks' findings stored in the plan are dropped and made again (a plan file can be edited
    by hand); findings made while reading the reply (the safety guard, ...) are kept, so this can
    only block more. Every proposal whose files changed since it was proposed is blocked as stale.
    The fingerprint is kept: see :func:`recheck` for a library that changed. ``reads``: what
    the apply read so far (each file is read and hashed once).
    """
    fresh = plan.model_copy(deep=True)
    check_plan(fresh, CheckContext.of(library.skills(), library.problems, fresh.protected_prefixes, fresh,
                                      library.layout, rules_of(library), naming=skill_md_rules(library)))
    for proposal in fresh.proposals:
        for path, digest in proposal.touched.items():
            problem = touched_path_error(path)
            if problem is None:
                where = library.agent_dir / path
                try:
                    now = reads.digest(where) if reads is not None \
                        else sha256(fileio.read_or_none(where, RESOURCE_MAX_BYTES))
                except OSError as exc:
                    problem = f"{display_name(path)} cannot be read ({exc.strerror or exc})"
                else:
                    if now == digest:
                        continue
                    problem = f"{display_name(path)} changed since the plan was made"
            proposal.add("stale", Severity.BLOCK, f"{problem}; make a new plan")
    preselect(fresh, guards_for(library, fresh))  # never what the file says
    return fresh


def recheck(plan: Plan, library: DreamLibrary, taken: fingerprint.Fingerprint | None = None,
            reads: fingerprint.Reads | None = None) -> Plan:
    """A copy of ``plan`` checked against the library as it is now (:func:`checked`), with the
    library's fingerprint now (``taken``: one the caller just took), so that it can be applied to
    the library that changed."""
    fresh = checked(plan, library, reads)
    fresh.fingerprint = taken if taken is not None else fingerprint.of_library(library)
    return fresh


def library_changes(plan: Plan, library: DreamLibrary) -> list[str]:
    """Skill files added, removed or changed since the plan's fingerprint (empty when none)."""
    return fingerprint.compare(plan.fingerprint, fingerprint.of_library(library)).lines()


def touched_since(plan: Plan, library: DreamLibrary) -> dict[str, list[str]]:
    """The proposals whose files changed since the plan was made (by id, in plan order), each
    with the changed files (paths as the plan names them): what a re-check would block as stale.
    Only the proposals' own files are read; for the whole library see :func:`library_changes`."""
    found: dict[str, list[str]] = {}
    for proposal in plan.proposals:
        for path, digest in proposal.touched.items():
            if touched_path_error(path) is not None:
                continue  # refused by the checks anyway
            try:
                now = sha256(fileio.read_or_none(library.agent_dir / path, RESOURCE_MAX_BYTES))
            except OSError:
                now = "unreadable"
            if now != digest:
                found.setdefault(proposal.id, []).append(path)
    return found


def apply_plan(library: DreamLibrary, plan: Plan, accepted: Iterable[str], recheck_first: bool = False,
               crash_after: int | None = None, progress: Progress | None = None) -> ApplyResult:
    """Apply the accepted proposals as one transaction (raises PlanRefused / LibraryError).

    Every check is run again first (:func:`checked`). ``recheck_first`` allows a library that
    changed since the plan: the plan is re-checked (see :func:`recheck`) and the accepted proposals
    must still pass. ``progress`` (default: the library's, e.g. the UI's operation runner) hears
    every skill file checked and every file written, and may cancel until the write begins
    (:class:`~rockskills_gui.core.storage.progress.Cancelled`, nothing written).
    ``crash_after`` is for tests.

    Each file is read and hashed once (:class:`fingerprint.Reads`): the files the change writes
    are read first, and the fingerprint, the stale checks and the journal's copy of each file use
    those very bytes; a file changed on disk after it was read is refused by the write's checked
    swap (the transaction is rolled back), one changed before shows in the fingerprint.
    """
    ids = list(dict.fromkeys(accepted))
    if not ids:
        raise PlanRefused("no proposal accepted", [])
    progress = progress if progress is not None else library.progress
    reads = fingerprint.Reads()
    change: ChangeSet | None = None
    refused: PlanRefused | None = None
    try:  # first, so that the fingerprint hashes the very bytes the change replaces
        change = build_change_set(library, plan, ids, reads)
    except PlanRefused as exc:  # said after the checks' own reasons, as before
        refused = exc
    now = fingerprint.of_library(library, progress, reads)
    changed = fingerprint.compare(plan.fingerprint, now).lines()
    if changed:
        if not recheck_first:
            raise PlanRefused("the library changed since the plan was made; re-check the plan to apply "
                              "it anyway", changed)
        plan = recheck(plan, library, now, reads)
    else:
        plan = checked(plan, library, reads)  # never the findings stored in the plan
    problems = selection_problems(plan, ids)
    if problems:
        raise PlanRefused("the accepted proposals cannot be applied", problems)
    if refused is not None:
        raise refused
    assert change is not None
    if change.empty:
        return ApplyResult(None, ids, change)
    before_shas = {fc.path: reads.digest(fc.path) for fc in change.files if fc.before is not None}
    box: dict[str, str] = {}

    def write(cs: ChangeSet) -> ChangeSet:
        tx = journal.run(library.journal_layout(fc.path for fc in cs.files), cs.files, "apply", cs.label,
                         meta={"plan": plan.fingerprint.digest, "accepted": ids,
                               "created": list(cs.created), "updated": list(cs.updated),
                               "deleted": list(cs.deleted)},
                         crash_after=crash_after, progress=progress, before_shas=before_shas)
        box["id"] = tx.id
        return replace(cs, journal=("apply", tx.id))  # Edit ▸ Undo undoes it through the journal

    recorded = library.apply_change_set(change, writer=write, read_now=True)
    return ApplyResult(box.get("id"), ids, recorded)


def undo_last(library: DreamLibrary, crash_after: int | None = None,
              progress: Progress | None = None) -> UndoResult:
    """Undo the last applied plan from its journal record, as one new journaled transaction.

    Refused (nothing written) when a file it changed was changed again since. ``progress``
    (default: the library's) hears each file checked and written and may cancel until the first
    write, the "already undone" marker included.
    """
    progress = progress if progress is not None else library.progress
    tx = journal.last_undoable(library.agent_dir)
    home = Layout(library.agent_dir, library.skills_dir)  # (the journal's paths are the folder's)
    if tx is None:
        return UndoResult(None, None, None, "nothing to undo: no applied plan on record")
    states = list(counted(journal.states_of(tx, home), len(tx.files), CHECKING, progress))
    if all(current == entry.before_sha for entry, current in states):
        progress.begin_write()  # the marker is a write: never after a cancel
        journal.mark_undone(library.agent_dir, tx.id, "already")
        return UndoResult(None, tx.id, None, f"'{tx.label}' was already undone")
    changed = [entry.path for entry, current in states if current != entry.after_sha]
    if changed:
        return UndoResult(None, None, None,
                          f"cannot undo '{tx.label}': files changed since it was applied",
                          changed)
    change = ChangeSet(label=f"Undo: {tx.label}", files=tuple(journal.changes_of(tx, home,
                                                                                 inverse=True)),
                       created=tuple(tx.meta.get("deleted", [])), updated=tuple(tx.meta.get("updated", [])),
                       deleted=tuple(tx.meta.get("created", [])))
    # What each file holds now was just hashed: its after bytes, whose digest the entry keeps.
    before_shas = {library.agent_dir / entry.path: entry.after_sha for entry, _current in states}
    box: dict[str, str] = {}

    def write(cs: ChangeSet) -> ChangeSet:
        undo_tx = journal.run(library.journal_layout(fc.path for fc in cs.files), cs.files, "undo",
                              cs.label, undoes=tx.id,
                              crash_after=crash_after, progress=progress, before_shas=before_shas)
        box["id"] = undo_tx.id
        return replace(cs, journal=("undo", tx.id))  # Edit ▸ Undo re-applies it through the journal

    recorded = library.apply_change_set(change, writer=write, read_now=True)
    return UndoResult(box.get("id"), tx.id, recorded, f"undid '{tx.label}'")
