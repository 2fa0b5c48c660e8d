"""Saved query sets: schema, storage location and metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.queryset import (
    QueryCase,
    QuerySet,
    QuerySetError,
    compose_renames,
    default_query_set_path,
    evaluate,
    load_query_set,
    rename_in_query_set,
    save_query_set,
)
from rockskills_gui.core.recall.skill_recall import SkillRecall


def test_round_trip_beside_the_library(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    query_set = QuerySet(name="smoke", queries=[
        QueryCase(query="send an email", expected=["mcp/email"], note="café — ok"),
    ])
    path = default_query_set_path(lib.layout, "smoke")
    assert path == agent_copy / "recall-tests" / "smoke.json"
    save_query_set(lib.layout, path, query_set)
    assert load_query_set(path) == query_set
    lib.reload()
    assert not lib.problems  # nothing appeared under skills/


def test_refuses_paths_inside_skills(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    query_set = QuerySet(name="x", queries=[])
    for path in (agent_copy / "skills" / "x.json", agent_copy / "skills" / "mcp" / "x.json"):
        with pytest.raises(QuerySetError, match="not inside skills/"):
            save_query_set(lib.layout, path, query_set)
        assert not path.exists()
    with pytest.raises(QuerySetError):
        default_query_set_path(lib.layout, "../escape")


def test_schema_is_strict(tmp_path: Path) -> None:
    for text in ('{"name": "x"}', '{"name": "x", "queries": [{"query": "q"}]}',
                 '{"name": "x", "queries": [], "extra": 1}', "not json"):
        path = tmp_path / "set.json"
        path.write_text(text, "utf-8")
        with pytest.raises(QuerySetError, match="not a query set"):
            load_query_set(path)


def test_metrics() -> None:
    recall = SkillRecall([Skill(name="alpha", summary="alpha beta"),
                          Skill(name="beta", summary="beta gamma"),
                          Skill(name="gamma", summary="gamma")])
    report = evaluate(recall, QuerySet(name="m", queries=[
        QueryCase(query="alpha", expected=["ALPHA"]),          # rank 1
        QueryCase(query="gamma", expected=["beta"]),           # rank 2
        QueryCase(query="delta", expected=["alpha"]),          # no result at all
    ]))
    assert report.hit_at_1 == pytest.approx(1 / 3)
    assert report.hit_at_5 == pytest.approx(2 / 3)
    assert report.mrr == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert [c.case.query for c in report.failing] == ["delta"]
    assert report.cases[1].top == ("gamma", "beta")


def test_rename_in_query_set_rewrites_expected_and_avoid_case_insensitively() -> None:
    query_set = QuerySet(name="s", queries=[
        QueryCase(query="one", expected=["Research/Summarize-Paper", "mcp/email"]),
        QueryCase(query="two", expected=["mcp/email"], avoid=["research/summarize-paper"]),
        QueryCase(query="three", expected=["research/papers", "research/summarize-paper"]),
        QueryCase(query="four", expected=["mcp/calendar"], note="untouched"),
    ])
    renamed = rename_in_query_set(query_set, {"research/summarize-paper": "research/papers"})
    assert [(c.expected, c.avoid) for c in renamed.queries] == [
        (["research/papers", "mcp/email"], []),
        (["mcp/email"], ["research/papers"]),
        (["research/papers"], []),  # the duplicate is dropped
        (["mcp/calendar"], []),
    ]
    assert renamed.queries[3] is query_set.queries[3]
    assert query_set.queries[0].expected[0] == "Research/Summarize-Paper"  # pure
    assert rename_in_query_set(query_set, {}) is query_set
    # Renames one after the other compose; a rename undone drops out.
    assert compose_renames({}, [("a", "b")]) == {"a": "b"}
    assert compose_renames({"a": "b"}, [("B", "c")]) == {"a": "c", "B": "c"}
    assert compose_renames({"a": "b"}, [("b", "a")]) == {"b": "a"}
    assert compose_renames({"x/a": "y/a", "x/b": "y/b"}, [("y/a", "x/a")]) == {"x/b": "y/b",
                                                                              "y/a": "x/a"}
