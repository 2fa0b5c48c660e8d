"""A dream run: the chosen passes in RockBot's order, each prompt built on the library the previous
pass would have left, every reply parsed and turned into checked proposals. Never writes.

Drive it from a thread; ``progress`` receives :class:`RunProgress` reports and ``cancel`` stops
the run (the plan so far is returned, the cancelled pass marked as such).

The client's secrets (the API key) are masked out of the finished plan, in every string, in any
form :mod:`core.redact` knows: a server that echoes the Authorization header into a reply, a
skill or an error message cannot put the key into a plan file.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, overload

from rockskills_gui.core.dream import fingerprint
from rockskills_gui.core.dream.checks import CheckContext, check_plan
from rockskills_gui.core.dream.directives import Directive, load_directive
from rockskills_gui.core.dream.formats import (
    NO_CONVERSATIONS,
    NO_DATES,
    NO_USAGE,
    DreamLibrary,
    format_note,
    rules_of,
    runs_gap,
    skill_md_rules,
)
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.llm import Completion, Endpoint, LlmCancelled, LlmClient, LlmError, LlmProgress
from rockskills_gui.core.dream.mcp_refresh import (
    McpSurface,
    capture_baseline,
    parse_refresh_reply,
    refresh_message,
    refreshed,
    select_stale,
)
from rockskills_gui.core.dream.offline import propose_offline
from rockskills_gui.core.dream.passes import ALL_PASSES, LLM_PASSES, DreamPass
from rockskills_gui.core.dream.plan import (
    Evidence,
    PassRecord,
    PassStatus,
    Plan,
    ProposalKind,
    Severity,
    SkillRecord,
)
from rockskills_gui.core.dream.preselect import preselect
from rockskills_gui.core.dream.prompts import (
    analyze_consolidation,
    analyze_gap,
    analyze_optimization,
    prune_candidates,
)
from rockskills_gui.core.dream.proposals import PlanBuilder
from rockskills_gui.core.dream.reply import GapReply, SkillReply, parse_reply
from rockskills_gui.core.dream.review_defaults import guards_for
from rockskills_gui.core.dream.virtual import apply_prune
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.text.redact import REDACTED, redact_data


@dataclass(frozen=True)
class RunProgress:
    """``pass`` is the pass running; ``phase`` prompt, llm, parse, done; ``llm`` the client's report."""

    dream_pass: DreamPass
    phase: str
    message: str
    llm: LlmProgress | None = None


@dataclass
class RunOptions:
    """What to run: passes (RockBot order is kept), ``now``, offline or an LLM, directive overrides."""

    passes: Sequence[DreamPass] = LLM_PASSES
    now: Timestamp | None = None
    offline: bool = False
    directives: Mapping[DreamPass, str] = field(default_factory=dict)  # edited system messages
    protected_prefixes: Sequence[str] = ()
    mcp_surfaces: Mapping[str, McpSurface] = field(default_factory=dict)  # live MCP servers (refresh)


@dataclass(frozen=True)
class PromptSet:
    """The messages of one pass (for display before running), or why RockBot would skip it."""

    dream_pass: DreamPass
    directive: Directive
    user: str | None
    skipped: str | None


class PastedReplies:
    """Replies given as text (pasted by the user, or saved from an earlier run), used in place of
    an LLM: one per pass run, in order. Same interface as :class:`LlmClient`."""

    def __init__(self, replies: Sequence[str], label: str = "pasted") -> None:
        self._replies = list(replies)
        self.endpoint = Endpoint(base_url="", model=label)

    def secrets(self) -> list[str]:
        """Nothing to mask: no key is sent anywhere."""
        return []

    def complete(self, system: str, user: str, progress: Callable[[LlmProgress], None] | None = None,
                 cancel: threading.Event | None = None) -> Completion:
        if not self._replies:
            raise LlmError("no pasted reply left for this pass")
        return Completion(text=self._replies.pop(0), json_mode=False, attempts=0, elapsed=0.0)


def directive_for(library: DreamLibrary, dream_pass: DreamPass, options: RunOptions) -> Directive:
    directive = load_directive(library.agent_dir, dream_pass)
    edited = options.directives.get(dream_pass)
    return directive.edited(edited) if edited is not None else directive


