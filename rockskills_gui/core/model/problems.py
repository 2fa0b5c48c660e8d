"""Problems found while opening a library: files left untouched, with a reason."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rockskills_gui.core.model.record import ImmutableRecord


class ProblemKind(StrEnum):
    """Stable identifiers (scripts match on them)."""

    UNREADABLE = "unreadable"
    INVALID_UTF8 = "invalid-utf8"
    PARSE_ERROR = "parse-error"
    MISSING_NAME = "missing-name"
    INVALID_NAME = "invalid-name"
    NAME_MISMATCH = "name-mismatch"
    CASE_COLLISION = "case-collision"
    MALFORMED_LINES = "malformed-lines"
    # SKILL.md stores (issue 7)
    NO_FRONTMATTER = "no-frontmatter"
    MISSING_DESCRIPTION = "missing-description"
    DUPLICATE_NAME = "duplicate-name"
    DISABLED = "disabled"
    NESTED_SKILL = "nested-skill"  # a skill file inside another skill's folder: one of its files
    NOT_DISCOVERED = "not-discovered"  # where the profile's agent never looks (too deep, skipped folder)
    # hostile trees (issue 14)
    NOT_A_FILE = "not-a-file"  # a folder named like a skill file (``x.json``, ``SKILL.md``)
    OUTSIDE_LINK = "outside-link"  # a symbolic link leaving the library (loaded, never written)
    # untrusted input (issue 14)
    UNTRUSTED_JOURNAL = "untrusted-journal"
    # hostile sizes (issue 35): see core/model/size_limits
    TOO_LARGE = "too-large"  # a file over its size limit: not loaded
    TOO_DEEP = "too-deep"  # a folder nested deeper than the walks go: not read


@dataclass(frozen=True, slots=True)
class Problem(ImmutableRecord):
    """One file the core could not load as a skill (or an event log with unreadable lines)."""

    path: str  # relative to the library root, '/'-separated
    kind: ProblemKind
    message: str
    name: str | None = None  # the name RockBot would load the file under, when it has one
    severity: str = "error"
    line: int | None = None  # 1-based line the reason points at, when known

    def __post_init__(self) -> None:
        if type(self.kind) is not ProblemKind:
            object.__setattr__(self, "kind", ProblemKind(self.kind))

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind.value, "message": self.message}
