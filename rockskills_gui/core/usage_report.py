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

from rockskills_gui.core.events import EventLog, UsageEvent, read_usage
from rockskills_gui.core.heatmap import HeatmapData, HeatmapOptions, build_heatmap
from rockskills_gui.core.skill import Skill
from rockskills_gui.core.timestamps import Timestamp
from rockskills_gui.core.usage import PairView, UsageStats, UsageWindow, analyze
from rockskills_gui.core.usage_signals import UNUSED_DAYS, Signals, derive


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


def compute(request: UsageRequest) -> UsageReport:
    """The report for ``request`` (reusing its ``log``/``stats``/``history`` when given)."""
    started = time.perf_counter()
    log = request.log if request.log is not None else read_usage(request.agent_dir)
    stats = request.stats if request.stats is not None and request.stats.window == request.window \
        else analyze(log, request.window)
    history = request.history if request.history is not None else analyze(log, UsageWindow.all_time())
    heatmap = build_heatmap(stats, request.skills, request.options)
    pairs = stats.pairs_within()
    signals = derive(request.skills, stats, history, request.now, unused_days=request.unused_days,
                     min_sessions=request.suggest_min_sessions, pairs=pairs.pairs)
    return UsageReport(request, log, stats, history, heatmap, signals, time.perf_counter() - started,
                       pairs)
