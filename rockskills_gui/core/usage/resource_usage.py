"""Resource reads per skill (RockBot (current)): ``skill-resource-usage.jsonl`` summed up.

RockBot logs each ``get_skill_resource`` checkout (``SkillResourceCheckoutEvent``: skillName,
filename, sessionId, timestamp); it matches skill and file names case-insensitively
(``QueryCheckoutsAsync``), and so does this summary. :func:`reads_by_skill` lays the reads over
a library: every skill read from, then the library's skills with resources never read, each
with its files (read ones first, then its never-read resources at 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import EventLog, ResourceCheckout, read_resource_usage


@dataclass(frozen=True, slots=True)
class ResourceUse:
    """Reads of one resource of one skill."""

    skill: str  # as first spelled in the log
    filename: str
    reads: int
    sessions: int
    last_read: Timestamp | None


@dataclass
class ResourceUsage:
    """Resource reads by skill (folded name) and file, from one log."""

    log: EventLog[ResourceCheckout]
    by_skill: dict[str, list[ResourceUse]]
    since: Timestamp | None = None  # the events counted: timestamps >= since

    def of(self, name: str) -> list[ResourceUse]:
        """Skill ``name``'s resources that were read, most read first (then by file name)."""
        return self.by_skill.get(fold(name), [])

    def reads(self, name: str) -> int:
        return sum(use.reads for use in self.of(name))

    def sessions(self, name: str) -> int:
        """Distinct sessions that read any resource of skill ``name``."""
        key = fold(name)
        floor = self.since.utc_ticks if self.since is not None else None
        return len({e.session_id for e in self.log.events
                    if e.session_id and e.skill_name and e.filename and fold(e.skill_name) == key
                    and (floor is None or e.timestamp.utc_ticks >= floor)})

    def skills(self) -> list[str]:
        """Skill names (as logged) with at least one read, most read first."""
        ordered = sorted(self.by_skill.values(), key=lambda uses: -sum(u.reads for u in uses))
        return [uses[0].skill for uses in ordered if uses]


def summarize(events: Iterable[ResourceCheckout],
              since: Timestamp | None = None) -> dict[str, list[ResourceUse]]:
    """Reads per folded skill name and case-insensitive file name (``since``: timestamps
    ``>= since`` only, as QueryCheckoutsAsync)."""
    floor = since.utc_ticks if since is not None else None
    counts: dict[tuple[str, str], list[ResourceCheckout]] = {}
    for event in events:
        if not event.skill_name or not event.filename:
            continue
        if floor is not None and event.timestamp.utc_ticks < floor:
            continue
        counts.setdefault((fold(event.skill_name), event.filename.casefold()), []).append(event)
    out: dict[str, list[ResourceUse]] = {}
    for (skill_key, _file_key), events_of in counts.items():
        first = events_of[0]
        assert first.skill_name is not None and first.filename is not None
        sessions = {e.session_id for e in events_of if e.session_id}
        last = max(events_of, key=lambda e: e.timestamp.utc_ticks).timestamp
        out.setdefault(skill_key, []).append(ResourceUse(first.skill_name, first.filename,
                                                         len(events_of), len(sessions), last))
    for uses in out.values():
        uses.sort(key=lambda u: (-u.reads, u.filename.casefold()))
    return out


def resource_usage(agent_dir: Path, since: Timestamp | None = None) -> ResourceUsage:
    """Read ``skill-resource-usage.jsonl`` and sum it up per skill."""
    log = read_resource_usage(agent_dir)
    return ResourceUsage(log, summarize(log.events, since), since)


@dataclass(frozen=True, slots=True)
class FileReads:
    """One file row under a skill: a file read from, or a resource never read (0 reads)."""

    filename: str
    reads: int
    sessions: int
    last_read: Timestamp | None
    resource: bool  # a resource of the skill (manifest or folder); False: the log names another


@dataclass(frozen=True, slots=True)
class SkillReads:
    """Resource reads of one skill (the library's spelling when it has the skill)."""

    skill: str
    in_library: bool
    reads: int
    sessions: int
    last_read: Timestamp | None
    files: tuple[FileReads, ...]


def reads_by_skill(usage: ResourceUsage, library: Library) -> list[SkillReads]:
    """Skills read from (most reads first), then ``library``'s skills whose resources were never
    read (library order); no resource rows for a profile without multi-file skills."""
    names = usage.skills()
    seen = {fold(n) for n in names}
    for listed in library.skills():
        if fold(listed.name) not in seen and library.resources(listed.name):
            names.append(listed.name)
            seen.add(fold(listed.name))
    out: list[SkillReads] = []
    for name in names:
        skill = library.get(name)
        shown = skill.name if skill is not None else name
        resources = {r.filename.casefold(): r for r in library.resources(shown)}
        uses = usage.of(name)
        files = [FileReads(u.filename, u.reads, u.sessions, u.last_read,
                           u.filename.casefold() in resources) for u in uses]
        read = {u.filename.casefold() for u in uses}
        files += [FileReads(r.filename, 0, 0, None, True)
                  for key, r in resources.items() if key not in read]
        last = max((u.last_read for u in uses if u.last_read is not None),
                   key=lambda t: t.utc_ticks, default=None)
        out.append(SkillReads(shown, skill is not None, usage.reads(name), usage.sessions(name),
                              last, tuple(files)))
    return out