def prompt_for(library: DreamLibrary, dream_pass: DreamPass, now: Timestamp,
               options: RunOptions | None = None) -> PromptSet:
    """The user message RockBot would send for one pass on its own: the gap prompt on the library
    as it is; consolidation after the 18-month prune; optimization after the prune and a no-op
    consolidation. A SKILL.md library has no conversation log (no gap prompt) and no usage dates
    (no prune); its prompts end with a note on the format (:func:`~.formats.format_note`)."""
    options = options or RunOptions()
    inputs = DreamInputs.read(library.agent_dir, now)
    directive = directive_for(library, dream_pass, options)
    note = format_note(library) or ""
    if dream_pass is DreamPass.GAP:
        if not runs_gap(library):
            return PromptSet(dream_pass, directive, None, NO_CONVERSATIONS)
        gap = analyze_gap(library.skills(), inputs)
        return PromptSet(dream_pass, directive, gap.prompt, gap.skipped)
    dated = library.profile.holds.timestamps  # (a SKILL.md agent keeps no usage dates: no prune)
    pruned = {c.name for c in prune_candidates(library.skills(), now)} if dated else set()
    rest = [s for s in library.skills() if s.name not in pruned]
    consolidation = analyze_consolidation(rest, inputs, library.profile)
    if dream_pass is DreamPass.CONSOLIDATE:
        return PromptSet(dream_pass, directive, _with_note(consolidation.prompt, note),
                         consolidation.skipped)
    if consolidation.prompt is None:
        return PromptSet(dream_pass, directive, None, consolidation.skipped)
    optimization = analyze_optimization(rest, inputs, library.profile,
                                        thin_only=not library.profile.holds.usage_log)
    return PromptSet(dream_pass, directive, _with_note(optimization.prompt, note), optimization.skipped)


def _with_note(prompt: str | None, note: str) -> str | None:
    return prompt + note if prompt is not None and note else prompt


def run_dream(library: DreamLibrary, options: RunOptions, client: LlmClient | PastedReplies | None = None,
              progress: Callable[[RunProgress], None] | None = None,
              cancel: threading.Event | None = None) -> Plan:
    """Run the passes and return the plan (``client`` is required unless ``options.offline``)."""
    now = options.now or Timestamp.now()
    notify = progress or (lambda _p: None)
    inputs = DreamInputs.read(library.agent_dir, now)
    created_at = datetime.now(UTC).isoformat()
    if options.offline:
        return _run_offline(library, options, inputs, now, created_at)
    plan = Plan(created_at=created_at, now=now.isoformat(), library=str(library.agent_dir),
                library_format=library.format, fingerprint=fingerprint.of_library(library),
                protected_prefixes=list(options.protected_prefixes), offline=options.offline)
    builder = PlanBuilder(library, now)
    if client is None:
        raise ValueError("an LLM client is needed unless the run is offline")
    runs = set(library.profile.curation.passes)
    wanted = [p for p in ALL_PASSES if p in set(options.passes) and p.value in runs]
    stop: str | None = None
    for dream_pass in wanted:
        if dream_pass is DreamPass.MCP_REFRESH:
            _refresh(library, builder, options, plan, client, notify, cancel, stop)
            continue
        directive = directive_for(library, dream_pass, options)
        record = PassRecord(dream_pass=dream_pass, status=PassStatus.OK,
                            directive_source=directive.source.value, directive_path=directive.path,
                            system=directive.text, model=client.endpoint.model,
                            base_url=client.endpoint.base_url)
        plan.passes.append(record)
        record.notes.extend(inputs.unreadable())
        if stop is not None:
            record.status, record.reason = PassStatus.SKIPPED, stop
            continue
        notify(RunProgress(dream_pass, "prompt", f"building the {dream_pass.value} prompt"))
        made = len(builder.proposals)
        try:
            stop = _run_pass(record, builder, inputs, now, wanted, client, notify, cancel)
        except Exception as exc:  # a bug or a reply we did not foresee: this pass fails alone
            del builder.proposals[made:]  # nothing from it is proposed
            record.proposals.clear()
            record.status = PassStatus.FAILED
            record.reason = "the reply could not be used; nothing from it is proposed"
            record.errors.append(f"unexpected error: {type(exc).__name__}: {display_name(str(exc), 300)}")
            stop = _stop_after(record)
    plan.proposals = builder.proposals
    plan = redacted(plan, client.secrets())
    _finish(plan, library, builder)
    return plan


