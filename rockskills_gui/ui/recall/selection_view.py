"""How the open library's agent selects skills, as the Recall tab says it, and which of its two
views it starts on: the BM25 playground (an agent whose own ranking chooses: RockBot) or trigger
evals (an agent whose model picks from the listing: Agent Skills clients, ...).

Asked of the library's profile (``profile.selection``, its rule cited by
``profile.source("selection")``), never of its class: one row per :class:`Selection` below.
"""

from __future__ import annotations

from dataclasses import dataclass

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.profile import Selection
from rockskills_gui.ui.recall.recall_view import PLAYGROUND, TRIGGERS

# Selection -> (the view the tab starts on, how the agent selects: one short line)
VIEWS: dict[Selection, tuple[str, str]] = {
    Selection.BM25: (PLAYGROUND, "BM25 picks what a turn injects (the playground); its model may "
                                 "get_skill others (trigger evals)"),
    Selection.HYBRID: (PLAYGROUND, "BM25 with stored embeddings picks what a turn injects (the "
                                   "playground); its model may get_skill others (trigger evals)"),
    Selection.LLM_LISTING: (TRIGGERS, "the model picks from the listing: trigger evals test which "
                                      "skill it activates"),
    Selection.EMBEDDING_LEXICAL: (TRIGGERS, "its retrieval picks the skills it lists: trigger evals "
                                            "test which one the model follows"),
}


@dataclass(frozen=True)
class SelectionView:
    """The view to start on, one short line, and the agent's rule in full (a tooltip)."""

    view: str
    note: str
    detail: str


def selection_view(library: Library | None) -> SelectionView:
    """How the open library's agent selects skills, and the Recall tab's view for it."""
    if library is None:
        return SelectionView(PLAYGROUND, "", "")
    profile = library.profile
    view, how = VIEWS[profile.selection]
    source = profile.source("selection")
    note = f"{profile.label}: {how}."
    return SelectionView(view, note, f"How {profile.label} selects skills: {source}." if source else note)
