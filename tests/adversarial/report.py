"""Run every adversarial attack (issue #14) and print a table: attack, trials, failures, time.

    .venv/bin/python tests/adversarial/report.py [--trials N] [--only WORD] [--seconds S]

Each ``attacks_*.py`` module beside this file exports ``ATTACKS``: ``(title, attack)`` pairs where
``attack(trials, workdir)`` returns ``(trials_run, failures)``. The pytest files run the same
attacks with a few trials; this script runs more and prints the reasons of any failure. Exit 1
when any attack failed. Runs with private config/data folders (never the user's own).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

MODULES = ("attacks_journal", "attacks_files", "attacks_dream")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="trials per attack (default 10)")
    parser.add_argument("--only", default="", help="run only attacks whose title contains this")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="length of each concurrent-writer trial (default 5 s)")
    args = parser.parse_args()
    private = Path(tempfile.mkdtemp(prefix="rockskills-adversarial-"))
    os.environ["ROCKSKILLS_CONFIG_DIR"] = str(private / "config")
    os.environ["ROCKSKILLS_DATA_DIR"] = str(private / "data")
    os.environ.pop("ROCKSKILLS_API_KEY", None)
    rows: list[tuple[str, int, int, float]] = []
    reasons: list[str] = []
    for name in MODULES:
        module = importlib.import_module(f"tests.adversarial.{name}")
        for title, attack in module.ATTACKS:
            if args.only.lower() not in title.lower():
                continue
            workdir = Path(tempfile.mkdtemp(prefix="attack-", dir=private))
            failures = getattr(module, "FAILURES", None)
            if failures is None:
                failures = module.REASONS
            failures.clear()
            started = time.perf_counter()
            if attack.__name__ in ("attack_rename_writer", "attack_inplace_writer"):
                ran, failed = attack(args.trials, workdir, args.seconds)
                title = title.replace("2 s", f"{args.seconds:g} s")
            else:
                ran, failed = attack(args.trials, workdir)
            rows.append((title, ran, failed, time.perf_counter() - started))
            found = [r for rs in failures.values() for r in rs] if isinstance(failures, dict) \
                else list(failures)
            reasons.extend(found[:5])
            print(f"  {title}: {failed} of {ran} failed", file=sys.stderr, flush=True)
    print("| attack | trials | failures | time |")
    print("|---|---:|---:|---:|")
    for title, ran, failed, seconds in rows:
        print(f"| {title} | {ran} | {failed} | {seconds:.0f} s |")
    for reason in reasons:
        print(f"- {reason}")
    return 1 if any(failed for _, _, failed, _ in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