NO_SURFACES = ("no live MCP server surfaces: offline every mcp/ skill's freshness is Unknown, so RockBot's "
               "refresh pass would rewrite nothing (give the servers' tools as a surfaces file)")


def _refresh(library: DreamLibrary, builder: PlanBuilder, options: RunOptions, plan: Plan,
             client: LlmClient | PastedReplies, notify: Callable[[RunProgress], None],
             cancel: threading.Event | None, stop: str | None) -> None:
    """The MCP skill refresh pass (:mod:`.mcp_refresh`): one pass record per stale skill refreshed
    (one LLM call each), a proposal per usable reply; a failed reply skips only its skill."""
    directive = directive_for(library, DreamPass.MCP_REFRESH, options)

    def record_for(reason: str | None = None) -> PassRecord:
        record = PassRecord(dream_pass=DreamPass.MCP_REFRESH, status=PassStatus.OK, reason=reason,
                            directive_source=directive.source.value, directive_path=directive.path,
                            system=directive.text, model=client.endpoint.model,
                            base_url=client.endpoint.base_url)
        plan.passes.append(record)
        return record

    if stop is not None or not options.mcp_surfaces:
        record = record_for(stop or NO_SURFACES)
        record.status = PassStatus.SKIPPED
        return
    per_cycle = library.profile.curation.mcp_refresh_per_cycle
    selection = select_stale(builder.virtual.skills(), options.mcp_surfaces, per_cycle)
    if not selection.batch:
        record = record_for("no stale mcp/ skill")
        record.status = PassStatus.SKIPPED
        record.notes.extend(f"'{n}' is orphaned: {why}" for n, why in selection.renamed)
        return
    for target in selection.batch:
        skill, server = target.skill, target.server
        record = record_for(f"'{skill.name}': {target.freshness.reason}")
        if target is selection.batch[0]:
            record.notes.append(f"{selection.stale} stale mcp/ skill(s), refreshing {len(selection.batch)} "
                                f"(McpSkillRefreshMaxPerCycle {per_cycle}; the rest wait, oldest first)")
            record.notes.extend(f"'{n}' is orphaned: {why}" for n, why in selection.renamed)
        surface = next((v for k, v in options.mcp_surfaces.items() if fold(k) == fold(server)), None)
        baseline = capture_baseline(surface, builder.now)
        if baseline is None or surface is None or not surface.text.strip():
            record.status = PassStatus.SKIPPED
            why = "no baseline could be captured for" if baseline is None else "no schemas for"
            record.reason = f"'{skill.name}': {why} '{server}'"
            continue
        notify(RunProgress(DreamPass.MCP_REFRESH, "prompt", f"refreshing {skill.name}"))
        message = refresh_message(skill, target.freshness.reason or "", server, surface.text)
        if not _ask(record, message, None, client, notify, cancel):
            if record.status is PassStatus.CANCELLED:
                return
            continue
        reply, problem = parse_refresh_reply(record.raw_reply)
        if reply is None:
            record.status, record.reason = PassStatus.FAILED, f"'{skill.name}': the reply could not be used"
            record.errors.append(problem or "")
            continue
        new = refreshed(skill, reply, builder.now)
        verb = "Rewrite" if reply.rewritten else "Re-verify"
        proposal = builder.new(
            ProposalKind.MCP_REFRESH, DreamPass.MCP_REFRESH, f"{verb} '{skill.name}' against '{server}'",
            record=SkillRecord.of(new), sources=[skill.name], replaces=[skill.name],
            surface_baseline=baseline,
            evidence=[Evidence(kind="freshness", text=target.freshness.reason or ""),
                      Evidence(kind="reply", text=reply.notes or "(no notes)")])
        builder.add(proposal)
        record.proposals.append(proposal.id)


