"""The recall safety net of a plan: which user requests stop finding their skill if it is applied.

The query corpus is real: the first user message of every logged session
(``conversation-log/turns.jsonl``) paired with the skills that session then used
(``skill-usage/``), plus the saved query sets in ``recall-tests/`` (their *avoid* skills too).
:func:`plan_effect` replays it against the library as it is and as the accepted proposals would
leave it (:mod:`~rockskills_gui.core.recall.replay`); :func:`guard` turns the regressions into a
``recall-regression`` finding on each proposal that caused them: the ones that delete, merge or
rewrite the skill a query lost, and the ones whose saved skill newly pushed into its top 5.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.dream.plan import Plan, Severity
from rockskills_gui.core.dream.virtual import VirtualLibrary
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.queryset import QUERY_SET_DIR, QuerySetError, load_query_set
from rockskills_gui.core.recall.replay import GuardedQuery, ReplayReport, replay
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.core.usage.events import read_conversation_log, read_usage

CODE = "recall-regression"
SHOWN_QUERIES = 3  # queries quoted in a finding (the rest are counted)


def session_queries(agent_dir: Path) -> list[GuardedQuery]:
    """The first user message of every logged session with the skills that session used (file
    order; a session that used no skill guards nothing and is left out)."""
    first: dict[str, str] = {}
    for turn in read_conversation_log(agent_dir).events:
        if turn.session_id and (turn.role or "").lower() == "user" and turn.content \
                and turn.session_id not in first:
            first[turn.session_id] = turn.content
    used: dict[str, dict[str, str]] = {}
    for event in read_usage(agent_dir).events:
        if event.session_id and event.skill_name:
            used.setdefault(event.session_id, {}).setdefault(fold(event.skill_name), event.skill_name)
    return [GuardedQuery(text, tuple(used[sid].values()), (), f"session {sid}")
            for sid, text in first.items() if used.get(sid)]


def query_set_queries(agent_dir: Path) -> tuple[list[GuardedQuery], list[str]]:
    """Every case of every query set in ``recall-tests/`` (sorted by file name), and a note per
    file that is not a query set."""
    folder = agent_dir / QUERY_SET_DIR
    queries: list[GuardedQuery] = []
    notes: list[str] = []
    if not folder.is_dir() or folder.is_symlink():
        return queries, notes
    for path in sorted(p for p in folder.iterdir() if p.suffix == ".json"):
        try:
            query_set = load_query_set(path)
        except QuerySetError as exc:
            notes.append(str(exc))
            continue
        queries += [GuardedQuery(c.query, tuple(c.expected), tuple(c.avoid), f"query set {query_set.name}")
                    for c in query_set.queries]
    return queries, notes


def corpus(agent_dir: Path, sessions: bool = True) -> tuple[list[GuardedQuery], list[str]]:
    """Logged sessions (``sessions``: RockBot libraries) then saved query sets; notes on files
    that could not be used."""
    saved, notes = query_set_queries(agent_dir)
    return (session_queries(agent_dir) if sessions else []) + saved, notes


@dataclass(frozen=True)
class PlanEffect:
    """What applying ``accepted`` does to recall."""

    accepted: tuple[str, ...]
    report: ReplayReport
    causes: dict[int, tuple[str, ...]]  # outcome index -> ids of the proposals behind a regression


def after_plan(plan: Plan, skills: Sequence[Skill], accepted: Iterable[str]
               ) -> tuple[list[Skill], dict[str, str], dict[str, list[str]]]:
    """The skills after the accepted proposals (applied in plan order; in the load order the
    library will have, :func:`load_order_key`), the successor of each removed name (the skill a merge or
    rewrite saved from it), and per folded name the proposals that delete, replace or save it."""
    wanted = set(accepted)
    virtual = VirtualLibrary(skills)
    successors: dict[str, str] = {}
    writers: dict[str, list[str]] = {}
    for proposal in plan.proposals:
        if proposal.id not in wanted:
            continue
        for name in proposal.deletes:
            virtual.delete(name)
            writers.setdefault(fold(name), []).append(proposal.id)
        record = proposal.record
        if record is not None:
            try:
                virtual.save(record.skill())
            except ValueError:
                continue  # an unreadable record is blocked by the checks; nothing to replay
            writers.setdefault(fold(record.name), []).append(proposal.id)
            for name in [*proposal.sources, *proposal.replaces]:
                writers.setdefault(fold(name), []).append(proposal.id)
                if fold(name) != fold(record.name):
                    successors.setdefault(fold(name), record.name)
    for key in [k for k in successors if k in virtual]:
        del successors[key]  # a source that survives is still itself
    return sorted(virtual.skills(), key=lambda s: load_order_key(s.name)), successors, writers


def load_order_key(name: str) -> tuple[int, list[str]]:
    """Where the skill file of ``name`` comes in the library's load order (the BM25 candidate
    order, which breaks ties): ``skills/**/*.json`` breadth-first, names sorted by code point in
    each folder (``stores.rockbot._walk``) -- by depth, then folder by folder, then file name."""
    parts = f"{name}.json".split("/")
    return len(parts), parts


def plan_effect(plan: Plan, skills: Sequence[Skill], accepted: Iterable[str],
                queries: Sequence[GuardedQuery], before: SkillRecall | None = None) -> PlanEffect:
    """Replay ``queries`` before and after the ``accepted`` proposals (``before``: the library's
    recall, if one is at hand, to skip building it again)."""
    chosen = set(accepted)
    ids = tuple(p.id for p in plan.proposals if p.id in chosen)
    after, successors, writers = after_plan(plan, skills, ids)
    report = replay(before if before is not None else SkillRecall(skills), after, queries, successors)
    causes: dict[int, tuple[str, ...]] = {}
    for i, outcome in enumerate(report.outcomes):
        if not outcome.regressed:
            continue
        names = [m.name for m in outcome.lost] + [m.successor or "" for m in outcome.lost]
        names += [n for n in outcome.after if n not in outcome.before]  # pushed in
        names += [m.name for m in outcome.pulled_in]
        behind = [pid for n in names if n for pid in writers.get(fold(n), [])]
        causes[i] = tuple(dict.fromkeys(behind))
    return PlanEffect(ids, report, causes)


def _describe(effect: PlanEffect, index: int) -> str:
    outcome = effect.report.outcomes[index]
    parts = [f"{display_name(m.name)} {_rank(m.before)} → "
             f"{display_name(m.successor) + ' ' if m.successor and fold(m.successor) != fold(m.name) else ''}"
             f"{_rank(m.after)}" for m in outcome.lost]
    parts += [f"'{display_name(m.name)}' pulled in at #{m.after}" for m in outcome.pulled_in]
    return f"'{display_name(outcome.query.query, 60)}' ({outcome.query.source}: {', '.join(parts)})"


def _rank(rank: int | None) -> str:
    return f"#{rank}" if rank is not None else "gone"


def guard(plan: Plan, skills: Sequence[Skill], agent_dir: Path | None, sessions: bool = True,
          before: SkillRecall | None = None) -> PlanEffect | None:
    """Add a ``recall-regression`` warning to every proposal that makes a logged or saved query
    lose its skill from the top 5 when the plan is accepted as a whole ("accept all"); None when
    there is no corpus to replay."""
    if agent_dir is None:
        return None
    queries, _notes = corpus(agent_dir, sessions)
    if not queries:
        return None
    effect = plan_effect(plan, skills, plan.acceptable_ids(), queries, before)
    by_proposal: dict[str, list[int]] = {}
    for index, proposal_ids in effect.causes.items():
        for pid in proposal_ids:
            by_proposal.setdefault(pid, []).append(index)
    for proposal in plan.proposals:
        hits = by_proposal.get(proposal.id)
        if not hits:
            continue
        shown = "; ".join(_describe(effect, i) for i in hits[:SHOWN_QUERIES])
        more = f"; and {len(hits) - SHOWN_QUERIES} more" if len(hits) > SHOWN_QUERIES else ""
        one = len(hits) == 1
        proposal.add(CODE, Severity.WARN,
                     f"{len(hits)} quer{'y' if one else 'ies'} would lose {'its' if one else 'their'} skill "
                     f"from the top 5 (with every acceptable proposal applied): {shown}{more}")
    return effect
