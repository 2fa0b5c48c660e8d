"""Curation signals derived from usage: links to add, links to review, dead weight, prune candidates.

- *link these two*: pairs used together in at least ``min_sessions`` sessions of the window whose
  skills both exist and neither names the other in ``seeAlso`` (the ``max_links`` strongest);
- *review this link*: ``seeAlso`` entries whose two skills were never used together in the window
  (or whose target does not exist);
- *never used*: no usage event in the whole log and no ``lastUsedAt``;
- *unused for N days*: last use (latest of ``lastUsedAt`` and the log) at least N days ago;
- *prune*: last activity ``lastUsedAt ?? updatedAt ?? createdAt`` before ``now`` minus 18
  calendar months (§10.3): the next dream deletes the skill; *prune soon*: that happens within
  ``soon_days`` if nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.records import Pair
from rockskills_gui.core.usage.stats import UsageStats

PRUNE_MONTHS = 18
SUGGEST_MIN_SESSIONS = 2
UNUSED_DAYS = 30
PRUNE_SOON_DAYS = 30
MAX_LINKS = 1000  # link suggestions kept (a session of thousands of skills has millions of pairs)


@dataclass(frozen=True, slots=True)
class LinkSuggestion:
    """``a`` and ``b`` were used together in ``sessions`` sessions but are not linked."""

    a: str
    b: str
    sessions: int


@dataclass(frozen=True, slots=True)
class LinkReview:
    """``referrer``'s seeAlso names ``target``, yet they were never used together."""

    referrer: str
    target: str
    target_exists: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Activity:
    """A skill's clocks: last activity (the prune rule's), last use seen anywhere, idle days."""

    name: str
    last_activity: Timestamp
    last_used: Timestamp | None
    idle_days: int | None
    prune_due: bool
    prune_soon: bool


@dataclass
class Signals:
    link: list[LinkSuggestion]  # strongest first; more qualified when link_truncated
    review: list[LinkReview]
    never_used: list[str]
    unused: list[Activity]
    prune: list[Activity]
    prune_soon: list[Activity]
    activity: dict[str, Activity]  # fold(name) -> activity, every library skill
    prune_threshold: Timestamp
    link_truncated: bool = False


def prune_threshold(now: Timestamp) -> Timestamp:
    """``now.AddMonths(-18)``: skills last active before this are deleted by the next dream."""
    return now.add_months(-PRUNE_MONTHS)


def linked(skills: Sequence[Skill]) -> set[tuple[str, str]]:
    """Folded (referrer, target) pairs of every seeAlso entry."""
    return {(fold(s.name), fold(t)) for s in skills for t in (s.see_also or ())}


def derive(skills: Sequence[Skill], window: UsageStats, history: UsageStats, now: Timestamp,
           unused_days: int = UNUSED_DAYS, min_sessions: int = SUGGEST_MIN_SESSIONS,
           soon_days: int = PRUNE_SOON_DAYS, max_links: int = MAX_LINKS,
           pairs: Sequence[Pair] | None = None) -> Signals:
    """Signals for the library ``skills``; ``window`` = the chosen window, ``history`` = all time;
    ``pairs``: the top of ``window.pairs`` to suggest links from (default: all of them)."""
    present = {fold(s.name): s.name for s in skills}
    links = linked(skills)

    suggestions: list[LinkSuggestion] = []
    truncated = False
    for pair in window.pairs if pairs is None else pairs:
        if pair.sessions < min_sessions:
            break  # pairs are ordered by count descending
        a, b = fold(pair.a), fold(pair.b)
        if a in present and b in present and (a, b) not in links and (b, a) not in links:
            if len(suggestions) == max_links:
                truncated = True
                break
            suggestions.append(LinkSuggestion(present[a], present[b], pair.sessions))

    reviews = []
    for skill in skills:
        for target in skill.see_also or ():
            key = fold(target)
            exists = key in present
            if not exists:
                reason = "target missing"
            elif key == fold(skill.name):
                reason = "links to itself"
            elif not window.pair_sessions(skill.name, target):
                reason = "not used together"
            else:
                continue
            reviews.append(LinkReview(skill.name, present.get(key, target), exists, reason))

    threshold = prune_threshold(now)
    soon = prune_threshold(now.add_days(soon_days))
    activity: dict[str, Activity] = {}
    for skill in skills:
        logged = history.usage.get(fold(skill.name))
        last_used = skill.last_used_at
        if logged is not None and (last_used is None or logged.last.utc_ticks > last_used.utc_ticks):
            last_used = logged.last
        last = skill.last_activity()
        activity[fold(skill.name)] = Activity(
            skill.name, last, last_used,
            now.whole_days_since(last_used) if last_used is not None else None,
            last.utc_ticks < threshold.utc_ticks,
            threshold.utc_ticks <= last.utc_ticks < soon.utc_ticks)

    by_name = sorted(activity.values(), key=lambda a: sort_key(a.name))
    idle = sorted((a for a in by_name if a.idle_days is not None and a.idle_days >= unused_days),
                  key=lambda a: -(a.idle_days or 0))
    stale = sorted(by_name, key=lambda a: a.last_activity.utc_ticks)
    return Signals(
        link=suggestions,
        review=reviews,
        never_used=[a.name for a in by_name if a.last_used is None],
        unused=idle,
        prune=[a for a in stale if a.prune_due],
        prune_soon=[a for a in stale if a.prune_soon],
        activity=activity,
        prune_threshold=threshold,
        link_truncated=truncated,
    )
