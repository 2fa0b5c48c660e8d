"""Everything the usage pane shows for one window, computed in one call (runs off the UI thread).

:func:`compute` reads the usage log (unless given), analyses the window and all time, builds the
heatmap and the derived signals. Parts that did not change are passed back in to be reused:
the log (until the user reloads it) and the window's statistics (when only the heatmap options
changed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import EventLog, UsageEvent, read_usage
from rockskills_gui.core.usage.heatmap import HeatmapData, HeatmapOptions, build_heatmap
from rockskills_gui.core.usage.signals import UNUSED_DAYS, Signals, derive
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
    rows: list[UsageRow]  # library skills in library order, then names only the log has
    gone: list[SkillUsage]  # the window's usage of names the library no longer has
    sorted_rows: list[UsageRow] | None  # rows sorted as request.table_sort says (None: unsorted)


def compute(request: UsageRequest) -> UsageReport:
    """The report for ``request`` (reusing its ``log``/``stats``/``history`` when given)."""
    started = time.perf_counter()
    log = request.log if request.log is not None else read_usage(request.agent_dir)
    stats = request.stats if request.stats is not None and request.stats.window == request.window \
        else analyze(log, request.window)
    everything = UsageWindow.all_time()
    history = request.history if request.history is not None else \
        stats if stats.window == everything else analyze(log, everything)
    heatmap = build_heatmap(stats, request.skills, request.options)
    pairs = stats.pairs_within()
    signals = derive(request.skills, stats, history, request.now, unused_days=request.unused_days,
                     min_sessions=request.suggest_min_sessions, pairs=pairs.pairs)
    rows, gone = usage_rows(request.skills, stats, signals)
    ordered = sort_rows(rows, *request.table_sort) if request.table_sort is not None else None
    return UsageReport(request, log, stats, history, heatmap, signals, time.perf_counter() - started,
                       pairs, rows, gone, ordered)


def row_sort_value(row: UsageRow, column: int) -> Any:
    """What the usage table sorts ``column`` by: name (RockBot's order), uses, sessions, last use."""
    if column == 0:
        return sort_key(row.name)
    if column == 1:
        return row.events
    if column == 2:
        return row.sessions
    return row.last_used.utc_ticks if row.last_used is not None else -1


def sort_rows(rows: Sequence[UsageRow], column: int, descending: bool) -> list[UsageRow]:
    """``rows`` by ``column`` (stable: ties keep their order, also when descending)."""
    return sorted(rows, key=lambda row: row_sort_value(row, column), reverse=descending)


def usage_rows(skills: Sequence[Skill], stats: UsageStats,
               signals: Signals) -> tuple[list[UsageRow], list[SkillUsage]]:
    """The usage table's rows, and the usage of names that are not skills of the library."""
    rows = []
    present: set[str] = set()
    for skill in skills:
        key = fold(skill.name)
        present.add(key)
        usage = stats.usage.get(key)
        activity = signals.activity.get(key)
        rows.append(UsageRow(skill.name, True, usage.events if usage else 0,
                             usage.sessions if usage else 0,
                             activity.last_used if activity else None, skill.last_activity()))
    gone = [usage for key, usage in stats.usage.items() if key not in present]
    rows += [UsageRow(u.name, False, u.events, u.sessions, u.last, None) for u in gone]
    return rows, gone
