"""Benchmark: every command on libraries with hostile sizes (issue 35, item 18), against a target.

Run:  .venv/bin/python tests/benchmarks/bench_hostile_sizes.py [--events 1000000] [--skill-mb 100]
      [--frontmatter-mb 20] [--dir DIR] [--src DIR] [--target 15] [--no-sparse-log]

Not a pytest module. Generates (once, kept under ``--dir``) a copy of the sample RockBot agent
with ``--events`` usage events in one session log (RockBot's own line format, ~130 bytes each),
a ``--skill-mb`` skill file and a 4 GB sparse usage log, and an Agent Skills project whose
``SKILL.md`` holds a ``--frontmatter-mb`` description. Then runs, each in a fresh process with
the code under ``--src`` (default: this checkout; give an older checkout to compare), ``list``,
``lint``, ``usage`` and ``dream --offline`` on the agent and ``list`` and ``lint`` on the
project, and prints each one's wall time and peak memory (the child's own ``VmHWM``) and
whether it stayed under ``--target`` seconds. Also times reading the usage log alone
(``read_usage``). Exit status 1 when a command fails or misses the target.

Measured on 2 CPUs shared by other jobs (load 8-11, so ~5x slower than a quiet machine), one run
each, 1,000,000 events, a 100 MB skill, a 20 MB frontmatter (``--no-sparse-log``: the code
before reads a 4 GB log whole); before = 20365cd (``--src`` a checkout of it), after = this
branch:

    command                 before              after
    list   (agent)          2.5 s    327 MB     0.2 s    22 MB  (the 100 MB skill: a problem)
    lint   (agent)         23.1 s  1,526 MB    14.4 s   301 MB
    usage  (agent)         18.8 s    740 MB    13.2 s   322 MB
    dream --offline        66.8 s  2,240 MB    15.5 s   364 MB  (reads the log once, not twice)
    list   (project)       23.6 s    154 MB     0.6 s    34 MB  (the frontmatter: a problem)
    lint   (project)     > 240 s (killed)       1.4 s    63 MB
    read_usage             18.7 s              13.0 s

With the 4 GB sparse log as well, after: lint 13.3 s, usage 12.8 s, dream 15.8 s (the log is
reported, not read). On a quieter moment (load ~3) read_usage took 7.5 s before and 4.1 s after,
``usage`` 7.6 s before and 4.8 s after, with the same output.
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


def make_agent(folder: Path, events: int, skill_mb: int, sparse_log: bool) -> Path:
    """The sample agent with ``events`` usage events, a ``skill_mb`` skill and (``sparse_log``)
    a 4 GB sparse usage log."""
    agent = folder / f"agent-{events}-{skill_mb}{'-sparse' if sparse_log else ''}"
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
    if sparse_log:
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
import runpy, sys, time
sys.argv = ["rockskills", *sys.argv[1:]]
start = time.perf_counter()
try:
    runpy.run_module("rockskills_gui.cli", run_name="__main__")
except SystemExit as exc:
    code = exc.code or 0
else:
    code = 0
peak = 0  # VmHWM: this process's own peak (ru_maxrss would count the parent's, carried over exec)
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1])
print(f"BENCH {time.perf_counter() - start:.3f} {peak}", file=sys.stderr)
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
    parser.add_argument("--no-sparse-log", action="store_true",
                        help="leave out the 4 GB log (code before issue 35 reads it whole: ~12 GB)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    agent = make_agent(args.dir, args.events, args.skill_mb, not args.no_sparse_log)
    project = make_project(args.dir, args.frontmatter_mb)
    plan = args.dir / "plan.json"
    commands = [
        ["list", str(agent)], ["lint", str(agent), "--now", NOW], ["usage", str(agent), "--now", NOW],
        ["dream", str(agent), "--offline", "--now", NOW, "--plan-out", str(plan)],
        ["list", str(project)], ["lint", str(project), "--now", NOW],
    ]
    print(f"code: {args.src}; {args.events:,} events, a {args.skill_mb} MB skill"
          f"{'' if args.no_sparse_log else ', a 4 GB log'}; "
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
