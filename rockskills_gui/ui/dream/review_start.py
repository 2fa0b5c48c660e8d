"""What a review starts with: which proposals start unticked and why, and the first selection.

No Qt here: the run's worker thread makes it right after the plan (it reads the usage log for the
recent-use guard, and a plan can hold thousands of proposals), so the UI thread only installs it
(issue 35, item 15). The wizard makes it itself for a plan loaded from a file or re-checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rockskills_gui.core.dream.formats import DreamLibrary
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.preselect import preselect
from rockskills_gui.core.dream.review_defaults import ReviewDefault, guards_for, risky_ids
from rockskills_gui.ui.dream.selection import Selection, default_selection


@dataclass(frozen=True)
class ReviewStart:
    """The defaults (by proposal id) and the selection a review of ``plan`` starts with."""

    plan: Plan
    defaults: dict[str, ReviewDefault]
    selection: Selection


def start_defaults(plan: Plan, library: DreamLibrary | None,
                   prefixes: Iterable[str] = ()) -> dict[str, ReviewDefault]:
    """Which proposals start unticked and why: the plan's preselection (``core.dream.preselect``:
    nothing destructive, recent use up to the plan's reference time, starter skills, protected
    prefixes), made again here with the user's ``prefixes`` (Preferences) too. Reads the usage
    log; sets the plan's ``preselected``/``preselectReason`` to what the review starts with."""
    if library is None:
        return {}
    return preselect(plan, guards_for(library, plan, prefixes))


def review_start(plan: Plan, library: DreamLibrary | None, prefixes: Iterable[str] = (),
                 prune: bool = True) -> ReviewStart:
    """The defaults and the default selection (prunes unticked unless ``prune``)."""
    defaults = start_defaults(plan, library, prefixes)
    return ReviewStart(plan, defaults, default_selection(plan, prune=prune, unticked=risky_ids(defaults)))
