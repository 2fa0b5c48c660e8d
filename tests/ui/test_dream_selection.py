"""The review's selection over a plan's dependency graph (issue 35, item 15): the same answers as
the walk-per-proposal it replaces, on random plans, and a plan of 10,000 chained proposals
selected, ticked and unticked at once (the walk took minutes; the speed comparison is
``tests/benchmarks/bench_dream_selection.py``). No Qt is needed: the selection is plain Python."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.dream.fingerprint import Fingerprint
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import (
    Finding,
    PassRecord,
    PassStatus,
    Plan,
    Proposal,
    ProposalKind,
    Severity,
)
from rockskills_gui.ui.dream.selection import UNSURE, Selection, default_selection
from tests.property_budget import budgeted


def make_plan(count: int, deps: dict[int, list[int]], conflicts: Iterable[tuple[int, int]] = (),
              blocked: Iterable[int] = (), advisory: Iterable[int] = (), prunes: Iterable[int] = (),
              failed: Iterable[int] = ()) -> Plan:
    """A plan of ``count`` proposals ``p0``, ``p1``, ...; ``failed`` ones come from a failed pass."""
    blocked, advisory, prunes, failed = set(blocked), set(advisory), set(prunes), set(failed)
    proposals = []
    for i in range(count):
        proposal = Proposal(id=f"p{i}", kind=ProposalKind.PRUNE if i in prunes else ProposalKind.CREATE,
                            dream_pass=DreamPass.CONSOLIDATE if i in failed else DreamPass.GAP,
                            title=f"proposal {i}", depends_on=[f"p{d}" for d in deps.get(i, [])],
                            advisory=i in advisory)
        if i in blocked:
            proposal.findings.append(Finding(code="test", severity=Severity.BLOCK, message="blocked"))
        proposals.append(proposal)
    for a, b in conflicts:
        proposals[a].conflicts_with.append(f"p{b}")
        proposals[b].conflicts_with.append(f"p{a}")
    passes = [PassRecord(dream_pass=DreamPass.GAP, status=PassStatus.OK,
                         proposals=[p.id for p in proposals if p.dream_pass is DreamPass.GAP]),
              PassRecord(dream_pass=DreamPass.CONSOLIDATE, status=PassStatus.FAILED,
                         proposals=[p.id for p in proposals if p.dream_pass is DreamPass.CONSOLIDATE])]
    return Plan(created_at="2026-11-22T12:00:00+00:00", now="2026-11-22T12:00:00+00:00", library="/x",
                fingerprint=Fingerprint(files={}, digest=""), passes=passes, proposals=proposals)


# ---------------------------------------------------------------- the walk per proposal (before)


class Reference:
    """The selection as it was: a transitive walk per question (``Plan.requires``)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.accepted: set[str] = set()

    def why_not(self, proposal_id: str) -> str | None:
        proposal = self.plan.get(proposal_id)
        if proposal.advisory:
            return "advisory: nothing to apply"
        if proposal.blocked:
            return "blocked by a finding"
        for needed in self.plan.requires(proposal_id):
            if not self.plan.get(needed).acceptable:
                return f"needs {needed}, which cannot be accepted"
        return None

    def accept(self, proposal_id: str) -> set[str]:
        if self.why_not(proposal_id) is not None:
            return set()
        before = set(self.accepted)
        wanted = [*self.plan.requires(proposal_id), proposal_id]
        for item in wanted:
            for other in self.plan.get(item).conflicts_with:
                if other in self.accepted and other not in wanted:
                    self.drop(other)
        self.accepted.update(wanted)
        return before ^ self.accepted

    def reject(self, proposal_id: str) -> set[str]:
        before = set(self.accepted)
        self.drop(proposal_id)
        return before ^ self.accepted

    def accept_all(self, among: Iterable[str] | None) -> set[str]:
        before = set(self.accepted)
        limit = set(among) if among is not None else None
        for proposal_id in self.plan.acceptable_ids():
            if limit is None or proposal_id in limit:
                if not any(c in self.accepted for c in self.plan.get(proposal_id).conflicts_with):
                    self.accept(proposal_id)
        return before ^ self.accepted

    def reject_all(self, among: Iterable[str] | None) -> set[str]:
        before = set(self.accepted)
        for proposal_id in list(among) if among is not None else self.plan.ids():
            self.drop(proposal_id)
        return before ^ self.accepted

    def drop(self, proposal_id: str) -> None:
        self.accepted.discard(proposal_id)
        for dependent in self.plan.dependents(proposal_id):
            self.accepted.discard(dependent)


