"""MCP freshness per ``mcp/{server}`` skill in the Library tree (RockBot (current), issue 20): a
dimmed marker after the name and tooltip lines, from core.model.mcp_freshness; none for other
skills or the 64e82cc profile; a summary match still shows its snippet."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.tree import TreeFilter
from rockskills_gui.ui.library.tree_model import SNIPPET_ROLE, SkillTreeModel
from tests.rockbot_current import make_current_agent, rockbot_json, skill


def model_of(agent: Path, format: str | None = None) -> SkillTreeModel:
    model = SkillTreeModel()
    model.set_library(open_library(agent, OpenOptions(format=format)))
    return model


def test_mcp_skills_carry_their_freshness(qtmodeltester, tmp_path: Path) -> None:
    agent = make_current_agent(tmp_path / "agent")
    (agent / "skills" / "mcp" / "slack.json").write_bytes(
        rockbot_json(skill("mcp/slack", "Post to Slack channels", "c")))
    model = model_of(agent)
    qtmodeltester.check(model, force_py=True)
    github = model.index_for("mcp/github")
    assert github.data(SNIPPET_ROLE) == ("Unknown · v1.4.0 baseline", [])
    tip = github.data(Qt.ItemDataRole.ToolTipRole)
    assert "MCP freshness: <b>Unknown</b> — MCP server &#x27;github&#x27; isn&#x27;t connected" in tip
    assert "v1.4.0, recorded 2026-06-01T08:00:00.1234567+00:00" in tip
    slack = model.index_for("mcp/slack")
    assert slack.data(SNIPPET_ROLE) == ("Unknown · no baseline", [])
    assert "no surface baseline recorded" in slack.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index_for("web/search").data(SNIPPET_ROLE) is None
    assert model.index_for("mcp").data(SNIPPET_ROLE) is None  # the folder
    model.set_filter(TreeFilter("channels"))  # a summary-only match shows why it matched
    text, spans = model.index_for("mcp/slack").data(SNIPPET_ROLE)
    assert "channels" in text and spans
    model.set_filter(TreeFilter("github"))  # a name match: the marker again
    assert model.index_for("mcp/github").data(SNIPPET_ROLE) == ("Unknown · v1.4.0 baseline", [])


def test_no_freshness_for_64e82cc(tmp_path: Path) -> None:
    model = model_of(make_current_agent(tmp_path / "agent"), "rockbot-64e82cc")
    github = model.index_for("mcp/github")
    assert github.data(SNIPPET_ROLE) is None
    assert "MCP freshness" not in github.data(Qt.ItemDataRole.ToolTipRole)
