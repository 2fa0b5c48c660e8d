"""``recall --json``'s lines are written directly (issue 19): the same text ``json.dumps`` gives,
for any names, queries and scores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from rockskills_gui.commands.recall import ranked_json, ranked_lines, result_json, result_line
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.skill_recall import RecallHit, SkillRecall
from tests.core.test_recall_index import texts
from tests.property_budget import budgeted

# Names and queries JSON must escape or keep: quotes, backslashes, controls, non-BMP, U+2028.
ODD = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "İ", "\u2028", "😀", "/", "</script>"]
odd_text = st.lists(st.sampled_from(ODD) | st.sampled_from(["plan", "meeting", "email", " "]),
                    min_size=1, max_size=6).map("".join)


@budgeted(30, 150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(odd_text, texts()), min_size=1, max_size=10, unique_by=lambda p: fold(p[0])),
       st.one_of(texts(), odd_text), st.sampled_from([None, 1, 3]))
def test_the_line_is_what_json_dumps_writes(pairs: list[tuple[str, str]], query: str,
                                            top: int | None) -> None:
    recall = SkillRecall(Skill(name=name, summary=summary) for name, summary in pairs)
    for explain in (True, False):
        hits = recall.search(query, top=top, explain=explain)
        assert result_line(query, hits) == json.dumps(result_json(query, hits), ensure_ascii=False)


def test_the_demo_queries_give_the_same_lines(tmp_path: Path) -> None:
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary
    from rockskills_gui.resources import resource_dir

    demo = shutil.copytree(resource_dir("demo-library"), tmp_path / "demo")
    recall = SkillRecall(RockBotLibrary.open(demo).skills())
    matched = 0
    for query in ("plan a meeting with the team", "send an email", 'quote "this" \\ here',
                  "the the the", "release notes 2026", "plan: inf, meeting: nan"):
        hits = recall.search(query, top=50, explain=True)
        matched += len(hits)
        assert result_line(query, hits) == json.dumps(result_json(query, hits), ensure_ascii=False)
    assert matched > 10


def test_a_number_json_writes_otherwise_falls_back_to_json() -> None:
    skill = Skill(name="plan: inf", summary="meeting")
    for score in (float("inf"), float("nan"), 2.5):
        hits = [RecallHit(rank=1, skill=skill, score=score)]
        assert result_line("q", hits) == json.dumps(result_json("q", hits), ensure_ascii=False)
    assert "Infinity" in result_line("q", [RecallHit(rank=1, skill=skill, score=float("inf"))])


@budgeted(20, 100, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(odd_text, texts()), min_size=1, max_size=10, unique_by=lambda p: fold(p[0])),
       st.lists(st.one_of(texts(), odd_text), min_size=1, max_size=3), st.sampled_from([None, 1, 3]))
def test_the_ranked_lines_are_what_json_dumps_writes(pairs: list[tuple[str, str]],
                                                     queries: list[str], top: int | None) -> None:
    """``recall --queries-file --json`` without ``--explain``: rank, name and score per hit."""
    recall = SkillRecall(Skill(name=name, summary=summary) for name, summary in pairs)
    lines = list(ranked_lines(recall, queries, top))
    assert lines == [json.dumps(ranked_json(q, recall.search(q, top=top)), ensure_ascii=False)
                     for q in queries]
