"""A save, a rename, a delete and the undo of each at N skills: SKILL.md beside RockBot, in one
run (issue 15).

    .venv/bin/python tests/benchmarks/bench_save.py [--skills 5000] [--repeat 9]

Prints a table of medians; the two libraries take turns, so both see the same machine load. The
last columns are the part each library spent taking the written change in (its in-memory update:
for SKILL.md, the touched folders only; the rest is writing, mostly the crash journal's fsyncs). The
last row is what every SKILL.md write cost before the parse cache and the incremental take-in: a
full re-read of the library (measured here as an explicit ``reload()``). Libraries are generated
in a temporary folder (RockBot JSON files; Agent Skills folders, a tenth with a ``scripts/``
resource).
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

from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.storage.changes import ChangeSet

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


class Ops:
    """The timed operations on one library (each call works on a skill not used before), and
    the time the library spent taking each written change in (its in-memory update)."""

    def __init__(self, path: Path, count: int) -> None:
        self.lib = open_library(path)
        self.count = count
        self.n = 0
        self.taking_in = 0.0
        take_in = self.lib._take_in

        def timed_take_in(change: ChangeSet) -> None:  # the instance's own, seen by _apply
            started = time.perf_counter()
            try:
                take_in(change)
            finally:
                self.taking_in += time.perf_counter() - started

        self.lib._take_in = timed_take_in  # type: ignore[method-assign]

    def save(self) -> None:
        self.n += 1
        name = f"skill-{self.n % 50:05d}"
        self.lib.update(name, content=self.lib.get(name).content + f"\nstep {self.n}\n")

    def rename(self) -> None:
        self.n += 1
        self.lib.rename(f"skill-{self.count // 10 + self.n:05d}", f"renamed-{self.n:05d}")

    def delete(self) -> None:
        self.n += 1
        self.lib.delete(f"skill-{self.count // 2 + self.n:05d}")

    def undo(self) -> None:
        self.lib.undo()

    def reload(self) -> None:
        self.lib.reload()


Row = tuple[float, float, float, float]  # SKILL.md, RockBot; then the take-in part of each


def timed_pair(ops: tuple[Ops, Ops], call: Callable[[Ops], object], repeat: int,
               before: Callable[[Ops], object] | None = None) -> Row:
    """Medians of ``call`` on each library, alternated so both see the same machine load;
    ``before`` runs untimed before each call (e.g. the save an undo undoes)."""
    times: tuple[list[float], list[float]] = ([], [])
    taken: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for i, op in enumerate(ops):
            if before is not None:
                before(op)
            op.taking_in = 0.0
            started = time.perf_counter()
            call(op)
            times[i].append(time.perf_counter() - started)
            taken[i].append(op.taking_in)
    return (statistics.median(times[0]), statistics.median(times[1]),
            statistics.median(taken[0]), statistics.median(taken[1]))


def measure(md_path: Path, rb_path: Path, count: int, repeat: int) -> dict[str, Row]:
    ops = (Ops(md_path, count), Ops(rb_path, count))
    return {
        "save": timed_pair(ops, Ops.save, repeat),
        "undo (a save)": timed_pair(ops, Ops.undo, repeat, Ops.save),
        "rename": timed_pair(ops, Ops.rename, repeat),
        "undo (a rename)": timed_pair(ops, Ops.undo, repeat, Ops.rename),
        "delete": timed_pair(ops, Ops.delete, repeat),
        "undo (a delete)": timed_pair(ops, Ops.undo, repeat, Ops.delete),
        "full re-read (the old cost of every SKILL.md write)":
            timed_pair(ops, Ops.reload, max(1, repeat // 2)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure(make_skillmd(Path(tmp) / "md", args.skills),
                       make_rockbot(Path(tmp) / "rb", args.skills), args.skills, args.repeat)
    print(f"| at {args.skills:,} skills (median of {args.repeat}) | SKILL.md | RockBot "
          "| SKILL.md ÷ RockBot | of which taking it in: SKILL.md | RockBot |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, (md, rb, md_in, rb_in) in rows.items():
        taken = (f"{md_in * 1000:.2f} ms | {rb_in * 1000:.2f} ms" if key != "full re-read "
                 "(the old cost of every SKILL.md write)" else "– | –")
        print(f"| {key} | {md * 1000:.1f} ms | {rb * 1000:.1f} ms | {md / rb:.1f}× | {taken} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
