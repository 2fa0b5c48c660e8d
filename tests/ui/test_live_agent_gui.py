"""The live-agent test through the GUI's own path: AppContext operations and refreshes from disk
(what the file watcher triggers) while the fake RockBot process writes beside us. Every refused
write reaches the user as ``operationFailed``; nothing is lost silently (same audit as the core
test); the agent never reads a half-written file."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

from rockskills_gui.core.storage.changes import ChangeSet
from tests.core.fake_rockbot import sha
from tests.core.test_live_agent import Write, audit, json_files, read_agent_log, start_agent
from tests.ui.conftest import open_window

OPS = 250


@pytest.mark.skipif(sys.platform == "win32", reason="CLOCK_MONOTONIC across processes")
def test_the_gui_surfaces_every_conflict_with_a_live_agent(qtbot, agent: Path, tmp_path: Path) -> None:
    window = open_window(qtbot, agent)
    ctx = window.ctx
    failures: list[str] = []
    ctx.operationFailed.connect(failures.append)
    window.interactive = False  # no message boxes piling up; the status bar still shows each
    initial = json_files(agent)
    rng = random.Random(9)
    ours: list[Write] = []
    applied = 0
    proc, log, stop = start_agent(agent, tmp_path, seed=11)
    try:
        time.sleep(0.2)
        for k in range(OPS):
            lib = ctx.library
            assert lib is not None
            name = rng.choice(lib.names())
            content = (lib.entry(name).skill.content or "") + f"\n[gui #{k}]"
            t0 = time.monotonic_ns()
            change = ctx.apply(lambda library, n=name, c=content: library.update(n, content=c))
            t1 = time.monotonic_ns()
            if isinstance(change, ChangeSet) and not change.empty:
                applied += 1
                ours.extend(Write(True, str(fc.path), sha(fc.before), sha(fc.after), t0, t1)
                            for fc in change.files)
            if k % 3 == 0 or change is None:
                folders = [p for p in lib.skills_dir.rglob("*") if p.is_dir()] + [lib.skills_dir]
                ctx.refresh_from_disk([*folders, *(lib.entry(n).path for n in lib.names())])
            qtbot.wait(1)
    finally:
        stop.touch()
        proc.wait(timeout=60)
    agent_writes, summary = read_agent_log(log)
    checked, lost, after_agent = audit(initial, ours + agent_writes)
    assert lost == [], lost
    assert summary["partial_reads"] == []
    assert applied + len(failures) == OPS
    assert failures and all("changed on disk" in f or "not found" in f for f in failures), failures[:3]
    assert checked >= 100 and after_agent >= 5, (checked, after_agent)
