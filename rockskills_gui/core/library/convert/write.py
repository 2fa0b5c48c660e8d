"""Writing one skill in a conversion's target format: names the target accepts, the RockBot
JSON file or the SKILL.md folder (with its resources), each with the loss report's lines and a
sidecar where the written file does not reproduce the source."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.convert.resources import current_resources, skillmd_resource_items
from rockskills_gui.core.library.convert.source import (
    ROCKBOT_RESOURCES_DIR,
    ROCKBOT_SIDECAR_DIR,
    Loss,
    SourceSkill,
    make_sidecar,
    sha256_hex,
    sidecar_bytes,
)
from rockskills_gui.core.library.skillmd.store import (
    SIDECAR_NAME,
    AgentProfile,
    Root,
    new_skill_bytes,
    read_skill_md,
)
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.names import fold, rockbot_name_error
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.profile import FileKind
from rockskills_gui.core.model.profiles import CORTEX
from rockskills_gui.core.model.rules import RESOURCE_SUFFIX
from rockskills_gui.core.model.skill import Skill, SkillParseError, skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY_WORDS
from rockskills_gui.core.storage import fileio, untrusted

SLUG_MAX = 64


# ---------------------------------------------------------------- names


def slug(name: str) -> str:
    """Agent Skills name (§G.2): lowercase; ``_``, spaces and ``/`` to ``-``; single hyphens; <= 64."""
    text = re.sub(r"[_\s/]+", "-", name.lower())
    text = re.sub(r"[^a-z0-9-]+", "-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return text[:SLUG_MAX].rstrip("-") or "skill"


def folder_name(name: str, profile: AgentProfile) -> str:
    """A one-level folder name for ``name`` under ``profile`` (spec slug where the profile wants one)."""
    if profile.names.spec:
        return slug(name)
    text = re.sub(r"[/\\\x00-\x1f]+", "-", name).strip().lstrip(".")
    return text or "skill"


def rockbot_name(name: str) -> str:
    """``name`` if RockBot accepts it, else with every run of other characters made a hyphen."""
    if rockbot_name_error(name) is None and not name.endswith("\n"):
        return name
    text = re.sub(r"[^A-Za-z0-9_\-/]+", "-", name)
    text = "/".join(p.strip("-") for p in text.split("/") if p.strip("-"))
    return text or "skill"


def _own_name(name: str, prefix: str) -> str:
    """A skill's own name (its frontmatter ``name``) when the library calls it ``name`` and its
    plugin and categories were ``prefix``: what follows them, else its last '/' segment."""
    if not prefix:
        return name
    return name[len(prefix) + 1:] if name.startswith(prefix + "/") else name.rpartition("/")[2]


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while fold(candidate) in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(fold(candidate))
    return candidate


# ---------------------------------------------------------------- writing one skill


def _first_line_summary(skill: Skill) -> str:
    for line in (skill.content or "").splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:200]
    return skill.name


def _write(staging: Path, rel: str, data: bytes) -> None:
    path = staging / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    fileio.checkpoint()  # the crash hook of the fault tests (a kill mid-conversion)


def _copy_resources(source: SourceSkill, staging: Path, prefix: str, report: list[Loss],
                    items: Sequence[tuple[str, Path, Mapping[str, Any]]] | None = None,
                    ) -> list[dict[str, Any]]:
    """Copy ``source``'s resources (or ``items``: relative path, file, more sidecar fields) to
    ``staging/prefix/``; ``{"path", "sha256", ...}`` of each copied.

    A resource that is not a regular file inside the library (a FIFO, a dangling link, a link
    leaving it) is never read: it is reported as a warning and not copied."""
    copied: list[dict[str, Any]] = []
    if items is None:
        items = [(rel, path, {}) for rel, path in source.resources]
    for rel, path, more in items:
        try:
            data = untrusted.read_inside(path, source.boundary)
        except untrusted.Refused as exc:
            report.append(Loss(source.skill.name, "resources",
                               f"resource {rel} is {exc.why}; not copied", "warning"))
            continue
        _write(staging, f"{prefix}/{rel}", data)
        copied.append({"path": rel, "sha256": sha256_hex(data), **more})
    return copied


def to_rockbot(source: SourceSkill, staging: Path, taken: set[str], report: list[Loss],
                current: bool = False) -> str:
    """Write one RockBot skill file; ``current``: for RockBot (current), whose resources live in
    ``skills/{name}.resources/`` with the skill's manifest (else in ``.skillgui/resources/``)."""
    skill = source.skill
    name = rockbot_name(skill.name)
    if name != skill.name:
        report.append(Loss(skill.name, "renamed", f"not a valid RockBot name; written as '{name}' "
                                                  "(the original is kept in the sidecar)"))
    unique = _unique(name, taken)
    if unique != name:
        report.append(Loss(skill.name, "renamed", f"'{name}' collides case-insensitively with another "
                                                  f"skill; written as '{unique}'", "warning"))
    out = skill.model_copy(update={"name": unique})
    data: bytes | None = None
    if source.rockbot_text is not None:
        try:  # the original file's bytes, read as RockBot reads them (a BOM is skipped)
            original = skill_from_bytes(source.rockbot_text.encode("utf-8"))
            if not out.extra:  # properties the other format cannot hold (a manifest...)
                out = out.model_copy(update={"extra": original.extra})
            if original == out:
                data = source.rockbot_text.encode("utf-8")
        except SkillParseError:
            data = None
    restored = True
    current_items: list[tuple[str, Path, dict[str, Any]]] = []
    if current:
        completed, current_items, restored = current_resources(source, out, report)
        if completed != out:
            out, data = completed, None
    if data is None:
        data = skill_to_bytes(out)
    rel = "skills/" + unique + ".json"
    _write(staging, rel, data)
    if not source.timestamps_known:
        report.append(Loss(skill.name, "timestamps", "the source has no timestamps; createdAt and "
                                                    "updatedAt are the file's modification time"))
    words = len((skill.summary or "").split())
    if words > ROCKBOT_SUMMARY_WORDS:
        report.append(Loss(skill.name, "summary", f"summary has {words} words (RockBot writes at most "
                                                  f"{ROCKBOT_SUMMARY_WORDS}); kept whole"))
    if source.skillmd is not None:
        head = str(source.skillmd.get("head", ""))
        try:
            keys = [k for k in fm.parse_frontmatter(fm.split_text(head).frontmatter).values
                    if k not in ("name", "description")]
        except fm.FrontmatterError:
            keys = []
        if keys:
            report.append(Loss(skill.name, "frontmatter", "RockBot has no slot for "
                               + ", ".join(keys) + "; kept in the sidecar"))
    if source.cortex is not None:
        report.append(Loss(skill.name, "stats", "CortexPrism lifecycle, trust, scores, steps and "
                                                "dependencies kept in the sidecar only"))
    if current:
        resources = _copy_resources(source, staging, f"skills/{unique}{RESOURCE_SUFFIX}", report,
                                    current_items)
        resources = [r for r in resources if "rockbotFilename" in r]  # from SKILL.md: mapped back
    else:
        resources = _copy_resources(source, staging, f"{ROCKBOT_RESOURCES_DIR}/{unique}", report,
                                    [(rel, path, {}) for rel, path in source.resources]
                                    + [(r.filename, r.path, {}) for r in source.rockbot_resources])
        if resources:
            report.append(Loss(skill.name, "resources",
                               f"RockBot 64e82cc cannot hold resources; {len(resources)} file(s) "
                               f"copied to {ROCKBOT_RESOURCES_DIR}/{unique}/ (outside skills/)",
                               "warning"))
    exact = (source.rockbot_text is not None and data == source.rockbot_text.encode("utf-8")
             and source.skillmd is None and source.cortex is None
             and (restored if current else not source.resources and not source.rockbot_resources))
    if not exact:
        sidecar = make_sidecar(source, rel, data, unique, out.summary, out.content, resources)
        _write(staging, f"{ROCKBOT_SIDECAR_DIR}/{unique}.skillgui.json", sidecar_bytes(sidecar))
    return unique


