"""A dream plan: typed proposals with evidence, dependencies and findings; saved as JSON.

A plan never changes the library. Proposals are reviewed, a subset is accepted, and ``apply`` writes
that subset as one transaction. Records keep RockBot's timestamp text (100-ns ticks) so a saved
skill is byte-exact.

A plan file is untrusted input (anyone can edit it): loading checks types, timestamps, proposal ids
and references, and that every file a proposal read lies inside ``skills/``, and reports the first
problem as one line (:class:`PlanFileError`). Names are not judged here: a plan may hold the
blocked proposal for a name RockBot refuses; ``apply`` checks everything again.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from rockskills_gui.core.dream.fingerprint import Fingerprint
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage import fileio

PLAN_FORMAT: Final = "rockskills-dream-plan"
PLAN_VERSION = 1
MAX_PATH_TEXT = 4096
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class PlanFileError(ValueError):
    """A plan file that cannot be used: one readable line saying where and why."""


def touched_path_error(path: str) -> str | None:
    """Why ``path`` (a proposal's ``touched`` key) is not a skill file's path relative to the
    library folder (``skills/…`` for RockBot, ``<root>/<folder>/SKILL.md`` for SKILL.md), or None."""
    parts = path.split("/")
    if len(path) > MAX_PATH_TEXT or "\0" in path or "\\" in path or parts[0] == ".rockskills" \
            or len(parts) < 2 or any(p in ("", ".", "..") for p in parts):
        return f"'{display_name(path)}' is not a file in the skills folder"
    return None


class ProposalKind(StrEnum):
    CREATE = "create"
    MERGE = "merge"
    REWRITE = "rewrite"
    DELETE = "delete"
    PRUNE = "prune"
    SEE_ALSO = "see-also"
    MCP_REFRESH = "mcp-refresh"  # a stale mcp/ skill rewritten (or re-verified) with a new baseline


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

    @field_validator("created_at", "updated_at", "last_used_at")
    @classmethod
    def _timestamp(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Timestamp.parse(value)
            except (TimestampError, ValueError):
                raise ValueError(f"'{display_name(value, 40)}' is not a timestamp") from None
        return value

    @classmethod
    def of(cls, skill: Skill) -> SkillRecord:
        # A Skill is already validated and Timestamp.isoformat() is the text Timestamp.parse reads
        # back, so the record is built without validating it again (a dream makes one per proposal
        # and per skill it touches). Every field is given: fields_set is the same as cls(...)'s.
        return cls.model_construct(
            name=skill.name, summary=skill.summary, content=skill.content,
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
    # an mcp-refresh proposal's new surfaceBaseline (the record's other unmodelled properties
    # are the library's): string or null fields, as SkillSurfaceBaseline writes them
    surface_baseline: dict[str, str | None] | None = Field(default=None, alias="surfaceBaseline")
    # whether the review starts it ticked, and why (core.dream.preselect; made again on load)
    preselected: bool = False
    preselect_reason: str = Field(default="", alias="preselectReason")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.fullmatch(value):
            raise ValueError(f"'{display_name(value, 40)}' is not a proposal id (letters, digits, "
                             "'-', '_', '.'; at most 64)")
        return value

    @field_validator("touched")
    @classmethod
    def _touched(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        for path in value:
            problem = touched_path_error(path)
            if problem is not None:
                raise ValueError(problem)
        return value

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
    library_format: str = Field(default="rockbot", alias="libraryFormat")  # core.library.formats
    fingerprint: Fingerprint
    protected_prefixes: list[str] = Field(default_factory=list, alias="protectedPrefixes")
    offline: bool = False
    passes: list[PassRecord] = Field(default_factory=list)
    proposals: list[Proposal] = Field(default_factory=list)
    # (the list indexed, its length then, proposals by id): ``get`` in O(1)
    _index: tuple[list[Proposal], int, dict[str, Proposal]] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _references(self) -> Plan:
        known: set[str] = set()
        for proposal in self.proposals:
            if proposal.id in known:
                raise ValueError(f"the proposal id '{proposal.id}' is used twice")
            known.add(proposal.id)
        for proposal in self.proposals:
            for other in [*proposal.depends_on, *proposal.conflicts_with]:
                if other not in known:
                    raise ValueError(f"proposal {proposal.id} refers to '{display_name(other, 40)}', "
                                     "which is not a proposal of this plan")
        return self

    # ---------------------------------------------------------------- lookups

    def get(self, proposal_id: str) -> Proposal:
        """The proposal ``proposal_id`` (KeyError when there is none): a dictionary lookup."""
        index = self._index
        if index is None or index[0] is not self.proposals or index[1] != len(self.proposals):
            index = self._reindex()
        found = index[2].get(proposal_id)
        if found is None or found.id != proposal_id:  # changed in place since: look once more
            found = self._reindex()[2].get(proposal_id)
            if found is None:
                raise KeyError(proposal_id)
        return found

    def _reindex(self) -> tuple[list[Proposal], int, dict[str, Proposal]]:
        self._index = (self.proposals, len(self.proposals),
                       {p.id: p for p in reversed(self.proposals)})  # the first of an id wins
        return self._index

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
        needed_by: dict[str, list[str]] = {}
        for proposal in self.proposals:
            for needed in proposal.depends_on:
                needed_by.setdefault(needed, []).append(proposal.id)
        seen: set[str] = set()
        stack = list(needed_by.get(proposal_id, ()))
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(needed_by.get(current, ()))
        return [i for i in self.ids() if i in seen]

    def acceptable_ids(self) -> list[str]:
        """What "accept all" accepts: in plan order, every proposal that is not advisory or
        blocked, whose dependencies are accepted, and that conflicts with nothing accepted before."""
        accepted: list[str] = []
        seen: set[str] = set()
        for proposal in self.proposals:
            if not proposal.acceptable or any(d not in seen for d in proposal.depends_on):
                continue
            if any(c in seen for c in proposal.conflicts_with):
                continue
            accepted.append(proposal.id)
            seen.add(proposal.id)
        return accepted

    # ---------------------------------------------------------------- files

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2) + "\n"

    def to_bytes(self) -> bytes:
        """:meth:`to_json` as UTF-8, made as bytes directly (a plan can be hundreds of MB)."""
        return self.__pydantic_serializer__.to_json(self, by_alias=True, indent=2) + b"\n"

    def save(self, path: Path) -> None:
        fileio.atomic_write(Path(path), self.to_bytes())

    @classmethod
    def from_json(cls, text: str | bytes) -> Plan:
        """Parse and check a plan (raises :class:`PlanFileError`, one readable line)."""
        try:
            return cls.model_validate_json(text)
        except ValidationError as exc:
            raise PlanFileError(_describe(exc)) from None

    @classmethod
    def load(cls, path: Path) -> Plan:
        """Read a plan file (OSError when it cannot be read, :class:`PlanFileError` when it is not
        a usable plan)."""
        data = fileio.read_regular(Path(path), DOCUMENT_MAX_BYTES)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PlanFileError(f"not UTF-8 text (byte {exc.start})") from None
        return cls.from_json(text)


def _describe(error: ValidationError) -> str:
    """The first error of a failed plan validation as ``where: what`` (and how many more)."""
    errors = error.errors()
    first = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    message = str(first["msg"]).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    text = f"{display_name(where, 120) or 'the plan'}: {display_name(message, 300)}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return text