def _run_pass(record: PassRecord, builder: PlanBuilder, inputs: DreamInputs, now: Timestamp,
              wanted: Sequence[DreamPass], client: LlmClient | PastedReplies,
              notify: Callable[[RunProgress], None], cancel: threading.Event | None) -> str | None:
    """Ask for one pass and turn its reply into proposals; what stops the passes after it."""
    dream_pass = record.dream_pass
    library = builder.library
    note = format_note(library) or ""
    if dream_pass is DreamPass.GAP:
        if not runs_gap(library):
            record.status, record.reason = PassStatus.SKIPPED, NO_CONVERSATIONS
            return None  # (later passes still run, as after any skipped pass)
        gap = analyze_gap(builder.virtual.skills(), inputs)
        if not _ask(record, gap.prompt, gap.skipped, client, notify, cancel):
            return _stop_after(record)
        gap_reply = _parse(record, DreamPass.GAP)
        if gap_reply is not None:
            builder.gap(gap_reply, gap, record)
        return None
    if dream_pass is DreamPass.CONSOLIDATE:
        if library.profile.holds.timestamps:
            builder.prune(prune_candidates(builder.virtual.skills(), now), record)
        else:
            record.notes.append(NO_DATES)
        consolidation = analyze_consolidation(builder.virtual.skills(), inputs, library.profile)
        if consolidation.prompt is None:
            record.status, record.reason = PassStatus.SKIPPED, consolidation.skipped
            return "RockBot runs optimization only after a consolidation"
        if not _ask(record, _with_note(consolidation.prompt, note), None, client, notify, cancel):
            return _stop_after(record)
        reply = _parse(record, DreamPass.CONSOLIDATE)
        if reply is None:
            return "RockBot runs optimization only after a consolidation that applied"
        if not builder.skill_result(DreamPass.CONSOLIDATE, reply, record, consolidation=consolidation):
            record.status = PassStatus.REFUSED
            record.reason = "the safety guard refused the result"
            return "the consolidation was refused by the safety guard (RockBot stops here)"
        return None
    if DreamPass.CONSOLIDATE not in wanted:
        pruned = apply_prune(builder.virtual, now) if library.profile.holds.timestamps else []
        if pruned:
            record.notes.append("built after the 18-month prune (" + ", ".join(pruned)
                                + ") and a no-op consolidation, as RockBot would")
        if len(builder.virtual) < 2:
            record.status, record.reason = PassStatus.SKIPPED, "fewer than 2 skills after pruning"
            return None
    thin = not library.profile.holds.usage_log
    if thin:
        record.notes.append(NO_USAGE)
    optimization = analyze_optimization(builder.virtual.skills(), inputs, library.profile, thin_only=thin)
    if not _ask(record, _with_note(optimization.prompt, note), optimization.skipped, client, notify,
                cancel):
        return _stop_after(record)
    reply = _parse(record, DreamPass.OPTIMIZE)
    if reply is not None and not builder.skill_result(DreamPass.OPTIMIZE, reply, record,
                                                       optimization=optimization):
        record.status = PassStatus.REFUSED
        record.reason = "deletes skills and saves nothing (our safety guard; RockBot has none here)"
    return None


def _run_offline(library: DreamLibrary, options: RunOptions, inputs: DreamInputs, now: Timestamp,
                 created_at: str) -> Plan:
    """The offline proposals, checked. The skill files are fingerprinted on a second thread
    meanwhile (reading and hashing every file, beside the merge search's number crunching); the
    proposals come from the library as loaded, so when during the run it is taken is immaterial."""
    record = PassRecord(dream_pass=DreamPass.OFFLINE, status=PassStatus.OK,
                        reason="proposals made from the library alone, without an LLM",
                        notes=inputs.unreadable())
    with ThreadPoolExecutor(max_workers=1) as pool:
        taken = pool.submit(fingerprint.of_library, library)
        builder = PlanBuilder(library, now)
        propose_offline(builder, inputs, record)
        plan = Plan(created_at=created_at, now=now.isoformat(), library=str(library.agent_dir),
                    library_format=library.format, fingerprint=taken.result(),
                    protected_prefixes=list(options.protected_prefixes), offline=True)
    plan.passes.append(record)
    plan.proposals = builder.proposals
    _finish(plan, library, builder)
    return plan