def _skillmd_bytes(source: SourceSkill, profile: AgentProfile, name: str,
                   report: list[Loss]) -> tuple[bytes, str, str]:
    """(file bytes, description written, content as the target reads it back)."""
    skill = source.skill
    summary = skill.summary or ""
    if not summary.strip() and profile.summary.required:
        summary = _first_line_summary(skill)
        report.append(Loss(skill.name, "summary", "empty summary; the description is taken from the "
                                                  "content (the original is kept in the sidecar)"))
    if profile.storage.frontmatter.plain == "line" and ("\n" in summary or "\r" in summary):
        summary = " ".join(summary.split())
        report.append(Loss(skill.name, "summary", f"{profile.label} reads one physical line; line "
                                                  "breaks in the description became spaces"))
    if profile.summary.limit and len(summary) > profile.summary.limit:
        report.append(Loss(skill.name, "summary", f"description has {len(summary)} characters "
                                                  f"(the spec allows {profile.summary.limit}); "
                                                  "kept whole, not cut", "warning"))
    origin = source.skillmd
    reuse = origin is not None and (origin.get("profile") == profile.settings_id or
                                    (profile.storage.frontmatter.export_keys is None
                                     and origin.get("profile") != CORTEX.settings_id
                                     and "head" in origin))
    if reuse and origin is not None:
        doc = fm.split_text(str(origin["head"]), bool(origin.get("bom")))
        parsed = fm.parse_frontmatter(doc.frontmatter)
        changes: dict[str, Any] = {}
        if str(parsed.values.get("name", name)) != name:
            changes["name"] = name
        description = parsed.values.get("description")
        if (str(description) if description is not None else "") != summary:
            changes["description"] = summary
        if changes:
            doc = doc.with_parts(frontmatter=fm.edit_frontmatter(doc.frontmatter, changes, doc.newline,
                                                                 profile.storage.frontmatter.plain))
        newline = str(origin.get("newline") or "\n")
        body = str(origin.get("bodyPrefix", "\n")) + fm.to_newline(skill.content or "", newline)
        data = doc.with_parts(body=body).to_bytes()
    else:
        extra: dict[str, Any] = {}
        trigger = (source.cortex or {}).get("trigger_pattern") or \
            ((source.cortex or {}).get("row") or {}).get("trigger_pattern")
        if trigger:
            extra["trigger_pattern"] = str(trigger)
        out = skill.model_copy(update={"name": name, "summary": summary})
        data = new_skill_bytes(out, profile, extra)
        if skill.see_also is not None and profile.storage.frontmatter.export_keys is not None:
            report.append(Loss(skill.name, "see-also", f"{profile.label} has no see-also; kept in the "
                                                       "sidecar"))
    return data, summary, skill.content or ""


