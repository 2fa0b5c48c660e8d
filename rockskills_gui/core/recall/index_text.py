"""The skill lists RockBot shows the model: the session index (§7.1) and ``list_skills`` (§5).

Two forms, by the profile's listing kind (:data:`INDEX_FORMS`):

- ``rockbot-index`` (64e82cc): ``Available skills (use get_skill to load full instructions):``
  and ``- name: summary``;
- ``rockbot-index-tagged`` (RockBot (current)): the header explains the resource tags and each
  line carries its skill's tag, ``- name [Python, Wisp*]: summary`` (MarimerLLC/rockbot
  ``src/RockBot.Host/AgentContextBuilder.cs`` @ a1d3999); ``list_skills`` puts the same tag after
  the age parenthesis and has no header for it (``SkillTools.FormatIndex`` @ 150a84c).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rockskills_gui.core.model.manifest import skill_resource_tag as skill_tag
from rockskills_gui.core.model.names import dotnet_trim_end, is_null_or_whitespace, sort_key
from rockskills_gui.core.model.profile import ListingKind
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp

SESSION_INDEX_HEADER = "Available skills (use get_skill to load full instructions):"
TAGGED_INDEX_HEADER = ("Available skills (use get_skill to load full instructions; bracketed tags like "
                       "[Wisp, Python] list resource types saved on the skill):")
PENDING = "(summary pending)"
NO_SKILLS = "No skills saved yet."


def _no_tag(_skill: Skill) -> str:
    return ""


@dataclass(frozen=True)
class IndexForm:
    """How one listing kind words the session index and ``list_skills``."""

    header: str
    tag: Callable[[Skill], str]


INDEX_FORMS: dict[ListingKind, IndexForm] = {
    ListingKind.ROCKBOT_INDEX: IndexForm(SESSION_INDEX_HEADER, _no_tag),
    ListingKind.ROCKBOT_INDEX_TAGGED: IndexForm(TAGGED_INDEX_HEADER, skill_tag),
}


def index_form(kind: ListingKind) -> IndexForm:
    """The form of ``kind``; another agent's listing kind gets RockBot 64e82cc's (what RockBot
    would show of those skills, as before profiles existed)."""
    return INDEX_FORMS.get(kind) or INDEX_FORMS[ListingKind.ROCKBOT_INDEX]


def _listed(skills: Iterable[Skill]) -> list[Skill]:
    return sorted(skills, key=lambda s: sort_key(s.name))


def summary_text(skill: Skill) -> str:
    """The summary as RockBot prints it (``(summary pending)`` for an empty or blank one)."""
    return PENDING if is_null_or_whitespace(skill.summary) else (skill.summary or "")


def session_index_text(skills: Iterable[Skill],
                       kind: ListingKind = ListingKind.ROCKBOT_INDEX) -> str | None:
    """The once-per-session system message, or None for an empty library (no message is sent)."""
    listed = _listed(skills)
    if not listed:
        return None
    form = index_form(kind)
    lines = [form.header] + [f"- {s.name}{form.tag(s)}: {summary_text(s)}" for s in listed]
    return "\n".join(lines)


def list_skills_text(skills: Iterable[Skill], now: Timestamp,
                     kind: ListingKind = ListingKind.ROCKBOT_INDEX) -> str:
    """``FormatIndex``: what ``list_skills`` returns at ``now`` (ages truncated to whole days)."""
    listed = _listed(skills)
    if not listed:
        return NO_SKILLS
    tag = index_form(kind).tag
    lines = [f"Available skills ({len(listed)}):"]
    for skill in listed:
        age = now.whole_days_since(skill.created_at)
        if skill.last_used_at is None:
            used = "never used"
        else:
            used = f"last used {now.whole_days_since(skill.last_used_at)}d ago"
        lines.append(f"- {skill.name} ({age}d old, {used}){tag(skill)}: {summary_text(skill)}")
    return dotnet_trim_end("\n".join(lines))
