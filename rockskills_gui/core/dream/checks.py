"""RockBot's rules and ours, checked on every proposal and shown as findings (never hidden).

Findings made while reading a reply (the safety guard, sources missing from ``toDelete``, ...) are
set by ``proposals``; the checks here depend only on the proposal and the library (its skills, its
problem files and what is on disk where a skill would be written), so they are run again when a
plan is re-checked and before every apply: findings stored in a plan file are never trusted.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path

from rockskills_gui.core.dream.coverage import coverage
from rockskills_gui.core.dream.formats import SkillMdRules
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Finding, Plan, Proposal, ProposalKind, Severity
from rockskills_gui.core.dream.prompts import CONSOLIDATION_TRUNCATED, OPTIMIZATION_TRUNCATED
from rockskills_gui.core.library.library import Where
from rockskills_gui.core.lint.linter import scan_text
from rockskills_gui.core.model.mcp_freshness import carried_baseline
from rockskills_gui.core.model.names import display_name, fold, readable_name_error, rockbot_name_error
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, RockBotRules, mcp_server
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY_WORDS
from rockskills_gui.core.recall.bm25 import document_text, tokenize
from rockskills_gui.core.storage import fileio, links
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.layout import Layout

CHECK_CODES = frozenset({
    "invalid-name", "name-claimed", "protected", "self-see-also", "dangling-see-also",
    "duplicate-see-also", "lost-specifics", "truncation-marker", "gap-overwrite", "overwrite",
    "unknown-source", "summary-length", "stale", "suspicious-content", "huge-content", "mass-delete",
    "namespace-merge", "namespace-guide", "mcp-naming", "summary-keywords", "mcp-baseline",  # current
    "path-blocked", "recall-regression", "undeclared-overwrite",
    "skill-md-name", "description-required", "description-too-long",  # SKILL.md (core.dream.formats)
})
PATH_MAX = 4096  # bytes in a whole path (Linux), as the library's own check
MAX_NAME_DEPTH = 32  # '/' levels in a name the dream may write
MAX_SUMMARY_WORDS = ROCKBOT_SUMMARY_WORDS  # what the directives ask (core/model/summary_rule.py)
HUGE_CONTENT_CHARS = 50_000  # RockBot injects the whole content whenever recall picks the skill
MASS_DELETE_SHARE = 0.25  # a plan deleting more than this share of the library (and 5+ skills)

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


class NameChecks:
    """Per-name answers that depend only on the name and ``layout``, remembered: a plan checks
    thousands of names, and the plan builder and the checks ask about the same ones."""

    def __init__(self, layout: Where | None, naming: SkillMdRules | None = None) -> None:
        self.layout = layout
        self.naming = naming  # a SKILL.md library's name rules (None: RockBot's)
        self._paths: dict[str, Path] = {}
        self._shown: dict[str, str] = {}
        self._problems: dict[str, str | None] = {}

    def path_for(self, name: str) -> Path:
        """``layout.path_for(name)`` (only with a layout)."""
        path = self._paths.get(name)
        if path is None:
            assert self.layout is not None
            path = self._paths[name] = self.layout.path_for(name)
        return path

    def shown_path(self, name: str) -> str:
        """``layout.display_path(layout.path_for(name))`` (only with a layout)."""
        shown = self._shown.get(name)
        if shown is None:
            assert self.layout is not None
            shown = self._shown[name] = self.layout.display_path(self.path_for(name))
        return shown

    def name_problem(self, name: str) -> str | None:
        """``name_problem(name, layout)`` (a SKILL.md library: its folder-name rule)."""
        if name not in self._problems:
            if self.naming is not None:
                self._problems[name] = self.naming.name_problem(name)
            else:
                path = self.path_for(name) if self.layout is not None else None
                self._problems[name] = name_problem(name, self.layout, path)  # type: ignore[arg-type]
        return self._problems[name]


@dataclass
class CheckContext:
    """What the checks compare against: the library now, its problem files, the plan's saves.
    ``names``: per-name answers already worked out for this layout (a :class:`NameChecks`)."""

    skills: dict[str, Skill]  # fold(name) -> skill
    problems: list[Problem] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    saved_by_plan: set[str] = field(default_factory=set)    # fold(name)
    deleted_by_plan: set[str] = field(default_factory=set)  # fold(name)
    deleted_by: dict[str, set[str]] = field(default_factory=dict)  # fold(name) -> ids deleting it
    layout: Where | None = None  # where skills are written (None: the disk is not looked at)
    rules: RockBotRules = ROCKBOT_64E82CC  # which RockBot (its protected and namespace prefixes)
    naming: SkillMdRules | None = None  # a SKILL.md library's rules (None: RockBot's)
    names: InitVar[NameChecks | None] = None
    _names: NameChecks = field(init=False, repr=False, compare=False)

    def __post_init__(self, names: NameChecks | None) -> None:
        self._names = names if names is not None and names.layout is self.layout \
            else NameChecks(self.layout, self.naming)

    def path_for(self, name: str) -> Path:
        """``layout.path_for(name)``, remembered (only with a layout)."""
        return self._names.path_for(name)

    def shown_path(self, name: str) -> str:
        """The display path of ``path_for(name)``, remembered (only with a layout)."""
        return self._names.shown_path(name)

    def name_problem(self, name: str) -> str | None:
        """``name_problem(name, layout)``, remembered."""
        return self._names.name_problem(name)

    @classmethod
    def of(cls, skills: Iterable[Skill], problems: Iterable[Problem], protected: Iterable[str],
           plan: Plan | None = None, layout: Where | None = None,
           rules: RockBotRules = ROCKBOT_64E82CC, names: NameChecks | None = None,
           naming: SkillMdRules | None = None) -> CheckContext:
        prefixes = list(protected)
        prefixes += [p for p in rules.protected_prefixes if fold(p) not in {fold(x) for x in prefixes}]
        ctx = cls({fold(s.name): s for s in skills}, list(problems), prefixes, layout=layout,
                  rules=rules, naming=naming, names=names)
        if plan is not None:
            for proposal in plan.proposals:
                if proposal.record is not None:
                    ctx.saved_by_plan.add(fold(proposal.record.name))
                ctx.deleted_by_plan.update(fold(n) for n in proposal.deletes)
                for name in proposal.deletes:
                    ctx.deleted_by.setdefault(fold(name), set()).add(proposal.id)
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
                         f"{verb} '{display_name(name)}', protected by the prefix '{prefix}'")
    for name in proposal.replaces:
        prefix = protected_by(name, ctx.protected)
        if prefix is not None:
            proposal.add("protected", Severity.BLOCK,
                         f"overwrites '{display_name(name)}', protected by the prefix '{prefix}'")
    for name in proposal.sources:
        if fold(name) not in ctx.skills and fold(name) not in ctx.saved_by_plan:
            proposal.add("unknown-source", Severity.WARN,
                         f"the source '{display_name(name)}' is not in the library (RockBot ignores it)")
    if record is None:
        return
    _check_namespaces(proposal, record.name, ctx)
    _check_name(proposal, record.name, ctx)
    _check_overwrite(proposal, record.name, ctx)
    _check_see_also(proposal, record.name, record.see_also or [], ctx)
    content = record.content or ""
    for marker in (CONSOLIDATION_TRUNCATED, OPTIMIZATION_TRUNCATED):
        if marker in content:
            proposal.add("truncation-marker", Severity.WARN,
                         f"the content contains RockBot's truncation marker '{marker}': a source "
                         "was copied from the prompt, where it was cut at 800 characters")
    if proposal.kind in (ProposalKind.MERGE, ProposalKind.REWRITE):
        changed = {fold(s) for s in [*proposal.sources, *proposal.replaces]}
        originals = [f"{r.summary or ''}\n{r.content or ''}" for n, r in proposal.before.items()
                     if fold(n) in changed]
        lost = coverage(originals, f"{record.name}\n{record.summary or ''}\n{content}")
        if lost.total:
            proposal.add("lost-specifics", Severity.WARN, lost.message())
    _check_content(proposal, record.summary or "", content)
    if ctx.naming is not None:
        _check_description(proposal, record.summary or "", ctx.naming)
        return
    words = len((record.summary or "").split())
    if words > MAX_SUMMARY_WORDS:
        proposal.add("summary-length", Severity.INFO,
                     f"the summary has {words} words (the directives ask for at most {MAX_SUMMARY_WORDS})")
    if proposal.dream_pass is DreamPass.GAP and fold(record.name) in ctx.skills:
        existing = ctx.skills[fold(record.name)]
        proposal.add("gap-overwrite", Severity.WARN,
                     f"overwrites the existing skill '{existing.name}': RockBot's gap pass does not "
                     "check, and resets its createdAt, lastUsedAt and seeAlso")


def _check_namespaces(proposal: Proposal, name: str, ctx: CheckContext) -> None:
    """RockBot (current)'s consolidation policy (PR #380, design/skill-name-stability.md):
    ``mcp/{server}`` skills are namespaced singletons (no merge across servers, no parent guide
    replacing them), merged summaries keep the originals' search keywords, and MCP skills are
    named ``mcp/{server}[/...]`` (PR #381/#382). Directive rules, not code guards: warnings."""
    rules = ctx.rules
    merged = [*proposal.sources, *proposal.replaces]
    if rules.singleton_prefixes and proposal.kind is ProposalKind.MERGE:
        heads: dict[str, set[str]] = {}
        for source in [*merged, name]:
            found = rules.singleton_of(source)
            if found is not None:
                heads.setdefault(found[0], set()).add(found[1])
        for prefix, servers in heads.items():
            if len(servers) > 1:
                proposal.add("namespace-merge", Severity.WARN,
                             f"merges across '{prefix}' bindings ({', '.join(sorted(servers))}): "
                             f"RockBot (current) never merges skills of different '{prefix}' entries")
            elif rules.singleton_of(name) is None:
                proposal.add("namespace-merge", Severity.WARN,
                             f"merges the '{prefix}{next(iter(servers))}' binding into "
                             f"'{display_name(name)}', outside '{prefix}'")
    for prefix in rules.singleton_prefixes:
        stem = prefix.rstrip("/")
        if fold(name) in (fold(stem + "/guide"), fold(stem)) and fold(name) not in ctx.skills:
            proposal.add("namespace-guide", Severity.WARN,
                         f"creates a parent guide '{display_name(name)}' for '{prefix}': RockBot "
                         f"(current) extracts no parent guide for namespaced '{prefix}' skills")
    if rules.profile.curation.carry_mcp_baseline and mcp_server(name) is not None \
            and proposal.kind in (ProposalKind.MERGE, ProposalKind.REWRITE):
        _check_carried_baseline(proposal, name, ctx)
    if rules.mcp_naming and "/" not in name and re.match(r"(?i)^mcp[-_][a-z0-9]", name):
        proposal.add("mcp-naming", Severity.WARN,
                     f"'{display_name(name)}' looks like an MCP skill: RockBot (current) names them "
                     f"'mcp/{{server}}' (e.g. 'mcp/{display_name(name[4:])}') and renames top-level "
                     "ones at startup")
    if rules.keep_summary_keywords and proposal.kind is ProposalKind.MERGE and proposal.record:
        kept = set(tokenize(document_text(name, proposal.record.summary)))
        lost: dict[str, list[str]] = {}
        for source in merged:
            original = proposal.before.get(source) or next(
                (r for n, r in proposal.before.items() if fold(n) == fold(source)), None)
            if original is None:
                continue
            words = [w for w in dict.fromkeys(tokenize(document_text(original.name, original.summary)))
                     if w not in kept]
            if words:
                lost[original.name] = words
        if lost:
            shown = "; ".join(f"{n}: {', '.join(w[:6])}" for n, w in lost.items())
            proposal.add("summary-keywords", Severity.WARN,
                         "the merged name and summary drop search keywords of the originals "
                         f"(RockBot (current)'s directive asks to keep them for recall): {shown}")


def _check_carried_baseline(proposal: Proposal, name: str, ctx: CheckContext) -> None:
    """What ``surfaceBaseline`` the merged or rewritten MCP skill gets (DreamService
    .CarriedSurfaceBaseline @ 150a84c, #615): the oldest of its same-server inputs', or none."""
    carried = carried_baseline(name, proposal.sources, ctx.skills)
    if carried is None:
        proposal.add("mcp-baseline", Severity.INFO,
                     f"'{display_name(name)}' gets no surfaceBaseline (MCP freshness Unknown): RockBot "
                     "(current) carries one only when every same-server source has one")
    else:
        proposal.add("mcp-baseline", Severity.INFO,
                     f"'{display_name(name)}' keeps the surfaceBaseline of '{display_name(carried[0])}' "
                     f"(recorded {carried[1].recorded_at or 'at an unknown time'}), the oldest of its "
                     "same-server sources: a merge is never fresher than its stalest input")


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


def name_problem(name: str, layout: Layout | None = None, path: Path | None = None) -> str | None:
    """Why no skill file can be written under ``name``: RockBot's name rules (with RockBot's own
    message), ours, a name part longer than a file name may be, or (given ``layout``) a whole
    path longer than a path may be. One readable line. ``path``: ``layout.path_for(name)`` when
    the caller already has it."""
    message = readable_name_error(name)
    if message is not None:
        return message
    depth = name.count("/") + 1
    if depth > MAX_NAME_DEPTH:
        return (f"the name '{display_name(name, 40)}' has {depth:,} '/' levels (this app refuses more "
                f"than {MAX_NAME_DEPTH}: so many nested folders break tools that walk the library)")
    for part in name.split("/"):
        size = len(part.encode("utf-8", "surrogatepass")) + len(".json")
        if size > fileio.NAME_MAX:
            return (f"the name part '{display_name(part, 40)}' is too long: file names are limited to "
                    f"{fileio.NAME_MAX} bytes and it needs {size:,} with '.json'")
    if layout is not None:
        size = len(str(path if path is not None else layout.path_for(name))
                   .encode("utf-8", "surrogatepass"))
        if size >= PATH_MAX:
            return f"its file path would have {size:,} bytes (the limit is {PATH_MAX - 1:,})"
    return None


def path_problem(name: str, layout: Layout, problems: Iterable[Problem], loaded: bool,
                 path: Path | None = None) -> str | None:
    """Why writing the file of ``name`` (a valid name) would harm what is on disk, or None.

    Refused: a path too long for the file system; the path of a problem file, compared
    case-insensitively (RockBot's names are, and so are some file systems); a folder, FIFO or
    other non-file where the file goes; a symbolic link on the way that leads out of the library to
    a folder not confirmed (:mod:`~rockskills_gui.core.storage.links`), or at the file itself; a
    file where a folder must be; and, unless ``loaded`` (a skill of that name is loaded from that
    very file), any file already there. ``path``: ``layout.path_for(name)`` when the caller
    already has it.
    """
    path = path if path is not None else layout.path_for(name)
    size = len(str(path).encode("utf-8", "surrogatepass"))
    if size >= PATH_MAX:
        return f"its file path would have {size:,} bytes (the limit is {PATH_MAX - 1:,})"
    shown = layout.display_path(path)
    for problem in problems:
        if fold(problem.path) == fold(shown):
            return (f"it would be written to {problem.path}, a file RockBot cannot load as a skill "
                    f"({problem.kind.value}); resolve that file first")
    try:
        found = links.blocking_link(path, layout.agent_dir, layout.trusted)
        if found is not None:
            return (f"its file would be written through the symbolic link "
                    f"{layout.display_path(found[0])}, which leads outside the library to a folder "
                    "not allowed for writing")
        folder = path.parent
        while folder != layout.skills_dir and layout.skills_dir in folder.parents:
            if os.path.lexists(folder) and not folder.is_dir():
                return (f"{layout.display_path(folder)} is a file, so the folder for {shown} cannot be "
                        "created")
            folder = folder.parent
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{shown} cannot be checked ({reason})"
    if not stat.S_ISREG(info.st_mode):
        return f"{shown} is a {fileio.file_kind(info.st_mode)} on disk, not a skill file"
    if not loaded:
        return f"{shown} is already on disk but is not a skill this library loaded; it would be replaced"
    return None


def _check_description(proposal: Proposal, description: str, rules: SkillMdRules) -> None:
    problem = rules.description_problem(description)
    if problem is not None:
        proposal.add("description-required", Severity.BLOCK, problem)
    for warning in rules.description_warnings(description):
        proposal.add("description-too-long", Severity.WARN, warning)


def _check_skill_md_name(proposal: Proposal, name: str, ctx: CheckContext, rules: SkillMdRules) -> None:
    """A SKILL.md name: a folder the library can write (a block), the profile's spec (warnings),
    and a folder already on disk that is not the skill's own (a block)."""
    message = rules.name_problem(name)
    if message is not None:
        proposal.add("invalid-name", Severity.BLOCK, f"{message} (refused by this app)")
        return
    for warning in rules.name_warnings(name):
        proposal.add("skill-md-name", Severity.WARN, warning)
    if ctx.layout is None or fold(name) in ctx.skills:
        return
    folder = ctx.path_for(name).parent
    if os.path.lexists(folder):
        what = "symbolic link" if os.path.islink(folder) else "folder"
        proposal.add("path-blocked", Severity.BLOCK,
                     f"{ctx.layout.display_path(folder)} is already on disk (a {what} that is not a "
                     "skill this library loaded); it would be replaced: move it away first")


def _check_name(proposal: Proposal, name: str, ctx: CheckContext) -> None:
    if ctx.naming is not None:
        _check_skill_md_name(proposal, name, ctx, ctx.naming)
        return
    message = ctx.name_problem(name)
    if message is not None:
        why = ("RockBot would throw after deleting the sources, aborting the dream cycle"
               if rockbot_name_error(name) is not None else "refused by this app")
        proposal.add("invalid-name", Severity.BLOCK, f"{message} ({why})")
        return
    key = fold(name)
    for problem in ctx.problems:
        if problem.name is not None and fold(problem.name) == key:
            proposal.add("name-claimed", Severity.BLOCK,
                         f"'{display_name(name)}' is also claimed by {problem.path}, which could not "
                         f"be loaded ({problem.kind.value}); resolve that file first")
            return
    if ctx.layout is None:
        return
    assert isinstance(ctx.layout, Layout)
    path = ctx.path_for(name)
    shown = fold(ctx.shown_path(name))
    if any(fold(problem.path) == shown for problem in ctx.problems):
        proposal.add("name-claimed", Severity.BLOCK,
                     f"'{display_name(name)}' would overwrite the problem file "
                     f"{next(p.path for p in ctx.problems if fold(p.path) == shown)}, which RockBot "
                     "cannot load as a skill; resolve that file first")
        return
    existing = ctx.skills.get(key)
    loaded = existing is not None and ctx.path_for(existing.name) == path
    message = path_problem(name, ctx.layout, ctx.problems, loaded or _same_file(ctx.layout, existing, name),
                           path)
    if message is not None:
        proposal.add("path-blocked", Severity.BLOCK, message)


def _check_overwrite(proposal: Proposal, name: str, ctx: CheckContext) -> None:
    """A save over an existing skill -- its name compared case-insensitively, as RockBot's are --
    must say so: the skill is listed as replaced, as a source or as deleted by the proposal, or
    deleted by a proposal it depends on. Only a hand-edited plan saves over one unannounced (a
    ``create`` renamed to ``MCP/EMAIL`` would replace ``mcp/email``)."""
    key = fold(name)
    existing = ctx.skills.get(key)
    if existing is None:
        return
    if key in {fold(n) for n in (*proposal.replaces, *proposal.sources, *proposal.deletes)}:
        return
    if ctx.deleted_by.get(key, set()) & set(proposal.depends_on):
        return
    case = "" if existing.name == name else " (names are case-insensitive)"
    proposal.add("undeclared-overwrite", Severity.BLOCK,
                 f"saves '{display_name(name)}' over the existing skill '{existing.name}'{case} without "
                 "listing it as replaced or as a source (was the plan edited?); make a new plan")


def _same_file(layout: Layout, existing: Skill | None, name: str) -> bool:
    """True when ``name``'s file is the existing skill's file (a case-insensitive file system)."""
    if existing is None:
        return False
    try:
        return os.path.samefile(layout.path_for(existing.name), layout.path_for(name))
    except (OSError, ValueError):
        return False


def _check_see_also(proposal: Proposal, name: str, see_also: Sequence[str], ctx: CheckContext) -> None:
    found: list[tuple[str, Severity, str]] = []
    seen: set[str] = set()
    for target in see_also:
        key = fold(target)
        if key == fold(name):
            found.append(("self-see-also", Severity.WARN,
                          f"seeAlso names the skill itself ('{display_name(target)}')"))
        elif key in ctx.deleted_by_plan and key not in ctx.saved_by_plan:
            found.append(("dangling-see-also", Severity.WARN,
                          f"seeAlso names '{display_name(target)}', which this plan deletes"))
        elif key not in ctx.skills and key not in ctx.saved_by_plan:
            found.append(("dangling-see-also", Severity.WARN,
                          f"seeAlso names '{display_name(target)}', which is not in the library"))
        if key in seen:
            found.append(("duplicate-see-also", Severity.INFO,
                          f"seeAlso lists '{display_name(target)}' twice"))
        seen.add(key)
    # what Proposal.add does one by one, without rescanning every finding (a guide lists thousands)
    present = {(f.code, f.message) for f in proposal.findings}
    for code, severity, message in found:
        if (code, message) not in present:
            present.add((code, message))
            proposal.findings.append(Finding(code=code, severity=severity, message=message))


def check_plan(plan: Plan, ctx: CheckContext) -> None:
    """(Re)run every library-dependent check on every proposal of ``plan``."""
    with gc_paused():  # the library and the plan are long-lived: keep the collector off them
        for proposal in plan.proposals:
            proposal.findings = [f for f in proposal.findings if f.code not in CHECK_CODES]
            check(proposal, ctx)
    if ctx.layout is not None:
        from rockskills_gui.core.dream.recall_guard import guard  # reads logs: only with a library

        guard(plan, list(ctx.skills.values()), ctx.layout.agent_dir)
