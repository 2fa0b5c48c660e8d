"""What an agent's skill listing needs to know of each skill (:class:`AdEntry`), read off any
library by its own format (:meth:`Library.listing_entries`); the budget renders and measures it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rockskills_gui.core.model.skill import Skill

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
    # What the coding agents' listings need (issue 31).
    listed_name: str = ""  # what the agent calls it ("plugin:skill"; "" : ``name``)
    scope: str = "project"  # the root's scope: project | user | extension | plugin
    root: str = ""  # the skills folder it was found in
    category: str = ""  # the category folders between its root and its folder
    paragraph: str = ""  # the body's first paragraph (Claude Code's description when none)
    model_invocable: bool = True  # False: ``disable-model-invocation: true`` (not listed)
    implicit: bool = True  # False: Codex's agents/openai.yaml ``policy.allow_implicit_invocation: false``
    # Agents whose own settings switch it off (issue 33): (agent id, where); budget.entries.with_switches.
    switched_off: tuple[tuple[str, str], ...] = ()

    @property
    def shown(self) -> str:
        """The name the agent lists."""
        return self.listed_name or self.name

    def with_description(self, description: str | None) -> AdEntry:
        return replace(self, description=description)

    def off_for(self, agent_id: str) -> str:
        """Where ``agent_id``'s settings switch this skill off ("" : they do not)."""
        return next((where for agent, where in self.switched_off if agent == agent_id), "")


def first_paragraph(text: str) -> str:
    """The first paragraph of a Markdown body that is not a heading, on one line."""
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if lines:
                break
            continue
        if stripped.startswith("#") and not lines:
            continue
        lines.append(stripped)
    return " ".join(lines)


def text_value(value: object) -> str:
    """A text column or frontmatter value, trimmed ("" when it is not text)."""
    return value.strip() if isinstance(value, str) else ""


def _number(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def from_row(skill: Skill, location: str, values: dict[str, Any]) -> AdEntry:
    """A skill with CortexPrism's columns (a memory.db row, or the stats joined to a SKILL.md)."""
    return AdEntry(
        name=skill.name, description=skill.summary, location=location,
        trigger=text_value(values.get("trigger_pattern")),
        origin=text_value(values.get("origin")) or "llm",
        lifecycle=text_value(values.get("lifecycle")) or "candidate",
        trust_tier=int(_number(values.get("trust_tier"), 1)),
        success_rate=_number(values.get("success_rate"), 0.0),
        utility=_number(values.get("utility_score"), 0.0),
        invocations=int(_number(values.get("invocation_count"), 0)))
