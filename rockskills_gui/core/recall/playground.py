"""The recall playground's questions, answered with the exact engine (no Qt).

- :class:`SimulatedSession`: a :class:`RecallSession` with its turn history, a side-effect-free
  preview of the next turn, and how each recalled name got marked (injected or see-also);
- :func:`ranks`: where given skills stand in the full ranking, without building it;
- :func:`why_not`: a pinned skill's rank, score, gap to the top-5 cut and the query terms and
  phrases it lacks;
- :func:`compare_rankings`: another ranking beside RockBot's, with rank shifts;
- :func:`follow_change`: keep a :class:`SkillRecall` equal to a library after a change set,
  touching only the skills it names;
- :class:`EditedRecall`: RockBot's recall over the library as it would be after unsaved edits.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profile import Injection, ListingKind
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25_index import Explanation
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.queryset import evaluate_case as evaluate_case  # re-exported
from rockskills_gui.core.recall.session import (
    DEFAULT_INJECTION,
    DEFAULT_LISTING,
    RecallSession,
    TurnResult,
    is_short_message,
    no_recall_reason,
)
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, SkillRecall
from rockskills_gui.core.storage.changes import ChangeSet

# Up to this many skills a full ``sync`` after each change costs a few ms: it also restores the
# library's exact candidate order in every corner case (slot reuse, rename chains).
FULL_SYNC_MAX = 20_000

INJECTED = "injected"
LISTED = "listed"  # named in the "Other skills ..." list (RockBot (current))
SEE_ALSO = "see-also"


class _Unset(Enum):
    """The session index text not built yet (None is a built index: there is none)."""

    UNSET = "unset"


_UNSET: Final = _Unset.UNSET


# ---------------------------------------------------------------- session


@dataclass(frozen=True)
class Mark:
    """How a name came to be marked as recalled: in which turn (1-based) and why."""

    turn: int
    how: str  # INJECTED, LISTED or SEE_ALSO


class SimulatedSession:
    """One simulated session: the turns added so far and what the next one would inject."""

    def __init__(self, recall: SkillRecall, top_n: int = RECALL_TOP_N,
                 index_text: str | _Unset | None = _UNSET, injection: Injection = DEFAULT_INJECTION,
                 listing: ListingKind = DEFAULT_LISTING) -> None:
        """``index_text``: the session index of ``recall``'s skills if already built (it takes
        a few hundred ms at 100,000 skills; see :func:`session_index_text`); ``injection`` and
        ``listing``: the library's profile's (default: RockBot 64e82cc)."""
        self.recall = recall
        self.top_n = top_n
        self.session = RecallSession(recall, top_n, injection, listing)
        self.turns: list[TurnResult] = []
        self._marks: dict[str, Mark] = {}
        self._index_text = index_text

    def add(self, text: str) -> TurnResult:
        """Run ``text`` as the next user turn (changes the session)."""
        result = self.preview(text)
        # What RecallSession.turn records: index sent, then injected, listed and see-also names
        # marked in that order (a see-also name is listed only when its marking succeeded).
        self.session.indexed = True
        for name in result.marked:
            self.session.recalled.try_mark(name)
        self.turns.append(result)
        number = len(self.turns)
        for names, how in ((result.injected, INJECTED), (result.listed, LISTED),
                           (result.see_also, SEE_ALSO)):
            for name in names:
                self._marks.setdefault(fold(name), Mark(number, how))
        return result

    def preview(self, text: str) -> TurnResult:
        """What :meth:`add` would return for ``text``, leaving the session as it is.

        The session index (first turn only) is built once per library state, not per keystroke:
        call :meth:`library_changed` when the skills change.
        """
        clone = self.session.like()
        clone.indexed = True  # the index message is added from the cache below
        clone.recalled = copy.deepcopy(self.session.recalled)
        result = clone.turn(text)
        if self.session.indexed:
            return result
        if self._index_text is _UNSET:
            self._index_text = session_index_text(self.recall.skills(), self.session.listing)
        index = self._index_text
        messages = ((index,) if index is not None else ()) + result.messages
        return dataclasses.replace(result, index=index, messages=messages)

    def library_changed(self) -> None:
        """The skills changed: the next preview rebuilds the session index text."""
        self._index_text = _UNSET

    def reset(self) -> None:
        """A fresh session: the next turn sends the skill index again, nothing is recalled."""
        self.session = self.session.like()
        self.turns.clear()
        self._marks.clear()

    @property
    def indexed(self) -> bool:
        """True once the session index was sent (the first turn)."""
        return self.session.indexed

    def no_recall(self, text: str) -> str | None:
        """Why the agent would not search its skills for ``text`` (a short message), or None."""
        limit = self.session.injection.short_message_chars
        return no_recall_reason(limit) if is_short_message(text, limit) else None

    def mark(self, name: str) -> Mark | None:
        """How ``name`` (any spelling) was marked as recalled, or None if it was not."""
        return self._marks.get(fold(name))

    def recalled_names(self) -> list[str]:
        """Names marked as recalled, in marking order."""
        return self.session.recalled.names()


# ---------------------------------------------------------------- why not this skill?


@dataclass(frozen=True)
class PinReport:
    """Why a pinned skill ranks where it does for a query."""

    name: str
    found: bool  # a skill of the library
    rank: int | None  # rank in the full ranking; None when it scores 0
    score: float
    cutoff: float | None  # the score at rank ``top_n``; None when fewer skills match
    top_n: int
    explanation: Explanation
    lacks_terms: tuple[str, ...]  # query terms the skill's text does not contain
    lacks_phrases: tuple[str, ...]  # query phrases its text does not contain
    nowhere: tuple[str, ...]  # query terms and phrases no skill contains (they cannot help)
    hidden: Mark | None = None  # the session marked it recalled: never injected again
    no_recall: str | None = None  # the session's agent does not search for this message (too short)

    @property
    def session_note(self) -> str:
        """Why the session keeps it out whatever its rank ("" when it does not)."""
        if self.hidden is None:
            return ""
        if self.hidden.how == SEE_ALSO:
            return (f"named in the see-also line of turn {self.hidden.turn}: RockBot does not "
                    "inject it again in this session")
        if self.hidden.how == LISTED:
            return (f"listed by summary on turn {self.hidden.turn}: RockBot does not inject its "
                    "body again in this session (get_skill still loads it)")
        return (f"injected on turn {self.hidden.turn}: RockBot does not inject it again in this "
                "session")

    @property
    def in_top(self) -> bool:
        return self.rank is not None and self.rank <= self.top_n

    @property
    def has(self) -> tuple[str, ...]:
        """Query terms and phrases (phrases quoted) that contribute to its score."""
        return (*self.explanation.terms, *(f'"{p}"' for p in self.explanation.phrases))

    @property
    def gap(self) -> float | None:
        """How much score it lacks to reach the top-``n`` cut (None when in the top or no cut)."""
        if self.in_top or self.cutoff is None:
            return None
        return self.cutoff - self.score


def ranks(recall: SkillRecall, query: str, names: Iterable[str]) -> dict[str, int | None]:
    """Rank of each name (case-insensitive) in RockBot's full ranking, without building it."""
    wanted = list(names)
    found = recall.index.ranks(query, [fold(n) for n in wanted])
    return {n: found[fold(n)] for n in wanted}


