"""RockBot (current)'s dream-pass ledger and the fingerprints its gated passes are compared on.

Ported from MarimerLLC/rockbot ``src/RockBot.Host/DreamPassLedger.cs`` @ e7f95a1 and
``src/RockBot.Host/DreamService.cs`` @ 150a84c (``CorpusFingerprint``,
``EventWatermarkFingerprint``, ``SkillCorpusFingerprint``, ``ContentFingerprint``, the pass names
given to ``InvokeDreamPassAsync``), so "RockBot would skip this pass" is RockBot's own answer:

- ``dream-pass-ledger.json``: pass name -> ``{fingerprint, lastRunAt}``, names compared
  case-insensitively (OrdinalIgnoreCase); a record with a blank fingerprint is dropped; a file
  that does not parse is an empty ledger (every gated pass runs);
- a pass is skipped when its record's fingerprint equals (ignoring case) the one of its inputs
  now and less than ``DreamPassMaxSkipInterval`` (7 days) passed since ``lastRunAt`` (a clock
  gone backwards also skips); a record is written only after a reply that parsed;
- ``skill consolidation`` is fingerprinted on the catalog after the 18-month prune (names in
  OrdinalIgnoreCase order; summary, content, see-also and manifest; not the timestamps) and the
  namespaced-singleton prefixes; ``skill optimization`` on the newest usage event and the newest
  feedback entry of its 30-day window; ``skill gap`` and ``mcp skill refresh`` are not gated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.manifest import manifest_entries
from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import TICKS_PER_DAY, Timestamp, TimestampError
from rockskills_gui.core.storage import fileio

# The pass names DreamService gives InvokeDreamPassAsync (the ledger's keys).
SKILL_GAP = "skill gap"
SKILL_CONSOLIDATION = "skill consolidation"
SKILL_OPTIMIZATION = "skill optimization"
MCP_SKILL_REFRESH = "mcp skill refresh"
GATED = (SKILL_CONSOLIDATION, SKILL_OPTIMIZATION)  # of the skill passes
MAX_LEDGER_BYTES = 1_000_000
UNIT_SEPARATOR = "\u001f"


@dataclass(frozen=True)
class LedgerRecord:
    """DreamPassLedger.PassRecord: the fingerprint a pass last ran on, and when."""

    fingerprint: str
    last_run_at: Timestamp


Ledger = Mapping[str, LedgerRecord]  # folded pass name -> record


def parse_ledger(data: bytes) -> dict[str, LedgerRecord]:
    """``DreamPassLedger.LoadAsync``: the records by folded pass name (the last of two spellings
    wins); a blank or null fingerprint drops a record; anything System.Text.Json would refuse
    (not an object, a wrong type, a bad date) yields an empty ledger. A missing ``lastRunAt`` is
    ``DateTimeOffset``'s default (0001-01-01), so the pass runs."""
    try:
        raw = loads_untrusted(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    records: dict[str, LedgerRecord] = {}
    try:
        for name, value in raw.items():
            if value is None:
                continue
            if not isinstance(value, dict):
                return {}
            fields = {str(k).casefold(): v for k, v in value.items()}
            fingerprint, when = fields.get("fingerprint"), fields.get("lastrunat")
            if fingerprint is not None and not isinstance(fingerprint, str):
                return {}
            if when is not None and not isinstance(when, str):
                return {}
            at = Timestamp.parse(when) if when is not None else Timestamp(0)
            if fingerprint is None or not fingerprint.strip():
                continue
            records[fold(str(name))] = LedgerRecord(fingerprint, at)
    except (TimestampError, ValueError):
        return {}
    return records


def read_ledger(agent_dir: Path, file_name: str | None) -> dict[str, LedgerRecord]:
    """The agent's pass ledger (``file_name`` None: the profile keeps none -> empty)."""
    if file_name is None:
        return {}
    try:
        data = fileio.read_regular(agent_dir / file_name, MAX_LEDGER_BYTES)
    except OSError:  # absent, unreadable, too large: RockBot reads it as empty too
        return {}
    return parse_ledger(data)


def record_of(ledger: Ledger | None, pass_name: str) -> LedgerRecord | None:
    return (ledger or {}).get(fold(pass_name))


def should_skip(record: LedgerRecord | None, fingerprint: str, now: Timestamp, max_skip_days: float) -> bool:
    """``DreamPassLedger.ShouldSkip``: never run -> run; inputs changed -> run; a non-positive
    floor -> skip; else skip while less than the floor passed (a clock gone backwards: skip)."""
    if record is None or fold(record.fingerprint) != fold(fingerprint):
        return False
    if max_skip_days <= 0:
        return True
    return now.utc_ticks - record.last_run_at.utc_ticks < max_skip_days * TICKS_PER_DAY


# ---------------------------------------------------------------- fingerprints


def _utf8(text: str) -> bytes:
    """``Encoding.UTF8.GetBytes``: a lone surrogate becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode("utf-8")


def corpus_fingerprint(parts: Iterable[str]) -> str:
    """``CorpusFingerprint``: SHA-256 over each part followed by U+001F (UTF-8), the first 16
    bytes as upper-case hex."""
    text = "".join(part + UNIT_SEPARATOR for part in parts)
    return hashlib.sha256(_utf8(text)).digest()[:16].hex().upper()


def content_fingerprint(content: str | None) -> str:
    """``ContentFingerprint``: the first 8 bytes of SHA-256 (UTF-8), upper-case hex."""
    return hashlib.sha256(_utf8(content or "")).digest()[:8].hex().upper()


def round_trip(when: Timestamp) -> str:
    """``ToUniversalTime().ToString("O")``: UTC, seven fraction digits, ``+00:00``."""
    utc = when.to_utc()
    whole = utc.isoformat()[:19]
    return f"{whole}.{utc.ticks % 10_000_000:07d}+00:00"


def event_watermark(timestamps: Iterable[Timestamp]) -> str:
    """``EventWatermarkFingerprint``: ``watermark:`` + the newest instant, or ``watermark:none``."""
    newest: Timestamp | None = None
    for when in timestamps:
        if newest is None or when.utc_ticks > newest.utc_ticks:
            newest = when
    return "watermark:none" if newest is None else "watermark:" + round_trip(newest)


def _skill_part(skill: Skill) -> str:
    see_also = ",".join(sorted(skill.see_also or (), key=sort_key))
    entries = (manifest_entries(skill) or []) if skill.extra else []
    manifest = sorted(entries, key=lambda r: sort_key(r.filename))
    resources = ",".join(f"{r.filename}:{r.type}:{'prov' if r.provisional else 'conf'}" for r in manifest)
    return "|".join((skill.name, content_fingerprint(skill.summary), content_fingerprint(skill.content),
                     see_also, resources))


def skill_corpus_fingerprint(skills: Sequence[Skill], singleton_prefixes: Iterable[str]) -> str:
    """``SkillCorpusFingerprint`` of the catalog (after the prune) and the singleton prefixes."""
    ordered = sorted(skills, key=lambda s: sort_key(s.name))
    prefixes = sorted(singleton_prefixes, key=lambda p: p.encode("utf-16-be", "surrogatepass"))
    return corpus_fingerprint([*(_skill_part(s) for s in ordered), *("singleton:" + p for p in prefixes)])


def optimization_fingerprint(usage: Iterable[Timestamp], feedback: Iterable[Timestamp]) -> str:
    """The ``skill optimization`` fingerprint: the usage and feedback logs' watermarks."""
    return corpus_fingerprint(["usage:" + event_watermark(usage), "feedback:" + event_watermark(feedback)])
