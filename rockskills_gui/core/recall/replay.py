"""Recall before and after a change: replay guarded queries against two versions of a library.

A *guarded query* is a user message with the skills it should recall in the top 5 (``expected``)
and, optionally, skills it must not pull into the top 5 (``avoid``: near-miss messages). The
replay ranks every query exactly (RockBot's BM25, ties in candidate order) against the library as
it is and as it would be, and reports per query the top 5 before and after and each expected
skill's rank before and after. An expected skill that a change removes is followed to its
*successor* (the skill a merge folded it into, the new name of a rename): a query still finds
its skill when the successor surfaces where the source did.

A query *regresses* when an expected skill was in the top 5 before and neither it nor its
successor is there after, or when a skill it must avoid enters the top 5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import parse_query
from rockskills_gui.core.recall.limits import RECALL_TOP_N
from rockskills_gui.core.recall.skill_recall import SkillRecall


@dataclass(frozen=True)
class GuardedQuery:
    """A message, the skills it should recall, the skills it must not, and where it comes from."""

    query: str
    expected: tuple[str, ...]
    avoid: tuple[str, ...] = ()
    source: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"query": self.query, "expected": list(self.expected), "avoid": list(self.avoid),
                "source": self.source}


@dataclass(frozen=True)
class SkillMove:
    """Where one expected (or avoided) skill ranks before, and where it -- or its successor -- ranks
    after (None: not ranked, or gone)."""

    name: str
    successor: str | None  # the name it has after (None: deleted with no successor)
    before: int | None
    after: int | None

    @property
    def lost(self) -> bool:
        """In the top 5 before, not after."""
        return (self.before is not None and self.before <= RECALL_TOP_N
                and (self.after is None or self.after > RECALL_TOP_N))

    @property
    def pulled_in(self) -> bool:
        """Outside the top 5 before, in it after."""
        return (self.after is not None and self.after <= RECALL_TOP_N
                and (self.before is None or self.before > RECALL_TOP_N))

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "successor": self.successor, "before": self.before,
                "after": self.after}


@dataclass(frozen=True)
class QueryOutcome:
    """One query, before and after."""

    query: GuardedQuery
    before: tuple[str, ...]  # the top 5 names before
    after: tuple[str, ...]  # the top 5 names after
    expected: tuple[SkillMove, ...]
    avoided: tuple[SkillMove, ...]

    @property
    def lost(self) -> tuple[SkillMove, ...]:
        """Expected skills that leave the top 5."""
        return tuple(m for m in self.expected if m.lost)

    @property
    def pulled_in(self) -> tuple[SkillMove, ...]:
        """Skills to avoid that enter the top 5."""
        return tuple(m for m in self.avoided if m.pulled_in)

    @property
    def regressed(self) -> bool:
        return bool(self.lost or self.pulled_in)

    @property
    def changed(self) -> bool:
        return self.before != self.after or any(m.before != m.after for m in self.expected)

    def as_json(self) -> dict[str, Any]:
        return {**self.query.as_json(), "top5Before": list(self.before), "top5After": list(self.after),
                "expectedRanks": [m.as_json() for m in self.expected],
                "avoidRanks": [m.as_json() for m in self.avoided],
                "lost": [m.name for m in self.lost], "pulledIn": [m.name for m in self.pulled_in],
                "regressed": self.regressed}


@dataclass(frozen=True)
class ReplayReport:
    """Every query's outcome, in corpus order."""

    outcomes: tuple[QueryOutcome, ...]

    @property
    def regressions(self) -> list[QueryOutcome]:
        return [o for o in self.outcomes if o.regressed]

    @property
    def changed(self) -> list[QueryOutcome]:
        return [o for o in self.outcomes if o.changed]

    def as_json(self) -> dict[str, Any]:
        return {"queries": len(self.outcomes), "changed": len(self.changed),
                "regressions": [o.as_json() for o in self.regressions],
                "results": [o.as_json() for o in self.outcomes]}


def follow(name: str, successors: Mapping[str, str], after: SkillRecall) -> str | None:
    """What ``name`` is called after the change: itself if it still exists, else its successor
    (followed transitively, a cycle stops), else None."""
    seen: set[str] = set()
    current = name
    while fold(current) not in seen:
        seen.add(fold(current))
        nxt = successors.get(fold(current))
        if nxt is None or fold(nxt) == fold(current):
            break
        current = nxt
    return spelled(after, current) or spelled(after, name)


def spelled(recall: SkillRecall, name: str) -> str | None:
    """``name`` as ``recall``'s library spells it (None: not there)."""
    skill = recall.get(name)
    return skill.name if skill is not None else None


def replay(before: SkillRecall | Sequence[Skill], after: SkillRecall | Sequence[Skill],
           queries: Sequence[GuardedQuery], successors: Mapping[str, str] | None = None,
           ) -> ReplayReport:
    """Rank every query against ``before`` and ``after`` (recalls, or skills in candidate order).

    ``successors`` maps a name that the change removes to the name that carries it on.
    """
    old = before if isinstance(before, SkillRecall) else SkillRecall(before)
    new = after if isinstance(after, SkillRecall) else SkillRecall(after)
    successors = {fold(k): v for k, v in (successors or {}).items()}
    outcomes: list[QueryOutcome] = []
    for query in queries:
        wanted = [*query.expected, *query.avoid]
        mapped = {name: follow(name, successors, new) if name in query.expected
                  else spelled(new, name) for name in wanted}
        plan = parse_query(query.query)  # tokenised once for both sides
        top_before, ranks_before = old.index.top_and_ranks(plan, RECALL_TOP_N, [fold(n) for n in wanted])
        top_after, ranks_after = new.index.top_and_ranks(
            plan, RECALL_TOP_N, [fold(m) for m in mapped.values() if m is not None])
        moves = {name: SkillMove(name, successor, ranks_before.get(fold(name)),
                                 ranks_after.get(fold(successor)) if successor is not None else None)
                 for name, successor in mapped.items()}
        outcomes.append(QueryOutcome(
            query,
            tuple(spelled(old, h.key) or h.key for h in top_before),
            tuple(spelled(new, h.key) or h.key for h in top_after),
            tuple(moves[n] for n in query.expected), tuple(moves[n] for n in query.avoid)))
    return ReplayReport(tuple(outcomes))
