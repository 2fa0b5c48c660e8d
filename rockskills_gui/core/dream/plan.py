"""A dream plan: typed proposals with evidence, dependencies and findings; saved as JSON.

A plan never changes the library. Proposals are reviewed, a subset is accepted, and ``apply`` writes
that subset as one transaction. Records keep RockBot's timestamp text (100-ns ticks) so a saved
skill is byte-exact.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rockskills_gui.core import fileio
from rockskills_gui.core.skill import Skill
from rockskills_gui.core.timestamps import Timestamp

from .fingerprint import Fingerprint
from .passes import DreamPass

PLAN_FORMAT = "rockskills-dream-plan"
PLAN_VERSION = 1


class ProposalKind(StrEnum):
    CREATE = "create"
    MERGE = "merge"
    REWRITE = "rewrite"
    DELETE = "delete"
    PRUNE = "prune"
    SEE_ALSO = "see-also"


class Severity(StrEnum):
    BLOCK = "block"  # cannot be accepted
    WARN = "warn"    # shown; the user decides
    INFO = "info"


class PassStatus(StrEnum):
    OK = "ok"
    SKIPPED = "skipped"      # RockBot would not run it (reason says why)
    FAILED = "failed"        # the LLM call or the reply failed; nothing from it is proposed
    REFUSED = "refused"      # the safety guard refused the whole result
    CANCELLED = "cancelled"
    PROMPT_ONLY = "prompt-only"


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="ignore")


class Finding(_Model):
    """A rule a proposal breaks or a risk it carries."""

    code: str
    severity: Severity
    message: str


class Evidence(_Model):
    """Why a proposal was made: usage, co-use, sparse, cluster, failure, feedback, terms, ..."""

    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class SkillRecord(_Model):
    """A skill as RockBot writes it (camelCase, timestamps as RockBot's text)."""

    name: str
    summary: str | None = ""
    content: str | None = ""
    created_at: str = Field(alias="createdAt")
    updated_at: str | None = Field(default=None, alias="updatedAt")
    last_used_at: str | None = Field(default=None, alias="lastUsedAt")
    see_also: list[str] | None = Field(default=None, alias="seeAlso")

    @classmethod
    def of(cls, skill: Skill) -> SkillRecord:
        return cls(name=skill.name, summary=skill.summary, content=skill.content,
                   created_at=skill.created_at.isoformat(),
                   updated_at=skill.updated_at.isoformat() if skill.updated_at else None,
                   last_used_at=skill.last_used_at.isoformat() if skill.last_used_at else None,
                   see_also=list(skill.see_also) if skill.see_also is not None else None)

    def skill(self) -> Skill:
        return Skill(name=self.name, summary=self.summary, content=self.content,
                     created_at=Timestamp.parse(self.created_at),
                     updated_at=Timestamp.parse(self.updated_at) if self.updated_at else None,
                     last_used_at=Timestamp.parse(self.last_used_at) if self.last_used_at else None,
                     see_also=tuple(self.see_also) if self.see_also is not None else None)


class Proposal(_Model):
    """One reviewable change.

    ``record`` is the skill it saves (create, merge, rewrite, see-also); ``sources`` the skills it
    merges or rewrites; ``replaces`` existing skills whose file the save overwrites (same name,
    case-insensitively); ``deletes`` what it deletes (delete, prune). ``depends_on``: proposals it
    needs (a merge's source deletions need the merge); ``conflicts_with``: alternatives that change
    the same skill from the same starting point (offline proposals), never accepted together.
    ``before`` holds the skills it reads or changes as they were when proposed (for diffs),
    ``touched`` the sha256 of each file it reads or writes as it was on disk (None = absent), for
    re-checking a changed library.
    """

    id: str
    kind: ProposalKind
    dream_pass: DreamPass = Field(alias="pass")
    title: str
    record: SkillRecord | None = None
    sources: list[str] = Field(default_factory=list)
    replaces: list[str] = Field(default_factory=list)
    deletes: list[str] = Field(default_factory=list)
    before: dict[str, SkillRecord] = Field(default_factory=dict)
    touched: dict[str, str | None] = Field(default_factory=dict)
    evidence: list[Evidence] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list, alias="dependsOn")
    conflicts_with: list[str] = Field(default_factory=list, alias="conflictsWith")
    findings: list[Finding] = Field(default_factory=list)
    offline: bool = False
    advisory: bool = False  # shown for review only: nothing to apply

    @property
    def blocked(self) -> bool:
        return any(f.severity is Severity.BLOCK for f in self.findings)

    @property
    def acceptable(self) -> bool:
        return not self.advisory and not self.blocked

    def add(self, code: str, severity: Severity, message: str) -> None:
        if not any(f.code == code and f.message == message for f in self.findings):
            self.findings.append(Finding(code=code, severity=severity, message=message))

    def written_names(self) -> list[str]:
        """Names whose file this proposal writes or removes."""
        names = list(self.deletes) + list(self.replaces)
        if self.record is not None:
            names.append(self.record.name)
        return names


