"""Each skill's own lint checks: the format's rules (Agent Skills spec and quick_validate
extras), RockBot's name rules, summary length, sparse skills, dangling or self see-also,
RockBot (current)'s resources and MCP names, unreachable skills and the content scan."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from rockskills_gui.core.library.library import FrontmatterFile, Library
from rockskills_gui.core.lint.content_scan import scan_text
from rockskills_gui.core.lint.findings import Finding
from rockskills_gui.core.model.mcp_freshness import skill_freshness
from rockskills_gui.core.model.names import fold, rockbot_name_error
from rockskills_gui.core.model.profile import FileKind, NameKind
from rockskills_gui.core.model.rules import mcp_server, resource_filename_error
from rockskills_gui.core.model.size_limits import LINT_TEXT_MAX_BYTES, too_large
from rockskills_gui.core.model.skill import SPARSE_CONTENT_UNITS, Skill
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY, ROCKBOT_SUMMARY_WORDS
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.bm25 import document_text, tokenize

SUMMARY_MAX_WORDS = ROCKBOT_SUMMARY_WORDS  # (core/model/summary_rule.py)
BODY_MAX_LINES = 500
NAME_MAX = 64

_SPEC_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FIELD_LINE = re.compile(r'\s*"(\w+)"\s*:')


# ---------------------------------------------------------------- where things are


@dataclass(frozen=True)
class Where:
    """A skill's file and the line of each field (and of its content's first line)."""

    path: str
    field_lines: dict[str, int]
    content_line: int | None  # file line of content line 1, when content maps to file lines
    entry: FrontmatterFile | None = None  # a SKILL.md


def _where(lib: Library, skill: Skill) -> Where:
    """Where skill ``skill`` is: its SKILL.md's lines, its RockBot JSON file's, or (a memory.db
    row) just the file."""
    md = lib.frontmatter_file(skill.name)
    if md is not None:
        return _skillmd_where(lib, md)
    if FileKind.ROCKBOT_JSON in lib.profile.storage.file_kinds:
        return _json_where(lib, skill)
    return Where(lib.layout.display_path(lib.skill_path(skill.name)), {}, None)


def _json_where(lib: Library, skill: Skill) -> Where:
    entry = lib.entry(skill.name)
    text = entry.raw.decode("utf-8", "replace")
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _FIELD_LINE.match(line)
        if m and m[1].lower() not in lines:
            lines[m[1].lower()] = number
    return Where(lib.layout.display_path(entry.path),
                 {"name": lines.get("name", 1), "summary": lines.get("summary", 1),
                  "content": lines.get("content", 1), "seealso": lines.get("seealso", 1),
                  "manifest": lines.get("manifest", 1)}, None)


def _skillmd_where(lib: Library, entry: FrontmatterFile) -> Where:
    shown = lib.layout.display_path(entry.path)
    lines = {"name": entry.file_line("name") or 1, "summary": entry.file_line("description") or 1,
             "seealso": entry.file_line("metadata") or 1}
    content_line = entry.doc.body_line + entry.body_prefix.count("\n")
    lines["content"] = content_line
    return Where(shown, lines, content_line, entry)


# ---------------------------------------------------------------- checks


def _name_checks(skill: Skill, where: Where, rockbot: bool) -> list[Finding]:
    out: list[Finding] = []
    line = where.field_lines.get("name")
    if not rockbot:
        error = rockbot_name_error(skill.name)
        if error is not None:
            out.append(Finding(where.path, "rockbot-name", f"{error} (converting to RockBot renames it)",
                               "info", line, skill.name))
    return out


def _spec_checks(lib: Library, entry: FrontmatterFile, where: Where) -> list[Finding]:
    """The Agent Skills spec rules and quick_validate's extras, as the profile enables them."""
    profile = lib.profile
    out: list[Finding] = []
    skill = entry.skill
    values = entry.values

    def add(kind: str, message: str, severity: str, key: str | None = None) -> None:
        line = entry.file_line(key) if key else None
        out.append(Finding(where.path, kind, message, severity, line or 1, skill.name))

    if profile.names.spec:  # (the file's own name: plugin and category folders are not part of it)
        name = unicodedata.normalize("NFKC", entry.own_name)
        if len(name) > NAME_MAX:
            add("spec-name", f"name has {len(name)} characters (the spec allows {NAME_MAX})", "warning",
                "name")
        if not _SPEC_NAME.match(name):
            add("spec-name", "name must be lowercase letters, digits and single hyphens, not at "
                             "either end", "warning", "name")
        if not entry.name_from_folder and entry.own_name != entry.folder.name:
            add("name-folder-mismatch", f"name '{entry.own_name}' differs from its folder "
                                        f"'{entry.folder.name}'", "warning", "name")
    description = skill.summary or ""
    if profile.summary.limit and len(description) > profile.summary.limit:
        add("description-too-long", f"description has {len(description)} characters (the spec "
                                    f"allows {profile.summary.limit})", "warning", "description")
    if profile.names.spec and ("<" in description or ">" in description):
        add("description-angle-brackets", "description contains '<' or '>' (anthropics' "
                                          "quick_validate rejects it)", "info", "description")
    compat = values.get("compatibility")
    front = profile.storage.frontmatter
    if front.compatibility_limit and isinstance(compat, str) and len(compat) > front.compatibility_limit:
        add("compatibility-too-long", f"compatibility has {len(compat)} characters (the spec allows "
                                      f"{front.compatibility_limit})", "warning", "compatibility")
    if front.allowed_keys is not None:
        for key in values:
            if key not in front.allowed_keys:
                add("unknown-key", f"'{key}' is not a spec field (kept as is; strict validators "
                                   "reject it: move it under metadata)", "info", key)
    metadata = values.get("metadata")
    if "metadata" in values and front.allowed_keys is not None:
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
    if profile.names.spec and body_lines > BODY_MAX_LINES:
        out.append(Finding(where.path, "body-too-long", f"body has {body_lines} lines (the spec "
                                                        f"recommends under {BODY_MAX_LINES})", "info",
                           where.content_line, skill.name))
    if front.line_reader:  # (CortexPrism)
        raw_desc = entry.doc.frontmatter.splitlines()[entry.frontmatter.line_of("description") or 0] \
            if "description" in values else ""
        if re.match(r"^description:\s*[>|]", raw_desc):
            add("cortex-block-scalar", f"{profile.label}'s line parser reads a block-scalar "
                                       "description literally ('>-'); write it on one line", "warning",
                "description")
        elif re.match(r"""^description:\s*["']""", raw_desc):
            add("cortex-quoted", f"{profile.label} keeps quotes literally; write the description "
                                 "unquoted", "info", "description")
    if front.needs_body and not (skill.content or "").strip():
        add("cortex-empty-body", f"{profile.label} silently skips a SKILL.md with an empty body",
            "warning")
    return out


