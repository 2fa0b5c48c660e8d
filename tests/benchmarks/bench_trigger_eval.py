"""Benchmark: a trigger eval of 100 queries x 3 runs against a chat-completions server that takes
200 ms per reply, sequential (one request at a time) against concurrent, in the same run.

Run:  .venv/bin/python tests/benchmarks/bench_trigger_eval.py [--queries 100] [--runs 3]
      [--latency 0.2] [--concurrency 1,8,16]

Not a pytest module. The server is tests/core/llm_server.py's, on 127.0.0.1, answering each query
with a scripted ``activate_skill`` call (half the queries trigger the target, half are near
misses) after ``--latency`` seconds. The listing is the Agent Skills ``<available_skills>`` block
of 40 generated skills. No cache during the timed runs (every request goes to the server); then
one more run with a warm cache, which must send nothing. Each run must give the same rates.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rockskills_gui.core.budget.agents import AGENT_SKILLS
from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.evals.cache import OutcomeCache
from rockskills_gui.core.evals.presentation import ACTIVATE_SKILL, present
from rockskills_gui.core.evals.run import EvalOptions, run_trigger_evals
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet, TriggerRow
from rockskills_gui.core.llm.endpoint import Endpoint
from tests.core.llm_server import activate, by_query, scripted_server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", default="1,8,16")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]

    entries = [AdEntry(f"skill-{i:02d}", f"Does task number {i} with files of kind {i}.",
                       f"/lib/skill-{i:02d}/SKILL.md") for i in range(40)]
    presentation = present(entries, AGENT_SKILLS, Limits(), ACTIVATE_SKILL)
    rows = tuple(TriggerRow(f"please handle request {q} about kind {q % 40}", q % 2 == 0)
                 for q in range(args.queries))
    script = {r.query: [activate("skill-07" if r.should_trigger else None)] for r in rows}
    eval_set = TriggerEvalSet("skill-07", rows)
    total = args.queries * args.runs
    print(f"{args.queries} queries x {args.runs} runs = {total} requests, {args.latency * 1000:.0f} ms "
          f"per reply; listing {len(presentation.listing):,} characters")
    with scripted_server() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = by_query(script, delay=args.latency)
        endpoint = Endpoint(server.base_url, "bench-model", timeout=30, retries=0)
        # import the HTTP client once, outside the timings
        run_trigger_evals([TriggerEvalSet("x", (TriggerRow("warm up", False),))], presentation,
                          endpoint, None, EvalOptions(runs=1))
        baseline = None
        results = {}
        for level in levels:
            before = len(server.requests)
            started = time.perf_counter()
            report = run_trigger_evals([eval_set], presentation, endpoint, None,
                                       EvalOptions(runs=args.runs, concurrency=level))
            took = time.perf_counter() - started
            sent = len(server.requests) - before
            rates = [r.rate for r in report.rows]
            assert sent == total and report.complete, (sent, report.aborted)
            assert baseline is None or rates == baseline, "a run gave other rates"
            baseline = rates
            results[level] = took
            floor = -(-total // level) * args.latency
            print(f"  concurrency {level:>3}: {took:6.2f} s  ({total / took:6.1f} requests/s; "
                  f"floor {floor:.1f} s)")
        cache = OutcomeCache(Path(tmp) / "cache.sqlite3")
        run_trigger_evals([eval_set], presentation, endpoint, None, EvalOptions(runs=args.runs), cache)
        before = len(server.requests)
        started = time.perf_counter()
        warm = run_trigger_evals([eval_set], presentation, endpoint, None, EvalOptions(runs=args.runs),
                                 cache)
        took = time.perf_counter() - started
        cache.close()
        assert len(server.requests) == before and warm.cached == total
        print(f"  warm cache       : {took:6.2f} s  (0 requests sent)")
    if 1 in results:
        for level, took in results.items():
            if level != 1:
                print(f"  speed-up at {level}: {results[1] / took:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
