"""What RockBot injects per user turn: session index, recalled skills, see-also (§7.1-§7.3).

Mirrors AgentContextBuilder for one session id in one process: the skill index once (the session
is marked even when the library is empty, so an empty first turn means no index ever), then per
turn BM25 top 5 *before* dropping already-recalled skills, one ``Skill: {name}\\n{content}``
message per newly recalled skill, and -- only when at least one skill was injected -- the
see-also line, whose names are marked recalled too (so they are never injected later).

RockBot (current) only (PRs #410/#412, ``McpServerSkillFormatter``): when the agent narrows in on
one MCP server (``mcp_get_service_details``) or an ``mcp_invoke_tool`` call misses a required
field no default can fill (``SchemaErrorEnricher``), the ``mcp/{server}`` and ``mcp/{server}/*``
skills are appended to that *tool result* (not a system message), each content capped at 4,000
UTF-16 units: :func:`mcp_skill_block`, :meth:`RecallSession.mcp_call`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model.names import (
    dotnet_trim,
    dotnet_trim_end,
    fold,
    is_null_or_whitespace,
    sorted_by_name,
)
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.skill import Skill, utf16_len
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, RecallHit, SkillRecall

SEE_ALSO_PREFIX = "Related skills (see-also): "


def skill_message(skill: Skill) -> str:
    """The system message of one recalled skill (a null content prints as empty)."""
    return f"Skill: {skill.name}\n{skill.content or ''}"


@dataclass(frozen=True)
class TurnResult:
    """The skill-related system messages of one turn's request, and why."""

    user: str
    index: str | None
    top: tuple[RecallHit, ...]
    injected: tuple[str, ...]
    see_also: tuple[str, ...]
    messages: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "index": self.index,
            "top5": [[h.name, h.score] for h in self.top],
            "injected": list(self.injected),
            "seeAlso": list(self.see_also),
            "messages": list(self.messages),
        }


class RecallTracker:
    """SkillRecallTracker for one session: names marked once, case-insensitively."""

    def __init__(self) -> None:
        self._marked: dict[str, str] = {}

    def try_mark(self, name: str) -> bool:
        """Mark ``name``; False if it (in any spelling) was marked before."""
        key = fold(name)
        if key in self._marked:
            return False
        self._marked[key] = name
        return True

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and fold(name) in self._marked

    def names(self) -> list[str]:
        """Marked names in marking order, first spelling."""
        return list(self._marked.values())


class RecallSession:
    """One session's recall state; :meth:`turn` returns the messages RockBot would inject."""

    def __init__(self, recall: SkillRecall, top_n: int = RECALL_TOP_N) -> None:
        self.recall = recall
        self.top_n = top_n
        self.indexed = False
        self.recalled = RecallTracker()
        self.mcp_calls: list[McpInjection] = []  # RockBot (current): MCP tool results, in order

    @classmethod
    def over(cls, skills: Iterable[Skill]) -> RecallSession:
        """A session over a fixed list of skills (in candidate order)."""
        return cls(SkillRecall(skills))

    def turn(self, user_text: str) -> TurnResult:
        messages: list[str] = []
        index: str | None = None
        if not self.indexed:
            self.indexed = True  # marked even when empty: no index later in this session
            index = session_index_text(self.recall.skills())
            if index is not None:
                messages.append(index)
        top = self.recall.search(user_text, top=self.top_n)
        injected = [hit.skill for hit in top if self.recalled.try_mark(hit.name)]
        messages.extend(skill_message(skill) for skill in injected)
        see_also: list[str] = []
        if injected:
            seen: set[str] = set()
            for name in (n for skill in injected for n in skill.see_also or ()):
                key = fold(name)
                if key in seen:
                    continue  # Distinct(OrdinalIgnoreCase): first spelling wins
                seen.add(key)
                if self.recalled.try_mark(name):
                    see_also.append(name)
            if see_also:
                messages.append(SEE_ALSO_PREFIX + ", ".join(see_also))
        return TurnResult(user=user_text, index=index, top=tuple(top),
                          injected=tuple(s.name for s in injected), see_also=tuple(see_also),
                          messages=tuple(messages))

    def mcp_call(self, profile: AgentProfile, server: str, trigger: str, turn: int,
                 tool: str = "", field: str = "") -> McpInjection:
        """Simulate an MCP tool call during user turn ``turn`` (see :func:`mcp_injection`) and
        record it in :attr:`mcp_calls`. It marks nothing as recalled: RockBot appends the block
        again on every such call, and the recall tracker never sees it."""
        found = mcp_injection(profile, self.recall.skills(), server, trigger, turn, tool, field)
        self.mcp_calls.append(found)
        return found


