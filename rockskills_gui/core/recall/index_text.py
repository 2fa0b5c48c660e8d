"""The skill lists RockBot shows the model: the session index (§7.1) and ``list_skills`` (§5)."""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.model.names import dotnet_trim_end, is_null_or_whitespace, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp

SESSION_INDEX_HEADER = "Available skills (use get_skill to load full instructions):"
PENDING = "(summary pending)"
NO_SKILLS = "No skills saved yet."


def _listed(skills: Iterable[Skill]) -> list[Skill]:
    return sorted(skills, key=lambda s: sort_key(s.name))


def _summary(skill: Skill) -> str:
    return PENDING if is_null_or_whitespace(skill.summary) else (skill.summary or "")


def session_index_text(skills: Iterable[Skill]) -> str | None:
    """The once-per-session system message, or None for an empty library (no message is sent)."""
    listed = _listed(skills)
    if not listed:
        return None
    lines = [SESSION_INDEX_HEADER] + [f"- {s.name}: {_summary(s)}" for s in listed]
    return "\n".join(lines)


def list_skills_text(skills: Iterable[Skill], now: Timestamp) -> str:
    """``FormatIndex``: what ``list_skills`` returns at ``now`` (ages truncated to whole days)."""
    listed = _listed(skills)
    if not listed:
        return NO_SKILLS
    lines = [f"Available skills ({len(listed)}):"]
    for skill in listed:
        age = now.whole_days_since(skill.created_at)
        if skill.last_used_at is None:
            used = "never used"
        else:
            used = f"last used {now.whole_days_since(skill.last_used_at)}d ago"
        lines.append(f"- {skill.name} ({age}d old, {used}): {_summary(skill)}")
    return dotnet_trim_end("\n".join(lines))
