"""What an advertisement needs to know of a skill, read off any library format."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import DbEntry
from rockskills_gui.core.library.skillmd.store import SkillMdEntry
from rockskills_gui.core.library.switch_state import Disabled, read_disabled
from rockskills_gui.core.model.profile import AgentProfile, SwitchKind
from rockskills_gui.core.model.profiles import PROFILES
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
    # What the coding agents' listings need (issue 31).
    listed_name: str = ""  # what the agent calls it ("plugin:skill"; "" : ``name``)
    scope: str = "project"  # the root's scope: project | user | extension | plugin
    root: str = ""  # the skills folder it was found in
    category: str = ""  # the category folders between its root and its folder
    paragraph: str = ""  # the body's first paragraph (Claude Code's description when none)
    model_invocable: bool = True  # False: ``disable-model-invocation: true`` (not listed)
    # Agents whose own settings switch it off (issue 33): (agent id, where), see :func:`with_switches`.
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


def _project_of(root: Path, profile: AgentProfile) -> Path | None:
    """The project folder ``root`` is one of ``profile``'s project roots of (None: it is not)."""
    text = root.as_posix()
    for marker in profile.storage.project_roots:
        if text.endswith("/" + marker.strip("/")):
            return Path(text[: -len(marker.strip("/")) - 1])
    return None


def with_switches(entries: list[AdEntry], home: Path) -> list[AdEntry]:
    """``entries`` with the agents whose own settings switch each off (Gemini CLI's
    ``skills.disabled``, Claude Code's ``skillOverrides``, Codex's ``[[skills.config]]``, Hermes'
    ``skills.disabled``: core/library/switch_state.py), read below ``home`` and, for a project
    root, the project it is in. A skill moved aside is not in the library at all."""
    switchable = [p for p in PROFILES.values()
                  if any(s.kind not in (SwitchKind.MOVE, SwitchKind.SKILL_FIELD) for s in p.curation.disable)]
    cache: dict[tuple[str, Path | None], Disabled] = {}
    out: list[AdEntry] = []
    for entry in entries:
        if not entry.root:
            out.append(entry)
            continue
        root = Path(entry.root)
        off: list[tuple[str, str]] = []
        for profile in switchable:
            project = _project_of(root, profile) if entry.scope == "project" else None
            state = cache.get((profile.id, project))
            if state is None:
                state = cache[(profile.id, project)] = read_disabled(profile, home, project)
            why = state.why(entry.name.rsplit("/", 1)[-1], Path(entry.location))
            if why:
                off.append((profile.id, why))
        out.append(replace(entry, switched_off=tuple(off)) if off else entry)
    return out


def entries_of(library: Library, home: Path | None = None) -> list[AdEntry]:
    """Every skill of ``library`` in load order (a RockBot skill's location is where a SKILL.md
    export would put it: ``skills/<name>/SKILL.md``); with ``home``, each marked with the agents
    whose own settings switch it off (:func:`with_switches`)."""
    if isinstance(library, RockBotLibrary):
        base = library.skills_dir
        return [AdEntry(s.name, s.summary, str(base.joinpath(*s.name.split("/"), SKILL_FILE)))
                for s in library.skills()]
    found: list[AdEntry] = []
    for entry in library.entries():
        skill = entry.skill
        if isinstance(entry, DbEntry):
            found.append(_from_row(skill, str(entry.path), entry.row.values))
        elif isinstance(entry, SkillMdEntry):
            values = entry.values
            trigger = _text(values.get("trigger_pattern")) or _text(values.get("triggerPattern"))
            category = entry.prefix.removeprefix(entry.root.namespace).lstrip("/") \
                if entry.root.namespace else entry.prefix
            ad = AdEntry(skill.name, skill.summary, str(entry.path), trigger=trigger,
                         listed_name=entry.agent_name, scope=entry.root.scope,
                         root=str(entry.root.path), category=category,
                         paragraph=first_paragraph(skill.content or ""),
                         model_invocable=values.get("disable-model-invocation") not in (True, "true"))
            if entry.stats:  # a CortexPrism SKILL.md with its memory.db row
                row = _from_row(skill, ad.location, entry.stats)
                ad = replace(row, trigger=trigger or row.trigger)
            found.append(ad)
    return with_switches(found, home) if home is not None else found
