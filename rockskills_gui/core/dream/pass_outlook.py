"""Would RockBot itself run a dream pass on this data? Said beside each pass before a run (issue 16).

The skip rules are RockBot's, reused from :mod:`rockskills_gui.core.dream.prompts`: skill gap
needs a non-empty conversation log; consolidation needs two skills after the 18-month prune;
optimization runs only after a consolidation and needs an at-risk session and an at-risk or
sparse skill. A pass RockBot runs may still carry a note (one session only: nothing can recur
across sessions, which the gap directive asks for).

RockBot (current) also keeps ``dream-pass-ledger.json`` (DreamPassLedger: pass name ->
``{fingerprint, lastRunAt}``) and skips a corpus-wide pass while its input fingerprint is
unchanged, for at most ``DreamPassMaxSkipInterval`` (7 days). Of the skill passes only
consolidation is corpus-wide (the skill catalog). The fingerprint's exact rule was not found
upstream, so "unchanged" is judged here from the catalog's own clocks: no skill created or
updated after ``lastRunAt`` (README, Notes: RockBot (current)). A missing or unreadable ledger
reads as empty, as RockBot's does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.dream.formats import NO_CONVERSATIONS, NO_DATES, NO_USAGE
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.passes import GAP_MIN_SESSIONS, DreamPass
from rockskills_gui.core.dream.prompts import (
    analyze_consolidation,
    analyze_optimization,
    group_sessions,
    prune_candidates,
)
from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import TICKS_PER_DAY, Timestamp, TimestampError
from rockskills_gui.core.storage import fileio

MAX_SKIP_DAYS = 7  # DreamOptions.DreamPassMaxSkipInterval
LEDGER_CONSOLIDATION = "skill consolidation"  # the ledger key (assumed; see the module doc)
MAX_LEDGER_BYTES = 1_000_000


@dataclass(frozen=True)
class LedgerRecord:
    """DreamPassLedger.PassRecord: the fingerprint a pass last ran on, and when."""

    fingerprint: str
    last_run_at: Timestamp


@dataclass(frozen=True)
class PassOutlook:
    """``runs`` False: RockBot would skip the pass, ``reason`` says why; True: an optional note."""

    dream_pass: DreamPass
    runs: bool
    reason: str | None = None
    short: str = ""  # the same in a few words, for a line beside the pass
    format_limit: bool = False  # the library's format lacks the data (not RockBot's own rule)


def _key(name: str) -> str:
    return " ".join(name.replace("-", " ").replace("_", " ").casefold().split())


def parse_ledger(data: bytes) -> dict[str, LedgerRecord]:
    """The ledger's records by normalised pass name; records without a fingerprint or a readable
    ``lastRunAt`` are left out, and anything unreadable yields an empty ledger (as RockBot)."""
    try:
        raw = loads_untrusted(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    records: dict[str, LedgerRecord] = {}
    for name, value in raw.items():
        if not isinstance(value, dict):
            continue
        fields = {k.casefold(): v for k, v in value.items()}
        fingerprint, when = fields.get("fingerprint"), fields.get("lastrunat")
        if not isinstance(fingerprint, str) or not fingerprint.strip() or not isinstance(when, str):
            continue
        try:
            records[_key(str(name))] = LedgerRecord(fingerprint, Timestamp.parse(when))
        except (TimestampError, ValueError):
            continue
    return records


def read_ledger(agent_dir: Path, file_name: str | None) -> dict[str, LedgerRecord]:
    """The agent's pass ledger (``file_name`` None: the profile keeps none -> empty)."""
    if file_name is None:
        return {}
    try:
        data = fileio.read_regular(agent_dir / file_name, MAX_LEDGER_BYTES)
    except OSError:  # (also one over MAX_LEDGER_BYTES, not read)
        return {}
    return parse_ledger(data)


def _ledger_skip(record: LedgerRecord | None, skills: Iterable[Skill], now: Timestamp) -> str | None:
    """Why the ledger gate would skip consolidation, or None."""
    if record is None:
        return None
    ran = record.last_run_at.utc_ticks
    age = now.utc_ticks - ran
    if age >= MAX_SKIP_DAYS * TICKS_PER_DAY:
        return None  # the floor: RockBot runs it anyway
    for skill in skills:
        changed = skill.updated_at or skill.created_at
        if max(changed.utc_ticks, skill.created_at.utc_ticks) > ran:
            return None
    until = record.last_run_at.add_days(MAX_SKIP_DAYS).isoformat()[:10]
    return (f"the dream-pass ledger says it last ran on {record.last_run_at.isoformat()[:10]} and no "
            f"skill changed since: RockBot would skip it (inputs unchanged) until {until}")


def pass_outlook(skills: Iterable[Skill], inputs: DreamInputs,
                 ledger: Mapping[str, LedgerRecord] | None = None,
                 rockbot_data: bool = True) -> dict[DreamPass, PassOutlook]:
    """What RockBot would do with each LLM pass on ``skills`` and ``inputs`` (see the module doc).
    ``rockbot_data`` False: a library with no RockBot logs and no usage dates (SKILL.md), where
    skill gap cannot run, nothing is pruned and optimization expands the thin skills
    (:mod:`.formats`)."""
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
    record = (ledger or {}).get(LEDGER_CONSOLIDATION)
    gate = _ledger_skip(record, current, inputs.now)
    result[DreamPass.CONSOLIDATE] = PassOutlook(
        DreamPass.CONSOLIDATE, gate is None, gate,
        f"inputs unchanged since {record.last_run_at.isoformat()[:10]} (ledger)"
        if gate is not None and record is not None else "")
    skipped = analyze_optimization(rest, inputs).skipped
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
    who = "RockBot (current)" if (outlook.reason or "").startswith("the dream-pass ledger") \
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
    if reason.startswith("the dream-pass ledger"):
        return f"RockBot (current): {reason}."
    return f"RockBot would not run this pass: {reason}."
