"""One machine, many agents: every skill root the agent profiles find in a home folder and in the
projects the user added, every skill in them, and each skill's copies compared by digest.

Which folders are roots is the profiles' answer (``storage.user_roots``, ``extension_roots``,
``project_roots`` through :mod:`~rockskills_gui.core.library.agent_roots`); a root read by several
agents (``~/.agents/skills``: Codex, Gemini CLI, Copilot, Cursor, Agent Skills) is one root with
all of them. Each root's skills are found by a bounded walk (folders starting with '.' are never
entered, nor links followed below the skill folders themselves); which agent sees a copy is its
scan rules' answer (depth, '.'-folders, skipped folders). A root's ``<root>.disabled`` sibling
(skills moved aside) is listed as that root's, its skills switched off for every agent of it.

The home folder is always explicit: nothing here reads the user's real home unless handed it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.agent_roots import project_roots, user_roots
from rockskills_gui.core.library.switch_state import Disabled, aside_of, read_disabled
from rockskills_gui.core.machine.changes import recover_places
from rockskills_gui.core.machine.digest import FolderFiles, folder_digest, folder_files
from rockskills_gui.core.machine.gate import GateFinding, findings
from rockskills_gui.core.machine.lockfiles import (
    GLOBAL_LOCKS,
    PROJECT_LOCK,
    LockEntry,
    LockFile,
    check_entry,
    read_lock,
)
from rockskills_gui.core.machine.sidecar import Sidecar, SkillNotes, read_sidecar
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.profile import AgentProfile, FileKind
from rockskills_gui.core.model.profiles import PROFILES
from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH, SKILL_FILE_MAX_BYTES
from rockskills_gui.core.storage import fileio, folder_walk

__all__ = ["Copy", "InstalledLock", "Machine", "MachineRoot", "MachineSkill", "machine_profiles",
           "scan_machine"]

SKILL_FILE = "SKILL.md"
MAX_SKILLS_PER_ROOT = 10_000
NEVER_ENTERED = ("node_modules", "__pycache__")  # a hostile root may hold millions of folders

IDENTICAL = "identical"
DIFFERENT = "different"
HERE, THERE = "changed here since copied", "source changed since copied"
MIRRORED = {HERE: "the copy changed since copied", THERE: "changed here since copied"}


def machine_profiles() -> list[AgentProfile]:
    """The profiles whose roots the machine view looks for: every agent that keeps its skills in
    files (a CortexPrism memory.db is only read with its project)."""
    return [p for p in PROFILES.values()
            if FileKind.SKILL_MD in p.storage.file_kinds or FileKind.ROCKBOT_JSON in p.storage.file_kinds]


@dataclass(frozen=True)
class InstalledLock:
    """A lock file's entry for a copy, and whether the copy changed since the install."""

    lock: LockFile
    entry: LockEntry
    state: str


@dataclass
class Copy:
    """One copy of a skill in one root."""

    root: MachineRoot
    folder: Path  # as found below the root (it may be a symbolic link)
    rel: str  # its path below the root, '/'-separated (the sidecar's key)
    name: str  # the frontmatter name (else the folder's)
    description: str
    files: FolderFiles
    digest: str | None
    skill_file: Path
    linked_to: Path | None = None  # the real folder when ``folder`` is a symbolic link
    seen_by: tuple[str, ...] = ()  # ids of the root's agents whose scan reaches it
    disabled: dict[str, str] = field(default_factory=dict)  # agent id -> where it is switched off
    notes: SkillNotes = field(default_factory=SkillNotes)
    copy_state: str = ""  # against its copy record: "" (none), identical, changed here/there/both
    copied_to: list[tuple[Copy, str]] = field(default_factory=list)  # copies made of it, their state here
    lock: InstalledLock | None = None
    gate: list[GateFinding] = field(default_factory=list)
    problem: str = ""  # why its frontmatter could not be read

    @property
    def aside(self) -> bool:
        return self.root.aside

    def disabled_for(self, agent: str) -> str:
        return self.disabled.get(agent, "")


