"""Which part of the window an agent's capabilities show: one table from a profile's capability
to the widget that shows it (napari's ``layer_to_controls``), asked instead of the library's class.

A pane asks ``shows(Part.RESOURCES, ctx.library)``; what decides it is the open library's
:class:`~rockskills_gui.core.model.profile.AgentProfile` (``core/model/profiles.py``). A new
agent profile shows the parts its capabilities call for without a change here; a new part is
one row here (and the ARCHITECTURE.md table).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.profile import AgentProfile, Selection

__all__ = ["PARTS", "Part", "shows"]


class Part(StrEnum):
    """A part of the window that only some agents' libraries have."""

    RESOURCES = "resource rows in the Library tree, the read-only resource view"
    RESOURCE_READS = "Usage ▸ Resources tab"
    USAGE = "Usage tab's counts, never-used badges"
    TIMESTAMPS = "created / updated / last-used times in the Skill tab"
    HEALTH = "Health dock"
    LIFECYCLE = "deprecated / archived badges"
    MCP_FRESHNESS = "MCP freshness after an mcp/{server} skill's name"
    MCP_CALLS = "Recall ▸ Session's MCP call strip"
    HYBRID = "Recall ▸ Hybrid tab"
    DREAM = "Dream wizard runs"


# Part -> (the capability it reads, as the docs name it; the question asked of the profile).
PARTS: dict[Part, tuple[str, Callable[[AgentProfile], bool]]] = {
    Part.RESOURCES: ("holds.resources", lambda p: p.holds.resources),
    Part.RESOURCE_READS: ("holds.resource_reads", lambda p: p.holds.resource_reads),
    Part.USAGE: ("holds.usage_log", lambda p: p.holds.usage_log),
    Part.TIMESTAMPS: ("holds.timestamps", lambda p: p.holds.timestamps),
    Part.HEALTH: ("holds.health", lambda p: p.holds.health),
    Part.LIFECYCLE: ("holds.lifecycle", lambda p: p.holds.lifecycle),
    Part.MCP_FRESHNESS: ("holds.mcp_baselines", lambda p: p.holds.mcp_baselines),
    Part.MCP_CALLS: ("injection.mcp_skills", lambda p: p.injection.mcp_skills),
    Part.HYBRID: ("selection is HYBRID", lambda p: p.selection is Selection.HYBRID),
    Part.DREAM: ("curation.passes", lambda p: bool(p.curation.passes)),
}


def shows(part: Part, library: Library | None) -> bool:
    """Whether the open ``library`` (None: none open) has ``part``."""
    return library is not None and PARTS[part][1](library.profile)
