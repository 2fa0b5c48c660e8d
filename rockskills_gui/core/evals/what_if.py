"""A description what-if: the editor's unsaved descriptions laid over the listing, and the rows
that makes worth asking again.

What is *affected*: a request is the listing and the tool as sent, and one query
(:meth:`~rockskills_gui.core.evals.presentation.Presentation.fingerprint` is in every cache key).
An edit that changes the listing (a description it shows) changes every request made with it,
so **every row run with that listing is affected** and asked again: a description competes with
every other for every query, and no row can be assumed to keep its result. An edit the listing
does not show (a body, a skill the listing leaves out, words past the agent's cut of a
description) affects **no row**: each row's result is the cached one. A row is never asked
again for a listing it was already asked with: the cache answers (the key includes the listing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rockskills_gui.core.evals.presentation import Presentation, Showing
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet, TriggerRow
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill


def changed_descriptions(showing: Showing, edits: Sequence[Skill]) -> dict[str, str | None]:
    """Skill name -> unsaved description, for each edited skill whose description differs from
    the saved one (edits of skills not in the library are left out)."""
    saved = {fold(e.name): e for e in showing.entries}
    found: dict[str, str | None] = {}
    for skill in edits:
        entry = saved.get(fold(skill.name))
        if entry is not None and (skill.summary or None) != (entry.description or None):
            found[entry.name] = skill.summary
    return found


@dataclass(frozen=True)
class WhatIf:
    """The listing as saved and with the unsaved descriptions, and what differs."""

    saved: Presentation
    edited: Presentation
    descriptions: dict[str, str | None]  # the changed descriptions, by skill
    edited_skills: tuple[str, ...] = ()  # every skill with unsaved edits (descriptions or not)

    @property
    def changes_listing(self) -> bool:
        """The model would be shown something else (listing or tool)."""
        return self.saved.fingerprint() != self.edited.fingerprint()

    def affected(self, sets: Sequence[TriggerEvalSet]) -> list[tuple[str, TriggerRow]]:
        """The rows (skill, row) whose request changes: every row when the listing changes, none
        when it does not (see the module doc)."""
        return [(s.skill, r) for s in sets for r in s.rows] if self.changes_listing else []

    def why(self) -> str:
        """One sentence: which descriptions changed and whether the listing shows it."""
        names = ", ".join(sorted(self.descriptions, key=fold))
        if not self.descriptions:
            if not self.edited_skills:
                return "The editor has no unsaved edit: the listing is the one saved."
            edited = ", ".join(sorted(self.edited_skills, key=fold))
            return (f"The unsaved edits of {edited} change no description: the listing is the one "
                    "saved, no row is affected.")
        if self.changes_listing:
            return (f"The unsaved description of {names} changes the listing, so every row is "
                    "asked again with it (a description competes for every query).")
        hidden = [n for n in self.descriptions if n not in self.edited.listed]
        where = (f"{', '.join(hidden)} is not in the listing" if hidden
                 else "the listing shows none of the change")
        return (f"The unsaved description of {names} leaves the listing as it is ({where}): "
                "no row is affected.")


def what_if(showing: Showing, edits: Sequence[Skill]) -> WhatIf:
    """The listing saved and with ``edits``' descriptions (both presented: may count tokens)."""
    descriptions = changed_descriptions(showing, edits)
    saved = showing.present()
    return WhatIf(saved, showing.present(descriptions) if descriptions else saved, descriptions,
                  tuple(dict.fromkeys(s.name for s in edits)))
