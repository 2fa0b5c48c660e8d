"""Which proposals of a plan the reviewer accepts, kept consistent with the plan's dependencies.

No Qt here. Accepting a proposal accepts what it needs (a merge's deletion needs the merge) and
drops what it conflicts with; rejecting one drops everything that depends on it. Blocked and
advisory proposals can never be accepted. The engine checks the same rules again when applying.
"""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.dream.apply import selection_problems
from rockskills_gui.core.dream.plan import PassStatus, Plan, ProposalKind

ProposalIds = set[str]  # the changed ids a selection returns (in its class body ``set`` is a method)


class Selection:
    """The accepted ids of ``plan`` (plan order is kept by :meth:`ids`)."""

    def __init__(self, plan: Plan, accepted: Iterable[str] = ()) -> None:
        self.plan = plan
        self._accepted: set[str] = set()
        for proposal_id in accepted:
            self.accept(proposal_id)

    # ---------------------------------------------------------------- queries

    def __contains__(self, proposal_id: object) -> bool:
        return proposal_id in self._accepted

    def __len__(self) -> int:
        return len(self._accepted)

    def ids(self) -> list[str]:
        return [i for i in self.plan.ids() if i in self._accepted]

    def why_not(self, proposal_id: str) -> str | None:
        """Why ``proposal_id`` cannot be accepted at all (blocked, advisory, needs one that is)."""
        proposal = self.plan.get(proposal_id)
        if proposal.advisory:
            return "advisory: nothing to apply"
        if proposal.blocked:
            return "blocked by a finding"
        for needed in self.plan.requires(proposal_id):
            if not self.plan.get(needed).acceptable:
                return f"needs {needed}, which cannot be accepted"
        return None

    def can_accept(self, proposal_id: str) -> bool:
        return self.why_not(proposal_id) is None

    def problems(self) -> list[str]:
        """The engine's verdict on the current selection (empty when it can be applied)."""
        return selection_problems(self.plan, self.ids())

    # ---------------------------------------------------------------- changes

    def accept(self, proposal_id: str) -> ProposalIds:
        """Accept ``proposal_id`` with what it needs; drop its conflicts. Returns changed ids."""
        if not self.can_accept(proposal_id):
            return set()
        before = set(self._accepted)
        wanted = [*self.plan.requires(proposal_id), proposal_id]
        for item in wanted:
            for other in self.plan.get(item).conflicts_with:
                if other in self._accepted and other not in wanted:
                    self._drop(other)
        self._accepted.update(wanted)
        return before ^ self._accepted

    def reject(self, proposal_id: str) -> ProposalIds:
        """Reject ``proposal_id`` and everything that depends on it. Returns changed ids."""
        before = set(self._accepted)
        self._drop(proposal_id)
        return before ^ self._accepted

    def set(self, proposal_id: str, accepted: bool) -> ProposalIds:
        return self.accept(proposal_id) if accepted else self.reject(proposal_id)

    def accept_all(self, among: Iterable[str] | None = None) -> ProposalIds:
        """Accept what "accept all" would (``Plan.acceptable_ids``), limited to ``among``."""
        before = set(self._accepted)
        limit = set(among) if among is not None else None
        for proposal_id in self.plan.acceptable_ids():
            if limit is None or proposal_id in limit:
                if not any(c in self._accepted for c in self.plan.get(proposal_id).conflicts_with):
                    self.accept(proposal_id)
        return before ^ self._accepted

    def reject_all(self, among: Iterable[str] | None = None) -> ProposalIds:
        before = set(self._accepted)
        for proposal_id in list(among) if among is not None else self.plan.ids():
            self._drop(proposal_id)
        return before ^ self._accepted

    def _drop(self, proposal_id: str) -> None:
        self._accepted.discard(proposal_id)
        for dependent in self.plan.dependents(proposal_id):
            self._accepted.discard(dependent)


UNSURE = (PassStatus.FAILED, PassStatus.REFUSED, PassStatus.CANCELLED)


def default_selection(plan: Plan, prune: bool = True, unticked: Iterable[str] = ()) -> Selection:
    """What the review starts with: everything "accept all" accepts, except prunes when not
    ``prune``, anything from a pass that failed, was refused or cancelled, and the ``unticked``
    ids (risky ones, ``core.dream.review_defaults``) with whatever needs them (the reviewer may
    still tick those)."""
    unsure = {i for record in plan.passes if record.status in UNSURE for i in record.proposals}
    unsure |= set(unticked)
    wanted = [i for i in plan.acceptable_ids() if i not in unsure
              and (prune or plan.get(i).kind is not ProposalKind.PRUNE)]
    selection = Selection(plan)
    for proposal_id in wanted:
        if all(r in wanted for r in plan.requires(proposal_id)):
            selection.accept(proposal_id)
    return selection