def reference_default(plan: Plan, prune: bool, unticked: Iterable[str]) -> set[str]:
    unsure = {i for record in plan.passes if record.status in UNSURE for i in record.proposals}
    unsure |= set(unticked)
    wanted = [i for i in plan.acceptable_ids() if i not in unsure
              and (prune or plan.get(i).kind is not ProposalKind.PRUNE)]
    selection = Reference(plan)
    for proposal_id in wanted:
        if all(r in wanted for r in plan.requires(proposal_id)):
            selection.accept(proposal_id)
    return selection.accepted


# ---------------------------------------------------------------- random plans


@st.composite
def plans(draw: st.DrawFn, cycles: bool = False) -> Plan:
    """Plans as the dream makes them: a proposal needs earlier ones and conflicts both ways; with
    ``cycles``, also needs later ones (a hand-edited plan file)."""
    count = draw(st.integers(1, 14))
    ids = st.integers(0, count - 1)
    deps: dict[int, list[int]] = {}
    for i in range(count):
        pool = st.integers(0, count - 1) if cycles else (st.integers(0, i - 1) if i else st.nothing())
        deps[i] = sorted(set(draw(st.lists(pool, max_size=3)))) if (i or cycles) else []
    def needs(a: int, b: int) -> bool:  # a needs b, transitively
        seen, stack = set(), list(deps[a])
        while stack:
            node = stack.pop()
            if node == b:
                return True
            if node not in seen:
                seen.add(node)
                stack.extend(deps[node])
        return False

    def both(a: int, b: int) -> bool:  # one proposal needs (or is) both
        return any((x == a or needs(x, a)) and (x == b or needs(x, b)) for x in range(count))

    # alternatives: nothing needs both (the dream links a proposal or marks it as an alternative)
    pairs = [(a, b) for a, b in draw(st.lists(st.tuples(ids, ids), max_size=4))
             if a != b and not both(a, b)]
    return make_plan(count, deps, conflicts=pairs, blocked=draw(st.sets(ids, max_size=3)),
                     advisory=draw(st.sets(ids, max_size=2)), prunes=draw(st.sets(ids, max_size=3)),
                     failed=draw(st.sets(ids, max_size=3)))


OPS = st.lists(st.tuples(st.sampled_from(["accept", "reject", "accept_all", "reject_all"]),
                         st.integers(0, 13), st.one_of(st.none(), st.sets(st.integers(0, 13)))),
               max_size=12)


@budgeted(60, 300)
@given(plan=plans(), prune=st.booleans(), unticked=st.sets(st.integers(0, 13), max_size=3), ops=OPS)
def test_the_graph_answers_as_the_walk_did(plan: Plan, prune: bool, unticked: set[int],
                                           ops: list[tuple[str, int, set[int] | None]]) -> None:
    ids = plan.ids()
    risky = [f"p{i}" for i in unticked if i < len(ids)]
    ours = default_selection(plan, prune=prune, unticked=risky)
    theirs = Reference(plan)
    theirs.accepted = reference_default(plan, prune, risky)
    assert set(ours.ids()) == theirs.accepted
    assert [ours.why_not(i) for i in ids] == [theirs.why_not(i) for i in ids]
    for op, at, among in ops:
        target = ids[at % len(ids)]
        subset = None if among is None else [ids[i % len(ids)] for i in sorted(among)]
        if op == "accept":
            assert ours.accept(target) == theirs.accept(target)
        elif op == "reject":
            assert ours.reject(target) == theirs.reject(target)
        elif op == "accept_all":
            assert ours.accept_all(subset) == theirs.accept_all(subset)
        else:
            assert ours.reject_all(subset) == theirs.reject_all(subset)
        assert set(ours.ids()) == theirs.accepted and len(ours) == len(theirs.accepted)


@budgeted(60, 300)
@given(plan=plans(cycles=True))
def test_what_cannot_be_accepted_is_found_through_cycles_too(plan: Plan) -> None:
    ours, theirs = Selection(plan), Reference(plan)
    assert [ours.why_not(i) for i in plan.ids()] == [theirs.why_not(i) for i in plan.ids()]


# ---------------------------------------------------------------- 10,000 proposals


def test_ten_thousand_chained_proposals_are_selected_ticked_and_unticked() -> None:
    """Each proposal rewrites the skill the one before it wrote (a reply saving one name 10,000
    times): the walk per proposal was cubic here."""
    count = 10_000
    plan = make_plan(count, {i: [i - 1] for i in range(1, count)}, blocked=[9_000])
    selection = default_selection(plan)
    assert len(selection) == 9_000 and "p8999" in selection and "p9000" not in selection
    assert selection.why_not("p9999") == "needs p9000, which cannot be accepted"
    assert selection.why_not("p8999") is None
    assert selection.reject("p5000") == {f"p{i}" for i in range(5_000, 9_000)}
    assert selection.accept("p8999") == {f"p{i}" for i in range(5_000, 9_000)}
    assert len(selection.reject_all()) == 9_000 and len(selection) == 0
    assert len(selection.accept_all()) == 9_000
    assert selection.problems() == []
