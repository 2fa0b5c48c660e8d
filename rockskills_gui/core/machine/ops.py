"""The machine view's operations, each adding its files to a :class:`Builder` whose
:meth:`~Builder.build` is one :class:`~.changes.MachineChange` (one undo step, however many skills
a batch touches): copy or link a skill into another agent's root, switch it off or on for an
agent, archive it, move it to another root, tag it, note it, accept a gate finding, bring one copy
up to date with the other.

Nothing here writes: :class:`~.changes.MachineHistory` applies what the preview showed. A copy
is checked first by the target agent's own reader (its name and description rules: the agent's
message when it would not load the skill) and by the security gate (every finding accepted with a
reason, or the copy is refused).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from rockskills_gui.core.library.agent_roots import Verdict, agent_verdict
from rockskills_gui.core.library.archive_records import RECORD_SUFFIX, ArchivedFile, ArchiveRecord
from rockskills_gui.core.library.switch_state import aside_of, read_disabled, switch_path
from rockskills_gui.core.machine.changes import LinkChange, MachineChange, MachineError, group
from rockskills_gui.core.machine.digest import FolderFiles, file_digest, folder_digest, folder_files
from rockskills_gui.core.machine.gate import GateFinding, blocking
from rockskills_gui.core.machine.scan import Copy, Machine, MachineRoot
from rockskills_gui.core.machine.sidecar import (
    Accepted,
    CopyRecord,
    Sidecar,
    SidecarError,
    SkillNotes,
    read_sidecar,
)
from rockskills_gui.core.machine.switches import switch_change
from rockskills_gui.core.model.profile import MOVE_ASIDE, AgentProfile, DisableSwitch, FileKind, SwitchKind
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.changes import FileChange
from rockskills_gui.core.storage.checksum import sha256

__all__ = ["ARCHIVE_DIR", "Builder", "CopyCheck", "accept_finding", "archive_copy", "check_copy", "copy_to",
           "diff_copies", "move_to", "set_enabled", "set_note", "switch_for", "sync_copy", "tag"]

# <root>/.archive/<skill>: Hermes' own archive (skill_utils.py EXCLUDED_SKILL_DIRS) and every SKILL.md
# profile's storage.archive_dir, so a skill archived here is in that library's Skill Archive (issue 32).
ARCHIVE_DIR = ".archive"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Builder:
    """Collects one step's writes: whole files (first ``before``, last ``after`` per path),
    links, sidecar edits per root and what the preview must say."""

    machine: Machine
    writes: dict[Path, tuple[bytes | None, bytes | None]] = field(default_factory=dict)
    links: list[LinkChange] = field(default_factory=list)
    sidecars: dict[Path, Sidecar] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    count: int = 0  # skills touched
    entries: set[Path] = field(default_factory=set)  # archive entries this step makes

    def put(self, path: Path, before: bytes | None, after: bytes | None) -> None:
        prior = self.writes.get(path)
        self.writes[path] = (prior[0] if prior else before, after)

    def sidecar(self, root: Path) -> Sidecar:
        if root not in self.sidecars:
            known = self.machine.root_at(root)
            self.sidecars[root] = known.sidecar if known is not None and known.sidecar is not None \
                else read_sidecar(root)
        return self.sidecars[root]

    def set_notes(self, root: Path, rel: str, notes: SkillNotes | None) -> None:
        try:
            self.sidecars[root] = self.sidecar(root).with_notes(rel, notes)
        except SidecarError as exc:  # a sidecar that cannot be read is never written over
            raise MachineError(f"{exc}; nothing was changed") from exc

    def notes_of(self, root: Path, rel: str) -> SkillNotes:
        return self.sidecar(root).notes(rel)

    def say(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def build(self, label: str) -> MachineChange:
        """The step: the files (sidecars included), grouped by place."""
        for car in self.sidecars.values():
            before = car.raw if (car.path.exists() or car.path.is_symlink()) else None
            after = car.to_bytes()
            if after != before and not (after is None and before is None):
                self.put(car.path, before, after)
        files = [FileChange(p, b, a) for p, (b, a) in self.writes.items() if b != a]
        roots = [r.home_of_root for r in self.machine.roots]
        trusted = tuple(dict.fromkeys(Path(os.path.realpath(r.path)) for r in self.machine.roots))
        keep = tuple(r.path for r in self.machine.roots if not r.aside and r.path.is_dir())
        return MachineChange(label, group(files, self.links, roots), tuple(self.notes), trusted, keep)


# ---------------------------------------------------------------- checks before a copy


@dataclass(frozen=True)
class CopyCheck:
    """What stands before a copy of ``copy`` into ``target`` for ``agent``: the agent's verdict
    on its SKILL.md, the gate findings not yet accepted, and a refusal ("" : none)."""

    verdict: Verdict
    findings: tuple[GateFinding, ...]
    refused: str

    @property
    def ok(self) -> bool:
        return not self.refused and not self.findings


def check_copy(copy: Copy, target: MachineRoot, agent: AgentProfile) -> CopyCheck:
    verdict = agent_verdict(copy.skill_file, copy.root.path, agent)
    refused = ""
    if copy.root.kind is not FileKind.SKILL_MD or target.kind is not FileKind.SKILL_MD:
        refused = "only SKILL.md skills are copied between agents (convert a RockBot library instead)"
    elif target.home_of_root == copy.root.home_of_root:
        refused = f"'{copy.name}' is already in {target.path}"
    elif os.path.lexists(target.path / copy.folder.name):
        refused = (f"{target.path / copy.folder.name} already exists: bring it up to date from this copy "
                   "instead (a diff first)")
    elif verdict.refused:
        refused = f"{agent.label} would not load it: {verdict.refused}"
    elif not copy.files.complete:
        refused = f"some files cannot be copied: {'; '.join(copy.files.skipped[:3])}"
    return CopyCheck(verdict, tuple(blocking(copy.gate)), refused)


def _record(copy: Copy, mode: str) -> CopyRecord:
    return CopyRecord(str(copy.linked_to or copy.folder), copy.digest or "", mode, _now())


def copy_to(b: Builder, copy: Copy, target: MachineRoot, agent: AgentProfile,
            mode: str = "copy") -> CopyCheck:
    """Copy (or, ``mode="link"``, symbolically link) ``copy`` into ``target`` for ``agent``;
    nothing is added when the check refuses it or findings are still open."""
    check = check_copy(copy, target, agent)
    if not check.ok:
        return check
    dest = target.path / copy.folder.name
    if mode == "link":
        source = copy.linked_to or copy.folder
        b.links.append(LinkChange(dest, None, os.path.relpath(source, target.path)))
        b.say(f"{dest} will be a symbolic link to {source}: both agents share one copy")
    else:
        for rel, data in sorted(copy.files.files.items()):
            b.put(dest / rel, None, data)
    own = copy.notes
    b.set_notes(target.path, copy.folder.name,
                SkillNotes(own.tags, own.note, _record(copy, mode), own.accepted))
    for w in check.verdict.warnings:
        b.say(f"{agent.label}: {w}")
    b.count += 1
    return check


# ---------------------------------------------------------------- moving folders


def _move_folder(b: Builder, copy: Copy, dest_root: Path, dest: Path, keep_notes: bool = True) -> None:
    """Move ``copy``'s folder (its files, or the link it is) to ``dest``, its sidecar entry along."""
    if copy.root.kind is not FileKind.SKILL_MD:  # RockBot loads every *.json below skills/
        raise MachineError(f"'{copy.name}' is a RockBot skill: open {copy.root.home_of_root.parent} as a "
                           "library to archive or move it (its archive is kept outside skills/). "
                           "Nothing was changed.")
    if os.path.lexists(dest):
        raise MachineError(f"{dest} already exists; nothing was changed")
    if copy.folder.is_symlink():
        target = os.readlink(copy.folder)
        real = copy.linked_to or Path(os.path.realpath(copy.folder))
        b.links.append(LinkChange(copy.folder, target, None))
        b.links.append(LinkChange(dest, None, os.path.relpath(real, dest.parent)))
    else:
        if not copy.files.complete:
            raise MachineError(f"Cannot move '{copy.name}': {copy.files.skipped[0]}. This app only moves "
                               "regular files; move or remove that one by hand first. Nothing was changed.")
        for rel, data in copy.files.files.items():
            b.put(copy.folder / rel, data, None)
            b.put(dest / rel, None, data)
    if keep_notes:
        notes = b.notes_of(copy.root.path, copy.rel)
        if not notes.empty:
            b.set_notes(copy.root.path, copy.rel, None)
            b.set_notes(dest_root, dest.relative_to(dest_root).as_posix(), notes)
    b.count += 1


