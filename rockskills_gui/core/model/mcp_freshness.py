"""MCP freshness of an ``mcp/{server}`` skill (RockBot (current)): Fresh, Stale, Renamed, Unknown.

A port of McpSkillFreshness.Evaluate (RockBot.Tools.Mcp): the skill's ``surfaceBaseline`` (the
server surface it was written against) compared with the live server summaries. Offline there
are none, so a skill is Unknown: "no surface baseline recorded", or -- with a baseline -- "MCP
server '{server}' isn't connected" (what RockBot says before the server connects). Given
summaries (:class:`ServerSummary`), every rule applies as upstream, reasons word for word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.rules import mcp_server
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp


class Freshness(StrEnum):
    """SkillFreshnessStatus."""

    FRESH = "Fresh"
    STALE = "Stale"
    RENAMED = "Renamed"
    UNKNOWN = "Unknown"


@dataclass(frozen=True)
class SurfaceBaseline:
    """SkillSurfaceBaseline: the surface a skill was written against."""

    server_name: str | None
    server_id: str | None
    fingerprint: str | None
    version: str | None
    identity_hash: str | None
    recorded_at: str | None

    @classmethod
    def from_json(cls, value: object) -> SurfaceBaseline | None:
        """Read a ``surfaceBaseline`` value (property names case-insensitive, as RockBot reads
        them); None when it is null or not an object. A non-string field counts as absent."""
        if not isinstance(value, Mapping):
            return None
        props: dict[str, Any] = {str(k).lower(): v for k, v in value.items()}

        def text(key: str) -> str | None:
            found = props.get(key.lower())
            return found if isinstance(found, str) else None

        return cls(text("serverName"), text("serverId"), text("fingerprint"), text("version"),
                   text("identityHash"), text("recordedAt"))


@dataclass(frozen=True)
class ServerSummary:
    """The parts of a live McpServerSummary the freshness rules read."""

    server_name: str
    server_id: str | None = None
    fingerprint: str | None = None
    version: str | None = None
    identity_hash: str | None = None


@dataclass(frozen=True)
class SkillFreshness:
    """A skill's freshness, RockBot's reason, and the server's new name when Renamed."""

    status: Freshness
    reason: str | None
    renamed_to: str | None = None
    baseline: SurfaceBaseline | None = None


def _same_identity(baseline: SurfaceBaseline, summary: ServerSummary) -> bool:
    return baseline.identity_hash is not None and baseline.identity_hash == summary.identity_hash


def _same_server(baseline: SurfaceBaseline, summary: ServerSummary) -> bool:
    return (baseline.server_id is not None and baseline.server_id == summary.server_id) \
        or _same_identity(baseline, summary)


def evaluate(server_name: str, baseline: SurfaceBaseline | None, current: ServerSummary | None,
             servers: Sequence[ServerSummary] = ()) -> SkillFreshness:
    """McpSkillFreshness.Evaluate: ``current`` is the live summary under ``server_name`` (None:
    not connected), ``servers`` every live summary (rename detection)."""
    if baseline is None:
        return SkillFreshness(Freshness.UNKNOWN, "no surface baseline recorded")
    if current is None:
        renamed = next((s for s in servers if fold(s.server_name) != fold(server_name)
                        and _same_server(baseline, s)), None)
        if renamed is not None:
            return SkillFreshness(
                Freshness.RENAMED,
                f"this skill was written for MCP server '{server_name}', which is now registered "
                f"as '{renamed.server_name}'", renamed.server_name, baseline)
        return SkillFreshness(Freshness.UNKNOWN, f"MCP server '{server_name}' isn't connected",
                              baseline=baseline)
    if baseline.server_id is not None and current.server_id is not None \
            and baseline.server_id != current.server_id and not _same_identity(baseline, current):
        return SkillFreshness(
            Freshness.STALE, f"the name '{server_name}' now refers to a different MCP server than "
                             "the one this skill was written for", baseline=baseline)
    if current.fingerprint is None:
        return SkillFreshness(Freshness.UNKNOWN,
                              f"MCP server '{server_name}' surface couldn't be read in full",
                              baseline=baseline)
    if baseline.version is not None and current.version is not None \
            and baseline.version != current.version:
        return SkillFreshness(
            Freshness.STALE, f"{server_name} changed from v{baseline.version} to "
                             f"v{current.version} since this skill was written", baseline=baseline)
    if baseline.fingerprint == current.fingerprint:
        return SkillFreshness(Freshness.FRESH, None, baseline=baseline)
    return SkillFreshness(Freshness.STALE,
                          f"{server_name}'s tool surface changed since this skill was written",
                          baseline=baseline)


def skill_freshness(skill: Skill, servers: Sequence[ServerSummary] = ()) -> SkillFreshness | None:
    """The freshness of an ``mcp/{server}[/...]`` skill (None for any other skill) against the
    live ``servers`` (none offline: Unknown)."""
    server = mcp_server(skill.name)
    if server is None:
        return None
    try:
        raw = skill.extra_value("surfaceBaseline")
    except ValueError:  # an unparsable property text: treated as no baseline
        raw = None
    baseline = SurfaceBaseline.from_json(raw)
    current = next((s for s in servers if fold(s.server_name) == fold(server)), None)
    return evaluate(server, baseline, current, servers)


def _recorded(baseline: SurfaceBaseline) -> int:
    """``RecordedAt`` as an instant (absent or unreadable: DateTimeOffset's default)."""
    try:
        return Timestamp.parse(baseline.recorded_at).utc_ticks if baseline.recorded_at else 0
    except ValueError:
        return 0


def carried_baseline(target: str, sources: Sequence[str],
                     catalog: Mapping[str, Skill]) -> tuple[str, SurfaceBaseline] | None:
    """``DreamService.CarriedSurfaceBaseline`` (MarimerLLC/rockbot DreamService.cs @ 150a84c, #615):
    the ``surfaceBaseline`` a merged or rewritten ``target`` inherits from ``sources`` and itself,
    as they were before the pass (``catalog``: folded name -> skill). Only names of the target's
    own MCP server count; none of them, or any without a baseline, gives None (Unknown);
    otherwise the oldest ``recordedAt`` wins (the first on a tie). Returned with the name it
    came from."""
    server = mcp_server(target)
    if server is None:
        return None
    seen: set[str] = set()
    candidates: list[tuple[str, SurfaceBaseline | None]] = []
    for name in [*sources, target]:
        key = fold(name)
        if key in seen:
            continue
        seen.add(key)
        skill = catalog.get(key)
        if skill is None or mcp_server(name) != server:
            continue
        try:
            raw = skill.extra_value("surfaceBaseline")
        except ValueError:
            raw = None
        candidates.append((skill.name, SurfaceBaseline.from_json(raw)))
    if not candidates or any(b is None for _n, b in candidates):
        return None
    found = [(n, b) for n, b in candidates if b is not None]
    return min(found, key=lambda item: _recorded(item[1]))
