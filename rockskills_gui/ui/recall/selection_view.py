"""How the open library's agent selects skills, as the Recall tab says it, and which of its two
views it starts on: the BM25 playground (an agent whose own ranking chooses, RockBot) or
trigger evals (an agent whose model picks from the listing: Agent Skills clients, ...)."""

from __future__ import annotations

from rockskills_gui.core.budget.agents import BM25
from rockskills_gui.core.budget.report import agents_for
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.skillmd_library import SkillMdLibrary
from rockskills_gui.ui.recall.recall_view import PLAYGROUND, TRIGGERS

PLAYGROUND_WHAT = "the playground shows its ranking exactly; trigger evals test its get_skill tool"
TRIGGERS_WHAT = "trigger evals test which skill the model picks; the playground is RockBot's ranking"


def selection_view(library: Library | SkillMdLibrary | None) -> tuple[str, str]:
    """(the view to start on, one sentence on how the library's agent selects skills)."""
    if library is None:
        return PLAYGROUND, ""
    (agent,) = agents_for(library)
    if agent.selects == BM25:
        return PLAYGROUND, f"{agent.selection}: {PLAYGROUND_WHAT}."
    return TRIGGERS, f"{agent.selection}: {TRIGGERS_WHAT}."