def _summary_checks(skill: Skill, where: Where) -> list[Finding]:
    line = where.field_lines.get("summary")
    words = len((skill.summary or "").split())
    if skill.summary_pending:
        return [Finding(where.path, "summary-missing", "no summary (RockBot advertises it as "
                                                       "'(summary pending)')", "info", line, skill.name)]
    if words > SUMMARY_MAX_WORDS:
        return [Finding(where.path, "summary-long", f"summary has {words} words (RockBot's are at most "
                                                    f"{SUMMARY_MAX_WORDS})", "info", line, skill.name)]
    return []


def _sparse(skill: Skill, where: Where, now: Timestamp, timestamps_known: bool) -> list[Finding]:
    if skill.content_units >= SPARSE_CONTENT_UNITS:
        return []
    if timestamps_known and not skill.is_sparse(now):
        return []
    return [Finding(where.path, "sparse", f"content is {skill.content_units} characters (under "
                                          f"{SPARSE_CONTENT_UNITS}: RockBot's dream pass treats it as "
                                          "sparse)", "info", where.field_lines.get("content"),
                    skill.name)]


def _see_also(skill: Skill, where: Where, known: set[str]) -> list[Finding]:
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


def _resource_checks(lib: Library, skill: Skill, where: Where) -> list[Finding]:
    """RockBot (current): the manifest against the resource folder, and resource file names
    (README, "RockBot (current)")."""
    out: list[Finding] = []
    line = where.field_lines.get("manifest")
    folder = lib.resource_dir(skill.name)
    shown = lib.layout.display_path(folder) if folder is not None else "the resource folder"
    for res in lib.resources(skill.name):
        if res.in_manifest and res.path is None:
            out.append(Finding(where.path, "resource-missing",
                               f"the manifest lists '{res.filename}', which is not in "
                               f"{shown}/ "
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
    return out


def _mcp_checks(lib: Library, skill: Skill, where: Where) -> list[Finding]:
    """RockBot (current): MCP skill names and baselines (README, "RockBot (current)")."""
    out: list[Finding] = []
    if lib.profile.names.mcp_naming and "/" not in skill.name and _MCP_TOP.match(skill.name):
        out.append(Finding(where.path, "mcp-naming",
                           f"looks like an MCP skill: RockBot (current) names them 'mcp/{{server}}' "
                           f"(here 'mcp/{skill.name[4:]}') and renames top-level ones at startup",
                           "info", where.field_lines.get("name"), skill.name))
    fresh = skill_freshness(skill) if lib.profile.holds.mcp_baselines else None  # offline
    if fresh is not None and fresh.baseline is None:
        out.append(Finding(where.path, "mcp-freshness",
                           f"no surface baseline: RockBot (current) reports this "
                           f"'{mcp_server(skill.name)}' skill's freshness as {fresh.status.value} "
                           f"({fresh.reason})", "info", where.field_lines.get("name"), skill.name))
    return out


_MCP_TOP = re.compile(r"(?i)^mcp[-_][a-z0-9]")


def _unreachable(skill: Skill, where: Where) -> list[Finding]:
    if tokenize(document_text(skill.name, skill.summary)):
        return []
    return [Finding(where.path, "unreachable", "name and summary have no word of 3+ letters or "
                                               "digits: no recall query can reach this skill", "warning",
                    where.field_lines.get("name"), skill.name)]


def _content_scan(skill: Skill, where: Where) -> list[Finding]:
    out: list[Finding] = []
    texts: list[tuple[str, int | None, bool]] = []
    if where.entry is not None:
        texts.append((where.entry.doc.text, 1, True))  # whole file: frontmatter lines included
    else:
        texts.append((skill.summary or "", where.field_lines.get("summary"), False))
        texts.append((skill.content or "", where.field_lines.get("content"), False))
    for text, base_line, exact in texts:
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if size > LINT_TEXT_MAX_BYTES:  # (a regular-expression scan of 100 MB took minutes)
            out.append(Finding(where.path, "too-large",
                               f"the text is {too_large(size, LINT_TEXT_MAX_BYTES, 'not scanned')} "
                               "for prompt-injection and supply-chain markers", "warning",
                               base_line, skill.name))
            continue
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


def per_skill(lib: Library, skills: list[Skill], now: Timestamp,
              wheres: dict[str, Where]) -> list[Finding]:
    """Each skill's own checks (no load problems, no near-duplicates); fills ``wheres``. Which
    checks run is the profile's to say: its name rule, its summary rule, what it holds."""
    findings: list[Finding] = []
    known = {fold(s.name) for s in skills}
    profile = lib.profile
    rockbot_names = profile.names.kind is NameKind.ROCKBOT
    rockbot_summary = profile.summary == ROCKBOT_SUMMARY  # ("(summary pending)" in its listing)
    mcp = profile.names.mcp_naming or profile.holds.mcp_baselines
    for skill in skills:
        where = _where(lib, skill)
        wheres[fold(skill.name)] = where
        findings.extend(_name_checks(skill, where, rockbot_names))
        if where.entry is not None:
            findings.extend(_spec_checks(lib, where.entry, where))
        if rockbot_summary:
            findings.extend(_summary_checks(skill, where))
        if profile.holds.resources:
            findings.extend(_resource_checks(lib, skill, where))
        if mcp:
            findings.extend(_mcp_checks(lib, skill, where))
        findings.extend(_sparse(skill, where, now, lib.timestamps_stored(skill.name)))
        findings.extend(_see_also(skill, where, known))
        findings.extend(_unreachable(skill, where))
        findings.extend(_content_scan(skill, where))
    return findings