def _free_entry(b: Builder, place: Path, folder_name: str) -> str:
    """An entry name free in ``place`` (and in this step): the folder's name, else with the time
    (Hermes' suffix for a second archive of one name), else numbered."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", folder_name).strip(".-")[:120] or "skill"
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    for entry in (base, f"{base}-{stamp}", *(f"{base}-{stamp}-{n}" for n in range(2, 1000))):
        taken = (place / entry, place / (entry + RECORD_SUFFIX))
        if not any(os.path.lexists(p) or p in b.writes or p in b.entries for p in taken):
            b.entries.add(place / entry)
            return entry
    raise MachineError(f"{place} has no free entry name for {folder_name!r}; nothing was changed")


def archive_copy(b: Builder, copy: Copy) -> None:
    """Move ``copy`` into its root's ``.archive/<entry>/`` with the archive's record beside it
    (``<entry>.archived.json``: core/library/archive_records.py), so that the library's Skill
    Archive lists and restores it; no agent scans ``.archive``."""
    root = copy.root.home_of_root
    place = root / ARCHIVE_DIR
    entry = _free_entry(b, place, copy.folder.name)
    linked = copy.folder.is_symlink()
    _move_folder(b, copy, root, place / entry, keep_notes=False)
    if not linked:
        files = [ArchivedFile(path=rel, sha256=sha256(data) or "", size=len(data))
                 for rel, data in sorted(copy.files.files.items())]
        record = ArchiveRecord(name=copy.name, entry=entry, archived_at=Timestamp.now().isoformat(),
                               action="archive", reason="archived in the Machine tab", origin=copy.rel,
                               files=files)
        b.put(place / (entry + RECORD_SUFFIX), None, record.to_bytes())
    notes = b.notes_of(copy.root.path, copy.rel)
    if not notes.empty:
        b.set_notes(copy.root.path, copy.rel, None)
        b.set_notes(root, f"{ARCHIVE_DIR}/{entry}", notes)


def move_to(b: Builder, copy: Copy, target: MachineRoot) -> None:
    """Move ``copy`` into another root (the target agent's rules are the caller's check)."""
    if target.kind is not FileKind.SKILL_MD or copy.root.kind is not FileKind.SKILL_MD:
        raise MachineError("only SKILL.md skills move between roots")
    _move_folder(b, copy, target.path, target.path / copy.folder.name)


# ---------------------------------------------------------------- enable / disable


def _scope(root: MachineRoot) -> str:
    return "project" if root.scope == "project" else "user"


def switch_for(agent: AgentProfile, root: MachineRoot, home: Path) -> DisableSwitch:
    """The switch a skill of ``root`` is turned off with for ``agent``: its own settings switch
    for that scope when it has one, else moving the folder aside (:data:`MOVE_ASIDE`)."""
    for switch in agent.curation.switches():
        if switch.kind is SwitchKind.MOVE:
            return switch
        if switch.kind is SwitchKind.SKILL_FIELD:
            continue
        if switch.scope in ("any", _scope(root)) and switch_path(switch, home, root.project) is not None:
            return switch
    return MOVE_ASIDE


def set_enabled(b: Builder, copy: Copy, agent: AgentProfile, on: bool) -> None:
    """Turn ``copy`` off (or on) for ``agent`` with :func:`switch_for`'s switch."""
    home = b.machine.home
    root = copy.root
    if root.aside:
        if not on:
            return
        original = b.machine.root_at(root.of) if root.of is not None else None
        dest_root = root.of or root.path
        _move_folder(b, copy, dest_root, dest_root / copy.rel)
        if original is not None:
            others = [a.label for a in original.agents if a.id != agent.id]
            if others:
                b.say(f"moving {copy.name} back into {dest_root} also shows it to {', '.join(others)}")
        return
    switch = switch_for(agent, root, home)
    if switch.kind is SwitchKind.MOVE:
        if on:
            return
        aside = aside_of(root.path)
        _move_folder(b, copy, aside, aside / copy.rel)
        others = [a.label for a in root.agents if a.id != agent.id]
        if others:
            b.say(f"{root.path} is read by {', '.join(others)} too: moving {copy.name} aside switches it "
                  f"off for them as well ({agent.label} has no switch of its own)")
        return
    changes: list[FileChange] = []
    settings = (SwitchKind.MOVE, SwitchKind.SKILL_FIELD)
    switches = [s for s in agent.curation.disable if s.kind not in settings] \
        if on else [switch]
    for s in switches:
        path = switch_path(s, home, root.project)
        if path is None:
            continue
        prior = b.writes.get(path)
        if prior is not None and prior[1] is not None:  # a batch: edit what this step already wrote
            change = _edit_pending(s, path, prior[1], copy, on)
        else:
            change = switch_change(s, path, copy.name, copy.folder.name, copy.skill_file, on)
        if change is not None:
            changes.append(change)
    for change in changes:
        b.put(change.path, change.before, change.after)
    if on and not changes:
        still = read_disabled(agent, home, root.project).why(copy.name, copy.skill_file)
        if still:
            b.say(f"{copy.name} stays off for {agent.label}: {still}")
    if changes:
        b.count += 1
        if switch.kind in (SwitchKind.JSON_NAME_LIST, SwitchKind.YAML_NAME_LIST, SwitchKind.JSON_NAME_MAP):
            b.say(f"{agent.label} switches skills by name: every copy named {copy.name} it loads is "
                  f"turned {'on' if on else 'off'}")


