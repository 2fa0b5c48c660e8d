"""Benchmark: the review's selection of a dream plan -- the plan graph (``ui/dream/selection.py`` over
``core/dream/plan_graph.py``) against the walk per proposal it replaced (issue 35, item 15).

Run:  .venv/bin/python tests/benchmarks/bench_dream_selection.py [--size 10000] [--walk 200,400,800]

Not a pytest module. Two plans of ``--size`` proposals: *chained* (each rewrites the skill the one
before it wrote, so each needs all before it: what a reply saving one name 10,000 times gives)
and *independent* (10,000 new skills). For each: the default selection, why each proposal can or
cannot be ticked (what the review page asks per row), Select none and Select all. The walk (the
former ``Selection``, kept in ``tests/ui/test_dream_selection.py`` as the reference the tests
compare against) is timed at the ``--walk`` sizes on the chained plan, where it was cubic: 10,000
would take hours. Both give the same selection at those sizes. Target: every step of the graph on
10,000 proposals under 1 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rockskills_gui.ui.dream.selection import default_selection
from tests.ui.test_dream_selection import Reference, make_plan, reference_default

TARGET_S = 1.0


def timed(work: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def graph_steps(label: str, count: int, chained: bool) -> bool:
    plan = make_plan(count, {i: [i - 1] for i in range(1, count)} if chained else {})
    started = time.perf_counter()
    selection = default_selection(plan)
    steps = {"default selection": time.perf_counter() - started}
    steps["why not, every row"], _ = timed(lambda: [selection.why_not(i) for i in plan.ids()])
    steps["select none"], _ = timed(selection.reject_all)
    steps["select all"], _ = timed(selection.accept_all)
    steps["untick the first"], _ = timed(lambda: selection.reject(plan.ids()[0]))
    print(f"graph, {label}, {count:,} proposals:")
    for step, seconds in steps.items():
        print(f"  {step:<22} {seconds:8.3f} s")
    return max(steps.values()) < TARGET_S


def walk_steps(sizes: list[int]) -> None:
    print("walk per proposal (before), chained:")
    for count in sizes:
        plan = make_plan(count, {i: [i - 1] for i in range(1, count)})
        took, accepted = timed(lambda: reference_default(plan, True, []))  # noqa: B023
        rows, _ = timed(lambda: [Reference(plan).why_not(i) for i in plan.ids()])  # noqa: B023
        ours = set(default_selection(plan).ids())
        same = "same selection" if ours == accepted else "DIFFERENT SELECTION"
        print(f"  {count:>6,}: default selection {took:8.3f} s, why not every row {rows:8.3f} s ({same})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--walk", default="200,400,800", help="sizes to time the walk at")
    args = parser.parse_args()
    ok = graph_steps("chained", args.size, chained=True)
    ok = graph_steps("independent", args.size, chained=False) and ok
    walk_steps([int(n) for n in args.walk.split(",") if n])
    print(f"target: every step under {TARGET_S:g} s on {args.size:,} proposals: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