@dataclass
class MachineRoot:
    """One folder of skills, the agents that read it, its scope and its skills."""

    path: Path
    scope: str  # user | extension | project
    agents: tuple[AgentProfile, ...]
    project: Path | None = None
    aside: bool = False  # the ``<root>.disabled`` folder of :attr:`of`
    of: Path | None = None
    kind: FileKind = FileKind.SKILL_MD
    copies: list[Copy] = field(default_factory=list)
    sidecar: Sidecar | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def agent_ids(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.agents)

    @property
    def agent_labels(self) -> str:
        return ", ".join(dict.fromkeys(a.label for a in self.agents))

    @property
    def count(self) -> int:
        return len(self.copies)

    @property
    def own_agent(self) -> AgentProfile:
        """The agent this root is most its own: of the agents reading it, the one that reads the
        fewest roots of its scope (``~/.claude/skills``: Claude Code; ``~/.agents/skills``: the
        Agent Skills clients). The machine view opens a root as this agent's library."""
        def roots_of(agent: AgentProfile) -> int:
            storage = agent.storage
            return len(storage.project_roots if self.scope == "project" else storage.user_roots) or 99

        return min(self.agents, key=roots_of)

    @property
    def home_of_root(self) -> Path:
        """The root the skills belong to (itself, or the root an aside folder is of)."""
        return self.of if self.of is not None else self.path


@dataclass
class MachineSkill:
    """A skill by name, with every copy on the machine."""

    name: str
    copies: list[Copy]

    @property
    def digests(self) -> set[str | None]:
        return {c.digest for c in self.copies}

    @property
    def sameness(self) -> str:
        """identical | different ("" for a single copy)."""
        if len(self.copies) < 2:
            return ""
        return IDENTICAL if len(self.digests) == 1 and None not in self.digests else DIFFERENT

    def marks(self) -> dict[int, str]:
        """Per copy (by index) a short mark grouping equal digests: "A", "B", ... ("?" unreadable)."""
        letters: dict[str, str] = {}
        out: dict[int, str] = {}
        for i, c in enumerate(self.copies):
            if c.digest is None:
                out[i] = "?"
                continue
            out[i] = letters.setdefault(c.digest, chr(ord("A") + len(letters) % 26))
        return out


@dataclass
class Machine:
    """What :func:`scan_machine` found."""

    home: Path
    projects: tuple[Path, ...]
    roots: list[MachineRoot]
    skills: list[MachineSkill]
    locks: list[LockFile]
    problems: list[str]

    def copies(self) -> list[Copy]:
        return [c for r in self.roots for c in r.copies]

    def root_at(self, path: Path) -> MachineRoot | None:
        return next((r for r in self.roots if r.path == path), None)

    def skill(self, name: str) -> MachineSkill | None:
        return next((s for s in self.skills if fold(s.name) == fold(name)), None)

    def as_json(self) -> dict[str, Any]:
        """Every root and every skill copy with its path and digest (``rockskills agents --json``)."""
        def copy_json(c: Copy) -> dict[str, Any]:
            data: dict[str, Any] = {
                "name": c.name, "root": str(c.root.path), "folder": c.rel, "path": str(c.folder),
                "digest": c.digest, "agents": list(c.seen_by),
                "disabled": dict(sorted(c.disabled.items())), "aside": c.aside}
            if c.linked_to is not None:
                data["linkedTo"] = str(c.linked_to)
            if c.copy_state:
                data["copied"] = {"from": c.notes.copied.source if c.notes.copied else "",
                                  "state": c.copy_state}
            if c.copied_to:
                data["copiedTo"] = [{"path": str(other.folder), "state": state}
                                    for other, state in c.copied_to]
            if c.lock is not None:
                data["lock"] = {"file": str(c.lock.lock.path), "source": c.lock.entry.source,
                                "sourceType": c.lock.entry.source_type, "state": c.lock.state}
            if c.notes.tags:
                data["tags"] = list(c.notes.tags)
            if c.notes.note:
                data["note"] = c.notes.note
            if c.files.skipped:
                data["notHashed"] = list(c.files.skipped)
            if c.gate:
                data["findings"] = [{"file": f.file, "line": f.line, "kind": f.kind, "severity": f.severity,
                                     "message": f.message,
                                     "accepted": f.accepted.reason if f.accepted else None,
                                     "gone": f.gone} for f in c.gate]
            if c.problem:
                data["problem"] = c.problem
            return data

        return {
            "home": str(self.home), "projects": [str(p) for p in self.projects],
            "roots": [{"path": str(r.path), "scope": r.scope, "agents": list(r.agent_ids),
                       "kind": r.kind.value, "aside": r.aside, "skills": r.count,
                       "project": str(r.project) if r.project else None, "problems": r.problems}
                      for r in self.roots],
            "skills": [{"name": s.name, "copies": [copy_json(c) for c in s.copies],
                        "sameness": s.sameness} for s in self.skills],
            "locks": [{"path": str(lock.path), "version": lock.version, "problem": lock.problem,
                       "entries": len(lock.entries)} for lock in self.locks],
            "problems": self.problems,
        }


