"""RockBot (current) resources in a conversion: where a skill's ``{name}.resources/`` files go
in a SKILL.md folder and back (by type, folder and extension), and the manifest entries a
RockBot (current) target gains."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.convert.source import Loss, SourceSkill
from rockskills_gui.core.library.rockbot.library import with_manifest
from rockskills_gui.core.library.skillmd.store import AgentProfile
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.rules import resource_filename_error
from rockskills_gui.core.model.skill import Skill

# ---------------------------------------------------------------- RockBot (current) resources
# SkillResourceType <-> the Agent Skills folders (agentskills.io: scripts/, references/, assets/).
# Assumed mapping (README, "Notes: RockBot (current)"): code a skill runs -> scripts/, documents
# it reads -> references/, everything else -> assets/; back again by folder and extension.

TYPE_DIRS = {"Python": "scripts", "Wisp": "scripts", "Markdown": "references", "Text": "references",
             "JsonSchema": "references", "Other": "assets"}
EXTENSION_TYPES = {".py": "Python", ".wisp": "Wisp", ".md": "Markdown", ".markdown": "Markdown",
                   ".txt": "Text", ".json": "JsonSchema"}


def resource_dir_for(type_: str | None, profile: AgentProfile) -> str:
    """The SKILL.md folder a RockBot resource of ``type_`` goes to under ``profile`` ("": beside
    SKILL.md, for a profile without resource folders)."""
    wanted = TYPE_DIRS.get(type_ or "", "assets")
    if wanted in profile.storage.resource_dirs:
        return wanted
    return profile.storage.resource_dirs[0] if profile.storage.resource_dirs else ""


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


def _reproduces(rel: str, filename: str, type_: str | None, profile: AgentProfile) -> bool:
    """True when converting ``filename`` of ``type_`` to ``profile`` puts it back at ``rel``."""
    folder = resource_dir_for(type_, profile)
    return rel == (f"{folder}/{filename}" if folder else filename)


def skillmd_resource_items(source: SourceSkill, profile: AgentProfile, skill_file: str,
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




def current_resources(source: SourceSkill, out: Skill, report: list[Loss],
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
        out = with_manifest(out, manifest)
        report.append(Loss(source.skill.name, "resources", "added to the manifest: "
                           + ", ".join(added) + " (type from the folder and extension)"))
    return out, items, exact and not added
