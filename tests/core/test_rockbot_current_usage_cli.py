"""``rockskills usage`` on a RockBot (current) agent (issue 20): resource reads per skill and file
from ``skill-resource-usage.jsonl`` over the command's window, as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import AGENT, NOW_TEXT, REPO
from tests.rockbot_current import make_current_agent, snapshot

NOW = "2026-06-10T00:00:00+00:00"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, check=False, text=True, encoding="utf-8")


def line(skill: str, filename: str, session: str, when: str) -> str:
    return json.dumps({"skillName": skill, "filename": filename, "sessionId": session,
                       "timestamp": when}, separators=(",", ":"))


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    root = make_current_agent(tmp_path / "agent")
    log = root / "skill-resource-usage.jsonl"
    log.write_text(log.read_text() + "\n".join([
        line("Scripts/CSV-Report", "REPORT.py", "s2", "2026-06-05T08:00:00+00:00"),  # any case
        line("scripts/csv-report", "schema.json", "s2", "2026-06-05T08:01:00+00:00"),
        line("scripts/csv-report", "notes.txt", "s3", "2026-06-06T08:00:00+00:00"),  # not a resource
        line("gone/skill", "a.py", "s3", "2026-06-06T09:00:00+00:00"),  # no such skill
        line("scripts/csv-report", "report.py", "s0", "2026-04-01T08:00:00+00:00"),  # too old
        "{not json",
    ]) + "\n")
    return root


def test_usage_lists_resource_reads_per_skill(agent: Path) -> None:
    before = snapshot(agent)
    result = run("usage", agent, "--now", NOW, "--json")
    assert result.returncode == 0, result.stderr
    reads = json.loads(result.stdout)["resourceReads"]
    assert [(r["skill"], r["inLibrary"], r["reads"], r["sessions"]) for r in reads] == [
        ("scripts/csv-report", True, 4, 3), ("gone/skill", False, 1, 1)]
    files = [(f["filename"], f["reads"], f["sessions"], f["resource"]) for f in reads[0]["files"]]
    assert files == [("report.py", 2, 2, True), ("notes.txt", 1, 1, False),
                     ("schema.json", 1, 1, True), ("missing.md", 0, 0, True),
                     ("logo.png", 0, 0, True)]
    assert reads[0]["lastRead"] == "2026-06-06T08:00:00+00:00"
    text = run("usage", agent, "--now", NOW).stdout.splitlines()
    start = text.index("Resource reads in the last 30 days (skill-resource-usage.jsonl): 5 read(s), "
                       "2 skill(s) read from")
    assert text[start + 1] == "(1 line(s) RockBot would skip)"
    assert text[start + 2] == ("  4  scripts/csv-report  (3 session(s), last read "
                               "2026-06-06T08:00:00+00:00)")
    assert text[start + 3].split() == ["2", "report.py", "(last", "read", "2026-06-05T08:00:00+00:00)"]
    assert "notes.txt  (not a resource of the skill)" in text[start + 4]
    assert text[start + 7].split() == ["0", "logo.png"]
    assert text[start + 8].startswith("  1  gone/skill  (no such skill)")
    old = json.loads(run("usage", agent, "--now", NOW, "--days", "90", "--json").stdout)
    assert old["resourceReads"][0]["reads"] == 5 and old["resourceReads"][0]["sessions"] == 4
    assert snapshot(agent) == before


def test_no_log_still_lists_resources_never_read(agent: Path) -> None:
    (agent / "skill-resource-usage.jsonl").unlink()
    out = run("usage", agent, "--now", NOW).stdout
    assert "(skill-resource-usage.jsonl is absent or empty" in out
    assert "  0  scripts/csv-report  (0 session(s))" in out


def test_64e82cc_output_is_unchanged() -> None:
    out = json.loads(run("usage", AGENT, "--now", NOW_TEXT, "--json").stdout)
    assert set(out) == {"counts", "pairs", "coUsed"}
    assert "Resource reads" not in run("usage", AGENT, "--now", NOW_TEXT).stdout