# ---------------------------------------------------------------- finding roots


def _roots(home: Path, projects: Sequence[Path], profiles: Sequence[AgentProfile]) -> list[MachineRoot]:
    by_path: dict[Path, MachineRoot] = {}

    def add(path: Path, scope: str, profile: AgentProfile, project: Path | None) -> None:
        kind = FileKind.ROCKBOT_JSON if FileKind.ROCKBOT_JSON in profile.storage.file_kinds \
            else FileKind.SKILL_MD
        if not _holds(path, kind):
            return
        root = by_path.get(path)
        if root is None:
            by_path[path] = MachineRoot(path, scope, (profile,), project, kind=kind)
        elif root.kind is kind and profile not in root.agents:
            root.agents = (*root.agents, profile)

    for profile in profiles:
        for found in user_roots(profile, home):
            add(found.path, found.scope, profile, None)
    for project in projects:
        for profile in profiles:
            for found in project_roots(project, profile):
                add(found.path, "project", profile, project)
    roots = list(by_path.values())
    for root in list(roots):
        aside = aside_of(root.path)
        if aside.is_dir() and not aside.is_symlink():
            roots.append(MachineRoot(aside, root.scope, root.agents, root.project, aside=True, of=root.path,
                                     kind=root.kind))
    order = {"user": 0, "extension": 1, "project": 2}
    return sorted(roots, key=lambda r: (order.get(r.scope, 3), str(r.project or ""), str(r.home_of_root),
                                        r.aside))


def _holds(path: Path, kind: FileKind) -> bool:
    """A RockBot root holds ``*.json`` files; a SKILL.md root anything (an empty one is listed)."""
    if kind is not FileKind.ROCKBOT_JSON:
        return True
    try:
        with os.scandir(path) as entries:
            return any(e.name.endswith(".json") or e.is_dir(follow_symlinks=False) for e in entries)
    except OSError:
        return False


# ---------------------------------------------------------------- a root's skills


def _skill_folders(root: MachineRoot) -> Iterable[Path]:
    """The skill folders below a SKILL.md root: a folder holding SKILL.md, not looked into
    further; '.'-folders never entered; a linked folder directly below a folder is followed once
    (installers link skills into agents' roots)."""
    found = 0

    def deep(path: str) -> None:
        root.problems.append(f"{path}: {folder_walk.too_deep_message(FOLDER_MAX_DEPTH)}")

    for here, dirs, _files in folder_walk.walk(root.path, FOLDER_MAX_DEPTH, deep):
        base = Path(here)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in NEVER_ENTERED)
        keep: list[str] = []
        for d in dirs:
            folder = base / d
            if fileio.is_regular(folder / SKILL_FILE):
                found += 1
                if found > MAX_SKILLS_PER_ROOT:
                    root.problems.append(f"more than {MAX_SKILLS_PER_ROOT} skills: the rest are not listed")
                    return
                yield folder
            elif not folder.is_symlink():
                keep.append(d)
        dirs[:] = keep


