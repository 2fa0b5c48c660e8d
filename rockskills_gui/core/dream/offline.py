"""Offline proposals: deterministic suggestions made from the library alone, for people without an
LLM. Every proposal is marked ``offline`` (pass ``offline``, ids ``x1``, ``x2``, ...).

- prune: skills inactive for 18 months (RockBot's own rule, §10.3);
- merge candidates: pairs of skills that recall each other (BM25 over name, summary and content,
  each skill's text used as a query, the score normalised by the skill's own score; the lower of
  the two directions must reach ``MERGE_SIMILARITY``). The merged text joins both contents
  mechanically; the source is deleted by a dependent proposal;
- cluster guides: ``{prefix}/guide`` for a name-prefix cluster of two or more without one;
- sparse skills: listed for expansion (advisory: nothing to apply);
- see-also: skills used together in at least ``SEE_ALSO_MIN_SESSIONS`` sessions of the last 30 days
  that do not list each other.

Starter skills (RockBot re-creates them at start) are never merge candidates.
"""

from __future__ import annotations

import numpy as np

from rockskills_gui.core.dream.formats import NO_DATES
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Evidence, PassRecord, ProposalKind, Severity, SkillRecord
from rockskills_gui.core.dream.prompts import (
    is_sparse,
    listed,
    prefix_clusters,
    prune_candidates,
    usage_stats,
)
from rockskills_gui.core.dream.proposals import PlanBuilder
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.bm25 import document_text
from rockskills_gui.core.recall.bm25_join import SelfJoin
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.heap import reuse_freed_memory
from rockskills_gui.core.usage.stats import UsageStats

MERGE_SIMILARITY = 0.2
SEE_ALSO_MIN_SESSIONS = 2
STARTER_SKILLS = ("memory", "skills", "mcp", "web", "scheduling", "subagent", "a2a", "scripts")
OFFLINE = DreamPass.OFFLINE


_STARTERS = frozenset(fold(n) for n in STARTER_SKILLS)


def is_starter(name: str) -> bool:
    return fold(name) in _STARTERS


def similar_pairs(skills: list[Skill],
                  threshold: float = MERGE_SIMILARITY) -> list[tuple[float, Skill, Skill]]:
    """Pairs (a, b) in List order of a, best first, whose mutual normalised recall score >= threshold.

    Each skill's text (name, summary and content) is a BM25 query over all of them; b's score is
    divided by a's own score, and the lower of the two directions counts. An exact threshold join
    (:class:`~rockskills_gui.core.recall.bm25_join.SelfJoin`): only pairs that can reach the
    threshold in both directions are scored, never all n x n.
    """
    if len({fold(s.name) for s in skills}) != len(skills):
        raise ValueError("skill names must be unique case-insensitively")
    join = SelfJoin([document_text(s.name, f"{s.summary or ''} {s.content or ''}") for s in skills])
    own = join.self_scores
    everything = not threshold > 0  # then every pair qualifies, sharing a word or not
    bound = np.where(own > 0, 0.0 if everything else threshold * own, np.nan)
    a, b = join.candidates(bound) if everything else _mutual_candidates(join, bound)
    forward, backward = join.scores(a, b), join.scores(b, a)
    safe = np.where(own > 0, own, 1.0)  # a skill with no own score has no hits: 0
    ratio_ab = np.where(forward > 0, forward / safe[a], 0.0)
    ratio_ba = np.where(backward > 0, backward / safe[b], 0.0)
    found = {(x, y): v for x, y, v in zip(a.tolist(), b.tolist(),
                                           np.minimum(ratio_ab, ratio_ba).tolist(), strict=True)}
    position = {fold(s.name): i for i, s in enumerate(skills)}
    ordered = [position[fold(s.name)] for s in listed(skills)]
    pairs: list[tuple[float, Skill, Skill]] = []
    if everything:
        for i, x in enumerate(ordered):
            for y in ordered[i + 1:]:
                value = found.get((x, y), found.get((y, x), 0.0))
                if value >= threshold:
                    pairs.append((value, skills[x], skills[y]))
    else:
        rank = {x: i for i, x in enumerate(ordered)}
        chosen = sorted(((rank[x], rank[y]) if rank[x] < rank[y] else (rank[y], rank[x]), v)
                        for (x, y), v in found.items() if v >= threshold)
        pairs = [(v, skills[ordered[i]], skills[ordered[j]]) for (i, j), v in chosen]
    pairs.sort(key=lambda p: -p[0])
    return pairs


