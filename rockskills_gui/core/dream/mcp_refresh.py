"""RockBot (current)'s MCP skill refresh pass (#615): stale ``mcp/{server}`` skills rewritten
against their server's live tool schemas, each with a new surface baseline.

A port of ``DreamService.RunMcpSkillRefreshPassAsync`` and ``ApplyMcpSkillRefreshAsync``
(MarimerLLC/rockbot ``src/RockBot.Host/DreamService.cs`` @ 150a84c; ``DreamOptions.cs`` @ 150a84c:
``McpSkillRefreshMaxPerCycle`` = 5):

- every ``mcp/{server}[/...]`` skill is evaluated against the live servers
  (:func:`~rockskills_gui.core.model.mcp_freshness.skill_freshness`); Renamed ones are only
  reported; Stale ones are taken oldest first (``updatedAt ?? createdAt``), at most the profile's
  ``mcp_refresh_per_cycle``; the rest wait for later cycles;
- per skill: the baseline is captured first (none: skipped), the server's surface text read
  (blank: skipped), then one LLM call with :func:`refresh_message`; the reply is
  ``{changed, content, notes}``;
- the skill is saved with the content trimmed when ``changed`` and the content is not blank
  (otherwise unchanged: "re-verified"), ``updatedAt`` now and the new ``surfaceBaseline``;
  summary, lastUsedAt, seeAlso and manifest are kept. Not ledger-gated.

Offline there is no live server: the surfaces come from a file the user gives
(:func:`read_surfaces`, ``rockskills dream --mcp-surfaces``), one object per server with its
summary fields (``serverName``, ``serverId``, ``fingerprint``, ``version``, ``identityHash``)
and ``tools``, the text ``GetLiveSurfaceTextAsync`` would return. Assumed (not read upstream):
``CaptureBaseline`` records the live summary's fields with ``recordedAt`` = now, and gives none
when the server is not connected or its fingerprint could not be read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rockskills_gui.core.dream.reply import extract_json_object
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.mcp_freshness import (
    Freshness,
    ServerSummary,
    SkillFreshness,
    skill_freshness,
)
from rockskills_gui.core.model.names import dotnet_trim, fold, is_null_or_whitespace
from rockskills_gui.core.model.rules import mcp_server
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp

DIRECTIVE_FILE = "mcp-skill-refresh-dream.md"  # DreamOptions.McpSkillRefreshDirectivePath


class SurfaceFileError(ValueError):
    """A surfaces file that cannot be used (one line: where and why)."""


@dataclass(frozen=True)
class McpSurface:
    """One live MCP server as the refresh pass sees it: its summary and its tools' text."""

    summary: ServerSummary
    text: str


def _text(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key.lower())
    if value is not None and not isinstance(value, str):
        raise SurfaceFileError(f"{where}: '{key}' must be a string or null")
    return value