def why_not(recall: SkillRecall, query: str, name: str, top_n: int = RECALL_TOP_N,
            session: SimulatedSession | None = None) -> PinReport:
    """Explain ``name``'s place for ``query``: rank, score, gap to the cut, what it lacks, and
    (with the ``session`` so far) whether the session hides it."""
    stats = recall.index.stats(query)
    plan = stats.plan
    nowhere = tuple([t for t in plan.terms if not stats.term_df.get(t)]
                    + [f'"{p}"' for p in plan.phrases if not stats.phrase_df.get(p)])
    skill = recall.get(name)
    if skill is None:
        return PinReport(name, False, None, 0.0, None, top_n, Explanation(), plan.terms,
                         plan.phrases, nowhere)
    rank = ranks(recall, query, [skill.name])[skill.name]
    explanation = recall.explain(query, skill.name)
    top = recall.search(query, top=top_n)
    cutoff = top[-1].score if len(top) == top_n else None
    return PinReport(
        name=skill.name, found=True, rank=rank,
        score=explanation.total if rank is not None else 0.0, cutoff=cutoff, top_n=top_n,
        explanation=explanation,
        lacks_terms=tuple(t for t in plan.terms if t not in explanation.terms),
        lacks_phrases=tuple(p for p in plan.phrases if p not in explanation.phrases),
        nowhere=nowhere, hidden=session.mark(skill.name) if session is not None else None,
        no_recall=session.no_recall(query) if session is not None else None,
    )


