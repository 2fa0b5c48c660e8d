"""The user messages of RockBot's skill dream passes, byte for byte, and the 18-month prune.

Spec: rockbot-skills.md §10.2 (skill gap), §10.3 (prune), §10.4 (consolidation), §10.5
(optimization). Every line RockBot appends ends in ``\\n`` (StringBuilder.AppendLine on Linux).
Each ``analyze_*`` function returns the prompt (``None`` when RockBot would skip the pass, with the
reason) together with the values behind it, which the plan uses as evidence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.passes import (
    CO_USED_SHOWN,
    CONTENT_CAP,
    GAP_DAYS,
    GAP_FEEDBACK_CAP,
    GAP_MIN_SESSIONS,
    GAP_MIN_TERM_LEN,
    GAP_TOP_TERMS,
    GAP_USAGE_CAP,
    MIN_CLUSTER,
    OPTIMIZE_FEEDBACK_CAP,
    TOP_PAIRS,
    USAGE_CAP,
    USAGE_DAYS,
)
from rockskills_gui.core.model.manifest import manifest_entries
from rockskills_gui.core.model.names import fold, is_null_or_whitespace, sort_key
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.skill import SPARSE_CONTENT_UNITS, Skill, utf16_len
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.bm25 import to_lower_invariant
from rockskills_gui.core.usage.events import ConversationTurn, FeedbackEntry, SignalType
from rockskills_gui.core.usage.signals import prune_threshold
from rockskills_gui.core.usage.stats import UsageStats, UsageWindow, analyze

CONSOLIDATION_TRUNCATED = "[... truncated for consolidation pass ...]"
OPTIMIZATION_TRUNCATED = "[... truncated ...]"
_GAP_SPLIT = re.compile(r"[ \n\t,.!?;:()\[\]]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _Lines:
    """StringBuilder.AppendLine: every appended line is followed by ``\\n``."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, line: str = "") -> None:
        self._parts.append(line)
        self._parts.append("\n")

    def text(self) -> str:
        return "".join(self._parts)


def listed(skills: Iterable[Skill]) -> list[Skill]:
    """RockBot's List order (ordinal-ignore-case by name)."""
    return sorted(skills, key=lambda s: sort_key(s.name))


