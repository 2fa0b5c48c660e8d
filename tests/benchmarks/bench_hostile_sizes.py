"""Benchmark: every command on libraries with hostile sizes (issue 35, item 18), against a target.

Run:  .venv/bin/python tests/benchmarks/bench_hostile_sizes.py [--events 1000000] [--skill-mb 100]
      [--frontmatter-mb 20] [--dir DIR] [--src DIR] [--target 15]

Not a pytest module. Generates (once, kept under ``--dir``) a copy of the sample RockBot agent
with ``--events`` usage events in one session log (RockBot's own line format, ~130 bytes each),
a ``--skill-mb`` skill file and a 4 GB sparse usage log, and an Agent Skills project whose
``SKILL.md`` holds a ``--frontmatter-mb`` description. Then runs, each in a fresh process with
the code under ``--src`` (default: this checkout; give an older checkout to compare), ``list``,
``lint``, ``usage`` and ``dream --offline`` on the agent and ``list`` and ``lint`` on the project,
and prints each one's wall time and peak memory (``/usr/bin/time``-free: the child's
``ru_maxrss``) and whether it stayed under ``--target`` seconds. Also times reading the usage log
alone (``read_usage``). Exit status 1 when a command fails or misses the target.

Measured on 2 busy CPUs (load ~3-6), 1,000,000 events and a 100 MB skill: before (20365cd) list
1 s, lint 20 s, usage 18 s (757 MB), dream --offline 25 s; after: list 0.2 s, lint 5-8 s,
usage 5-8 s (330 MB), dream --offline 7-13 s. The 20 MB frontmatter: list 22 s, lint > 60 s
(reported in the issue) before; ~0.3 s each after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
SHARED = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
AGENT = SHARED / "fixtures" / "rockbot-agent"
NOW = "2026-11-22T12:00:00+00:00"


def make_agent(folder: Path, events: int, skill_mb: int) -> Path:
    """The sample agent with ``events`` usage events, a ``skill_mb`` skill and a 4 GB log."""
    agent = folder / f"agent-{events}-{skill_mb}"
    if agent.is_dir():
        return agent
    temp = folder / (agent.name + ".partial")
    shutil.rmtree(temp, ignore_errors=True)
    shutil.copytree(AGENT, temp)
    for path in [temp, *temp.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    names = sorted(json.loads(p.read_text())["name"] for p in (temp / "skills").rglob("*.json"))
    rng = random.Random(1)
    with open(temp / "skill-usage" / "huge-session.jsonl", "w", encoding="utf-8") as log:
        for i in range(events):
            log.write(json.dumps({"id": f"{i:012x}", "skillName": rng.choice(names),
                                  "sessionId": f"s{i // 20}",
                                  "timestamp": f"2026-11-{1 + i % 20:02d}T10:{i % 60:02d}:00.5+00:00"},
                                 separators=(",", ":")) + "\n")
    line = "Step: call the API, then check `the_result` and report.\n"
    content = line * (skill_mb * 1024 * 1024 // len(line) + 1)
    (temp / "skills" / "huge.json").write_text(json.dumps(
        {"name": "huge", "summary": "big", "content": content, "createdAt": "2026-01-01T00:00:00+00:00"}))
    with open(temp / "skill-usage" / "zz-sparse.jsonl", "wb") as sparse:
        sparse.truncate(4 << 30)
    temp.rename(agent)
    return agent


def make_project(folder: Path, frontmatter_mb: int) -> Path:
    """An Agent Skills project: one ordinary skill and one with a ``frontmatter_mb`` description."""
    project = folder / f"project-{frontmatter_mb}"
    if project.is_dir():
        return project
    for name, description in (("ok", "an ordinary skill"), ("big", "a" * (frontmatter_mb << 20))):
        skill = project / ".agents" / "skills" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\nBody.\n")
    return project


_CHILD = """
import resource, runpy, sys, time
sys.argv = ["rockskills", *sys.argv[1:]]
start = time.perf_counter()
try:
    runpy.run_module("rockskills_gui.cli", run_name="__main__")
except SystemExit as exc:
    code = exc.code or 0
else:
    code = 0
print(f"BENCH {time.perf_counter() - start:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}",
      file=sys.stderr)
sys.exit(code)
"""


def run(src: Path, args: list[str], timeout: float) -> tuple[float, float, int, str]:
    """``rockskills ARGS`` with the code under ``src``: (seconds, peak MB, exit status, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True,
                              env=env, cwd=src, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, 0.0, -1, "timed out"
    wall = time.perf_counter() - started
    peak = 0.0
    for line in done.stderr.splitlines():
        if line.startswith("BENCH "):
            peak = int(line.split()[2]) / 1024
    return wall, peak, done.returncode, done.stderr


def read_usage_time(src: Path, agent: Path) -> float:
    script = ("import sys, time; sys.path.insert(0, sys.argv[1])\n"
              "from pathlib import Path\nfrom rockskills_gui.core.usage.events import read_usage\n"
              "t = time.perf_counter(); log = read_usage(Path(sys.argv[2]))\n"
              "print(time.perf_counter() - t, len(log.events))")
    done = subprocess.run([sys.executable, "-c", script, str(src), str(agent)], capture_output=True,
                          text=True, check=True)
    seconds, count = done.stdout.split()
    print(f"read_usage: {float(seconds):.2f} s for {int(count):,} events")
    return float(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--skill-mb", type=int, default=100)
    parser.add_argument("--frontmatter-mb", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/rsg-bench-hostile"))
    parser.add_argument("--src", type=Path, default=REPO, help="the checkout whose code runs")
    parser.add_argument("--target", type=float, default=15.0, help="seconds each command may take")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    agent = make_agent(args.dir, args.events, args.skill_mb)
    project = make_project(args.dir, args.frontmatter_mb)
    plan = args.dir / "plan.json"
    commands = [
        ["list", str(agent)], ["lint", str(agent), "--now", NOW], ["usage", str(agent), "--now", NOW],
        ["dream", str(agent), "--offline", "--now", NOW, "--plan-out", str(plan)],
        ["list", str(project)], ["lint", str(project), "--now", NOW],
    ]
    print(f"code: {args.src}; {args.events:,} events, a {args.skill_mb} MB skill, a 4 GB log; "
          f"a {args.frontmatter_mb} MB frontmatter; target {args.target:g} s; load "
          f"{os.getloadavg()[0]:.1f}")
    failed = 0
    for command in commands:
        wall, peak, code, err = run(args.src, command, max(4 * args.target, 60))
        ok = code in (0, 1) and wall <= args.target and "internal error" not in err
        failed += not ok
        shown = " ".join(c if not c.startswith("/") else Path(c).name for c in command[:2])
        print(f"{shown:<32} {wall:6.1f} s {peak:7.0f} MB  exit {code}  {'ok' if ok else 'MISSED'}")
    read_usage_time(args.src, agent)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
