"""The playground's core answers: session preview, why-not, compare, following the library."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall import playground as recall_playground
from rockskills_gui.core.recall.playground import (
    INJECTED,
    SEE_ALSO,
    EditedRecall,
    SimulatedSession,
    compare_rankings,
    evaluate_case,
    follow_change,
    ranks,
    top_changes,
    why_not,
)
from rockskills_gui.core.recall.queryset import QueryCase, QuerySet, evaluate
from rockskills_gui.core.recall.session import RecallSession
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.core.storage.changes import ChangeSet

QUERIES = ("summarize this arxiv paper", "meeting schedule", "Search my inbox for the invoice Dana sent",
           "plan a meeting with the finance team next week", "the")


def same_as_fresh(recall: SkillRecall, lib: RockBotLibrary) -> None:
    assert [s.name for s in recall.skills()] == lib.names()  # candidate order = load order
    fresh = SkillRecall(lib.skills())
    for query in QUERIES:
        assert [(h.name, h.score) for h in recall.search(query, top=None)] == \
            [(h.name, h.score) for h in fresh.search(query, top=None)]


# ---------------------------------------------------------------- session


def test_preview_leaves_the_session_untouched_and_equals_the_next_turn(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    sim = SimulatedSession(SkillRecall(lib.skills()))
    reference = RecallSession(SkillRecall(lib.skills()))
    for text in ("Search my inbox for the invoice Dana sent", "Check my calendar for Thursday",
                 "Now summarize this arxiv paper for me"):
        preview = sim.preview(text)
        assert sim.preview(text) == preview  # no side effect
        assert preview == reference.turn(text)
        assert sim.add(text) == preview
    assert sim.mark("MCP/Email") is not None and sim.mark("mcp/email").how == INJECTED
    assert sim.mark("mcp/calendar") == recall_playground.Mark(1, SEE_ALSO)
    assert sim.mark("legacy/fax-sender") is None
    sim.reset()
    assert not sim.indexed and sim.turns == [] and sim.mark("mcp/email") is None
    assert sim.preview("hello there") == RecallSession(sim.recall).turn("hello there")


def test_the_cached_session_index_follows_the_library(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    sim = SimulatedSession(recall)
    first = sim.preview("email")
    assert first.index is not None and first.messages[0] == first.index
    follow_change(recall, lib, lib.rename("mcp/email", "mcp/mail"))
    sim.library_changed()
    again = sim.preview("email")
    assert again == RecallSession(SkillRecall(lib.skills())).turn("email")
    assert "- mcp/mail:" in (again.index or "") and "- mcp/email:" not in (again.index or "")


# ---------------------------------------------------------------- why not


def test_why_not_gives_rank_score_gap_and_missing_terms(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    query = "summarize the meeting notes"
    ranking = recall.search(query, top=None)
    target = ranking[6]
    report = why_not(recall, query, target.name.upper())
    assert report.found and report.name == target.name
    assert (report.rank, report.score) == (7, target.score)
    assert report.cutoff == ranking[4].score and report.gap == ranking[4].score - target.score
    assert report.explanation.total == target.score
    assert set(report.lacks_terms) | set(report.explanation.terms) == {"summarize", "the",
                                                                       "meeting", "notes"}
    top = why_not(recall, query, ranking[0].name)
    assert top.in_top and top.gap is None and top.rank == 1
    zero = why_not(recall, "arxiv", "legacy/fax-sender")
    assert zero.rank is None and zero.score == 0.0 and zero.lacks_terms == ("arxiv",)
    missing = why_not(recall, "xyzzy plugh", "nope")
    assert not missing.found and set(missing.nowhere) == {"xyzzy", "plugh", '"xyzzy plugh"'}


def test_ranks_equal_positions_in_the_full_ranking_ties_included(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    for query in (*QUERIES, "the and for", "meeting"):
        ranking = [h.name for h in recall.search(query, top=None)]
        names = [s.name for s in lib.skills()] + ["no/such-skill"]
        expected = {n: (ranking.index(n) + 1 if n in ranking else None) for n in names}
        assert ranks(recall, query, names) == expected
        assert ranks(recall, query, [n.upper() for n in ranking[:3]]) == \
            {n.upper(): i for i, n in enumerate(ranking[:3], 1)}
    # ties are broken by candidate order: two skills with the same text
    twins = SkillRecall([Skill(name="b-x", summary="alpha"), Skill(name="a-x", summary="alpha"),
                         Skill(name="c", summary="alpha beta")])
    assert ranks(twins, "alpha", ["a-x", "b-x", "c"]) == {"b-x": 1, "a-x": 2, "c": 3}


def test_compare_rankings_and_top_changes() -> None:
    rows = compare_rankings({"C": 3, "a": 1, "z": None}, [("C", 3.0), ("a", 2.0), ("z", 1.0)])
    assert [(r.rank, r.base_rank, r.shift) for r in rows] == [(1, 3, 2), (2, 1, -1), (3, None, None)]
    assert top_changes(["a", "b", "c"], ["c", "a", "z"], top_n=3) == (["z"], ["b"])


# ---------------------------------------------------------------- following the library


@pytest.fixture(params=["incremental", "with-sync"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "incremental":
        monkeypatch.setattr(recall_playground, "FULL_SYNC_MAX", 0)
    return request.param


def test_follow_change_matches_a_fresh_index_after_every_operation(agent_copy: Path,
                                                                   mode: str) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    syncs = 0
    original_sync = recall.sync

    def counting_sync(skills: list) -> None:
        nonlocal syncs
        syncs += 1
        original_sync(skills)

    recall.sync = counting_sync  # type: ignore[method-assign]
    # (operation, can be followed without a full sync)
    operations: list[tuple[Callable[[RockBotLibrary], ChangeSet | None], bool]] = [
        (lambda lib_: lib_.rename("research/summarize-paper", "research/paper-digest"), True),
        (lambda lib_: lib_.update("legacy/fax-sender", summary="Summarize an arxiv paper, fax it"), True),
        (lambda lib_: lib_.delete("mcp/email"), True),
        (lambda lib_: lib_.create("writing/paper-notes", summary="Notes on a research paper"), True),
        (lambda lib_: lib_.rename("plan-meeting", "Plan-Meeting"), True),  # case only
        (lambda lib_: lib_.rename("web", "web2"), True),
        (lambda lib_: lib_.rename_many({"scripts": "scripts-old", "scheduling": "scripts"}), False),
        (lambda lib_: lib_.rename_many({"web2": "subagent", "subagent": "web2"}), False),  # a swap
        *[(lambda lib_: lib_.undo(), False)] * 4,
        (lambda lib_: lib_.redo(), False),
        *[(lambda lib_: lib_.undo(), False)] * 5,
    ]
    for operation, simple in operations:
        before = syncs
        change = operation(lib)
        assert change is not None and not change.empty
        follow_change(recall, lib, change)
        same_as_fresh(recall, lib)
        if mode == "incremental" and simple:
            assert syncs == before  # followed name by name, without a full sync
    assert lib.history.undo_stack == []  # everything was undone: the same skills again
    assert sorted(s.name for s in recall.skills()) == sorted(RockBotLibrary.open(agent_copy).names())


def test_follow_change_after_refresh_from_disk(agent_copy: Path, mode: str) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    path = lib.entry("plan-meeting").path
    path.write_text(path.read_text("utf-8").replace("Schedule meetings", "Arxiv paper meetings"),
                    "utf-8")
    news = lib.refresh([path])
    follow_change(recall, lib, news.as_change_set())
    same_as_fresh(recall, lib)
    path.unlink()
    follow_change(recall, lib, lib.refresh([path]).as_change_set())
    same_as_fresh(recall, lib)


def test_edited_recall_lays_edits_over_the_library(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    edited = EditedRecall(lib.skills())
    skill = lib.get("legacy/fax-sender")
    assert skill is not None
    draft = skill.model_copy(update={"summary": "Summarize an arxiv paper and fax it"})
    ghost = skill.model_copy(update={"name": "not/in-library", "summary": "arxiv"})
    edited.set_edits(lib, [draft, ghost])
    assert edited.edited == ["legacy/fax-sender"]
    expected = [s if s.name != draft.name else draft for s in lib.skills()]
    query = "summarize this arxiv paper"
    assert [(h.name, h.score) for h in edited.recall.search(query, top=None)] == \
        [(h.name, h.score) for h in SkillRecall(expected).search(query, top=None)]
    # The library changes underneath: the edit stays laid over it.
    change = lib.delete("mcp/email")
    edited.follow(lib, change)
    expected = [s if s.name != draft.name else draft for s in lib.skills()]
    assert [(h.name, h.score) for h in edited.recall.search(query, top=None)] == \
        [(h.name, h.score) for h in SkillRecall(expected).search(query, top=None)]
    # Edits dropped: back to the library.
    edited.set_edits(lib, [])
    assert [(h.name, h.score) for h in edited.recall.search(query, top=None)] == \
        [(h.name, h.score) for h in SkillRecall(lib.skills()).search(query, top=None)]


def test_evaluate_case_equals_the_query_set_evaluation(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    recall = SkillRecall(lib.skills())
    cases = [QueryCase(query="summarize this arxiv paper", expected=["research/summarize-paper"]),
             QueryCase(query="meeting schedule", expected=["SCHEDULE-MEETING", "nope"]),
             QueryCase(query="the", expected=["legacy/fax-sender"]),
             QueryCase(query="xyzzy", expected=["mcp/email"])]
    report = evaluate(recall, QuerySet(name="t", queries=cases))
    assert [evaluate_case(recall, c) for c in cases] == list(report.cases)
    assert {c.first_rank is None for c in report.cases} == {True, False}