def utf16_head(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units, as .NET ``s[..units]`` (a pair may be cut in two)."""
    if utf16_len(text) <= units:
        return text
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    return data.decode("utf-16-le", "surrogatepass")


def capped(content: str | None, marker: str) -> str:
    """Content, or its first 800 units plus ``\\n`` and the truncation marker."""
    text = content or ""
    if utf16_len(text) > CONTENT_CAP:
        return utf16_head(text, CONTENT_CAP) + "\n" + marker
    return text


def printable(text: str) -> str:
    """Replace lone surrogates (a pair cut by truncation) with U+FFFD so the text encodes as UTF-8."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def is_sparse(skill: Skill, now: Timestamp) -> bool:
    """Content under 200 UTF-16 units and createdAt before ``now - 7 days`` (``Skill.is_sparse``)."""
    return skill.is_sparse(now)


def _detail(entry: FeedbackEntry) -> str:
    return "" if is_null_or_whitespace(entry.detail) else f' — "{entry.detail}"'


# ---------------------------------------------------------------- prune (§10.3)


@dataclass(frozen=True)
class PruneCandidate:
    """A skill the consolidation pass deletes first: last activity before the threshold."""

    name: str
    last_activity: Timestamp
    threshold: Timestamp


def prune_candidates(skills: Iterable[Skill], now: Timestamp) -> list[PruneCandidate]:
    """Skills whose ``lastUsedAt ?? updatedAt ?? createdAt`` is earlier than now - 18 months."""
    threshold = prune_threshold(now)
    return [PruneCandidate(s.name, s.last_activity(), threshold) for s in listed(skills)
            if s.last_activity().utc_ticks < threshold.utc_ticks]


# ---------------------------------------------------------------- skill gap (§10.2)


@dataclass(frozen=True)
class GapAnalysis:
    """The skill-gap prompt and what went into it."""

    prompt: str | None
    skipped: str | None = None
    sessions: list[tuple[str | None, list[ConversationTurn]]] = field(default_factory=list)
    negative: list[FeedbackEntry] = field(default_factory=list)
    positive: list[FeedbackEntry] = field(default_factory=list)
    first_user_messages: list[str] = field(default_factory=list)
    recurring_terms: list[tuple[str, int]] = field(default_factory=list)


def group_sessions(turns: Sequence[ConversationTurn]) -> list[tuple[str | None, list[ConversationTurn]]]:
    """Turns grouped by session id (ordinal), sessions in order of first appearance."""
    groups: dict[str | None, list[ConversationTurn]] = {}
    for turn in turns:
        groups.setdefault(turn.session_id, []).append(turn)
    return list(groups.items())


def recurring_terms(messages: Sequence[str]) -> list[tuple[str, int]]:
    """Terms (>= 4 units) in >= 2 of the messages, by count descending (first seen on ties), top 15."""
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for message in messages:
        seen: set[str] = set()
        for token in _GAP_SPLIT.split(to_lower_invariant(message)):
            if utf16_len(token) < GAP_MIN_TERM_LEN:
                continue
            key = fold(token)
            if key in seen:
                continue
            seen.add(key)
            spelling.setdefault(key, token)
            counts[key] = counts.get(key, 0) + 1
    kept = [(spelling[k], n) for k, n in counts.items() if n >= GAP_MIN_SESSIONS]
    kept.sort(key=lambda item: -item[1])
    return kept[:GAP_TOP_TERMS]


def analyze_gap(skills: Iterable[Skill], inputs: DreamInputs) -> GapAnalysis:
    """The skill-gap pass (needs a non-empty conversation log)."""
    turns = inputs.conversation.events
    if not turns:
        return GapAnalysis(None, "the conversation log is empty (RockBot skips skill-gap detection)")
    out = _Lines()
    out.add("Review the following conversation log for recurring request patterns:")
    out.add()
    sessions = group_sessions(turns)
    for session_id, entries in sessions:
        out.add(f"## Session: {session_id or ''}")
        for turn in entries:
            out.add(f"[{turn.role or ''}] {turn.content or ''}")
        out.add()
    existing = listed(skills)
    if existing:
        out.add("## Existing skills (do not duplicate these):")
        for skill in existing:
            out.add(f"- {skill.name}: {skill.summary or ''}")
        out.add()
    since = inputs.now.add_days(-GAP_DAYS)
    feedback = inputs.feedback.query(since, GAP_FEEDBACK_CAP)
    negative: list[FeedbackEntry] = []
    positive: list[FeedbackEntry] = []
    if feedback:
        used = {fold(e.session_id) for e in inputs.usage.query(since, GAP_USAGE_CAP)
                if e.session_id is not None}
        for entry in feedback:
            if entry.session_id is not None and fold(entry.session_id) in used:
                continue
            if entry.signal_type in (SignalType.Correction, SignalType.UserThumbsDown):
                negative.append(entry)
            elif entry.signal_type == SignalType.UserThumbsUp:
                positive.append(entry)
        _gap_feedback(out, negative,
                      "## Negative feedback on sessions with NO skill match (strong gap signals):",
                      "These sessions had quality problems and no existing skill was invoked — a new "
                      "skill may have helped.")
        _gap_feedback(out, positive,
                      "## Positive feedback on sessions with NO skill match (codification candidates):",
                      "The agent handled these well without a skill — consider codifying the approach "
                      "into a reusable skill.")
    firsts: list[str] = []
    for _, entries in sessions:
        first = next((t for t in entries if t.role == "user"), None)
        text = (first.content if first else None) or ""
        if not is_null_or_whitespace(text):
            firsts.append(text)
    terms: list[tuple[str, int]] = []
    if len(firsts) >= GAP_MIN_SESSIONS:
        terms = recurring_terms(firsts)
        if terms:
            out.add("## Recurring topics across sessions (term frequency ≥ 2 sessions):")
            out.add("Use these as stronger signals — high-frequency terms indicate recurring user needs.")
            for term, count in terms:
                out.add(f'- "{term}": {count} session(s)')
            out.add()
    return GapAnalysis(out.text(), None, sessions, negative, positive, firsts, terms)


def _gap_feedback(out: _Lines, entries: list[FeedbackEntry], header: str, note: str) -> None:
    if not entries:
        return
    out.add(header)
    out.add(note)
    for entry in entries:
        out.add(f"- [{entry.signal_name}] session {entry.session_id or ''}: {entry.summary or ''}"
                f"{_detail(entry)}")
    out.add()


# ---------------------------------------------------------------- consolidation (§10.4)


@dataclass(frozen=True)
class ConsolidationAnalysis:
    """The consolidation prompt (built after pruning) and what went into it."""

    prompt: str | None
    skipped: str | None
    skills: tuple[Skill, ...]
    stats: UsageStats
    sparse: list[str] = field(default_factory=list)
    clusters: list[tuple[str, list[str]]] = field(default_factory=list)


# ICU root collation order of ASCII punctuation and symbols (what .NET's culture comparer uses).
_PUNCTUATION = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _culture_char(ch: str) -> tuple[int, int]:
    index = _PUNCTUATION.find(ch)
    if index >= 0:
        return (0, index)
    if ch.isdigit():
        return (1, ord(ch))
    if ch.isalpha():
        return (2, ord(ch.lower()) if len(ch.lower()) == 1 else ord(ch))
    return (3, ord(ch))


def culture_key(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], str]:
    """An approximation of .NET's culture-sensitive string order (ICU root) for skill names.

    Primary: punctuation (``_`` < ``-`` < ``/``) before digits before letters, letters without case;
    then lower case before upper case; then ordinal. Exact for names RockBot accepts
    (``[A-Za-z0-9_-/]``); other characters may sort differently from real ICU.
    """
    return tuple(map(_culture_char_cached, name)), tuple(map(_upper_flag, name)), name


