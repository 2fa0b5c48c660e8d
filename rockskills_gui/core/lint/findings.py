"""A lint finding: a stable ``kind`` id, a severity and the 1-based line of the file it points at."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model.problems import Problem

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One lint result."""

    path: str
    kind: str
    message: str
    severity: str = "warning"
    line: int | None = None
    name: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "message": self.message,
                "severity": self.severity, "line": self.line}


def from_problem(problem: Problem) -> Finding:
    return Finding(problem.path, problem.kind.value, problem.message, problem.severity,
                   problem.line, problem.name)


def fails(findings: Iterable[Finding]) -> bool:
    """True when any finding is an error or a warning (the CLI's exit 1)."""
    return any(f.severity in ("error", "warning") for f in findings)
