"""``rockskills usage`` as a real process, against the fixture's expected dream values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import AGENT, EXPECTED, NOW_TEXT, REPO

DERIVED = json.loads((EXPECTED / "dream-derived.json").read_text(encoding="utf-8"))["consolidation"]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, check=False, text=True, encoding="utf-8")


def test_usage_json_equals_dream_derived() -> None:
    result = run("usage", AGENT, "--now", NOW_TEXT, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"counts", "pairs", "coUsed"}
    assert out["counts"] == DERIVED["usage_count"]
    assert [[f"{p['a']}|{p['b']}", p["sessions"]] for p in out["pairs"]] == DERIVED["co_occurrence_pairs"]
    assert out["coUsed"] == DERIVED["co_used"]


def test_usage_text_prints_counts_and_rockbots_top_ten() -> None:
    result = run("usage", AGENT, "--now", NOW_TEXT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Usage in the last 30 days: 32 event(s) in 6 session(s)"
    assert lines[1].split() == ["8", "mcp/email"]
    assert "old-meeting-notes  (no such skill)" in result.stdout
    prompt = (EXPECTED / "dream-2-consolidation.user.txt").read_text(encoding="utf-8").split("\n")
    start = prompt.index("Frequently co-used skill pairs (across sessions in last 30 days):")
    assert lines[-11:] == prompt[start:start + 11]


def test_usage_days_narrows_the_window() -> None:
    out = json.loads(run("usage", AGENT, "--now", NOW_TEXT, "--days", "2", "--json").stdout)
    # Since 2026-11-20T12:00: e5d3's four events and blazor's memory + mcp/email on 11-21.
    assert out["counts"] == {"mcp": 1, "plan-meeting": 1, "mcp/calendar": 1, "mcp/email": 2, "memory": 1}
    # e5d3 comes first (earliest event); its names sorted, then blazor's two; every pair once.
    assert [(p["a"], p["b"], p["sessions"]) for p in out["pairs"]] == [
        ("mcp", "mcp/calendar", 1), ("mcp", "mcp/email", 1), ("mcp", "plan-meeting", 1),
        ("mcp/calendar", "mcp/email", 1), ("mcp/calendar", "plan-meeting", 1),
        ("mcp/email", "plan-meeting", 1), ("mcp/email", "memory", 1)]
    assert run("usage", AGENT, "--days", "-1").returncode == 2
    assert run("usage", AGENT / "nope").returncode == 2
