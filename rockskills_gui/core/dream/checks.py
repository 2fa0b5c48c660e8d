"""RockBot's rules and ours, checked on every proposal and shown as findings (never hidden).

Findings made while reading a reply (the safety guard, sources missing from ``toDelete``, ...) are
set by ``proposals``; the checks here depend only on the proposal and the library, so they are run
again when a plan is re-checked against a library that changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rockskills_gui.core.lint import scan_text
from rockskills_gui.core.names import fold, name_error, rockbot_name_error
from rockskills_gui.core.problems import Problem
from rockskills_gui.core.skill import Skill

from .passes import DreamPass
from .plan import Plan, Proposal, ProposalKind, Severity
from .prompts import CONSOLIDATION_TRUNCATED, OPTIMIZATION_TRUNCATED

CHECK_CODES = frozenset({
    "invalid-name", "name-claimed", "protected", "self-see-also", "dangling-see-also",
    "duplicate-see-also", "lost-specifics", "truncation-marker", "gap-overwrite", "overwrite",
    "unknown-source", "summary-length", "stale", "suspicious-content", "huge-content", "mass-delete",
})
MAX_SUMMARY_WORDS = 15
HUGE_CONTENT_CHARS = 50_000  # RockBot injects the whole content whenever recall picks the skill
MASS_DELETE_SHARE = 0.25  # a plan deleting more than this share of the library (and 5+ skills)

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_])")
_CAMEL = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z0-9]*)+(?![A-Za-z0-9_])")
_QUOTED = re.compile(r"(?<![A-Za-z0-9])'([^'\s]{1,60})'(?![A-Za-z0-9])")
_DOMAIN = re.compile(r"(?<![A-Za-z0-9.-])(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|app|gov|edu)"
                     r"(?:/[A-Za-z0-9_./-]*[A-Za-z0-9_])?")


def specifics(text: str) -> list[str]:
    """Concrete details a merge must keep: code spans, snake_case and camelCase identifiers,
    single-quoted values and web addresses (first-seen order, unique)."""
    found: dict[str, None] = {}
    for pattern in (_CODE_SPAN, _SNAKE, _CAMEL, _QUOTED, _DOMAIN):
        for match in pattern.finditer(text):
            value = match.group(1) if pattern.groups else match.group(0)
            found.setdefault(value.strip())
    return [v for v in found if v]


def lost_specifics(sources: Iterable[str], merged: str) -> list[str]:
    """Specifics of the sources that the merged text no longer contains (case-sensitive)."""
    lost: dict[str, None] = {}
    for text in sources:
        for value in specifics(text):
            if value not in merged:
                lost.setdefault(value)
    return list(lost)


def protected_by(name: str, prefixes: Sequence[str]) -> str | None:
    """The configured prefix protecting ``name`` (``patrol/`` protects ``patrol/x``; ``patrol``
    protects ``patrol`` and ``patrol/x``), case-insensitively."""
    folded = fold(name)
    for prefix in prefixes:
        p = fold(prefix.strip())
        if not p:
            continue
        if p.endswith("/") and folded.startswith(p):
            return prefix
        if not p.endswith("/") and (folded == p or folded.startswith(p + "/")):
            return prefix
    return None


@dataclass
class CheckContext:
    """What the checks compare against: the library now, its problem files, the plan's saves."""

    skills: dict[str, Skill]  # fold(name) -> skill
    problems: list[Problem] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    saved_by_plan: set[str] = field(default_factory=set)    # fold(name)
    deleted_by_plan: set[str] = field(default_factory=set)  # fold(name)

    @classmethod
    def of(cls, skills: Iterable[Skill], problems: Iterable[Problem], protected: Iterable[str],
           plan: Plan | None = None) -> CheckContext:
        ctx = cls({fold(s.name): s for s in skills}, list(problems), list(protected))
        if plan is not None:
            for proposal in plan.proposals:
                if proposal.record is not None:
                    ctx.saved_by_plan.add(fold(proposal.record.name))
                ctx.deleted_by_plan.update(fold(n) for n in proposal.deletes)
        return ctx