def read_surfaces(data: bytes) -> dict[str, McpSurface]:
    """The servers of a surfaces file (``{"servers": [{serverName, serverId, fingerprint,
    version, identityHash, tools}, ...]}``), by folded server name."""
    try:
        raw = dotnet_json.loads_untrusted(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SurfaceFileError(f"not a JSON file: {exc}") from None
    servers = raw.get("servers") if isinstance(raw, dict) else None
    if not isinstance(servers, list):
        raise SurfaceFileError("expected an object with a 'servers' list")
    found: dict[str, McpSurface] = {}
    for index, item in enumerate(servers):
        where = f"servers[{index}]"
        if not isinstance(item, dict):
            raise SurfaceFileError(f"{where}: expected an object")
        entry = {str(k).lower(): v for k, v in item.items()}
        name = _text(entry, "serverName", where)
        if not name or not name.strip():
            raise SurfaceFileError(f"{where}: 'serverName' is required")
        summary = ServerSummary(name, _text(entry, "serverId", where), _text(entry, "fingerprint", where),
                                _text(entry, "version", where), _text(entry, "identityHash", where))
        found[fold(name.strip())] = McpSurface(summary, _text(entry, "tools", where) or "")
    return found


@dataclass(frozen=True)
class RefreshTarget:
    """A stale skill the pass would refresh, with why and its server."""

    skill: Skill
    server: str
    freshness: SkillFreshness


@dataclass(frozen=True)
class RefreshSelection:
    """What the pass would do this cycle."""

    batch: list[RefreshTarget]
    stale: int  # stale skills in all (the rest wait)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (skill, reason): logged only


def select_stale(skills: Sequence[Skill], surfaces: Mapping[str, McpSurface],
                 per_cycle: int) -> RefreshSelection:
    """The stale ``mcp/`` skills, oldest first, the first ``per_cycle`` of them in the batch."""
    summaries = [s.summary for s in surfaces.values()]
    evaluated: list[tuple[Skill, str, SkillFreshness]] = []
    for skill in skills:
        server = mcp_server(skill.name)
        freshness = skill_freshness(skill, summaries) if server is not None else None
        if server is not None and freshness is not None:
            evaluated.append((skill, server, freshness))
    renamed = [(s.name, f.reason or "") for s, _sv, f in evaluated if f.status is Freshness.RENAMED]
    stale = [(s, sv, f) for s, sv, f in evaluated if f.status is Freshness.STALE]
    stale.sort(key=lambda item: (item[0].updated_at or item[0].created_at).utc_ticks)
    batch = [RefreshTarget(s, sv, f) for s, sv, f in stale[:max(0, per_cycle)]]
    return RefreshSelection(batch, len(stale), renamed)


def capture_baseline(surface: McpSurface | None, now: Timestamp) -> dict[str, Any] | None:
    """The ``surfaceBaseline`` the pass records (assumed: the live summary's fields, now; none
    without a connected server or a readable fingerprint)."""
    if surface is None or surface.summary.fingerprint is None:
        return None
    s = surface.summary
    return {"serverName": s.server_name, "serverId": s.server_id, "fingerprint": s.fingerprint,
            "version": s.version, "identityHash": s.identity_hash, "recordedAt": now.isoformat()}


def refresh_message(skill: Skill, reason: str, server: str, surface_text: str) -> str:
    """The pass's user message (each line ended by ``\\n``, as ``AppendLine`` on Linux)."""
    return (f"Skill: {skill.name}\nWhy it is stale: {reason}\n\n"
            f"## Current tools on MCP server '{server}'\n\n{surface_text}\n\n"
            f"## Current skill markdown\n\n{skill.content or ''}\n")


@dataclass(frozen=True)
class RefreshReply:
    """``McpSkillRefreshResultDto``: ``changed`` (missing: false), ``content``, ``notes``."""

    changed: bool = False
    content: str | None = None
    notes: str | None = None

    @property
    def rewritten(self) -> bool:
        return self.changed and not is_null_or_whitespace(self.content)


def parse_refresh_reply(raw: str | None) -> tuple[RefreshReply | None, str | None]:
    """The reply as RockBot reads it (``ExtractJsonObject``, then camelCase, case-insensitive
    names, the last duplicate winning); ``(None, why)`` when RockBot would skip the skill."""
    text = extract_json_object(raw or "")
    if text is None:
        return None, "the reply contains no JSON object ({ ... })"
    try:
        pairs = dotnet_json.loads_pairs(text)
    except dotnet_json.JsonReadError as exc:
        return None, f"invalid JSON: {exc}"
    if not dotnet_json.is_object(pairs):
        return None, "the JSON is not an object"
    props = {str(k).lower(): v for k, v in pairs}
    changed, content, notes = props.get("changed", False), props.get("content"), props.get("notes")
    if not isinstance(changed, bool):
        return None, "'changed' must be true or false"
    for key, value in (("content", content), ("notes", notes)):
        if value is not None and not isinstance(value, str):
            return None, f"'{key}' must be a string or null"
    return RefreshReply(changed, content, notes), None


def refreshed(skill: Skill, reply: RefreshReply, now: Timestamp) -> Skill:
    """The skill ``ApplyMcpSkillRefreshAsync`` saves (its new baseline is set apart)."""
    content = dotnet_trim(reply.content or "") if reply.rewritten else skill.content
    return skill.model_copy(update={"content": content, "updated_at": now})
