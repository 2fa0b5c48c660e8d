"""How the open library's agent selects skills, as the Recall tab says it, and which of its two
views it starts on: the BM25 playground (an agent whose own ranking chooses, RockBot) or
trigger evals (an agent whose model picks from the listing: Agent Skills clients, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from rockskills_gui.core.budget.agents import BM25, MATCH
from rockskills_gui.core.budget.report import agents_for
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.skillmd_library import SkillMdLibrary
from rockskills_gui.ui.recall.recall_view import PLAYGROUND, TRIGGERS

HOW = {BM25: "BM25 picks what a turn injects (the playground); its model may get_skill others "
             "(trigger evals)",
       MATCH: "its retrieval picks the skills it lists: trigger evals test which one the model follows"}
MODEL_PICKS = "the model picks from the listing: trigger evals test which skill it activates"


@dataclass(frozen=True)
class SelectionView:
    """The view to start on, one short line, and the agent's rule in full (a tooltip)."""

    view: str
    note: str
    detail: str


def selection_view(library: Library | SkillMdLibrary | None) -> SelectionView:
    """How the open library's agent selects skills, and the Recall tab's view for it."""
    if library is None:
        return SelectionView(PLAYGROUND, "", "")
    (agent,) = agents_for(library)
    how = HOW.get(agent.selects, MODEL_PICKS)
    return SelectionView(PLAYGROUND if agent.selects == BM25 else TRIGGERS,
                         f"{agent.label}: {how}.", agent.selection + ".")
