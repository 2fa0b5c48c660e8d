"""Codex's ``agents/openai.yaml`` beside a SKILL.md (issue 31): ``policy.allow_implicit_invocation:
false`` keeps the skill out of the model-visible list, while ``$name`` still invokes it
(openai/codex ``codex-rs/core-skills/src/model.rs`` @ 0899b7c ``allowed_skills_for_implicit_invocation``;
``skill-creator/references/openai_yaml.md`` @ 8303c5f). Codex reads it fail-open: a file it cannot
read or parse is ignored (``loader.rs`` @ 033d1d0 ``load_skill_metadata``), and so it is here.
The file is untrusted: a regular file inside the skill's folder, at most 64 KiB."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.storage import untrusted

__all__ = ["OPENAI_YAML", "allows_implicit_invocation"]

OPENAI_YAML = "agents/openai.yaml"
MAX_BYTES = 64 * 1024


def allows_implicit_invocation(folder: Path) -> bool:
    """False only when ``folder``'s ``agents/openai.yaml`` says ``policy.allow_implicit_invocation:
    false``; an absent, unreadable or malformed file allows it."""
    path = folder / OPENAI_YAML
    if not (path.exists() or path.is_symlink()):
        return True
    try:
        text = untrusted.read_inside(path, [folder], MAX_BYTES).decode("utf-8")
        values = fm.parse_frontmatter(text).values
    except (OSError, ValueError):
        return True
    policy = values.get("policy")
    return not (isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False)
