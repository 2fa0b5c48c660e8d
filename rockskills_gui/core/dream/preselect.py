"""Which proposals a review starts ticked, and why: nothing destructive is pre-selected, ever.

Whatever the usage data says, a proposal starts **unticked** when it

- deletes a skill nothing replaces, or prunes one (the skill would be archived, restorable, but
  it leaves the agent);
- drops specifics of its sources (the merge coverage finding, :mod:`.coverage`): names, numbers,
  acronyms, tool names or URLs a source has and the new text lacks;
- shrinks a skill it rewrites to less than ``1 - SHRINK_LIMIT`` of its text;
- saves over an existing skill it does not name as a source (an overwrite);
- comes from a pass that failed, was refused or cancelled, or is blocked or advisory;
- is held back by a review guard (:mod:`.review_defaults`: recent use, a starter skill, a
  protected prefix), or needs a proposal that starts unticked, or conflicts with one that starts
  ticked.

A source's deletion that only retires it into a merge (a *merged-away source*: it depends on
the merge that lists it as a source) follows that merge: ticked when the merge keeps every
specific of it, unticked otherwise. Each proposal records the outcome in the plan file
(``preselected``, ``preselectReason``) so that the CLI (``apply --accept-preselected``), the
window and tests agree; it is made again whenever a plan is checked, never trusted from a file.
"""

from __future__ import annotations

from rockskills_gui.core.dream.plan import PassStatus, Plan, Proposal, ProposalKind
from rockskills_gui.core.dream.review_defaults import Guards, ReviewDefault, review_default
from rockskills_gui.core.model.names import display_name, fold

SHRINK_LIMIT = 0.5  # a rewrite keeping less than half of a skill's text starts unticked
UNSURE = (PassStatus.FAILED, PassStatus.REFUSED, PassStatus.CANCELLED)


def owners(plan: Plan, proposal: Proposal) -> list[Proposal]:
    """The proposals that merge ``proposal``'s deleted skill into another one (it depends on
    them and they list it as a source); empty for a deletion nothing replaces."""
    if proposal.kind is not ProposalKind.DELETE or not proposal.deletes:
        return []
    gone = {fold(n) for n in proposal.deletes}
    found: list[Proposal] = []
    by_id = {p.id: p for p in plan.proposals if p.id in proposal.depends_on}  # (not plan.get: it
    for other_id in proposal.depends_on:                                       # caches an index)
        other = by_id.get(other_id)
        if other is None:
            continue
        if other.record is not None and fold(other.record.name) not in gone \
                and gone <= {fold(s) for s in other.sources}:
            found.append(other)
    return found


def _shrink(proposal: Proposal) -> str | None:
    """Why a rewrite shrinks its skill too far, or None."""
    if proposal.kind is not ProposalKind.REWRITE or proposal.record is None:
        return None
    name = fold(proposal.record.name)
    old = next((r for n, r in proposal.before.items() if fold(n) == name), None)
    if old is None:
        return None
    before = len(old.content or "") + len(old.summary or "")
    after = len(proposal.record.content or "") + len(proposal.record.summary or "")
    if before == 0 or after >= before * (1 - SHRINK_LIMIT):
        return None
    cut = round(100 * (before - after) / before)
    return (f"shrinks '{display_name(old.name)}' from {before:,} to {after:,} characters "
            f"(by {cut}%, more than {round(100 * SHRINK_LIMIT)}%)")


def destructive(plan: Plan, proposal: Proposal) -> list[str]:
    """Why ``proposal`` is destructive on its own (empty when it is not)."""
    reasons: list[str] = []
    names = ", ".join(f"'{display_name(n)}'" for n in proposal.deletes)
    if proposal.kind is ProposalKind.PRUNE:
        reasons.append(f"prunes {names} (archived on apply, restorable)")
    elif proposal.kind is ProposalKind.DELETE and not owners(plan, proposal):
        reasons.append(f"deletes {names}, which nothing replaces (archived on apply, restorable)")
    lost = next((f for f in proposal.findings if f.code == "lost-specifics"), None)
    if lost is not None:
        reasons.append("drops " + lost.message.replace(" of the source(s) missing from the new text",
                                                       " of its sources"))
    shrink = _shrink(proposal)
    if shrink is not None:
        reasons.append(shrink)
    if proposal.record is not None and proposal.kind in (ProposalKind.CREATE, ProposalKind.MERGE):
        named = {fold(s) for s in proposal.sources}
        over = [r for r in proposal.replaces if fold(r) not in named]
        if over:
            reasons.append(f"saves over the existing skill '{display_name(over[0])}'")
    return reasons