def _upper(ch: str) -> int:
    return 1 if ch.isupper() else 0


# per character and pure: cached (a dream sorts the names of every '/' cluster)
_culture_char_cached = functools.lru_cache(maxsize=4096)(_culture_char)
_upper_flag = functools.lru_cache(maxsize=4096)(_upper)


def prefix_clusters(skills: Sequence[Skill]) -> list[tuple[str, list[str]]]:
    """Names grouped by the text before the first '/', groups of >= 2, largest first (stable)."""
    groups: dict[str, list[str]] = {}
    for skill in skills:
        if "/" in skill.name:
            groups.setdefault(skill.name[: skill.name.index("/")], []).append(skill.name)
    kept = [(prefix, names) for prefix, names in groups.items() if len(names) >= MIN_CLUSTER]
    kept.sort(key=lambda item: -len(item[1]))
    return [(prefix, sorted(names, key=culture_key)) for prefix, names in kept]


def usage_stats(inputs: DreamInputs) -> UsageStats:
    """Usage of the last 30 days (first 10 000 events), as RockBot counts it."""
    return analyze(inputs.usage, UsageWindow.last_days(inputs.now, USAGE_DAYS, USAGE_CAP))


# RockBot (current)'s consolidation paragraph for namespaced-singleton prefixes (MarimerLLC/rockbot
# DreamService.BuildSkillConsolidationUserMessage @ 150a84c, PRs #377/#380); {prefixes} is filled
# in, '{server-name}' is literal text there.
SINGLETON_HEADER = "Constraints \u2014 namespaced-singleton prefixes:"
SINGLETON_TEXT = (
    "The following skill name prefix(es) are namespaced bindings to live external entities: {prefixes}. "
    "Each immediate suffix is a 1:1 binding (e.g. 'mcp/{{server-name}}' refers to a specific MCP server). "
    "Do NOT merge skills across distinct suffixes \u2014 'mcp/calendar-mcp' and 'mcp/ms365' must remain "
    "separate, and a sub-skill of one ('mcp/ms365/calendar-tools') must never be merged with a sub-skill "
    "or canonical entry of another. Do NOT replace these prefixes with an abstract parent guide. Within a "
    "single suffix's namespace (e.g. 'mcp/calendar-mcp/*'), normal semantic-overlap merging applies "
    "\u2014 duplicate sub-skills covering the same tool may be merged, but sub-skills covering distinct "
    "functional areas of a large server should be left alone.")


def singleton_paragraph(prefixes: Sequence[str]) -> str:
    """The paragraph's second line for ``prefixes`` (in provider order)."""
    return SINGLETON_TEXT.format(prefixes=", ".join(f"'{p}*'" for p in prefixes))


def attached_annotation(skill: Skill) -> str:
    """``FormatAttachedAnnotation`` (@ 150a84c): `` [attached: file (Type*) \u2014 description; ...]``
    for a skill with resources, else ""."""
    entries = manifest_entries(skill) if skill.extra else None
    if not entries:
        return ""
    shown = [f"{e.filename} ({e.type}{'*' if e.provisional else ''}) \u2014 {e.description}" for e in entries]
    return " [attached: " + "; ".join(shown) + "]"


