"""Benchmark: the recall safety net -- 1,000 guarded queries replayed before and after a
50-merge change on 10,000 skills, against a naive replay in the same run.

Run:  .venv/bin/python tests/benchmarks/bench_recall_guard.py [--skills 10000] [--queries 1000]
      [--merges 50]

Not a pytest module. Skills and queries come from ``bench_recall``'s generator; each query guards
the skill it recalls first today. The change merges 50 random pairs (the kept skill's summary
gains the dropped one's, the dropped skill is deleted). Both sides are exact BM25 (RockBot's).

- ours: :func:`rockskills_gui.core.recall.replay.replay` -- two indexes, one scoring per query and
  side (top 5 and the guarded skills' ranks from the same scores);
- naive: the full ranking of every query on both sides (``search(top=None)``), ranks read off it.

Both must agree on every query's top 5 and guarded ranks; the target is ours < 2 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.replay import GuardedQuery, replay
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.benchmarks.bench_recall import Generator

TARGET_S = 2.0


def naive(before: list[Skill], after: list[Skill], queries: list[GuardedQuery],
          successors: dict[str, str]) -> list[tuple[tuple[str, ...], tuple[str, ...], list[int | None]]]:
    old, new = SkillRecall(before), SkillRecall(after)
    out = []
    for q in queries:
        full_old = [h.name for h in old.search(q.query, top=None)]
        full_new = [h.name for h in new.search(q.query, top=None)]
        ranks: list[int | None] = []
        for name in q.expected:
            target = successors.get(fold(name), name)
            ranks.append(full_new.index(target) + 1 if target in full_new else None)
        out.append((tuple(full_old[:5]), tuple(full_new[:5]), ranks))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--merges", type=int, default=50)
    args = parser.parse_args()
    gen = Generator()
    rng = random.Random(7)
    before = [Skill(name=n, summary=s, content="") for n, s in gen.library(args.skills)]
    recall = SkillRecall(before)
    queries: list[GuardedQuery] = []
    while len(queries) < args.queries:
        text = gen.query()
        top = recall.search(text, top=1)
        if top:
            queries.append(GuardedQuery(text, (top[0].name,), (), "generated"))
    by_name = {s.name: s for s in before}
    picked = rng.sample(list(by_name), 2 * args.merges)
    successors: dict[str, str] = {}
    for keep, drop in zip(picked[::2], picked[1::2], strict=True):
        kept = by_name[keep]
        by_name[keep] = Skill(name=kept.name, summary=f"{kept.summary} {by_name[drop].summary}",
                              content=kept.content)
        del by_name[drop]
        successors[fold(drop)] = keep
    after = list(by_name.values())

    start = time.perf_counter()
    ours = replay(before, after, queries, successors)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    reference = naive(before, after, queries, successors)
    naive_s = time.perf_counter() - start

    same = all(o.before == r[0] and o.after == r[1] and [m.after for m in o.expected] == r[2]
               for o, r in zip(ours.outcomes, reference, strict=True))
    print(f"{args.skills:,} skills, {len(queries):,} queries, {args.merges} merges")
    print(f"{'what':<44}{'seconds':>10}")
    print(f"{'ours (replay: two indexes, one scoring each)':<44}{ours_s:>10.2f}")
    print(f"{'naive (full ranking of every query)':<44}{naive_s:>10.2f}")
    print(f"speed-up {naive_s / ours_s:.1f}x; same results: {same}; regressions found: "
          f"{len(ours.regressions)}")
    verdict = ours_s < TARGET_S and same
    print(f"target: ours < {TARGET_S:.0f} s with the same results -> {'PASS' if verdict else 'FAIL'}")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
