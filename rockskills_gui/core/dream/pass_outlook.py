"""Would RockBot itself run a dream pass on this data? Said beside each pass before a run (issue 16).

The skip rules are RockBot's, reused from :mod:`rockskills_gui.core.dream.prompts`: skill gap
needs a non-empty conversation log; consolidation needs two skills after the 18-month prune;
optimization runs only after a consolidation and needs an at-risk session and an at-risk or
sparse skill. A pass RockBot runs may still carry a note (one session only: nothing can recur
across sessions, which the gap directive asks for).

RockBot (current) also keeps ``dream-pass-ledger.json`` and skips a gated pass while its inputs'
fingerprint is unchanged, for at most ``DreamPassMaxSkipInterval`` (7 days): ``skill
consolidation`` on the catalog after the prune, ``skill optimization`` on the usage and feedback
watermarks of its 30-day window. The fingerprints and the rule are RockBot's own
(:mod:`.ledger`, MarimerLLC/rockbot DreamService.cs @ 150a84c, DreamPassLedger.cs @ e7f95a1), so
"RockBot would skip this pass" is exact. A skipped consolidation skips optimization too (it runs
only after a consolidation that got a reply). A missing or unreadable ledger reads as empty, as
RockBot's does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rockskills_gui.core.dream.formats import NO_CONVERSATIONS, NO_DATES, NO_USAGE
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.ledger import (
    SKILL_CONSOLIDATION,
    SKILL_OPTIMIZATION,
    Ledger,
    LedgerRecord,
    optimization_fingerprint,
    record_of,
    should_skip,
    skill_corpus_fingerprint,
)
from rockskills_gui.core.dream.ledger import parse_ledger as parse_ledger  # re-exported
from rockskills_gui.core.dream.ledger import read_ledger as read_ledger  # re-exported
from rockskills_gui.core.dream.passes import (
    GAP_MIN_SESSIONS,
    OPTIMIZE_FEEDBACK_CAP,
    USAGE_CAP,
    USAGE_DAYS,
    DreamPass,
)
from rockskills_gui.core.dream.prompts import (
    analyze_consolidation,
    analyze_optimization,
    group_sessions,
    prune_candidates,
)
from rockskills_gui.core.model.profile import Curation
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp

LEDGER = "the dream-pass ledger"  # how a reason from the ledger starts (brief/describe say "current")


@dataclass(frozen=True)
class PassOutlook:
    """``runs`` False: RockBot would skip the pass, ``reason`` says why; True: an optional note."""

    dream_pass: DreamPass
    runs: bool
    reason: str | None = None
    short: str = ""  # the same in a few words, for a line beside the pass
    format_limit: bool = False  # the library's format lacks the data (not RockBot's own rule)


def _ledger_skip(pass_name: str, record: LedgerRecord | None, fingerprint: str, now: Timestamp,
                 curation: Curation) -> str | None:
    """Why the ledger gate would skip ``pass_name``, or None."""
    if not should_skip(record, fingerprint, now, curation.ledger_max_skip_days):
        return None
    assert record is not None
    ran = record.last_run_at.isoformat()[:10]
    until = record.last_run_at.add_days(curation.ledger_max_skip_days).isoformat()[:10]
    return (f"{LEDGER} says '{pass_name}' last ran on {ran} on the same inputs (fingerprint "
            f"{record.fingerprint}): RockBot would skip it (inputs unchanged) until {until}")


def pass_outlook(skills: Iterable[Skill], inputs: DreamInputs, ledger: Ledger | None = None,
                 curation: Curation | None = None, rockbot_data: bool = True) -> dict[DreamPass, PassOutlook]:
    """What RockBot would do with each LLM pass on ``skills`` and ``inputs`` (see the module doc);
    ``curation``: the profile's (its singleton prefixes and the ledger's floor). ``rockbot_data``
    False: a library with no RockBot logs and no usage dates (SKILL.md), where skill gap cannot
    run, nothing is pruned and optimization expands the thin skills (:mod:`.formats`)."""
    curation = curation or Curation()
    current = list(skills)
    result: dict[DreamPass, PassOutlook] = {}
    turns = inputs.conversation.events
    if not rockbot_data:
        return _without_rockbot_data(current, inputs)
    if not turns:
        result[DreamPass.GAP] = PassOutlook(DreamPass.GAP, False, "the conversation log is empty",
                                            "the conversation log is empty")
    else:
        sessions = [entries for _sid, entries in group_sessions(turns)
                    if any(t.role == "user" and (t.content or "").strip() for t in entries)]
        note, short = None, ""
        if len(sessions) < GAP_MIN_SESSIONS:
            note = (f"only {len(sessions)} session with a user message: nothing can recur across "
                    f"sessions, which the gap directive asks for (at least {GAP_MIN_SESSIONS})")
            short = f"only {len(sessions)} session, nothing can recur"
        result[DreamPass.GAP] = PassOutlook(DreamPass.GAP, True, note, short)
    pruned = {c.name for c in prune_candidates(current, inputs.now)}
    rest = [s for s in current if s.name not in pruned]
    if len(rest) < 2:
        reason = analyze_consolidation(rest, inputs).skipped or "fewer than 2 skills after pruning"
        result[DreamPass.CONSOLIDATE] = PassOutlook(DreamPass.CONSOLIDATE, False, reason,
                                                    f"{len(rest)} skill(s) left after pruning")
        result[DreamPass.OPTIMIZE] = PassOutlook(
            DreamPass.OPTIMIZE, False, "RockBot runs optimization only after a consolidation",
            "it runs only after a consolidation")
        return result
    record = record_of(ledger, SKILL_CONSOLIDATION)
    gate = _ledger_skip(SKILL_CONSOLIDATION, record, skill_corpus_fingerprint(
        rest, curation.singleton_prefixes), inputs.now, curation) if record is not None else None
    result[DreamPass.CONSOLIDATE] = PassOutlook(
        DreamPass.CONSOLIDATE, gate is None, gate,
        f"inputs unchanged since {record.last_run_at.isoformat()[:10]} (ledger)"
        if gate is not None and record is not None else "")
    if gate is not None:
        result[DreamPass.OPTIMIZE] = PassOutlook(
            DreamPass.OPTIMIZE, False, f"{LEDGER} skips consolidation, and RockBot runs optimization "
            "only after a consolidation that got a reply", "consolidation is skipped (ledger)")
        return result
    skipped = analyze_optimization(rest, inputs).skipped
    record = record_of(ledger, SKILL_OPTIMIZATION)
    if skipped is None and record is not None:
        since = inputs.now.add_days(-USAGE_DAYS)
        fingerprint = optimization_fingerprint(
            (e.timestamp for e in inputs.usage.query(since, USAGE_CAP)),
            (e.timestamp for e in inputs.feedback.query(since, OPTIMIZE_FEEDBACK_CAP)))
        gate = _ledger_skip(SKILL_OPTIMIZATION, record, fingerprint, inputs.now, curation)
        if gate is not None:
            result[DreamPass.OPTIMIZE] = PassOutlook(
                DreamPass.OPTIMIZE, False, gate,
                f"no usage or feedback since {record.last_run_at.isoformat()[:10]} (ledger)")
            return result
    result[DreamPass.OPTIMIZE] = PassOutlook(DreamPass.OPTIMIZE, skipped is None, skipped,
                                             skipped.split(" (RockBot", 1)[0] if skipped else "")
    return result


def _without_rockbot_data(skills: list[Skill], inputs: DreamInputs) -> dict[DreamPass, PassOutlook]:
    result = {DreamPass.GAP: PassOutlook(DreamPass.GAP, False, NO_CONVERSATIONS,
                                         "needs RockBot's conversation log", True)}
    if len(skills) < 2:
        reason = analyze_consolidation(skills, inputs).skipped or "fewer than 2 skills"
        result[DreamPass.CONSOLIDATE] = PassOutlook(DreamPass.CONSOLIDATE, False, reason,
                                                    f"{len(skills)} skill(s)")
        result[DreamPass.OPTIMIZE] = PassOutlook(DreamPass.OPTIMIZE, False, "it runs only after a "
                                                 "consolidation", "it runs only after a consolidation")
        return result
    result[DreamPass.CONSOLIDATE] = PassOutlook(DreamPass.CONSOLIDATE, True, NO_DATES,
                                                "no prune: SKILL.md keeps no usage dates", True)
    skipped = analyze_optimization(skills, inputs, thin_only=True).skipped
    result[DreamPass.OPTIMIZE] = PassOutlook(DreamPass.OPTIMIZE, skipped is None, skipped or NO_USAGE,
                                             skipped or "expands the thin skills (no usage log)", True)
    return result


def brief(outlook: PassOutlook) -> str:
    """The few words shown beside a pass ("" when there is nothing to say); :func:`describe`
    gives the whole sentence."""
    if not outlook.short:
        return ""
    if outlook.runs:
        return f"Note: {outlook.short}"
    if outlook.format_limit:
        return f"Not for this library: {outlook.short}"
    who = "RockBot (current)" if (outlook.reason or "").startswith(LEDGER) \
        else "RockBot"
    return f"{who} would skip it: {outlook.short}"


def describe(outlook: PassOutlook) -> str:
    """The line shown beside a pass ("" when there is nothing to say)."""
    if outlook.reason is None:
        return ""
    if outlook.format_limit:
        return f"{'Note' if outlook.runs else 'This library cannot run it'}: {outlook.reason}."
    reason = outlook.reason
    for suffix, instead in ((" (RockBot skips skill-gap detection)", ""),
                            (" (RockBot skips optimization)", ""),
                            (" (RockBot skips optimization, even with sparse skills)",
                             ", even with sparse skills"),
                            (" (RockBot skips consolidation and optimization)", "")):
        if reason.endswith(suffix):
            reason = reason.removesuffix(suffix) + instead
    if outlook.runs:
        return f"Note: {reason}."
    if reason.startswith(LEDGER):
        return f"RockBot (current): {reason}."
    return f"RockBot would not run this pass: {reason}."