class PassRecord(_Model):
    """One pass of a run: its prompts, the reply, and what became of it."""

    dream_pass: DreamPass = Field(alias="pass")
    status: PassStatus
    reason: str | None = None
    directive_source: str | None = Field(default=None, alias="directiveSource")
    directive_path: str | None = Field(default=None, alias="directivePath")
    system: str | None = None
    user: str | None = None
    model: str | None = None
    base_url: str | None = Field(default=None, alias="baseUrl")
    json_mode: bool | None = Field(default=None, alias="jsonMode")
    raw_reply: str | None = Field(default=None, alias="rawReply")
    errors: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    elapsed: float | None = None
    proposals: list[str] = Field(default_factory=list)


class Plan(_Model):
    """Everything a dream proposed, for review now or later, here or elsewhere."""

    format: Literal["rockskills-dream-plan"] = PLAN_FORMAT
    version: int = PLAN_VERSION
    created_at: str = Field(alias="createdAt")
    now: str
    library: str
    fingerprint: Fingerprint
    protected_prefixes: list[str] = Field(default_factory=list, alias="protectedPrefixes")
    offline: bool = False
    passes: list[PassRecord] = Field(default_factory=list)
    proposals: list[Proposal] = Field(default_factory=list)

    # ---------------------------------------------------------------- lookups

    def get(self, proposal_id: str) -> Proposal:
        for proposal in self.proposals:
            if proposal.id == proposal_id:
                return proposal
        raise KeyError(proposal_id)

    def ids(self) -> list[str]:
        return [p.id for p in self.proposals]

    def requires(self, proposal_id: str) -> list[str]:
        """Every proposal ``proposal_id`` depends on, transitively (plan order)."""
        seen: set[str] = set()
        stack = list(self.get(proposal_id).depends_on)
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.get(current).depends_on)
        return [i for i in self.ids() if i in seen]

    def dependents(self, proposal_id: str) -> list[str]:
        """Every proposal that depends on ``proposal_id``, transitively (to uncheck with it)."""
        return [p.id for p in self.proposals if proposal_id in self.requires(p.id)]

    def acceptable_ids(self) -> list[str]:
        """What "accept all" accepts: in plan order, every proposal that is not advisory or
        blocked, whose dependencies are accepted, and that conflicts with nothing accepted before."""
        accepted: list[str] = []
        for proposal in self.proposals:
            if not proposal.acceptable or any(d not in accepted for d in proposal.depends_on):
                continue
            if any(c in accepted for c in proposal.conflicts_with):
                continue
            accepted.append(proposal.id)
        return accepted

    # ---------------------------------------------------------------- files

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2) + "\n"

    def save(self, path: Path) -> None:
        fileio.atomic_write(Path(path), self.to_json().encode("utf-8"))

    @classmethod
    def from_json(cls, text: str) -> Plan:
        return cls.model_validate_json(text)

    @classmethod
    def load(cls, path: Path) -> Plan:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))
