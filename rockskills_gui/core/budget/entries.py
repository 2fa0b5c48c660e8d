"""What an advertisement needs to know of a skill, read off any library format: each library
answers for its own skills (:meth:`~rockskills_gui.core.library.library.Library.listing_entries`,
:mod:`rockskills_gui.core.library.listing`)."""

from __future__ import annotations

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.listing import SKILL_FILE as SKILL_FILE
from rockskills_gui.core.library.listing import AdEntry as AdEntry


def entries_of(library: Library) -> list[AdEntry]:
    """Every skill of ``library`` in load order (a RockBot skill's location is where a SKILL.md
    export would put it: ``skills/<name>/SKILL.md``)."""
    return library.listing_entries()
