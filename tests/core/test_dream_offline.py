"""The offline proposer: deterministic, labelled, checked and applicable."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import AGENT, NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)


def offline(agent: Path, protect: tuple[str, ...] = ()):
    return run_dream(RockBotLibrary.open(agent),
                     RunOptions(offline=True, now=NOW, protected_prefixes=protect))


def test_offline_proposals_are_deterministic_and_labelled() -> None:
    first, second = offline(AGENT), offline(AGENT)
    strip = {"created_at"}
    assert first.model_dump(exclude=strip) == second.model_dump(exclude=strip)
    assert first.offline and [p.dream_pass.value for p in first.passes] == ["offline"]
    assert all(p.offline and p.id.startswith("x") for p in first.proposals)
    titles = [(p.kind.value, p.title) for p in first.proposals]
    assert titles == [
        ("prune", "Prune 'legacy/fax-sender' (inactive for 18 months)"),
        ("merge", "Merge 'schedule-meeting' into 'plan-meeting'"),
        ("delete", "Delete 'schedule-meeting' (merged into 'plan-meeting')"),
        ("create", "Create the guide 'mcp/guide'"),
        ("create", "Create the guide 'research/guide'"),
        ("rewrite", "Expand 'mcp/weather' (only 118 characters)"),
        ("rewrite", "Expand 'write-report' (only 118 characters)"),
        ("see-also", "Link 'mcp/calendar' to plan-meeting, schedule-meeting"),
        ("see-also", "Link 'mcp/email' to plan-meeting"),
        ("see-also", "Link 'plan-meeting' to mcp/calendar, mcp/email"),
        ("see-also", "Link 'schedule-meeting' to mcp/calendar, mcp/email"),
    ]
    assert first.get("x3").depends_on == ["x2"]
    assert first.get("x2").conflicts_with == ["x10"]  # both rewrite plan-meeting
    assert first.get("x6").advisory and first.get("x7").advisory
    assert first.acceptable_ids() == ["x1", "x2", "x3", "x4", "x5", "x8", "x9"]


def test_starter_skills_are_never_merge_candidates() -> None:
    plan = offline(AGENT)
    starters = {"memory", "skills", "mcp", "web", "scheduling", "subagent", "a2a", "scripts"}
    merges = [p for p in plan.proposals if p.kind.value == "merge"]
    assert merges and all(not set(p.sources) & starters for p in merges)


def test_applying_offline_proposals(agent_copy: Path) -> None:
    plan = offline(agent_copy)
    library = RockBotLibrary.open(agent_copy)
    apply_plan(library, plan, plan.acceptable_ids())
    merged = library.get("plan-meeting")
    assert merged is not None and "## Also from 'schedule-meeting'" in (merged.content or "")
    assert "schedule-meeting" not in library
    assert merged.created_at.isoformat() == "2026-07-01T15:47:33.7001284+00:00"
    guide = library.get("mcp/guide")
    assert guide is not None and guide.see_also == ("mcp/calendar", "mcp/email", "mcp/weather")
    calendar = library.get("mcp/calendar")
    assert calendar is not None and calendar.see_also == ("mcp/email", "plan-meeting", "schedule-meeting")


def test_protected_prune_is_blocked(agent_copy: Path) -> None:
    plan = offline(agent_copy, protect=("legacy",))
    assert plan.get("x1").blocked and "x1" not in plan.acceptable_ids()
