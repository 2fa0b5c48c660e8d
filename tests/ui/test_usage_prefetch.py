"""The tree's last-use times read by a helper process while the library loads (issue 19): the
same result the pane computes itself, delivered with the library; a helper that fails or is not
wanted changes nothing but who reads the logs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.library.tree import last_used_by_name
from rockskills_gui.core.usage.events import read_usage
from rockskills_gui.ui.common import usage_prefetch
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.usage_prefetch import UsagePrefetch
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.test_fileio_and_scan import make_library


def write_usage(agent: Path, events: int = 3000) -> None:
    """Logs in several sessions: mixed-case names, offsets, a later use in another file, and
    malformed lines the reader skips."""
    usage = agent / "skill-usage"
    usage.mkdir(exist_ok=True)
    for session in range(3):
        lines = []
        for i in range(events):
            name = f"group-{i % 3}/skill-{i % 700:05d}"
            if i % 11 == 0:
                name = name.upper()
            day = 1 + (i * 7 + session * 3) % 28
            offset = ("+02:00", "Z", "-05:30")[(i + session) % 3]
            lines.append(json.dumps({"id": f"{session}-{i}", "skillName": name,
                                     "sessionId": f"s{session}",
                                     "timestamp": f"2026-10-{day:02d}T1{session}:00:00{offset}"}))
            if i % 500 == 0:
                lines.append('{"skillName": "broken", "timestamp": ')
        (usage / f"s{session}.jsonl").write_text("\n".join(lines) + "\n")


def expected(agent: Path) -> dict:
    return last_used_by_name(read_usage(agent).events)


def test_the_helper_gives_what_reading_here_gives(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_library(tmp_path, 50)
    write_usage(agent)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    monkeypatch.setattr(usage_prefetch, "PREFETCH_FROM_BYTES", 0)
    prefetch = UsagePrefetch.start(agent / "skills")  # the skills folder names the same agent
    assert prefetch is not None and prefetch.agent_dir == agent.resolve()
    got = prefetch.result(timeout=60)
    assert got is not None and len(got) > 600
    assert got == expected(agent)
    assert prefetch.result() == got  # asked again: the same


def test_no_helper_when_small_or_turned_off_and_a_failing_one_gives_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_library(tmp_path, 20)
    write_usage(agent, 200)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    assert UsagePrefetch.start(agent) is None  # far below PREFETCH_FROM_BYTES
    monkeypatch.setattr(usage_prefetch, "PREFETCH_FROM_BYTES", 0)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "1")
    assert UsagePrefetch.start(agent) is None  # helper processes turned off
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    missing = UsagePrefetch(tmp_path / "not-there")  # the helper finds nothing to read: {}
    assert missing.result(timeout=60) == {}
    os.chmod(agent / "skill-usage", 0o000)
    try:
        unreadable = UsagePrefetch(agent)
        result = unreadable.result(timeout=60)
        assert result is None or result == expected(agent)  # (root reads it anyway)
    finally:
        os.chmod(agent / "skill-usage", 0o755)
    cancelled = UsagePrefetch(agent)
    cancelled.cancel()
    assert cancelled.result(timeout=60) in (None, expected(agent))


def test_the_window_gets_the_prefetched_last_uses_with_the_library(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_library(tmp_path, 1200)
    write_usage(agent)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    monkeypatch.setattr(usage_prefetch, "PREFETCH_FROM_BYTES", 0)
    from rockskills_gui.ui.library import tree_pane

    monkeypatch.setattr(tree_pane, "SYNC_USAGE_BYTES", 0)  # as with large logs: on the worker
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.library_pane.usageLoaded, timeout=60_000):
        window.open_path(agent)
    prefetch = window.ctx.prepared.get("usage")
    assert isinstance(prefetch, UsagePrefetch)
    assert window.library_pane.model._last_used == expected(agent)
