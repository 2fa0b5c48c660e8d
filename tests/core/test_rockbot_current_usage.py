"""Resource reads per skill from ``skill-resource-usage.jsonl`` (RockBot (current),
FileSkillResourceUsageStore: one SkillResourceCheckoutEvent per line, names case-insensitive)."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import read_resource_usage
from rockskills_gui.core.usage.resource_usage import resource_usage
from tests.rockbot_current import make_current_agent, snapshot

LINES = [
    '{"skillName":"scripts/csv-report","filename":"report.py","sessionId":"s1",'
    '"timestamp":"2026-06-03T09:01:00+00:00"}',
    '{"SkillName":"Scripts/CSV-Report","Filename":"REPORT.py","SessionId":"s2",'
    '"Timestamp":"2026-06-04T09:01:00+00:00"}',
    '{"skillName":"scripts/csv-report","filename":"schema.json","sessionId":"s2",'
    '"timestamp":"2026-06-04T09:02:00+00:00"}',
    "not json",
    "",
    '{"skillName":"mcp/github","filename":"notes.md","sessionId":"s3",'
    '"timestamp":"2026-06-05T10:00:00+00:00"}',
]


def test_reads_per_skill_and_file(tmp_path: Path) -> None:
    agent = make_current_agent(tmp_path / "agent")
    (agent / "skill-resource-usage.jsonl").write_text("\n".join(LINES) + "\n")
    before = snapshot(agent)
    usage = resource_usage(agent)
    assert [(m.line, m.path) for m in usage.log.malformed] == [(4, "skill-resource-usage.jsonl")]
    report = usage.of("SCRIPTS/csv-report")
    assert [(u.filename, u.reads, u.sessions) for u in report] == [("report.py", 2, 2),
                                                                   ("schema.json", 1, 1)]
    assert report[0].last_read == Timestamp.parse("2026-06-04T09:01:00+00:00")
    assert usage.reads("scripts/csv-report") == 3 and usage.sessions("scripts/csv-report") == 2
    assert usage.skills() == ["scripts/csv-report", "mcp/github"]
    since = resource_usage(agent, since=Timestamp.parse("2026-06-04T00:00:00+00:00"))
    assert [(u.filename, u.reads) for u in since.of("scripts/csv-report")] == [
        ("REPORT.py", 1), ("schema.json", 1)]  # as first spelled in what is kept
    assert snapshot(agent) == before


def test_no_log_is_an_empty_log(tmp_path: Path) -> None:
    assert read_resource_usage(tmp_path).events == []
    assert resource_usage(tmp_path).skills() == []