def to_skillmd(source: SourceSkill, profile: AgentProfile, staging: Path, taken: set[str],
                report: list[Loss]) -> str:
    skill = source.skill
    origin = source.skillmd
    if origin is not None and origin.get("dir") and origin.get("profile") == profile.settings_id:
        rel_dir = "/".join(p for p in (str(origin.get("root") or ""), str(origin["dir"])) if p)
        name = _own_name(skill.name, str(origin.get("prefix") or ""))
        own = name  # the name the file itself says (the library adds its plugin and categories)
    else:
        name = folder_name(skill.name, profile)
        rel_dir = name
        own = skill.name
    if name != own:
        report.append(Loss(skill.name, "renamed", f"written as '{name}' ({profile.label} names are "
                                                  "folder names); the original is kept in the sidecar"))
    unique = _unique(rel_dir, taken)
    if unique != rel_dir:
        report.append(Loss(skill.name, "renamed", f"'{rel_dir}' collides with another skill; written "
                                                  f"as '{unique}'", "warning"))
        name = unique.rsplit("/", 1)[-1]
    file_name = str((origin or {}).get("fileName") or "SKILL.md") if origin else "SKILL.md"
    data, summary, content = _skillmd_bytes(source, profile, name, report)
    rel = f"{unique}/{file_name}"
    _write(staging, rel, data)
    items: list[tuple[str, Path, Mapping[str, Any]]] = [(r, p, {}) for r, p in source.resources]
    items += skillmd_resource_items(source, profile, file_name, report)
    resources = _copy_resources(source, staging, unique, report, items)
    held = [k for k, _v in skill.extra if skill.extra_value(k) is not None]
    if held:
        report.append(Loss(skill.name, "frontmatter", "SKILL.md has no slot for RockBot's "
                           + ", ".join(held) + "; kept in the sidecar"))
    if resources and not profile.storage.resource_dirs and FileKind.CORTEX_DB in profile.storage.file_kinds:
        report.append(Loss(skill.name, "resources", "CortexPrism does not read resources; copied "
                                                    "beside SKILL.md all the same", "warning"))
    if source.timestamps_known:
        report.append(Loss(skill.name, "timestamps", "SKILL.md has no timestamps; kept in the sidecar"))
    if source.cortex is not None and source.origin_format.startswith("cortex"):
        report.append(Loss(skill.name, "stats", "CortexPrism lifecycle, trust and scores kept in the "
                                                "sidecar only"))
    # Read back what was written: anything not reproduced goes into the sidecar.
    staged = staging / rel
    back = read_skill_md(Root(staging), staged, profile, rel)
    reproduced = (not isinstance(back, Problem) and back.own_name == own
                  and back.skill.summary == skill.summary and back.skill.content == skill.content
                  and (back.skill.see_also == skill.see_also))
    same_origin = origin is not None and origin.get("profile") == profile.settings_id \
        and source.rockbot_text is None
    if not (reproduced and same_origin and source.cortex is None and not source.timestamps_known):
        read_content = content if isinstance(back, Problem) else back.skill.content
        sidecar = make_sidecar(source, rel, data, name, summary, read_content, resources)
        _write(staging, f"{unique}/{SIDECAR_NAME}", sidecar_bytes(sidecar))
    return name
