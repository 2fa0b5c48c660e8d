"""Skill recall: RockBot's BM25 ``SearchAsync`` over a skill library (rockbot-skills.md §4, §8).

:class:`SkillRecall` keeps a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` in step with a
list of skills. Names are case-insensitive (the index is keyed by the folded name); candidate
order -- which decides ties -- is the order of the skills given, i.e. ``Library.skills()``, the
load order. Text rules live in ``bm25``; the session simulation in ``recall_session``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import document_text
from rockskills_gui.core.recall.bm25_index import Bm25Index, Explanation, Hit
from rockskills_gui.core.recall.limits import RECALL_TOP_N as RECALL_TOP_N


@dataclass(frozen=True)
class RecallHit:
    """One ranked skill."""

    rank: int
    skill: Skill
    score: float
    explanation: Explanation | None = None

    @property
    def name(self) -> str:
        return self.skill.name

    def as_json(self) -> dict[str, Any]:
        """``{"rank", "name", "score", "terms", "phrases"}`` (contributions when explained)."""
        explanation = self.explanation or Explanation()
        return {
            "rank": self.rank,
            "name": self.name,
            "score": self.score,
            "terms": {t: c.as_json() for t, c in explanation.terms.items()},
            "phrases": {p: c.as_json() for p, c in explanation.phrases.items()},
        }


class SkillRecall:
    """BM25 recall over skills, updated incrementally as skills are saved, renamed or deleted."""

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self._index = Bm25Index()
        self._skills: dict[str, Skill] = {}
        self.sync(list(skills))

    @classmethod
    def with_index(cls, index: Bm25Index, skills: Sequence[Skill]) -> SkillRecall:
        """Recall over ``skills`` with ``index``, which holds exactly their documents in their
        order (a restored copy of their index: ``core.recall.index_cache``)."""
        recall = cls()
        recall._index = index
        recall._skills = {fold(s.name): s for s in skills}
        return recall

    @property
    def index(self) -> Bm25Index:
        return self._index

    def __len__(self) -> int:
        return len(self._skills)

    def get(self, name: str) -> Skill | None:
        return self._skills.get(fold(name))

    def skill_of_key(self, key: str) -> Skill:
        """The skill of an index key (a hit's ``key``: the folded name)."""
        return self._skills[key]

    def skills(self) -> list[Skill]:
        """Skills in candidate order."""
        return [self._skills[key] for key in self._index.keys()]

    # ---------------------------------------------------------------- updates

    def sync(self, skills: Sequence[Skill]) -> None:
        """Make the index equal to ``skills`` (in that candidate order), touching only changes.

        Skills whose name and summary are unchanged are not re-indexed; renames keep their
        slot when they are given together with the removal (see :meth:`rename`).
        """
        wanted = {fold(s.name): s for s in skills}
        if len(wanted) != len(skills):
            raise ValueError("skill names must be unique case-insensitively")
        if not self._skills:  # a first build: in one pass (the same index as adding one by one)
            self._index = Bm25Index((key, document_text(s.name, s.summary))
                                    for key, s in wanted.items())
            self._skills = dict(wanted)
            return
        for key in [k for k in self._skills if k not in wanted]:
            self._index.remove(key)
            del self._skills[key]
        for key, skill in wanted.items():
            self._put(key, skill)
        order = list(wanted)
        if self._index.keys() != order:
            self._index.set_order(order)

    def upsert(self, skill: Skill) -> None:
        """Add a new skill (at the end) or update an existing one in place."""
        self._put(fold(skill.name), skill)

    def rename(self, old_name: str, skill: Skill) -> None:
        """Replace ``old_name`` by ``skill`` (its new name), keeping its candidate position."""
        old_key, new_key = fold(old_name), fold(skill.name)
        if old_key not in self._skills:
            raise KeyError(old_name)
        if new_key != old_key and new_key in self._skills:
            raise KeyError(f"{skill.name!r} is already indexed")
        self._index.replace(old_key, document_text(skill.name, skill.summary), new_key=new_key)
        del self._skills[old_key]
        self._skills[new_key] = skill

    def remove(self, name: str) -> None:
        key = fold(name)
        self._index.remove(key)
        del self._skills[key]

    def _put(self, key: str, skill: Skill) -> None:
        previous = self._skills.get(key)
        self._skills[key] = skill
        if previous is None:
            self._index.add(key, document_text(skill.name, skill.summary))
        elif previous.name != skill.name or previous.summary != skill.summary:
            self._index.replace(key, document_text(skill.name, skill.summary))

    # ---------------------------------------------------------------- search

    def search(self, query: str, top: int | None = RECALL_TOP_N,
               explain: bool = False) -> list[RecallHit]:
        """RockBot's ``SearchAsync(query, top)``: score > 0, best first, ties in candidate order.

        ``top=None`` returns the full ranking.
        """
        return [self._hit(h) for h in self._index.search(query, top=top, explain=explain)]

    def explain(self, query: str, name: str) -> Explanation:
        return self._index.explain(query, fold(name))

    def _hit(self, hit: Hit) -> RecallHit:
        return RecallHit(rank=hit.rank, skill=self._skills[hit.key], score=hit.score,
                         explanation=hit.explanation)


class RecallBuilder:
    """Builds a :class:`SkillRecall` while a library is being read, so that indexing overlaps the
    reading: :meth:`feed` takes the skills of each chunk as the scan reads them (in any order),
    :meth:`build` makes the index equal to the library's final skills in load order (dropping
    what a case collision excluded). The result is the index ``SkillRecall(skills)`` would build:
    the same documents, scores and candidate order."""

    def __init__(self) -> None:
        self.recall = SkillRecall()

    def feed(self, skills: Iterable[Skill]) -> None:
        for skill in skills:
            self.recall.upsert(skill)

    def build(self, skills: Sequence[Skill]) -> SkillRecall:
        self.recall.sync(skills)
        return self.recall