def _mutual_candidates(join: SelfJoin, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (a, b), a < b, that may reach ``bound`` in both directions: each direction's
    candidates (:meth:`~rockskills_gui.core.recall.bm25_join.SelfJoin.bounded_candidates`), kept
    when found from both sides."""
    a, b = join.bounded_candidates(bound)
    if len(a) == 0:
        return a, b
    keys = a * join.n + b  # sorted
    mine = np.flatnonzero(a < b)
    back = b[mine] * join.n + a[mine]
    at = np.minimum(np.searchsorted(keys, back), len(keys) - 1)
    mine = mine[keys[at] == back]
    return a[mine], b[mine]


def _demote(content: str) -> str:
    """Markdown headings one level down (``#`` -> ``##``), to nest a text under a heading."""
    return "\n".join("#" + line if line.startswith("#") else line for line in content.split("\n"))


def propose_offline(builder: PlanBuilder, inputs: DreamInputs, record: PassRecord,
                    similarity: float = MERGE_SIMILARITY) -> None:
    """Add the offline proposals to ``builder`` (see the module doc)."""
    # The library (every skill, its texts, the recall index) is long-lived: pausing the collector
    # keeps it from walking all of it again and again while tens of thousands of proposals are
    # made (a quarter of the time at 20 000 skills). Reference counting still frees the rest; a
    # pause (not gc.freeze) leaves the window's own freeze of a large library alone.
    with gc_paused():
        _propose_offline(builder, inputs, record, similarity)


def _propose_offline(builder: PlanBuilder, inputs: DreamInputs, record: PassRecord,
                     similarity: float) -> None:
    now = inputs.now
    if builder.library.profile.holds.timestamps:
        builder.prune(prune_candidates(builder.virtual.skills(), now), record, OFFLINE)
    else:
        record.notes.append(NO_DATES)
    stats = usage_stats(inputs)
    skills = builder.virtual.listed()
    taken: set[str] = set()
    with reuse_freed_memory():  # hundreds of large arrays, each reusing the memory of the last
        pairs = similar_pairs([s for s in skills if not is_starter(s.name)], similarity)
    for score, a, b in pairs:
        if fold(a.name) in taken or fold(b.name) in taken:
            continue
        taken |= {fold(a.name), fold(b.name)}
        keep, drop = sorted((a, b), key=lambda s: (-stats.count(s.name), -len(s.content or "")))
        merged = _merge(keep, drop, now)
        merge = builder.new(ProposalKind.MERGE, OFFLINE, f"Merge '{drop.name}' into '{keep.name}'",
                            record=SkillRecord.of(merged), sources=[keep.name, drop.name],
                            replaces=[keep.name])
        merge.evidence.append(Evidence(kind="similarity",
                                       text=f"each recalls the other at {score:.0%} of its own score",
                                       data={"score": round(score, 6)}))
        merge.evidence.append(Evidence(kind="usage", text=f"{keep.name}: {stats.count(keep.name)}x, "
                                       f"{drop.name}: {stats.count(drop.name)}x in 30 days"))
        together = stats.together(keep.name, drop.name)
        if together:
            merge.evidence.append(Evidence(kind="co-use", text=f"used together in {together} session(s)"))
        merge.add("offline-merge", Severity.INFO, "the two texts are joined as they are; condense "
                  "them (or run the consolidation pass with an LLM) before relying on it")
        builder.add(merge, link=False)
        record.proposals.append(merge.id)
        delete = builder.new(ProposalKind.DELETE, OFFLINE, f"Delete '{drop.name}' (merged into "
                             f"'{keep.name}')", deletes=[drop.name], depends_on=[merge.id])
        delete.evidence.append(Evidence(kind="reply", text=f"merged into '{keep.name}' ({merge.id})"))
        builder.add(delete, link=False)
        record.proposals.append(delete.id)
    by_name = {fold(s.name): s for s in skills}
    for prefix, members in prefix_clusters(skills):
        guide_name = f"{prefix}/guide"
        if fold(guide_name) in by_name:
            continue
        lines = [f"# Which {prefix}/ skill to use", "", "## When to use",
                 f"A request fits more than one '{prefix}/' skill.", "", "## Skills"]
        lines += [f"- `{m}`: {by_name[fold(m)].summary or '(no summary yet)'}" for m in members]
        guide = Skill(name=guide_name, summary=f"Which {prefix}/ skill fits a request",
                      content="\n".join(lines), created_at=now, updated_at=now, last_used_at=None,
                      see_also=tuple(members))
        proposal = builder.new(ProposalKind.CREATE, OFFLINE, f"Create the guide '{guide_name}'",
                               record=SkillRecord.of(guide))
        proposal.evidence.append(Evidence(kind="cluster", text=f"'{prefix}/*': {', '.join(members)} "
                                          "and no guide", data={"prefix": prefix, "members": members}))
        builder.add(proposal, reads=members, link=False)
        record.proposals.append(proposal.id)
    for skill in skills:
        if not is_sparse(skill, now):
            continue
        proposal = builder.new(ProposalKind.REWRITE, OFFLINE,
                               f"Expand '{skill.name}' (only {len(skill.content or '')} characters)",
                               sources=[skill.name], advisory=True)
        proposal.evidence.append(Evidence(kind="sparse", text="content under 200 characters and older "
                                          "than 7 days: add steps, an example and edge cases"))
        proposal.evidence.append(Evidence(kind="usage", text=f"{stats.count(skill.name)}x in 30 days"))
        builder.add(proposal, link=False)
        record.proposals.append(proposal.id)
    _see_also(builder, stats, record, now)


def _merge(keep: Skill, drop: Skill, now: Timestamp) -> Skill:
    content = f"{(keep.content or '').rstrip()}\n\n## Also from '{drop.name}'\n\n" \
              f"{_demote((drop.content or '').strip())}"
    see_also: list[str] = []
    for target in [*(keep.see_also or ()), *(drop.see_also or ())]:
        if fold(target) not in {fold(keep.name), fold(drop.name)} and \
                fold(target) not in {fold(t) for t in see_also}:
            see_also.append(target)
    used = [t for t in (keep.last_used_at, drop.last_used_at) if t is not None]
    return Skill(name=keep.name, summary=keep.summary, content=content,
                 created_at=min(keep.created_at, drop.created_at, key=lambda t: t.utc_ticks),
                 updated_at=now, last_used_at=max(used, key=lambda t: t.utc_ticks) if used else None,
                 see_also=tuple(see_also) or None)


def _see_also(builder: PlanBuilder, stats: UsageStats, record: PassRecord, now: Timestamp) -> None:
    wanted: dict[str, list[tuple[str, int]]] = {}
    for pair in stats.pairs:
        if pair.sessions < SEE_ALSO_MIN_SESSIONS:
            continue
        a, b = builder.virtual.get(pair.a), builder.virtual.get(pair.b)
        if a is None or b is None:
            continue
        for src, dst in ((a, b), (b, a)):
            if fold(dst.name) not in {fold(t) for t in src.see_also or ()}:
                wanted.setdefault(fold(src.name), []).append((dst.name, pair.sessions))
    for skill in builder.virtual.listed():
        additions = wanted.get(fold(skill.name))
        if not additions:
            continue
        new = [*(skill.see_also or ()), *(name for name, _ in additions)]
        updated = skill.model_copy(update={"see_also": tuple(new), "updated_at": now})
        shown = ", ".join(name for name, _ in additions)
        proposal = builder.new(ProposalKind.SEE_ALSO, OFFLINE, f"Link '{skill.name}' to {shown}",
                               record=SkillRecord.of(updated), replaces=[skill.name])
        for name, sessions in additions:
            proposal.evidence.append(Evidence(kind="co-use", text=f"{skill.name} + {name}: used together "
                                              f"in {sessions} session(s) in 30 days",
                                              data={"partner": name, "sessions": sessions}))
        builder.add(proposal, link=False)
        record.proposals.append(proposal.id)
