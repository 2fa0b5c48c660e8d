"""File ▸ Save Like RockBot's edit_skill in the Skill tab, on real widgets (issue 30).

RockBot (current)'s ``edit_skill`` changes a skill's content by one exact-string edit and keeps
its summary, see-also, lastUsedAt and resources (MarimerLLC/rockbot
``src/RockBot.Host/FileSkillStore.cs`` @ 4105def, ``EditContentAsync``; its answer from
``src/RockBot.Skills/SkillTools.cs`` @ 150a84c). 64e82cc has no such tool: the command is hidden.
"""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.core.model.profiles import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.ui.shell.status_bar import ElidingStatusBar
from tests.rockbot_current_rules import make_rules_agent
from tests.ui.conftest import open_window
from tests.ui.test_editor_pane import open_skill, type_at_end

NAME = "email/send"


def on_disk(agent: Path) -> dict:
    return json.loads((agent / "skills" / f"{NAME}.json").read_text(encoding="utf-8"))


def test_save_like_the_agent_writes_only_the_content_and_gives_its_answer(qtbot, tmp_path: Path) -> None:
    agent = make_rules_agent(tmp_path / "agent")
    before = on_disk(agent)
    window = open_window(qtbot, agent)
    try:
        assert window.ctx.library is not None and window.ctx.library.profile is ROCKBOT_CURRENT
        pane = open_skill(window, NAME)
        action = window.commands["file.save_like_agent"]
        assert action.isVisible() and not action.isEnabled()  # nothing to save yet
        type_at_end(qtbot, pane, "\n3. Confirm it was sent.")
        pane.header.summary.setText("A summary edited here")
        pane.header.summary.textEdited.emit("A summary edited here")
        assert action.isEnabled()
        action.trigger()
        after = on_disk(agent)
        assert after["content"] == before["content"] + "\n3. Confirm it was sent."
        assert after["summary"] == before["summary"]  # edit_skill keeps the summary ...
        assert {k: v for k, v in after.items() if k not in ("content", "updatedAt")} == \
            {k: v for k, v in before.items() if k not in ("content", "updatedAt")}
        assert after["updatedAt"] != before["updatedAt"]
        bar = window.statusBar()
        assert isinstance(bar, ElidingStatusBar)
        message = bar.full_message()  # (the bar elides what does not fit; the tooltip has it all)
        assert message.startswith(f"Saved like the agent: Skill '{NAME}' edited \u2014 replaced 1 "
                                  f"occurrence ({len(before['content'])} \u2192 {len(after['content'])} "
                                  "characters). Summary and resources unchanged.")
        assert "Unsaved here: the summary" in message
        assert pane.current is not None and pane.current.dirty  # ... and the summary edit stays unsaved
        assert pane.header.summary.text() == "A summary edited here"
        window.ctx.undo()
        assert on_disk(agent) == before
    finally:
        window.loader.cancel()
        window.loader.wait()


def test_the_command_is_hidden_where_the_agent_has_no_edit_skill(qtbot, tmp_path: Path) -> None:
    agent = make_rules_agent(tmp_path / "agent")
    window = open_window(qtbot, agent)
    try:
        with qtbot.waitSignal(window.loadFinished, timeout=10_000):
            window.reopen_as(ROCKBOT_64E82CC.id)
        pane = open_skill(window, NAME)
        type_at_end(qtbot, pane, "\nmore")
        action = window.commands["file.save_like_agent"]
        assert not action.isVisible() and not action.isEnabled()
        assert window.commands["file.save"].isEnabled()
    finally:
        window.loader.cancel()
        window.loader.wait()
