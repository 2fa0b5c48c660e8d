"""One set of lint checks for every format, shared by the CLI and the problems panel.

Each :class:`Finding` has a stable ``kind`` id, a severity (``error``, ``warning``, ``info``) and
the 1-based line of the file it points at. Files that could not be loaded keep their problem
kinds (``parse-error``, ``missing-description``, ...). The checks: the format's own rules
(Agent Skills spec and quick_validate extras), RockBot's name rules, summary length, sparse
skills, dangling or self see-also, near-duplicates (RockBot's BM25 recall between skills),
unreachable skills (no token of 3+ characters), and an advisory content scan for
prompt-injection and supply-chain markers. Nothing is ever executed; nothing is written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.skillmd_library import DbEntry, SkillMdLibrary
from rockskills_gui.core.library.stores.skillmd import SkillMdEntry
from rockskills_gui.core.model.mcp_freshness import skill_freshness
from rockskills_gui.core.model.names import fold, rockbot_name_error, sort_key
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.rules import mcp_server, resource_filename_error
from rockskills_gui.core.model.skill import SPARSE_CONTENT_UNITS, Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.bm25 import document_text, tokenize
from rockskills_gui.core.recall.bm25_join import SelfJoin

SEVERITIES = ("error", "warning", "info")
SUMMARY_MAX_WORDS = 15
BODY_MAX_LINES = 500
NAME_MAX = 64
NEAR_DUPLICATE_RATIO = 0.8  # another skill scoring >= 80% of a skill's own score for its text
NEAR_DUPLICATE_OVERLAP = 0.75  # or sharing >= 75% of their recall tokens (Jaccard)
BASE64_MIN = 200

_SPEC_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# (kind, severity, pattern, what) -- advisory markers, never a gate (formats.md §G.3 rule 5).
CONTENT_RULES: tuple[tuple[str, str, re.Pattern[str], str], ...] = (
    ("prompt-injection", "warning", re.compile(
        r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+)*"
        r"(previous|prior|above|earlier|preceding|system)\s+(instructions?|prompts?|rules|messages?)",
        re.I), "text telling the model to ignore its instructions"),
    ("prompt-injection", "warning", re.compile(r"<\|?\s*(system|im_start)\s*\|?>", re.I),
     "a chat-template control token"),
    ("prompt-injection", "warning", re.compile(
        r"\b(do not|don't|never)\s+(tell|inform|reveal to|mention to)\s+the\s+user\b", re.I),
     "text asking to hide something from the user"),
    ("pipe-to-shell", "warning", re.compile(
        r"\b(curl|wget|iwr|invoke-webrequest)\b[^\n|;]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b", re.I),
     "a download piped straight into a shell"),
    ("pipe-to-shell", "warning", re.compile(
        r"\b(iex|invoke-expression)\b\s*\(?\s*\(?\s*(iwr|irm|invoke-webrequest|invoke-restmethod|"
        r"new-object\s+net\.webclient)", re.I),
     "a download run with Invoke-Expression"),
    ("pipe-to-shell", "warning", re.compile(
        r"\b(ba|z)?sh\s+(-c\s+)?[\"']?\$\(\s*(curl|wget)\b|\bsh\s+<\(\s*(curl|wget)\b", re.I),
     "a download run by a shell"),
    ("credential-path", "warning", re.compile(
        r"(~|\$HOME|%USERPROFILE%)?/?\.(ssh/(id_[a-z0-9]+|authorized_keys)|aws/credentials|netrc"
        r"|git-credentials|docker/config\.json|kube/config|gnupg/|npmrc|pypirc)\b|/etc/shadow\b"
        r"|\bid_(rsa|ed25519|ecdsa)\b", re.I),
     "a path to credentials"),
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]{" + str(BASE64_MIN) + r",}={0,2}")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad")
_SPECIAL = re.compile("[" + "".join(sorted(_BIDI | _INVISIBLE)) + "\U000e0000-\U000e007f]")
# Per rule of CONTENT_RULES (keep in step): groups of words, one of each group occurs in every
# text the pattern matches, once folded by _RULE_FOLD -- a cheap test before the slow regex.
_RULE_WORDS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("ignore", "disregard", "forget", "override"),),
    (("system", "im_start"),),
    (("do not", "don't", "never"), ("tell", "inform", "reveal to", "mention to"), ("user",)),
    (("curl", "wget", "iwr", "invoke-webrequest"), ("|",), ("sh",)),
    (("iex", "invoke-expression"), ("iwr", "irm", "invoke-webrequest", "invoke-restmethod",
                                    "net.webclient")),
    (("sh",), ("curl", "wget"), ("$(", "<(")),
    ((".ssh/", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json", ".kube/config",
      ".gnupg/", ".npmrc", ".pypirc", "/etc/shadow", "id_rsa", "id_ed25519", "id_ecdsa"),),
)
# re.IGNORECASE lets A-Z and exactly these four characters match a lower-case ASCII letter.
_RULE_FOLD: dict[int, int | str] = {**{c: c + 32 for c in range(0x41, 0x5B)}, 0x130: "i", 0x131: "i",
                                    0x17F: "s", 0x212A: "k"}
_FIELD_LINE = re.compile(r'\s*"(\w+)"\s*:')


@dataclass(frozen=True)
class Finding:
    """One lint result."""

    path: str
    kind: str
    message: str
    severity: str = "warning"
    line: int | None = None
    name: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "message": self.message,
                "severity": self.severity, "line": self.line}


def from_problem(problem: Problem) -> Finding:
    return Finding(problem.path, problem.kind.value, problem.message, problem.severity,
                   problem.line, problem.name)


def fails(findings: Iterable[Finding]) -> bool:
    """True when any finding is an error or a warning (the CLI's exit 1)."""
    return any(f.severity in ("error", "warning") for f in findings)


# ---------------------------------------------------------------- where things are


@dataclass(frozen=True)
class _Where:
    """A skill's file and the line of each field (and of its content's first line)."""

    path: str
    field_lines: dict[str, int]
    content_line: int | None  # file line of content line 1, when content maps to file lines
    entry: SkillMdEntry | None = None


def _rockbot_where(lib: Library, skill: Skill) -> _Where:
    entry = lib.entry(skill.name)
    text = entry.raw.decode("utf-8", "replace")
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _FIELD_LINE.match(line)
        if m and m[1].lower() not in lines:
            lines[m[1].lower()] = number
    return _Where(lib.layout.display_path(entry.path),
                  {"name": lines.get("name", 1), "summary": lines.get("summary", 1),
                   "content": lines.get("content", 1), "seealso": lines.get("seealso", 1),
                   "manifest": lines.get("manifest", 1)}, None)


def _skillmd_where(lib: SkillMdLibrary, entry: SkillMdEntry | DbEntry) -> _Where:
    shown = lib.layout.display_path(entry.path)
    if isinstance(entry, DbEntry):
        return _Where(shown, {}, None)
    lines = {"name": entry.file_line("name") or 1, "summary": entry.file_line("description") or 1,
             "seealso": entry.file_line("metadata") or 1}
    content_line = entry.doc.body_line + entry.body_prefix.count("\n")
    lines["content"] = content_line
    return _Where(shown, lines, content_line, entry)


# ---------------------------------------------------------------- checks


def _name_checks(skill: Skill, where: _Where, rockbot: bool) -> list[Finding]:
    out: list[Finding] = []
    line = where.field_lines.get("name")
    if not rockbot:
        error = rockbot_name_error(skill.name)
        if error is not None:
            out.append(Finding(where.path, "rockbot-name", f"{error} (converting to RockBot renames it)",
                               "info", line, skill.name))
    return out


def _spec_checks(lib: SkillMdLibrary, entry: SkillMdEntry, where: _Where) -> list[Finding]:
    """The Agent Skills spec rules and quick_validate's extras, as the profile enables them."""
    profile = lib.profile
    out: list[Finding] = []
    skill = entry.skill
    values = entry.values

    def add(kind: str, message: str, severity: str, key: str | None = None) -> None:
        line = entry.file_line(key) if key else None
        out.append(Finding(where.path, kind, message, severity, line or 1, skill.name))

    if profile.spec_names:
        name = unicodedata.normalize("NFKC", skill.name)
        if len(name) > NAME_MAX:
            add("spec-name", f"name has {len(name)} characters (the spec allows {NAME_MAX})", "warning",
                "name")
        if not _SPEC_NAME.match(name):
            add("spec-name", "name must be lowercase letters, digits and single hyphens, not at "
                             "either end", "warning", "name")
        if not entry.name_from_folder and skill.name != entry.folder.name:
            add("name-folder-mismatch", f"name '{skill.name}' differs from its folder "
                                        f"'{entry.folder.name}'", "warning", "name")
    description = skill.summary or ""
    if profile.description_limit and len(description) > profile.description_limit:
        add("description-too-long", f"description has {len(description)} characters (the spec "
                                    f"allows {profile.description_limit})", "warning", "description")
    if profile.spec_names and ("<" in description or ">" in description):
        add("description-angle-brackets", "description contains '<' or '>' (anthropics' "
                                          "quick_validate rejects it)", "info", "description")
    compat = values.get("compatibility")
    if profile.compatibility_limit and isinstance(compat, str) and len(compat) > profile.compatibility_limit:
        add("compatibility-too-long", f"compatibility has {len(compat)} characters (the spec allows "
                                      f"{profile.compatibility_limit})", "warning", "compatibility")
    if profile.allowed_keys is not None:
        for key in values:
            if key not in profile.allowed_keys:
                add("unknown-key", f"'{key}' is not a spec field (kept as is; strict validators "
                                   "reject it: move it under metadata)", "info", key)
    metadata = values.get("metadata")
    if "metadata" in values and profile.allowed_keys is not None:
        if not isinstance(metadata, dict):
            add("metadata-not-mapping", "metadata must be a mapping of strings", "warning", "metadata")
        else:
            bad = [str(k) for k, v in metadata.items() if not isinstance(v, str)]
            if bad:
                add("metadata-not-string", "metadata values must be strings: " + ", ".join(bad),
                    "info", "metadata")
    for key in entry.frontmatter.duplicate_keys:
        add("duplicate-key", f"'{key}' appears more than once (the last one wins)", "warning", key)
    body_lines = entry.doc.body.count("\n") + 1
    if profile.spec_names and body_lines > BODY_MAX_LINES:
        out.append(Finding(where.path, "body-too-long", f"body has {body_lines} lines (the spec "
                                                        f"recommends under {BODY_MAX_LINES})", "info",
                           where.content_line, skill.name))
    if lib.format == "cortex":
        raw_desc = entry.doc.frontmatter.splitlines()[entry.frontmatter.line_of("description") or 0] \
            if "description" in values else ""
        if re.match(r"^description:\s*[>|]", raw_desc):
            add("cortex-block-scalar", "CortexPrism's line parser reads a block-scalar description "
                                       "literally ('>-'); write it on one line", "warning", "description")
        elif re.match(r"""^description:\s*["']""", raw_desc):
            add("cortex-quoted", "CortexPrism keeps quotes literally; write the description unquoted",
                "info", "description")
        if not (skill.content or "").strip():
            add("cortex-empty-body", "CortexPrism silently skips a SKILL.md with an empty body",
                "warning")
    return out


def _summary_checks(skill: Skill, where: _Where) -> list[Finding]:
    line = where.field_lines.get("summary")
    words = len((skill.summary or "").split())
    if skill.summary_pending:
        return [Finding(where.path, "summary-missing", "no summary (RockBot advertises it as "
                                                       "'(summary pending)')", "info", line, skill.name)]
    if words > SUMMARY_MAX_WORDS:
        return [Finding(where.path, "summary-long", f"summary has {words} words (RockBot's are at most "
                                                    f"{SUMMARY_MAX_WORDS})", "info", line, skill.name)]
    return []


def _sparse(skill: Skill, where: _Where, now: Timestamp, timestamps_known: bool) -> list[Finding]:
    if skill.content_units >= SPARSE_CONTENT_UNITS:
        return []
    if timestamps_known and not skill.is_sparse(now):
        return []
    return [Finding(where.path, "sparse", f"content is {skill.content_units} characters (under "
                                          f"{SPARSE_CONTENT_UNITS}: RockBot's dream pass treats it as "
                                          "sparse)", "info", where.field_lines.get("content"),
                    skill.name)]


def _see_also(skill: Skill, where: _Where, known: set[str]) -> list[Finding]:
    out: list[Finding] = []
    line = where.field_lines.get("seealso")
    for target in skill.see_also or ():
        if fold(target) == fold(skill.name):
            out.append(Finding(where.path, "see-also-self", f"see-also names the skill itself "
                                                            f"('{target}')", "warning", line, skill.name))
        elif fold(target) not in known:
            out.append(Finding(where.path, "see-also-dangling", f"see-also names '{target}', which is "
                                                                "not in the library", "warning", line,
                               skill.name))
    return out


def _current_rockbot_checks(lib: Library, skill: Skill, where: _Where) -> list[Finding]:
    """RockBot (current): the manifest against the resource folder, resource file names, and
    MCP skill names and baselines (README, "RockBot (current)")."""
    out: list[Finding] = []
    line = where.field_lines.get("manifest")
    for res in lib.resources(skill.name):
        if res.in_manifest and res.path is None:
            out.append(Finding(where.path, "resource-missing",
                               f"the manifest lists '{res.filename}', which is not in "
                               f"{lib.layout.display_path(lib.resource_dir(skill.name))}/ "
                               "(get_skill_resource would find nothing)", "warning", line, skill.name))
        elif not res.in_manifest:
            out.append(Finding(where.path, "resource-unlisted",
                               f"'{res.filename}' is in the resource folder but not in the manifest: "
                               "the agent is never told about it, and its next save with resources "
                               "deletes it", "info", line, skill.name))
        error = resource_filename_error(res.filename)
        if error is not None:
            out.append(Finding(where.path, "resource-name", error + " (RockBot refuses to save or "
                               "read it)", "warning", line, skill.name))
    if lib.rules.mcp_naming and "/" not in skill.name and _MCP_TOP.match(skill.name):
        out.append(Finding(where.path, "mcp-naming",
                           f"looks like an MCP skill: RockBot (current) names them 'mcp/{{server}}' "
                           f"(here 'mcp/{skill.name[4:]}') and renames top-level ones at startup",
                           "info", where.field_lines.get("name"), skill.name))
    fresh = skill_freshness(skill)  # offline: no live server summaries
    if fresh is not None and fresh.baseline is None:
        out.append(Finding(where.path, "mcp-freshness",
                           f"no surface baseline: RockBot (current) reports this "
                           f"'{mcp_server(skill.name)}' skill's freshness as {fresh.status.value} "
                           f"({fresh.reason})", "info", where.field_lines.get("name"), skill.name))
    return out


_MCP_TOP = re.compile(r"(?i)^mcp[-_][a-z0-9]")


def _unreachable(skill: Skill, where: _Where) -> list[Finding]:
    if tokenize(document_text(skill.name, skill.summary)):
        return []
    return [Finding(where.path, "unreachable", "name and summary have no word of 3+ letters or "
                                               "digits: no recall query can reach this skill", "warning",
                    where.field_lines.get("name"), skill.name)]


def near_duplicates(skills: list[Skill], ratio: float = NEAR_DUPLICATE_RATIO,
                    overlap: float = NEAR_DUPLICATE_OVERLAP) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) that recall can hardly tell apart.

    Two measures over what recall indexes (name + summary, RockBot's tokenizer): b is among the
    4 hits of a's own text (RockBot's ``SearchAsync(text, 4)``, a itself among them) and scores
    at least ``ratio`` of a's own score, or their token sets overlap (Jaccard) by at least
    ``overlap`` -- the second also works in libraries too small for BM25's idf. Both are exact
    threshold joins (:class:`~rockskills_gui.core.recall.bm25_join.SelfJoin`), not n searches.
    """
    if len({fold(s.name) for s in skills}) != len(skills):
        raise ValueError("skill names must be unique case-insensitively")
    pairs: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, value: float) -> None:
        key = (a, b) if sort_key(a) <= sort_key(b) else (b, a)
        pairs[key] = max(pairs.get(key, 0.0), min(1.0, value))

    join = SelfJoin([document_text(s.name, s.summary) for s in skills])
    for a, b, score, own in _top_hits(join, ratio):
        add(skills[a].name, skills[b].name, score / own)
    i, j, inter, union = join.overlap_pairs(overlap)
    for a, b, shared, size in zip(i.tolist(), j.tolist(), inter.tolist(), union.tolist(), strict=True):
        if size and shared / size >= overlap:
            add(skills[a].name, skills[b].name, shared / size)
    return [(a, b, v) for (a, b), v in pairs.items()]


def _top_hits(join: SelfJoin, ratio: float) -> list[tuple[int, int, float, float]]:
    """(a, b, score, own) for every b != a among the top 4 hits of a's text, when a is one of
    them and b scores >= ``ratio * own`` -- in a's order, then rank order.

    The hits that can rank above a or pass the bound score >= min(ratio * own, own): they are
    a prefix of the ranking, so ranking them (score descending, candidate order on ties, as the
    index does) gives the top 4 wherever a is among them.
    """
    own = join.self_scores
    bound = ratio * own
    floor = np.where(own > 0, np.minimum(bound, own), np.nan)
    a, b = join.candidates(floor)
    score = join.scores(a, b)
    kept = (score > 0) & (score >= floor[a])
    me = np.flatnonzero(own > 0)
    a = np.concatenate((a[kept], me))
    b = np.concatenate((b[kept], me))
    score = np.concatenate((score[kept], own[me]))
    order = np.lexsort((b, -score, a))
    a, b, score = a[order], b[order], score[order]
    rank = np.arange(len(a)) - np.searchsorted(a, a, side="left")
    top = rank < 4
    self_top = np.zeros(join.n, dtype=bool)
    self_top[a[top & (a == b)]] = True
    hit = top & (a != b) & self_top[a] & (score >= bound[a])
    return list(zip(a[hit].tolist(), b[hit].tolist(), score[hit].tolist(), own[a[hit]].tolist(),
                    strict=True))


def scan_text(text: str) -> list[tuple[int, str, str, str]]:
    """Content-scan markers in ``text``: (1-based line, kind, severity, message).

    Each check first looks at the whole text (cheap word tests, then the pattern): no rule anchors
    on a line's ends and the separators ``splitlines`` cuts at are not word characters, so a rule
    without a match in the text has none in any line, and a text without the special characters
    has them in no line. Only the checks that can report are then run line by line.
    """
    folded = text.lower() if text.isascii() else text.translate(_RULE_FOLD)
    rules = [rule for rule, groups in zip(CONTENT_RULES, _RULE_WORDS, strict=True)
             if all(any(word in folded for word in group) for group in groups) and rule[2].search(text)]
    longest = max(map(len, text.split()), default=0)  # a base64 run never holds white space
    base64 = longest >= BASE64_MIN and _BASE64.search(text) is not None
    special = not text.isascii() and _SPECIAL.search(text) is not None
    out: list[tuple[int, str, str, str]] = []
    if not (rules or base64 or special):
        return out
    for number, line in enumerate(text.splitlines(), 1):
        if special:
            bidi = sorted({f"U+{ord(c):04X}" for c in line if c in _BIDI})
            if bidi:
                out.append((number, "bidi-unicode", "error", "bidirectional control character(s) "
                            f"{', '.join(bidi)} can hide what the text says"))
            hidden = sorted({f"U+{ord(c):04X}" for c in line
                             if c in _INVISIBLE or 0xE0000 <= ord(c) <= 0xE007F})
            if hidden:
                tags = any(0xE0000 <= ord(c) <= 0xE007F for c in line)
                out.append((number, "hidden-unicode", "error" if tags else "warning",
                            f"invisible character(s) {', '.join(hidden[:5])}"
                            + (" (Unicode tag characters can smuggle instructions)" if tags else "")))
        for kind, severity, pattern, what in rules:
            m = pattern.search(line)
            if m:
                out.append((number, kind, severity, f"{what}: '{m.group(0)[:80]}'"))
        if base64:
            m = _BASE64.search(line)
            if m:
                out.append((number, "base64-blob", "warning", f"a {len(m.group(0))}-character "
                                                              "base64-like blob (hidden payload?)"))
    return out


def _content_scan(skill: Skill, where: _Where) -> list[Finding]:
    out: list[Finding] = []
    texts: list[tuple[str, int | None, bool]] = []
    if where.entry is not None:
        texts.append((where.entry.doc.text, 1, True))  # whole file: frontmatter lines included
    else:
        texts.append((skill.summary or "", where.field_lines.get("summary"), False))
        texts.append((skill.content or "", where.field_lines.get("content"), False))
    for text, base_line, exact in texts:
        for number, kind, severity, message in scan_text(text):
            line: int | None
            if exact:
                line = number
                message_out = message
            else:
                line = base_line
                message_out = f"{message} (line {number} of the text)"
            out.append(Finding(where.path, kind, message_out, severity, line, skill.name))
    return out


# ---------------------------------------------------------------- the library


def lint_library(lib: Library | SkillMdLibrary, now: Timestamp | None = None,
                 extra_problems: Iterable[Problem] = ()) -> list[Finding]:
    """Every finding for ``lib``: load problems first, then per-skill checks, then duplicates."""
    now = now or Timestamp.now()
    findings = [from_problem(p) for p in (*lib.problems, *extra_problems)]
    if isinstance(lib, SkillMdLibrary):
        findings.extend(from_problem(w) for w in lib.warnings)
    skills = lib.skills()
    wheres: dict[str, _Where] = {}
    findings.extend(_per_skill(lib, skills, now, wheres))
    for a, b, similarity in near_duplicates(skills):
        for one, other in ((a, b), (b, a)):
            where = wheres[fold(one)]
            findings.append(Finding(where.path, "near-duplicate",
                                    f"recall can hardly tell it from '{other}' (similarity {similarity:.0%} "
                                    "over name and summary): merge them or sharpen the summaries",
                                    "info", where.field_lines.get("summary"), one))
    return findings


def _per_skill(lib: Library | SkillMdLibrary, skills: list[Skill], now: Timestamp,
               wheres: dict[str, _Where]) -> list[Finding]:
    """Each skill's own checks (no load problems, no near-duplicates); fills ``wheres``."""
    findings: list[Finding] = []
    known = {fold(s.name) for s in skills}
    rockbot = isinstance(lib, Library)
    for skill in skills:
        if isinstance(lib, Library):
            where = _rockbot_where(lib, skill)
            timestamps_known = True
        else:
            entry = lib.entry(skill.name)
            where = _skillmd_where(lib, entry)
            timestamps_known = isinstance(entry, DbEntry)
        wheres[fold(skill.name)] = where
        findings.extend(_name_checks(skill, where, rockbot))
        if isinstance(lib, SkillMdLibrary) and where.entry is not None:
            findings.extend(_spec_checks(lib, where.entry, where))
        if rockbot:
            findings.extend(_summary_checks(skill, where))
        if isinstance(lib, Library) and lib.rules.current:
            findings.extend(_current_rockbot_checks(lib, skill, where))
        findings.extend(_sparse(skill, where, now, timestamps_known))
        findings.extend(_see_also(skill, where, known))
        findings.extend(_unreachable(skill, where))
        findings.extend(_content_scan(skill, where))
    return findings


def skill_marks(lib: Library | SkillMdLibrary, now: Timestamp | None = None) -> dict[str, list[str]]:
    """Warning-or-worse messages of each skill's own checks, by folded name (the tree's marks)."""
    marks: dict[str, list[str]] = {}
    for f in _per_skill(lib, lib.skills(), now or Timestamp.now(), {}):
        if f.name is not None and f.severity in ("error", "warning"):
            marks.setdefault(fold(f.name), []).append(f"{f.kind}: {f.message}")
    return marks
