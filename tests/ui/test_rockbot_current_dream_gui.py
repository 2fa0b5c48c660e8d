"""The dream wizard reviews and applies RockBot (current)'s MCP skill refresh proposals (#615).

A refresh plan made by the real engine from pasted replies (what ``rockskills dream
--mcp-surfaces`` makes; RockBot's user message and rules: ``src/RockBot.Host/DreamService.cs`` @
150a84c, ``RunMcpSkillRefreshPassAsync``) opens in the wizard, is reviewed as a kind of its own
and applied: the new content and the new ``surfaceBaseline`` are written, the summary is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import ProposalKind
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.open import open_library
from tests.core.test_rockbot_current_dream_policy import NOW, stale_agent, surfaces
from tests.rockbot_current_rules import SKILLS
from tests.ui.conftest import make_writable, open_window
from tests.ui.test_dream_wizard import checked, open_wizard, wait_for_apply


def test_a_refresh_plan_is_reviewed_and_applied_in_the_wizard(qtbot, tmp_path: Path) -> None:
    agent = make_writable(stale_agent(tmp_path / "agent", 1))
    reply = {"changed": True, "content": "# T0\n\nCall new_tool_0.", "notes": "old_tool_0 was renamed"}
    plan = run_dream(open_library(agent), RunOptions(passes=[DreamPass.MCP_REFRESH], now=NOW,
                                                     mcp_surfaces=surfaces(github="1.5.0")),
                     PastedReplies([json.dumps(reply)]))
    (proposal,) = plan.proposals
    assert proposal.kind is ProposalKind.MCP_REFRESH
    out = tmp_path / "plan.json"
    plan.save(out)
    window = open_window(qtbot, agent)
    try:
        wizard = open_wizard(window, NOW)
        assert wizard.open_plan(out)
        review = wizard.review
        review.show_proposal_id(proposal.id)
        assert review.view.proposal is not None and review.view.proposal.id == proposal.id
        assert checked(wizard) == [proposal.id]
        kinds = [review.filter.itemText(i) for i in range(review.filter.count())]
        assert "MCP refresh (1)" in kinds
        wizard.next()
        assert wizard.currentId() == wizard.page_id("apply")
        wizard.next()
        wait_for_apply(qtbot, wizard)
        assert wizard.currentId() == wizard.page_id("summary"), wizard.apply.error.text()
        written = json.loads((agent / "skills" / "mcp" / "github" / "t0.json").read_text("utf-8"))
        assert written["content"] == "# T0\n\nCall new_tool_0."
        assert written["summary"] == SKILLS["mcp/github"]["summary"]
        assert written["surfaceBaseline"]["version"] == "1.5.0"
    finally:
        window.loader.cancel()
        window.loader.wait()


def test_the_next_dream_hint_follows_the_profiles_schedule(qtbot, tmp_path: Path) -> None:
    """Usage ▸ Signals, "Pruned by the next dream": RockBot (current) dreams at 00:00 and 12:00
    (DreamOptions.CronSchedule '0 */12 * * *' @ 150a84c); 64e82cc every 4 hours after its start."""
    from rockskills_gui.core.library.open import OpenOptions
    from rockskills_gui.core.model.timestamps import Timestamp
    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.shell.main_window import MainWindow
    from tests.rockbot_current_rules import make_rules_agent

    agent = make_rules_agent(tmp_path / "agent")
    (agent / "skill-usage").mkdir()
    (agent / "skill-usage" / "s1.jsonl").write_text(json.dumps(  # one usage event
        {"id": "0123456789ab", "skillName": "email/send", "sessionId": "s1",
         "timestamp": "2026-11-20T09:00:00+00:00"}) + "\n", encoding="utf-8")
    now = Timestamp.parse("2026-11-22T12:00:00+00:00")
    tips = {}
    for profile in ("rockbot-current", "rockbot-64e82cc"):
        window = MainWindow(AppContext(), interactive=False)
        qtbot.addWidget(window)
        window.resize(1400, 900)
        window.show()
        library = open_library(agent, OpenOptions(format=profile))
        library.clock = lambda: now
        window.ctx.set_library(library, remember=False)
        window.show_pane("heatmap")
        pane = window.usage_pane
        qtbot.waitUntil(lambda pane=pane: pane.report is not None, timeout=5000)
        tree = pane.signals_tree
        group = next(tree.topLevelItem(k) for k in range(tree.topLevelItemCount())
                     if tree.topLevelItem(k).text(0).startswith("Pruned by the next dream"))
        tips[profile] = group.toolTip(0)
        pane.wait()
    assert tips["rockbot-current"].endswith(
        "; next dream: 2026-11-23 00:00 UTC (every 12 hours, cron '0 */12 * * *' in the agent's time zone "
        "(UTC assumed), and 5 minutes after the agent starts)")
    assert tips["rockbot-64e82cc"].endswith(
        "; the agent dreams 5 minutes after the agent starts, then every 4 hours")


def test_the_wizard_runs_the_refresh_pass_with_a_surfaces_file(qtbot, tmp_path: Path, openai_server) -> None:
    """Setup offers the refresh pass for RockBot (current) only; it reads the servers' tools from
    a surfaces file, sends RockBot's user message to the real 127.0.0.1 server, and the stale
    skill's rewrite is proposed (m1)."""
    from tests.ui.test_dream_wizard import run_to_end, use_llm

    agent = make_writable(stale_agent(tmp_path / "agent", 1))
    surfaces_file = tmp_path / "surfaces.json"
    surfaces_file.write_text(json.dumps({"servers": [{
        "serverName": "github", "serverId": "id-github", "fingerprint": "ffff", "version": "1.5.0",
        "tools": "tool list of github"}]}), encoding="utf-8")
    openai_server.replies = [json.dumps({"changed": True, "content": "# T0\n\nCall new_tool_0.",
                                         "notes": "renamed"})]
    window = open_window(qtbot, agent)
    try:
        wizard = open_wizard(window, NOW)
        setup = wizard.setup
        assert setup.refresh_box.isVisibleTo(setup) and not setup.refresh_box.isChecked()
        use_llm(wizard, openai_server.base_url, [])
        setup.refresh_box.setChecked(True)
        assert setup.passes() == [DreamPass.MCP_REFRESH]
        assert not setup.validatePage()  # no surfaces file yet: the page says so and stays
        assert "choose the servers' surfaces file" in setup.surfaces_error.text()
        setup.surfaces.setText(str(surfaces_file))
        wizard.next()  # the prompts page: the refresh pass's messages are made during the run
        assert wizard.currentId() == wizard.page_id("prompts") and wizard.prompts.tabs.count() == 0
        run_to_end(qtbot, wizard)
        plan = wizard.run.plan
        assert plan is not None and [p.id for p in plan.proposals] == ["m1"]
        sent = [r.body["messages"][1]["content"] for r in openai_server.requests
                if r.path.endswith("/completions")]
        assert sent == ["Skill: mcp/github/t0\nWhy it is stale: github changed from v1.4.0 to v1.5.0 "
                        "since this skill was written\n\n## Current tools on MCP server 'github'\n\n"
                        "tool list of github\n\n## Current skill markdown\n\n# T0\n\nCall old_tool_0.\n"]
    finally:
        window.loader.cancel()
        window.loader.wait()


def test_the_refresh_pass_is_not_offered_for_64e82cc(qtbot, tmp_path: Path) -> None:
    agent = make_writable(stale_agent(tmp_path / "agent", 1))
    window = open_window(qtbot, agent)
    try:
        with qtbot.waitSignal(window.loadFinished, timeout=10_000):
            window.reopen_as("rockbot-64e82cc")
        wizard = open_wizard(window, NOW)
        assert not wizard.setup.refresh_box.isVisibleTo(wizard.setup)
        wizard.setup.refresh_box.setChecked(True)  # (hidden: never part of the run)
        assert DreamPass.MCP_REFRESH not in wizard.setup.passes()
    finally:
        window.loader.cancel()
        window.loader.wait()
