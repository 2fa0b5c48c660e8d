"""The machine view's notes about a root's skills, in a file no agent reads:
``<root>/.rockskills/machine.toml`` (a folder starting with '.', holding no SKILL.md and no
``*.json``: Codex skips it, the one-level agents never look two levels down, Hermes finds no skill
file in it, RockBot loads only ``*.json``).

Per skill folder (its path below the root): tags, a note, where it was copied or linked from with
the digest both sides had then, and the lint findings the user accepted with a reason. Kept apart
from the skill's files, so it survives any update of the skill; a move carries its entry along.
The file is untrusted: one that cannot be read is reported and never written over.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted

__all__ = ["SIDECAR", "Accepted", "CopyRecord", "Sidecar", "SidecarError", "SkillNotes", "read_sidecar",
           "sidecar_path"]

SIDECAR = Path(".rockskills") / "machine.toml"
HEADER = ("# rockskills: tags, notes, copy records and accepted lint findings of this folder's skills.\n"
          "# No agent reads this file; rockskills keeps it beside the skills so it survives updates.\n")


class SidecarError(ValueError):
    """The sidecar exists but cannot be read; it is left as it is."""


@dataclass(frozen=True)
class Accepted:
    """A lint finding the user accepted: which file, rule and line text (by digest), and why."""

    file: str
    kind: str
    text: str  # sha256: of the line's text (the finding follows its line when lines move)
    line: int
    message: str
    reason: str
    at: str


@dataclass(frozen=True)
class CopyRecord:
    """Where a skill was copied or linked from, and the digest both sides had then."""

    source: str  # the source skill folder (absolute)
    digest: str  # sha256: of both folders at that moment
    mode: str  # copy | link
    at: str


@dataclass(frozen=True)
class SkillNotes:
    """What the sidecar says of one skill folder."""

    tags: tuple[str, ...] = ()
    note: str = ""
    copied: CopyRecord | None = None
    accepted: tuple[Accepted, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.tags or self.note or self.copied or self.accepted)


@dataclass(frozen=True)
class Sidecar:
    """One root's sidecar: its entries by skill folder (relative '/'-path), and the bytes read."""

    path: Path
    entries: dict[str, SkillNotes] = field(default_factory=dict)
    raw: bytes | None = None
    problem: str = ""

    def notes(self, folder: str) -> SkillNotes:
        return self.entries.get(folder, SkillNotes())

    def with_notes(self, folder: str, notes: SkillNotes | None) -> Sidecar:
        """A copy with ``folder``'s entry replaced (None or empty: removed)."""
        if self.problem:
            raise SidecarError(f"{self.path}: {self.problem}; fix or remove it first (it is left as it is)")
        entries = dict(self.entries)
        if notes is None or notes.empty:
            entries.pop(folder, None)
        else:
            entries[folder] = notes
        return replace(self, entries=entries)

    def to_bytes(self) -> bytes | None:
        """The file's new bytes (None: no entry left, the file goes)."""
        if not self.entries:
            return None
        import tomlkit

        doc = tomlkit.document()
        doc.add(tomlkit.comment(HEADER.splitlines()[0].removeprefix("# ")))
        doc.add(tomlkit.comment(HEADER.splitlines()[1].removeprefix("# ")))
        doc["version"] = 1
        skills = tomlkit.table(is_super_table=True)
        for folder in sorted(self.entries):
            skills[folder] = _entry_table(self.entries[folder])
        doc["skills"] = skills
        return tomlkit.dumps(doc).encode("utf-8")


def _entry_table(notes: SkillNotes) -> Any:
    import tomlkit

    table = tomlkit.table()
    if notes.tags:
        table["tags"] = list(notes.tags)
    if notes.note:
        table["note"] = notes.note
    if notes.copied is not None:
        c = notes.copied
        table["copied"] = {"source": c.source, "digest": c.digest, "mode": c.mode, "at": c.at}
    if notes.accepted:
        aot = tomlkit.aot()
        for a in notes.accepted:
            aot.append(_accepted_table(a))
        table["accepted"] = aot
    return table


def _accepted_table(a: Accepted) -> Any:
    import tomlkit

    t = tomlkit.table()
    for key, value in (("file", a.file), ("kind", a.kind), ("text", a.text), ("line", a.line),
                       ("message", a.message), ("reason", a.reason), ("at", a.at)):
        t[key] = value
    return t


def sidecar_path(root: Path) -> Path:
    return root / SIDECAR


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _notes(raw: object) -> SkillNotes:
    if not isinstance(raw, dict):
        return SkillNotes()
    tags = tuple(t for t in raw.get("tags", ()) if isinstance(t, str)) \
        if isinstance(raw.get("tags"), list) else ()
    copied_raw = raw.get("copied")
    copied = CopyRecord(_str(copied_raw.get("source")), _str(copied_raw.get("digest")),
                        _str(copied_raw.get("mode")) or "copy", _str(copied_raw.get("at"))) \
        if isinstance(copied_raw, dict) and copied_raw.get("source") else None
    accepted: list[Accepted] = []
    for a in raw.get("accepted", ()) if isinstance(raw.get("accepted"), list) else ():
        if isinstance(a, dict):
            line = a.get("line")
            accepted.append(Accepted(_str(a.get("file")), _str(a.get("kind")), _str(a.get("text")),
                                     line if isinstance(line, int) else 0, _str(a.get("message")),
                                     _str(a.get("reason")), _str(a.get("at"))))
    return SkillNotes(tags, _str(raw.get("note")), copied, tuple(accepted))


def read_sidecar(root: Path) -> Sidecar:
    """``root``'s sidecar (empty when there is none; ``problem`` when it cannot be read)."""
    path = sidecar_path(root)
    if not (path.exists() or path.is_symlink()):
        return Sidecar(path)
    try:
        raw = fileio.read_regular(path, DOCUMENT_MAX_BYTES)
    except OSError as exc:
        return Sidecar(path, problem=f"cannot be read ({untrusted.reason(path, exc)})")
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        return Sidecar(path, raw=raw, problem=f"not valid TOML ({str(exc).splitlines()[0]})")
    skills = data.get("skills")
    entries = {str(k): _notes(v) for k, v in skills.items()} if isinstance(skills, dict) else {}
    return Sidecar(path, {k: v for k, v in entries.items() if not v.empty}, raw)
