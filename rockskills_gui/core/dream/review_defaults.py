"""Review defaults that protect the library (issue 16): which proposals start unticked, and why.

A proposal starts unticked, with its reasons shown on its row, when it deletes, prunes or merges
away a skill that

- was **used within the usage window** (usage events of the last 30 days, RockBot's consolidation
  window, counted without RockBot's 10 000-event cap: a use is a use);
- is a **starter skill**: RockBot's StarterSkillService re-creates a missing starter skill at
  its next start, so the deletion does not stick (rockbot-skills.md §6);
- lies under a **protected prefix** (the run's, the profile's such as ``patrol/`` for RockBot
  (current), and the user's Preferences).

It also says which ticked proposals touch a skill whose editor buffer holds unsaved edits: Apply
waits until they are saved, discarded or unticked. Everything here is pure (plain data in,
plain data out) except :func:`read_recent_use`, which reads the usage log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.dream.checks import protected_by
from rockskills_gui.core.dream.offline import STARTER_SKILLS
from rockskills_gui.core.dream.passes import USAGE_DAYS
from rockskills_gui.core.dream.plan import Plan, Proposal, ProposalKind
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.profile import FileKind
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.usage.events import UsageEvent, read_usage

STARTER_REASON = ("'{name}' is a starter skill: RockBot re-creates it at its next start, so the "
                  "deletion does not stick")


@dataclass(frozen=True)
class RecentUse:
    """One skill's use within the window: events (case-insensitive name) and the last one."""

    name: str
    events: int
    last: Timestamp


@dataclass(frozen=True)
class Guards:
    """What the defaults protect: recent use by ``fold(name)``, starter names, protected prefixes."""

    recent: Mapping[str, RecentUse] = field(default_factory=dict)
    days: int = USAGE_DAYS
    starters: frozenset[str] = frozenset(fold(n) for n in STARTER_SKILLS)
    protected: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReviewDefault:
    """Whether a proposal may start ticked; if not, ``reasons`` (sentences) and ``short`` (the row)."""

    ticked: bool = True
    reasons: tuple[str, ...] = ()
    short: str = ""
    shorts: tuple[str, ...] = ()  # the reasons in a few words each (``short`` joins them)


def recent_use(events: Iterable[UsageEvent], since: Timestamp) -> dict[str, RecentUse]:
    """Uses at or after ``since`` by ``fold(name)`` (first spelling kept), every event counted."""
    floor = since.utc_ticks
    found: dict[str, RecentUse] = {}
    for event in events:
        name = event.skill_name
        if name is None or event.timestamp.utc_ticks < floor:
            continue
        key = fold(name)
        seen = found.get(key)
        if seen is None:
            found[key] = RecentUse(name, 1, event.timestamp)
        else:
            last = event.timestamp if event.timestamp.utc_ticks > seen.last.utc_ticks else seen.last
            found[key] = RecentUse(seen.name, seen.events + 1, last)
    return found


def read_recent_use(agent_dir: Path, now: Timestamp, days: int = USAGE_DAYS) -> dict[str, RecentUse]:
    """:func:`recent_use` over the agent's ``skill-usage/`` logs (unreadable lines are skipped)."""
    return recent_use(read_usage(agent_dir).events, now.add_days(-days))


def guards_for(library: Library[Any, Any], plan: Plan, prefixes: Iterable[str] = ()) -> Guards:
    """The guards of a review of ``plan`` on ``library``: recent use up to the plan's reference
    time (where the agent logs usage), RockBot's starter skills (RockBot libraries only), and the
    plan's, the library profile's and ``prefixes`` (the user's) protected prefixes."""
    try:
        now = Timestamp.parse(plan.now)
    except (TimestampError, ValueError):
        now = Timestamp.now()
    profile = library.profile
    chosen: list[str] = []
    for prefix in [*plan.protected_prefixes, *profile.curation.protected_prefixes, *prefixes]:
        if fold(prefix) not in {fold(p) for p in chosen}:
            chosen.append(prefix)
    rockbot = FileKind.ROCKBOT_JSON in profile.storage.file_kinds  # RockBot's starter skills
    recent = read_recent_use(library.agent_dir, now) if profile.holds.usage_log else {}
    return Guards(recent=recent, protected=tuple(chosen),
                  starters=Guards.starters if rockbot else frozenset())


