"""Benchmark: a dream Apply at scale (``core.dream.apply.apply_plan``), before and after, in one
run: how often it reads each skill file, how many sha256 it takes, its wall time.

Run:  .venv/bin/python tests/benchmarks/bench_dream_apply.py [--sizes 20000,100000]
      [--merges 200] [--dir DIR] [--baseline-rev REV | --baseline-src DIR] [--repeat N]

Not a pytest module. Generates (once, kept under ``--dir``) RockBot agent directories with
``bench_scale``'s realistic skills and, per size, a plan of ``--merges`` consolidations (each
saves a skill over itself with a merged record and deletes a second one: two proposals, two files
written), made with RockBot's consolidation reply through ``PastedReplies``. Then, per size and
repeat, alternately for the baseline code (``--baseline-src``: a folder holding an earlier
``rockskills_gui`` package, or ``--baseline-rev``: a commit of this repository, default ``HEAD``,
i.e. the code before the working tree's changes) and for this tree, each in a fresh process on a fresh copy of
the library: apply every proposal of the plan, counting the skill files (``*.json``) opened for
reading (``os.open``) and the sha256 taken of some bytes. Wall times on a shared machine are
noisy; the read and hash counts are exact.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
NOW = "2026-11-22T12:00:00+00:00"


# ---------------------------------------------------------------- the child (one measurement)


def child(src: Path, agent: Path, plan_path: Path) -> dict[str, object]:
    """Apply the plan with the code under ``src``; counts and times (run in a fresh process)."""
    sys.path.insert(0, str(src))
    import hashlib

    import rockskills_gui
    from rockskills_gui.core.dream.apply import apply_plan
    from rockskills_gui.core.dream.plan import Plan
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary

    assert Path(rockskills_gui.__file__).resolve().is_relative_to(src.resolve()), rockskills_gui.__file__
    library = RockBotLibrary.open(agent)
    plan = Plan.load(plan_path)
    ids = plan.acceptable_ids()
    skills = str(agent / "skills")
    reads: dict[str, int] = {}
    hashes = [0]
    real_open, real_sha = os.open, hashlib.sha256

    def counting_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        if isinstance(name, str) and name.startswith(skills) and name.endswith(".json") \
                and not flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            reads[name] = reads.get(name, 0) + 1
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def counting_sha(*args: object, **kwargs: object) -> object:
        if args:
            hashes[0] += 1
        return real_sha(*args, **kwargs)  # type: ignore[arg-type]

    os.open, hashlib.sha256 = counting_open, counting_sha  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        result = apply_plan(library, plan, ids)
        elapsed = time.perf_counter() - start
    finally:
        os.open, hashlib.sha256 = real_open, real_sha  # type: ignore[assignment]
    written = {str(fc.path) for fc in result.change.files}
    return {"seconds": elapsed, "files": len(result.change.files), "reads": sum(reads.values()),
        "distinct": len(reads), "most": max(reads.values(), default=0),
        "most_unwritten": max((n for p, n in reads.items() if p not in written), default=0),
        "hashes": hashes[0]}


# ---------------------------------------------------------------- the parent


def ensure_library(base: Path, size: int) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.benchmarks.bench_scale import generate

    agent = base / f"agent-{size}"
    marker = agent / ".bench-scale"
    if not (marker.is_file() and marker.read_text() == f"{size} 0"):
        shutil.rmtree(agent, ignore_errors=True)
        start = time.perf_counter()
        generate(agent, size, 0)
        print(f"generated {size:,} skills in {time.perf_counter() - start:.1f} s under {agent}",
              flush=True)
    return agent


def ensure_plan(base: Path, agent: Path, size: int, merges: int) -> Path:
    """A consolidation plan of ``merges`` merges over ``agent`` (made once, kept)."""
    path = base / f"plan-{size}-{merges}.json"
    if path.is_file():
        return path
    sys.path.insert(0, str(REPO))
    from rockskills_gui.core.dream.passes import DreamPass
    from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary
    from rockskills_gui.core.model.timestamps import Timestamp

    library = RockBotLibrary.open(agent)
    names = library.names()
    saves = [{"name": names[2 * i], "summary": f"Merged skill {i}.", "content": f"# Merged {i}\n",
              "sourceNames": [names[2 * i], names[2 * i + 1]]} for i in range(merges)]
    reply = json.dumps({"toDelete": [names[2 * i + 1] for i in range(merges)], "toSave": saves})
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=Timestamp.parse(NOW))
    plan = run_dream(library, options, PastedReplies([reply]))
    assert len(plan.acceptable_ids()) == 2 * merges, plan.acceptable_ids()
    plan.save(path)
    return path


def run_child(src: Path, source: Path, work: Path, plan: Path) -> dict[str, float]:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work)
    try:
        out = subprocess.run([sys.executable, str(HERE), "--child", "--src", str(src), "--agent",
                              str(work), "--plan", str(plan)], check=True, capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": str(src)}).stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000")
    parser.add_argument("--merges", type=int, default=200)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "rockskills-bench-apply")
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--baseline-rev", default="HEAD")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--agent", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--plan", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.src, args.agent, args.plan)))
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        baseline = args.baseline_src
        if baseline is None:
            baseline = Path(tmp) / "baseline"
            baseline.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.baseline_rev,
                                      "rockskills_gui"],
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
        print("| skills | files written | apply: before | apply: after | skill-file reads: before | "
              "after | reads of a written file: before | after | sha256 taken: before | after |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for size in (int(s) for s in args.sizes.split(",")):
            agent = ensure_library(args.dir, size)
            plan = ensure_plan(args.dir, agent, size, args.merges)
            runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
            for _ in range(args.repeat):
                for variant, src in (("before", baseline), ("after", REPO)):
                    runs[variant].append(run_child(src, agent, args.dir / "work", plan))
            b, a = runs["before"][0], runs["after"][0]
            sec = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
            print(f"| {size:,} | {a['files']:,} | {sec['before']:.2f} s | {sec['after']:.2f} s "
                  f"| {b['reads']:,} ({b['reads'] / b['distinct']:.2f}/file) "
                  f"| {a['reads']:,} ({a['reads'] / a['distinct']:.2f}/file) "
                  f"| {b['most']} | {a['most']} | {b['hashes']:,} | {a['hashes']:,} |", flush=True)
            unwritten = {v: max(r["most_unwritten"] for r in runs[v]) for v in runs}
            print(f"|  | (a file not written: read at most {unwritten['before']:.0f} / "
                  f"{unwritten['after']:.0f} times) |||||||||", flush=True)
    print("\nA written file's reads include the one of its checked swap (the write compares the "
          "file with what it expects, atomically).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
