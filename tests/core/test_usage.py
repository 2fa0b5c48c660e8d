"""Usage counts and co-occurrence as RockBot's consolidation pass computes them (spec §9, §10.4)."""

from __future__ import annotations

import json

from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp
from rockskills_gui.core.usage.events import EventLog, UsageEvent, read_usage
from rockskills_gui.core.usage.stats import UsageWindow, analyze
from tests.conftest import AGENT, EXPECTED, NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)
DERIVED = json.loads((EXPECTED / "dream-derived.json").read_text(encoding="utf-8"))["consolidation"]


def ev(skill: str | None, session: str | None, when: str) -> UsageEvent:
    return UsageEvent("0" * 12, skill, session, Timestamp.parse(f"2026-11-{when}+00:00"))


# ---------------------------------------------------------------- the fixture


def test_fixture_counts_sessions_pairs_and_co_used_match_dream_derived() -> None:
    stats = analyze(read_usage(AGENT), UsageWindow.last_days(NOW))
    assert len(stats.events) == DERIVED["usage_events_30d"]
    assert stats.counts() == DERIVED["usage_count"]
    assert list(stats.counts()) == list(DERIVED["usage_count"])  # GroupBy order: first seen
    assert [[p.key, p.sessions] for p in stats.pairs] == DERIVED["co_occurrence_pairs"]
    assert stats.co_used_map() == DERIVED["co_used"]
    assert {s.id: list(s.skills) for s in stats.sessions} == DERIVED["sessions"]
    assert [s.id for s in stats.sessions] == list(DERIVED["sessions"])


def test_fixture_top_pairs_are_printed_as_in_the_consolidation_prompt() -> None:
    prompt = (EXPECTED / "dream-2-consolidation.user.txt").read_text(encoding="utf-8").split("\n")
    start = prompt.index("Frequently co-used skill pairs (across sessions in last 30 days):") + 1
    stats = analyze(read_usage(AGENT), UsageWindow.last_days(NOW))
    assert stats.top_pair_lines() == prompt[start:start + 10]


def test_fixture_sessions_behind_a_pair() -> None:
    stats = analyze(read_usage(AGENT), UsageWindow.last_days(NOW))
    ids = [s.id for s in stats.sessions_with("MCP/EMAIL", "mcp/calendar")]
    assert ids == ["blazor-session", "session-2026-11-03-a41f", "session-2026-11-10-9c2e",
                   "cli-session", "session-2026-11-20-e5d3"]
    blazor = stats.sessions[0]
    assert blazor.first == Timestamp.parse("2026-10-24T09:15:22.4410021+00:00")
    assert blazor.events == 14  # 15 lines, the first outside 30 days


# ---------------------------------------------------------------- hand-computed cases


def test_names_group_case_insensitively_with_the_first_spelling() -> None:
    stats = analyze([ev("Mcp/Email", "s", "01T00:00:00"), ev("mcp/email", "s", "01T00:00:01"),
                     ev("web", "t", "01T00:00:02")], UsageWindow.all_time())
    assert stats.counts() == {"Mcp/Email": 2, "web": 1}
    assert stats.count("MCP/EMAIL") == 2
    assert stats.usage["MCP/EMAIL"].sessions == 1


def test_session_ids_group_case_sensitively_in_order_of_earliest_event() -> None:
    events = [ev("b", "S", "02T00:00:00"), ev("a", "s", "01T00:00:00"), ev("c", "S", "03T00:00:00"),
              ev("b", "s", "04T00:00:00")]
    stats = analyze(events, UsageWindow.all_time())
    assert [(s.id, s.skills) for s in stats.sessions] == [("s", ("a", "b")), ("S", ("b", "c"))]
    # "a|b" from s, "b|c" from S: two sessions, one pair each.
    assert [(p.key, p.sessions) for p in stats.pairs] == [("a|b", 1), ("b|c", 1)]


def test_repeats_count_as_uses_but_a_pair_once_per_session() -> None:
    events = [ev("x", "s", "01T00:00:00"), ev("y", "s", "01T00:00:01"), ev("x", "s", "01T00:00:02"),
              ev("X", "s", "01T00:00:03")]
    stats = analyze(events, UsageWindow.all_time())
    assert stats.counts() == {"x": 3, "y": 1}
    assert [(p.key, p.sessions) for p in stats.pairs] == [("x|y", 1)]


def test_pairs_sorted_ordinal_ignore_case_keyed_case_insensitively_with_first_key() -> None:
    # Session 1 spells "Zed" first, session 2 "zed": one pair "alpha|Zed" counted twice.
    # "_" sorts after letters in ordinal-ignore-case order (upper-cased letters < "_").
    events = [ev("Zed", "1", "01T00:00:00"), ev("alpha", "1", "01T00:00:01"),
              ev("zed", "2", "02T00:00:00"), ev("ALPHA", "2", "02T00:00:01"),
              ev("_x", "2", "02T00:00:02")]
    stats = analyze(events, UsageWindow.all_time())
    assert [(p.key, p.sessions) for p in stats.pairs] == [("alpha|Zed", 2), ("ALPHA|_x", 1),
                                                           ("zed|_x", 1)]
    assert stats.pairs[0].line() == "- alpha + Zed: 2 session(s)"
    assert stats.co_used_map() == {"alpha": ["Zed", "_x"], "Zed": ["alpha", "_x"],
                                   "_x": ["ALPHA", "zed"]}


def test_pair_ties_keep_first_seen_order_and_no_minimum() -> None:
    events = [ev("c", "1", "01T00:00:00"), ev("d", "1", "01T00:00:01"),
              ev("a", "2", "02T00:00:00"), ev("b", "2", "02T00:00:01"),
              ev("a", "3", "03T00:00:00"), ev("b", "3", "03T00:00:01")]
    stats = analyze(events, UsageWindow.all_time())
    assert [(p.key, p.sessions) for p in stats.pairs] == [("a|b", 2), ("c|d", 1)]
    assert stats.top_pair_lines(1) == ["- a + b: 2 session(s)"]


def test_window_bounds_and_cap_follow_query_recent() -> None:
    events = [ev("a", "s", "01T00:00:00"), ev("b", "s", "02T00:00:00"), ev("c", "s", "03T00:00:00"),
              UsageEvent(None, "old", "s", MIN_VALUE)]
    day2 = Timestamp.parse("2026-11-02T00:00:00+00:00")
    assert analyze(events, UsageWindow(since=day2)).counts() == {"b": 1, "c": 1}  # inclusive
    assert analyze(events, UsageWindow.between(None, day2)).counts() == {"old": 1, "a": 1}
    capped = analyze(events, UsageWindow(since=day2.add_days(-1), cap=1))
    assert capped.counts() == {"a": 1} and capped.truncated == 2  # the oldest are kept
    recent = UsageWindow.last_days(Timestamp.parse("2026-11-03T12:00:00+00:00"), 1)
    assert analyze(events, recent).counts() == {"c": 1}
    assert recent.describe() == "last 1 day"
    assert UsageWindow.between(day2, day2.add_days(2)).describe() == "2026-11-02 – 2026-11-03"


def test_events_without_name_or_session_are_set_apart() -> None:
    events = [ev(None, "s", "01T00:00:00"), ev("a", None, "01T00:00:01"), ev("a", "s", "01T00:00:02")]
    stats = analyze(EventLog(events), UsageWindow.all_time())
    assert stats.counts() == {"a": 1}
    assert len(stats.skipped) == 2
