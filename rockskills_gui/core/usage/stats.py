"""Usage counts and co-occurrence exactly as RockBot's consolidation pass computes them (§9, §10.4).

RockBot (``DreamService.ConsolidateSkillsAsync``) takes the usage events of the last 30 days (the
first 10 000), then:

- usage count per skill: events grouped by name, case-insensitively (key = first spelling);
- sessions: events grouped by session id **case-sensitively**, in order of their earliest event;
  per session the distinct names (case-insensitive, first spelling);
- pairs: each session's names sorted ordinal-ignore-case, every unordered pair ``a|b`` counted once
  per session in a case-insensitive dictionary (key = first spelling), no minimum;
- pairs printed by count descending, stable (first-seen order on ties), top 10 as
  ``- {a} + {b}: {n} session(s)``;
- co-used partners per skill: walk the ordered pairs and append each partner.

:func:`analyze` reproduces all of it for any :class:`UsageWindow` and adds what the GUI needs on
top (distinct sessions per skill, first/last use, which sessions are behind a pair).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import EventLog, UsageEvent
from rockskills_gui.core.usage.limits import TOP_PAIRS as TOP_PAIRS
from rockskills_gui.core.usage.limits import USAGE_WINDOW_DAYS as USAGE_WINDOW_DAYS
from rockskills_gui.core.usage.pairs import PairTable, fitting_min_count, occurrences, string_pairs
from rockskills_gui.core.usage.records import Pair, Session

USAGE_EVENT_CAP = 10_000
CO_USED_SHOWN = 3
PAIR_BUDGET = 20_000_000  # pair occurrences the usage pane counts (~0.5 GB of arrays at most)


@dataclass(frozen=True, slots=True)
class UsageWindow:
    """Which events count: ``since <= timestamp < until`` (either bound optional), first ``cap``.

    ``last_days`` is RockBot's own query (``QueryRecent(now - days, 10 000)``: no upper bound, the
    *oldest* events kept when more than ``cap`` match).
    """

    since: Timestamp | None = None
    until: Timestamp | None = None
    cap: int | None = None
    days: int | None = None

    @classmethod
    def last_days(cls, now: Timestamp, days: int = USAGE_WINDOW_DAYS,
                  cap: int | None = USAGE_EVENT_CAP) -> UsageWindow:
        return cls(since=now.add_days(-days), cap=cap, days=days)

    @classmethod
    def all_time(cls) -> UsageWindow:
        return cls()

    @classmethod
    def between(cls, start: Timestamp | None, end: Timestamp | None) -> UsageWindow:
        """Events from ``start`` (inclusive) to ``end`` (exclusive)."""
        return cls(since=start, until=end)

    def select(self, log: EventLog[UsageEvent] | Sequence[UsageEvent]) -> tuple[list[UsageEvent], int]:
        """The window's events in RockBot's order, and how many the cap dropped."""
        events = log if isinstance(log, EventLog) else EventLog(list(log))
        kept = events.query(self.since, None)
        if self.until is not None:
            end = self.until.utc_ticks
            kept = [e for e in kept if e.timestamp.utc_ticks < end]
        if self.cap is not None and len(kept) > self.cap:
            return kept[:self.cap], len(kept) - self.cap
        return kept, 0

    def describe(self) -> str:
        """``last 30 days``, ``all time``, ``2026-11-01 – 2026-11-09``."""
        if self.days is not None:
            return f"last {self.days} day{'' if self.days == 1 else 's'}"
        if self.since is None and self.until is None:
            return "all time"
        start = self.since.isoformat()[:10] if self.since is not None else "…"
        end = (self.until.add_ticks(-1).isoformat()[:10] if self.until is not None else "…")
        return f"{start} – {end}"


@dataclass(frozen=True, slots=True)
class SkillUsage:
    """One skill's use in a window (names grouped case-insensitively; ``name`` = first spelling)."""

    name: str
    events: int
    sessions: int
    first: Timestamp
    last: Timestamp


