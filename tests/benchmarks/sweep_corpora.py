"""Sweep report: every collection under the shared corpora, opened as a new user would.

Run:  .venv/bin/python tests/benchmarks/sweep_corpora.py [CORPORA_DIR]

Not a pytest module. Opens each folder directly under ``CORPORA_DIR`` (default
``../shared/corpora``, or ``$ROCKSKILLS_SHARED/corpora``) through detection, without
``--format``, lints it, and prints one table row per collection: the detected format and why,
the skills loaded, the problems reported, and the lint warnings (and errors) by code, top 3.
New collections need no change here.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rockskills_gui.core.library.formats import detect, open_library  # noqa: E402
from rockskills_gui.core.lint.linter import lint_library  # noqa: E402

HEADERS = ("collection", "format", "detection reason", "skills", "problems", "lint warnings (top 3)",
           "time")


def sweep(folder: Path) -> tuple[str, ...]:
    start = time.perf_counter()
    try:
        found = detect(folder)
        lib = open_library(folder)
    except Exception as exc:  # a row says what failed; the sweep goes on
        return (folder.name, "-", f"{type(exc).__name__}: {exc}"[:60], "-", "-", "-", "-")
    findings = lint_library(lib)
    codes = Counter(f.kind for f in findings if f.severity in ("error", "warning"))
    top = ", ".join(f"{kind} {n}" for kind, n in codes.most_common(3)) or "none"
    return (folder.name, lib.format, found.reason, str(len(lib)), str(len(lib.problems)), top,
            f"{time.perf_counter() - start:.1f} s")


def main() -> int:
    shared = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
    corpora = Path(sys.argv[1]) if len(sys.argv) > 1 else shared / "corpora"
    folders = sorted(p for p in corpora.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        print(f"no collections under {corpora}", file=sys.stderr)
        return 1
    rows = [HEADERS, *(sweep(f) for f in folders)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(line.format(*rows[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows[1:]:
        print(line.format(*row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
