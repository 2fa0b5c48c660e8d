"""An in-memory library and RockBot's rules for applying a pass result (rockbot-skills.md §10.2-10.5).

Used to build each pass's prompt on the library the previous pass would have left (as RockBot does),
and to compute the exact records a proposal saves (the carry-forward rules). Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rockskills_gui.core.dream.prompts import listed, prune_candidates
from rockskills_gui.core.dream.reply import GapItem, GapReply, SaveItem, SkillReply
from rockskills_gui.core.model.names import dotnet_trim, fold, is_null_or_whitespace, rockbot_name_error
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp


class VirtualLibrary:
    """Skills by case-insensitive name in load order, changed the way RockBot's store changes them."""

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self._items: dict[str, Skill] = {}
        for skill in skills:
            self._items[fold(skill.name)] = skill

    def copy(self) -> VirtualLibrary:
        return VirtualLibrary(self._items.values())

    def skills(self) -> list[Skill]:
        return list(self._items.values())

    def listed(self) -> list[Skill]:
        return listed(self._items.values())

    def get(self, name: str) -> Skill | None:
        return self._items.get(fold(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and fold(name) in self._items

    def __len__(self) -> int:
        return len(self._items)

    def by_fold(self) -> dict[str, Skill]:
        return dict(self._items)

    def delete(self, name: str) -> bool:
        """RockBot's delete: a no-op for an unknown name."""
        return self._items.pop(fold(name), None) is not None

    def save(self, skill: Skill) -> None:
        """``index[name] = skill``: an existing entry keeps its slot and takes the new value."""
        self._items[fold(skill.name)] = skill


# ---------------------------------------------------------------- records (carry-forward rules)


def item_is_blank(item: GapItem | SaveItem) -> bool:
    """RockBot skips a ``toSave`` item whose name or content is blank."""
    return is_null_or_whitespace(item.name) or is_null_or_whitespace(item.content)


def gap_record(item: GapItem | SaveItem, now: Timestamp) -> Skill:
    """Gap pass: trimmed fields, createdAt = updatedAt = now, lastUsedAt and seeAlso null."""
    return Skill(name=dotnet_trim(item.name or ""), summary=dotnet_trim(item.summary or ""),
                 content=dotnet_trim(item.content or ""), created_at=now, updated_at=now,
                 last_used_at=None, see_also=None)


def consolidation_record(item: SaveItem, before: Mapping[str, Skill], now: Timestamp) -> Skill:
    """Consolidation: createdAt = earliest of the sources that existed before the pass (else now),
    lastUsedAt = latest non-null of theirs (else null), seeAlso = trimmed non-blank entries or null.

    ``before`` maps folded names to the skills listed before the pass (after pruning).
    """
    sources = [before[fold(n)] for n in item.source_names or () if fold(n) in before]
    created = min((s.created_at for s in sources), key=lambda t: t.utc_ticks, default=now)
    used = [s.last_used_at for s in sources if s.last_used_at is not None]
    last_used = max(used, key=lambda t: t.utc_ticks) if used else None
    see_also = [dotnet_trim(n) for n in item.see_also or ()
                if n is not None and not is_null_or_whitespace(n)]
    return Skill(name=dotnet_trim(item.name or ""), summary=dotnet_trim(item.summary or ""),
                 content=dotnet_trim(item.content or ""), created_at=created, updated_at=now,
                 last_used_at=last_used, see_also=tuple(see_also) if see_also else None)


def optimization_record(item: SaveItem, after_deletions: Mapping[str, Skill], now: Timestamp) -> Skill:
    """Optimization: createdAt looked up among the sources *after* the deletions (so in practice
    now), updatedAt = now, lastUsedAt and seeAlso null."""
    sources = [after_deletions[fold(n)] for n in item.source_names or () if fold(n) in after_deletions]
    created = min((s.created_at for s in sources), key=lambda t: t.utc_ticks, default=now)
    return Skill(name=dotnet_trim(item.name or ""), summary=dotnet_trim(item.summary or ""),
                 content=dotnet_trim(item.content or ""), created_at=created, updated_at=now,
                 last_used_at=None, see_also=None)


def delete_set(reply: SkillReply) -> list[str]:
    """``toDelete`` ∪ every ``sourceNames`` entry, case-insensitive, first spelling, in order."""
    names: dict[str, str] = {}
    for name in reply.to_delete or ():
        names.setdefault(fold(name), name)
    for item in reply.to_save or ():
        for name in item.source_names or ():
            names.setdefault(fold(name), name)
    return list(names.values())


def guard_refuses(reply: SkillReply) -> bool:
    """The consolidation safety guard: deletions but nothing in ``toSave`` (only its count counts)."""
    return bool(delete_set(reply)) and not reply.to_save


# ---------------------------------------------------------------- RockBot's apply, simulated


@dataclass
class ApplyReport:
    """What RockBot would do with a result: names deleted and saved, refusal, abort."""

    deleted: list[str] = field(default_factory=list)
    saved: list[Skill] = field(default_factory=list)
    refused: bool = False
    aborted: str | None = None  # an exception RockBot would throw (rest of the cycle lost)
    skipped: list[int] = field(default_factory=list)  # toSave indexes skipped as blank

    def as_json(self) -> dict[str, object]:
        """``{"deleted", "saved", "refused"}`` as the fixtures report it."""
        return {"deleted": list(self.deleted), "saved": [s.name for s in self.saved],
                "refused": self.refused}


def _save_items(library: VirtualLibrary, items: Sequence[GapItem | SaveItem], report: ApplyReport,
                record: Callable[[Any], Skill]) -> None:
    for index, item in enumerate(items):
        if item_is_blank(item):
            report.skipped.append(index)
            continue
        skill = record(item)
        error = rockbot_name_error(skill.name)
        if error is not None:
            report.aborted = error
            return
        library.save(skill)
        report.saved.append(skill)


def apply_gap(library: VirtualLibrary, reply: GapReply, now: Timestamp) -> ApplyReport:
    """Save every non-blank item, overwriting any skill of that name; delete nothing."""
    report = ApplyReport()
    _save_items(library, reply.to_save or [], report, lambda item: gap_record(item, now))
    return report


def apply_prune(library: VirtualLibrary, now: Timestamp) -> list[str]:
    """Delete skills inactive for 18 months; returns their names."""
    names = [c.name for c in prune_candidates(library.skills(), now)]
    for name in names:
        library.delete(name)
    return names


def apply_consolidation(library: VirtualLibrary, reply: SkillReply, now: Timestamp) -> ApplyReport:
    """Guard, delete ``toDelete`` ∪ sources, then save with the carry-forward rules."""
    report = ApplyReport()
    doomed = delete_set(reply)
    if guard_refuses(reply):
        report.refused = True
        return report
    before = library.by_fold()
    for name in doomed:
        library.delete(name)
        report.deleted.append(name)
    _save_items(library, reply.to_save or [], report,
                lambda item: consolidation_record(item, before, now))
    return report


def apply_optimization(library: VirtualLibrary, reply: SkillReply, now: Timestamp,
                       guard: bool = False) -> ApplyReport:
    """Delete ``toDelete`` ∪ sources (no guard in RockBot; ``guard`` adds ours), then save."""
    report = ApplyReport()
    if guard and guard_refuses(reply):
        report.refused = True
        return report
    for name in delete_set(reply):
        library.delete(name)
        report.deleted.append(name)
    after = library.by_fold()
    _save_items(library, reply.to_save or [], report,
                lambda item: optimization_record(item, after, now))
    return report