def _finish(plan: Plan, library: DreamLibrary, builder: PlanBuilder) -> None:
    """Check every proposal, then decide which a review starts ticked (:mod:`.preselect`)."""
    check_plan(plan, CheckContext.of(library.skills(), library.problems, plan.protected_prefixes, plan,
                                     library.layout, rules_of(library), names=builder.names,
                                     naming=skill_md_rules(library)))
    preselect(plan, guards_for(library, plan))


# structure, not text: digests, ids, enums and timestamps (masking them would break the plan)
_KEEP = frozenset({"fingerprint", "touched", "format", "version", "createdAt", "updatedAt", "lastUsedAt",
                   "now", "id", "dependsOn", "conflictsWith", "pass", "kind", "severity",
                   "status", "code", "directiveSource", "offline", "advisory", "preselected",
                   "libraryFormat"})


def redacted(plan: Plan, secrets: Sequence[str]) -> Plan:
    """``plan`` with ``secrets`` masked in every string (prompts, replies, errors, notes, names,
    contents); a proposal whose skill holds ``[redacted]`` that its sources did not says so."""
    if not secrets:
        return plan
    data = plan.model_dump(by_alias=True, mode="json")
    clean = redact_data(data, secrets, skip=_KEEP)
    fresh = plan if clean == data else Plan.model_validate(clean)
    for proposal in fresh.proposals:
        before = [t for record in proposal.before.values() for t in _record_texts(record)]
        if any(REDACTED in t for t in _record_texts(proposal.record)) \
                and not any(REDACTED in t for t in before):
            proposal.add("secret-redacted", Severity.WARN,
                         f"the reply put the API key into this skill; it is saved as {REDACTED} instead")
    return fresh


def _record_texts(record: SkillRecord | None) -> list[str]:
    if record is None:
        return []
    return [record.name, record.summary or "", record.content or "", *(record.see_also or [])]


def _stop_after(record: PassRecord) -> str | None:
    if record.status is PassStatus.CANCELLED:
        return "the run was cancelled"
    if record.status is PassStatus.FAILED:
        return f"the {record.dream_pass.value} pass failed (RockBot ends the dream cycle on an error)"
    return None  # skipped: later passes still run


def _ask(record: PassRecord, prompt: str | None, skipped: str | None, client: LlmClient | PastedReplies,
         notify: Callable[[RunProgress], None], cancel: threading.Event | None) -> bool:
    """Send the pass's prompt; False (and the record says why) when there is no usable reply."""
    if prompt is None:
        record.status, record.reason = PassStatus.SKIPPED, skipped
        return False
    record.user = prompt
    dream_pass = record.dream_pass
    started = time.monotonic()
    try:
        completion = client.complete(
            record.system or "", prompt, cancel=cancel,
            progress=lambda p: notify(RunProgress(dream_pass, "llm", p.message, p)))
    except LlmCancelled:
        record.status, record.reason = PassStatus.CANCELLED, "cancelled while waiting for the reply"
        record.elapsed = time.monotonic() - started
        return False
    except LlmError as exc:
        record.status, record.reason = PassStatus.FAILED, f"{exc.kind}: {exc}"
        record.errors.append(str(exc))
        record.elapsed = time.monotonic() - started
        return False
    record.elapsed = completion.elapsed
    record.raw_reply = completion.text
    record.json_mode = completion.json_mode
    record.notes.extend(completion.notes)
    notify(RunProgress(dream_pass, "parse", "reading the reply"))
    return True


@overload
def _parse(record: PassRecord, dream_pass: Literal[DreamPass.GAP]) -> GapReply | None: ...


@overload
def _parse(record: PassRecord,
           dream_pass: Literal[DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE]) -> SkillReply | None: ...


def _parse(record: PassRecord, dream_pass: DreamPass) -> GapReply | SkillReply | None:
    """The pass's validated reply, or None (the record then says why it failed)."""
    parsed = parse_reply(record.raw_reply, dream_pass)
    if parsed.ok and parsed.value is not None:  # ok implies a value; the test narrows its type
        return parsed.value
    record.status = PassStatus.FAILED
    record.reason = "the reply could not be used; nothing from it is proposed"
    record.errors.extend(parsed.errors)
    return None
