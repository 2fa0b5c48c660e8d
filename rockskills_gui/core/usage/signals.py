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

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.records import Pair
from rockskills_gui.core.usage.stats import UsageStats

PRUNE_MONTHS = 18
SUGGEST_MIN_SESSIONS = 2
UNUSED_DAYS = 30
PRUNE_SOON_DAYS = 30
NEVER = np.iinfo(np.int64).min  # idle days of a skill never used
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


class ActivityTable(Mapping[str, Activity]):
    """fold(name) -> :class:`Activity` of every library skill (the last skill of a name when two
    spell it alike), kept as arrays beside the skills: an Activity is made when asked for (100,000
    objects, their folded keys and a dict were ~25 MB). Keys iterate in first-seen order."""

    def __init__(self, skills: Sequence[Skill], units: np.ndarray, last_used: list[Timestamp | None],
                 idle: np.ndarray, due: np.ndarray, soon: np.ndarray,
                 speaker: np.ndarray | None) -> None:
        self._skills = skills
        self.units = units  # per distinct name, the skill that speaks for it (first-seen order)
        self._speaker = speaker  # per skill, the skill speaking for its name (None: itself)
        self._last_used = last_used  # per skill
        self.idle = idle  # per skill, NEVER = never used
        self.due, self.soon = due, soon  # per skill
        hashes = np.fromiter((hash(fold(skills[u].name)) for u in units), dtype=np.int64,
                             count=len(units))
        self._order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[self._order]

    def at(self, index: int) -> Activity:
        """The activity of ``skills[index]`` itself."""
        skill = self._skills[index]
        idle = int(self.idle[index])
        return Activity(skill.name, skill.last_activity(), self._last_used[index],
                        None if idle == NEVER else idle, bool(self.due[index]), bool(self.soon[index]))

    def of_skill(self, index: int) -> Activity:
        """What the table holds for the name of ``skills[index]`` (the last skill of it)."""
        return self.at(index if self._speaker is None else int(self._speaker[index]))

    def last_used(self, index: int) -> Timestamp | None:
        """:meth:`of_skill`'s ``last_used`` without making the Activity."""
        return self._last_used[index if self._speaker is None else int(self._speaker[index])]

    def __getitem__(self, key: str) -> Activity:
        found = hash(key)
        low = int(np.searchsorted(self._hashes, found, "left"))
        high = int(np.searchsorted(self._hashes, found, "right"))
        for slot in self._order[low:high]:
            unit = int(self.units[slot])
            if fold(self._skills[unit].name) == key:
                return self.at(unit)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (fold(self._skills[int(u)].name) for u in self.units)

    def __len__(self) -> int:
        return len(self.units)


class ActivityList(Sequence[Activity]):
    """Activities of chosen skills, in a given order, made when read."""

    def __init__(self, table: ActivityTable, indices: np.ndarray) -> None:
        self._table, self._indices = table, indices

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, index: int) -> Activity: ...

    @overload
    def __getitem__(self, index: slice) -> list[Activity]: ...

    def __getitem__(self, index: int | slice) -> Activity | list[Activity]:
        if isinstance(index, slice):
            return [self._table.at(int(i)) for i in self._indices[index]]
        return self._table.at(int(self._indices[index]))


@dataclass
class Signals:
    link: list[LinkSuggestion]  # strongest first; more qualified when link_truncated
    review: list[LinkReview]
    never_used: list[str]
    unused: Sequence[Activity]
    prune: Sequence[Activity]
    prune_soon: Sequence[Activity]
    activity: ActivityTable  # fold(name) -> activity, every library skill
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
    where: dict[str, int] = {}  # fold(name) -> the last skill of that name, first-seen order
    for index, skill in enumerate(skills):
        where[fold(skill.name)] = index
    links = linked(skills)

    suggestions: list[LinkSuggestion] = []
    truncated = False
    for pair in window.pairs if pairs is None else pairs:
        if pair.sessions < min_sessions:
            break  # pairs are ordered by count descending
        a, b = fold(pair.a), fold(pair.b)
        if a in where and b in where and (a, b) not in links and (b, a) not in links:
            if len(suggestions) == max_links:
                truncated = True
                break
            suggestions.append(LinkSuggestion(skills[where[a]].name, skills[where[b]].name,
                                              pair.sessions))

    reviews = []
    for skill in skills:
        for target in skill.see_also or ():
            key = fold(target)
            exists = key in where
            if not exists:
                reason = "target missing"
            elif key == fold(skill.name):
                reason = "links to itself"
            elif not window.pair_sessions(skill.name, target):
                reason = "not used together"
            else:
                continue
            reviews.append(LinkReview(skill.name, skills[where[key]].name if exists else target,
                                      exists, reason))
    del links
    units = np.fromiter(where.values(), dtype=np.int64, count=len(where))
    speaker = None
    if len(units) < len(skills):  # names spelt alike: each speaks through the last of them
        speaker = np.fromiter((where[fold(s.name)] for s in skills), dtype=np.int64,
                              count=len(skills))
    del where
    table = _activity(skills, units, history, now, soon_days, speaker)
    by_name = _by_name(skills, units)
    idle = table.idle[by_name]
    idle_order = by_name[(idle != NEVER) & (idle >= unused_days)]
    idle_order = idle_order[np.argsort(-table.idle[idle_order], kind="stable")]
    last = np.fromiter((skills[int(i)].last_activity().utc_ticks for i in by_name), dtype=np.int64,
                       count=len(by_name))
    stale = by_name[np.argsort(last, kind="stable")]
    return Signals(
        link=suggestions,
        review=reviews,
        never_used=[skills[int(i)].name for i in by_name[idle == NEVER]],
        unused=ActivityList(table, idle_order),
        prune=ActivityList(table, stale[table.due[stale]]),
        prune_soon=ActivityList(table, stale[table.soon[stale]]),
        activity=table,
        prune_threshold=prune_threshold(now),
        link_truncated=truncated,
    )


def _activity(skills: Sequence[Skill], units: np.ndarray, history: UsageStats, now: Timestamp,
              soon_days: int, speaker: np.ndarray | None) -> ActivityTable:
    """Every skill's clocks (see :class:`Activity`), as arrays."""
    threshold = prune_threshold(now).utc_ticks
    soon = prune_threshold(now.add_days(soon_days)).utc_ticks
    count = len(skills)
    last_used: list[Timestamp | None] = [None] * count
    idle = np.full(count, NEVER, dtype=np.int64)
    due = np.zeros(count, dtype=bool)
    soon_due = np.zeros(count, dtype=bool)
    usage = history.usage
    for index, skill in enumerate(skills):
        logged = usage.get(fold(skill.name))
        used = skill.last_used_at
        if logged is not None and (used is None or logged.last.utc_ticks > used.utc_ticks):
            used = logged.last
        if used is not None:
            last_used[index] = used
            idle[index] = now.whole_days_since(used)
        last = skill.last_activity().utc_ticks
        due[index] = last < threshold
        soon_due[index] = threshold <= last < soon
    return ActivityTable(skills, units, last_used, idle, due, soon_due, speaker)


def _by_name(skills: Sequence[Skill], units: np.ndarray) -> np.ndarray:
    """``units`` in RockBot's name order (stable); a library comes in that order already, which is
    checked a name at a time (no key per skill held at once)."""
    previous: bytes | None = None
    for unit in units:
        key = sort_key(skills[int(unit)].name)
        if previous is not None and key < previous:
            break
        previous = key
    else:
        return units
    order = sorted(range(len(units)), key=lambda k: sort_key(skills[int(units[k])].name))
    return units[np.array(order, dtype=np.int64)]
