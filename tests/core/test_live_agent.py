"""A live agent beside the library: a process behaving like RockBot (tests/core/fake_rockbot.py)
writes, re-saves, deletes and re-creates skills and appends usage events in the same agent
directory while this test drives 1,000+ Library operations (edits, creates, renames with see-also
rewrite, deletes, undo, redo) and refreshes from disk as the file watcher does.

Checked:
- no update is lost silently: every write of ours replaced exactly the version it expected.
  Both sides log each write with its CLOCK_MONOTONIC interval; for every one of our writes whose
  predecessor on that path is unambiguous (no write by either side overlapping), the bytes we
  replaced must be that predecessor's. A write refused because the file changed is a
  ConflictError (counted, and there must be some);
- no half-written file is ever observed: the agent's reader thread parses every skill file in a
  loop (never while the agent itself writes) and must never find incomplete JSON; at the end every
  ``*.json`` parses and there are no temp files.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.storage.changes import ChangeSet, ConflictError, LibraryError
from tests.conftest import REPO
from tests.core.fake_rockbot import sha

OUR_OPS = 1000


@dataclass
class Write:
    """One file changed by one side: bytes before (ours only) and after, and when."""

    ours: bool
    path: str
    before: str | None
    after: str | None
    t0: int
    t1: int


def start_agent(agent: Path, tmp: Path, seed: int) -> tuple[subprocess.Popen[bytes], Path, Path]:
    log, stop = tmp / "agent.log", tmp / "stop"
    proc = subprocess.Popen([sys.executable, "-m", "tests.core.fake_rockbot", str(agent), str(log),
                             str(stop), "--seed", str(seed)], cwd=REPO)
    return proc, log, stop


def refresh_all(lib: RockBotLibrary) -> None:
    """What the file watcher reports: every folder and every known file."""
    folders = {p for p in lib.skills_dir.rglob("*") if p.is_dir()} | {lib.skills_dir}
    lib.refresh([*folders, *(lib.entry(n).path for n in lib.names())])


HOT = ("mcp/email", "write-report", "plan-meeting", "daily-standup")  # both sides favour these


def our_operation(lib: RockBotLibrary, rng: random.Random, k: int) -> Callable[[], ChangeSet | None]:
    names = lib.names()
    hot = [n for n in HOT if n in lib]
    name = rng.choice(hot) if hot and rng.random() < 0.3 else rng.choice(names) if names else "x"
    roll = rng.random()
    if roll < 0.45 and names:
        content = (lib.entry(name).skill.content or "") + f"\n[ours #{k}]"
        return lambda: lib.update(name, content=content)
    if roll < 0.55:
        return lambda: lib.create(f"ours/new-{k}", "made by the test", f"[ours #{k}]")
    if roll < 0.65 and names:
        return lambda: lib.rename(name, f"ours/renamed-{k}")
    if roll < 0.72 and names:
        return lambda: lib.delete(name)
    if roll < 0.8 and len(names) > 2:
        targets = rng.sample(names, 2)
        return lambda: lib.update(name, see_also=targets)
    if roll < 0.92:
        return lib.undo
    return lib.redo


def drive(lib: RockBotLibrary, ops: int, seed: int) -> tuple[list[Write], dict[str, int]]:
    rng = random.Random(seed)
    writes: list[Write] = []
    counts: dict[str, int] = defaultdict(int)
    for k in range(ops):
        operation = our_operation(lib, rng, k)
        t0 = time.monotonic_ns()
        try:
            change = operation()
        except ConflictError:
            counts["conflicts"] += 1
            refresh_all(lib)
            continue
        except LibraryError:  # a name the agent took or deleted meanwhile, nothing to undo, ...
            counts["refused"] += 1
            refresh_all(lib)
            continue
        t1 = time.monotonic_ns()
        counts["applied"] += 1
        for fc in change.files if change is not None else ():
            writes.append(Write(True, str(fc.path), sha(fc.before), sha(fc.after), t0, t1))
        if k % 8 == 0:  # the watcher's news arrive now and then: in between, collisions happen
            refresh_all(lib)
    return writes, counts


def read_agent_log(log: Path) -> tuple[list[Write], dict[str, Any]]:
    writes: list[Write] = []
    summary: dict[str, Any] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("summary"):
            summary = entry
        else:
            writes.append(Write(False, entry["path"], None, entry["sha"], entry["t0"], entry["t1"]))
    return writes, summary


def audit(initial: dict[str, str], writes: list[Write]) -> tuple[int, list[str], int]:
    """For each of our writes with an unambiguous predecessor, compare what we replaced with it.

    Returns the number checked, the losses, and how many of the checked had an agent predecessor.
    """
    by_path: dict[str, list[Write]] = defaultdict(list)
    for w in writes:
        by_path[w.path].append(w)
    checked = after_agent = 0
    lost: list[str] = []
    for path, events in by_path.items():
        for w in (e for e in events if e.ours):
            prior = [e for e in events if e is not w and e.t1 < w.t0]
            latest = max(prior, key=lambda e: e.t1) if prior else None
            since = latest.t0 if latest is not None else -1
            if any(e is not w and e is not latest and e.t1 > since and e.t0 < w.t1 for e in events):
                continue  # overlapping writes: the order is not known
            expected = latest.after if latest is not None else initial.get(path)
            checked += 1
            after_agent += latest is not None and not latest.ours
            if w.before != expected:
                lost.append(f"{path}: we replaced {w.before} but the file held {expected} "
                            f"(written by {'us' if latest and latest.ours else 'the agent'})")
    return checked, lost, after_agent


def json_files(agent: Path) -> dict[str, str]:
    return {str(p): sha(p.read_bytes()) or "" for p in (agent / "skills").rglob("*.json")}


@pytest.mark.skipif(sys.platform == "win32", reason="CLOCK_MONOTONIC across processes (Linux/macOS)")
def test_a_live_agent_loses_nothing_silently_and_never_sees_half_a_file(agent_copy: Path,
                                                                        tmp_path: Path) -> None:
    initial = json_files(agent_copy)
    lib = RockBotLibrary.open(agent_copy)
    proc, log, stop = start_agent(agent_copy, tmp_path, seed=3)
    try:
        time.sleep(0.2)
        ours, counts = drive(lib, OUR_OPS, seed=5)
    finally:
        stop.touch()
        proc.wait(timeout=60)
    agent_writes, summary = read_agent_log(log)
    checked, lost, after_agent = audit(initial, ours + agent_writes)
    report = (f"ours: {dict(counts)}, our file writes {len(ours)}, agent ops {summary.get('ops')}, "
              f"agent writes {len(agent_writes)}, agent reads {summary.get('reads')}, "
              f"audited {checked} ({after_agent} replacing an agent's version)")
    print(report)
    assert lost == [], report + "\n" + "\n".join(lost)
    assert summary["partial_reads"] == [], summary["partial_reads"]
    assert counts["applied"] + counts["conflicts"] + counts["refused"] == OUR_OPS
    assert counts["conflicts"] > 0, "the agent never collided with us: the test proves nothing"
    assert summary["ops"] >= 100 and checked >= 300 and after_agent >= 20, report
    for path in (agent_copy / "skills").rglob("*.json"):
        json.loads(path.read_bytes())
    assert not [p for p in agent_copy.rglob("*") if p.name.endswith(".rsg-tmp")]
    assert RockBotLibrary.open(agent_copy).recovery is None


def test_the_audit_catches_a_blind_overwrite(agent_copy: Path) -> None:
    """The same audit on a writer that does not check (a plain write_bytes) finds the loss."""
    path = str(agent_copy / "skills" / "mcp" / "email.json")
    agent = Write(False, path, None, "agent-version", 10, 20)
    blind = Write(True, path, "what-we-read-earlier", "ours", 30, 40)
    checked, lost, _ = audit({path: "what-we-read-earlier"}, [agent, blind])
    assert checked == 1 and len(lost) == 1 and "agent" in lost[0]
