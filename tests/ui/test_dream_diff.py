"""The review page's diffs (intra-line marks) and selection rules, without widgets."""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.dream.selection import Selection, default_selection
from rockskills_gui.ui.dream.textdiff import Segment, one_side, side_by_side, stats, unified
from tests.conftest import EXPECTED, NOW_TEXT

EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))


def marked(segments: tuple[Segment, ...], mark: str) -> list[str]:
    return [s.text for s in segments if s.mark == mark]


def test_a_changed_line_marks_only_the_words_that_changed() -> None:
    old = "# Plan\n1. Query free/busy with `mcp/calendar` for 5 days.\nend"
    new = "# Plan\n1. Query free/busy with `mcp/calendar` for 7 working days.\nend"
    lines = unified(old, new)
    assert [line.kind for line in lines] == ["equal", "removed", "added", "equal"]
    assert marked(lines[1].segments, "removed") == ["5"]
    assert marked(lines[2].segments, "added") == ["7 working"]
    assert lines[1].text == old.split("\n")[1] and lines[2].text == new.split("\n")[1]
    assert stats(lines) == (1, 1)


def test_unrelated_lines_are_whole_removals_and_additions() -> None:
    lines = unified("alpha beta gamma\nsame", "completely different words here\nsame")
    assert [(line.kind, [s.mark for s in line.segments]) for line in lines] == [
        ("removed", ["removed"]), ("added", ["added"]), ("equal", ["same"])]


def test_side_by_side_columns_align_and_one_side_drops_fillers() -> None:
    left, right = side_by_side("a\nb\nc", "a\nc\nd")
    assert len(left) == len(right)
    assert [line.kind for line in left] == ["equal", "removed", "equal", "filler"]
    assert [line.kind for line in right] == ["equal", "filler", "equal", "added"]
    assert [line.text for line in one_side("a\nb\nc", "a\nc\nd", "old")] == ["a", "b", "c"]
    assert [line.text for line in one_side("a\nb\nc", "a\nc\nd", "new")] == ["a", "c", "d"]


def test_selection_follows_dependencies_and_refuses_blocked(agent_copy: Path) -> None:
    library = RockBotLibrary.open(agent_copy)
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=Timestamp.parse(NOW_TEXT))
    plan = run_dream(library, options, PastedReplies([json.dumps(EXAMPLE["llm_result"])]))
    selection = default_selection(plan)
    assert selection.ids() == ["c1", "c2", "c3", "c4"] and not selection.problems()
    assert selection.reject("c2") == {"c2", "c3", "c4"}
    assert selection.accept("c3") == {"c2", "c3"}
    assert default_selection(plan, prune=False).ids() == ["c2", "c3", "c4"]

    guard = run_dream(RockBotLibrary.open(agent_copy), options,
                      PastedReplies([json.dumps(EXAMPLE["guard_example"]["llm_result"])]))
    blocked = Selection(guard)
    assert blocked.why_not("c2") == "blocked by a finding"
    assert blocked.accept("c2") == set() and "c2" not in blocked
    assert default_selection(guard).ids() == []  # a refused pass pre-selects nothing
