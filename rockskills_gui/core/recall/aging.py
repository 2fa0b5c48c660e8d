"""Skill-body aging inside one turn's tool loop (RockBot (current)).

A port of ``AgentLoopRunner.RegisterAndAgeSkillBodies`` and ``TryExtractLoadedSkillName``
(MarimerLLC/rockbot ``src/RockBot.Host/AgentLoopRunner.cs``, the newest version in the index,
commit not reported; ``LoadedSkillsContext.cs`` @ 8a89013; tests
``AgentLoopRunnerSkillBodyAgingTests.cs`` @ cc9e4e7), run once per tool call by
``RockBotFunctionInvokingChatClient`` while ``SkillBodyUnloadAfterIterations`` > 0 (default 5,
``AgentHostOptions.cs``):

- each tool call is one iteration (the first call is iteration 1);
- a system message that starts with exactly ``Skill: `` and has a name before its first ``\\n``
  is a loaded body; it is registered at the first call that sees it;
- a ``get_skill`` call (tool name compared case-insensitively) whose ``name`` argument equals a
  body's name (ordinally) marks it used at that call;
- a body unused for more than ``unload_after`` calls is removed from the messages, nothing in
  its place; its tracker entry goes with it.

Since PR #548 a recalled body starts with the framing preamble, not ``Skill: ``, so in the code
read the aging never matches it: a framed body stays for the whole turn. That is what upstream
does, and what :func:`age_bodies` reproduces (it only unloads unframed ``Skill: `` bodies).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rockskills_gui.core.model.names import dotnet_trim

SKILL_BODY_PREFIX = "Skill: "  # AgentLoopRunner.SkillBodyMessagePrefix
GET_SKILL = "get_skill"  # AgentLoopRunner.GetSkillToolName


def loaded_skill_name(message: str) -> str | None:
    """``TryExtractLoadedSkillName`` of a system message: the name of a ``Skill: {name}\\n…``
    body, or None."""
    if len(message) <= len(SKILL_BODY_PREFIX) or not message.startswith(SKILL_BODY_PREFIX):
        return None
    start = len(SKILL_BODY_PREFIX)
    newline = message.find("\n", start)
    if newline <= start:
        return None
    name = dotnet_trim(message[start:newline])
    return name or None


@dataclass(frozen=True)
class ToolCall:
    """One tool call of the loop: the tool's wire name and, for ``get_skill``, its ``name``."""

    tool: str
    name: str | None = None


@dataclass(frozen=True)
class Unload:
    """A body removed at tool call ``call`` (1-based)."""

    call: int
    skill: str


def age_bodies(messages: Sequence[str], calls: Sequence[ToolCall],
               unload_after: int) -> tuple[list[Unload], list[str]]:
    """Run ``calls`` over the system ``messages`` of a turn: the bodies unloaded (in order) and
    the messages left. ``unload_after`` <= 0 disables aging (nothing is ever removed)."""
    left = list(messages)
    unloads: list[Unload] = []
    if unload_after <= 0:
        return unloads, left
    last_use: dict[str, int] = {}  # StringComparer.Ordinal
    for current, call in enumerate(calls, 1):
        for message in left:
            name = loaded_skill_name(message)
            if name is not None and name not in last_use:
                last_use[name] = current
        if call.tool.lower() == GET_SKILL and call.name:
            last_use[call.name] = current
        stale = [name for name, used in last_use.items() if current - used > unload_after]
        for name in stale:
            del last_use[name]
            for i in range(len(left) - 1, -1, -1):
                if loaded_skill_name(left[i]) == name:
                    del left[i]
                    unloads.append(Unload(current, name))
                    break
    return unloads, left


def aging_note(message: str, skill: str, unload_after: int, calls: int | None = None) -> str:
    """One line on what the aging does to the body ``message`` of ``skill`` in this turn, after
    ``calls`` tool calls none of which is ``get_skill`` (None: the rule only)."""
    if loaded_skill_name(message) is None:
        return (f"{skill}: framed body, never unloaded (RockBot's aging removes only messages that "
                f"start with 'Skill: '; SkillBodyUnloadAfterIterations = {unload_after})")
    if calls is None:
        return (f"{skill}: unloaded after {unload_after} tool calls without "
                f'get_skill("{skill}") (SkillBodyUnloadAfterIterations = {unload_after})')
    unloads, _left = age_bodies([message], [ToolCall("tool")] * calls, unload_after)
    if unloads:
        return f"{skill}: unloaded at tool call {unloads[0].call} of {calls}"
    return f"{skill}: still loaded after {calls} tool call(s) (unloaded at call {unload_after + 2})"
