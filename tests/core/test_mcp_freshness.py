"""MCP freshness of ``mcp/{server}`` skills (RockBot (current), McpSkillFreshness.Evaluate): the
rules with live summaries, and what offline leaves (Unknown, with RockBot's two reasons)."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.model.mcp_freshness import (
    Freshness,
    ServerSummary,
    SurfaceBaseline,
    evaluate,
    skill_freshness,
)
from tests.rockbot_current import make_current_agent, rockbot_json, skill

BASE = SurfaceBaseline("github", "id-github", "0123456789abcdef", "1.4.0", "ident", "2026-06-01")


def test_the_rules_with_live_summaries() -> None:
    live = ServerSummary("GitHub", "id-github", "0123456789abcdef", "1.4.0", "ident")
    assert evaluate("github", BASE, live, [live]).status is Freshness.FRESH
    changed = ServerSummary("github", "id-github", "ffff", "1.4.0")
    assert evaluate("github", BASE, changed).reason == \
        "github's tool surface changed since this skill was written"
    bumped = ServerSummary("github", "id-github", "0123456789abcdef", "1.5.0")
    assert evaluate("github", BASE, bumped).reason == \
        "github changed from v1.4.0 to v1.5.0 since this skill was written"
    other = ServerSummary("github", "id-other", "0123456789abcdef", "1.4.0", "not-ident")
    found = evaluate("github", BASE, other)
    assert found.status is Freshness.STALE and "now refers to a different MCP server" in found.reason
    same_identity = ServerSummary("github", "id-other", "0123456789abcdef", "1.4.0", "ident")
    assert evaluate("github", BASE, same_identity).status is Freshness.FRESH
    unread = ServerSummary("github", "id-github", None, "1.4.0")
    assert evaluate("github", BASE, unread).reason == "MCP server 'github' surface couldn't be read in full"
    moved = ServerSummary("gh-enterprise", "id-github", "0123456789abcdef")
    found = evaluate("github", BASE, None, [moved])
    assert found.status is Freshness.RENAMED and found.renamed_to == "gh-enterprise"
    assert found.reason == ("this skill was written for MCP server 'github', which is now "
                            "registered as 'gh-enterprise'")


def test_offline_every_mcp_skill_is_unknown(tmp_path: Path) -> None:
    agent = make_current_agent(tmp_path / "agent")
    (agent / "skills" / "mcp" / "slack.json").write_bytes(rockbot_json(skill("mcp/slack", "s", "c")))
    odd = skill("mcp/odd/sub", "s", "c")
    odd["surfaceBaseline"] = "not an object"
    (agent / "skills" / "mcp" / "odd").mkdir()
    (agent / "skills" / "mcp" / "odd" / "sub.json").write_bytes(rockbot_json(odd))
    lib = open_library(agent)
    github = skill_freshness(lib.get("mcp/github"))
    assert github is not None and github.status is Freshness.UNKNOWN
    assert github.reason == "MCP server 'github' isn't connected"
    assert github.baseline is not None and github.baseline.version == "1.4.0"
    slack = skill_freshness(lib.get("mcp/slack"))
    assert slack is not None and slack.reason == "no surface baseline recorded"
    assert skill_freshness(lib.get("mcp/odd/sub")).reason == "no surface baseline recorded"
    assert skill_freshness(lib.get("web/search")) is None
    live = [ServerSummary("GITHUB", "id-github", "0123456789abcdef", "1.4.0")]
    assert skill_freshness(lib.get("mcp/github"), live).status is Freshness.FRESH