def _no_annotation(_skill: Skill) -> str:
    return ""


def analyze_consolidation(skills: Iterable[Skill], inputs: DreamInputs,
                          profile: AgentProfile | None = None) -> ConsolidationAnalysis:
    """The consolidation pass over ``skills`` (already pruned); skipped with fewer than 2 skills.

    ``profile`` (default: RockBot 64e82cc's prompt): RockBot (current) annotates each skill's
    resources, leaves its singleton prefixes out of the prefix clusters and ends with the
    namespaced-singleton paragraph (``curation.singleton_prefixes``)."""
    singletons = profile.curation.singleton_prefixes if profile is not None else ()
    attached = attached_annotation if profile is not None and profile.holds.resources else _no_annotation
    current = tuple(listed(skills))
    stats = usage_stats(inputs)
    if len(current) < 2:
        return ConsolidationAnalysis(None, f"only {len(current)} skill(s) after pruning (RockBot skips "
                                     "consolidation and optimization)", current, stats)
    out = _Lines()
    out.add(f"The agent currently has {len(current)} skills. Consolidate them:")
    out.add()
    sparse: list[str] = []
    for i, skill in enumerate(current, start=1):
        line = f"{i}. [NAME:{skill.name}] [usage: {stats.count(skill.name)}x in last 30d]"
        partners = stats.partners(skill.name)
        if partners:
            line += f" [co-used with: {', '.join(partners[:CO_USED_SHOWN])}]"
        if is_sparse(skill, inputs.now):
            sparse.append(skill.name)
            line += " [sparse-content: may need examples or steps]"
        out.add(f"{line}{attached(skill)} summary: {skill.summary or ''}")
        out.add(capped(skill.content, CONSOLIDATION_TRUNCATED))
        out.add()
    pairs = stats.top_pairs(TOP_PAIRS)
    if pairs:
        out.add()
        out.add("Frequently co-used skill pairs (across sessions in last 30 days):")
        for pair in pairs:
            out.add(pair.line())
    singleton_keys = {fold(p.rstrip("/")) for p in singletons}
    clusters = [c for c in prefix_clusters(current) if fold(c[0]) not in singleton_keys]
    if clusters:
        out.add()
        out.add("Skill name-prefix clusters (consider whether each cluster warrants an abstract parent "
                "guide skill):")
        for prefix, names in clusters:
            out.add(f"- '{prefix}/*': {', '.join(names)}")
    if singletons:
        out.add()
        out.add(SINGLETON_HEADER)
        out.add(singleton_paragraph(singletons))
    return ConsolidationAnalysis(out.text(), None, current, stats, sparse, clusters)


# ---------------------------------------------------------------- optimization (§10.5)


@dataclass(frozen=True)
class OptimizationAnalysis:
    """The optimization prompt (built after consolidation was applied) and what went into it."""

    prompt: str | None
    skipped: str | None = None
    at_risk_sessions: list[str] = field(default_factory=list)
    at_risk_skill_names: list[str] = field(default_factory=list)
    at_risk_skills: list[Skill] = field(default_factory=list)
    failure_context: dict[str, list[FeedbackEntry]] = field(default_factory=dict)  # fold(name) ->
    sparse: list[Skill] = field(default_factory=list)


def _at_risk(entry: FeedbackEntry) -> bool:
    if entry.signal_type in (SignalType.Correction, SignalType.UserThumbsDown):
        return True
    if entry.signal_type == SignalType.SessionSummary:
        text = to_lower_invariant(f"{entry.summary or ''} {entry.detail or ''}")
        return "poor" in text or "fair" in text
    return False


