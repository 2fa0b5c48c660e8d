"""A plan's proposals as a graph: what each one needs and conflicts with, answered in linear time.

:class:`PlanGraph` indexes the proposals once (positions in plan order, direct dependencies,
their reverse, conflicts counted from either side) so that the review's questions cost O(proposals
+ dependencies) for the whole plan, not per proposal: everything a proposal needs or that needs
it (a breadth-first walk), the first proposal in plan order a proposal needs that cannot be
accepted (strongly connected components, so a hand-edited plan with a dependency cycle is
answered too), and the selection a review starts with. A plan of 10,000 chained proposals took
minutes with a walk per proposal (issue 35, item 15); see ``tests/benchmarks/bench_dream_selection.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rockskills_gui.core.dream.plan import Plan, Proposal


class PlanGraph:
    """The dependency and conflict graph of ``plan``'s proposals as they are now (findings
    included: build a new graph after a re-check)."""

    def __init__(self, plan: Plan) -> None:
        proposals: Sequence[Proposal] = plan.proposals
        self.ids = [p.id for p in proposals]
        self.pos = {proposal_id: i for i, proposal_id in enumerate(self.ids)}
        self.proposals = list(proposals)
        self.acceptable = [p.acceptable for p in proposals]
        self.deps = [[self.pos[d] for d in p.depends_on if d in self.pos] for p in proposals]
        self.needed_by: list[list[int]] = [[] for _ in proposals]
        for node, deps in enumerate(self.deps):
            for dep in deps:
                self.needed_by[dep].append(node)
        conflicts: list[set[int]] = [set() for _ in proposals]
        for node, proposal in enumerate(proposals):
            for other in proposal.conflicts_with:
                at = self.pos.get(other)
                if at is not None and at != node:
                    conflicts[node].add(at)
                    conflicts[at].add(node)
        self.conflicts = [sorted(c) for c in conflicts]
        self._first_bad: list[int] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    # ---------------------------------------------------------------- walks

    def _walk(self, starts: Iterable[int], edges: list[list[int]],
              through: set[int] | None = None) -> set[int]:
        """Nodes reached from ``starts`` over ``edges`` (at least one step), expanding only nodes
        in ``through`` when given."""
        seen: set[int] = set()
        stack = [n for s in starts for n in edges[s]]
        while stack:
            node = stack.pop()
            if node in seen or (through is not None and node not in through):
                continue
            seen.add(node)
            stack.extend(edges[node])
        return seen

    def requires(self, node: int, skip: set[int] | None = None) -> list[int]:
        """Every proposal ``node`` needs, transitively, in plan order (``skip``: proposals whose
        needs are known to be met already; they and what they need are left out)."""
        if skip is None:
            return sorted(self._walk([node], self.deps))
        seen: set[int] = set()
        stack = [d for d in self.deps[node] if d not in skip]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            stack.extend(d for d in self.deps[current] if d not in skip)
        return sorted(seen)

    def dependents(self, nodes: Iterable[int], among: set[int] | None = None) -> list[int]:
        """Every proposal that needs one of ``nodes``, transitively, in plan order (``among``:
        only those in it, walking through them alone)."""
        return sorted(self._walk(nodes, self.needed_by, among))

    # ---------------------------------------------------------------- what cannot be accepted

    def first_unacceptable(self, node: int) -> int | None:
        """The first proposal (plan order) that ``node`` needs, transitively, and that cannot be
        accepted (blocked or advisory), or None."""
        if self._first_bad is None:
            self._first_bad = self._first_bad_all()
        found = self._first_bad[node]
        return found if found < len(self.ids) else None

    def _first_bad_all(self) -> list[int]:
        """:meth:`first_unacceptable` for every node at once, over the components in dependency
        order (a component in a cycle needs each of its own members too)."""
        count = len(self.ids)
        component, components = strong_components(self.deps)
        best = [count] * len(components)  # first bad node in a component or anything it needs
        first = [count] * count
        for index, members in enumerate(components):
            outside = count
            for member in members:
                for dep in self.deps[member]:
                    if component[dep] != index:
                        outside = min(outside, best[component[dep]])
            own = min((m for m in members if not self.acceptable[m]), default=count)
            best[index] = min(outside, own)
            cyclic = len(members) > 1 or members[0] in self.deps[members[0]]
            for member in members:
                first[member] = best[index] if cyclic else outside
        return first

    # ---------------------------------------------------------------- the review's start

    def default_accepted(self, wanted: Iterable[str]) -> set[int]:
        """Of ``wanted`` (ids that "accept all" accepts, in plan order, minus what starts
        unticked), those whose every need is accepted too and that conflict with none accepted
        before them: what the review starts with."""
        chosen: set[int] = set()
        for node in sorted(self.pos[i] for i in set(wanted) if i in self.pos):
            if all(d in chosen for d in self.deps[node]) \
                    and not any(c in chosen for c in self.conflicts[node]):
                chosen.add(node)
        return chosen


def strong_components(edges: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Tarjan's strongly connected components, without recursion: each node's component and the
    components, every one listed after all the components its nodes reach."""
    count = len(edges)
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    component = [-1] * count
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, iter(edges[root]))]
        while work:
            node, children = work[-1]
            descended = False
            for child in children:
                if index[child] == -1:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    work.append((child, iter(edges[child])))
                    descended = True
                    break
                if on_stack[child]:
                    low[node] = min(low[node], index[child])
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = len(components)
                    members.append(member)
                    if member == node:
                        break
                components.append(members)
    return component, components
