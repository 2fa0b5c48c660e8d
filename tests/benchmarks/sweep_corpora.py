"""Sweep report: every collection under the shared corpora, opened as a new user would.

Run:  .venv/bin/python tests/benchmarks/sweep_corpora.py [CORPORA_DIR]

Not a pytest module (``tests/core/test_corpora_sweep.py`` asserts the same rows). Opens each folder
directly under ``CORPORA_DIR`` (default ``../shared/corpora``, or ``$ROCKSKILLS_SHARED/corpora``)
through detection, without ``--format`` (see ``tests/corpus_sweep.py``), and prints one row per
collection: the detected format and why, SKILL.md files found, loaded, named in a problem,
unaccounted (must be 0), whether the trip to RockBot and back is byte-exact, the lint warnings
(and errors) by code, top 3, and the time. New collections need no change here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.corpus_sweep import collections, sweep  # noqa: E402

HEADERS = ("collection", "format", "detection reason", "SKILL.md found", "loaded", "problems",
           "unaccounted", "round trip", "lint warnings (top 3)", "time")


def sweep_row(folder: Path) -> tuple[str, ...]:
    try:
        r = sweep(folder)
    except Exception as exc:  # a row says what failed; the sweep goes on
        return (folder.name, "-", f"{type(exc).__name__}: {exc}"[:60], *["-"] * 7)
    return (r.name, r.format, r.reason, str(r.found), str(r.loaded), str(r.problems),
            str(len(r.unaccounted)), "exact" if r.round_trip else "DIFFERS", r.lint,
            f"{r.seconds:.1f} s")


def main() -> int:
    shared = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
    corpora = Path(sys.argv[1]) if len(sys.argv) > 1 else shared / "corpora"
    folders = collections(corpora)
    if not folders:
        print(f"no collections under {corpora}", file=sys.stderr)
        return 1
    rows = [HEADERS, *(sweep_row(f) for f in folders)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(line.format(*rows[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows[1:]:
        print(line.format(*row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
