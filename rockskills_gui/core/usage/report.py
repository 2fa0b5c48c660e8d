"""Everything the usage pane shows for one window, computed in one call (runs off the UI thread).

:func:`compute` reads the usage log with the usage archive (unless given), analyses the window
and all time, builds the heatmap and the derived signals. Parts that did not change are passed
back in to be reused: the log (until the user reloads it) and the window's statistics (when only
the heatmap options changed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import numpy as np

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.archive_read import archive_days, read_usage_with_archive
from rockskills_gui.core.usage.events import EventLog, UsageEvent
from rockskills_gui.core.usage.heatmap import HeatmapData, HeatmapOptions, build_heatmap
from rockskills_gui.core.usage.signals import UNUSED_DAYS, ActivityTable, Signals, derive
from rockskills_gui.core.usage.stats import PairView, SkillUsage, UsageStats, UsageWindow, analyze


@dataclass(frozen=True)
class UsageRequest:
    agent_dir: Path
    skills: Sequence[Skill]
    now: Timestamp
    window: UsageWindow
    options: HeatmapOptions
    unused_days: int = UNUSED_DAYS
    suggest_min_sessions: int = 2
    log: EventLog[UsageEvent] | None = None
    stats: UsageStats | None = None
    history: UsageStats | None = None
    table_sort: tuple[int, bool] | None = None  # the usage table's (column, descending), if sorted


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One line of the usage table: a library skill, or a name only the log still has."""

    name: str
    exists: bool
    events: int
    sessions: int
    last_used: Timestamp | None
    last_activity: Timestamp | None


@dataclass
class UsageReport:
    request: UsageRequest
    log: EventLog[UsageEvent]
    stats: UsageStats
    history: UsageStats
    heatmap: HeatmapData
    signals: Signals
    seconds: float
    pairs: PairView  # the window's pairs as far as they could be counted (UsageStats.pairs_within)
    rows: UsageRows  # library skills in library order, then names only the log has
    gone: list[SkillUsage]  # the window's usage of names the library no longer has
    sorted_rows: Sequence[UsageRow] | None  # rows sorted as request.table_sort says (None: unsorted)
    archive_days: dict[str, int]  # the window's events only the usage archive has, per UTC day


def compute(request: UsageRequest) -> UsageReport:
    """The report for ``request`` (reusing its ``log``/``stats``/``history`` when given)."""
    started = time.perf_counter()
    log = request.log if request.log is not None else read_usage_with_archive(request.agent_dir)
    everything = UsageWindow.all_time()
    if request.stats is not None and request.stats.window == request.window:
        stats = request.stats
    elif request.history is not None and request.window == everything:
        stats = request.history  # all time is the history already analysed: not a second copy
    else:
        stats = analyze(log, request.window)
    history = request.history if request.history is not None else \
        stats if stats.window == everything else analyze(log, everything)
    heatmap = build_heatmap(stats, request.skills, request.options)
    pairs = stats.pairs_within()
    signals = derive(request.skills, stats, history, request.now, unused_days=request.unused_days,
                     min_sessions=request.suggest_min_sessions, pairs=pairs.pairs)
    rows, gone = usage_rows(request.skills, stats, signals)
    ordered = sort_rows(rows, *request.table_sort) if request.table_sort is not None else None
    archived = archive_days(stats.events) if log.archived else {}
    return UsageReport(request, log, stats, history, heatmap, signals, time.perf_counter() - started,
                       pairs, rows, gone, ordered, archived)


def row_sort_value(row: UsageRow, column: int) -> Any:
    """What the usage table sorts ``column`` by: name (RockBot's order), uses, sessions, last use."""
    if column == 0:
        return sort_key(row.name)
    if column == 1:
        return row.events
    if column == 2:
        return row.sessions
    return row.last_used.utc_ticks if row.last_used is not None else -1