def _kept(plan: Plan, proposal: Proposal) -> str:
    """Why a proposal that starts ticked is safe, in a few words."""
    record = proposal.record
    shown = f"'{display_name(record.name)}'" if record is not None else ""
    if proposal.kind is ProposalKind.DELETE:
        into = ", ".join(f"'{display_name(o.record.name)}' ({o.id})" for o in owners(plan, proposal)
                         if o.record is not None)
        return f"merged into {into}, which keeps every specific of it; archived on apply, restorable"
    if proposal.kind is ProposalKind.MERGE:
        return f"merges into {shown}, keeping every name, number, acronym, tool and URL of its sources"
    if proposal.kind is ProposalKind.REWRITE:
        return f"rewrites {shown}, keeping its specifics and most of its text"
    if proposal.kind is ProposalKind.SEE_ALSO:
        return "adds see-also links"
    return f"creates {shown}, a new skill"


def preselect(plan: Plan, guards: Guards) -> dict[str, ReviewDefault]:
    """Set ``preselected`` and ``preselectReason`` on every proposal of ``plan`` (see the module
    doc), plan order, so what a proposal needs is decided before it; returns each proposal's
    :class:`ReviewDefault` (its reasons as whole sentences, for the review's detail)."""
    unsure = {i for record in plan.passes if record.status in UNSURE for i in record.proposals}
    ticked: set[str] = set()
    defaults: dict[str, ReviewDefault] = {}
    for proposal in plan.proposals:
        shorts: list[str] = []
        longs: list[str] = []
        blocked = next((f.message for f in proposal.findings if f.severity.value == "block"), None)
        if proposal.advisory:
            shorts.append("advisory: nothing to apply")
        if blocked is not None:
            shorts.append(f"blocked: {display_name(blocked, 200)}")
        if proposal.id in unsure:
            shorts.append("its pass failed, was refused or cancelled")
        longs += shorts
        harm = destructive(plan, proposal)
        guard = review_default(proposal, guards)
        shorts += [*harm, *guard.shorts]
        longs += [*harm, *guard.reasons]
        if not shorts:  # only what it needs: said when nothing of its own holds it back
            merged = owners(plan, proposal)
            waiting = [o for o in merged if o.id not in ticked]
            waiting_ids = {o.id for o in merged}
            shorts += [f"merged into '{display_name(o.record.name)}' by {o.id}, which starts unticked"
                       for o in waiting if o.record is not None]
            others = [d for d in proposal.depends_on if d not in ticked and d not in waiting_ids]
            if others:
                shorts.append(f"needs {', '.join(others)}, which starts unticked")
            clash = [c for c in proposal.conflicts_with if c in ticked]
            if clash:
                shorts.append(f"changes the same skill as {', '.join(clash)}, which starts ticked")
            longs += shorts
        proposal.preselected = not shorts
        if proposal.preselected:
            ticked.add(proposal.id)
            proposal.preselect_reason = "Starts ticked: " + _kept(plan, proposal)
            defaults[proposal.id] = ReviewDefault()
        else:
            short = "Starts unticked: " + "; ".join(dict.fromkeys(shorts))
            proposal.preselect_reason = short
            defaults[proposal.id] = ReviewDefault(False, tuple(dict.fromkeys(longs)), short,
                                                  tuple(dict.fromkeys(shorts)))
    return defaults


def preselected_ids(plan: Plan) -> list[str]:
    """The ids a review starts ticked (plan order)."""
    return [p.id for p in plan.proposals if p.preselected]
