"""Event-log readers with RockBot's semantics (spec §9)."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp
from rockskills_gui.core.usage.events import SignalType, read_conversation_log, read_feedback, read_usage
from tests.conftest import AGENT, NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)


def test_fixture_logs_read_cleanly() -> None:
    usage = read_usage(AGENT)
    assert usage.malformed == []
    assert len(usage.query(NOW.add_days(-30), 10_000)) == 32  # fixture README
    feedback = read_feedback(AGENT)
    assert feedback.malformed == []
    assert {e.signal_type for e in feedback.events} == {0, 1, 2, 3, 4}
    turns = read_conversation_log(AGENT)
    assert len(turns.events) == 13
    assert len({t.session_id for t in turns.events}) == 4


def test_malformed_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    folder = tmp_path / "skill-usage"
    folder.mkdir()
    (folder / "s.jsonl").write_text(
        '{"id":"1","skillName":"a","sessionId":"s","timestamp":"2026-11-01T00:00:00+00:00"}\n'
        "\n"
        "   \n"
        '{"id":"2","skillName":"b",\n'
        '{"id":"3","skillName":5,"sessionId":"s","timestamp":"2026-11-01T00:00:00+00:00"}\n'
        '{"id":"4","skillName":"c","sessionId":"s","timestamp":null}\n'
        '{"id":"5","skillName":"d","sessionId":"s"}\r\n'
        '{"ID":"6","SKILLNAME":"e","sessionid":"s","timestamp":"2026-11-02T00:00:00Z"}'
    )
    (folder / "nested").mkdir()
    (folder / "nested" / "ignored.jsonl").write_text('{"skillName":"zzz"}\n')
    (folder / "notes.txt").write_text("ignored")
    log = read_usage(tmp_path)
    assert [e.skill_name for e in log.events] == ["a", "d", "e"]
    assert [(m.path, m.line) for m in log.malformed] == [
        ("skill-usage/s.jsonl", 4), ("skill-usage/s.jsonl", 5), ("skill-usage/s.jsonl", 6)]
    assert log.events[1].timestamp == MIN_VALUE  # missing timestamp: outside every window


def test_query_is_inclusive_stable_and_takes_the_first_max(tmp_path: Path) -> None:
    folder = tmp_path / "skill-usage"
    folder.mkdir()
    lines = [
        ("b.jsonl", "x1", "2026-11-10T00:00:00Z"),
        ("b.jsonl", "x2", "2026-11-01T00:00:00Z"),
        ("a.jsonl", "x3", "2026-11-10T00:00:00+00:00"),
        ("a.jsonl", "x4", "2026-10-23T12:00:00+00:00"),
    ]
    for file, name, ts in lines:
        with open(folder / file, "a") as handle:
            handle.write(f'{{"skillName":"{name}","sessionId":"s","timestamp":"{ts}"}}\n')
    log = read_usage(tmp_path)
    since = NOW.add_days(-30)  # 2026-10-23T12:00 — inclusive
    assert [e.skill_name for e in log.query(since)] == ["x4", "x2", "x3", "x1"]
    assert [e.skill_name for e in log.query(since, 2)] == ["x4", "x2"]


def test_signal_type_must_be_an_integer(tmp_path: Path) -> None:
    folder = tmp_path / "feedback"
    folder.mkdir()
    (folder / "s.jsonl").write_text(
        '{"sessionId":"s","signalType":"Correction","timestamp":"2026-11-01T00:00:00Z"}\n'
        '{"sessionId":"s","timestamp":"2026-11-01T00:00:00Z"}\n'
        '{"sessionId":"s","signalType":4,"timestamp":"2026-11-01T00:00:00Z"}\n'
    )
    log = read_feedback(tmp_path)
    assert [e.signal_type for e in log.events] == [SignalType.Correction, 4]
    assert log.events[1].signal_name == "UserThumbsDown"
    assert len(log.malformed) == 1
