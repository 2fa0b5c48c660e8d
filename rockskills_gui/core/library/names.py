"""Each name rule of an agent profile (``profile.names.kind``) as the check it runs, in the
agent's own words: the table :meth:`Library.name_rule_error` asks, and each format's
``_check_new_name`` before it checks what is taken on disk."""

from __future__ import annotations

from collections.abc import Callable

from rockskills_gui.core.model.names import name_error
from rockskills_gui.core.model.profile import NameKind

__all__ = ["RULES", "rule_error", "skill_folder_error"]


def skill_folder_error(name: str) -> str | None:
    """Why ``name`` cannot name a skill's folder (None: it can): '/'-separated folder names (a
    plugin's, categories, the skill's own), each not empty, without '\\', a leading '.' or
    surrounding spaces."""
    for part in name.split("/"):
        if not part or part != part.strip() or "\\" in part or part.startswith(".") \
                or any(ord(c) < 0x20 for c in part):
            return (f"'{name}' cannot be a skill folder name (each '/'-separated part is a folder: "
                    "not empty, no '\\', no leading '.', no surrounding spaces).")
    return None


RULES: dict[NameKind, Callable[[str], str | None]] = {
    NameKind.ROCKBOT: name_error,  # RockBot's SkillStore messages, plus our trailing-newline one
    NameKind.SKILL_FOLDER: skill_folder_error,
}


def rule_error(kind: NameKind, name: str) -> str | None:
    """Why the rule ``kind`` refuses ``name`` (None: it accepts it)."""
    return RULES[kind](name)