def _edit_pending(switch: DisableSwitch, path: Path, pending: bytes, copy: Copy,
                  on: bool) -> FileChange | None:
    """The same edit over the bytes this step already writes to ``path`` (a batch)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / path.name
        scratch.write_bytes(pending)
        change = switch_change(switch, scratch, copy.name, copy.folder.name, copy.skill_file, on)
    return None if change is None else FileChange(path, pending, change.after)


# ---------------------------------------------------------------- tags, notes, findings


def tag(b: Builder, copy: Copy, name: str, add: bool) -> None:
    name = name.strip()
    if not name:
        raise MachineError("a tag needs a name")
    notes = b.notes_of(copy.root.path, copy.rel)
    tags = [t for t in notes.tags if t != name] + ([name] if add else [])
    if tuple(tags) != notes.tags:
        b.set_notes(copy.root.path, copy.rel, replace(notes, tags=tuple(tags)))
        b.count += 1


def set_note(b: Builder, copy: Copy, text: str) -> None:
    notes = b.notes_of(copy.root.path, copy.rel)
    b.set_notes(copy.root.path, copy.rel, replace(notes, note=text.strip()))
    b.count += 1


def accept_finding(b: Builder, copy: Copy, finding: GateFinding, reason: str) -> None:
    """Accept ``finding`` of ``copy`` with ``reason`` (kept in the sidecar; never removed here)."""
    if not reason.strip():
        raise MachineError("say why the finding is accepted (the reason is kept with it)")
    notes = b.notes_of(copy.root.path, copy.rel)
    accepted = Accepted(finding.file, finding.kind, finding.text, finding.line, finding.message,
                        reason.strip(), _now())
    b.set_notes(copy.root.path, copy.rel, replace(notes, accepted=(*notes.accepted, accepted)))
    b.count += 1


# ---------------------------------------------------------------- bringing copies up to date


def _source_files(copy: Copy) -> FolderFiles:
    record = copy.notes.copied
    if record is None:
        raise MachineError(f"{copy.folder} has no copy record: nothing to compare it with")
    return folder_files(Path(record.source))


def diff_copies(old: FolderFiles, new: FolderFiles) -> list[tuple[str, str]]:
    """Per file that differs: its path and a unified diff (or what changed, for binary files)."""
    out: list[tuple[str, str]] = []
    for rel in sorted(set(old.files) | set(new.files)):
        a, b = old.files.get(rel), new.files.get(rel)
        if a == b:
            continue
        try:
            at = a.decode("utf-8").splitlines(keepends=True) if a is not None else []
            bt = b.decode("utf-8").splitlines(keepends=True) if b is not None else []
        except UnicodeDecodeError:
            was, now = file_digest(a) if a else "absent", file_digest(b) if b else "absent"
            out.append((rel, f"binary file: {was} -> {now}\n"))
            continue
        out.append((rel, "".join(difflib.unified_diff(at, bt, f"a/{rel}", f"b/{rel}"))))
    return out


def sync_copy(b: Builder, copy: Copy, from_source: bool) -> list[tuple[str, str]]:
    """Bring one side of ``copy``'s copy record up to date with the other (``from_source``: the
    copy gets the source's files; else the source gets the copy's), and record the new common
    digest. Returns the diff the preview shows (old side -> new side)."""
    record = copy.notes.copied
    source = _source_files(copy)
    if record is None or not source.complete or not copy.files.complete:
        raise MachineError("both sides must be readable to bring one up to date")
    if record.mode == "link":
        raise MachineError("a linked copy is the source itself; there is nothing to bring up to date")
    old, new = (copy.files, source) if from_source else (source, copy.files)
    target = copy.folder if from_source else Path(record.source)
    for rel in sorted(set(old.files) | set(new.files)):
        before, after = old.files.get(rel), new.files.get(rel)
        if before != after:
            b.put(target / rel, before, after)
    digest = folder_digest(new) or ""
    fresh = replace(record, digest=digest, at=_now())
    b.set_notes(copy.root.path, copy.rel, replace(copy.notes, copied=fresh))
    b.count += 1
    return diff_copies(old, new)


def is_regular_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and fileio.is_regular(path / "SKILL.md")
