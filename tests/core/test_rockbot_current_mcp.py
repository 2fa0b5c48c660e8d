"""RockBot (current)'s MCP skill-injection path in the session simulation (issue 20, PRs
#410/#412, McpServerSkillFormatter): ``mcp/{server}`` skills appended to the tool result of
``mcp_get_service_details`` or of an enriched ``mcp_invoke_tool`` parameter error, each content
cut after 4,000 UTF-16 units; 64e82cc has no such path."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC
from rockskills_gui.core.recall.playground import SimulatedSession
from rockskills_gui.core.recall.session import (
    MCP_PARAMETER_ERROR,
    MCP_SELECT,
    RecallSession,
    mcp_injection,
    mcp_skill_block,
)
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.rockbot_current import make_current_agent, rockbot_json, skill, snapshot

HEAD = ("[mcp-skill-injection] Skills already document `{}`. Read them before authoring the next "
        "call — these capture verified parameter shapes, required fields, and quirks from prior "
        "sessions.")


def add_skill(agent: Path, name: str, summary: str, content: str) -> None:
    path = agent / "skills" / (name + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(rockbot_json(skill(name, summary, content)))


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    root = make_current_agent(tmp_path / "agent")
    long_body = "x" * 3999 + "\U0001F600" + "tail"  # the emoji's 2 units straddle the cap
    add_skill(root, "mcp/github/Issues", "  Issue fields\t", "Pass owner and repo.")
    add_skill(root, "mcp/github/actions", " ", long_body)
    add_skill(root, "mcp/githubx", "Another server", "Never injected for github.")
    return root


def lib_of(agent: Path) -> RockBotLibrary:
    lib = open_library(agent)
    assert isinstance(lib, RockBotLibrary) and lib.rules.current
    return lib


def expected_entry(name: str, summary: str | None, body: str) -> str:
    """One skill's part of the block, written out from the upstream formatter's lines."""
    lines = [f"### Skill: `{name}`"] + ([f"_{summary}_"] if summary else []) + ["", body]
    return "\n".join(lines)


def test_the_block_lists_server_and_sub_skills_in_name_order(agent: Path) -> None:
    lib = lib_of(agent)
    block = mcp_skill_block(lib.skills(), "GitHub")
    assert block is not None
    assert block.skills == ("mcp/github", "mcp/github/actions", "mcp/github/Issues")
    assert block.truncated == ("mcp/github/actions",)
    cut = "x" * 3999 + "\ud83d"  # AsSpan(0, 4000): the pair is split, a lone surrogate stays
    tail = ('\n…[truncated — full skill body is 4005 chars; '
            'load with get_skill("mcp/github/actions") for the rest]')
    expected = "\n".join([
        "", "---", HEAD.format("GitHub"), "",
        expected_entry("mcp/github", "Use the GitHub MCP server for issues and pull requests",
                       "# GitHub MCP\n\nCall list_issues, then get_issue for details."), "",
        expected_entry("mcp/github/actions", None, cut + tail), "",
        expected_entry("mcp/github/Issues", "Issue fields", "Pass owner and repo.")])
    assert block.text == expected


def test_the_cap_counts_utf16_units_not_bytes(agent: Path) -> None:
    add_skill(agent, "mcp/cap/exact", "s", "é" * 4000)  # 8,000 UTF-8 bytes, 4,000 units
    add_skill(agent, "mcp/cap/over", "s", "a" * 4001)
    block = mcp_skill_block(lib_of(agent).skills(), "cap")
    assert block is not None and block.truncated == ("mcp/cap/over",)
    assert "é" * 4000 + "\n\n### Skill: `mcp/cap/over`" in block.text
    assert block.text.endswith("a" * 4000 + '\n…[truncated — full skill body is 4001 chars; load '
                               'with get_skill("mcp/cap/over") for the rest]')


def test_no_skill_no_block_and_a_blank_server_is_nothing(agent: Path) -> None:
    skills = lib_of(agent).skills()
    assert mcp_skill_block(skills, "slack") is None
    assert mcp_skill_block(skills, " \t") is None
    assert mcp_skill_block(skills, "githu") is None  # a prefix of a server is another server


def test_the_two_tool_results(agent: Path) -> None:
    lib = lib_of(agent)
    block = mcp_skill_block(lib.skills(), "ms365")
    assert block is not None and block.skills == ("mcp/ms365",)
    select = mcp_injection(lib.profile, lib.skills(), "ms365", MCP_SELECT, 1)
    assert select.tool_name == "mcp_get_service_details"
    details, appended = select.result.split("\n", 1)
    assert details.startswith("⟨") and appended == block.text  # content + "\n" + block
    error = mcp_injection(lib.profile, lib.skills(), "ms365", MCP_PARAMETER_ERROR, 2,
                          "get_calendar_events", "account_id")
    assert error.tool_name == "mcp_invoke_tool"
    lines = error.result.split("\n")
    assert lines[1] == ("[mcp-recovery] Call to 'ms365/get_calendar_events' is missing required "
                        "field 'account_id'.")
    assert error.result.endswith("\n\n" + block.text)  # AppendLine() then the block
    assert error.as_json()["skills"] == ["mcp/ms365"]
    none = mcp_injection(lib.profile, lib.skills(), "slack", MCP_SELECT, 1)
    assert none.block is None and "mcp-skill-injection" not in none.result


def test_64e82cc_has_no_injection_path(agent: Path) -> None:
    lib = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(lib, RockBotLibrary) and lib.rules is ROCKBOT_64E82CC
    with pytest.raises(ValueError, match="no MCP skill injection"):
        mcp_injection(lib.profile, lib.skills(), "github", MCP_SELECT, 1)
    session = RecallSession(SkillRecall(lib.skills()))
    with pytest.raises(ValueError):
        session.mcp_call(lib.profile, "github", MCP_SELECT, 1)
    assert session.mcp_calls == []


def test_the_session_records_calls_without_marking_recall(agent: Path) -> None:
    before = snapshot(agent)
    lib = lib_of(agent)
    sim = SimulatedSession(SkillRecall(lib.skills()))
    sim.add("web search")
    first = sim.session.mcp_call(lib.profile, "github", MCP_SELECT, 1)
    again = sim.session.mcp_call(lib.profile, "github", MCP_SELECT, 1)
    assert first.result == again.result  # appended on every call, no per-session dedupe
    assert "mcp/github" not in sim.session.recalled  # injection never marks recall
    assert sim.session.mcp_calls == [first, again]
    later = sim.preview("github issues")
    assert "mcp/github" in later.injected  # recall still injects it as a system message
    with pytest.raises(ValueError, match="unknown MCP trigger"):
        sim.session.mcp_call(lib.profile, "github", "nonsense", 1)
    sim.reset()
    assert sim.session.mcp_calls == []
    assert snapshot(agent) == before  # read-only