# ---------------------------------------------------------------- compare


@dataclass(frozen=True)
class ComparedHit:
    """One row of another ranking, with the rank RockBot gives the same skill."""

    rank: int
    name: str
    score: float
    base_rank: int | None  # None: RockBot does not rank it (score 0)

    @property
    def shift(self) -> int | None:
        """Places gained against RockBot's ranking (> 0 = higher here); None if not ranked there."""
        return None if self.base_rank is None else self.base_rank - self.rank


def compare_rankings(base_ranks: Mapping[str, int | None],
                     other: Sequence[tuple[str, float]]) -> list[ComparedHit]:
    """Rows of ``other`` (``(name, score)`` best first) with the rank RockBot gives each name
    (``base_ranks``, keyed by name as spelled in ``other``; see :func:`ranks`)."""
    return [ComparedHit(i, name, score, base_ranks.get(name))
            for i, (name, score) in enumerate(other, 1)]


def top_changes(base: Sequence[str], other: Sequence[str],
                top_n: int = RECALL_TOP_N) -> tuple[list[str], list[str]]:
    """``(entering, leaving)``: names in ``other``'s top n but not ``base``'s, and the reverse."""
    a = [fold(n) for n in base[:top_n]]
    b = [fold(n) for n in other[:top_n]]
    return ([n for n, k in zip(other[:top_n], b, strict=True) if k not in a],
            [n for n, k in zip(base[:top_n], a, strict=True) if k not in b])


# ---------------------------------------------------------------- following the library


def follow_change(recall: SkillRecall, library: Library, change: ChangeSet) -> None:
    """Update ``recall`` for ``change`` (already applied to ``library``), touching only its names.

    Renames keep the skill's candidate position (as the library does). A full ``sync`` follows
    when the library is small, or when the change could move candidate order in ways the
    incremental steps cannot see (a created name reusing a deleted one's slot, rename chains).
    """
    try:
        for old, new in change.renamed:
            skill = library.get(new)
            if skill is not None and recall.get(old) is not None \
                    and (fold(old) == fold(new) or recall.get(new) is None):
                recall.rename(old, skill)
        for name in change.deleted:
            if library.get(name) is None and recall.get(name) is not None:
                recall.remove(name)
        touched = (*change.created, *change.updated, *change.links_rewritten,
                   *(new for _old, new in change.renamed))
        for name in touched:
            skill = library.get(name)
            if skill is not None:
                recall.upsert(skill)
            elif recall.get(name) is not None:
                recall.remove(name)
        exact = not (change.created and change.deleted) and len(change.renamed) <= 1
    except KeyError:
        exact = False
    if not exact or len(recall) != len(library) or len(library) <= FULL_SYNC_MAX:
        recall.sync(library.skills())


class EditedRecall:
    """Recall over the library with unsaved editor edits laid over it (the what-if ranking).

    Kept in step with the library by :meth:`follow`; :meth:`set_edits` lays the edited skills
    over it (an edit to a skill that is no longer in the library is ignored).
    """

    def __init__(self, skills: Sequence[Skill]) -> None:
        """Start from the library's ``skills()`` (a list: safe to build on a worker thread)."""
        self.recall = SkillRecall(skills)
        self._edits: dict[str, Skill] = {}

    @property
    def edited(self) -> list[str]:
        """Names whose edits are laid over the library (the edited spelling)."""
        return [s.name for s in self._edits.values()]

    def set_edits(self, library: Library, edits: Iterable[Skill]) -> None:
        wanted = {fold(s.name): s for s in edits if library.get(s.name) is not None}
        for key in [k for k in self._edits if k not in wanted]:
            original = library.get(key)
            if original is not None:
                self.recall.upsert(original)
        for skill in wanted.values():
            self.recall.upsert(skill)
        self._edits = wanted

    def follow(self, library: Library, change: ChangeSet) -> None:
        follow_change(self.recall, library, change)
        self.set_edits(library, list(self._edits.values()))
