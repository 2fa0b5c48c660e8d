"""Which proposals of a plan the reviewer accepts, kept consistent with the plan's dependencies.

No Qt here. Accepting a proposal accepts what it needs (a merge's deletion needs the merge) and
drops what it conflicts with; rejecting one drops everything that depends on it. Blocked and
advisory proposals can never be accepted. The engine checks the same rules again when applying.
"""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.dream.apply import selection_problems
from rockskills_gui.core.dream.plan import PassStatus, Plan, ProposalKind
from rockskills_gui.core.dream.plan_graph import PlanGraph


class Selection:
    """The accepted ids of ``plan`` (plan order is kept by :meth:`ids`).

    Every question is answered over one :class:`PlanGraph` of the plan, so a plan of 10,000
    proposals starts, ticks and unticks in time linear in its size. The accepted set (positions
    in the plan) is kept closed under dependencies and free of conflicts, which lets a tick walk
    only what is not accepted yet and an untick only what is."""

    def __init__(self, plan: Plan, accepted: Iterable[str] = ()) -> None:
        self.plan = plan
        self.graph = PlanGraph(plan)
        self._nodes: set[int] = set()
        for proposal_id in accepted:
            self.accept(proposal_id)

    # ---------------------------------------------------------------- queries

    def __contains__(self, proposal_id: object) -> bool:
        return isinstance(proposal_id, str) and self.graph.pos.get(proposal_id, -1) in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    def ids(self) -> list[str]:
        return [self.graph.ids[n] for n in sorted(self._nodes)]

    def why_not(self, proposal_id: str) -> str | None:
        """Why ``proposal_id`` cannot be accepted at all (blocked, advisory, needs one that is)."""
        proposal = self.plan.get(proposal_id)
        if proposal.advisory:
            return "advisory: nothing to apply"
        if proposal.blocked:
            return "blocked by a finding"
        needed = self.graph.first_unacceptable(self.graph.pos[proposal_id])
        if needed is not None:
            return f"needs {self.graph.ids[needed]}, which cannot be accepted"
        return None

    def can_accept(self, proposal_id: str) -> bool:
        return self.why_not(proposal_id) is None

    def problems(self) -> list[str]:
        """The engine's verdict on the current selection (empty when it can be applied)."""
        return selection_problems(self.plan, self.ids())

    # ---------------------------------------------------------------- changes

    def accept(self, proposal_id: str) -> set[str]:
        """Accept ``proposal_id`` with what it needs; drop its conflicts. Returns changed ids."""
        before = set(self._nodes)
        self._accept(proposal_id)
        return self._changed(before)

    def reject(self, proposal_id: str) -> set[str]:
        """Reject ``proposal_id`` and everything that depends on it. Returns changed ids."""
        before = set(self._nodes)
        self._drop([self.graph.pos[proposal_id]])
        return self._changed(before)

    def accept_all(self, among: Iterable[str] | None = None) -> set[str]:
        """Accept what "accept all" would (``Plan.acceptable_ids``), limited to ``among``."""
        before = set(self._nodes)
        limit = set(among) if among is not None else None
        graph = self.graph
        for proposal_id in self.plan.acceptable_ids():
            if limit is None or proposal_id in limit:
                if not any(c in self._nodes for c in graph.conflicts[graph.pos[proposal_id]]):
                    self._accept(proposal_id)
        return self._changed(before)

    def reject_all(self, among: Iterable[str] | None = None) -> set[str]:
        before = set(self._nodes)
        ids = list(among) if among is not None else self.graph.ids
        self._drop([self.graph.pos[i] for i in ids if i in self.graph.pos])
        return self._changed(before)

    def _changed(self, before: set[int]) -> set[str]:
        return {self.graph.ids[n] for n in before ^ self._nodes}

    def _accept(self, proposal_id: str) -> None:
        graph = self.graph
        node = graph.pos[proposal_id]
        if node in self._nodes or not self.can_accept(proposal_id):
            return
        wanted = {*graph.requires(node, skip=self._nodes), node}  # what it needs that is not in yet
        clashing = {c for item in wanted for c in graph.conflicts[item] if c in self._nodes}
        if clashing:  # (never one it needs itself, in a plan that contradicts itself)
            clashing -= set(graph.requires(node))
            self._drop(clashing)
        self._nodes.update(wanted)

    def _drop(self, nodes: Iterable[int]) -> None:
        """Drop ``nodes`` and the accepted proposals that need them (all of which are accepted
        on the way: the accepted set is closed under dependencies)."""
        nodes = list(nodes)
        dropped = [*nodes, *self.graph.dependents(nodes, among=self._nodes)]
        self._nodes.difference_update(dropped)

    # Last in the class: below it, ``set`` in an annotation would name this method, not the builtin.
    def set(self, proposal_id: str, accepted: bool) -> set[str]:
        return self.accept(proposal_id) if accepted else self.reject(proposal_id)


UNSURE = (PassStatus.FAILED, PassStatus.REFUSED, PassStatus.CANCELLED)


def default_selection(plan: Plan, prune: bool = True, unticked: Iterable[str] = ()) -> Selection:
    """What the review starts with: everything "accept all" accepts, except prunes when not
    ``prune``, anything from a pass that failed, was refused or cancelled, and the ``unticked``
    ids (risky ones, ``core.dream.review_defaults``) with whatever needs them (the reviewer may
    still tick those). Linear in the plan's size (``PlanGraph.default_accepted``)."""
    unsure = {i for record in plan.passes if record.status in UNSURE for i in record.proposals}
    unsure |= set(unticked)
    wanted = [i for i in plan.acceptable_ids() if i not in unsure
              and (prune or plan.get(i).kind is not ProposalKind.PRUNE)]
    selection = Selection(plan)
    graph = selection.graph
    selection._nodes = graph.default_accepted(wanted)
    return selection