def _rockbot_files(root: MachineRoot) -> Iterable[Path]:
    for here, dirs, files in folder_walk.walk(root.path, FOLDER_MAX_DEPTH):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.endswith(".resources"))
        for name in sorted(files):
            if name.endswith(".json"):
                yield Path(here) / name


def _front(skill_file: Path) -> tuple[str, str, str]:
    """(name, description, problem) of a SKILL.md, leniently."""
    try:
        doc = fm.split_document(fileio.read_regular(skill_file, SKILL_FILE_MAX_BYTES))
        values = fm.parse_frontmatter(doc.frontmatter).values if doc.has_frontmatter else {}
    except (OSError, UnicodeDecodeError, fm.FrontmatterError) as exc:
        return "", "", str(exc) or type(exc).__name__
    name, description = values.get("name"), values.get("description")
    return (name.strip() if isinstance(name, str) else "",
            description if isinstance(description, str) else "", "")


def _seen_by(root: MachineRoot, rel: str) -> tuple[str, ...]:
    parts = rel.split("/")
    seen: list[str] = []
    for agent in root.agents:
        storage = agent.storage
        if root.aside:
            continue
        if storage.scan_depth is not None and len(parts) > storage.scan_depth:
            continue
        if not storage.recursive and len(parts) > 1:
            continue
        if any(p in storage.skipped_dirs for p in parts[:-1]):
            continue
        seen.append(agent.id)
    return tuple(seen)


def _read_copies(root: MachineRoot) -> None:
    if root.kind is FileKind.ROCKBOT_JSON:
        for path in _rockbot_files(root):
            rel = path.relative_to(root.path).as_posix()
            files = FolderFiles(path.parent)
            try:
                files.files[path.name] = fileio.read_regular(path, SKILL_FILE_MAX_BYTES)
            except OSError as exc:
                files.skipped.append(f"{path.name}: {exc.strerror or exc}")
            root.copies.append(Copy(root, path, rel, rel.removesuffix(".json"), "", files,
                                    folder_digest(files), path, seen_by=root.agent_ids))
        return
    for folder in _skill_folders(root):
        rel = folder.relative_to(root.path).as_posix()
        skill_file = folder / SKILL_FILE
        name, description, problem = _front(skill_file)
        files = folder_files(folder)
        linked = Path(os.path.realpath(folder)) if folder.is_symlink() else None
        root.copies.append(Copy(root, folder, rel, name or folder.name, description, files,
                                folder_digest(files), skill_file, linked, _seen_by(root, rel),
                                problem=problem))


# ---------------------------------------------------------------- putting it together


