"""The canonical view a conversion writes from: each skill of a library as a
:class:`SourceSkill` (what the target needs to write it back exactly), the loss report's
lines, and the sidecars that carry what a format cannot hold (formats.md §G.3). Reading is
bounded by the library's folders (see :mod:`rockskills_gui.core.library.convert.run`)."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import DbEntry, SkillMdLibrary
from rockskills_gui.core.library.skillmd.store import (
    SIDECAR_NAME,
    AgentProfile,
    SkillMdEntry,
    display_path,
    list_resources,
)
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage import fileio, untrusted

SIDECAR_VERSION = 1
ROCKBOT_SIDECAR_DIR = ".skillgui"
ROCKBOT_RESOURCES_DIR = ".skillgui/resources"


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


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex (what a sidecar records of the file it describes)."""
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
    resources copied (see ``convert_write._copy_resources``)."""
    sidecar: dict[str, Any] = {
        "skillgui": SIDECAR_VERSION,
        "written": {"file": file_rel, "sha256": sha256_hex(data), "name": written_name,
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
        data = fileio.read_regular(path, DOCUMENT_MAX_BYTES) if boundary is None \
            else untrusted.read_inside(path, boundary, DOCUMENT_MAX_BYTES)
        value = dotnet_json.loads_untrusted(data)
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("skillgui") != SIDECAR_VERSION:
        return None
    return value


def apply_sidecar(source: SourceSkill, raw: bytes, sidecar: dict[str, Any]) -> SourceSkill:
    """Merge a sidecar into a skill read from the file it describes (see module doc)."""
    written = sidecar.get("written") or {}
    block = sidecar.get("skill") or {}
    matches = written.get("sha256") == sha256_hex(raw)
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


def _skillmd_origin(entry: SkillMdEntry, profile: AgentProfile, base: Path) -> dict[str, Any]:
    """Where the SKILL.md came from: its folder below its root, the root below the library
    (``plugins/x/skills``), the plugin and categories its name starts with, and its bytes' form."""
    origin = {"profile": profile.settings_id, "dir": entry.rel_folder, "fileName": entry.path.name,
              "head": entry.doc.head, "bom": entry.doc.bom, "newline": entry.newline,
              "bodyPrefix": entry.body_prefix}
    root = display_path(base, entry.root.path)
    if root not in (".", "") and not Path(root).is_absolute():
        origin["root"] = root
    if entry.prefix:
        origin["prefix"] = entry.prefix
    return origin


def library_boundary(lib: RockBotLibrary | SkillMdLibrary) -> tuple[Path, ...]:
    """The folders ``lib`` consists of: nothing outside them is read (see module doc)."""
    if isinstance(lib, RockBotLibrary):
        return (lib.skills_dir, lib.agent_dir / ROCKBOT_SIDECAR_DIR)
    return tuple(root.path for root in lib.roots)


def source_skills(lib: RockBotLibrary | SkillMdLibrary,
                  skipped: list[str] | None = None) -> list[SourceSkill]:
    """Every loaded skill of ``lib`` in canonical form, sidecars applied. A SKILL.md that links
    outside the library is left out (``path: kind: message`` appended to ``skipped``); RockBot
    skill files that do are left out too (they are among ``lib.problems``)."""
    out: list[SourceSkill] = []
    boundary = library_boundary(lib)
    if isinstance(lib, RockBotLibrary):
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
                             skillmd=_skillmd_origin(entry, lib.profile, lib.base),
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
                source.skillmd = None if sidecar.get("written", {}).get("sha256") == sha256_hex(entry.raw) \
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
