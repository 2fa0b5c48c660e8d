"""Skill-body aging in one turn's tool loop (issue 30), as upstream's tests state it.

The cases are those of MarimerLLC/rockbot ``tests/RockBot.Host.Tests/AgentLoopRunnerSkillBodyAgingTests.cs``
@ cc9e4e7 (``RegisterAndAgeSkillBodies``, ``TryExtractLoadedSkillName``); the default of 5 is
``AgentHostOptions.SkillBodyUnloadAfterIterations`` (``src/RockBot.Host/AgentHostOptions.cs``). A
framed body (``SkillRecallFraming.cs`` @ 5c27c24) does not start with ``Skill: ``, so the aging as
read never unloads it: reproduced, and said per turn.
"""

from __future__ import annotations

from rockskills_gui.core.model.profiles import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.aging import ToolCall, age_bodies, aging_note, loaded_skill_name
from rockskills_gui.core.recall.session import framed_message

CALENDAR = "Skill: mcp/calendar-mcp\n# Calendar MCP body content"
WEB = ToolCall("web_search")


def test_below_the_threshold_the_body_stays() -> None:
    unloads, left = age_bodies(["preamble", CALENDAR, "do the thing"], [WEB] * 3, 5)
    assert unloads == [] and CALENDAR in left


def test_past_the_threshold_the_body_goes_and_nothing_else() -> None:
    unloads, left = age_bodies(["preamble", CALENDAR, "do the thing"], [WEB] * 5, 3)
    assert [(u.call, u.skill) for u in unloads] == [(5, "mcp/calendar-mcp")]  # registered at 1
    assert left == ["preamble", "do the thing"]
    assert age_bodies([CALENDAR], [WEB] * 4, 3)[0] == []


def test_a_get_skill_call_refreshes_the_clock() -> None:
    calls = [WEB] * 3 + [ToolCall("get_skill", "mcp/calendar-mcp")] + [WEB] * 3
    assert age_bodies([CALENDAR], calls, 3)[0] == []
    # The tool name is compared ignoring case, the skill name ordinally; the pre-#549 wire name
    # GetSkill never refreshed.
    def around(call: ToolCall) -> list[ToolCall]:
        return [WEB] * 3 + [call] + [WEB] * 3

    assert age_bodies([CALENDAR], around(ToolCall("GET_SKILL", "mcp/calendar-mcp")), 3)[0] == []
    assert age_bodies([CALENDAR], around(ToolCall("get_skill", "MCP/calendar-mcp")), 3)[0]
    assert age_bodies([CALENDAR], around(ToolCall("GetSkill", "mcp/calendar-mcp")), 3)[0]


def test_skills_are_tracked_independently() -> None:
    a, b = "Skill: skill-a\n# Body A", "Skill: skill-b\n# Body B"
    calls = [WEB, ToolCall("get_skill", "skill-a"), ToolCall("get_skill", "skill-a"), WEB, WEB, WEB]
    unloads, left = age_bodies([a, b, "do the thing"], calls, 3)
    assert [u.skill for u in unloads] == ["skill-b"] and a in left


def test_zero_disables_aging_and_other_messages_are_untouched() -> None:
    a = "Skill: skill-a\n# Body A"
    assert age_bodies([a], [WEB] * 100, 0) == ([], [a])
    others = ["Some other system message about skills in general", "Skills are useful tools"]
    unloads, left = age_bodies([a, *others], [WEB] * 10, 3)
    assert [u.skill for u in unloads] == ["skill-a"] and left == others


def test_what_counts_as_a_loaded_body() -> None:
    assert loaded_skill_name("Skill: mcp/calendar-mcp\nBody") == "mcp/calendar-mcp"
    for text in ("Skill: alone-on-one-line", "Skills:\nfoo", "Skill: \nbody", "Skill:  \nbody"):
        assert loaded_skill_name(text) is None


def test_a_framed_body_is_never_unloaded_and_the_turn_says_so() -> None:
    skill = Skill(name="mcp/calendar-mcp", summary="s", content="# Calendar")
    body = framed_message(skill)
    assert loaded_skill_name(body) is None
    assert age_bodies([body], [WEB] * 50, ROCKBOT_CURRENT.injection.body_unload_after) == ([], [body])
    note = aging_note(body, skill.name, ROCKBOT_CURRENT.injection.body_unload_after, 50)
    assert note.startswith("mcp/calendar-mcp: framed body, never unloaded")
    assert ROCKBOT_CURRENT.injection.body_unload_after == 5
    assert ROCKBOT_64E82CC.injection.body_unload_after == 0


def test_an_unframed_body_is_unloaded_at_call_7_with_the_default() -> None:
    bare = "Skill: web\nSearch."
    assert aging_note(bare, "web", 5, 6) == "web: still loaded after 6 tool call(s) (unloaded at call 7)"
    assert aging_note(bare, "web", 5, 7) == "web: unloaded at tool call 7 of 7"
