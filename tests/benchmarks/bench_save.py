"""A save, its undo and a rename at N skills: SKILL.md beside RockBot, in one run (issue 15).

    .venv/bin/python tests/benchmarks/bench_save.py [--skills 5000] [--repeat 5]

Prints a table of medians. The baseline column is what every SKILL.md write cost before the parse
cache: a full re-read of the library (measured here as an explicit ``reload()``). Libraries are
generated in a temporary folder (RockBot JSON files; Agent Skills folders, a tenth with a
``scripts/`` resource).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rockskills_gui.core.library.formats import open_library

WORDS = ("alpha beta gamma delta research email calendar notes report summary draft review code "
         "test deploy build meeting invoice travel").split()


def make_skillmd(root: Path, count: int) -> Path:
    rng = random.Random(1)
    for i in range(count):
        folder = root / ".claude" / "skills" / f"skill-{i:05d}"
        folder.mkdir(parents=True)
        desc = " ".join(rng.choice(WORDS) for _ in range(12))
        steps = "\n".join(f"{k + 1}. {' '.join(rng.choice(WORDS) for _ in range(8))}" for k in range(10))
        (folder / "SKILL.md").write_text(f"---\nname: skill-{i:05d}\ndescription: {desc}\n---\n\n"
                                         f"# skill-{i:05d}\n\n{steps}\n")
        if i % 10 == 0:
            (folder / "scripts").mkdir()
            (folder / "scripts" / "run.py").write_text("print('hi')\n")
    return root


def make_rockbot(root: Path, count: int) -> Path:
    rng = random.Random(1)
    skills = root / "skills"
    skills.mkdir(parents=True)
    for i in range(count):
        summary = " ".join(rng.choice(WORDS) for _ in range(10))
        content = "\n".join(f"{k + 1}. {' '.join(rng.choice(WORDS) for _ in range(8))}" for k in range(10))
        (skills / f"skill-{i:05d}.json").write_text(json.dumps({
            "name": f"skill-{i:05d}", "summary": summary, "content": content,
            "createdAt": "2026-01-01T00:00:00+00:00", "updatedAt": None, "lastUsedAt": None,
            "seeAlso": None}, indent=2))
    return root


def timed(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(path: Path, repeat: int) -> dict[str, float]:
    lib = open_library(path)
    counter = {"n": 0}

    def save() -> None:
        counter["n"] += 1
        name = f"skill-{counter['n'] % 50:05d}"
        lib.update(name, content=lib.get(name).content + f"\nstep {counter['n']}\n")

    def save_and_undo() -> None:
        save()
        started = time.perf_counter()
        lib.undo()
        undo_times.append(time.perf_counter() - started)

    def rename() -> None:
        counter["n"] += 1
        lib.rename(f"skill-{100 + counter['n']:05d}", f"renamed-{counter['n']:05d}")

    undo_times: list[float] = []
    result = {"save": timed(save, repeat)}
    timed(save_and_undo, repeat)
    result["undo"] = statistics.median(undo_times)
    result["rename"] = timed(rename, repeat)
    result["full re-read (the old cost of every SKILL.md write)"] = timed(lib.reload, max(1, repeat // 2))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        md = measure(make_skillmd(Path(tmp) / "md", args.skills), args.repeat)
        rb = measure(make_rockbot(Path(tmp) / "rb", args.skills), args.repeat)
    print(f"| at {args.skills:,} skills (median of {args.repeat}) | SKILL.md | RockBot "
          "| SKILL.md ÷ RockBot |")
    print("|---|---:|---:|---:|")
    for key in md:
        print(f"| {key} | {md[key] * 1000:.1f} ms | {rb[key] * 1000:.1f} ms | {md[key] / rb[key]:.1f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
