"""The badges' facts about a skill tree's skills beyond their records: last use from usage
events, files that failed to load claiming a name, and see-also targets that name nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp


def last_used_by_name(events: Iterable[object]) -> dict[str, Timestamp]:
    """Latest usage-event time per folded skill name (events have ``skill_name``, ``timestamp``)."""
    latest: dict[str, Timestamp] = {}
    for event in events:
        name = getattr(event, "skill_name", None)
        when = getattr(event, "timestamp", None)
        if not name or when is None:
            continue
        key = fold(name)
        seen = latest.get(key)
        if seen is None or when.utc_ticks > seen.utc_ticks:
            latest[key] = when
    return latest


def problems_by_name(problems: Iterable[Problem]) -> dict[str, list[str]]:
    """Folded name → reasons, for problem files that claim a name (by their JSON or their path)."""
    found: dict[str, list[str]] = {}
    for problem in problems:
        claimed = set()
        if problem.name:
            claimed.add(fold(problem.name))
        if problem.path.startswith("skills/") and problem.path.endswith(".json"):
            claimed.add(fold(problem.path[len("skills/"):-len(".json")]))
        for key in claimed:
            warning = problem.severity != "error"  # e.g. a skill file linked outside: it loads
            found.setdefault(key, []).append(
                f"{problem.path} ({problem.kind.value}): {problem.message}" if warning else
                f"{problem.path} could not be loaded ({problem.kind.value}): {problem.message}")
    return found


@dataclass
class Facts:
    """What the badges and flag filters need to know beyond the skill record itself."""

    now: Timestamp
    last_used: Mapping[str, Timestamp] = field(default_factory=dict)  # from usage events
    file_problems: Mapping[str, list[str]] = field(default_factory=dict)
    exists: Callable[[str], bool] = lambda _name: True

    def last_use(self, skill: Skill) -> Timestamp | None:
        """``lastUsedAt`` or the latest usage event, whichever is later."""
        logged = self.last_used.get(fold(skill.name))
        stored = skill.last_used_at
        if logged is None or (stored is not None and stored.utc_ticks >= logged.utc_ticks):
            return stored
        return logged

    def never_used(self, skill: Skill) -> bool:
        return self.last_use(skill) is None

    def unused_for(self, skill: Skill, days: float) -> bool:
        """No use in the last ``days`` (a never-used skill counts from its creation)."""
        since = self.last_use(skill) or skill.created_at
        return self.now.total_days_since(since) > days

    def sparse(self, skill: Skill) -> bool:
        return skill.is_sparse(self.now)

    def problems(self, skill: Skill) -> list[str]:
        """Readable reasons: a file that failed to load claims the name; see-also names nothing
        or the skill itself (the same see-also checks as ``core.lint``)."""
        reasons = list(self.file_problems.get(fold(skill.name), ()))
        own = fold(skill.name)
        see_also = skill.see_also or ()
        dangling = [t for t in see_also if fold(t) != own and not self.exists(t)]
        if dangling:
            shown = ", ".join(f"'{t}'" for t in dangling)
            reasons.append(f"see-also names no skill: {shown}")
        if any(fold(t) == own for t in see_also):
            reasons.append("see-also names the skill itself")
        return reasons
