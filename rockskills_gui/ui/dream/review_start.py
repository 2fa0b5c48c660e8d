"""What a review starts with: which proposals start unticked and why, and the first selection.

No Qt here: the run's worker thread makes it right after the plan (it reads the usage log for the
recent-use guard, and a plan can hold thousands of proposals), so the UI thread only installs it
(issue 35, item 15). The wizard makes it itself for a plan loaded from a file or re-checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.review_defaults import (
    Guards,
    ReviewDefault,
    read_recent_use,
    review_defaults,
    risky_ids,
)
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.ui.dream.selection import Selection, default_selection


@dataclass(frozen=True)
class ReviewStart:
    """The defaults (by proposal id) and the selection a review of ``plan`` starts with."""

    plan: Plan
    defaults: dict[str, ReviewDefault]
    selection: Selection


def start_defaults(plan: Plan, library: RockBotLibrary | None,
                   prefixes: Iterable[str] = ()) -> dict[str, ReviewDefault]:
    """Which proposals start unticked and why (``core.dream.review_defaults``): recent use up to
    the plan's reference time, starter skills, and the run's, the library profile's and
    ``prefixes`` (the Preferences') protected prefixes. Reads the usage log."""
    if library is None:
        return {}
    try:
        now = Timestamp.parse(plan.now)
    except (TimestampError, ValueError):
        now = Timestamp.now()
    chosen: list[str] = []
    for prefix in [*plan.protected_prefixes, *library.profile.curation.protected_prefixes, *prefixes]:
        if fold(prefix) not in {fold(p) for p in chosen}:
            chosen.append(prefix)
    guards = Guards(recent=read_recent_use(library.agent_dir, now), protected=tuple(chosen))
    return review_defaults(plan, guards)


def review_start(plan: Plan, library: RockBotLibrary | None, prefixes: Iterable[str] = (),
                 prune: bool = True) -> ReviewStart:
    """The defaults and the default selection (prunes unticked unless ``prune``)."""
    defaults = start_defaults(plan, library, prefixes)
    return ReviewStart(plan, defaults, default_selection(plan, prune=prune, unticked=risky_ids(defaults)))