class UsageRows(Sequence[UsageRow]):
    """The usage table's rows as columns (library skills in library order, then the names only the
    log has), in ``order``: a :class:`UsageRow` is made when read (100,000 row objects and their
    sorted copy were ~20 MB per report). Equal to any sequence of the same rows."""

    def __init__(self, skills: Sequence[Skill], gone: Sequence[SkillUsage], events: np.ndarray,
                 sessions: np.ndarray, activity: ActivityTable,
                 order: np.ndarray | None = None) -> None:
        self._skills, self._gone, self._activity = skills, gone, activity
        self.events, self.sessions = events, sessions  # per row, in the given order
        self.order = order  # positions of the rows shown, in that order (None: as given)

    def __len__(self) -> int:
        return len(self._skills) + len(self._gone) if self.order is None else len(self.order)

    def position(self, index: int) -> int:
        """The given position of the row shown at ``index``."""
        return index if self.order is None else int(self.order[index])

    def make(self, position: int) -> UsageRow:
        """The row at given ``position``."""
        if position < len(self._skills):
            skill = self._skills[position]
            return UsageRow(skill.name, True, int(self.events[position]),
                            int(self.sessions[position]), self._activity.last_used(position),
                            skill.last_activity())
        usage = self._gone[position - len(self._skills)]
        return UsageRow(usage.name, False, usage.events, usage.sessions, usage.last, None)

    def name(self, position: int) -> str:
        """The name of the row at given ``position`` (without making the row)."""
        if position < len(self._skills):
            return self._skills[position].name
        return self._gone[position - len(self._skills)].name

    @overload
    def __getitem__(self, index: int) -> UsageRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[UsageRow]: ...

    def __getitem__(self, index: int | slice) -> UsageRow | list[UsageRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.make(self.position(index))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def most_events(self) -> int:
        return int(self.events.max()) if len(self.events) else 0

    def sorted(self, column: int, descending: bool) -> UsageRows:
        """These rows (in the given order) by ``column``, as :func:`sort_rows` sorts them."""
        count = len(self._skills) + len(self._gone)
        if column == 0:
            order = np.array(sorted(range(count), key=lambda k: sort_key(self.name(k)),
                                    reverse=descending), dtype=np.int64)
        else:
            if column == 1:
                key = self.events
            elif column == 2:
                key = self.sessions
            else:
                key = np.fromiter((self._last_ticks(k) for k in range(count)), dtype=np.int64,
                                  count=count)
            # a stable sort: ties keep the given order, also descending (as sorted(reverse=True))
            order = np.argsort(-key if descending else key, kind="stable")
        return UsageRows(self._skills, self._gone, self.events, self.sessions, self._activity,
                         order)

    def _last_ticks(self, position: int) -> int:
        if position < len(self._skills):
            used = self._activity.last_used(position)
        else:
            used = self._gone[position - len(self._skills)].last
        return used.utc_ticks if used is not None else -1


def sort_rows(rows: Sequence[UsageRow], column: int, descending: bool) -> Sequence[UsageRow]:
    """``rows`` by ``column`` (stable: ties keep their order, also when descending)."""
    if isinstance(rows, UsageRows) and rows.order is None:
        return rows.sorted(column, descending)
    return sorted(rows, key=lambda row: row_sort_value(row, column), reverse=descending)


def usage_rows(skills: Sequence[Skill], stats: UsageStats,
               signals: Signals) -> tuple[UsageRows, list[SkillUsage]]:
    """The usage table's rows, and the usage of names that are not skills of the library."""
    present: set[str] = set()
    count = len(skills)
    events = np.zeros(count, dtype=np.int64)
    sessions = np.zeros(count, dtype=np.int64)
    usage = stats.usage
    for index, skill in enumerate(skills):
        key = fold(skill.name)
        present.add(key)
        found = usage.get(key)
        if found is not None:
            events[index], sessions[index] = found.events, found.sessions
    gone = [found for key, found in usage.items() if key not in present]
    del present
    events = np.r_[events, np.array([u.events for u in gone], dtype=np.int64)]
    sessions = np.r_[sessions, np.array([u.sessions for u in gone], dtype=np.int64)]
    return UsageRows(skills, gone, events, sessions, signals.activity), gone