def removed_names(proposal: Proposal) -> list[str]:
    """The skills a proposal makes disappear: what it deletes or prunes, and for a merge the
    sources other than the merged skill itself (merged away)."""
    names = list(proposal.deletes)
    if proposal.kind is ProposalKind.MERGE and proposal.record is not None:
        kept = fold(proposal.record.name)
        names += [s for s in proposal.sources if fold(s) != kept]
    unique: dict[str, str] = {}
    for name in names:
        unique.setdefault(fold(name), name)
    return list(unique.values())


def _verb(proposal: Proposal, name: str) -> str:
    if fold(name) in {fold(d) for d in proposal.deletes}:
        return "prunes" if proposal.kind is ProposalKind.PRUNE else "deletes"
    return "merges away"


def review_default(proposal: Proposal, guards: Guards) -> ReviewDefault:
    """The default for one proposal (see the module doc)."""
    reasons: list[str] = []
    shorts: list[str] = []
    for name in removed_names(proposal):
        shown = display_name(name)
        verb = _verb(proposal, name)
        use = guards.recent.get(fold(name))
        if use is not None:
            times = "once" if use.events == 1 else f"{use.events}×"
            reasons.append(f"{verb} '{shown}', used {times} in the last {guards.days} days "
                           f"(last on {use.last.isoformat()[:10]})")
            shorts.append(f"'{shown}' used {times} in {guards.days} days")
        if fold(name) in guards.starters:
            reasons.append(STARTER_REASON.format(name=shown))
            shorts.append(f"'{shown}' is a starter skill (RockBot re-creates it)")
        prefix = protected_by(name, guards.protected)
        if prefix is not None:
            reasons.append(f"{verb} '{shown}', under the protected prefix '{prefix}'")
            shorts.append(f"'{shown}' is protected ({prefix})")
    if not reasons:
        return ReviewDefault()
    return ReviewDefault(False, tuple(reasons), "Starts unticked: " + "; ".join(shorts), tuple(shorts))


def review_defaults(plan: Plan, guards: Guards) -> dict[str, ReviewDefault]:
    """The default of every proposal, by id (plan order). A proposal that depends on one that
    starts unticked is not listed here: the selection leaves it unticked with what it needs."""
    return {p.id: review_default(p, guards) for p in plan.proposals}


def risky_ids(defaults: Mapping[str, ReviewDefault]) -> set[str]:
    """The ids that start unticked."""
    return {i for i, d in defaults.items() if not d.ticked}


# ---------------------------------------------------------------- unsaved edits


def touched_names(proposal: Proposal) -> list[str]:
    """Every skill a proposal writes, removes or reads its content from (a merge's sources)."""
    names = [*proposal.written_names(), *proposal.sources]
    unique: dict[str, str] = {}
    for name in names:
        unique.setdefault(fold(name), name)
    return list(unique.values())


def unsaved_conflicts(plan: Plan, ticked: Iterable[str], dirty: Iterable[str]) -> dict[str, list[str]]:
    """Skills with unsaved edits (as ``dirty`` spells them) that a ticked proposal touches, each
    with the ids of those proposals (plan order). Empty when Apply may go ahead."""
    wanted = set(ticked)
    by_fold = {fold(name): name for name in sorted(dirty)}
    found: dict[str, list[str]] = {}
    for proposal in plan.proposals:
        if proposal.id not in wanted:
            continue
        for name in touched_names(proposal):
            spelled = by_fold.get(fold(name))
            if spelled is not None:
                found.setdefault(spelled, []).append(proposal.id)
    return found


def unsaved_message(conflicts: Mapping[str, list[str]]) -> str:
    """One sentence naming the skills and proposals (empty when there are none)."""
    if not conflicts:
        return ""
    parts = [f"'{display_name(name)}' ({', '.join(ids)})" for name, ids in conflicts.items()]
    noun = "skill has" if len(conflicts) == 1 else "skills have"
    return (f"Apply is blocked: {len(conflicts)} {noun} unsaved edits in the editor that ticked "
            f"proposals change: {', '.join(parts)}. Save or discard the edits, or untick the "
            "proposals.")
