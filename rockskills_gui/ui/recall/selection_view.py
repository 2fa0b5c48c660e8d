"""How the open library's agent selects skills, as the Recall tab says it, and which of its two
views it starts on: the BM25 playground or trigger evals (the model picks from the listing)."""

from __future__ import annotations

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.ui.recall.recall_view import PLAYGROUND

GENERIC = ("The playground ranks skills as RockBot recalls them (BM25 over name and summary, top 5). "
           "Agents that list their skills in the prompt let the model pick one: trigger evals test "
           "which it picks.")


def selection_view(library: Library | None) -> tuple[str, str]:
    """(the view to start on, one sentence on how the library's agent selects skills)."""
    if library is None:
        return PLAYGROUND, ""
    return PLAYGROUND, GENERIC
