"""The dream setup page reads the agent's logs off the UI thread (issue 35, "Tests and CI"): showing
it with a large usage log returns at once, the page says it is reading, and the outlook beside
each pass arrives from the worker (results are delivered by a queued signal, so nothing can be
shown before the event loop runs: a read on the UI thread would have filled the labels already)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rockskills_gui.core.dream.passes import DreamPass
from tests.ui.conftest import open_window

EVENTS = 200_000


def large_usage_log(agent: Path) -> None:
    """200,000 usage events in one more log file (about 25 MB)."""
    lines = (json.dumps({"id": f"{i:012x}", "skillName": "mcp/email", "sessionId": f"s{i % 500}",
                         "timestamp": "2026-11-20T10:00:00+00:00"}) for i in range(EVENTS))
    (agent / "skill-usage" / "large.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_showing_the_setup_page_reads_the_logs_on_a_worker(qtbot, agent: Path) -> None:
    shutil.rmtree(agent / "conversation-log")  # then RockBot would skip the gap pass: said beside it
    large_usage_log(agent)
    window = open_window(qtbot, agent)
    try:
        window.show_pane("dream")  # the wizard opens on its setup page
        wizard = window.dream_wizard
        assert wizard is not None and wizard.currentId() == wizard.page_id("setup")
        setup = wizard.setup
        gap = setup.outlook_labels[DreamPass.GAP]
        assert gap.text() == ""  # not read here
        assert setup.reader.busy and not setup.outlook_reading.isHidden()  # "Reading the logs…"
        qtbot.waitUntil(lambda: not setup.reader.busy, timeout=60_000)
        assert gap.text() == "RockBot would skip it: the conversation log is empty"
        assert setup.outlook_reading.isHidden()
    finally:
        window.loader.cancel()
        window.loader.wait()
