"""One collection swept as a new user would meet it: opened through detection (no ``--format``),
every ``SKILL.md`` accounted for (loaded, or named in a problem), converted to RockBot and back.
Shared by ``tests/benchmarks/sweep_corpora.py`` (the table) and ``tests/core/test_corpora_sweep.py``
(the assertions); new collections need no change in either."""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.convert.run import convert
from rockskills_gui.core.library.formats import detect
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.lint.linter import lint_library

SKIP_DIRS = {".git"}


@dataclass(frozen=True)
class SweepRow:
    """What one collection gave."""

    name: str
    format: str
    reason: str
    found: int  # SKILL.md files below the folder (not in .git)
    loaded: int  # of them, loaded as skills
    problems: int  # of them, named in a problem
    unaccounted: tuple[str, ...]  # neither: must be empty
    round_trip: bool  # to RockBot and back: every SKILL.md byte for byte
    lint: str  # warnings and errors by code, top 3
    seconds: float


def skill_md_files(root: Path) -> dict[str, bytes]:
    """``relative path -> bytes`` of every SKILL.md below ``root`` (``.git`` left out)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("SKILL.md"))
            if p.is_file() and not SKIP_DIRS & set(p.relative_to(root).parts)}


def sweep(folder: Path) -> SweepRow:
    """Open, account for, lint and round-trip one collection (never writes inside it)."""
    start = time.perf_counter()
    reason = detect(folder).reason
    lib = open_library(folder)
    files = skill_md_files(folder)
    loaded = {lib.layout.display_path(lib.skill_path(s.name)) for s in lib.skills()}
    listed = {p.path for p in lib.problems}
    unaccounted = tuple(sorted(set(files) - loaded - listed))
    codes = Counter(f.kind for f in lint_library(lib) if f.severity in ("error", "warning"))
    with tempfile.TemporaryDirectory() as tmp:
        convert(lib, Path(tmp) / "rockbot", "rockbot")
        back = Path(tmp) / "back"
        convert(open_library(Path(tmp) / "rockbot"), back, lib.format)
        round_trip = skill_md_files(back) == files  # nested ones travel as resources
    return SweepRow(folder.name, lib.format, reason, len(files), len(set(files) & loaded),
                    len(set(files) & listed), unaccounted, round_trip,
                    ", ".join(f"{kind} {n}" for kind, n in codes.most_common(3)) or "none",
                    time.perf_counter() - start)


def collections(corpora: Path) -> list[Path]:
    return sorted(p for p in corpora.iterdir() if p.is_dir() and not p.name.startswith("."))