@dataclass(frozen=True)
class PairView:
    """What :meth:`UsageStats.pairs_within` could count: ``pairs`` is RockBot's list when
    ``min_count`` is 1, else its top down to pairs used together in ``min_count`` sessions
    (``None``: none fit); ``occurrences`` is what the whole list would have taken."""

    pairs: Sequence[Pair]
    min_count: int | None
    occurrences: int = 0

    @property
    def complete(self) -> bool:
        return self.min_count == 1


@dataclass
class UsageStats:
    """Everything RockBot derives from one window of usage events, plus GUI extras."""

    window: UsageWindow
    events: list[UsageEvent]
    truncated: int = 0
    skipped: list[UsageEvent] = field(default_factory=list)
    usage: dict[str, SkillUsage] = field(default_factory=dict)  # fold(name) -> usage, first-seen
    sessions: list[Session] = field(default_factory=list)
    _pairs: Sequence[Pair] | None = field(default=None, repr=False, compare=False)
    _co_used: dict[str, tuple[str, list[str]]] | None = field(default=None, repr=False, compare=False)
    _sessions_of: dict[str, set[int]] | None = field(default=None, repr=False, compare=False)

    @property
    def pairs(self) -> Sequence[Pair]:
        """RockBot's pairs by count descending (first-seen order on ties); counted on first use
        (:mod:`rockskills_gui.core.usage.pairs`), so what needs only counts never pays for them."""
        if self._pairs is None:
            self._pairs = _pair_up(self.sessions)
        return self._pairs

    @property
    def co_used(self) -> dict[str, tuple[str, list[str]]]:
        """fold(name) -> (name, every partner in pair order); built on first use."""
        if self._co_used is None:
            self._co_used = _co_used(self.pairs)
        return self._co_used

    def forget_pairs(self) -> None:
        """Drop the counted pairs and co-used lists (counted again when next asked for): for
        statistics still referenced whose pairs nothing shows any more."""
        self._pairs = None
        self._co_used = None

    def pair_sessions(self, a: str, b: str) -> int:
        """Sessions in which ``a`` and ``b`` were used together (RockBot's pair count, 0 if none
        or ``a`` is ``b``), without counting every pair."""
        if self._sessions_of is None:
            self._sessions_of = {}
            for index, session in enumerate(self.sessions):
                for key in session.keys:
                    self._sessions_of.setdefault(key, set()).add(index)
        key_a, key_b = fold(a), fold(b)
        if key_a == key_b:
            return 0
        return len(self._sessions_of.get(key_a, set()) & self._sessions_of.get(key_b, set()))

    def pairs_within(self, budget: int | None = None) -> PairView:
        """The top of :attr:`pairs` that counting at most ``budget`` (default :data:`PAIR_BUDGET`)
        pair occurrences gives: all
        pairs when they fit, else those used together in at least the fewest sessions that fit
        (a window of sessions with thousands of skills each has hundreds of millions)."""
        budget = PAIR_BUDGET if budget is None else budget
        needed = occurrences(self.sessions)
        if self._pairs is not None:
            return PairView(self._pairs, 1, needed)
        min_count = fitting_min_count(self.sessions, budget)
        if min_count == 1:
            return PairView(self.pairs, 1, needed)
        if min_count is None or any("|" in name for session in self.sessions
                                    for name in session.skills):  # see _pair_up
            return PairView([], None, needed)
        return PairView(PairTable(self.sessions, Pair, min_count), min_count, needed)

    # ---------------------------------------------------------------- RockBot's values

    def counts(self) -> dict[str, int]:
        """``usageCount``: name (first spelling) -> events, in first-seen order."""
        return {u.name: u.events for u in self.usage.values()}

    def count(self, name: str) -> int:
        entry = self.usage.get(fold(name))
        return entry.events if entry else 0

    def co_used_map(self) -> dict[str, list[str]]:
        """``coUsed``: name -> every partner in pair order (the prompt shows the first 3)."""
        return {name: list(partners) for name, partners in self.co_used.values()}

    def partners(self, name: str) -> list[str]:
        entry = self.co_used.get(fold(name))
        return list(entry[1]) if entry else []

    def top_pairs(self, limit: int = TOP_PAIRS) -> list[Pair]:
        return list(self.pairs[:limit])

    def top_pair_lines(self, limit: int = TOP_PAIRS) -> list[str]:
        return [pair.line() for pair in self.top_pairs(limit)]

    # ---------------------------------------------------------------- GUI extras

    def sessions_with(self, a: str, b: str | None = None) -> list[Session]:
        """The sessions that used ``a`` (and ``b``), in RockBot's session order."""
        return [s for s in self.sessions if s.uses(a) and (b is None or s.uses(b))]

    def together(self, a: str, b: str) -> int:
        """Sessions that used both (for ``a == b``: the sessions that used it)."""
        return len(self.sessions_with(a, b))

    def by_usage(self) -> list[SkillUsage]:
        """Skills by event count descending (stable: first-seen order on ties)."""
        return sorted(self.usage.values(), key=lambda u: -u.events)

    @property
    def session_count(self) -> int:
        return len(self.sessions)


