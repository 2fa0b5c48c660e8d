"""What an advertisement needs to know of a skill, read off any library format: each library
answers for its own skills (:meth:`~rockskills_gui.core.library.library.Library.listing_entries`,
:mod:`rockskills_gui.core.library.listing`); with a home folder, each skill is marked with the
agents whose own settings switch it off (issue 33)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.listing import SKILL_FILE as SKILL_FILE
from rockskills_gui.core.library.listing import AdEntry as AdEntry
from rockskills_gui.core.library.switch_state import Disabled, read_disabled
from rockskills_gui.core.model.profile import AgentProfile, SwitchKind
from rockskills_gui.core.model.profiles import PROFILES


def _project_of(root: Path, profile: AgentProfile) -> Path | None:
    """The project folder ``root`` is one of ``profile``'s project roots of (None: it is not)."""
    text = root.as_posix()
    for marker in profile.storage.project_roots:
        if text.endswith("/" + marker.strip("/")):
            return Path(text[: -len(marker.strip("/")) - 1])
    return None


def with_switches(entries: list[AdEntry], home: Path) -> list[AdEntry]:
    """``entries`` with the agents whose own settings switch each off (Gemini CLI's
    ``skills.disabled``, Claude Code's ``skillOverrides``, Codex's ``[[skills.config]]``, Hermes'
    ``skills.disabled``: core/library/switch_state.py), read below ``home`` and, for a project
    root, the project it is in. A skill moved aside is not in the library at all."""
    switchable = [p for p in PROFILES.values()
                  if any(s.kind not in (SwitchKind.MOVE, SwitchKind.SKILL_FIELD) for s in p.curation.disable)]
    cache: dict[tuple[str, Path | None], Disabled] = {}
    out: list[AdEntry] = []
    for entry in entries:
        if not entry.root:
            out.append(entry)
            continue
        root = Path(entry.root)
        off: list[tuple[str, str]] = []
        for profile in switchable:
            project = _project_of(root, profile) if entry.scope == "project" else None
            state = cache.get((profile.id, project))
            if state is None:
                state = cache[(profile.id, project)] = read_disabled(profile, home, project)
            why = state.why(entry.name.rsplit("/", 1)[-1], Path(entry.location))
            if why:
                off.append((profile.id, why))
        out.append(replace(entry, switched_off=tuple(off)) if off else entry)
    return out


def switched_off_names(library: Library, home: Path) -> frozenset[str]:
    """The skills of ``library`` its own agent's settings switch off (empty at once for an agent
    without a settings switch, e.g. RockBot)."""
    profile = library.profile
    if not any(s.kind not in (SwitchKind.MOVE, SwitchKind.SKILL_FIELD) for s in profile.curation.disable):
        return frozenset()
    return frozenset(e.name for e in entries_of(library, home) if e.off_for(profile.id))


def entries_of(library: Library, home: Path | None = None) -> list[AdEntry]:
    """Every skill of ``library`` in load order (a RockBot skill's location is where a SKILL.md
    export would put it: ``skills/<name>/SKILL.md``); with ``home``, each marked with the agents
    whose own settings switch it off (:func:`with_switches`)."""
    found = library.listing_entries()
    return with_switches(found, home) if home is not None else found