# ---------------------------------------------------------------- MCP skill injection (current)

MCP_SKILL_CONTENT_CAP = 4_000  # McpServerSkillFormatter.PerSkillContentCap (UTF-16 units)
MCP_SELECT = "select"  # mcp_get_service_details: the agent narrows in on one server
MCP_PARAMETER_ERROR = "parameter-error"  # mcp_invoke_tool: a required field missing, no default
MCP_TOOLS = {MCP_SELECT: "mcp_get_service_details", MCP_PARAMETER_ERROR: "mcp_invoke_tool"}
MCP_INJECTION_HEAD = "[mcp-skill-injection] Skills already document `"
# What only the live server and session know, shown as placeholders in the simulated result.
LIVE_DETAILS = "⟨the server's identity, tool schemas and prompts (JSON), from the live server⟩"
LIVE_ERROR = "⟨the MCP server's error text⟩"
LIVE_ENRICHMENT = ("⟨field schema, tool-description hint and recent same-session calls, when the "
                   "live server and session have them⟩")


@dataclass(frozen=True)
class McpBlock:
    """McpServerSkillFormatter.FormatAsync's block for one server."""

    text: str
    skills: tuple[str, ...]  # the mcp/{server}[/...] skills, in OrdinalIgnoreCase name order
    truncated: tuple[str, ...]  # those whose content was cut at the cap


@dataclass(frozen=True)
class McpInjection:
    """One simulated MCP tool call and the tool result the agent would get back."""

    turn: int  # the user turn during which the agent made the call (0: before any)
    trigger: str  # MCP_SELECT or MCP_PARAMETER_ERROR
    server: str  # as the agent named it
    tool: str  # the MCP tool called (parameter error), else ""
    field: str  # the missing required field (parameter error), else ""
    block: McpBlock | None  # None: no mcp/{server} skill, nothing is appended
    result: str  # the tool result text, live parts as ⟨…⟩ placeholders

    @property
    def tool_name(self) -> str:
        """The agent-facing tool whose result carries the block."""
        return MCP_TOOLS[self.trigger]

    @property
    def skills(self) -> tuple[str, ...]:
        return self.block.skills if self.block is not None else ()

    def as_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "trigger": self.trigger, "tool": self.tool_name,
                "server": self.server, "mcpTool": self.tool or None, "field": self.field or None,
                "skills": list(self.skills),
                "truncated": list(self.block.truncated) if self.block is not None else [],
                "block": self.block.text if self.block is not None else None,
                "result": self.result}


def _lower_invariant(text: str) -> str:
    """.NET ``ToLowerInvariant`` for the 1:1 mappings (a char lowering to two stays)."""
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


def _utf16_head(text: str, units: int) -> str:
    """``text.AsSpan(0, units)``: the first UTF-16 units (a split pair leaves a lone surrogate)."""
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    return data.decode("utf-16-le", "surrogatepass")