def check(proposal: Proposal, ctx: CheckContext) -> None:
    """Add the findings of every library-dependent rule to ``proposal``."""
    record = proposal.record
    doomed = len(ctx.deleted_by_plan)
    if proposal.deletes and doomed >= 5 and doomed > MASS_DELETE_SHARE * len(ctx.skills):
        proposal.add("mass-delete", Severity.WARN,
                     f"this plan deletes {doomed} of the library's {len(ctx.skills)} skills; check "
                     "each deletion before accepting all")
    for name in proposal.deletes:
        prefix = protected_by(name, ctx.protected)
        if prefix is not None:
            verb = "prunes" if proposal.kind is ProposalKind.PRUNE else "deletes"
            proposal.add("protected", Severity.BLOCK,
                         f"{verb} '{name}', protected by the prefix '{prefix}'")
    for name in proposal.replaces:
        prefix = protected_by(name, ctx.protected)
        if prefix is not None:
            proposal.add("protected", Severity.BLOCK,
                         f"overwrites '{name}', protected by the prefix '{prefix}'")
    for name in proposal.sources:
        if fold(name) not in ctx.skills and fold(name) not in ctx.saved_by_plan:
            proposal.add("unknown-source", Severity.WARN,
                         f"the source '{name}' is not in the library (RockBot ignores it)")
    if record is None:
        return
    _check_name(proposal, record.name, ctx)
    _check_see_also(proposal, record.name, record.see_also or [], ctx)
    content = record.content or ""
    for marker in (CONSOLIDATION_TRUNCATED, OPTIMIZATION_TRUNCATED):
        if marker in content:
            proposal.add("truncation-marker", Severity.WARN,
                         f"the content contains RockBot's truncation marker '{marker}': a source "
                         "was copied from the prompt, where it was cut at 800 characters")
    if proposal.kind in (ProposalKind.MERGE, ProposalKind.REWRITE):
        originals = [r.content or "" for n, r in proposal.before.items()
                     if fold(n) in {fold(s) for s in [*proposal.sources, *proposal.replaces]}]
        lost = lost_specifics(originals, content)
        if lost:
            shown = ", ".join(f"'{v}'" for v in lost[:12]) + (" …" if len(lost) > 12 else "")
            proposal.add("lost-specifics", Severity.WARN,
                         f"{len(lost)} specific(s) of the source(s) are missing from the new "
                         f"content: {shown}")
    _check_content(proposal, record.summary or "", content)
    words = len((record.summary or "").split())
    if words > MAX_SUMMARY_WORDS:
        proposal.add("summary-length", Severity.INFO,
                     f"the summary has {words} words (the directives ask for at most 15)")
    if proposal.dream_pass is DreamPass.GAP and fold(record.name) in ctx.skills:
        existing = ctx.skills[fold(record.name)]
        proposal.add("gap-overwrite", Severity.WARN,
                     f"overwrites the existing skill '{existing.name}': RockBot's gap pass does not "
                     "check, and resets its createdAt, lastUsedAt and seeAlso")


def _check_content(proposal: Proposal, summary: str, content: str) -> None:
    """Prompt injection, pipe-to-shell, credential paths, hidden Unicode (the lint content scan),
    and content too large to inject into a prompt."""
    if len(content) > HUGE_CONTENT_CHARS:
        proposal.add("huge-content", Severity.WARN,
                     f"the content has {len(content):,} characters: RockBot puts all of it into the "
                     "prompt of every turn that recalls this skill")
    seen: set[tuple[str, str]] = set()
    for where, text in (("summary", summary), ("content", content[:HUGE_CONTENT_CHARS])):
        for line, kind, _severity, message in scan_text(text):
            if (where, kind) in seen:
                continue
            seen.add((where, kind))
            proposal.add("suspicious-content", Severity.WARN,
                         f"{kind} in the {where} (line {line}): {message}")


def _check_name(proposal: Proposal, name: str, ctx: CheckContext) -> None:
    message = name_error(name)
    if message is not None:
        why = ("RockBot would throw after deleting the sources, aborting the dream cycle"
               if rockbot_name_error(name) is not None else "refused by this app")
        proposal.add("invalid-name", Severity.BLOCK, f"{message} ({why})")
        return
    key = fold(name)
    for problem in ctx.problems:
        if problem.name is not None and fold(problem.name) == key:
            proposal.add("name-claimed", Severity.BLOCK,
                         f"'{name}' is also claimed by {problem.path}, which could not be loaded "
                         f"({problem.kind.value}); resolve that file first")
            return


def _check_see_also(proposal: Proposal, name: str, see_also: Sequence[str], ctx: CheckContext) -> None:
    seen: set[str] = set()
    for target in see_also:
        key = fold(target)
        if key == fold(name):
            proposal.add("self-see-also", Severity.WARN, f"seeAlso names the skill itself ('{target}')")
        elif key in ctx.deleted_by_plan and key not in ctx.saved_by_plan:
            proposal.add("dangling-see-also", Severity.WARN,
                         f"seeAlso names '{target}', which this plan deletes")
        elif key not in ctx.skills and key not in ctx.saved_by_plan:
            proposal.add("dangling-see-also", Severity.WARN,
                         f"seeAlso names '{target}', which is not in the library")
        if key in seen:
            proposal.add("duplicate-see-also", Severity.INFO, f"seeAlso lists '{target}' twice")
        seen.add(key)


def check_plan(plan: Plan, ctx: CheckContext) -> None:
    """(Re)run every library-dependent check on every proposal of ``plan``."""
    for proposal in plan.proposals:
        proposal.findings = [f for f in proposal.findings if f.code not in CHECK_CODES]
        check(proposal, ctx)
