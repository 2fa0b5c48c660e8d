"""Convert a library between formats, with a loss report and lossless round trips (formats.md §G).

Every target is written from a canonical view of each skill (:class:`SourceSkill`). What a
target cannot hold goes into a sidecar (§G.3): ``<skill folder>/.skillgui.json`` for SKILL.md
targets, ``<agent>/.skillgui/<name>.skillgui.json`` for RockBot (never inside ``skills/``, which
RockBot loads wholesale). A sidecar records the SHA-256 of the file it describes; when it still
matches, converting back restores the original exactly (a SKILL.md byte for byte, from its
recorded head, body separator, line endings and BOM). When the file changed since, its own
fields win and the sidecar supplies only what the format cannot hold, with a note.

The source is untrusted: nothing is followed out of the library. A resource that is a FIFO,
device, folder link or dangling link, or a symbolic link whose target resolves outside the
library's folders (a RockBot ``skills/`` and ``.skillgui/``, or the SKILL.md roots), is not
copied and gets a warning in the loss report; a link resolving inside the library is copied as a
regular file holding its target's bytes (as before). A skill file that links outside the library
is not converted (it is listed with the problems). The output is built in a hidden staging folder
beside ``dest`` (``.<dest>.<pid>-<hex>.rsg-tmp``, marked by a file in it) and renamed into place;
a staging folder left by a killed conversion is removed by the next conversion into the same
parent folder once its process is gone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.skillmd_library import DbEntry, SkillMdLibrary
from rockskills_gui.core.library.stores.skillmd import (
    PROFILES,
    SIDECAR_NAME,
    Profile,
    Root,
    SkillMdEntry,
    display_path,
    list_resources,
    new_skill_bytes,
    read_skill_md,
)
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.names import fold, rockbot_name_error
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.rules import RESOURCE_SUFFIX, resource_filename_error
from rockskills_gui.core.model.skill import (
    Skill,
    SkillParseError,
    extra_props,
    skill_from_bytes,
    skill_to_bytes,
)
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage import fileio, untrusted

SIDECAR_VERSION = 1
ROCKBOT_SIDECAR_DIR = ".skillgui"
ROCKBOT_RESOURCES_DIR = ".skillgui/resources"
# "rockbot": RockBot 64e82cc (resources go to .skillgui/resources/); "rockbot-current": RockBot
# (current), whose multi-file skills hold them in skills/{name}.resources/ with a manifest.
TARGETS = ("rockbot", "rockbot-current", "agentskills", "picobot", "cortex-fs")
TARGET_PROFILE = {"agentskills": "agentskills", "picobot": "picobot", "cortex-fs": "cortex-fs"}
SLUG_MAX = 64
ROCKBOT_SUMMARY_WORDS = 15
STAGING_MARK = "rockskills-convert-staging"  # the file that marks our staging folders
STAGING_PAYLOAD = "output"  # the folder inside the staging folder that becomes ``dest``


class ConvertError(Exception):
    """Conversion refused (destination not empty, unknown target); nothing was written."""


@dataclass(frozen=True)
class Loss:
    """One line of the loss report: what the target could not hold and how it was mapped."""

    skill: str
    kind: str  # renamed | see-also | timestamps | summary | resources | frontmatter | stats | ...
    message: str
    severity: str = "info"

    def as_json(self) -> dict[str, str]:
        return {"skill": self.skill, "kind": self.kind, "severity": self.severity,
                "message": self.message}


@dataclass(frozen=True)
class RockbotResource:
    """A file of a RockBot (current) skill's ``{name}.resources/`` folder."""

    filename: str  # relative to the resource folder ('/'-separated)
    path: Path
    entry: dict[str, Any] | None  # its manifest entry (None: the manifest does not list it)

    @property
    def type(self) -> str | None:
        value = (self.entry or {}).get("type")
        return value if isinstance(value, str) else None


