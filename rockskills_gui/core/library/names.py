"""Each name rule of an agent profile (``profile.names.kind``) as the check it runs, in the
agent's own words: the table :meth:`Library.name_rule_error` asks, and each format's
``_check_new_name`` before it checks what is taken on disk."""

from __future__ import annotations

from collections.abc import Callable

from rockskills_gui.core.model.names import name_error
from rockskills_gui.core.model.profile import NameKind

__all__ = ["RULES", "rule_error", "skill_folder_error"]


def skill_folder_error(name: str) -> str | None:
    """Why ``name`` cannot be one skill folder's name (None: it can)."""
    if not name or name != name.strip() or "/" in name or "\\" in name or name.startswith(".") \
            or any(ord(c) < 0x20 for c in name):
        return (f"'{name}' cannot be a skill folder name (no '/', no leading '.', "
                "no surrounding spaces).")
    return None


RULES: dict[NameKind, Callable[[str], str | None]] = {
    NameKind.ROCKBOT: name_error,  # RockBot's SkillStore messages, plus our trailing-newline one
    NameKind.SKILL_FOLDER: skill_folder_error,
}


def rule_error(kind: NameKind, name: str) -> str | None:
    """Why the rule ``kind`` refuses ``name`` (None: it accepts it)."""
    return RULES[kind](name)