def mcp_server_skills(skills: Iterable[Skill], server: str) -> list[Skill]:
    """``mcp/{server}`` and ``mcp/{server}/*`` (ordinal ignore case), ordered by name."""
    canonical = fold(f"mcp/{_lower_invariant(server)}")
    sub = canonical + "/"
    return sorted_by_name((s for s in skills
                           if fold(s.name) == canonical or fold(s.name).startswith(sub)),
                          lambda s: s.name)


def mcp_skill_block(skills: Iterable[Skill], server: str) -> McpBlock | None:
    """The block RockBot appends for ``server``, or None (no such skill, or a blank name).

    Mirrors McpServerSkillFormatter.FormatAsync (``\\n`` line ends, as on Linux): a ``---`` rule,
    the injection line, then per skill a ``### Skill:`` heading, the trimmed summary in
    underscores (when not blank), a blank line and the content -- cut after
    :data:`MCP_SKILL_CONTENT_CAP` UTF-16 units with a ``…[truncated`` tail -- the whole block
    trimmed at the end. Offline no freshness marker is written: a skill without a baseline gets
    none in RockBot either, and Stale/Renamed need the live server.
    """
    if is_null_or_whitespace(server):
        return None
    matches = mcp_server_skills(skills, server)
    if not matches:
        return None
    out = ["\n---\n", MCP_INJECTION_HEAD, server,
           "`. Read them before authoring the next call — these capture verified parameter "
           "shapes, required fields, and quirks from prior sessions.\n"]
    truncated: list[str] = []
    for skill in matches:
        out.append(f"\n### Skill: `{skill.name}`\n")
        if not is_null_or_whitespace(skill.summary):
            out.append(f"_{dotnet_trim(skill.summary or '')}_\n")
        out.append("\n")
        body = skill.content or ""
        length = utf16_len(body)
        if length > MCP_SKILL_CONTENT_CAP:
            truncated.append(skill.name)
            out.append(_utf16_head(body, MCP_SKILL_CONTENT_CAP))
            out.append(f"\n…[truncated — full skill body is {length} chars; load with "
                       f'get_skill("{skill.name}") for the rest]\n')
        else:
            out.append(body + "\n")
    return McpBlock(dotnet_trim_end("".join(out)), tuple(s.name for s in matches),
                    tuple(truncated))


def mcp_injection(profile: AgentProfile, skills: Iterable[Skill], server: str, trigger: str,
                  turn: int = 0, tool: str = "", field: str = "") -> McpInjection:
    """The tool result of an MCP call that injects ``mcp/{server}`` skills (RockBot current).

    ``MCP_SELECT``: ``mcp_get_service_details`` -- the details JSON, then ``"\\n"`` and the block.
    ``MCP_PARAMETER_ERROR``: the enriched ``mcp_invoke_tool`` error -- the server's error, the
    ``[mcp-recovery]`` line for ``tool``/``field``, what the live schema and session add, a
    blank line and the block, trimmed at the end. Raises ValueError for a profile without it
    (64e82cc: no such path)
    or an unknown trigger.
    """
    if not profile.injection.mcp_skills:
        raise ValueError(f"{profile.label} has no MCP skill injection (RockBot (current) only)")
    if trigger not in MCP_TOOLS:
        raise ValueError(f"unknown MCP trigger {trigger!r} (expected one of {', '.join(MCP_TOOLS)})")
    block = mcp_skill_block(skills, server)
    if trigger == MCP_SELECT:
        result = LIVE_DETAILS + ("\n" + block.text if block is not None else "")
    else:
        parts = [LIVE_ERROR, "\n", f"[mcp-recovery] Call to '{server}/{tool or '⟨tool⟩'}' is "
                 f"missing required field '{field or '⟨field⟩'}'.\n", LIVE_ENRICHMENT, "\n"]
        if block is not None:
            parts += ["\n", block.text]
        result = dotnet_trim_end("".join(parts))
    return McpInjection(turn, trigger, server, tool if trigger == MCP_PARAMETER_ERROR else "",
                        field if trigger == MCP_PARAMETER_ERROR else "", block, result)
