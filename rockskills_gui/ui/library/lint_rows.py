"""The Problems dock's lint group: the findings it shows and their table (a :class:`RowModel`).

:func:`lint_findings` runs on a worker thread; the linter (numpy) is imported there, never at
startup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QStyle

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.ui.common.models import NAME_ROLE, Column, RowModel

if TYPE_CHECKING:
    from rockskills_gui.core.lint.linter import Finding
else:
    Finding = object  # the linter imports numpy: only the worker thread loads it

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
# (label, severities shown)
SEVERITY_FILTERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("All severities", frozenset(SEVERITY_ORDER)),
    ("Errors and warnings", frozenset({"error", "warning"})),
    ("Errors only", frozenset({"error"})),
)
_ICONS = {"error": QStyle.StandardPixmap.SP_MessageBoxCritical,
          "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
          "info": QStyle.StandardPixmap.SP_MessageBoxInformation}


def _order(finding: Finding) -> tuple[int, str, str, int]:
    return (SEVERITY_ORDER.get(finding.severity, 3), fold(finding.name or ""), finding.path,
            finding.line or 0)


def lint_findings(library: Library) -> list[Finding]:
    """What ``rockskills lint`` finds in ``library`` beyond its load problems (the dock lists
    those apart), errors first, then by skill. Runs on a worker thread."""
    from rockskills_gui.core.lint.linter import from_problem, lint_library

    with gc_paused():  # a full collection of a big heap would hold the GIL: the UI would stall
        loaded = {from_problem(p) for p in library.problems}
        found = [f for f in lint_library(library) if f not in loaded]
        return sorted(found, key=_order)


def lint_summary(findings: Sequence[Finding]) -> str:
    """'2 errors, 5 warnings, 10 info' (the kinds present), or 'nothing to report'."""
    counts = {s: 0 for s in SEVERITY_ORDER}
    for finding in findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    parts = [f"{n:,} {s}" + ("s" if n != 1 and s != "info" else "")
             for s, n in counts.items() if n]
    return ", ".join(parts) or "nothing to report"


def _where(finding: Finding) -> str:
    return finding.path + (f":{finding.line}" if finding.line else "")


def _tip(finding: Finding) -> str:
    return f"{_where(finding)}\n{finding.severity} · {finding.kind}: {finding.message}"


def _severity_icon(finding: Finding) -> object:
    pixmap = _ICONS.get(finding.severity)
    return QApplication.style().standardIcon(pixmap) if pixmap is not None else None


def _bold_errors(finding: Finding) -> object:
    if finding.severity != "error":
        return None
    font = QFont()
    font.setBold(True)
    return font


class LintModel(RowModel[Finding]):
    """Lint findings: severity (icon, errors bold), skill, kind, message; sortable by column."""

    SEVERITY, SKILL, KIND, MESSAGE = range(4)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__((
            Column("Severity", lambda f: f.severity, sort_key=_order,
                   roles={Qt.ItemDataRole.DecorationRole: _severity_icon,
                          Qt.ItemDataRole.FontRole: _bold_errors}),
            Column("Skill", lambda f: f.name or "", sort_key=lambda f: (fold(f.name or ""), _order(f)),
                   tooltip=lambda f: f"{f.name or '(no skill)'}\n{_where(f)}"),
            Column("Kind", lambda f: f.kind, sort_key=lambda f: (f.kind, _order(f))),
            Column("Message", lambda f: f.message, sort_key=lambda f: (f.message, _order(f))),
        ), parent, roles={NAME_ROLE: lambda f: f.name}, tooltip=_tip)

    def finding_at(self, row: int) -> Finding | None:
        return self.row_at(row)
