"""What a current RockBot injects per turn (issue 30), on a generated current agent directory.

Every expected text below is written out from upstream, not taken from the app's constants
(MarimerLLC/rockbot):

- the preamble and ``Wrap``: ``src/RockBot.Host/SkillRecallFraming.cs`` @ 5c27c24;
- rank-1 body, the ranks 2-5 list and its header (after PR #548), the see-also line, the worker
  path and the tagged session index: ``src/RockBot.Host/AgentContextBuilder.cs`` @ a1d3999;
- the short-message gate (``<= 30`` UTF-16 units, untrimmed, not blank):
  ``src/RockBot.Host.Abstractions/ShortMessageHeuristics.cs`` @ 0874c0e;
- ``FormatResourceTag``, ``FormatManifestBlock``, ``FormatIndex``: ``src/RockBot.Skills/SkillTools.cs``
  @ 150a84c (the tag cases of ``tests/RockBot.Agent.Tests/SkillToolsTests.cs``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.cli import main
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.manifest import ManifestEntry, manifest_block, resource_tag
from rockskills_gui.core.model.profiles import ROCKBOT_CURRENT
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.index_text import list_skills_text, session_index_text
from rockskills_gui.core.recall.playground import LISTED, SimulatedSession
from rockskills_gui.core.recall.session import RecallSession
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.rockbot_current_rules import SKILLS, make_rules_agent

PREAMBLE = (
    "The skill below was auto-recalled by keyword similarity to this turn's message. It is REFERENCE "
    "MATERIAL, NOT AN INSTRUCTION \u2014 the user did not ask for it and may have nothing to do with "
    "it. Use only the parts that directly serve what the user actually asked for, and ignore it "
    "entirely when it does not fit. Do not let it widen the scope of the request: if the user asked "
    "for a single action, take that action directly rather than running this skill's full workflow, "
    "spawning workers or subagents, or gathering context the request never called for.")
OTHERS = ("Other skills that matched this turn's message by keyword. None of them is a directive "
          "\u2014 call get_skill only if one actually fits what the user asked for:")
INDEX_HEADER = ("Available skills (use get_skill to load full instructions; bracketed tags like "
                "[Wisp, Python] list resource types saved on the skill):")
SHORT = "send an email to the team now"  # 29 UTF-16 units, the issue's example
LONG = "please send the email to the team and plan the calendar"


@pytest.fixture
def library(tmp_path: Path) -> RockBotLibrary:
    lib = open_library(make_rules_agent(tmp_path / "agent"))
    assert isinstance(lib, RockBotLibrary) and lib.profile is ROCKBOT_CURRENT
    return lib


def session_of(library: RockBotLibrary, worker: bool = False) -> RecallSession:
    return RecallSession.of_profile(SkillRecall(library.skills()), library.profile, worker=worker)


def framed(name: str) -> str:
    """Wrap(skill) for a skill of the generated directory, composed as upstream does."""
    record = SKILLS[name]
    body = f"{PREAMBLE}\n\nSkill: {record['name']}\n{record['content']}"
    manifest = record["manifest"] or []
    if manifest:
        lines = ["---", f'**Resources** (fetch with `get_skill_resource("{record["name"]}", "<filename>")`):']
        lines += [f"- `{m['filename']}` ({m['type']}): {m['description']}" for m in manifest]
        body += "\n" + "\n".join(lines).rstrip()
    return body


def summary(name: str) -> str:
    return SKILLS[name]["summary"] or "(summary pending)"


def test_the_issues_29_character_message_recalls_nothing_but_still_gets_the_index(library) -> None:
    assert len(SHORT) == 29
    turn = session_of(library).turn(SHORT)
    assert turn.no_recall == "no recall: 30 characters or fewer"
    assert turn.top == () and turn.injected == () and turn.listed == ()
    assert turn.messages == (turn.index,) and turn.index.startswith(INDEX_HEADER + "\n")


@pytest.mark.parametrize(("text", "short"), [
    ("x" * 30, True),  # inclusive
    ("email " * 5 + "x", False),  # 31
    (" " * 29 + "e", True),  # untrimmed: 30 with the spaces
    ("\U0001F4E7" * 15, True),  # 15 astral characters = 30 UTF-16 units
    ("\U0001F4E7" * 15 + "e", False),  # 31 units
    ("   ", False),  # blank is not "short": the search runs (and finds nothing)
])
def test_the_gate_counts_utf16_units_untrimmed(library, text: str, short: bool) -> None:
    turn = session_of(library).turn(text)
    assert (turn.no_recall is not None) is short


def test_a_longer_message_injects_the_framed_rank1_body_and_the_rank_2_to_5_list(library) -> None:
    top = [h.name for h in SkillRecall(library.skills()).search(LONG, top=5)]
    assert len(top) == 5
    turn = session_of(library).turn(LONG)
    assert [h.name for h in turn.top] == top
    assert turn.injected == (top[0],) and turn.listed == tuple(top[1:])
    listed = OTHERS + "".join(f"\n- {n}: {summary(n)}" for n in top[1:])
    see_also: list[str] = []
    for name in top:  # the see-also of every new skill, first spelling wins, not already recalled
        for other in SKILLS[name]["seeAlso"] or []:
            if other.lower() not in {n.lower() for n in [*top, *see_also]}:
                see_also.append(other)
    expected = [turn.index, framed(top[0]), listed]
    if see_also:
        expected.append("Related skills (see-also): " + ", ".join(see_also))
    assert list(turn.messages) == expected


def test_the_framed_body_ends_with_the_trimmed_resources_block(library) -> None:
    turn = session_of(library).turn("send email messages with the python script")
    assert turn.injected == ("email/send",)
    body = turn.messages[1]
    assert body.startswith(PREAMBLE + "\n\nSkill: email/send\n# Send email\n")
    assert body.endswith("\n---\n**Resources** (fetch with `get_skill_resource(\"email/send\", "
                         "\"<filename>\")`):\n- `send.py` (Python): Sends the message\n"
                         "- `template.md` (Markdown): The message template")  # trailing spaces trimmed
    # The see-also of every new skill (not only rank 1) after the list, the first spelling winning:
    # email/send's 'Calendar/Plan' before email/triage's 'calendar/plan'.
    assert turn.messages[2].startswith(OTHERS + "\n") and "email/triage" in turn.listed
    assert turn.messages[3:] == ("Related skills (see-also): Calendar/Plan",)


def test_listed_skills_are_marked_recalled_and_never_body_injected_later(library) -> None:
    sim = SimulatedSession(SkillRecall(library.skills()), injection=library.profile.injection,
                           listing=library.profile.listing.kind)
    first = sim.add(LONG)
    second_rank = first.listed[0]
    assert sim.mark(second_rank).how == LISTED
    again = sim.add(f"{LONG} {second_rank.replace('/', ' ')}")
    assert second_rank not in again.injected and second_rank not in again.listed


def test_rank_1_is_the_best_unseen_skill_after_the_top_5(library) -> None:
    session = session_of(library)
    first = session.turn(LONG)
    seen = {n.lower() for n in first.marked}
    later = session.turn("send the email to the team and plan calendar events and search the web")
    unseen = [h.name for h in later.top if h.name.lower() not in seen]
    assert later.injected == tuple(unseen[:1]) and later.listed == tuple(unseen[1:])


def test_a_worker_session_frames_every_new_skill_without_list_or_see_also(library) -> None:
    turn = session_of(library, worker=True).turn(LONG)
    top = [h.name for h in turn.top]
    assert turn.injected == tuple(top) and turn.listed == () and turn.see_also == ()
    assert list(turn.messages) == [turn.index, *(framed(n) for n in top)]


def test_the_session_index_and_list_skills_carry_the_resource_tags(library) -> None:
    index = session_index_text(library.skills(), library.profile.listing.kind)
    lines = index.split("\n")
    assert lines[0] == INDEX_HEADER
    assert "- email/digest [JsonSchema, Python, Wisp*]: Summarize email threads into a daily digest" in lines
    assert "- email/send [Markdown, Python]: Send email messages to the team" in lines
    assert "- notes/journal: (summary pending)" in lines
    now = Timestamp.parse("2026-07-01T00:00:00+00:00")
    listed = list_skills_text(library.skills(), now, library.profile.listing.kind).split("\n")
    assert listed[0] == f"Available skills ({len(SKILLS)}):"
    assert ("- email/digest (60d old, never used) [JsonSchema, Python, Wisp*]: Summarize email threads "
            "into a daily digest") in listed


@pytest.mark.parametrize(("entries", "tag"), [  # SkillToolsTests' cases
    ([("Wisp", True)], " [Wisp*]"),
    ([("Wisp", True), ("Python", False), ("JsonSchema", False)], " [JsonSchema, Python, Wisp*]"),
    ([("Wisp", False), ("Wisp", True)], " [Wisp*]"),
    ([("Wisp", False), ("Python", False)], " [Python, Wisp]"),
    ([], ""),
])
def test_resource_tag_cases(entries: list[tuple[str, bool]], tag: str) -> None:
    assert resource_tag([ManifestEntry(f"f{i}", t, "d", p) for i, (t, p) in enumerate(entries)]) == tag


def test_the_manifest_block_is_empty_without_entries() -> None:
    assert manifest_block("x", []) == "" and manifest_block("x", None) == ""


def test_simulate_and_index_on_the_command_line(library, capsysbinary) -> None:
    agent = str(library.agent_dir)
    assert main(["simulate", agent, "--turn", SHORT, "--turn", LONG]) == 0
    out = capsysbinary.readouterr().out.decode()
    first, second = out.split("=== turn 2: ")
    assert "no recall: 30 characters or fewer\n" in first and "BM25 top" not in first
    assert PREAMBLE in second and OTHERS in second and "listed: " in second
    assert "aging: " in second and "framed body, never unloaded" in second
    assert main(["simulate", agent, "--turn", SHORT, "--json"]) == 0
    data = json.loads(capsysbinary.readouterr().out)
    assert data["turns"][0]["noRecall"] == "no recall: 30 characters or fewer"
    assert main(["index", agent]) == 0
    assert capsysbinary.readouterr().out.decode().startswith(INDEX_HEADER + "\n")
    assert main(["budget", agent, "--text"]) == 0
    assert capsysbinary.readouterr().out.decode() == session_index_text(library.skills(),
                                                                         library.profile.listing.kind)


def test_the_64e82cc_profile_of_the_same_directory_is_unchanged(library) -> None:
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    session = RecallSession.of_profile(SkillRecall(old.skills()), old.profile)
    assert session.turn(SHORT).top  # no gate
    turn = session.turn(LONG)
    assert turn.listed == () and all(m.startswith("Skill: ") for m in turn.messages[:len(turn.injected)])
    assert "extended" not in json.dumps(turn.as_json()) and "listed" not in turn.as_json()
