"""One set of lint checks for every format, shared by the CLI and the problems panel.

Each :class:`Finding` has a stable ``kind`` id, a severity (``error``, ``warning``, ``info``) and
the 1-based line of the file it points at. Files that could not be loaded keep their problem
kinds (``parse-error``, ``missing-description``, ...). The checks: the format's own rules
(Agent Skills spec and quick_validate extras), RockBot's name rules, summary length, sparse
skills, dangling or self see-also, near-duplicates (RockBot's BM25 recall between skills),
unreachable skills (no token of 3+ characters), and an advisory content scan for
prompt-injection and supply-chain markers. Nothing is ever executed; nothing is written.

Here: the run over a library. :mod:`.findings` holds the finding, :mod:`.skill_checks` each
skill's own checks, :mod:`.duplicates` the near-duplicate join, :mod:`.content_scan` the content
markers; their public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.lint.content_scan import BASE64_MIN as BASE64_MIN
from rockskills_gui.core.lint.content_scan import CONTENT_RULES as CONTENT_RULES
from rockskills_gui.core.lint.content_scan import scan_text as scan_text
from rockskills_gui.core.lint.duplicates import NEAR_DUPLICATE_OVERLAP as NEAR_DUPLICATE_OVERLAP
from rockskills_gui.core.lint.duplicates import NEAR_DUPLICATE_RATIO as NEAR_DUPLICATE_RATIO
from rockskills_gui.core.lint.duplicates import near_duplicates as near_duplicates
from rockskills_gui.core.lint.findings import SEVERITIES as SEVERITIES
from rockskills_gui.core.lint.findings import Finding as Finding
from rockskills_gui.core.lint.findings import fails as fails
from rockskills_gui.core.lint.findings import from_problem as from_problem
from rockskills_gui.core.lint.skill_checks import BODY_MAX_LINES as BODY_MAX_LINES
from rockskills_gui.core.lint.skill_checks import NAME_MAX as NAME_MAX
from rockskills_gui.core.lint.skill_checks import SUMMARY_MAX_WORDS as SUMMARY_MAX_WORDS
from rockskills_gui.core.lint.skill_checks import Where, per_skill
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.timestamps import Timestamp


def lint_library(lib: Library, now: Timestamp | None = None,
                 extra_problems: Iterable[Problem] = ()) -> list[Finding]:
    """Every finding for ``lib``: load problems first, then per-skill checks, then duplicates."""
    now = now or Timestamp.now()
    findings = [from_problem(p) for p in (*lib.problems, *extra_problems)]
    findings.extend(from_problem(w) for w in lib.warnings)
    skills = lib.skills()
    wheres: dict[str, Where] = {}
    findings.extend(per_skill(lib, skills, now, wheres))
    for a, b, similarity in near_duplicates(skills):
        for one, other in ((a, b), (b, a)):
            where = wheres[fold(one)]
            findings.append(Finding(where.path, "near-duplicate",
                                    f"recall can hardly tell it from '{other}' (similarity {similarity:.0%} "
                                    "over name and summary): merge them or sharpen the summaries",
                                    "info", where.field_lines.get("summary"), one))
    return findings


def skill_marks(lib: Library, now: Timestamp | None = None) -> dict[str, list[str]]:
    """Warning-or-worse messages of each skill's own checks, by folded name (the tree's marks)."""
    marks: dict[str, list[str]] = {}
    for f in per_skill(lib, lib.skills(), now or Timestamp.now(), {}):
        if f.name is not None and f.severity in ("error", "warning"):
            marks.setdefault(fold(f.name), []).append(f"{f.kind}: {f.message}")
    return marks
