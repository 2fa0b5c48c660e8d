"""Per-turn context injection (§7) against rockbot-agent-expected/recall-demo.json."""

from __future__ import annotations

import json
import math
import re

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill, utf16_len
from rockskills_gui.core.recall.session import RecallSession, skill_message
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import AGENT, EXPECTED

DEMO = json.loads((EXPECTED / "recall-demo.json").read_text("utf-8"))


def abbreviate(message: str) -> str:
    """The fixture's form of a ``Skill:`` message: name + literal ``\\n<content: N units>``."""
    if not message.startswith("Skill: "):
        return message
    head, _, content = message.partition("\n")
    return f"{head}\\n<content: {utf16_len(content)} UTF-16 units>"


@pytest.fixture(scope="module")
def demo_turns() -> list:
    session = RecallSession(SkillRecall(RockBotLibrary.open(AGENT).skills()))
    return [session.turn(turn["user"]) for turn in DEMO]


@pytest.mark.parametrize("number", range(len(DEMO)))
def test_recall_demo_turn(demo_turns: list, number: int) -> None:
    expected, turn = DEMO[number], demo_turns[number]
    assert turn.user == expected["user"]
    assert [h.name for h in turn.top] == [name for name, _ in expected["bm25_top5"]]
    for hit, (_, score) in zip(turn.top, expected["bm25_top5"], strict=True):
        assert math.isclose(hit.score, score, rel_tol=1e-9)
    assert [abbreviate(m) for m in turn.messages] == expected["injected_system_messages"]


def test_recall_demo_details(demo_turns: list) -> None:
    lib = RockBotLibrary.open(AGENT)
    first = demo_turns[0]
    assert first.index == (EXPECTED / "session-index.txt").read_text("utf-8")
    assert all(t.index is None for t in demo_turns[1:])
    # full Skill messages carry the exact content
    email = lib.get("mcp/email")
    assert email is not None and first.messages[1] == f"Skill: mcp/email\n{email.content}"
    assert first.see_also == ("mcp/calendar",)  # schedule-meeting was injected this turn
    # turn 2 ranks mcp/calendar first but injects nothing: the see-also line marked it
    assert demo_turns[1].top[0].name == "mcp/calendar" and demo_turns[1].injected == ()
    assert demo_turns[4].injected == ("plan-meeting", "recipes/cafe-menu", "scheduling",
                                      "legacy/fax-sender")


def make(name: str, see_also: tuple[str, ...] | None = None, summary: str | None = None,
         content: str = "body") -> Skill:
    return Skill(name=name, summary=summary if summary is not None else f"{name} topic",
                 content=content, see_also=see_also)


def test_index_is_marked_even_when_the_library_is_empty() -> None:
    recall = SkillRecall()
    session = RecallSession(recall)
    assert session.turn("hello there").messages == ()
    recall.upsert(make("hello"))
    later = session.turn("hello there")
    assert later.index is None
    assert later.messages == ("Skill: hello\nbody",)


def test_top_five_is_cut_before_the_recalled_filter() -> None:
    skills = [make(f"alpha-{i}", summary="alpha " * (6 - i)) for i in range(6)]
    session = RecallSession(SkillRecall(skills))
    first = session.turn("alpha")
    assert first.injected == tuple(f"alpha-{i}" for i in range(5))
    second = session.turn("alpha")
    assert len(second.top) == 5 and second.injected == () and second.messages == ()


def test_see_also_rules() -> None:
    skills = [
        make("one", ("Two", "ghost", "two", "one", "Three")),
        make("two", ("GHOST", "four")),
        make("three", ()),
        make("four", None),
    ]
    session = RecallSession(SkillRecall(skills))
    turn = session.turn("one topic")  # every skill matches "topic"; "one" ranks first
    assert turn.injected[0] == "one" and set(turn.injected) == {"one", "two", "three", "four"}
    # Distinct (first spelling wins), then drop names already recalled (the injected ones)
    assert turn.see_also == ("ghost",)
    assert turn.messages[-1] == "Related skills (see-also): ghost"
    assert "GHOST" in session.recalled and "ghost" in session.recalled.names()


def test_no_see_also_line_when_everything_was_recalled() -> None:
    skills = [make("left", ("right",)), make("right", ("left",))]
    session = RecallSession(SkillRecall(skills))
    turn = session.turn("topic")
    assert turn.injected == ("left", "right") and turn.see_also == ()
    assert not any(m.startswith("Related skills") for m in turn.messages)


def test_see_also_names_are_never_injected_later() -> None:
    skills = [make("mcp/email", ("mcp/calendar",), summary="email"),
              make("mcp/calendar", summary="calendar")]
    session = RecallSession(SkillRecall(skills))
    assert session.turn("email").messages[-1] == "Related skills (see-also): mcp/calendar"
    later = session.turn("calendar")
    assert later.top[0].name == "mcp/calendar" and later.messages == ()


def test_skill_message_with_null_content() -> None:
    assert skill_message(Skill(name="x", content=None)) == "Skill: x\n"
    assert re.fullmatch(r"Skill: a/b\n\r\nx", skill_message(make("a/b", content="\r\nx")))