@dataclass
class SourceSkill:
    """One skill in canonical form, with everything needed to write it back exactly."""

    skill: Skill
    timestamps_known: bool
    origin_format: str
    path: str  # display path of the file it came from
    skillmd: dict[str, Any] | None = None  # head, bom, newline, bodyPrefix, dir, fileName, profile
    rockbot_text: str | None = None
    cortex: dict[str, Any] | None = None
    resources: list[tuple[str, Path]] = field(default_factory=list)  # (relative path, file)
    rockbot_resources: list[RockbotResource] = field(default_factory=list)  # RockBot (current)
    missing_resources: list[str] = field(default_factory=list)  # manifest entries not on disk
    # From a sidecar: SKILL.md resource path -> RockBot (current) resource filename, and whether
    # the manifest listed it (what converting back needs to restore the .resources/ folder).
    resource_map: dict[str, tuple[str, bool]] = field(default_factory=dict)
    notes: list[Loss] = field(default_factory=list)
    boundary: tuple[Path, ...] = ()  # the library's folders: nothing is read from outside them


@dataclass
class ConvertResult:
    target: str
    dest: Path
    written: list[str] = field(default_factory=list)  # skill names as written
    losses: list[Loss] = field(default_factory=list)
    not_converted: list[str] = field(default_factory=list)  # "path: kind: message"

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "dest": str(self.dest), "written": self.written,
                "losses": [x.as_json() for x in self.losses], "notConverted": self.not_converted}


# ---------------------------------------------------------------- names


