"""A dream apply undone by another process (``rockskills undo``) leaves the window's history:
the last step moves to redo, an older one is dropped (issue 35, item 5)."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.dream.apply import apply_plan, undo_last
from rockskills_gui.core.library.outside_undos import follow_outside_undos, undone_elsewhere
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from tests.core.test_dream_apply import EXAMPLE, consolidation_plan


def applied(agent: Path) -> RockBotLibrary:
    plan = consolidation_plan(agent, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent)
    apply_plan(library, plan, plan.acceptable_ids())
    return library


def test_the_last_step_undone_elsewhere_moves_to_redo(agent_copy: Path) -> None:
    library = applied(agent_copy)
    step = library.history.undo_stack[-1]
    assert follow_outside_undos(library) == []  # nothing happened elsewhere
    assert undo_last(RockBotLibrary.open(agent_copy)).undone  # the CLI, another process's library
    assert undone_elsewhere(library) == [step]
    assert follow_outside_undos(library) == [step]
    assert library.history.undo_stack == [] and library.history.redo_stack == [step]
    library.refresh([agent_copy / "skills"])
    library.redo()  # applies the plan again, through the journal
    assert (agent_copy / "skills" / "meetings" / "plan-and-schedule.json").is_file()
    assert undone_elsewhere(library) == []


def test_an_older_step_undone_elsewhere_leaves_the_history(agent_copy: Path) -> None:
    library = applied(agent_copy)
    step = library.history.undo_stack[-1]
    later = library.create("writing/later", summary="made after the plan")
    assert undo_last(RockBotLibrary.open(agent_copy)).undone
    assert follow_outside_undos(library) == [step]
    assert library.history.undo_stack == [later] and library.history.redo_stack == []