def analyze(log: EventLog[UsageEvent] | Sequence[UsageEvent], window: UsageWindow) -> UsageStats:
    """Counts, sessions, pairs and co-used lists for ``window`` (see the module doc)."""
    selected, truncated = window.select(log)
    stats = UsageStats(window=window, events=[], truncated=truncated)
    for event in selected:
        # RockBot's ToDictionary throws on a null name or session id (the whole dream aborts);
        # such events cannot be attributed, so they are reported apart.
        if event.skill_name is None or event.session_id is None:
            stats.skipped.append(event)
        else:
            stats.events.append(event)
    folded: dict[str, str] = {}

    def key_of(name: str) -> str:
        key = folded.get(name)
        if key is None:
            key = folded[name] = fold(name)
        return key

    _count(stats, key_of)
    _group_sessions(stats, key_of)
    return stats


def _count(stats: UsageStats, key_of: Callable[[str], str]) -> None:
    events: dict[str, int] = {}
    names: dict[str, str] = {}
    first: dict[str, Timestamp] = {}
    last: dict[str, Timestamp] = {}
    sessions: dict[str, set[str]] = {}
    for event in stats.events:
        assert event.skill_name is not None and event.session_id is not None
        key = key_of(event.skill_name)
        if key not in names:
            names[key] = event.skill_name
            events[key] = 0
            first[key] = event.timestamp
            sessions[key] = set()
        events[key] += 1
        last[key] = event.timestamp
        sessions[key].add(event.session_id)
    stats.usage = {key: SkillUsage(names[key], events[key], len(sessions[key]), first[key], last[key])
                   for key in names}


def _group_sessions(stats: UsageStats, key_of: Callable[[str], str]) -> None:
    grouped: dict[str, list[UsageEvent]] = {}
    for event in stats.events:  # already in time order: insertion order = earliest event
        assert event.session_id is not None
        grouped.setdefault(event.session_id, []).append(event)
    for session_id, events in grouped.items():
        distinct: dict[str, str] = {}
        for event in events:
            assert event.skill_name is not None
            distinct.setdefault(key_of(event.skill_name), event.skill_name)
        stats.sessions.append(Session(session_id, events[0].timestamp, events[-1].timestamp,
                                      len(events), tuple(distinct.values()), frozenset(distinct)))


def _pair_up(sessions: Sequence[Session]) -> Sequence[Pair]:
    if any("|" in name for session in sessions for name in session.skills):
        return string_pairs(sessions, fold, Pair)  # keys may collide, as in RockBot
    return PairTable(sessions, Pair)


def _co_used(pairs: Sequence[Pair]) -> dict[str, tuple[str, list[str]]]:
    co_used: dict[str, tuple[str, list[str]]] = {}
    for pair in pairs:
        a, b = pair.a, pair.b
        co_used.setdefault(fold(a), (a, []))[1].append(b)
        co_used.setdefault(fold(b), (b, []))[1].append(a)
    return co_used