def analyze_optimization(skills: Iterable[Skill], inputs: DreamInputs,
                         profile: AgentProfile | None = None,
                         thin_only: bool = False) -> OptimizationAnalysis:
    """The optimization pass over ``skills`` (the library after consolidation); ``profile``: as
    :func:`analyze_consolidation` (RockBot (current) annotates resources). ``thin_only``: a
    library with no usage or feedback log (SKILL.md): the prompt lists the skills with under 200
    characters of content for expansion, as RockBot lists sparse ones (no at-risk session)."""
    attached = attached_annotation if profile is not None and profile.holds.resources else _no_annotation
    current = listed(skills)
    if thin_only:
        thin = [s for s in current if utf16_len(s.content or "") < SPARSE_CONTENT_UNITS]
        if not thin:
            return OptimizationAnalysis(None, f"no skill has under {SPARSE_CONTENT_UNITS} characters of "
                                              "content (nothing to expand)")
        out = _Lines()
        out.add("The following skill(s) need review.")
        out.add("Sparse skills have minimal content and should be expanded with concrete examples or steps.")
        out.add()
        _sparse_section(out, thin, attached)
        return OptimizationAnalysis(out.text(), None, sparse=thin)
    since = inputs.now.add_days(-USAGE_DAYS)
    usage = [e for e in inputs.usage.query(since, USAGE_CAP)
             if e.session_id is not None and e.skill_name is not None]
    if not usage:
        return OptimizationAnalysis(None, "no skill usage in the last 30 days (RockBot skips optimization)")
    with_skills = {fold(e.session_id) for e in usage if e.session_id is not None}
    by_session: dict[str, list[FeedbackEntry]] = {}
    at_risk: dict[str, str] = {}  # fold -> first spelling, insertion order
    for entry in inputs.feedback.query(since, OPTIMIZE_FEEDBACK_CAP):
        if entry.session_id is None or fold(entry.session_id) not in with_skills:
            continue
        key = fold(entry.session_id)
        by_session.setdefault(key, []).append(entry)
        if _at_risk(entry):
            at_risk.setdefault(key, entry.session_id)
    if not at_risk:
        return OptimizationAnalysis(None, "no at-risk session in the last 30 days (RockBot skips "
                                    "optimization, even with sparse skills)")
    names: dict[str, str] = {}
    for event in usage:
        assert event.session_id is not None and event.skill_name is not None
        if fold(event.session_id) in at_risk:
            names.setdefault(fold(event.skill_name), event.skill_name)
    by_name = {fold(s.name): s for s in current}
    risky = [by_name[k] for k in names if k in by_name]
    sparse = [s for s in current if is_sparse(s, inputs.now) and fold(s.name) not in names]
    if not risky and not sparse:
        return OptimizationAnalysis(None, "no at-risk or sparse skill (RockBot skips optimization)",
                                    list(at_risk.values()), list(names.values()))
    out = _Lines()
    out.add("The following skill(s) need review.")
    out.add("At-risk skills were used in sessions with quality problems; improve them based on failure "
            "context.")
    out.add("Sparse skills have minimal content and should be expanded with concrete examples or steps.")
    out.add()
    context: dict[str, list[FeedbackEntry]] = {}
    for skill in risky:
        out.add(f"## Skill: {skill.name}{attached(skill)}")
        out.add(capped(skill.content, OPTIMIZATION_TRUNCATED))
        out.add()
        sessions: dict[str, None] = {}
        for event in usage:
            assert event.session_id is not None and event.skill_name is not None
            if fold(event.skill_name) == fold(skill.name) and fold(event.session_id) in at_risk:
                sessions.setdefault(fold(event.session_id))
        relevant = [e for s in sessions for e in by_session.get(s, [])]
        context[fold(skill.name)] = relevant
        if relevant:
            out.add("### Associated failure context:")
            for entry in relevant:
                out.add(f"- [{entry.signal_name}] {entry.summary or ''}{_detail(entry)}")
            out.add()
    if sparse:
        _sparse_section(out, sparse, attached)
    return OptimizationAnalysis(out.text(), None, list(at_risk.values()), list(names.values()), risky,
                                context, sparse)


def _sparse_section(out: _Lines, sparse: Sequence[Skill],
                    attached: Callable[[Skill], str] = _no_annotation) -> None:
    """The sparse skills for expansion, each with its ``attached`` annotation (RockBot (current))."""
    out.add("## Sparse skills (need expansion — add examples, steps, or clarifying detail):")
    out.add()
    for skill in sparse:
        out.add(f"## Skill: {skill.name} [SPARSE]{attached(skill)}")
        out.add(skill.content or "")
        out.add()
        out.add("### Review note: This skill has minimal content. Expand it with concrete steps, "
                "examples, and edge cases.")
        out.add()


def estimate_tokens(text: str) -> int:
    """A rough token count for display (about four UTF-8 bytes per token)."""
    return (len(text.encode("utf-8", "replace")) + 3) // 4
