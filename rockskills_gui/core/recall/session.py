"""What RockBot injects per user turn: session index, recalled skills, see-also (§7.1-§7.3).

Mirrors AgentContextBuilder for one session id in one process: the skill index once (the session
is marked even when the library is empty, so an empty first turn means no index ever), then per
turn BM25 top 5 *before* dropping already-recalled skills, one ``Skill: {name}\\n{content}``
message per newly recalled skill, and -- only when at least one skill was injected -- the
see-also line, whose names are marked recalled too (so they are never injected later).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, RecallHit, SkillRecall

SEE_ALSO_PREFIX = "Related skills (see-also): "


def skill_message(skill: Skill) -> str:
    """The system message of one recalled skill (a null content prints as empty)."""
    return f"Skill: {skill.name}\n{skill.content or ''}"


@dataclass(frozen=True)
class TurnResult:
    """The skill-related system messages of one turn's request, and why."""

    user: str
    index: str | None
    top: tuple[RecallHit, ...]
    injected: tuple[str, ...]
    see_also: tuple[str, ...]
    messages: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "index": self.index,
            "top5": [[h.name, h.score] for h in self.top],
            "injected": list(self.injected),
            "seeAlso": list(self.see_also),
            "messages": list(self.messages),
        }


class RecallTracker:
    """SkillRecallTracker for one session: names marked once, case-insensitively."""

    def __init__(self) -> None:
        self._marked: dict[str, str] = {}

    def try_mark(self, name: str) -> bool:
        """Mark ``name``; False if it (in any spelling) was marked before."""
        key = fold(name)
        if key in self._marked:
            return False
        self._marked[key] = name
        return True

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and fold(name) in self._marked

    def names(self) -> list[str]:
        """Marked names in marking order, first spelling."""
        return list(self._marked.values())


class RecallSession:
    """One session's recall state; :meth:`turn` returns the messages RockBot would inject."""

    def __init__(self, recall: SkillRecall, top_n: int = RECALL_TOP_N) -> None:
        self.recall = recall
        self.top_n = top_n
        self.indexed = False
        self.recalled = RecallTracker()

    @classmethod
    def over(cls, skills: Iterable[Skill]) -> RecallSession:
        """A session over a fixed list of skills (in candidate order)."""
        return cls(SkillRecall(skills))

    def turn(self, user_text: str) -> TurnResult:
        messages: list[str] = []
        index: str | None = None
        if not self.indexed:
            self.indexed = True  # marked even when empty: no index later in this session
            index = session_index_text(self.recall.skills())
            if index is not None:
                messages.append(index)
        top = self.recall.search(user_text, top=self.top_n)
        injected = [hit.skill for hit in top if self.recalled.try_mark(hit.name)]
        messages.extend(skill_message(skill) for skill in injected)
        see_also: list[str] = []
        if injected:
            seen: set[str] = set()
            for name in (n for skill in injected for n in skill.see_also or ()):
                key = fold(name)
                if key in seen:
                    continue  # Distinct(OrdinalIgnoreCase): first spelling wins
                seen.add(key)
                if self.recalled.try_mark(name):
                    see_also.append(name)
            if see_also:
                messages.append(SEE_ALSO_PREFIX + ", ".join(see_also))
        return TurnResult(user=user_text, index=index, top=tuple(top),
                          injected=tuple(s.name for s in injected), see_also=tuple(see_also),
                          messages=tuple(messages))