def _disabled(root: MachineRoot, copy: Copy, cache: dict[tuple[str, Path | None], Disabled],
              home: Path, problems: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for agent in root.agents:
        if root.aside:
            out[agent.id] = f"moved aside to {root.path}"
            continue
        key = (agent.id, root.project)
        state = cache.get(key)
        if state is None:
            state = cache[key] = read_disabled(agent, home, root.project)
            problems.extend(e for e in state.errors if e not in problems)
        why = state.why(copy.name, copy.skill_file)
        if why:
            out[agent.id] = why
    return out


def _copy_state(copy: Copy, by_folder: dict[Path, Copy]) -> str:
    record = copy.notes.copied
    if record is None:
        return ""
    source = by_folder.get(Path(record.source))
    if source is None and Path(record.source).is_dir():
        files = folder_files(Path(record.source))
        there: str | None = folder_digest(files)
    else:
        there = source.digest if source is not None else None
    if source is None and not Path(record.source).is_dir():
        return "source gone"
    here_changed = copy.digest != record.digest
    there_changed = there != record.digest
    if here_changed and there_changed:
        return "both changed since copied" if copy.digest != there else IDENTICAL
    if here_changed:
        return HERE
    if there_changed:
        return THERE
    return IDENTICAL


def _locks(home: Path, projects: Sequence[Path], roots: list[MachineRoot]) -> list[LockFile]:
    found: list[LockFile] = []
    for rel in GLOBAL_LOCKS:
        lock = read_lock(home / rel)
        if lock is not None:
            found.append(lock)
    for project in projects:
        lock = read_lock(project / PROJECT_LOCK)
        if lock is not None:
            found.append(lock)
    del roots
    return found


def _attach_locks(locks: list[LockFile], home: Path, roots: list[MachineRoot]) -> None:
    for lock in locks:
        project = None if lock.is_global else lock.path.parent
        candidates = [r for r in roots
                      if not r.aside and (r.project == project if project else r.scope == "user")]
        canonical = (home if project is None else project) / ".agents" / "skills"
        candidates.sort(key=lambda r: r.path != canonical)
        for entry in lock.entries:
            copy = next((c for r in candidates for c in r.copies if c.rel == entry.name), None)
            state = check_entry(entry, copy.folder if copy else None)
            if copy is not None:
                copy.lock = InstalledLock(lock, entry, state)


def scan_machine(home: Path, projects: Sequence[Path] = (), profiles: Sequence[AgentProfile] | None = None,
                 gate: bool = True, recover: bool = True) -> Machine:
    """Every root, skill and copy below ``home`` and ``projects`` (see the module doc). A machine
    change a crash interrupted in one of the roots' places is finished (or rolled back) first,
    as opening a library does, and said in ``problems`` (``recover=False``: only read)."""
    profiles = list(profiles) if profiles is not None else machine_profiles()
    projects = tuple(dict.fromkeys(projects))
    roots = _roots(home, projects, profiles)
    problems: list[str] = []
    if recover:
        trusted = tuple(dict.fromkeys(Path(os.path.realpath(r.path)) for r in roots))
        for report in recover_places((r.home_of_root.parent for r in roots), trusted):
            problems += report.lines()
    cache: dict[tuple[str, Path | None], Disabled] = {}
    for root in roots:
        _read_copies(root)
        root.sidecar = read_sidecar(root.path)
        if root.sidecar.problem:
            problems.append(f"{root.sidecar.path}: {root.sidecar.problem}")
        for copy in root.copies:
            copy.notes = root.sidecar.notes(copy.rel)
            copy.disabled = _disabled(root, copy, cache, home, problems)
            if gate and root.kind is FileKind.SKILL_MD:
                copy.gate = findings(copy.files, copy.notes.accepted)
    by_folder = {c.folder: c for r in roots for c in r.copies}
    for copy in by_folder.values():
        copy.copy_state = _copy_state(copy, by_folder)
        source = by_folder.get(Path(copy.notes.copied.source)) if copy.notes.copied else None
        if source is not None:
            source.copied_to.append((copy, MIRRORED.get(copy.copy_state, copy.copy_state)))
    locks = _locks(home, projects, roots)
    _attach_locks(locks, home, roots)
    problems += [f"{lock.path}: {lock.problem}" for lock in locks if lock.problem]
    grouped: dict[str, MachineSkill] = {}
    for root in roots:
        for copy in root.copies:
            grouped.setdefault(fold(copy.name), MachineSkill(copy.name, [])).copies.append(copy)
    skills = sorted(grouped.values(), key=lambda s: sort_key(s.name))
    return Machine(home, projects, roots, skills, locks, problems)
