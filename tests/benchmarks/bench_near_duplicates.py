"""Benchmark: the near-duplicate search of ``rockskills lint`` and the merge candidates of
``rockskills dream --offline``, old (n BM25 searches) against new (``core.recall.bm25_join``).

Run:  .venv/bin/python tests/benchmarks/bench_near_duplicates.py [--sizes 1000,5000,100000]
      [--old-up-to 5000] [--cli-dream-up-to 5000] [--dir DIR] [--baseline-src DIR]

Not a pytest module. Generates (once, kept under ``--dir``) RockBot agent directories of
near-identical skills: families of one to five variants of a skill (a suffix added to the name,
the summary unchanged, with one word swapped or with words added, the content with a line
added), names and summaries as in ``bench_recall`` (prefixed names, templated summaries over
shared verbs and nouns), Markdown content whose words come from the family's own topic
vocabulary, shared verbs and stop words. Every skill is recent (nothing to prune) and long
enough not to be sparse, so the plan is the merges.

Each measurement runs in a fresh process, all in one run on one machine:

- in process, per size: ``near_duplicates`` (lint) and ``similar_pairs`` (dream) on the loaded
  library; up to ``--old-up-to`` also the old algorithms (kept verbatim as references in
  ``tests/core/test_near_duplicates.py``) with a check that both give the same result;
- end to end, per size: ``rockskills lint --all`` and (up to ``--cli-dream-up-to``)
  ``rockskills dream --offline --plan-out``: wall clock and peak memory of the process;
- with ``--baseline-src DIR`` (a folder holding an earlier ``rockskills_gui`` package, e.g.
  ``git archive HEAD rockskills_gui | tar -x -C DIR``), the same dream run by that code right
  after ours, and whether the two plan files are byte-identical (``createdAt`` aside).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.bench_recall import Generator, zipf_words  # noqa: E402

TARGET_100K_S = 60.0
STOP = "the a to of and in for with on is it you this that be as from by or if when each then".split()
SUFFIXES = ("copy", "old", "new", "v2", "draft", "alt", "fast", "safe", "2024", "backup")
NOW = "2026-11-22T12:00:00+00:00"


# ---------------------------------------------------------------- generating a library


class Families(Generator):
    """Reproducible near-identical skills, family by family (names and summaries as
    ``bench_recall``'s generator makes them)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.jargon_cum = list(itertools.accumulate(self.jargon_weights))
        self.topics = zipf_words(self.rng, 200_000)
        self.topic_cum = list(itertools.accumulate(1.0 / (i + 1) ** 0.8 for i in range(200_000)))

    def jargon_word(self) -> str:
        return self.rng.choices(self.jargon, cum_weights=self.jargon_cum)[0]  # the sums once

    def sentence(self, topic: list[str]) -> str:
        from tests.benchmarks.bench_recall import VERBS

        r = self.rng
        words = []
        for _ in range(r.randint(5, 14)):
            x = r.random()
            words.append(r.choice(STOP) if x < 0.3 else self.pick(VERBS) if x < 0.45 else r.choice(topic))
        return " ".join(words).capitalize() + "."

    def content(self, name: str, summary: str, topic: list[str]) -> str:
        from tests.benchmarks.bench_recall import VERBS

        r = self.rng
        steps = "\n".join(f"{i}. {self.sentence(topic)}" for i in range(1, r.randint(3, 10)))
        parts = [f"# {name}", "", "## When to use", summary + ".", "", "## Steps", steps]
        if r.random() < 0.5:
            parts += ["", "## Example", "```bash",
                      f"{r.choice(topic)} {self.pick(VERBS)} --{self.noun()} {r.choice(topic)}", "```"]
        if r.random() < 0.6:
            parts += ["", "## Pitfalls"] + [f"- {self.sentence(topic)}" for _ in range(r.randint(1, 5))]
        if r.random() < 0.3:
            parts += ["", "## Notes", " ".join(self.sentence(topic) for _ in range(r.randint(2, 8)))]
        return "\n".join(parts) + "\n"

    def library(self, size: int) -> list[tuple[str, str, str]]:
        """``(name, summary, content)``, unique names, families together."""
        r = self.rng
        seen: set[str] = set()
        out: list[tuple[str, str, str]] = []
        while len(out) < size:
            name = self.name()
            if name.lower() in seen:
                name = f"{name}-{len(out)}"
            seen.add(name.lower())
            summary = self.summary()
            topic = r.choices(self.topics, cum_weights=self.topic_cum, k=40)
            text = self.content(name, summary, topic)
            out.append((name, summary, text))
            for _ in range(min(r.choice((0, 0, 1, 2, 3, 4)), size - len(out))):
                variant = f"{name}-{r.choice(SUFFIXES)}"
                while variant.lower() in seen:
                    variant = f"{variant}-{r.choice(SUFFIXES)}"
                seen.add(variant.lower())
                words = summary.split()
                k = r.random()
                if k < 0.4:
                    changed = summary
                elif k < 0.7:
                    words[r.randrange(len(words))] = self.noun()
                    changed = " ".join(words)
                else:
                    changed = f"{summary} {r.choice(('quickly', 'safely', 'in bulk', 'for the team'))}"
                lines = text.split("\n")
                if r.random() < 0.5:
                    lines.insert(r.randrange(6, len(lines)), f"- {self.sentence(topic)}")
                out.append((variant, changed, "\n".join(lines)))
        return out


def generate(agent: Path, size: int, seed: int = 20261122) -> None:
    """Write ``size`` skill files under ``agent``."""
    from rockskills_gui.core.model.skill import Skill, skill_to_bytes
    from rockskills_gui.core.model.timestamps import Timestamp
    from rockskills_gui.core.storage.layout import Layout

    now = Timestamp.parse(NOW)
    rng = random.Random(seed)
    layout = Layout(agent, agent / "skills")
    folders: set[Path] = set()
    for name, summary, content in Families(seed).library(size):
        created = now.add_days(-rng.uniform(8, 300))
        skill = Skill(name=name, summary=summary, content=content, created_at=created,
                      updated_at=created.add_days(rng.uniform(0, 7)), last_used_at=None)
        path = layout.path_for(name)
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_bytes(skill_to_bytes(skill))
    (agent / ".bench-near-duplicates").write_text(str(size))


def ensure_library(base: Path, size: int) -> Path:
    agent = base / f"agent-{size}"
    marker = agent / ".bench-near-duplicates"
    if not (marker.is_file() and marker.read_text() == str(size)):
        shutil.rmtree(agent, ignore_errors=True)
        start = time.perf_counter()
        generate(agent, size)
        print(f"generated {size:,} skills in {time.perf_counter() - start:.1f} s under {agent}",
              flush=True)
    return agent


# ---------------------------------------------------------------- one measurement (child process)


def child(what: str, agent: Path, old: bool) -> dict[str, object]:
    """Time ``what`` (``lint`` or ``dream``) in this process, and the old algorithm with ``old``."""
    from rockskills_gui.core.dream.offline import is_starter, similar_pairs
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary
    from rockskills_gui.core.lint.linter import near_duplicates
    from tests.core.test_near_duplicates import reference_near_duplicates, reference_similar_pairs

    skills = RockBotLibrary.open(agent).skills()
    result: dict[str, object] = {}
    if what == "lint":
        start = time.perf_counter()
        new = sorted(near_duplicates(skills))
        result["new_s"] = time.perf_counter() - start
        result["pairs"] = len(new)
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if old:
            start = time.perf_counter()
            before = sorted(reference_near_duplicates(skills))
            result["old_s"] = time.perf_counter() - start
            result["equal"] = before == new
    else:
        skills = [s for s in skills if not is_starter(s.name)]
        start = time.perf_counter()
        pairs = [(v, a.name, b.name) for v, a, b in similar_pairs(skills)]
        result["new_s"] = time.perf_counter() - start
        result["pairs"] = len(pairs)
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if old:
            start = time.perf_counter()
            before = [(v, a.name, b.name) for v, a, b in reference_similar_pairs(skills)]
            result["old_s"] = time.perf_counter() - start
            result["equal"] = before == pairs
    return result


# ---------------------------------------------------------------- driver


def run(cmd: list[str], cwd: Path = REPO) -> tuple[float, float, str]:
    """Wall clock (s) and peak memory (MB) of a command; its stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, cwd=str(cwd),
                                env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        err = proc.stderr.read().decode() if proc.stderr else ""
        out.seek(0)
        text = out.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({code}):\n{err[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, text


def measure(what: str, agent: Path, old: bool) -> dict[str, object]:
    cmd = [sys.executable, str(HERE), "--child", what, "--agent", str(agent)] + (["--old"] if old else [])
    return json.loads(run(cmd)[2].strip().splitlines()[-1])


def cli(args: list[str], src: Path | None = None) -> tuple[float, float]:
    """Wall clock and peak memory of ``rockskills ARGS`` (the package in ``src`` when given)."""
    if src is None:
        seconds, peak, _out = run([str(Path(sys.executable).parent / "rockskills"), *args])
    else:
        seconds, peak, _out = run([sys.executable, "-m", "rockskills_gui.cli", *args], cwd=src)
    return seconds, peak


_CREATED = re.compile(rb'"createdAt": "[^"]*"')


def same_plan(a: Path, b: Path) -> bool:
    """The two plan files are byte-identical once their first ``createdAt`` (the run's clock) is
    set aside."""
    return _CREATED.sub(b"", a.read_bytes(), count=1) == _CREATED.sub(b"", b.read_bytes(), count=1)


def dream(agent: Path, baseline: Path | None) -> tuple[float, float, float, float, str]:
    """``dream --offline`` end to end: seconds and peak MB, the baseline's, and whether the plans
    are the same."""
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = Path(tmp) / "plan.json", Path(tmp) / "baseline.json"
        args = ["dream", str(agent), "--offline", "--now", NOW, "--plan-out"]
        seconds, peak = cli([*args, str(ours)])
        if baseline is None:
            return seconds, peak, float("nan"), float("nan"), "-"
        base_seconds, base_peak = cli([*args, str(theirs)], src=baseline)
        return seconds, peak, base_seconds, base_peak, str(same_plan(ours, theirs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,5000,100000")
    parser.add_argument("--old-up-to", type=int, default=5000, help="run the old algorithms up to")
    parser.add_argument("--cli-dream-up-to", type=int, default=5000,
                        help="run `rockskills dream --offline` end to end up to this size")
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp"))
                        / "rockskills-bench-near-duplicates")
    parser.add_argument("--baseline-src", type=Path,
                        help="also run the dream CLI with the rockskills_gui package in this folder")
    parser.add_argument("--child", choices=("lint", "dream"), help=argparse.SUPPRESS)
    parser.add_argument("--agent", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--old", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.agent, args.old)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    agents = {size: ensure_library(args.dir, size) for size in sizes}
    print(f"CPUs: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    header = ("skills", "what", "old s", "new s", "speed-up", "pairs", "same", "new peak MB",
              "CLI s", "CLI peak MB", "base CLI s", "base peak MB", "same plan")
    rows: list[tuple[str, ...]] = []
    verdicts: list[str] = []
    for size in sizes:
        agent = agents[size]
        old = size <= args.old_up_to
        for what in ("lint", "dream"):
            m = measure(what, agent, old)
            base_seconds = base_peak = float("nan")
            same = "-"
            if what == "lint":
                seconds, peak = cli(["lint", str(agent), "--all"])
            elif size <= args.cli_dream_up_to:
                seconds, peak, base_seconds, base_peak, same = dream(agent, args.baseline_src)
            else:
                seconds = peak = float("nan")
            rows.append((f"{size:,}", what, f"{m['old_s']:.2f}" if old else "-", f"{m['new_s']:.2f}",
                         f"{m['old_s'] / m['new_s']:.0f}×" if old else "-", f"{m['pairs']:,}",
                         str(m.get("equal", "-")), f"{m['peak_mb']:,.0f}",
                         "-" if seconds != seconds else f"{seconds:.1f}",
                         "-" if peak != peak else f"{peak:,.0f}",
                         "-" if base_seconds != base_seconds else f"{base_seconds:.1f}",
                         "-" if base_peak != base_peak else f"{base_peak:,.0f}", same))
            print("  ".join(rows[-1]), flush=True)
            if old and not m["equal"]:
                verdicts.append(f"{size:,} {what}: the new result DIFFERS from the old one")
            if same == "False":
                verdicts.append(f"{size:,} {what}: the plan DIFFERS from the baseline's")
            if size >= 100_000:
                total = seconds if seconds == seconds else float(m["new_s"])  # type: ignore[arg-type]
                label = "end to end" if seconds == seconds else "the search alone (CLI not run)"
                verdicts.append(f"{size:,} {what} ≤ {TARGET_100K_S:.0f} s, {label}: {total:.1f} s "
                                f"{'OK' if total <= TARGET_100K_S else 'MISSED'}")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, *rows]:
        print("  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in
                        enumerate(zip(row, widths, strict=True))))
    print("old/new s: the search alone, in process (lint: near_duplicates; dream: similar_pairs);\n"
          "new peak MB: the process after the new search (library loaded);\n"
          "same: the new result equals the old one; CLI: the whole command in a fresh process\n"
          "(lint --all; dream --offline --plan-out), '-' where not run; base: the same dream run by\n"
          "--baseline-src, same plan: both plan files byte-identical (createdAt aside).")
    for line in verdicts:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
