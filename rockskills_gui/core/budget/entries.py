"""What an advertisement needs to know of a skill, read off any library format."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import DbEntry
from rockskills_gui.core.library.skillmd.store import SkillMdEntry
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.index_text import skill_tag

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class AdEntry:
    """One skill as the agents' lists see it.

    ``description`` is RockBot's summary or a SKILL.md description (raw; ``None`` when absent),
    ``location`` the skill file an Agent Skills / PicoBot client would point at. The CortexPrism
    fields are ``memory.db``'s columns, or the defaults its filesystem import gives a
    ``SKILL.md`` (human, released, tier 3, no invocations; formats.md §B.2).
    """

    name: str
    description: str | None
    location: str
    trigger: str = ""
    origin: str = "human"
    lifecycle: str = "released"
    trust_tier: int = 3
    success_rate: float = 0.0
    utility: float = 0.0
    invocations: int = 0
    resource_tag: str = ""  # RockBot (current): " [Python, Wisp*]" (SkillTools.FormatResourceTag)

    def with_description(self, description: str | None) -> AdEntry:
        return replace(self, description=description)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _number(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _from_row(skill: Skill, location: str, values: dict[str, Any]) -> AdEntry:
    return AdEntry(
        name=skill.name, description=skill.summary, location=location,
        trigger=_text(values.get("trigger_pattern")),
        origin=_text(values.get("origin")) or "llm",
        lifecycle=_text(values.get("lifecycle")) or "candidate",
        trust_tier=int(_number(values.get("trust_tier"), 1)),
        success_rate=_number(values.get("success_rate"), 0.0),
        utility=_number(values.get("utility_score"), 0.0),
        invocations=int(_number(values.get("invocation_count"), 0)))


def entries_of(library: Library) -> list[AdEntry]:
    """Every skill of ``library`` in load order (a RockBot skill's location is where a SKILL.md
    export would put it: ``skills/<name>/SKILL.md``)."""
    if isinstance(library, RockBotLibrary):
        base = library.skills_dir
        return [AdEntry(s.name, s.summary, str(base.joinpath(*s.name.split("/"), SKILL_FILE)),
                        resource_tag=skill_tag(s))
                for s in library.skills()]
    found: list[AdEntry] = []
    for entry in library.entries():
        skill = entry.skill
        if isinstance(entry, DbEntry):
            found.append(_from_row(skill, str(entry.path), entry.row.values))
        elif isinstance(entry, SkillMdEntry):
            values = entry.values
            trigger = _text(values.get("trigger_pattern")) or _text(values.get("triggerPattern"))
            ad = AdEntry(skill.name, skill.summary, str(entry.path), trigger=trigger)
            if entry.stats:  # a CortexPrism SKILL.md with its memory.db row
                row = _from_row(skill, ad.location, entry.stats)
                ad = replace(row, trigger=trigger or row.trigger)
            found.append(ad)
    return found
