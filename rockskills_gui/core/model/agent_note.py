"""What a running agent of a format does with skill files edited under it: said once after the
first save (``banner``) and beside every change (``short``). A format without a known rule has
no note (nothing is claimed about it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentNote:
    """A format's agent and edited skill files (see the module)."""

    key: str  # remembers that the banner was shown, per note
    banner: str
    short: str


# RockBot caches its skills at start and never re-reads the folder (spec rockbot-skills.md §4,
# §13.9); it saves a skill whenever it uses one (lastUsedAt), over any edit made meanwhile.
ROCKBOT_NOTE = AgentNote(
    key="notices/agentRestartShown",
    banner="RockBot reads its skills only when it starts: restart a running agent to see your "
           "edits. Until then the agent works from its old copy and may overwrite your edit the "
           "next time it saves this skill (it does so whenever it uses a skill, to record "
           "lastUsedAt).",
    short="a running agent must be restarted to see this change",
)

# agentskills.io (docs/client-implementation/adding-skills-support.mdx; spec formats.md §D.1):
# clients load each skill's name and description at startup, the instructions on activation.
AGENT_SKILLS_NOTE = AgentNote(
    key="notices/agentSkillsNoteShown",
    banner="Agents that read Agent Skills load each skill's name and description when they "
           "start: one already running sees a changed name or description after a restart (or "
           "in a new session). The instructions are read when the skill is used.",
    short="a running agent sees a changed name or description after a restart",
)
