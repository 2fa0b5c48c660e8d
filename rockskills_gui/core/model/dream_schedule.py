"""When the agent's next dream runs: the "next dream" hint of the prune signals.

A profile's :class:`~rockskills_gui.core.model.profile.DreamSchedule`:

- RockBot (current): the first cycle 5 minutes after the agent starts, then Cronos
  ``GetNextOccurrence(now, zone)`` of ``DreamOptions.CronSchedule`` = ``0 */12 * * *`` (00:00
  and 12:00 in ``Agent:Timezone``; MarimerLLC/rockbot DreamOptions.cs and DreamService.cs @
  150a84c; ``now`` itself excluded). The agent's time zone is not in its directory: UTC is
  assumed (RockBot hosts run in UTC), and so is the default schedule (Program.cs not read).
- RockBot 64e82cc: 5 minutes after the start, then every 4 hours (rockbot-skills.md §12): the
  next time depends on when the agent started, which its files do not say.
"""

from __future__ import annotations

from datetime import UTC

from cronsim import CronSim, CronSimError

from rockskills_gui.core.model.profile import DreamSchedule
from rockskills_gui.core.model.timestamps import Timestamp


def next_dream(schedule: DreamSchedule, now: Timestamp) -> Timestamp | None:
    """The next cron occurrence after ``now`` (UTC assumed), or None without a cron."""
    if schedule.cron is None:
        return None
    try:
        found = next(CronSim(schedule.cron, now.to_datetime().astimezone(UTC)))
    except (CronSimError, StopIteration):
        return None
    return Timestamp.from_datetime(found.astimezone(UTC))


def schedule_text(schedule: DreamSchedule) -> str:
    """The schedule in words."""
    start = f"{schedule.initial_delay_minutes} minutes after the agent starts"
    if schedule.cron is not None:
        hours = schedule.cron.split()[1] if len(schedule.cron.split()) == 5 else ""
        every = f"every {hours[2:]} hours, " if hours.startswith("*/") else ""
        return f"{every}cron '{schedule.cron}' in the agent's time zone (UTC assumed), and {start}"
    if schedule.interval_hours is not None:
        return f"{start}, then every {schedule.interval_hours} hours"
    return start


def next_dream_hint(schedule: DreamSchedule, now: Timestamp) -> str:
    """``next dream: 2026-11-23 00:00 UTC (every 12 hours, ...)``, or the schedule alone when the
    next time depends on the agent's start."""
    found = next_dream(schedule, now)
    text = schedule_text(schedule)
    if found is None:
        return f"the agent dreams {text}"
    return f"next dream: {found.isoformat()[:16].replace('T', ' ')} UTC ({text})"