def slug(name: str) -> str:
    """Agent Skills name (§G.2): lowercase; ``_``, spaces and ``/`` to ``-``; single hyphens; <= 64."""
    text = re.sub(r"[_\s/]+", "-", name.lower())
    text = re.sub(r"[^a-z0-9-]+", "-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return text[:SLUG_MAX].rstrip("-") or "skill"


def folder_name(name: str, profile: Profile) -> str:
    """A one-level folder name for ``name`` under ``profile`` (spec slug where the profile wants one)."""
    if profile.spec_names:
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


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while fold(candidate) in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(fold(candidate))
    return candidate


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ts(value: Timestamp | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_ts(value: Any) -> Timestamp | None:
    if not isinstance(value, str):
        return None
    try:
        return Timestamp.parse(value)
    except TimestampError:
        return None


# ---------------------------------------------------------------- sidecars


def _skill_block(source: SourceSkill, written_content: str | None) -> dict[str, Any]:
    s = source.skill
    block: dict[str, Any] = {"name": s.name, "summary": s.summary,
                             "seeAlso": list(s.see_also) if s.see_also is not None else None,
                             "timestampsKnown": source.timestamps_known}
    if source.timestamps_known:
        block.update(createdAt=_ts(s.created_at), updatedAt=_ts(s.updated_at),
                     lastUsedAt=_ts(s.last_used_at))
    if written_content != s.content:
        block["content"] = s.content
    if s.extra:  # RockBot (current)'s manifest, surfaceBaseline...: restored even after edits
        block["rockbotExtra"] = [[key, text] for key, text in s.extra]
    return block


def make_sidecar(source: SourceSkill, file_rel: str, data: bytes, written_name: str,
                 written_summary: str | None, written_content: str | None,
                 resources: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """The sidecar of one written skill file; ``resources``: ``{"path", "sha256"}`` of the
    resources copied (see :func:`_copy_resources`)."""
    sidecar: dict[str, Any] = {
        "skillgui": SIDECAR_VERSION,
        "written": {"file": file_rel, "sha256": _sha(data), "name": written_name,
                    "summary": written_summary},
        "origin": {"format": source.origin_format, "path": source.path},
        "skill": _skill_block(source, written_content),
    }
    if source.skillmd is not None:
        sidecar["skillmd"] = source.skillmd
    if source.rockbot_text is not None:
        sidecar["rockbot"] = {"text": source.rockbot_text}
    if source.cortex is not None:
        sidecar["cortex"] = source.cortex
    if resources:
        sidecar["resources"] = resources
    return sidecar


def sidecar_bytes(sidecar: dict[str, Any]) -> bytes:
    return (json.dumps(sidecar, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def read_sidecar(path: Path, boundary: tuple[Path, ...] | None = None) -> dict[str, Any] | None:
    """A sidecar's JSON, or None (absent, unreadable, not ours; a FIFO or a link leaving
    ``boundary`` is never read)."""
    try:
        data = fileio.read_regular(path) if boundary is None else untrusted.read_inside(path, boundary)
        value = json.loads(data)
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("skillgui") != SIDECAR_VERSION:
        return None
    return value


def apply_sidecar(source: SourceSkill, raw: bytes, sidecar: dict[str, Any]) -> SourceSkill:
    """Merge a sidecar into a skill read from the file it describes (see module doc)."""
    written = sidecar.get("written") or {}
    block = sidecar.get("skill") or {}
    matches = written.get("sha256") == _sha(raw)
    native = source.skill
    updates: dict[str, Any] = {}
    if matches or fold(native.name) == fold(str(written.get("name") or "")):
        updates["name"] = block.get("name", native.name)
    if matches or native.summary == written.get("summary"):
        updates["summary"] = block.get("summary", native.summary)
    if matches and "content" in block:
        updates["content"] = block["content"]
    if native.see_also is None or matches:
        see = block.get("seeAlso")
        updates["see_also"] = tuple(see) if isinstance(see, list) else native.see_also
    extra = block.get("rockbotExtra")
    if not native.extra and isinstance(extra, list) and all(
            isinstance(x, list) and len(x) == 2 and all(isinstance(v, str) for v in x) for x in extra):
        updates["extra"] = tuple((str(k), str(v)) for k, v in extra)
    known = bool(block.get("timestampsKnown"))
    if known and (matches or not source.timestamps_known):
        created = _parse_ts(block.get("createdAt"))
        if created is not None:
            updates.update(created_at=created, updated_at=_parse_ts(block.get("updatedAt")),
                           last_used_at=_parse_ts(block.get("lastUsedAt")))
    origin = sidecar.get("origin") or {}
    result = replace(source, skill=native.model_copy(update=updates),
                     timestamps_known=known if matches else (known or source.timestamps_known),
                     origin_format=str(origin.get("format") or source.origin_format),
                     path=str(origin.get("path") or source.path),
                     skillmd=sidecar.get("skillmd") or source.skillmd,
                     rockbot_text=(sidecar.get("rockbot") or {}).get("text") if matches else None,
                     cortex=sidecar.get("cortex") or source.cortex)
    for item in sidecar.get("resources") or []:
        if isinstance(item, dict) and isinstance(item.get("path"), str) \
                and isinstance(item.get("rockbotFilename"), str):
            result.resource_map[item["path"]] = (item["rockbotFilename"], item.get("listed") is not False)
    if not matches:
        result.notes.append(Loss(native.name, "sidecar",
                                 "changed since it was converted: its own fields win; the sidecar "
                                 "supplies only what this format cannot hold", "warning"))
    return result


# ---------------------------------------------------------------- reading a library


def _skillmd_origin(entry: SkillMdEntry, profile: Profile) -> dict[str, Any]:
    return {"profile": profile.id, "dir": entry.rel_folder, "fileName": entry.path.name,
            "head": entry.doc.head, "bom": entry.doc.bom, "newline": entry.newline,
            "bodyPrefix": entry.body_prefix}


def library_boundary(lib: Library | SkillMdLibrary) -> tuple[Path, ...]:
    """The folders ``lib`` consists of: nothing outside them is read (see module doc)."""
    if isinstance(lib, Library):
        return (lib.skills_dir, lib.agent_dir / ROCKBOT_SIDECAR_DIR)
    return tuple(root.path for root in lib.roots)


def source_skills(lib: Library | SkillMdLibrary, skipped: list[str] | None = None) -> list[SourceSkill]:
    """Every loaded skill of ``lib`` in canonical form, sidecars applied. A SKILL.md that links
    outside the library is left out (``path: kind: message`` appended to ``skipped``); RockBot
    skill files that do are left out too (they are among ``lib.problems``)."""
    out: list[SourceSkill] = []
    boundary = library_boundary(lib)
    if isinstance(lib, Library):
        outside_paths = {p.path for p in lib.problems if p.kind is ProblemKind.OUTSIDE_LINK}
        for skill in lib.skills():
            rockbot_entry = lib.entry(skill.name)
            if lib.layout.display_path(rockbot_entry.path) in outside_paths:
                continue
            source = SourceSkill(skill, True, "rockbot", lib.layout.display_path(rockbot_entry.path),
                                 rockbot_text=rockbot_entry.raw.decode("utf-8", "replace"),
                                 boundary=boundary)
            side_path = lib.agent_dir / ROCKBOT_SIDECAR_DIR / f"{skill.name}.skillgui.json"
            sidecar = read_sidecar(side_path, boundary) if _present(side_path) else None
            if sidecar is not None:
                source = apply_sidecar(source, rockbot_entry.raw, sidecar)
                res_dir = lib.agent_dir / ROCKBOT_RESOURCES_DIR / skill.name
                if res_dir.is_dir():
                    source.resources = [(rel, res_dir / rel)
                                        for rel in list_resources(res_dir, res_dir / SIDECAR_NAME)]
            if lib.rules.resources:
                for res in lib.resources(skill.name):
                    if res.path is None:
                        source.missing_resources.append(res.filename)
                    else:
                        source.rockbot_resources.append(RockbotResource(res.filename, res.path,
                                                                        res.entry))
            out.append(source)
        return out
    for entry in lib.entries():
        if isinstance(entry, DbEntry):
            row = entry.row
            values = {k: v for k, v in row.values.items() if k != "embedding"}
            source = SourceSkill(entry.skill, True, "cortex-db", display_path(lib.base, entry.path),
                                 cortex={"row": _json_safe(values), "stats": row.stats(),
                                         "embedding": None if row.values.get("embedding") is None
                                         else "omitted"})
            out.append(source)
            continue
        linked_out = [w for w in entry.warnings if w.kind is ProblemKind.OUTSIDE_LINK
                      and w.path == display_path(lib.base, entry.path)]
        if linked_out:
            if skipped is not None:
                skipped.extend(f"{w.path}: {w.kind.value}: {w.message}" for w in linked_out)
            continue
        source = SourceSkill(entry.skill, False, lib.format, display_path(lib.base, entry.path),
                             skillmd=_skillmd_origin(entry, lib.profile),
                             resources=[(r, entry.folder / r) for r in entry.resources],
                             boundary=boundary)
        if entry.stats:
            source.cortex = {"stats": _json_safe(entry.stats)}
        trigger = entry.values.get("trigger_pattern", entry.values.get("triggerPattern"))
        if trigger is not None:
            source.cortex = {**(source.cortex or {}), "trigger_pattern": str(trigger)}
        side_path = entry.folder / SIDECAR_NAME
        sidecar = read_sidecar(side_path, boundary) if _present(side_path) else None
        if sidecar is not None:
            source = apply_sidecar(source, entry.raw, sidecar)
            if sidecar.get("skillmd") is None:  # it came from elsewhere: this file is not an origin
                source.skillmd = None if sidecar.get("written", {}).get("sha256") == _sha(entry.raw) \
                    else source.skillmd
        out.append(source)
    return out


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


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
        copied.append({"path": rel, "sha256": _sha(data), **more})
    return copied


# ---------------------------------------------------------------- RockBot (current) resources
# SkillResourceType <-> the Agent Skills folders (agentskills.io: scripts/, references/, assets/).
# Assumed mapping (README, "Notes: RockBot (current)"): code a skill runs -> scripts/, documents
# it reads -> references/, everything else -> assets/; back again by folder and extension.

TYPE_DIRS = {"Python": "scripts", "Wisp": "scripts", "Markdown": "references", "Text": "references",
             "JsonSchema": "references", "Other": "assets"}
EXTENSION_TYPES = {".py": "Python", ".wisp": "Wisp", ".md": "Markdown", ".markdown": "Markdown",
                   ".txt": "Text", ".json": "JsonSchema"}


def resource_dir_for(type_: str | None, profile: Profile) -> str:
    """The SKILL.md folder a RockBot resource of ``type_`` goes to under ``profile`` ("": beside
    SKILL.md, for a profile without resource folders)."""
    wanted = TYPE_DIRS.get(type_ or "", "assets")
    if wanted in profile.resource_dirs:
        return wanted
    return profile.resource_dirs[0] if profile.resource_dirs else ""


def resource_type_for(rel: str) -> str:
    """The SkillResourceType a SKILL.md resource at ``rel`` gets in a RockBot (current) manifest:
    by extension, where its folder agrees (a ``.json`` file is a JsonSchema only in
    ``references/``; anything in ``assets/`` is Other)."""
    folder = rel.split("/", 1)[0] if "/" in rel else ""
    ext = os.path.splitext(rel)[1].lower()
    found = EXTENSION_TYPES.get(ext, "Other")
    if folder == "assets":
        return "Other"
    if folder == "scripts" and found not in ("Python", "Wisp"):
        return "Other"
    if folder == "references" and found in ("Python", "Wisp"):
        return "Text"
    return found


def _reproduces(rel: str, filename: str, type_: str | None, profile: Profile) -> bool:
    """True when converting ``filename`` of ``type_`` to ``profile`` puts it back at ``rel``."""
    folder = resource_dir_for(type_, profile)
    return rel == (f"{folder}/{filename}" if folder else filename)


def _skillmd_resource_items(source: SourceSkill, profile: Profile, skill_file: str,
                            report: list[Loss]) -> list[tuple[str, Path, dict[str, Any]]]:
    """Where each RockBot (current) resource of ``source`` goes in a SKILL.md folder."""
    back = {filename: rel for rel, (filename, _listed) in source.resource_map.items()}
    taken = {fold(rel) for rel, _path in source.resources} | {fold(skill_file)}
    items: list[tuple[str, Path, dict[str, Any]]] = []
    moved: dict[str, int] = {}
    for res in source.rockbot_resources:
        rel = back.get(res.filename)
        if rel is None or fold(rel) in taken or not _safe_rel(rel):
            folder = resource_dir_for(res.type, profile)
            rel = f"{folder}/{res.filename}" if folder else res.filename
        if fold(rel) in taken:
            base, n = rel, 2
            while fold(rel) in taken:
                stem, ext = os.path.splitext(base)
                rel, n = f"{stem}-{n}{ext}", n + 1
            report.append(Loss(source.skill.name, "resources", f"resource {res.filename} collides "
                               f"with another file; written as {rel}", "warning"))
        taken.add(fold(rel))
        items.append((rel, res.path, {"rockbotFilename": res.filename,
                                      "listed": res.entry is not None}))
        where = rel.split("/", 1)[0] + "/" if "/" in rel else "beside SKILL.md"
        moved[where] = moved.get(where, 0) + 1
    if items:
        where = ", ".join(f"{n} to {d}" for d, n in sorted(moved.items()))
        report.append(Loss(source.skill.name, "resources",
                           f"{len(items)} RockBot resource file(s) written ({where}); their manifest "
                           "entries (type, description, provisional...) are kept in the sidecar"))
    unlisted = [r.filename for r in source.rockbot_resources if r.entry is None]
    if unlisted:
        report.append(Loss(source.skill.name, "resources", "not in the manifest: "
                           + ", ".join(unlisted) + " (copied all the same)"))
    for filename in source.missing_resources:
        report.append(Loss(source.skill.name, "resources", f"the manifest lists {filename}, which is "
                           "not on disk: nothing to copy (the entry is kept in the sidecar)",
                           "warning"))
    return items


def _safe_rel(rel: str) -> bool:
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _manifest_entry(filename: str, type_: str, description: str) -> dict[str, Any]:
    """A new manifest entry, every SkillResource property in the record's order."""
    return {"filename": filename, "type": type_, "description": description, "provisional": False,
            "createdAt": None, "verifyHint": None, "definitionHash": None, "toolFingerprints": None}


def _with_manifest(skill: Skill, manifest: list[Any]) -> Skill:
    """``skill`` with its ``manifest`` property set (in place, or added after the others)."""
    (rendered,) = extra_props(json.dumps({"manifest": manifest}))
    extra = list(skill.extra)
    at = next((i for i, (k, _v) in enumerate(extra) if k.lower() == "manifest"), None)
    if at is None:
        extra.append(rendered)
    else:
        extra[at] = (extra[at][0], rendered[1])
    return skill.model_copy(update={"extra": tuple(extra)})


def _current_resources(source: SourceSkill, out: Skill, report: list[Loss],
                       ) -> tuple[Skill, list[tuple[str, Path, dict[str, Any]]], bool]:
    """For a RockBot (current) target: ``out`` with its manifest completed, the files for its
    ``.resources/`` folder, and whether they restore an earlier conversion exactly."""
    items: list[tuple[str, Path, dict[str, Any]]] = []
    names: set[str] = set()
    for res in source.rockbot_resources:  # RockBot (current) to RockBot (current): as they are
        items.append((res.filename, res.path, {}))
        names.add(fold(res.filename))
    value = out.extra_value("manifest")
    manifest: list[Any] = list(value) if isinstance(value, list) else []
    listed = {fold(e["filename"]) for e in manifest
              if isinstance(e, dict) and isinstance(e.get("filename"), str)}
    added: list[str] = []
    exact = True
    for rel, path in source.resources:
        mapped = source.resource_map.get(rel)
        filename = mapped[0] if mapped is not None else rel.rsplit("/", 1)[-1]
        if mapped is None or resource_filename_error(filename) is not None \
                or fold(filename) in names:
            exact = False
            wanted = filename
            filename = re.sub(r"[^A-Za-z0-9_\-.]+", "-", rel.rsplit("/", 1)[-1]).replace("..", ".")
            filename = filename.strip(".") or "resource"
            base, n = filename, 2
            while fold(filename) in names:
                stem, ext = os.path.splitext(base)
                filename, n = f"{stem}-{n}{ext}", n + 1
            if filename != wanted:
                report.append(Loss(source.skill.name, "resources", f"resource {rel} written as "
                                   f"{filename} (RockBot resource names are plain file names)"))
        names.add(fold(filename))
        items.append((filename, path, {"path": rel, "rockbotFilename": filename,
                                       "listed": mapped[1] if mapped is not None else True}))
        if (mapped is None or mapped[1]) and fold(filename) not in listed:
            type_ = resource_type_for(rel)
            manifest.append(_manifest_entry(filename, type_, f"Converted from {rel}"))
            listed.add(fold(filename))
            added.append(f"{filename} ({type_})")
    if added:
        out = _with_manifest(out, manifest)
        report.append(Loss(source.skill.name, "resources", "added to the manifest: "
                           + ", ".join(added) + " (type from the folder and extension)"))
    return out, items, exact and not added


def _to_rockbot(source: SourceSkill, staging: Path, taken: set[str], report: list[Loss],
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
        completed, current_items, restored = _current_resources(source, out, report)
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


def _skillmd_bytes(source: SourceSkill, profile: Profile, name: str,
                   report: list[Loss]) -> tuple[bytes, str, str]:
    """(file bytes, description written, content as the target reads it back)."""
    skill = source.skill
    summary = skill.summary or ""
    if not summary.strip() and profile.require_description:
        summary = _first_line_summary(skill)
        report.append(Loss(skill.name, "summary", "empty summary; the description is taken from the "
                                                  "content (the original is kept in the sidecar)"))
    if profile.plain == "line" and ("\n" in summary or "\r" in summary):
        summary = " ".join(summary.split())
        report.append(Loss(skill.name, "summary", f"{profile.label} reads one physical line; line "
                                                  "breaks in the description became spaces"))
    if profile.description_limit and len(summary) > profile.description_limit:
        report.append(Loss(skill.name, "summary", f"description has {len(summary)} characters "
                                                  f"(the spec allows {profile.description_limit}); "
                                                  "kept whole, not cut", "warning"))
    origin = source.skillmd
    reuse = origin is not None and (origin.get("profile") == profile.id or
                                    (profile.export_keys is None and origin.get("profile") != "cortex-fs"
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
                                                                 profile.plain))
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
        if skill.see_also is not None and profile.export_keys is not None:
            report.append(Loss(skill.name, "see-also", f"{profile.label} has no see-also; kept in the "
                                                       "sidecar"))
    return data, summary, skill.content or ""


def _to_skillmd(source: SourceSkill, profile: Profile, staging: Path, taken: set[str],
                report: list[Loss]) -> str:
    skill = source.skill
    origin = source.skillmd
    if origin is not None and origin.get("dir") and origin.get("profile") == profile.id:
        rel_dir = str(origin["dir"])
        name = skill.name
    else:
        name = folder_name(skill.name, profile)
        rel_dir = name
    if name != skill.name:
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
    items += _skillmd_resource_items(source, profile, file_name, report)
    resources = _copy_resources(source, staging, unique, report, items)
    held = [k for k, _v in skill.extra if skill.extra_value(k) is not None]
    if held:
        report.append(Loss(skill.name, "frontmatter", "SKILL.md has no slot for RockBot's "
                           + ", ".join(held) + "; kept in the sidecar"))
    if resources and not profile.resource_dirs and profile.id == "cortex-fs":
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
    reproduced = (not isinstance(back, Problem) and back.skill.name == skill.name
                  and back.skill.summary == skill.summary and back.skill.content == skill.content
                  and (back.skill.see_also == skill.see_also))
    same_origin = origin is not None and origin.get("profile") == profile.id \
        and source.rockbot_text is None
    if not (reproduced and same_origin and source.cortex is None and not source.timestamps_known):
        read_content = content if isinstance(back, Problem) else back.skill.content
        sidecar = make_sidecar(source, rel, data, name, summary, read_content, resources)
        _write(staging, f"{unique}/{SIDECAR_NAME}", sidecar_bytes(sidecar))
    return name


# ---------------------------------------------------------------- whole library


def convert(lib: Library | SkillMdLibrary, dest: Path, target: str) -> ConvertResult:
    """Write ``lib``'s skills as a new ``target`` library at ``dest`` (new or empty folder)."""
    if target not in TARGETS:
        raise ConvertError(f"unknown target '{target}' (one of {', '.join(TARGETS)})")
    dest = Path(dest).expanduser()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ConvertError(f"{dest}: already exists and is not an empty folder; nothing written")
    result = ConvertResult(target, dest)
    skipped: list[str] = []
    sources = source_skills(lib, skipped)
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(dest.parent)
    staging = _new_staging(dest)
    out_dir = staging / STAGING_PAYLOAD
    try:
        taken: set[str] = set()
        if target in ("rockbot", "rockbot-current"):
            (out_dir / "skills").mkdir()
            for source in sources:
                result.losses.extend(source.notes)
                result.written.append(_to_rockbot(source, out_dir, taken, result.losses,
                                                  current=target == "rockbot-current"))
        else:
            profile = PROFILES[TARGET_PROFILE[target]]
            base = out_dir / {"cortex-fs": ".cortex/skills", "picobot": ".picobot/skills"}.get(target, "")
            base.mkdir(parents=True, exist_ok=True)
            for source in sources:
                result.losses.extend(source.notes)
                result.written.append(_to_skillmd(source, profile, base, taken, result.losses))
        if dest.exists():
            dest.rmdir()
        out_dir.rename(dest)
        fileio.checkpoint()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # the marker file only
    for problem in lib.problems:
        result.not_converted.append(f"{problem.path}: {problem.kind.value}: {problem.message}")
    result.not_converted.extend(skipped)
    return result


def _new_staging(dest: Path) -> Path:
    """A fresh staging folder beside ``dest`` (named after it and this process), marked as ours,
    with an empty ``output/`` folder that becomes ``dest``."""
    staging = fileio.temp_path_for(dest)
    staging.mkdir()
    (staging / STAGING_MARK).write_bytes(b"")
    (staging / STAGING_PAYLOAD).mkdir()
    return staging


def remove_stale_staging(folder: Path) -> list[Path]:
    """Remove the staging folders in ``folder`` that a conversion killed before it finished left
    behind (marked as ours, and their process is gone); returns those removed."""
    removed: list[Path] = []
    try:
        with os.scandir(folder) as listing:
            entries = [e for e in listing if fileio.is_temp_name(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for entry in entries:
        path = Path(entry.path)
        if fileio.is_regular(path / STAGING_MARK) and not (path / STAGING_MARK).is_symlink() \
                and fileio.stale_temp(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
